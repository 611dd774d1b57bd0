/* src/vec/vec_stub.c: the vector module's GPU entry points (vec_cuda.h) for builds without
 * CUDA: each reports SPX_ERR_NOT_COMPILED (no CUDA vector can exist in such a build, since
 * spx_ctx_resolve_backend refuses the CUDA backend, so these only keep the link whole). */
#include "vec/vec_cuda.h"

/* The error every entry point returns. */
static spx_status not_compiled(spx_ctx *ctx)
{
    return spx_fail(ctx, SPX_ERR_NOT_COMPILED, "the CUDA backend is not compiled into this build");
}

spx_status spx_vec_cuda_fill(spx_ctx *ctx, spx_precision p, int64_t n, void *x, double value)
{
    return not_compiled(ctx);
}

spx_status spx_vec_cuda_axpby(spx_ctx *ctx, spx_precision p, int64_t n, double a, const void *x,
                              double b, void *y)
{
    return not_compiled(ctx);
}

spx_status spx_vec_cuda_mul(spx_ctx *ctx, spx_precision p, int64_t n, const void *x, const void *y, void *z)
{
    return not_compiled(ctx);
}

spx_status spx_vec_cuda_gather(spx_ctx *ctx, int64_t n, const int32_t *idx, const double *x, double *out)
{
    return not_compiled(ctx);
}

spx_status spx_vec_cuda_scatter_add(spx_ctx *ctx, int64_t n, const int32_t *idx, const double *z, double *y)
{
    return not_compiled(ctx);
}

spx_status spx_vec_cuda_dot(spx_ctx *ctx, spx_precision p, int64_t n, const void *x, const void *y,
                            double *scratch, double out[SPX_N_SUMS])
{
    return not_compiled(ctx);
}

spx_status spx_vec_cuda_sumsq(spx_ctx *ctx, spx_precision p, int64_t n, const void *x,
                              double *scratch, double out[SPX_N_SUMS])
{
    return not_compiled(ctx);
}
