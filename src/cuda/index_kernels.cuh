/* src/cuda/index_kernels.cuh: grid-stride kernels over index arrays that the device builds
 * share (hbp's hot order, ehyb's partition and layout): iota, a histogram of keys, and the
 * inverse of a permutation. */
#ifndef SPX_CUDA_INDEX_KERNELS_CUH
#define SPX_CUDA_INDEX_KERNELS_CUH

#include <stdint.h>

/* out[i] = i for i < n. */
static __global__ void spx_iota_kernel(int32_t n, int32_t *__restrict__ out)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        out[i] = (int32_t)i;
}

/* cnt[key[i]]++ for i < n (cnt zeroed by the caller). */
static __global__ void spx_histogram_kernel(int32_t n, const int32_t *__restrict__ key, int32_t *__restrict__ cnt)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        atomicAdd(cnt + key[i], 1);
}

/* inv[perm[i]] = i for i < n. */
static __global__ void spx_invert_kernel(int32_t n, const int32_t *__restrict__ perm, int32_t *__restrict__ inv)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        inv[perm[i]] = (int32_t)i;
}

#endif
