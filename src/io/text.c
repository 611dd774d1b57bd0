/* src/io/text.c: reading a whole file into memory, then gunzipping it if it is gzip data. */
#define _POSIX_C_SOURCE 200809L /* fstat, fileno */

#include "io/text.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "io/gz.h"

enum { TEXT_FIRST_CAP = 1 << 20 }; /* first buffer when the size cannot be asked for */
enum { TEXT_READ_STEP = 1 << 26 };  /* bytes per fread (a progress report each) */

/* The size of a regular file f, -1 for other streams (pipes, devices: read until EOF). */
static long long text_size_hint(FILE *f)
{
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode))
        return -1;
    return (long long)sb.st_size;
}

/* Reads all of f into a context-allocated buffer with one spare byte for a NUL, reporting
 * "read" to pr when the size is known. */
static spx_status text_slurp(spx_ctx *ctx, FILE *f, const char *path, const spx_progress *pr,
                             char **out, size_t *out_len)
{
    spx_status st = SPX_OK;
    long long hint = text_size_hint(f);
    /* one byte more than the size, so the EOF is seen without growing */
    size_t cap = hint >= 0 ? (size_t)hint + 2 : TEXT_FIRST_CAP, len = 0;
    char *buf = spx_malloc(ctx, cap);
    if (!buf) {
        st = spx_fail_nomem(ctx, "file buffer");
        goto done;
    }
    if (hint > 0)
        spx_progress_tell(pr, "read", 0, (double)hint);
    for (;;) {
        if (len + 1 >= cap) {
            if (cap > SIZE_MAX / 2) {
                st = spx_fail_nomem(ctx, "file buffer");
                goto done;
            }
            char *nb = spx_realloc(ctx, buf, cap * 2);
            if (!nb) {
                st = spx_fail_nomem(ctx, "file buffer");
                goto done;
            }
            buf = nb;
            cap *= 2;
        }
        size_t want = cap - 1 - len < TEXT_READ_STEP ? cap - 1 - len : TEXT_READ_STEP;
        size_t got = fread(buf + len, 1, want, f);
        len += got;
        if (hint > 0 && got)
            spx_progress_tell(pr, "read", (double)(len < (size_t)hint ? len : (size_t)hint), (double)hint);
        if (got == 0) {
            if (ferror(f)) {
                st = spx_fail(ctx, SPX_ERR_IO, "%s: read error: %s", path, strerror(errno));
                goto done;
            }
            break;
        }
    }
    if (hint > 0)
        spx_progress_tell(pr, "read", (double)hint, (double)hint);
    buf[len] = '\0';
    *out = buf;
    *out_len = len;
    buf = NULL;
done:
    spx_free(ctx, buf);
    return st;
}

/* Reads path whole, gunzipping gzip data. */
spx_status spx_io_open_read(spx_ctx *ctx, const char *path, FILE **f)
{
    struct stat sb;
    *f = NULL;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) return spx_fail(ctx, SPX_ERR_IO, "%s: is a directory", path);
    *f = fopen(path, "rb");
    if (!*f) return spx_fail(ctx, SPX_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    return SPX_OK;
}

spx_status spx_io_read_text(spx_ctx *ctx, const char *path, const spx_progress *pr, char **text,
                            size_t *len, int *was_gz)
{
    spx_status st = SPX_OK;
    char *raw = NULL, *plain = NULL;
    size_t raw_len = 0, plain_len = 0;
    int gz = 0;
    FILE *f = NULL;
    if ((st = spx_io_open_read(ctx, path, &f))) goto done;
    st = text_slurp(ctx, f, path, pr, &raw, &raw_len);
    if (st)
        goto done;
    gz = spx_io_is_gzip((const unsigned char *)raw, raw_len);
    if (gz) {
        st = spx_io_gunzip(ctx, path, (const unsigned char *)raw, raw_len, pr, &plain, &plain_len);
        if (st)
            goto done;
        spx_free(ctx, raw);
        raw = plain;
        raw_len = plain_len;
        plain = NULL;
    }
    *text = raw;
    *len = raw_len;
    if (was_gz)
        *was_gz = gz;
    raw = NULL;
done:
    if (st == SPX_ERR_NOMEM) { /* the budget's message, with the file it was reading */
        char msg[SPX_ERRMSG_LEN];
        snprintf(msg, sizeof msg, "%s", spx_ctx_last_error(ctx));
        spx_fail(ctx, st, "%s: %s", path, msg);
    }
    if (f)
        fclose(f);
    spx_free(ctx, raw);
    spx_free(ctx, plain);
    return st;
}
