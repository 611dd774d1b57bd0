/* src/io/mtx_write.c: the Matrix Market writer, through a temporary file renamed at the end. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fchmod, fdopen */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/ctx.h"
#include "io/gz.h"

/* Text is gathered into blocks of this size before each write (or compression) call. */
#define WRITE_BLOCK_BYTES ((size_t)1 << 20)
/* Room for one formatted entry: two int32 and a %.17g double, with separators. */
#define WRITE_ENTRY_MAX 80
/* The written file's permissions (mkstemp makes 0600, too private for a result file). */
#define WRITE_FILE_MODE 0644

/* Where formatted text goes: a block buffer, then the file or the gzip stream. */
typedef struct mtx_sink {
    spx_ctx *ctx;
    const char *path;
    FILE *f;
    spx_io_gzw *gz; /* NULL: plain text */
    char *buf;
    size_t len;
} mtx_sink;

/* Writes the buffered text out. */
static spx_status sink_flush(mtx_sink *s)
{
    spx_status st = SPX_OK;
    if (s->len == 0)
        return SPX_OK;
    if (s->gz)
        st = spx_io_gzw_write(s->gz, s->buf, s->len);
    else if (fwrite(s->buf, 1, s->len, s->f) != s->len)
        st = spx_fail(s->ctx, SPX_ERR_IO, "%s: write failed: %s", s->path, strerror(errno));
    s->len = 0;
    return st;
}

/* Makes room for at least WRITE_ENTRY_MAX more bytes in the buffer. */
static spx_status sink_reserve(mtx_sink *s)
{
    return s->len + WRITE_ENTRY_MAX > WRITE_BLOCK_BYTES ? sink_flush(s) : SPX_OK;
}

/* Formats the banner, size line and entries of A into the sink. */
static spx_status write_matrix(mtx_sink *s, const spx_csr *A)
{
    spx_status st = SPX_OK;
    int n = snprintf(s->buf, WRITE_ENTRY_MAX * 2,
                     "%%%%MatrixMarket matrix coordinate real general\n%d %d %lld\n", A->m, A->n,
                     (long long)A->nnz);
    s->len = (size_t)n;
    for (int32_t i = 0; i < A->m; i++) {
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            st = sink_reserve(s);
            if (st)
                return st;
            n = snprintf(s->buf + s->len, WRITE_ENTRY_MAX, "%d %d %.17g\n", i + 1,
                         A->colind[k] + 1, A->val[k]);
            s->len += (size_t)n;
        }
    }
    st = sink_flush(s);
    if (st)
        return st;
    return s->gz ? spx_io_gzw_finish(s->gz) : SPX_OK;
}

/* 1 when path ends in ".gz". */
static int ends_with_gz(const char *path)
{
    size_t n = strlen(path);
    return n >= 3 && strcmp(path + n - 3, ".gz") == 0;
}

/* Tells the caller (when it asked) the temporary file's name, or NULL once it is gone. */
static void notify_temp(const spx_write_opts *opts, const char *tmp_path)
{
    if (opts && opts->on_temp)
        opts->on_temp(tmp_path, opts->user);
}

/* Writes A as "coordinate real general" via <path>.tmp.XXXXXX renamed to path, reporting the
 * temporary name to opts->on_temp (when set) from its creation until its rename or removal. */
spx_status spx_mtx_write_opts(spx_ctx *ctx, const char *path, const spx_csr *A,
                              const spx_write_opts *opts)
{
    if (!ctx)
        return SPX_ERR_ARG;
    if (!path || !A)
        return spx_fail(ctx, SPX_ERR_ARG, "spx_mtx_write: %s is NULL", path ? "A" : "path");
    spx_status st = SPX_OK;
    char *tmp = NULL;
    int fd = -1, made = 0, told = 0; /* made: tmp exists; told: opts->on_temp knows it */
    mtx_sink s = {.ctx = ctx, .path = path};
    int gz = ends_with_gz(path);

    st = spx_csr_check(ctx, A);
    if (st)
        goto done;
    if (gz && !spx_io_gz_available()) {
        st = spx_fail(ctx, SPX_ERR_UNSUPPORTED,
                      "%s: gzip output requested, but this build has no zlib", path);
        goto done;
    }
    size_t plen = strlen(path);
    tmp = spx_malloc(ctx, plen + sizeof ".tmp.XXXXXX");
    s.buf = spx_malloc(ctx, WRITE_BLOCK_BYTES);
    if (!tmp || !s.buf) {
        st = spx_fail_nomem(ctx, "writer buffers");
        goto done;
    }
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp.XXXXXX", sizeof ".tmp.XXXXXX");
    fd = mkstemp(tmp);
    if (fd < 0) {
        st = spx_fail(ctx, SPX_ERR_IO, "%s: cannot create a temporary file beside it: %s", path,
                      strerror(errno));
        goto done;
    }
    made = 1;
    notify_temp(opts, tmp);
    told = 1;
    if (fchmod(fd, WRITE_FILE_MODE) != 0 || !(s.f = fdopen(fd, "wb"))) {
        st = spx_fail(ctx, SPX_ERR_IO, "%s: cannot open the temporary file: %s", path,
                      strerror(errno));
        goto done;
    }
    fd = -1; /* now owned by s.f */
    if (gz) {
        st = spx_io_gzw_open(ctx, s.f, path, &s.gz);
        if (st)
            goto done;
    }
    st = write_matrix(&s, A);
    if (st)
        goto done;
    FILE *f = s.f;
    s.f = NULL;
    if (fclose(f) != 0) {
        st = spx_fail(ctx, SPX_ERR_IO, "%s: write failed: %s", path, strerror(errno));
        goto done;
    }
    if (rename(tmp, path) != 0) {
        st = spx_fail(ctx, SPX_ERR_IO, "%s: cannot rename the temporary file into place: %s",
                      path, strerror(errno));
        goto done;
    }
    made = 0;
done:
    spx_io_gzw_free(&s.gz);
    if (s.f)
        fclose(s.f);
    if (fd >= 0)
        close(fd);
    if (made)
        remove(tmp);
    if (told)
        notify_temp(opts, NULL);
    spx_free(ctx, s.buf);
    spx_free(ctx, tmp);
    return st;
}

/* The plain call: spx_mtx_write_opts without options. */
spx_status spx_mtx_write(spx_ctx *ctx, const char *path, const spx_csr *A)
{
    return spx_mtx_write_opts(ctx, path, A, NULL);
}
