/* src/spmv/format_cuda.cuh: what the formats' GPU halves share about one SpMV call: the
 * argument checks every spmv slot runs first. */
#ifndef SPX_SPMV_FORMAT_CUDA_CUH
#define SPX_SPMV_FORMAT_CUDA_CUH

#include "cuda/runtime.cuh"
#include "spmv/format.h"

/* What a format's spmv checks first (fmt names it in messages): arguments present, the call in
 * the plan's precision, vectors present. *done = 1 when nothing is left to launch: m = 0, or
 * no entries (y = b*y has been queued). */
static inline spx_status spx_cuda_spmv_begin(spx_ctx *ctx, const char *fmt, spx_precision prec, int64_t m,
                                             int64_t nnz, const spx_spmv_args *args, int *done)
{
    *done = 1;
    if (!ctx || !args) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "%s spmv: NULL argument", fmt) : SPX_ERR_ARG;
    const char *want = prec == SPX_FP32 ? "fp32" : "fp64", *got = args->precision == SPX_FP32 ? "fp32" : "fp64";
    if (args->precision != prec) return spx_fail(ctx, SPX_ERR_ARG, "%s spmv: the plan is %s, the call %s", fmt, want, got);
    if (m == 0) return SPX_OK;
    if (!args->y || (nnz > 0 && !args->x)) return spx_fail(ctx, SPX_ERR_ARG, "%s spmv: NULL vector", fmt);
    if (nnz == 0) return spx_cuda_scale_y(ctx, prec, m, args->beta, args->y);
    *done = 0;
    return SPX_OK;
}

#endif
