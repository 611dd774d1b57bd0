/* src/cuda/cub_scratch.cuh: CUB's device-wide exclusive sum and radix sort on the context's
 * stream with one scratch buffer a build grows as it goes (sized by CUB's own query, never
 * shrunk, freed by the caller): the builds that run several scans and sorts (hbp, ehyb). */
#ifndef SPX_CUDA_CUB_SCRATCH_CUH
#define SPX_CUDA_CUB_SCRATCH_CUH

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "cuda/runtime.cuh"

/* Grows the scratch *temp (*temp_bytes its size) to at least bytes (at least 16: a NULL
 * scratch would make CUB only size its work). */
static inline spx_status spx_cuda_grow_scratch(spx_ctx *ctx, void **temp, size_t *temp_bytes, size_t bytes)
{
    if (bytes < 16) bytes = 16;
    if (bytes <= *temp_bytes) return SPX_OK;
    spx_cuda_free(ctx, *temp);
    *temp = NULL;
    *temp_bytes = 0;
    spx_status s = spx_cuda_malloc(ctx, temp, bytes);
    if (!s) *temp_bytes = bytes;
    return s;
}

/* out[0..n) = the exclusive prefix sums of in[0..n) (out may be in). */
template <typename T>
static spx_status spx_cuda_exclusive_sum(spx_ctx *ctx, const T *in, T *out, int64_t n, void **temp,
                                         size_t *temp_bytes)
{
    size_t bytes = 0;
    SPX_CUDA_RET(ctx, cub::DeviceScan::ExclusiveSum(NULL, bytes, in, out, n, spx_cuda_stream(ctx)));
    spx_status s = spx_cuda_grow_scratch(ctx, temp, temp_bytes, bytes);
    if (s) return s;
    bytes = *temp_bytes;
    SPX_CUDA_RET(ctx, cub::DeviceScan::ExclusiveSum(*temp, bytes, in, out, n, spx_cuda_stream(ctx)));
    return SPX_OK;
}

/* (skeys, svals) = the n pairs (keys, vals) stably sorted by the keys' low end_bit bits. */
template <typename K, typename V>
static spx_status spx_cuda_sort_pairs(spx_ctx *ctx, const K *keys, K *skeys, const V *vals, V *svals, int64_t n,
                                      int end_bit, void **temp, size_t *temp_bytes)
{
    size_t bytes = 0;
    const cudaStream_t st = spx_cuda_stream(ctx);
    SPX_CUDA_RET(ctx, cub::DeviceRadixSort::SortPairs(NULL, bytes, keys, skeys, vals, svals, n, 0, end_bit, st));
    spx_status s = spx_cuda_grow_scratch(ctx, temp, temp_bytes, bytes);
    if (s) return s;
    bytes = *temp_bytes;
    SPX_CUDA_RET(ctx, cub::DeviceRadixSort::SortPairs(*temp, bytes, keys, skeys, vals, svals, n, 0, end_bit, st));
    return SPX_OK;
}

/* skeys = the n keys sorted by their low end_bit bits. */
template <typename K>
static spx_status spx_cuda_sort_keys(spx_ctx *ctx, const K *keys, K *skeys, int64_t n, int end_bit, void **temp,
                                     size_t *temp_bytes)
{
    size_t bytes = 0;
    const cudaStream_t st = spx_cuda_stream(ctx);
    SPX_CUDA_RET(ctx, cub::DeviceRadixSort::SortKeys(NULL, bytes, keys, skeys, n, 0, end_bit, st));
    spx_status s = spx_cuda_grow_scratch(ctx, temp, temp_bytes, bytes);
    if (s) return s;
    bytes = *temp_bytes;
    SPX_CUDA_RET(ctx, cub::DeviceRadixSort::SortKeys(*temp, bytes, keys, skeys, n, 0, end_bit, st));
    return SPX_OK;
}

#endif
