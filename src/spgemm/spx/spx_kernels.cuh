/* src/spgemm/spx/spx_kernels.cuh: the spx GPU SpGEMM's kernels: the pre-analysis (products
 * per row of C, nonzeros per column of A; ApSpGEMM §4.1), the row-group kernel with a hash
 * table per row in shared memory (§5.1: symbolic counts, numeric sums and writes the row
 * sorted by rank), and the fallback for rows whose table does not fit: one block per row
 * with an n-wide dense accumulator in global memory, read out in column order. */
#ifndef SPX_SPGEMM_SPX_KERNELS_CUH
#define SPX_SPGEMM_SPX_KERNELS_CUH

#include <cub/block/block_scan.cuh>
#include <stdint.h>

#include "spgemm/spx/spx_tuning.h"

#define SPX_GPU_HASH_MULT 2654435761u /* Knuth's multiplicative hash */

/* Row i's products (sum of B's row lengths over A's row) into prod[i], and A's column
 * counts into colcnt (atomics); one warp per row, grid-stride. */
__global__ void __launch_bounds__(SPX_GPU_ANALYSE_BLOCK)
    spx_spgemm_products_kernel(int32_t m, const int32_t *__restrict__ arp, const int32_t *__restrict__ aci,
                               const int32_t *__restrict__ brp, int64_t *__restrict__ prod, int32_t *__restrict__ colcnt)
{
    const int lane = threadIdx.x & 31;
    const int64_t warps = (int64_t)gridDim.x * (blockDim.x >> 5);
    for (int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5; i < m; i += warps) {
        int64_t p = 0;
        for (int32_t q = arp[i] + lane; q < arp[i + 1]; q += 32) {
            const int32_t k = aci[q];
            p += brp[k + 1] - brp[k];
            atomicAdd(colcnt + k, 1);
        }
        for (int off = 16; off > 0; off >>= 1) p += __shfl_xor_sync(0xffffffffu, p, off);
        if (lane == 0) prod[i] = p;
    }
}

/* Inserts column j (with value v when NUMERIC) into the table of mask + 1 slots (keys -1 when
 * empty, values 0); returns 1 when j was new. The table holds more slots than keys, so the
 * probe ends. */
template <bool NUMERIC, typename V>
__device__ __forceinline__ int spx_spgemm_hash_insert(int32_t *keys, V *vals, uint32_t mask, int32_t j, V v)
{
    uint32_t h = ((uint32_t)j * SPX_GPU_HASH_MULT) & mask;
    for (;;) {
        const int32_t k = *(volatile int32_t *)(keys + h);
        int fresh = -1;
        if (k == j) fresh = 0;
        else if (k == -1) {
            const int32_t old = atomicCAS(keys + h, -1, j);
            if (old == -1) fresh = 1;
            else if (old == j) fresh = 0;
        }
        if (fresh >= 0) {
            if (NUMERIC) atomicAdd(vals + h, v);
            return fresh;
        }
        h = (h + 1) & mask;
    }
}

/* Sorts each group's table (slots a power of two; keys with their values) by key, the empty
 * slots (-1: the largest as unsigned) last: a bitonic network whose compare-exchange pairs
 * the group's lanes share. Every thread of the block calls it (it synchronises after each of
 * the log2(slots) * (log2(slots) + 1) / 2 steps); O(slots log^2 slots) work a row, where
 * ranking every key against every slot was O(slots^2) (8192-slot rows: ~50x more). */
template <bool NUMERIC, typename V>
__device__ __forceinline__ void spx_spgemm_sort_table(int32_t *keys, V *vals, int slots, int lane, int group)
{
    for (int size = 2; size <= slots; size <<= 1)
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
            for (int t = lane; t < slots / 2; t += group) {
                const int lo = 2 * t - (t & (stride - 1)), hi = lo + stride;
                const bool ascending = (lo & size) == 0;
                const int32_t a = keys[lo], b = keys[hi];
                if (((uint32_t)a > (uint32_t)b) == ascending) {
                    keys[lo] = b, keys[hi] = a;
                    if (NUMERIC) {
                        const V v = vals[lo];
                        vals[lo] = vals[hi], vals[hi] = v;
                    }
                }
            }
            __syncthreads();
        }
}

/* Rows rows[0..nrows) of C, a group of `group` lanes per row with a table of `slots` slots
 * (a power of two) in shared memory; blockDim.x = groups * group. Within a group, lanes
 * lane / sub take A's entries and lanes lane % sub stride B's row. SYMBOLIC (NUMERIC false):
 * counts[i] = the row's distinct columns. NUMERIC: the row's columns and sums written to C
 * at crow[i], sorted (by rank in small tables, else spx_spgemm_sort_table). Dynamic shared memory:
 * groups * (slots * (sizeof(V) if NUMERIC + 4) + 4) bytes. */
template <bool NUMERIC, typename V>
__global__ void __launch_bounds__(SPX_GPU_MAX_BLOCK)
    spx_spgemm_rows_kernel(const int32_t *__restrict__ arp, const int32_t *__restrict__ aci, const V *__restrict__ av,
                           const int32_t *__restrict__ brp, const int32_t *__restrict__ bci, const V *__restrict__ bv,
                           const int32_t *__restrict__ rows, int32_t nrows, int group, int sub, int slots,
                           int64_t *__restrict__ counts, const int64_t *__restrict__ crow, int32_t *__restrict__ cci,
                           V *__restrict__ cv)
{
    extern __shared__ __align__(16) unsigned char spx_spgemm_smem[];
    const int groups = blockDim.x / group;
    const int g = threadIdx.x / group, lane = threadIdx.x % group;
    V *vals = (V *)spx_spgemm_smem; /* groups * slots values (NUMERIC only) */
    int32_t *keys = (int32_t *)(spx_spgemm_smem + (NUMERIC ? (size_t)groups * slots * sizeof(V) : 0));
    int *found = (int *)(keys + (size_t)groups * slots); /* one counter per group */
    int32_t *mykeys = keys + (size_t)g * slots;
    V *myvals = vals + (size_t)g * slots;
    const uint32_t mask = (uint32_t)slots - 1;
    const int per = group / sub;
    for (int64_t base = (int64_t)blockIdx.x * groups; base < nrows; base += (int64_t)gridDim.x * groups) {
        const int64_t r = base + g;
        const bool active = r < nrows;
        for (int s = lane; s < slots; s += group) {
            mykeys[s] = -1;
            if (NUMERIC) myvals[s] = V(0);
        }
        if (lane == 0) found[g] = 0;
        __syncthreads();
        if (active) {
            const int32_t i = rows[r];
            int fresh = 0;
            for (int32_t qa = arp[i] + lane / sub; qa < arp[i + 1]; qa += per) {
                const int32_t k = aci[qa];
                const V a = NUMERIC ? av[qa] : V(0);
                for (int32_t qb = brp[k] + lane % sub; qb < brp[k + 1]; qb += sub)
                    fresh += spx_spgemm_hash_insert<NUMERIC, V>(mykeys, myvals, mask, bci[qb], NUMERIC ? a * bv[qb] : V(0));
            }
            if (!NUMERIC && fresh) atomicAdd(found + g, fresh);
        }
        __syncthreads();
        if (!NUMERIC && active && lane == 0) counts[rows[r]] = found[g];
        if (NUMERIC && slots <= SPX_GPU_RANK_SORT_MAX_SLOTS) { /* small tables: each key's rank */
            if (active) {
                const int32_t i = rows[r];
                const int64_t out = crow[i], end = crow[i + 1];
                for (int s = lane; s < slots; s += group) {
                    const int32_t key = mykeys[s];
                    if (key < 0) continue;
                    int64_t rank = 0;
                    for (int t = 0; t < slots; t++) rank += (uint32_t)mykeys[t] < (uint32_t)key;
                    if (out + rank < end) {
                        cci[out + rank] = key;
                        cv[out + rank] = myvals[s];
                    }
                }
            }
        } else if (NUMERIC) { /* the row's columns sorted to the table's front, then written */
            spx_spgemm_sort_table<NUMERIC, V>(mykeys, myvals, slots, lane, group);
            if (active) {
                const int32_t i = rows[r];
                const int64_t out = crow[i], len = crow[i + 1] - crow[i];
                for (int s = lane; s < slots && s < len; s += group)
                    if (mykeys[s] >= 0) {
                        cci[out + s] = mykeys[s];
                        cv[out + s] = myvals[s];
                    }
            }
        }
        __syncthreads();
    }
}

/* The fallback: block b takes row rows[b] with accumulator slot b of the pool (markers
 * marker + b * n, stamped with the row, -1 initially; values val + b * n, 0 initially and
 * left 0). Warps take A's entries, lanes stride B's row. SYMBOLIC: counts[i] = distinct
 * columns. NUMERIC: the columns in order (a block scan over the n columns) and their sums
 * written to C at crow[i]. */
template <bool NUMERIC, typename V>
__global__ void __launch_bounds__(SPX_GPU_FALLBACK_BLOCK)
    spx_spgemm_fallback_kernel(const int32_t *__restrict__ arp, const int32_t *__restrict__ aci,
                               const V *__restrict__ av, const int32_t *__restrict__ brp, const int32_t *__restrict__ bci,
                               const V *__restrict__ bv, const int32_t *__restrict__ rows, int32_t n,
                               int32_t *__restrict__ marker_pool, V *__restrict__ val_pool, int64_t *__restrict__ counts,
                               const int64_t *__restrict__ crow, int32_t *__restrict__ cci, V *__restrict__ cv)
{
    typedef cub::BlockScan<int, SPX_GPU_FALLBACK_BLOCK> scan_t;
    __shared__ typename scan_t::TempStorage scan_tmp;
    __shared__ unsigned long long found;
    const int32_t i = rows[blockIdx.x];
    int32_t *marker = marker_pool + (size_t)blockIdx.x * (size_t)n;
    V *vals = NUMERIC ? val_pool + (size_t)blockIdx.x * (size_t)n : nullptr;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = SPX_GPU_FALLBACK_BLOCK / 32;
    if (threadIdx.x == 0) found = 0;
    __syncthreads();
    unsigned long long fresh = 0;
    for (int32_t qa = arp[i] + warp; qa < arp[i + 1]; qa += warps) {
        const int32_t k = aci[qa];
        const V a = NUMERIC ? av[qa] : V(0);
        for (int32_t qb = brp[k] + lane; qb < brp[k + 1]; qb += 32) {
            const int32_t j = bci[qb];
            if (!NUMERIC) {
                fresh += atomicExch(marker + j, i) != i;
            } else {
                atomicAdd(vals + j, a * bv[qb]);
                marker[j] = i;
            }
        }
    }
    if (!NUMERIC) {
        if (fresh) atomicAdd(&found, fresh);
        __syncthreads();
        if (threadIdx.x == 0) counts[i] = (int64_t)found;
        return;
    }
    __syncthreads();
    __threadfence_block();
    int64_t at = crow[i];
    const int64_t end = crow[i + 1];
    for (int32_t j0 = 0; j0 < n; j0 += SPX_GPU_FALLBACK_BLOCK) {
        const int32_t j = j0 + (int32_t)threadIdx.x;
        const int flag = j < n && *(volatile int32_t *)(marker + j) == i;
        int pos = 0, total = 0;
        scan_t(scan_tmp).ExclusiveSum(flag, pos, total);
        if (flag) {
            if (at + pos < end) {
                cci[at + pos] = j;
                cv[at + pos] = vals[j];
            }
            vals[j] = V(0);
        }
        at += total;
        __syncthreads(); /* scan_tmp is reused */
    }
}

#endif
