/* src/spmv/spmm.c: SpMM over a plan's layout, Y = a*A*X + b*Y for dense blocks X (n x k) and
 * Y (m x k): the checks, the format's SpMM kernel for the plan's backend when it has one, else
 * the fallback of k SpMVs, one a column (row-major columns gathered into work vectors), which
 * spx_plan_spmm_info reports as such; never a silent substitute. */
#include <stdio.h>
#include <string.h>

#include "cuda/gateway.h"
#include "spmv/plan_internal.h"
#include "vec/vec_internal.h"

/* Gathers and scatters of a row-major column on the host run on one thread below this many
 * entries (an OpenMP fork/join costs a few microseconds: src/vec/pass.c's SPX_VEC_OMP_MIN). */
#define SPX_SPMM_GATHER_OMP_MIN ((int64_t)1 << 15)

/* Whether p's format has an SpMM kernel on p's backend. */
static int has_kernel(const spx_plan *p)
{
    return p->backend == SPX_BACKEND_CUDA ? p->cuda->ops.spmm != NULL : p->fmt->cpu.spmm != NULL;
}

/* Bytes d's entries span: (lines - 1) * ld + a line. */
static size_t span_bytes(const spx_dense *d)
{
    const int row = spx_dense_get_layout(d) == SPX_DENSE_ROW_MAJOR;
    const int64_t lines = row ? spx_dense_rows(d) : spx_dense_cols(d), len = row ? spx_dense_cols(d) : spx_dense_rows(d);
    if (lines == 0 || len == 0) return 0;
    return (size_t)((lines - 1) * spx_dense_ld(d) + len) * spx_precision_bytes(spx_dense_precision(d));
}

/* Whether the memory of X and Y overlaps. */
static int overlap(const spx_dense *X, const spx_dense *Y)
{
    const char *x = spx_dense_data((spx_dense *)X), *y = spx_dense_data((spx_dense *)Y);
    const size_t nx = span_bytes(X), ny = span_bytes(Y);
    return nx && ny && x < y + ny && y < x + nx;
}

/* SPX_OK when X and Y can be p's SpMM operands, else SPX_ERR_ARG with the reason. */
static spx_status check_blocks(spx_plan *p, const spx_dense *X, const spx_dense *Y)
{
    spx_ctx *ctx = p->ctx;
    if (spx_dense_ctx(X) != ctx || spx_dense_ctx(Y) != ctx)
        return spx_fail(ctx, SPX_ERR_ARG, "spx_plan_spmm: X and Y must belong to the plan's context");
    const spx_backend bx = spx_dense_backend(X), by = spx_dense_backend(Y);
    if (bx != p->backend || by != p->backend)
        return spx_fail(ctx, SPX_ERR_ARG, "spx_plan_spmm: the plan runs on %s; X is a %s block, Y a %s block",
                        spx_backend_str(p->backend), spx_backend_str(bx), spx_backend_str(by));
    const spx_precision px = spx_dense_precision(X), py = spx_dense_precision(Y);
    if (px != p->precision || py != p->precision)
        return spx_fail(ctx, SPX_ERR_ARG, "spx_plan_spmm: the plan is %s; X is %s, Y %s", spx_precision_str(p->precision),
                        spx_precision_str(px), spx_precision_str(py));
    if (spx_dense_rows(X) != p->n || spx_dense_rows(Y) != p->m)
        return spx_fail(ctx, SPX_ERR_ARG, "spx_plan_spmm: a %d x %d plan needs X of %d rows and Y of %d, got %lld and %lld",
                        p->m, p->n, p->n, p->m, (long long)spx_dense_rows(X), (long long)spx_dense_rows(Y));
    const int64_t k = spx_dense_cols(X);
    if (spx_dense_cols(Y) != k)
        return spx_fail(ctx, SPX_ERR_ARG, "spx_plan_spmm: X has %lld columns, Y %lld", (long long)k,
                        (long long)spx_dense_cols(Y));
    if (k == 0) return spx_fail(ctx, SPX_ERR_ARG, "spx_plan_spmm: k = 0 (X and Y have no column)");
    if (spx_dense_get_layout(X) != spx_dense_get_layout(Y))
        return spx_fail(ctx, SPX_ERR_ARG, "spx_plan_spmm: X is %s-major, Y %s-major: one layout for both",
                        spx_dense_layout_str(spx_dense_get_layout(X)), spx_dense_layout_str(spx_dense_get_layout(Y)));
    if (X == Y || overlap(X, Y)) return spx_fail(ctx, SPX_ERR_ARG, "spx_plan_spmm: X and Y must not overlap");
    return SPX_OK;
}

/* ---- the fallback: k SpMVs, one a column ---- */

/* Column j of a block in args' layout as the start of a strided run: *at its first entry's
 * index, *stride the distance between its entries. */
static void column_of(const spx_spmm_args *a, int64_t ld, int64_t j, int64_t *at, int64_t *stride)
{
    const int row = a->layout == SPX_DENSE_ROW_MAJOR;
    *at = row ? j : j * ld;
    *stride = row ? ld : 1;
}

/* n entries of eb bytes from src (stride ss entries) to dst (stride ds), on up to nt threads. */
static void copy_strided(void *dst, int64_t ds, const void *src, int64_t ss, int64_t n, size_t eb, int nt)
{
#pragma omp parallel for num_threads(nt) if (n >= SPX_SPMM_GATHER_OMP_MIN)
    for (int64_t i = 0; i < n; i++) memcpy((char *)dst + (size_t)(i * ds) * eb, (const char *)src + (size_t)(i * ss) * eb, eb);
}

/* Entry idx of the array at base (eb bytes an entry), or NULL for an empty block's NULL data. */
static void *entry_at(const void *base, int64_t idx, size_t eb)
{
    return base ? (char *)base + (size_t)idx * eb : NULL;
}

/* Column j of the call as one SpMV: x and y point into the blocks (column-major) or at the
 * work vectors wx, wy holding the gathered columns (row-major). */
static spx_spmv_args column_args(const spx_spmm_args *a, int64_t j, void *wx, void *wy, size_t eb)
{
    spx_spmv_args s = {a->precision, a->alpha, a->beta, wx, wy};
    if (a->layout == SPX_DENSE_COL_MAJOR) {
        s.x = entry_at(a->x, j * a->ldx, eb);
        s.y = entry_at(a->y, j * a->ldy, eb);
    }
    return s;
}

/* The CPU fallback: column j's SpMV straight on a column-major block, or through host work
 * vectors (Y's column gathered only when b != 0, scattered back after). */
static spx_status fallback_cpu(spx_plan *p, const spx_spmm_args *a)
{
    const size_t eb = spx_precision_bytes(a->precision);
    const int row = a->layout == SPX_DENSE_ROW_MAJOR, nt = spx_ctx_threads(p->ctx);
    void *wx = NULL, *wy = NULL;
    spx_status s = SPX_OK;
    if (row && (!(wx = spx_malloc_array(p->ctx, (size_t)p->n + 1, eb)) || !(wy = spx_malloc_array(p->ctx, (size_t)p->m + 1, eb)))) {
        s = spx_fail_nomem(p->ctx, "spmm: work vectors of the row-major fallback");
        goto done;
    }
    for (int64_t j = 0; j < a->k && !s; j++) {
        int64_t xat, xs, yat, ys;
        column_of(a, a->ldx, j, &xat, &xs);
        column_of(a, a->ldy, j, &yat, &ys);
        if (row) copy_strided(wx, 1, entry_at(a->x, xat, eb), xs, p->n, eb, nt);
        if (row && a->beta != 0.0) copy_strided(wy, 1, entry_at(a->y, yat, eb), ys, p->m, eb, nt);
        const spx_spmv_args c = column_args(a, j, wx, wy, eb);
        s = p->fmt->cpu.spmv(p->ctx, p->impl, &c);
        if (!s && row) copy_strided(entry_at(a->y, yat, eb), ys, wy, 1, p->m, eb, nt);
    }
done:
    spx_free(p->ctx, wx);
    spx_free(p->ctx, wy);
    return s;
}

/* A strided column (count entries, stride apart) to or from a device work vector, queued. */
static spx_status device_column(spx_ctx *ctx, void *dst, int64_t ds, const void *src, int64_t ss, int64_t count,
                                size_t eb)
{
    return spx_cuda_d2d_2d_async(ctx, dst, (size_t)ds * eb, src, (size_t)ss * eb, eb, (size_t)count);
}

/* The CUDA fallback, queued on the context's stream: column j's SpMV straight on a
 * column-major device block, or through the plan's device work vectors (a row-major column
 * gathered by a strided 2D copy; Y's only when b != 0; scattered back after). */
static spx_status fallback_cuda(spx_plan *p, const spx_spmm_args *a)
{
    const size_t eb = spx_precision_bytes(a->precision);
    const int row = a->layout == SPX_DENSE_ROW_MAJOR;
    spx_status s = row ? spx_plan_staging(p) : SPX_OK;
    for (int64_t j = 0; j < a->k && !s; j++) {
        int64_t xat, xs, yat, ys;
        column_of(a, a->ldx, j, &xat, &xs);
        column_of(a, a->ldy, j, &yat, &ys);
        if (row) s = device_column(p->ctx, p->dx, 1, entry_at(a->x, xat, eb), xs, p->n, eb);
        if (!s && row && a->beta != 0.0) s = device_column(p->ctx, p->dy, 1, entry_at(a->y, yat, eb), ys, p->m, eb);
        const spx_spmv_args c = column_args(a, j, p->dx, p->dy, eb);
        if (!s) s = p->cuda->ops.spmv(p->ctx, p->dev, &c);
        if (!s && row) s = device_column(p->ctx, entry_at(a->y, yat, eb), ys, p->dy, 1, p->m, eb);
    }
    return s;
}

/* ---- the entry points ---- */

/* Runs the checked call on p's backend: the format's kernel, else the fallback. */
static spx_status run(spx_plan *p, const spx_spmm_args *a)
{
    if (p->m == 0) return SPX_OK;
    if (p->backend != SPX_BACKEND_CUDA) return p->fmt->cpu.spmm ? p->fmt->cpu.spmm(p->ctx, p->impl, a) : fallback_cpu(p, a);
    spx_status s = spx_plan_enter(p);
    if (s) return s;
    s = p->cuda->ops.spmm ? p->cuda->ops.spmm(p->ctx, p->dev, a) : fallback_cuda(p, a);
    spx_plan_leave(p);
    return s;
}

spx_status spx_plan_spmm(spx_plan *p, double a, const spx_dense *X, double b, spx_dense *Y)
{
    if (!p) return SPX_ERR_ARG;
    if (!X || !Y) return spx_fail(p->ctx, SPX_ERR_ARG, "spx_plan_spmm: NULL argument");
    spx_status s = check_blocks(p, X, Y);
    if (s) return s;
    const spx_spmm_args args = {p->precision,
                                a,
                                b,
                                spx_dense_cols(X),
                                spx_dense_get_layout(X),
                                spx_dense_data((spx_dense *)X),
                                spx_dense_ld(X),
                                spx_dense_data(Y),
                                spx_dense_ld(Y)};
    return run(p, &args);
}

spx_status spx_plan_spmm_info(const spx_plan *p, int64_t k, spx_dense_layout layout, spx_spmm_info *out)
{
    if (!p) return SPX_ERR_ARG;
    if (!out) return spx_fail(p->ctx, SPX_ERR_ARG, "spx_plan_spmm_info: NULL argument");
    if (k < 1) return spx_fail(p->ctx, SPX_ERR_ARG, "spx_plan_spmm_info: k = %lld (at least 1)", (long long)k);
    if (layout != SPX_DENSE_COL_MAJOR && layout != SPX_DENSE_ROW_MAJOR)
        return spx_fail(p->ctx, SPX_ERR_ARG, "spx_plan_spmm_info: unknown layout %d", (int)layout);
    spx_plan_info info;
    spx_status s = spx_plan_get_info(p, &info);
    if (s) return s;
    memset(out, 0, sizeof *out);
    out->fallback = !has_kernel(p);
    const double vectors = (double)(p->n + p->m) * (double)spx_precision_bytes(p->precision);
    if (out->fallback) {
        char suffix[32];
        snprintf(suffix, sizeof suffix, "_spmv_x%lld", (long long)k);
        snprintf(out->kernel, sizeof out->kernel, "%.*s%s", (int)(sizeof out->kernel - 1 - strlen(suffix)), info.kernel,
                 suffix);
        out->bytes = (double)k * info.bytes_per_spmv;
        return SPX_OK;
    }
    if (p->backend == SPX_BACKEND_CUDA && p->cuda->ops.spmm_kernel)
        p->cuda->ops.spmm_kernel(p->dev, k, layout, out->kernel, sizeof out->kernel);
    else
        snprintf(out->kernel, sizeof out->kernel, "%s",
                 p->backend != SPX_BACKEND_CUDA && p->fmt->cpu.spmm_kernel ? p->fmt->cpu.spmm_kernel(p->impl, layout)
                                                                           : "?");
    out->bytes = info.bytes_per_spmv + (double)(k - 1) * vectors;
    return SPX_OK;
}
