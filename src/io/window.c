/* src/io/window.c: a byte range of a file's text (gunzipped when it is gzip data), read without
 * holding the rest of the text: what each rank of the distributed reader reads (src/dist). */
#define _POSIX_C_SOURCE 200809L /* fseeko, fstat, fileno */

#include "io/window.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "io/gz.h"
#include "io/text.h"

enum { WINDOW_BLOCK = 1 << 20 }; /* bytes per read or inflate step */

/* An open text: the file, and its gzip reader when it is gzip data. */
typedef struct text_stream {
    FILE *f;
    spx_io_gzr *gz;
    int64_t pos; /* text offset of the next byte stream_read returns */
} text_stream;

/* Opens path as a text stream positioned at offset 0; errors name path. */
static spx_status stream_open(spx_ctx *ctx, const char *path, text_stream *s)
{
    memset(s, 0, sizeof *s);
    spx_status st = spx_io_open_read(ctx, path, &s->f);
    if (st) return st;
    unsigned char magic[2] = {0, 0};
    size_t n = fread(magic, 1, 2, s->f);
    rewind(s->f);
    if (spx_io_is_gzip(magic, n))
        return spx_io_gzr_open(ctx, s->f, path, &s->gz);
    return SPX_OK;
}

/* Closes what stream_open opened. */
static void stream_close(text_stream *s)
{
    spx_io_gzr_free(&s->gz);
    if (s->f)
        fclose(s->f);
    s->f = NULL;
}

/* Moves a plain file to offset to (gzip data is skipped by reading: stream_read). */
static spx_status stream_seek(spx_ctx *ctx, const char *path, text_stream *s, int64_t to)
{
    if (s->gz || to == 0)
        return SPX_OK;
    if (fseeko(s->f, (off_t)to, SEEK_SET) != 0)
        return spx_fail(ctx, SPX_ERR_IO, "%s: cannot seek to byte %lld: %s", path, (long long)to, strerror(errno));
    s->pos = to;
    return SPX_OK;
}

/* The next bytes of the text into buf[0..cap): *got, 0 only at its end. */
static spx_status stream_read(spx_ctx *ctx, const char *path, text_stream *s, char *buf, size_t cap, size_t *got)
{
    spx_status st = SPX_OK;
    if (s->gz) {
        st = spx_io_gzr_read(s->gz, buf, cap, got);
    } else {
        *got = fread(buf, 1, cap, s->f);
        if (*got == 0 && ferror(s->f))
            st = spx_fail(ctx, SPX_ERR_IO, "%s: read error: %s", path, strerror(errno));
    }
    s->pos += (int64_t)*got;
    return st;
}

spx_status spx_io_text_length(spx_ctx *ctx, const char *path, int64_t *len)
{
    text_stream s;
    spx_status st = stream_open(ctx, path, &s);
    char *block = NULL;
    struct stat sb;
    if (!st && !s.gz && fstat(fileno(s.f), &sb) == 0 && S_ISREG(sb.st_mode)) {
        *len = (int64_t)sb.st_size;
        goto done;
    }
    if (!st && !(block = spx_malloc(ctx, WINDOW_BLOCK)))
        st = spx_fail_nomem(ctx, "text window");
    size_t got = 1;
    while (!st && got)
        st = stream_read(ctx, path, &s, block, WINDOW_BLOCK, &got);
    if (!st)
        *len = s.pos;
done:
    spx_free(ctx, block);
    stream_close(&s);
    return st;
}

/* Appends src[0..n) to the window *buf (*len used of *cap), growing it; keeps a spare byte. */
static spx_status window_append(spx_ctx *ctx, char **buf, size_t *len, size_t *cap, const char *src, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = *cap ? *cap : WINDOW_BLOCK;
        while (c < *len + n + 1)
            c *= 2;
        char *nb = spx_realloc(ctx, *buf, c);
        if (!nb)
            return spx_fail_nomem(ctx, "text window");
        *buf = nb;
        *cap = c;
    }
    memcpy(*buf + *len, src, n);
    *len += n;
    return SPX_OK;
}

spx_status spx_io_read_window(spx_ctx *ctx, const char *path, int64_t from, int64_t stop, char **text, size_t *len)
{
    text_stream s;
    char *block = NULL, *buf = NULL;
    size_t used = 0, cap = 0, got = 1;
    int ended = 0; /* the '\n' at or after stop is in the window */
    spx_status st = stream_open(ctx, path, &s);
    if (!st)
        st = stream_seek(ctx, path, &s, from);
    if (!st && !(block = spx_malloc(ctx, WINDOW_BLOCK)))
        st = spx_fail_nomem(ctx, "text window");
    if (!st)
        st = window_append(ctx, &buf, &used, &cap, "", 0);
    while (!st && !ended) {
        const int64_t at = s.pos;
        if ((st = stream_read(ctx, path, &s, block, WINDOW_BLOCK, &got)) || got == 0)
            break;
        int64_t lo = from > at ? from - at : 0; /* the part of the block at or after from */
        if (lo >= (int64_t)got)
            continue;
        int64_t hi = (int64_t)got, scan = stop > at + lo ? stop - at : lo; /* '\n' searched from stop on */
        if (scan < hi) {
            const char *nl = memchr(block + scan, '\n', (size_t)(hi - scan));
            if (nl) {
                hi = nl - block + 1;
                ended = 1;
            }
        }
        st = window_append(ctx, &buf, &used, &cap, block + lo, (size_t)(hi - lo));
    }
    if (!st) {
        buf[used] = '\0';
        *text = buf;
        *len = used;
        buf = NULL;
    }
    spx_free(ctx, buf);
    spx_free(ctx, block);
    stream_close(&s);
    return st;
}
