/* src/io/gz.c: gzip in and out through zlib (memory via the context), or stubs refusing it. */
#include "io/gz.h"

#include <limits.h>
#include <string.h>

/* 1 when the n bytes at p start with the gzip magic (1f 8b), else 0. */
int spx_io_is_gzip(const unsigned char *p, size_t n)
{
    return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

/* ---- built with zlib ---------------------------------------------------------------- */
#ifdef SPX_HAVE_ZLIB
#include <zlib.h>

enum { GZ_OUT_CHUNK = 1 << 18 }; /* compressed bytes written per fwrite */
enum { GZ_IN_STEP = 1 << 24 };    /* compressed bytes per inflate call (a progress report each) */

/* zlib's allocation hook: through the context's allocator. */
static voidpf gz_alloc(voidpf opaque, uInt items, uInt size)
{
    return spx_malloc_array((spx_ctx *)opaque, items, size);
}

/* zlib's free hook: through the context's allocator. */
static void gz_free(voidpf opaque, voidpf p)
{
    spx_free((spx_ctx *)opaque, p);
}

/* 1 when this build can read and write gzip data. */
int spx_io_gz_available(void)
{
    return 1;
}

/* Grows *buf (capacity *cap, of which used bytes are kept) to at least need + 1 bytes. */
static spx_status gz_grow(spx_ctx *ctx, char **buf, size_t *cap, size_t need)
{
    size_t c = *cap ? *cap : 1;
    while (c < need + 1) {
        if (c > SIZE_MAX / 2)
            return spx_fail_nomem(ctx, "gzip output buffer");
        c *= 2;
    }
    char *nb = spx_realloc(ctx, *buf, c);
    if (!nb)
        return spx_fail_nomem(ctx, "gzip output buffer");
    *buf = nb;
    *cap = c;
    return SPX_OK;
}

/* Decompresses gzip data (members concatenated) into a NUL-terminated buffer. */
spx_status spx_io_gunzip(spx_ctx *ctx, const char *path, const unsigned char *in, size_t n,
                         const spx_progress *pr, char **out, size_t *out_len)
{
    spx_status st = SPX_OK;
    z_stream zs;
    int inited = 0;
    char *buf = NULL;
    size_t cap = 0, len = 0;

    memset(&zs, 0, sizeof zs);
    zs.zalloc = gz_alloc;
    zs.zfree = gz_free;
    zs.opaque = ctx;
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
        st = spx_fail_nomem(ctx, "zlib inflate state");
        goto done;
    }
    inited = 1;
    st = gz_grow(ctx, &buf, &cap, n < SIZE_MAX / 4 ? n * 4 + 4096 : n);
    if (st)
        goto done;

    size_t pos = 0; /* input consumed */
    spx_progress_tell(pr, "inflate", 0, (double)n);
    for (;;) {
        if (len + 1 >= cap) {
            st = gz_grow(ctx, &buf, &cap, cap);
            if (st)
                goto done;
        }
        size_t in_left = n - pos, out_left = cap - 1 - len;
        zs.next_in = (Bytef *)(in + pos);
        zs.avail_in = in_left > GZ_IN_STEP ? GZ_IN_STEP : (uInt)in_left;
        zs.next_out = (Bytef *)(buf + len);
        zs.avail_out = out_left > UINT_MAX ? UINT_MAX : (uInt)out_left;
        uInt ai = zs.avail_in, ao = zs.avail_out;
        int zr = inflate(&zs, Z_NO_FLUSH);
        pos += ai - zs.avail_in;
        len += ao - zs.avail_out;
        spx_progress_tell(pr, "inflate", (double)pos, (double)n);
        if (zr == Z_STREAM_END) {
            if (pos == n)
                break;
            /* another gzip member follows (as `cat a.gz b.gz` makes) */
            if (inflateReset(&zs) != Z_OK) {
                st = spx_fail(ctx, SPX_ERR_PARSE, "%s: corrupt gzip data", path);
                goto done;
            }
            continue;
        }
        if (zr == Z_MEM_ERROR) {
            st = spx_fail_nomem(ctx, "zlib inflate");
            goto done;
        }
        if (zr == Z_BUF_ERROR && pos == n) {
            st = spx_fail(ctx, SPX_ERR_PARSE, "%s: truncated gzip data (ends after %zu bytes)",
                          path, n);
            goto done;
        }
        if (zr != Z_OK && zr != Z_BUF_ERROR) {
            st = spx_fail(ctx, SPX_ERR_PARSE, "%s: corrupt gzip data (%s)", path,
                          zs.msg ? zs.msg : "inflate failed");
            goto done;
        }
        if (ai == zs.avail_in && ao == zs.avail_out && ao != 0) { /* no progress: never loop */
            st = spx_fail(ctx, SPX_ERR_PARSE, "%s: corrupt gzip data", path);
            goto done;
        }
        if (pos == n && zs.avail_out != 0) {
            st = spx_fail(ctx, SPX_ERR_PARSE, "%s: truncated gzip data (ends after %zu bytes)",
                          path, n);
            goto done;
        }
    }
    buf[len] = '\0';
    *out = buf;
    *out_len = len;
    buf = NULL;
done:
    if (inited)
        inflateEnd(&zs);
    spx_free(ctx, buf);
    return st;
}

enum { GZR_IN_CHUNK = 1 << 20 }; /* compressed bytes per fread of the streaming reader */

struct spx_io_gzr {
    spx_ctx *ctx;
    FILE *f;
    const char *path;
    z_stream zs;
    int inited;
    int eof;        /* f has no more bytes */
    int member_end; /* the last inflate ended a gzip member */
    int done;       /* the data is over */
    size_t in_total; /* compressed bytes read so far */
    unsigned char *in;
};

spx_status spx_io_gzr_open(spx_ctx *ctx, FILE *f, const char *path, spx_io_gzr **out)
{
    spx_io_gzr *r = spx_calloc_array(ctx, 1, sizeof *r);
    if (!r)
        return spx_fail_nomem(ctx, "gzip reader");
    r->ctx = ctx;
    r->f = f;
    r->path = path;
    r->in = spx_malloc(ctx, GZR_IN_CHUNK);
    r->zs.zalloc = gz_alloc;
    r->zs.zfree = gz_free;
    r->zs.opaque = ctx;
    if (!r->in || inflateInit2(&r->zs, 16 + MAX_WBITS) != Z_OK) {
        spx_io_gzr_free(&r);
        return spx_fail_nomem(ctx, "gzip reader");
    }
    r->inited = 1;
    *out = r;
    return SPX_OK;
}

/* Refills the reader's input from its file when it is empty; sets eof at the file's end. */
static spx_status gzr_fill(spx_io_gzr *r)
{
    if (r->zs.avail_in || r->eof)
        return SPX_OK;
    size_t n = fread(r->in, 1, GZR_IN_CHUNK, r->f);
    if (n == 0 && ferror(r->f))
        return spx_fail(r->ctx, SPX_ERR_IO, "%s: read error", r->path);
    r->eof = n == 0;
    r->in_total += n;
    r->zs.next_in = r->in;
    r->zs.avail_in = (uInt)n;
    return SPX_OK;
}

spx_status spx_io_gzr_read(spx_io_gzr *r, char *buf, size_t cap, size_t *got)
{
    spx_status st = SPX_OK;
    r->zs.next_out = (Bytef *)buf;
    r->zs.avail_out = cap > UINT_MAX ? UINT_MAX : (uInt)cap;
    const uInt want = r->zs.avail_out;
    while (r->zs.avail_out > 0 && !r->done) {
        if ((st = gzr_fill(r)))
            break;
        if (r->member_end) { /* the data ends here, or another member follows */
            if (r->zs.avail_in == 0) {
                r->done = r->eof;
                continue;
            }
            if (inflateReset(&r->zs) != Z_OK) {
                st = spx_fail(r->ctx, SPX_ERR_PARSE, "%s: corrupt gzip data", r->path);
                break;
            }
            r->member_end = 0;
        }
        uInt ai = r->zs.avail_in, ao = r->zs.avail_out;
        int zr = inflate(&r->zs, Z_NO_FLUSH);
        if (zr == Z_STREAM_END) {
            r->member_end = 1;
            continue;
        }
        if (zr == Z_MEM_ERROR) {
            st = spx_fail_nomem(r->ctx, "zlib inflate");
            break;
        }
        if (zr != Z_OK && zr != Z_BUF_ERROR) {
            st = spx_fail(r->ctx, SPX_ERR_PARSE, "%s: corrupt gzip data (%s)", r->path, r->zs.msg ? r->zs.msg : "inflate failed");
            break;
        }
        if (ai == r->zs.avail_in && ao == r->zs.avail_out && (r->eof || ai != 0)) { /* no progress: never loop */
            if (r->eof)
                st = spx_fail(r->ctx, SPX_ERR_PARSE, "%s: truncated gzip data (ends after %zu bytes)", r->path, r->in_total);
            else
                st = spx_fail(r->ctx, SPX_ERR_PARSE, "%s: corrupt gzip data", r->path);
            break;
        }
    }
    *got = want - r->zs.avail_out;
    return st;
}

void spx_io_gzr_free(spx_io_gzr **r)
{
    if (!r || !*r)
        return;
    if ((*r)->inited)
        inflateEnd(&(*r)->zs);
    spx_free((*r)->ctx, (*r)->in);
    spx_free((*r)->ctx, *r);
    *r = NULL;
}

struct spx_io_gzw {
    spx_ctx *ctx;
    FILE *f;
    const char *path;
    z_stream zs;
    int inited;
    unsigned char *out;
};

/* Starts a gzip stream on f. */
spx_status spx_io_gzw_open(spx_ctx *ctx, FILE *f, const char *path, spx_io_gzw **out)
{
    spx_status st = SPX_OK;
    spx_io_gzw *w = spx_malloc(ctx, sizeof *w);
    if (!w) {
        st = spx_fail_nomem(ctx, "gzip writer");
        goto done;
    }
    memset(w, 0, sizeof *w);
    w->ctx = ctx;
    w->f = f;
    w->path = path;
    w->out = spx_malloc(ctx, GZ_OUT_CHUNK);
    if (!w->out) {
        st = spx_fail_nomem(ctx, "gzip writer buffer");
        goto done;
    }
    w->zs.zalloc = gz_alloc;
    w->zs.zfree = gz_free;
    w->zs.opaque = ctx;
    /* level 6: zlib's default, most of level 9's ratio at a fraction of its time */
    if (deflateInit2(&w->zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        st = spx_fail_nomem(ctx, "zlib deflate state");
        goto done;
    }
    w->inited = 1;
    *out = w;
    w = NULL;
done:
    spx_io_gzw_free(&w);
    return st;
}

/* Runs deflate with the given flush mode until the input is consumed (or the end written). */
static spx_status gzw_pump(spx_io_gzw *w, int flush)
{
    for (;;) {
        w->zs.next_out = w->out;
        w->zs.avail_out = GZ_OUT_CHUNK;
        int zr = deflate(&w->zs, flush);
        if (zr == Z_STREAM_ERROR)
            return spx_fail(w->ctx, SPX_ERR_IO, "%s: gzip compression failed", w->path);
        size_t have = GZ_OUT_CHUNK - w->zs.avail_out;
        if (have && fwrite(w->out, 1, have, w->f) != have)
            return spx_fail(w->ctx, SPX_ERR_IO, "%s: write failed", w->path);
        if (flush == Z_FINISH ? zr == Z_STREAM_END : w->zs.avail_out != 0)
            return SPX_OK;
    }
}

/* Compresses n bytes of buf onto the stream. */
spx_status spx_io_gzw_write(spx_io_gzw *w, const void *buf, size_t n)
{
    const unsigned char *p = buf;
    while (n > 0) {
        uInt take = n > UINT_MAX ? UINT_MAX : (uInt)n;
        w->zs.next_in = (Bytef *)p;
        w->zs.avail_in = take;
        spx_status st = gzw_pump(w, Z_NO_FLUSH);
        if (st)
            return st;
        p += take;
        n -= take;
    }
    return SPX_OK;
}

/* Writes the end of the stream. */
spx_status spx_io_gzw_finish(spx_io_gzw *w)
{
    w->zs.next_in = NULL;
    w->zs.avail_in = 0;
    return gzw_pump(w, Z_FINISH);
}

/* Frees the writer and sets *w to NULL. */
void spx_io_gzw_free(spx_io_gzw **w)
{
    if (!w || !*w)
        return;
    spx_ctx *ctx = (*w)->ctx;
    if ((*w)->inited)
        deflateEnd(&(*w)->zs);
    spx_free(ctx, (*w)->out);
    spx_free(ctx, *w);
    *w = NULL;
}

/* ---- built without zlib: gzip is refused ------------------------------------------- */
#else

struct spx_io_gzw {
    int unused;
};

/* 0: this build has no zlib. */
int spx_io_gz_available(void)
{
    return 0;
}

/* Refuses: no zlib in this build. */
spx_status spx_io_gunzip(spx_ctx *ctx, const char *path, const unsigned char *in, size_t n,
                         const spx_progress *pr, char **out, size_t *out_len)
{
    return spx_fail(ctx, SPX_ERR_UNSUPPORTED,
                    "%s: gzip-compressed input, but this build has no zlib", path);
}

struct spx_io_gzr {
    int unused;
};

/* Refuses: no zlib in this build. */
spx_status spx_io_gzr_open(spx_ctx *ctx, FILE *f, const char *path, spx_io_gzr **out)
{
    return spx_fail(ctx, SPX_ERR_UNSUPPORTED, "%s: gzip-compressed input, but this build has no zlib", path);
}

/* Unreachable without a reader. */
spx_status spx_io_gzr_read(spx_io_gzr *r, char *buf, size_t cap, size_t *got)
{
    *got = 0;
    return SPX_ERR_UNSUPPORTED;
}

/* Nothing to free. */
void spx_io_gzr_free(spx_io_gzr **r)
{
    if (r)
        *r = NULL;
}

/* Refuses: no zlib in this build. */
spx_status spx_io_gzw_open(spx_ctx *ctx, FILE *f, const char *path, spx_io_gzw **out)
{
    return spx_fail(ctx, SPX_ERR_UNSUPPORTED,
                    "%s: gzip output requested, but this build has no zlib", path);
}

/* Unreachable without a writer. */
spx_status spx_io_gzw_write(spx_io_gzw *w, const void *buf, size_t n)
{
    return SPX_ERR_UNSUPPORTED;
}

/* Unreachable without a writer. */
spx_status spx_io_gzw_finish(spx_io_gzw *w)
{
    return SPX_ERR_UNSUPPORTED;
}

/* Nothing to free. */
void spx_io_gzw_free(spx_io_gzw **w)
{
    if (w)
        *w = NULL;
}
#endif
