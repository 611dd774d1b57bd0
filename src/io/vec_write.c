/* src/io/vec_write.c: spx_vec_write_mtx: a dense vector as a Matrix Market array file, through
 * the writers' temporary-file-then-rename path. */
#include <stdio.h>

#include "core/ctx.h"
#include "io/write.h"

/* Values between two "write" progress reports. */
#define VEC_REPORT_ENTRIES ((int64_t)1 << 20)

/* A vector to format. */
typedef struct vec_text {
    int64_t n;
    const double *x;
} vec_text;

/* Formats the banner, size line ("n 1") and one %.17g value a line into the sink. */
static spx_status format_vector(spx_io_sink *s, const void *what)
{
    const vec_text *v = what;
    s->len = (size_t)snprintf(s->buf, SPX_IO_LINE_MAX * 2, "%%%%MatrixMarket matrix array real general\n%lld 1\n",
                              (long long)v->n);
    spx_progress_tell(s->progress, "write", 0, (double)v->n);
    for (int64_t i = 0; i < v->n; i++) {
        spx_status st = spx_io_sink_reserve(s);
        if (st)
            return st;
        s->len += (size_t)snprintf(s->buf + s->len, SPX_IO_LINE_MAX, "%.17g\n", v->x[i]);
        if ((i + 1) % VEC_REPORT_ENTRIES == 0)
            spx_progress_tell(s->progress, "write", (double)(i + 1), (double)v->n);
    }
    spx_progress_tell(s->progress, "write", (double)v->n, (double)v->n);
    return SPX_OK;
}

spx_status spx_vec_write_mtx_opts(spx_ctx *ctx, const char *path, int64_t n, const double *data,
                                  const spx_write_opts *opts)
{
    if (!ctx)
        return SPX_ERR_ARG;
    if (!path || (!data && n > 0) || n < 0)
        return spx_fail(ctx, SPX_ERR_ARG, "spx_vec_write_mtx: %s", !path ? "path is NULL"
                                                                   : n < 0 ? "negative length"
                                                                           : "data is NULL");
    if (n > INT32_MAX)
        return spx_fail(ctx, SPX_ERR_OVERFLOW, "%s: a vector of %lld entries exceeds the readers' int32 limit %d",
                        path, (long long)n, INT32_MAX);
    vec_text v = {n, data};
    return spx_io_write_file(ctx, path, opts, format_vector, &v);
}

spx_status spx_vec_write_mtx(spx_ctx *ctx, const char *path, int64_t n, const double *data)
{
    return spx_vec_write_mtx_opts(ctx, path, n, data, NULL);
}
