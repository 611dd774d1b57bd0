/* src/spmv/apply.c: a plan's SpMV on vector objects (spx_plan_apply, include/spx/vector.h): the
 * vectors checked against each other and the plan, then the plan's entry point for their
 * backend and precision. It sits with the plan, above the operands (src/vec), as SpMM on dense
 * blocks does (spmm.c). */
#include "spmv/plan_internal.h"
#include "vec/vec_internal.h"

/* SPX_OK when x and y can be one call's operands (one context, precision and backend, two
 * vectors), else SPX_ERR_ARG with the message in y's context. */
static spx_status check_vectors(const spx_vec *x, const spx_vec *y)
{
    spx_ctx *ctx = spx_vec_ctx(y);
    const spx_precision px = spx_vec_precision(x), py = spx_vec_precision(y);
    const spx_backend bx = spx_vec_backend(x), by = spx_vec_backend(y);
    if (spx_vec_ctx(x) != ctx) return spx_fail(ctx, SPX_ERR_ARG, "spx_plan_apply: the vectors belong to different contexts");
    if (px != py)
        return spx_fail(ctx, SPX_ERR_ARG, "spx_plan_apply: precision mismatch: %s and %s vectors", spx_precision_str(px),
                        spx_precision_str(py));
    if (bx != by)
        return spx_fail(ctx, SPX_ERR_ARG, "spx_plan_apply: backend mismatch: a %s and a %s vector", spx_backend_str(bx),
                        spx_backend_str(by));
    if (x == y) return spx_fail(ctx, SPX_ERR_ARG, "spx_plan_apply: x and y must be different vectors");
    return SPX_OK;
}

/* SPX_OK when the vectors are p's: its backend, precision, column and row counts. */
static spx_status check_plan(const spx_plan *p, const spx_vec *x, const spx_vec *y)
{
    spx_ctx *ctx = spx_vec_ctx(y);
    if (p->backend != spx_vec_backend(y))
        return spx_fail(ctx, SPX_ERR_ARG, "spx_plan_apply: the plan runs on %s, the vectors are %s vectors",
                        spx_backend_str(p->backend), spx_backend_str(spx_vec_backend(y)));
    if (p->precision != spx_vec_precision(y))
        return spx_fail(ctx, SPX_ERR_ARG, "spx_plan_apply: the plan is %s, the vectors are %s",
                        spx_precision_str(p->precision), spx_precision_str(spx_vec_precision(y)));
    if (spx_vec_length(x) != p->n || spx_vec_length(y) != p->m)
        return spx_fail(ctx, SPX_ERR_ARG,
                        "spx_plan_apply: a %d x %d plan needs x of %d and y of %d entries, got %lld and %lld", p->m,
                        p->n, p->n, p->m, (long long)spx_vec_length(x), (long long)spx_vec_length(y));
    return SPX_OK;
}

spx_status spx_plan_apply(spx_plan *p, double a, const spx_vec *x, double b, spx_vec *y)
{
    if (!p || !x || !y) {
        spx_ctx *ctx = x ? spx_vec_ctx(x) : spx_vec_ctx(y);
        return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_plan_apply: NULL argument") : SPX_ERR_ARG;
    }
    spx_status s = check_vectors(x, y);
    if (s || (s = check_plan(p, x, y))) return s;
    const void *xd = spx_vec_data((spx_vec *)x);
    void *yd = spx_vec_data(y);
    if (p->backend == SPX_BACKEND_CUDA) return spx_plan_spmv_device(p, a, xd, b, yd);
    if (p->precision == SPX_FP32) return spx_plan_spmv_f32(p, (float)a, xd, (float)b, yd);
    return spx_plan_spmv(p, a, xd, b, yd);
}
