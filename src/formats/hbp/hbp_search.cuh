/* src/formats/hbp/hbp_search.cuh: device helpers the hbp kernels share (the device build,
 * the SpMV kernels, the work units): the last place of a key in a non-decreasing offset array,
 * the row of a CSR entry, and a tile's entry count. */
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

/* The row holding entry e of a CSR with m >= 1 rows: the last r < m with rowptr[r] <= e. */
__device__ __forceinline__ int32_t hbp_row_of(const int32_t *__restrict__ rowptr, int32_t m, int64_t e)
{
    int32_t lo = 0, hi = m - 1;
    while (lo < hi) {
        const int32_t mid = lo + (hi - lo + 1) / 2;
        if (rowptr[mid] <= e)
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
