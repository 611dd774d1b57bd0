/* src/vec/dense.c: the dense block (include/spx/dense.h): rows x cols with a leading dimension
 * and a layout, over the storage every dense operand shares (block.h: a column-major block's
 * lines are its columns, a row-major block's its rows). */
#include <stdio.h>
#include <string.h>

#include "spx/dense.h"
#include "vec/block.h"
#include "vec/vec_internal.h"

struct spx_dense {
    spx_block s;
    int64_t rows, cols;
    spx_dense_layout layout;
};

/* SPX_ERR_ARG, with "<fn>: NULL argument" in ctx when there is one. */
static spx_status null_arg(spx_ctx *ctx, const char *fn)
{
    return ctx ? spx_fail(ctx, SPX_ERR_ARG, "%s: NULL argument", fn) : SPX_ERR_ARG;
}

/* Lines and entries a line of a rows x cols block in layout. */
static void lines_of(int64_t rows, int64_t cols, spx_dense_layout layout, int64_t *lines, int64_t *len)
{
    *lines = layout == SPX_DENSE_ROW_MAJOR ? rows : cols;
    *len = layout == SPX_DENSE_ROW_MAJOR ? cols : rows;
}

/* SPX_OK when the arguments describe a block (ld: its leading dimension), else SPX_ERR_ARG or
 * SPX_ERR_OVERFLOW naming fn. */
static spx_status check_shape(spx_ctx *ctx, const char *fn, spx_backend b, spx_precision p, int64_t rows, int64_t cols,
                              spx_dense_layout layout, int64_t ld)
{
    if (layout != SPX_DENSE_COL_MAJOR && layout != SPX_DENSE_ROW_MAJOR)
        return spx_fail(ctx, SPX_ERR_ARG, "%s: unknown layout %d", fn, (int)layout);
    if (rows < 0 || cols < 0)
        return spx_fail(ctx, SPX_ERR_ARG, "%s: negative size %lld x %lld", fn, (long long)rows, (long long)cols);
    int64_t lines, len;
    lines_of(rows, cols, layout, &lines, &len);
    if (ld < len || ld < 1)
        return spx_fail(ctx, SPX_ERR_ARG, "%s: leading dimension %lld below the %s (%lld) of a %s-major block (and 1)",
                        fn, (long long)ld, layout == SPX_DENSE_ROW_MAJOR ? "columns" : "rows", (long long)len,
                        spx_dense_layout_str(layout));
    return spx_block_check(ctx, fn, b, p, lines, len, ld);
}

/* A new block object with no data (host memory of the context), or NULL. */
static spx_dense *new_dense(spx_ctx *ctx, spx_backend b, spx_precision p, int64_t rows, int64_t cols,
                            spx_dense_layout layout)
{
    spx_dense *d = spx_malloc(ctx, sizeof *d);
    if (!d) return NULL;
    memset(d, 0, sizeof *d);
    d->s.ctx = ctx;
    d->s.backend = b;
    d->s.precision = p;
    lines_of(rows, cols, layout, &d->s.lines, &d->s.len);
    d->s.ld = d->s.len > 0 ? d->s.len : 1;
    d->rows = rows;
    d->cols = cols;
    d->layout = layout;
    return d;
}

spx_status spx_dense_create(spx_ctx *ctx, spx_backend b, spx_precision p, int64_t rows, int64_t cols,
                            spx_dense_layout layout, spx_dense **out)
{
    if (!ctx || !out) return null_arg(ctx, "spx_dense_create");
    int64_t lines, len;
    lines_of(rows, cols, layout, &lines, &len);
    spx_status s = check_shape(ctx, "spx_dense_create", b, p, rows, cols, layout, len > 0 ? len : 1);
    if (s || (s = spx_ctx_resolve_backend(ctx, b, &b))) return s;
    spx_dense *d = new_dense(ctx, b, p, rows, cols, layout);
    if (!d) return spx_fail_nomem(ctx, "dense block");
    char what[96];
    snprintf(what, sizeof what, "dense block of %lld x %lld %s entries", (long long)rows, (long long)cols,
             spx_precision_str(p));
    if ((s = spx_block_alloc(&d->s, what))) {
        spx_dense_destroy(&d);
        return s;
    }
    *out = d;
    return SPX_OK;
}

spx_status spx_dense_wrap(spx_ctx *ctx, spx_backend b, spx_precision p, int64_t rows, int64_t cols,
                          spx_dense_layout layout, int64_t ld, void *data, spx_dense **out)
{
    if (!ctx || !out) return null_arg(ctx, "spx_dense_wrap");
    spx_status s = check_shape(ctx, "spx_dense_wrap", b, p, rows, cols, layout, ld);
    if (s) return s;
    const int empty = rows == 0 || cols == 0;
    if (!empty && !data)
        return spx_fail(ctx, SPX_ERR_ARG, "spx_dense_wrap: NULL data for %lld x %lld entries", (long long)rows,
                        (long long)cols);
    if ((uintptr_t)data % spx_precision_bytes(p))
        return spx_fail(ctx, SPX_ERR_ARG, "spx_dense_wrap: %p is not aligned to a %s entry", data, spx_precision_str(p));
    if ((s = spx_block_wrap_backend(ctx, "spx_dense_wrap", b, empty ? NULL : data, &b))) return s;
    spx_dense *d = new_dense(ctx, b, p, rows, cols, layout);
    if (!d) return spx_fail_nomem(ctx, "dense block");
    d->s.ld = ld;
    d->s.data = empty ? NULL : data;
    *out = d;
    return SPX_OK;
}

void spx_dense_destroy(spx_dense **pd)
{
    if (!pd || !*pd) return;
    spx_dense *d = *pd;
    spx_block_free(&d->s);
    spx_free(d->s.ctx, d);
    *pd = NULL;
}

/* SPX_OK when host (lines ld apart) can hold d: ld at least a line (and 1), host present. */
static spx_status check_host(const spx_dense *d, const char *fn, const void *host, int64_t ld)
{
    if (ld < d->s.len || ld < 1)
        return spx_fail(d->s.ctx, SPX_ERR_ARG, "%s: host leading dimension %lld below the %s (%lld) of a %s-major block",
                        fn, (long long)ld, d->layout == SPX_DENSE_ROW_MAJOR ? "columns" : "rows", (long long)d->s.len,
                        spx_dense_layout_str(d->layout));
    if (!host && spx_block_span(&d->s) > 0) return null_arg(d->s.ctx, fn);
    return SPX_OK;
}

spx_status spx_dense_set(spx_dense *d, const double *host, int64_t ld)
{
    if (!d) return SPX_ERR_ARG;
    spx_status s = check_host(d, "spx_dense_set", host, ld);
    return s ? s : spx_block_set(&d->s, host, ld);
}

spx_status spx_dense_get(const spx_dense *d, double *host, int64_t ld)
{
    if (!d) return SPX_ERR_ARG;
    spx_status s = check_host(d, "spx_dense_get", host, ld);
    return s ? s : spx_block_get(&d->s, host, ld);
}

void *spx_dense_data(spx_dense *d) { return d ? d->s.data : NULL; }
int64_t spx_dense_rows(const spx_dense *d) { return d ? d->rows : 0; }
int64_t spx_dense_cols(const spx_dense *d) { return d ? d->cols : 0; }
int64_t spx_dense_ld(const spx_dense *d) { return d ? d->s.ld : 0; }
spx_dense_layout spx_dense_get_layout(const spx_dense *d) { return d ? d->layout : SPX_DENSE_COL_MAJOR; }
spx_backend spx_dense_backend(const spx_dense *d) { return d ? d->s.backend : SPX_BACKEND_AUTO; }
spx_precision spx_dense_precision(const spx_dense *d) { return d ? d->s.precision : SPX_FP64; }
spx_ctx *spx_dense_ctx(const spx_dense *d) { return d ? d->s.ctx : NULL; }

const char *spx_dense_layout_str(spx_dense_layout layout)
{
    return layout == SPX_DENSE_ROW_MAJOR ? "row" : layout == SPX_DENSE_COL_MAJOR ? "col" : "?";
}
