/* src/formats/hbp/hbp_search.cuh: device helpers the hbp kernels share (the device build,
 * the SpMV kernels, the work units): the last place of a key in a non-decreasing offset array,
 * and a tile's entry count. */
#ifndef SPX_FORMATS_HBP_SEARCH_CUH
#define SPX_FORMATS_HBP_SEARCH_CUH

#include <stdint.h>

/* The last i in [lo, hi] with a[i] <= key (a non-decreasing, a[lo] <= key): the panel of a
 * tile in panel_tile, the tile of a group in tile_group. */
template <typename I>
__device__ __forceinline__ I hbp_last_le(const int64_t *__restrict__ a, I lo, I hi, int64_t key)
{
    while (lo < hi) {
        const I mid = lo + ((hi - lo + 1) >> 1);
        if (__ldg(a + mid) <= key)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Entries of tile t. */
__device__ __forceinline__ int64_t hbp_tile_nnz(const int64_t *__restrict__ tile_group,
                                                const int64_t *__restrict__ group_nnz, int64_t t)
{
    return __ldg(group_nnz + __ldg(tile_group + t + 1)) - __ldg(group_nnz + __ldg(tile_group + t));
}

#endif
