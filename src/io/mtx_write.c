/* src/io/mtx_write.c: the Matrix Market writer, through a temporary file renamed at the end;
 * spx_io_write_file, the part every writer shares. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fchmod, fdopen */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/ctx.h"
#include "io/gz.h"
#include "io/write.h"

/* Text is gathered into blocks of this size before each write (or compression) call. */
#define WRITE_BLOCK_BYTES ((size_t)1 << 20)
/* The written file's permissions (mkstemp makes 0600, too private for a result file). */
#define WRITE_FILE_MODE 0644
/* Entries between two "write" progress reports. */
#define WRITE_REPORT_ENTRIES ((int64_t)1 << 20)

/* Writes the buffered text out. */
static spx_status sink_flush(spx_io_sink *s)
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

spx_status spx_io_sink_reserve(spx_io_sink *s)
{
    return s->len + SPX_IO_LINE_MAX > WRITE_BLOCK_BYTES ? sink_flush(s) : SPX_OK;
}

/* Formats the banner, size line and entries of A (what) into the sink. */
static spx_status format_matrix(spx_io_sink *s, const void *what)
{
    const spx_csr *A = what;
    int n = snprintf(s->buf, SPX_IO_LINE_MAX * 2,
                     "%%%%MatrixMarket matrix coordinate real general\n%d %d %lld\n", A->m, A->n,
                     (long long)A->nnz);
    s->len = (size_t)n;
    int64_t report = WRITE_REPORT_ENTRIES;
    spx_progress_tell(s->progress, "write", 0, A->m);
    for (int32_t i = 0; i < A->m; i++) {
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            spx_status st = spx_io_sink_reserve(s);
            if (st)
                return st;
            n = snprintf(s->buf + s->len, SPX_IO_LINE_MAX, "%d %d %.17g\n", i + 1,
                         A->colind[k] + 1, A->val[k]);
            s->len += (size_t)n;
        }
        if (A->rowptr[i + 1] >= report) {
            spx_progress_tell(s->progress, "write", i + 1, A->m);
            report = A->rowptr[i + 1] + WRITE_REPORT_ENTRIES;
        }
    }
    spx_progress_tell(s->progress, "write", A->m, A->m);
    return SPX_OK;
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

/* Writes the text format(s, what) makes via <path>.tmp.XXXXXX renamed to path, reporting the
 * temporary name to opts->on_temp (when set) from its creation until its rename or removal. */
spx_status spx_io_write_file(spx_ctx *ctx, const char *path, const spx_write_opts *opts,
                             spx_io_format_fn format, const void *what)
{
    spx_status st = SPX_OK;
    char *tmp = NULL;
    int fd = -1, made = 0, told = 0; /* made: tmp exists; told: opts->on_temp knows it */
    spx_progress pr = {opts ? opts->progress : NULL, opts ? opts->progress_user : NULL};
    spx_io_sink s = {.ctx = ctx, .path = path, .progress = &pr};
    int gz = ends_with_gz(path);

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
    st = format(&s, what);
    if (!st)
        st = sink_flush(&s);
    if (!st && s.gz)
        st = spx_io_gzw_finish(s.gz);
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

/* Writes A as "coordinate real general" through spx_io_write_file. */
spx_status spx_mtx_write_opts(spx_ctx *ctx, const char *path, const spx_csr *A,
                              const spx_write_opts *opts)
{
    if (!ctx)
        return SPX_ERR_ARG;
    if (!path || !A)
        return spx_fail(ctx, SPX_ERR_ARG, "spx_mtx_write: %s is NULL", path ? "A" : "path");
    spx_status st = spx_csr_check(ctx, A);
    return st ? st : spx_io_write_file(ctx, path, opts, format_matrix, A);
}

/* The plain call: spx_mtx_write_opts without options. */
spx_status spx_mtx_write(spx_ctx *ctx, const char *path, const spx_csr *A)
{
    return spx_mtx_write_opts(ctx, path, A, NULL);
}
