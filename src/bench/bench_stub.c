/* src/bench/bench_stub.c: the benchmark's GPU piece (bench_cuda.h) for builds without CUDA:
 * SPX_ERR_NOT_COMPILED. */
#include "bench/bench_cuda.h"

spx_status spx_bench_cuda_empty(spx_ctx *ctx)
{
    return ctx ? spx_fail(ctx, SPX_ERR_NOT_COMPILED, "the CUDA backend is not compiled into this build")
               : SPX_ERR_NOT_COMPILED;
}
