/* src/cuda/convert_kernels.cuh: the element-wise casts the device CSRs need when their arrays
 * change type (int64 row pointers to int32, fp64 values to fp32 and back), as a grid-stride
 * kernel and its launch on the context's stream. */
#ifndef SPX_CUDA_CONVERT_KERNELS_CUH
#define SPX_CUDA_CONVERT_KERNELS_CUH

#include <stdint.h>

#include "cuda/runtime.cuh"

#define SPX_CONVERT_BLOCK 256
#define SPX_CONVERT_BLOCKS_PER_SM 8 /* grid-stride: enough resident warps to saturate HBM */

/* out[i] = (Out) in[i] for i < n: row pointers narrowed (the caller knows they fit: nnz <=
 * INT32_MAX), values rounded to nearest as the host rounds. */
template <typename In, typename Out>
static __global__ void __launch_bounds__(SPX_CONVERT_BLOCK)
    spx_cast_kernel(int64_t n, const In *__restrict__ in, Out *__restrict__ out)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        out[i] = (Out)in[i];
}

/* Queues out[0..n) = (Out) in[0..n) on the context's stream (nothing for n = 0). */
template <typename In, typename Out>
static spx_status spx_cuda_cast(spx_ctx *ctx, const In *in, Out *out, int64_t n)
{
    if (n <= 0) return SPX_OK;
    const unsigned grid = spx_cuda_grid_stride_blocks(ctx, n, SPX_CONVERT_BLOCK, SPX_CONVERT_BLOCKS_PER_SM);
    spx_cast_kernel<In, Out><<<grid, SPX_CONVERT_BLOCK, 0, spx_cuda_stream(ctx)>>>(n, in, out);
    SPX_CUDA_LAUNCHED(ctx, "spx_cast_kernel");
    return SPX_OK;
}

#endif
