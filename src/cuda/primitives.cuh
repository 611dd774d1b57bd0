/* src/cuda/primitives.cuh: device building blocks shared by the kernels: the matrix-stream
 * load, shuffle reductions over lane groups and blocks, the keyed (segmented) warp scan, and
 * merge-path searches. */
#ifndef SPX_CUDA_PRIMITIVES_CUH
#define SPX_CUDA_PRIMITIVES_CUH

#include <stddef.h>
#include <stdint.h>

#define SPX_FULL_MASK 0xffffffffu

/* A load of matrix data that one SpMV reads once (values, column indices): ld.cs, evict-first in
 * L1 and L2, so the lines it brings in go first and the gathered x and y stay cached. Measured
 * on an H200 against __ldg (bench/NOTES.md, 2026-11-28, third session): csr stream on powerlaw
 * 4M fp64 12 % faster, uniform 4M 13 %, R-MAT 23 4-6 %, poisson3d n=300 equal; an L2
 * evict_first policy (createpolicy + L2::cache_hint) cost 39 % on poisson3d n=300, L1 no_allocate
 * alone gained less. SPX_CUDA_STREAM_LOAD_CS=0 gives __ldg back. */
#ifndef SPX_CUDA_STREAM_LOAD_CS
#define SPX_CUDA_STREAM_LOAD_CS 1
#endif
template <typename T>
__device__ __forceinline__ T spx_ld_stream(const T *p)
{
#if SPX_CUDA_STREAM_LOAD_CS
    return __ldcs(p);
#else
    return __ldg(p);
#endif
}

/* Asks the L2 to fetch bytes [p, p + n) ahead of their loads (sm_90's bulk prefetch: one
 * instruction, served by the copy engine, no registers held). The range shrinks to 16-byte
 * bounds as the instruction requires, so it never reaches outside [p, p + n); a hint only:
 * before sm_90 it does nothing. */
__device__ __forceinline__ void spx_prefetch_l2(const void *p, size_t n)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const uintptr_t a = ((uintptr_t)p + 15) & ~(uintptr_t)15, e = ((uintptr_t)p + n) & ~(uintptr_t)15;
    if (e > a)
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(a), "r"((unsigned)(e - a)) : "memory");
#else
    (void)p;
    (void)n;
#endif
}

/* Sum over aligned groups of G lanes (G a power of two, 1..32); every lane gets its group's
 * total. A tree of log2(G) xor-shuffles; all 32 lanes of the warp must call it. */
template <int G, typename T>
__device__ __forceinline__ T spx_group_sum(T v)
{
    static_assert(G >= 1 && G <= 32 && (G & (G - 1)) == 0, "G must be a power of two <= 32");
#pragma unroll
    for (int off = G / 2; off > 0; off >>= 1) v += __shfl_xor_sync(SPX_FULL_MASK, v, off);
    return v;
}

/* Sum over the block (BLOCK a multiple of 32, at most 1024); the result is valid in thread 0.
 * Every thread must call it, once per kernel (it owns a static shared array). */
template <int BLOCK, typename T>
__device__ __forceinline__ T spx_block_sum(T v)
{
    static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "BLOCK must be a multiple of 32");
    constexpr int WARPS = BLOCK / 32;
    __shared__ T warp_sums[WARPS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = spx_group_sum<32>(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    T r = T(0);
    if (warp == 0) {
        r = lane < WARPS ? warp_sums[lane] : T(0);
        r = spx_group_sum<32>(r);
    }
    return r;
}

/* Inclusive segmented sum across the warp, segments being runs of equal key; keys must be
 * non-decreasing with the lane (then key[l - off] == key[l] means the whole stretch between
 * is one segment). Lane l gets the sum of its segment's lanes up to and including l. A
 * Hillis-Steele tree of log2(32) steps; all 32 lanes must call it. */
template <typename T>
__device__ __forceinline__ T spx_warp_segscan(T v, int32_t key)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
        T u = __shfl_up_sync(SPX_FULL_MASK, v, off);
        int32_t k = __shfl_up_sync(SPX_FULL_MASK, key, off);
        if (lane >= off && k == key) v += u;
    }
    return v;
}

/* Merge-path search (Merrill & Garland, SC'16, Alg. 3) on the merge of the row-end offsets
 * A[i] = row_end(i), i < a_len, with the nonzero indices B[j] = b_base + j, j < b_len: the
 * number of row ends consumed at diagonal d, ties going to the row end (a row ends before the
 * next row's first nonzero). row_end is any indexable (pointer or functor). */
template <typename RowEnd, typename I>
__device__ __forceinline__ I spx_merge_path_search(I d, RowEnd row_end, I a_len, I b_len, I b_base)
{
    I lo = d > b_len ? d - b_len : I(0);
    I hi = d < a_len ? d : a_len;
    while (lo < hi) {
        I mid = lo + ((hi - lo) >> 1);
        if ((I)row_end[mid] <= b_base + (d - mid - 1))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The row holding nonzero k, searching rows [r, hi] of rowptr, given that row r starts at or
 * before k and that k's row is at most hi. One load when k is still in row r (long rows),
 * a binary search otherwise; skips empty rows (the last row starting at or before k). */
__device__ __forceinline__ int32_t spx_row_of(const int32_t *__restrict__ rowptr, int32_t r,
                                              int32_t hi, int64_t k)
{
    if ((int64_t)__ldg(rowptr + r + 1) > k) return r;
    int32_t lo = r + 1;
    while (lo < hi) {
        int32_t mid = lo + ((hi - lo + 1) >> 1);
        if ((int64_t)__ldg(rowptr + mid) <= k)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

#endif
