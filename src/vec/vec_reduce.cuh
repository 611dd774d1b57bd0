/* src/vec/vec_reduce.cuh: what the vector operations (src/vec/vec_cuda.cu) and the solvers'
 * fused steps (src/solve/steps_cuda.cu) share on the GPU: the streaming launch shape and the
 * block-level sum of the deterministic reductions (a fixed tree, so the same inputs give the
 * same bits on every run). */
#ifndef SPX_VEC_VEC_REDUCE_CUH
#define SPX_VEC_VEC_REDUCE_CUH

#include "cuda/primitives.cuh"
#include "cuda/runtime.cuh"

#define SPX_VEC_BLOCK 256       /* threads per block: element-wise kernels and reduction pass 1 */
#define SPX_VEC_BLOCKS_PER_SM 8 /* 8 x 256 = 2048 resident threads, a full Hopper SM: the
                                   occupancy a streaming kernel needs to keep HBM busy (as
                                   SPX_SCALE_BLOCKS_PER_SM in src/cuda/runtime.cu) */

/* Blocks for a grid-stride streaming kernel over n entries on the context's device: a function
 * of n and the device alone, never of timing (the reductions' order depends on it). */
static inline unsigned spx_vec_grid(const spx_ctx *ctx, int64_t n)
{
    return spx_cuda_grid_stride_blocks(ctx, n, SPX_VEC_BLOCK, SPX_VEC_BLOCKS_PER_SM);
}

/* Sums NS values over the block in a fixed order (a shuffle tree per warp, then warp 0 over the
 * warp totals); thread 0 holds the totals. Every thread calls it; a second call in one kernel
 * needs a __syncthreads() between the two (they share the warp totals). */
template <int BLOCK, int NS>
__device__ __forceinline__ void spx_vec_block_sums(double *s)
{
    static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "BLOCK must be a multiple of 32, at most 1024");
    constexpr int WARPS = BLOCK / 32;
    __shared__ double warp_total[NS][WARPS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int k = 0; k < NS; k++) {
        const double v = spx_group_sum<32>(s[k]);
        if (lane == 0) warp_total[k][warp] = v;
    }
    __syncthreads();
    if (warp != 0) return;
#pragma unroll
    for (int k = 0; k < NS; k++) s[k] = spx_group_sum<32>(lane < WARPS ? warp_total[k][lane] : 0.0);
}

#endif
