/* src/bench/bench_cuda.cu: the benchmark's own GPU piece: an empty kernel, called as a CUDA
 * plan's one-kernel SpMV is called, whose per-call time under the measuring protocol is the
 * floor under every GPU call time (launch and event overheads, no work). */
#include "bench/bench_cuda.h"
#include "cuda/runtime.cuh"

namespace {

/* Does nothing. */
__global__ void bench_empty_kernel() {}

} /* namespace */

extern "C" spx_status spx_bench_cuda_empty(spx_ctx *ctx)
{
    spx_status s = spx_cuda_init(ctx); /* as spx_plan_spmv_device binds the calling thread */
    if (s) return s;
    bench_empty_kernel<<<1, 32, 0, spx_cuda_stream(ctx)>>>();
    SPX_CUDA_LAUNCHED(ctx, "bench_empty_kernel");
    return SPX_OK;
}
