/* src/spgemm/spx/spx_kernels.cuh: the spx GPU SpGEMM's kernels: the pre-analysis (products
 * per row of C, long rows of A by chunks, nonzeros per column of A, the §4.2 dense rows and
 * columns; ApSpGEMM §4.1; the rows' column ranges), the dynamic binning on the device
 * (per-bin statistics, then the row ids scattered bin after bin), the row-group kernels with
 * a table per row in shared memory (§5.1: symbolic counts, numeric sums and writes the row
 * sorted), a hash table or a span table of the row's column range; and for rows whose table
 * does not fit (or is large beside n): the dense fallback (one block per row, a bitmap of the row's
 * columns in shared memory, values added into C in place) or, when n bits do not fit shared
 * memory, the global fallback (one block per row with an n-wide dense accumulator in global
 * memory); both read out in column order. */
#ifndef SPX_SPGEMM_SPX_KERNELS_CUH
#define SPX_SPGEMM_SPX_KERNELS_CUH

#include <cub/block/block_scan.cuh>
#include <stdint.h>

#include "spgemm/spx/spx_tuning.h"

#define SPX_GPU_HASH_MULT 2654435761u /* Knuth's multiplicative hash */

#define SPX_GPU_FULL_WARP 0xffffffffu

/* The lanes of the calling thread's warp that exist: all 32 but in a block's last warp when
 * blockDim.x is not a multiple of 32 (row groups of fewer than 32 lanes may leave one). */
__device__ __forceinline__ unsigned spx_gpu_warp_lanes()
{
    const unsigned rest = blockDim.x - (threadIdx.x & ~31u);
    return rest >= 32 ? SPX_GPU_FULL_WARP : (1u << rest) - 1u;
}

/* What the binning kernels accumulate and the host downloads (one small copy) to shape the
 * launches: per bin its rows, their total and largest work; the §4.2 counts (rows above P,
 * columns of A with more than one entry); nnz(C), copied in beside C's row lengths' statistics
 * so that one download brings both; and per bin the rows the scatter kernel has placed (zeroed
 * with the rest). */
typedef struct spx_gpu_bin_stats {
    unsigned long long count[SPX_GPU_BINS], sum[SPX_GPU_BINS], max[SPX_GPU_BINS];
    unsigned long long dense_rows, dense_cols;
    long long nnz_c;
    unsigned long long cursor[SPX_GPU_BINS];
} spx_gpu_bin_stats;

/* Each bin's first place in the row list (the host's exclusive scan of the bins' counts in its
 * bin order), passed to the scatter kernel by value: no upload, no wait for one. */
typedef struct spx_gpu_bin_starts {
    unsigned long long at[SPX_GPU_BINS];
} spx_gpu_bin_starts;

/* What a row's bin depends on besides its work and range: C's columns n, the largest hash
 * table (slots) and span table (columns) a row group may have in shared memory (0: none; the
 * host's fit_slots and fit_cols), the value bytes (0: symbolic), and the span table's share
 * of the hash table's bytes in percent (SPX_GPU_SPAN_*_PCT), sorted_pct where the hash table
 * would be sorted by the bitonic network. */
typedef struct spx_gpu_bin_rule {
    int64_t n, fit_slots, fit_cols;
    int vbytes, span_pct, sorted_pct;
    int bits_per_slot;      /* a hash table's bitmap columns a slot (0: no bitmaps) */
    int64_t fit_bits_slots; /* the largest hash table with its bitmap a row group may have */
    const int32_t *panel_pos; /* A's rows' places among the dense panels' rows (-1: none): those */
                              /* go to the fallback bin; NULL: no panels */
} spx_gpu_bin_rule;

/* The class c of a power-of-two table of `least << c` entries holding `need` (c >= 0). */
__host__ __device__ __forceinline__ int spx_gpu_table_class(int64_t need, int64_t least)
{
    int c = 0;
    for (int64_t t = least; t < need; t <<= 1) c++;
    return c;
}

/* The bin of a row with work w > 0 (products or exact length) and columns in [lo, hi] (hi < lo:
 * unknown): its hash table has the power of two >= SPX_GPU_SLOTS_PER_KEY * min(w, n) slots
 * (at least SPX_GPU_MIN_SLOTS), bin c for SPX_GPU_MIN_SLOTS << c; its span table the power of
 * two >= hi - lo + 1 columns, bin SPX_GPU_TABLE_CLASSES + c for SPX_GPU_SPAN_MIN_COLS << c, taken
 * when it fits and its bytes are at most R.span_pct % of the hash table's (R.sorted_pct % over
 * SPX_GPU_RANK_SORT_MAX_SLOTS slots); else, when the range spans at most R.bits_per_slot
 * columns a slot and the table with its bitmap fits, the hash bin with a bitmap, 2
 * SPX_GPU_TABLE_CLASSES + c; else the hash bin, or SPX_GPU_BINS - 1 (the fallback) when the
 * hash table exceeds R.fit_slots. The stats and scatter kernels share this one rule, so they
 * agree on every row's bin. */
__host__ __device__ __forceinline__ int spx_gpu_bin_of(int64_t w, int32_t lo, int32_t hi, const spx_gpu_bin_rule &R)
{
    const int64_t keys = w < R.n ? w : R.n;
    const int ch = spx_gpu_table_class(keys * SPX_GPU_SLOTS_PER_KEY, SPX_GPU_MIN_SLOTS);
    const int64_t slots = (int64_t)SPX_GPU_MIN_SLOTS << ch;
    const int pct = slots > SPX_GPU_RANK_SORT_MAX_SLOTS ? R.sorted_pct : R.span_pct;
    if (R.fit_cols && pct && hi >= lo) {
        const int cs = spx_gpu_table_class((int64_t)hi - lo + 1, SPX_GPU_SPAN_MIN_COLS);
        const int64_t cols = (int64_t)SPX_GPU_SPAN_MIN_COLS << cs;
        if (cs < SPX_GPU_TABLE_CLASSES && cols <= R.fit_cols &&
            (cols * R.vbytes + cols / 8) * 100 <= slots * (4 + R.vbytes) * pct)
            return SPX_GPU_TABLE_CLASSES + cs;
    }
    if (R.bits_per_slot && hi >= lo && (int64_t)hi - lo + 1 <= slots * R.bits_per_slot && slots <= R.fit_bits_slots)
        return 2 * SPX_GPU_TABLE_CLASSES + ch;
    return ch < SPX_GPU_TABLE_CLASSES && slots <= R.fit_slots ? ch : SPX_GPU_BINS - 1;
}

/* Row i's column range from range[] (NULL: unknown, hi < lo). */
__device__ __forceinline__ int2 spx_gpu_range(const int2 *__restrict__ range, int64_t i)
{
    return range ? range[i] : make_int2(0, -1);
}

/* Row i's work: w[i], or w[i + 1] - w[i] when diff (row pointers). */
__device__ __forceinline__ int64_t spx_gpu_work(const int64_t *__restrict__ w, int diff, int64_t i)
{
    return diff ? w[i + 1] - w[i] : w[i];
}

/* Row i's bin by its work (*x) and range (spx_gpu_bin_of), as the stats and scatter kernels
 * both bin it; -1 (and *x 0) for a row without work or past m. */
__device__ __forceinline__ int spx_gpu_row_bin(int32_t m, const int64_t *__restrict__ w, int diff,
                                               const int2 *__restrict__ range, const spx_gpu_bin_rule &rule, int64_t i,
                                               int64_t *x)
{
    *x = i < m ? spx_gpu_work(w, diff, i) : 0;
    if (*x <= 0) return -1;
    if (rule.panel_pos && rule.panel_pos[i] >= 0) return SPX_GPU_BINS - 1;
    const int2 rg = spx_gpu_range(range, i);
    return spx_gpu_bin_of(*x, rg.x, rg.y, rule);
}

/* The pre-analysis of every row, L lanes a row (L a power of two up to 32; a warp takes 32 / L
 * rows at a time, grid-stride), A's entries taken SPX_GPU_BOUNDS_UNROLL at once: row i's
 * products (sum of B's row lengths over A's row) into prod[i], A's column counts into colcnt
 * (atomics), the rows of more than dense_min entries (§4.2: nnz_i / k above P,
 * spx_gpu_dense_min) added to *dense_rows,
 * and range[i] = the row's first and last column of C (the least first and the largest last
 * column of the B rows it reaches; B's columns sorted) for the rows that may take a span
 * table: more than SPX_GPU_SPAN_MIN_PRODUCTS products, at most SPX_GPU_SPAN_MAX_A_ENTRIES
 * entries, no B row longer than SPX_GPU_DENSE_LONG_B; else (0, -1). A row of more than
 * SPX_GPU_LONG_A_ROW entries gets prod[i] = 0 here: spx_spgemm_long_rows_kernel adds its
 * products and column counts (its range stays (0, -1): it has too many entries). The range
 * re-reads the row's entries while they are in cache (they were two warp-a-row kernels, each
 * reading A and B's row pointers: ~0.6 ms of poisson3d n=100's plan, H100). */
static_assert(SPX_GPU_SPAN_MAX_A_ENTRIES < SPX_GPU_LONG_A_ROW,
              "a long row (left to spx_spgemm_long_rows_kernel with prod 0 here) must never be a span candidate");
template <int L>
__global__ void __launch_bounds__(SPX_GPU_ANALYSE_BLOCK)
    spx_spgemm_analyse_rows_kernel(int32_t m, const int32_t *__restrict__ arp,
                                   const int32_t *__restrict__ aci, const int32_t *__restrict__ brp,
                                   const int32_t *__restrict__ bci, int64_t *__restrict__ prod,
                                   int32_t *__restrict__ colcnt, int2 *__restrict__ range, int32_t dense_min,
                                   unsigned long long *__restrict__ dense_rows)
{
    __shared__ unsigned int dense;
    const int lane = threadIdx.x & 31, sub = lane % L;
    const int64_t warps = (int64_t)gridDim.x * (blockDim.x >> 5);
    unsigned int mine = 0; /* the dense rows this lane counted */
    if (threadIdx.x == 0) dense = 0;
    __syncthreads();
    /* warp-uniform: every lane reaches the shuffles below */
    for (int64_t i0 = (((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5) * (32 / L); i0 < m;
         i0 += warps * (32 / L)) {
        const int64_t i = i0 + lane / L;
        const int32_t start = i < m ? arp[i] : 0, end = i < m ? arp[i + 1] : 0;
        const bool long_row = end - start > SPX_GPU_LONG_A_ROW;
        int64_t p = 0;
        bool too_long = false;
        for (int64_t q0 = start + sub; !long_row && q0 < end; q0 += L * SPX_GPU_BOUNDS_UNROLL) {
            int32_t c[SPX_GPU_BOUNDS_UNROLL], len[SPX_GPU_BOUNDS_UNROLL];
#pragma unroll
            for (int u = 0; u < SPX_GPU_BOUNDS_UNROLL; u++) {
                c[u] = q0 + L * u < end ? aci[q0 + L * u] : -1;
                len[u] = c[u] >= 0 ? brp[c[u] + 1] - brp[c[u]] : 0;
            }
#pragma unroll
            for (int u = 0; u < SPX_GPU_BOUNDS_UNROLL; u++)
                if (c[u] >= 0) {
                    p += len[u];
                    atomicAdd(colcnt + c[u], 1);
                    too_long |= len[u] > SPX_GPU_DENSE_LONG_B;
                }
        }
        for (int off = L / 2; off > 0; off >>= 1) p += __shfl_xor_sync(SPX_GPU_FULL_WARP, p, off); /* the row's lanes */
        const unsigned seg_bad = (__ballot_sync(SPX_GPU_FULL_WARP, too_long) >> (lane - sub)) &
                                 (L == 32 ? ~0u : (1u << L) - 1u);
        /* the range, for the rows that may take a span table, from the entries just read (cached) */
        const bool span = end - start <= SPX_GPU_SPAN_MAX_A_ENTRIES && p > SPX_GPU_SPAN_MIN_PRODUCTS && !seg_bad;
        int32_t lo = INT32_MAX, hi = -1;
        for (int64_t q = start + sub; span && q < end; q += L) {
            const int32_t c = aci[q], b0 = brp[c], b1 = brp[c + 1];
            if (b1 > b0) lo = min(lo, bci[b0]), hi = max(hi, bci[b1 - 1]);
        }
        for (int off = L / 2; off > 0; off >>= 1) {
            lo = min(lo, __shfl_xor_sync(SPX_GPU_FULL_WARP, lo, off));
            hi = max(hi, __shfl_xor_sync(SPX_GPU_FULL_WARP, hi, off));
        }
        if (i < m && sub == 0) {
            prod[i] = p;
            mine += end - start > dense_min;
            range[i] = span && hi >= lo ? make_int2(lo, hi) : make_int2(0, -1);
        }
    }
    if (mine) atomicAdd(&dense, mine);
    __syncthreads();
    if (threadIdx.x == 0 && dense) atomicAdd(dense_rows, (unsigned long long)dense);
}

/* The row of A holding entry q (arp[r] <= q < arp[r + 1]; 0 <= q < arp[m]), by bisection. */
__device__ __forceinline__ int32_t spx_gpu_row_of(const int32_t *__restrict__ arp, int32_t m, int64_t q)
{
    int32_t lo = 0, hi = m - 1; /* the last row r with arp[r] <= q */
    while (lo < hi) {
        const int32_t mid = lo + (hi - lo + 1) / 2;
        if (arp[mid] <= q) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* The rows of more than SPX_GPU_LONG_A_ROW entries, which spx_spgemm_analyse_rows_kernel left at
 * prod[i] = 0: A's entries in chunks of SPX_GPU_LONG_A_ROW, one warp a chunk (grid-stride);
 * only a chunk's first and last rows can be long (a row inside it is shorter than it), so
 * the warp adds the products of their parts in the chunk to prod[] (an atomic) and counts
 * their columns. A row of a million entries, one warp's serial walk before (the power-law
 * matrix's analyse: 8 ms on an H100), is summed by hundreds of warps. */
__global__ void __launch_bounds__(SPX_GPU_ANALYSE_BLOCK)
    spx_spgemm_long_rows_kernel(int32_t m, int64_t nnz, const int32_t *__restrict__ arp,
                                const int32_t *__restrict__ aci, const int32_t *__restrict__ brp,
                                int64_t *__restrict__ prod, int32_t *__restrict__ colcnt)
{
    const int lane = threadIdx.x & 31;
    const int64_t warps = (int64_t)gridDim.x * (blockDim.x >> 5);
    const int64_t chunks = (nnz + SPX_GPU_LONG_A_ROW - 1) / SPX_GPU_LONG_A_ROW;
    for (int64_t c = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5; c < chunks; c += warps) {
        const int64_t q0 = c * SPX_GPU_LONG_A_ROW, q1 = q0 + SPX_GPU_LONG_A_ROW < nnz ? q0 + SPX_GPU_LONG_A_ROW : nnz;
        const int32_t r0 = spx_gpu_row_of(arp, m, q0), r1 = spx_gpu_row_of(arp, m, q1 - 1);
        for (int32_t r = r0;; r = r1) {
            if (arp[r + 1] - arp[r] > SPX_GPU_LONG_A_ROW) { /* the same in every lane */
                const int64_t a = arp[r] > q0 ? arp[r] : q0, b = arp[r + 1] < q1 ? arp[r + 1] : q1;
                unsigned long long p = 0;
                for (int64_t q = a + lane; q < b; q += 32) {
                    const int32_t k = aci[q];
                    p += (unsigned long long)(brp[k + 1] - brp[k]);
                    atomicAdd(colcnt + k, 1);
                }
                for (int off = 16; off > 0; off >>= 1) p += __shfl_xor_sync(SPX_GPU_FULL_WARP, p, off);
                if (lane == 0 && p) atomicAdd((unsigned long long *)(prod + r), p);
            }
            if (r == r1) break;
        }
    }
}

/* Adds to *dense_cols the columns of A with more than one entry (colcnt[0..k)); grid-stride
 * over tiles of blockDim.x columns (every thread of a block takes the same iterations). */
__global__ void __launch_bounds__(SPX_GPU_ANALYSE_BLOCK)
    spx_spgemm_dense_cols_kernel(int32_t k, const int32_t *__restrict__ colcnt, unsigned long long *__restrict__ dense_cols)
{
    unsigned long long found = 0;
    for (int64_t base = (int64_t)blockIdx.x * blockDim.x; base < k; base += (int64_t)gridDim.x * blockDim.x) {
        const int64_t j = base + threadIdx.x;
        found += (unsigned long long)__syncthreads_count(j < k && colcnt[j] > 1);
    }
    if (threadIdx.x == 0 && found) atomicAdd(dense_cols, found);
}

/* The lanes of a warp that hold bin cc (the bin of lane `lead`, the lowest lane still to
 * handle): their mask, and over them the sum and max of x (every lane of the warp calls it). */
__device__ __forceinline__ unsigned spx_gpu_bin_peers(int c, int cc, unsigned long long x, unsigned long long *sum,
                                                      unsigned long long *max)
{
    const unsigned peers = __ballot_sync(SPX_GPU_FULL_WARP, c == cc);
    unsigned long long s = c == cc ? x : 0, h = s;
    for (int off = 16; off > 0; off >>= 1) {
        s += __shfl_xor_sync(SPX_GPU_FULL_WARP, s, off);
        const unsigned long long o = __shfl_xor_sync(SPX_GPU_FULL_WARP, h, off);
        h = o > h ? o : h;
    }
    *sum = s, *max = h;
    return peers;
}

/* Per-bin statistics of rows [0, m) with work > 0 (spx_gpu_work, binned by spx_gpu_bin_of
 * with their range, NULL: none) added to st's count, sum and max: each warp combines its
 * lanes of one bin, each block its warps in shared memory, then one global atomic per bin and
 * block. blockDim.x a multiple of 32; grid-stride over tiles of blockDim.x rows. */
__global__ void __launch_bounds__(SPX_GPU_ANALYSE_BLOCK)
    spx_spgemm_bin_stats_kernel(int32_t m, const int64_t *__restrict__ w, int diff, const int2 *__restrict__ range,
                                spx_gpu_bin_rule rule, spx_gpu_bin_stats *__restrict__ st)
{
    __shared__ unsigned long long cnt[SPX_GPU_BINS], sum[SPX_GPU_BINS], mx[SPX_GPU_BINS];
    const int lane = threadIdx.x & 31;
    for (int c = threadIdx.x; c < SPX_GPU_BINS; c += blockDim.x) cnt[c] = sum[c] = mx[c] = 0;
    __syncthreads();
    for (int64_t base = (int64_t)blockIdx.x * blockDim.x; base < m; base += (int64_t)gridDim.x * blockDim.x) {
        int64_t x;
        const int c = spx_gpu_row_bin(m, w, diff, range, rule, base + threadIdx.x, &x);
        for (unsigned todo = __ballot_sync(SPX_GPU_FULL_WARP, c >= 0); todo;) {
            const int lead = __ffs(todo) - 1, cc = __shfl_sync(SPX_GPU_FULL_WARP, c, lead);
            unsigned long long s, h;
            const unsigned peers = spx_gpu_bin_peers(c, cc, (unsigned long long)x, &s, &h);
            if (lane == lead) {
                atomicAdd(cnt + cc, (unsigned long long)__popc(peers));
                atomicAdd(sum + cc, s);
                atomicMax(mx + cc, h);
            }
            todo &= ~peers;
        }
    }
    __syncthreads();
    for (int c = threadIdx.x; c < SPX_GPU_BINS; c += blockDim.x)
        if (cnt[c]) {
            atomicAdd(st->count + c, cnt[c]);
            atomicAdd(st->sum + c, sum[c]);
            atomicMax(st->max + c, mx[c]);
        }
}

/* Scatters the ids of rows [0, m) with work > 0 (binned with their range, as the stats) into
 * rows[], bin c's from starts.at[c] on (cursor[c], zeroed, counts those placed; the bins' order
 * is the host's). Per tile of blockDim.x rows: warps reserve places in shared per-bin counters, then
 * one global atomicAdd per bin reserves the block's range. The order within a bin depends on the atomics' order, so it
 * varies between runs: harmless, every row of C is computed on its own and lands at its row
 * pointer. blockDim.x a multiple of 32; grid-stride over tiles. */
__global__ void __launch_bounds__(SPX_GPU_ANALYSE_BLOCK)
    spx_spgemm_bin_scatter_kernel(int32_t m, const int64_t *__restrict__ w, int diff, const int2 *__restrict__ range,
                                  spx_gpu_bin_rule rule, spx_gpu_bin_starts starts,
                                  unsigned long long *__restrict__ cursor, int32_t *__restrict__ rows)
{
    __shared__ unsigned int cnt[SPX_GPU_BINS];
    __shared__ unsigned long long at[SPX_GPU_BINS];
    const int lane = threadIdx.x & 31;
    for (int c = threadIdx.x; c < SPX_GPU_BINS; c += blockDim.x) cnt[c] = 0;
    __syncthreads();
    for (int64_t base = (int64_t)blockIdx.x * blockDim.x; base < m; base += (int64_t)gridDim.x * blockDim.x) {
        const int64_t i = base + threadIdx.x;
        int64_t x;
        const int c = spx_gpu_row_bin(m, w, diff, range, rule, i, &x);
        unsigned int off = 0; /* this row's place among the block's rows of its bin */
        for (unsigned todo = __ballot_sync(SPX_GPU_FULL_WARP, c >= 0); todo;) {
            const int lead = __ffs(todo) - 1, cc = __shfl_sync(SPX_GPU_FULL_WARP, c, lead);
            const unsigned peers = __ballot_sync(SPX_GPU_FULL_WARP, c == cc);
            unsigned int first = 0;
            if (lane == lead) first = atomicAdd(cnt + cc, (unsigned int)__popc(peers));
            first = __shfl_sync(SPX_GPU_FULL_WARP, first, lead);
            if (c == cc) off = first + (unsigned int)__popc(peers & ((1u << lane) - 1u));
            todo &= ~peers;
        }
        __syncthreads(); /* the tile's counts are complete */
        for (int b = threadIdx.x; b < SPX_GPU_BINS; b += blockDim.x) {
            at[b] = cnt[b] ? starts.at[b] + atomicAdd(cursor + b, (unsigned long long)cnt[b]) : 0;
            cnt[b] = 0;
        }
        __syncthreads(); /* at[] is set; cnt[] is zero for the next tile */
        if (c >= 0) rows[at[c] + off] = (int32_t)i;
        /* at[] is rewritten only after the next tile's first barrier, past these reads */
    }
}

/* Column j's home slot in a table of mask + 1 slots (its probe starts there). */
__device__ __forceinline__ uint32_t spx_spgemm_hash_home(int32_t j, uint32_t mask)
{
    return ((uint32_t)j * SPX_GPU_HASH_MULT) & mask;
}

/* Inserts column j (with value v when NUMERIC) into the table of mask + 1 slots (keys -1 when
 * empty, values 0); returns 1 when j was new. The table holds more slots than keys, so the
 * probe ends. */
template <bool NUMERIC, typename V>
__device__ __forceinline__ int spx_spgemm_hash_insert(int32_t *keys, V *vals, uint32_t mask, int32_t j, V v)
{
    uint32_t h = spx_spgemm_hash_home(j, mask);
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

/* The slot of column j, which the table of mask + 1 slots holds (the insertion's probe). */
__device__ __forceinline__ uint32_t spx_spgemm_hash_find(const int32_t *keys, uint32_t mask, int32_t j)
{
    uint32_t h = spx_spgemm_hash_home(j, mask);
    while (keys[h] != j) h = (h + 1) & mask;
    return h;
}

/* Sorts each group's table (slots a power of two; keys with their values) by key, the empty
 * slots (-1: the largest as unsigned) last: a bitonic network whose compare-exchange pairs
 * the group's lanes share, with log2(slots) * (log2(slots) + 1) / 2 steps: O(slots log^2
 * slots) work a row, where ranking every key against every slot is O(slots^2). A group
 * inside one warp (group <= 32) steps with __syncwarp, so the block's groups do not wait for
 * each other; wider groups with __syncthreads. Every thread of the block calls it. */
template <bool NUMERIC, typename V>
__device__ __forceinline__ void spx_spgemm_sort_table(int32_t *keys, V *vals, int slots, int lane, int group)
{
    const bool in_warp = group <= 32; /* the same in every thread of the block */
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
            if (in_warp)
                __syncwarp(spx_gpu_warp_lanes());
            else
                __syncthreads();
        }
}

/* C's row i (numeric, its place out and length len in C) by the calling warp (every lane)
 * when it has at most 32 R products (R registers a lane: 2 or 4); false (nothing written)
 * when it has more. Element e = r * 32 + lane of the row's products sits in register r of the
 * lane: a key (column << log2(32 R) | e) and a value. The keys are sorted by a bitonic network
 * (unique keys: a permutation; partners 32 elements apart or more sit in the same lane), each
 * sorted key's value fetched from its place e, equal columns summed by a segmented suffix scan
 * to the first of their run, and the runs' firsts written in order. The columns must be below
 * spx_gpu_warp_max_cols(R). */
__host__ __device__ constexpr int spx_gpu_warp_key_bits(int R) { return R == 2 ? 6 : 7; }
__host__ __device__ constexpr int32_t spx_gpu_warp_max_cols(int R)
{
    return (int32_t)((0xffffffffu >> spx_gpu_warp_key_bits(R)) - 1u);
}
template <typename V, int R>
__device__ __forceinline__ bool spx_spgemm_warp_row(int32_t i, const int32_t *__restrict__ arp,
                                                    const int32_t *__restrict__ aci, const V *__restrict__ av,
                                                    const int32_t *__restrict__ brp, const int32_t *__restrict__ bci,
                                                    const V *__restrict__ bv, int64_t out, int64_t len,
                                                    int32_t *__restrict__ cci, V *__restrict__ cv)
{
    static_assert(R == 2 || R == 4, "spx_spgemm_warp_row holds 2 or 4 products a lane");
    constexpr int N = 32 * R, KB = spx_gpu_warp_key_bits(R);
    constexpr uint32_t EMPTY = 0xffffffffu; /* sorts last */
    const unsigned F = SPX_GPU_FULL_WARP;
    const int l = threadIdx.x & 31;
    const int32_t a0 = arp[i], a1 = arp[i + 1];
    uint32_t key[R];
    V val[R];
#pragma unroll
    for (int r = 0; r < R; r++) key[r] = EMPTY, val[r] = V(0);
    int base = 0; /* products of the A entries before this round */
    for (int32_t q0 = a0; q0 < a1; q0 += 32) {
        const int32_t qa = q0 + l;
        int32_t b0 = 0, blen = 0;
        V a = V(0);
        if (qa < a1) {
            const int32_t k = aci[qa];
            b0 = brp[k], blen = brp[k + 1] - b0, a = av[qa];
        }
        int incl = min(blen, N + 1); /* inclusive scan of the round's B row lengths (capped: past
                                        the bound is past it) */
        for (int d = 1; d < 32; d <<= 1) {
            const int t = __shfl_up_sync(F, incl, d);
            if (l >= d) incl += t;
        }
        const int total = __shfl_sync(F, incl, 31);
        if (base + total > N) return false; /* the same in every lane */
        const int first = base + incl - blen, nq = a1 - q0 < 32 ? a1 - q0 : 32;
        for (int t = 0; t < nq; t++) { /* entry t's products land on elements [s, s + n) */
            const int s = __shfl_sync(F, first, t), n = __shfl_sync(F, blen, t), bb = __shfl_sync(F, b0, t);
            const V at = __shfl_sync(F, a, t);
#pragma unroll
            for (int r = 0; r < R; r++) {
                const int e = r * 32 + l;
                if (e >= s && e < s + n) {
                    key[r] = ((uint32_t)bci[bb + e - s] << KB) | (uint32_t)e;
                    val[r] = at * bv[bb + e - s];
                }
            }
        }
        base += total;
    }
    for (int size = 2; size <= N; size <<= 1) /* bitonic sort of the N keys, element e = r * 32 + l */
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
            if (stride >= 32) { /* partners in the lane's registers r and r2 = r + stride / 32 (the
                                   registers indexed by unrolled constants only: no local memory) */
#pragma unroll
                for (int r = 0; r < R; r++)
#pragma unroll
                    for (int r2 = r + 1; r2 < R; r2++)
                        if ((r2 - r) * 32 == stride && !(r & (stride >> 5))) {
                            const uint32_t lo = min(key[r], key[r2]), hi = max(key[r], key[r2]);
                            const bool up = ((r * 32 + l) & size) == 0;
                            key[r] = up ? lo : hi, key[r2] = up ? hi : lo;
                        }
                continue;
            }
#pragma unroll
            for (int r = 0; r < R; r++) {
                const int e = r * 32 + l;
                const uint32_t p = __shfl_xor_sync(F, key[r], stride);
                const bool keep_min = ((e & stride) == 0) == ((e & size) == 0);
                key[r] = keep_min ? min(key[r], p) : max(key[r], p);
            }
        }
    uint32_t col[R];
    V sum[R];
    bool last[R];
#pragma unroll
    for (int r = 0; r < R; r++) { /* each sorted key's value, from its place e */
        const int src = (int)(key[r] & (uint32_t)(N - 1));
        V v = V(0);
#pragma unroll
        for (int r2 = 0; r2 < R; r2++) {
            const V got = __shfl_sync(F, val[r2], src & 31);
            if ((src >> 5) == r2) v = got;
        }
        col[r] = key[r] >> KB; /* empty: spx_gpu_warp_max_cols(R) + 1, no column's */
        sum[r] = key[r] == EMPTY ? V(0) : v;
    }
#pragma unroll
    for (int r = 0; r < R; r++) { /* last[e]: e ends its column's run (the empty ones too) */
        const uint32_t down = __shfl_down_sync(F, col[r], 1), wrap = __shfl_sync(F, col[r + 1 < R ? r + 1 : r], 0);
        last[r] = l < 31 ? down != col[r] : r == R - 1 || wrap != col[r];
    }
    for (int d = 1; d < N; d <<= 1) { /* segmented suffix sums: each run's total at its first */
        V s_old[R];
        bool f_old[R];
#pragma unroll
        for (int r = 0; r < R; r++) s_old[r] = sum[r], f_old[r] = last[r];
        if (d < 32) { /* element e + d: lane (l + d) & 31, register r or r + 1 */
            const int src = (l + d) & 31;
            const bool near = l + d < 32;
            V s_sh[R];
            bool f_sh[R];
#pragma unroll
            for (int r = 0; r < R; r++)
                s_sh[r] = __shfl_sync(F, s_old[r], src), f_sh[r] = __shfl_sync(F, (int)f_old[r], src);
#pragma unroll
            for (int r = 0; r < R; r++) { /* an open run ends within the N elements: r + 1 < R */
                const int r1 = r + 1 < R ? r + 1 : r;
                if (!last[r] && (near || r + 1 < R))
                    sum[r] += near ? s_sh[r] : s_sh[r1], last[r] = near ? f_sh[r] : f_sh[r1];
            }
        } else { /* element e + d: the same lane, register r2 = r + d / 32 */
#pragma unroll
            for (int r = 0; r < R; r++)
#pragma unroll
                for (int r2 = r + 1; r2 < R; r2++)
                    if ((r2 - r) * 32 == d && !last[r]) sum[r] += s_old[r2], last[r] = f_old[r2];
        }
    }
    unsigned heads[R];
    bool head[R];
#pragma unroll
    for (int r = 0; r < R; r++) { /* a run's first: its element's column differs from the one before */
        const uint32_t up = __shfl_up_sync(F, col[r], 1), wrap = __shfl_sync(F, col[r > 0 ? r - 1 : 0], 31);
        const uint32_t before = l > 0 ? up : wrap;
        head[r] = key[r] != EMPTY && ((l == 0 && r == 0) || before != col[r]);
        heads[r] = __ballot_sync(F, head[r]);
    }
    int64_t before = 0; /* the heads of the registers before r */
#pragma unroll
    for (int r = 0; r < R; r++) {
        const int64_t at = before + __popc(heads[r] & ((1u << l) - 1u));
        if (head[r] && at < len) cci[out + at] = (int32_t)col[r], cv[out + at] = sum[r];
        before += __popc(heads[r]);
    }
    return true;
}

/* Writes a row's columns, marked in bits[0..words) (bit c of the row: column lo + c), in column
 * order into C at out (at most len of them), each with value_of(c). Called by lanes
 * 0..readers-1 of a row group (readers = min(group, 32): whole warps, or whole groups within
 * one warp, every group of a warp reading alike); a word a lane and round, each word's place
 * from a warp scan of the words' populations. */
template <typename V, typename F>
__device__ __forceinline__ void spx_gpu_bits_write(const uint32_t *bits, int words, int32_t lo, int lane, int readers,
                                                   bool active, int64_t out, int64_t len, int32_t *__restrict__ cci,
                                                   V *__restrict__ cv, F value_of)
{
    const unsigned lanes = spx_gpu_warp_lanes();
    int64_t at = 0; /* the row's entries before this round */
    for (int w0 = 0; w0 < words; w0 += readers) {
        const int w = w0 + lane;
        uint32_t b = w < words ? bits[w] : 0u;
        int incl = __popc(b);
        for (int d = 1; d < readers; d <<= 1) {
            const int t = __shfl_up_sync(lanes, incl, d, readers);
            if (lane >= d) incl += t;
        }
        const int total = __shfl_sync(lanes, incl, readers - 1, readers);
        for (int64_t q = at + incl - __popc(b); b; b &= b - 1u, q++) {
            const int c = w * 32 + __ffs((int)b) - 1;
            if (active && q < len) {
                cci[out + q] = lo + c;
                cv[out + q] = value_of(c);
            }
        }
        at += total;
    }
}

/* Rows rows[0..nrows) of C, a group of `group` lanes per row with a table of `slots` slots
 * (a power of two) in shared memory; blockDim.x = groups * group. Within a group, lanes
 * lane / sub take A's entries and lanes lane % sub stride B's row. SYMBOLIC (NUMERIC false):
 * counts[i] = the row's distinct columns. NUMERIC: the row's columns and sums written to C
 * at crow[i], sorted (by rank in small tables, else spx_spgemm_sort_table); with WARP 2 or 4
 * (groups of whole warps, slots <= SPX_GPU_WARP_MAX_SLOTS) a row of at most 32 WARP products is
 * done by its group's first warp in registers (spx_spgemm_warp_row), without the table. WARP is a
 * template argument, not a flag: compiled into every launch, the warp path's registers made
 * the table path slower (H200, poisson3d n=100 numeric 1.33 ms as a template, 1.67 ms as a
 * flag, in two runs on machines of the same kind). BITS (numeric, WARP 0): each row's columns
 * lie in [range[i].x, range[i].x + slots * SPX_GPU_BITMAP_COLS_PER_SLOT); a column new to the
 * table sets its bit in the group's bitmap of that range, and the row is read out from the bits
 * in column order (spx_gpu_bits_write), each value looked up in the table: no sort. Dynamic
 * shared memory: groups * (slots * (sizeof(V) if NUMERIC + 4) + 4 + bitmap bytes) bytes. */
template <bool NUMERIC, typename V, int WARP, bool BITS>
__global__ void __launch_bounds__(SPX_GPU_MAX_BLOCK, WARP ? 1 : SPX_GPU_TABLE_MIN_BLOCKS)
    spx_spgemm_rows_kernel(const int32_t *__restrict__ arp, const int32_t *__restrict__ aci, const V *__restrict__ av,
                           const int32_t *__restrict__ brp, const int32_t *__restrict__ bci, const V *__restrict__ bv,
                           const int2 *__restrict__ range, const int32_t *__restrict__ rows, int32_t nrows, int group,
                           int sub, int slots, int64_t *__restrict__ counts, const int64_t *__restrict__ crow,
                           int32_t *__restrict__ cci, V *__restrict__ cv)
{
    static_assert(!BITS || (NUMERIC && WARP == 0), "bitmap read-out: numeric tables only");
    extern __shared__ __align__(16) unsigned char spx_spgemm_smem[];
    const int groups = blockDim.x / group;
    const int g = threadIdx.x / group, lane = threadIdx.x % group;
    V *vals = (V *)spx_spgemm_smem; /* groups * slots values (NUMERIC only) */
    int32_t *keys = (int32_t *)(spx_spgemm_smem + (NUMERIC ? (size_t)groups * slots * sizeof(V) : 0));
    int *found = (int *)(keys + (size_t)groups * slots); /* one counter per group */
    const int words = BITS ? slots * (SPX_GPU_BITMAP_COLS_PER_SLOT / 32) : 0; /* a group's bitmap words */
    uint32_t *mybits = (uint32_t *)(found + groups) + (size_t)g * words;   /* BITS only */
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
        for (int w = lane; w < words; w += group) mybits[w] = 0u;
        if (lane == 0) found[g] = 0;
        __syncthreads();
        if (NUMERIC && WARP) { /* the group's first warp tries the row in registers */
            if (active && lane < 32) {
                const int32_t i = rows[r];
                const bool done = spx_spgemm_warp_row<V, WARP ? WARP : 2>(i, arp, aci, av, brp, bci, bv, crow[i],
                                                                           crow[i + 1] - crow[i], cci, cv);
                if (lane == 0 && done) found[g] = 1;
            }
            __syncthreads();
        }
        const bool done = NUMERIC && WARP && found[g]; /* numeric: found[g] marks a row done */
        if (active && !done) {
            const int32_t i = rows[r];
            const int32_t lo = BITS ? range[i].x : 0;
            int fresh = 0;
            for (int32_t qa = arp[i] + lane / sub; qa < arp[i + 1]; qa += per) {
                const int32_t k = aci[qa];
                const V a = NUMERIC ? av[qa] : V(0);
                for (int32_t qb = brp[k] + lane % sub; qb < brp[k + 1]; qb += sub) {
                    const int32_t j = bci[qb];
                    const int added = spx_spgemm_hash_insert<NUMERIC, V>(mykeys, myvals, mask, j, NUMERIC ? a * bv[qb] : V(0));
                    if (BITS && added) atomicOr(mybits + ((j - lo) >> 5), 1u << ((j - lo) & 31));
                    fresh += added;
                }
            }
            if (!NUMERIC && fresh) atomicAdd(found + g, fresh);
        }
        __syncthreads();
        if (!NUMERIC && active && lane == 0) counts[rows[r]] = found[g];
        if (BITS) { /* the columns in order from the bitmap, each value from the table */
            const int readers = group < 32 ? group : 32;
            if (lane < readers) {
                const int32_t i = active ? rows[r] : 0, lo = active ? range[i].x : 0;
                const int64_t out = active ? crow[i] : 0, len = active ? crow[i + 1] - crow[i] : 0;
                spx_gpu_bits_write(mybits, words, lo, lane, readers, active, out, len, cci, cv,
                                   [&](int c) { return myvals[spx_spgemm_hash_find(mykeys, mask, lo + c)]; });
            }
        } else if (NUMERIC && slots <= SPX_GPU_RANK_SORT_MAX_SLOTS) { /* small tables: each key's rank */
            if (active && !done) {
                const int32_t i = rows[r];
                const int64_t out = crow[i], end = crow[i + 1];
                /* a lane's slots in batches of SPX_GPU_RANK_KEYS (one batch when the group has
                 * slots / SPX_GPU_RANK_KEYS lanes or more): their keys in registers, then one pass
                 * over the table (the group's lanes read the same slot: one broadcast a slot) */
                for (int s0 = lane; s0 < slots; s0 += SPX_GPU_RANK_KEYS * group) {
                    uint32_t key[SPX_GPU_RANK_KEYS];
                    int rank[SPX_GPU_RANK_KEYS];
#pragma unroll
                    for (int u = 0; u < SPX_GPU_RANK_KEYS; u++) {
                        const int s = s0 + u * group;
                        key[u] = s < slots ? (uint32_t)mykeys[s] : 0xffffffffu; /* empty: -1 */
                        rank[u] = 0;
                    }
                    for (int t = 0; t < slots; t++) {
                        const uint32_t kt = (uint32_t)mykeys[t];
#pragma unroll
                        for (int u = 0; u < SPX_GPU_RANK_KEYS; u++) rank[u] += kt < key[u];
                    }
#pragma unroll
                    for (int u = 0; u < SPX_GPU_RANK_KEYS; u++)
                        if (key[u] != 0xffffffffu && out + rank[u] < end) {
                            cci[out + rank[u]] = (int32_t)key[u];
                            cv[out + rank[u]] = myvals[s0 + u * group];
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

/* Shared bytes of one row group's span table of `cols` columns (a multiple of 32): the values
 * (NUMERIC: vbytes each), a bit a column, the group's counter. */
__host__ __device__ __forceinline__ size_t spx_gpu_span_group_bytes(int64_t cols, int vbytes)
{
    return (size_t)cols * (size_t)vbytes + (size_t)cols / 8 + sizeof(int);
}

/* Rows rows[0..nrows) whose columns lie in [range[i].x, range[i].x + cols), a group of `group`
 * lanes per row with a span table in shared memory: a bit a column and, NUMERIC, a value a
 * column, indexed by column - range[i].x. Within a group, lanes lane / sub take A's entries and
 * lanes lane % sub stride B's row (as spx_spgemm_rows_kernel). SYMBOLIC: counts[i] = the bits
 * newly set. NUMERIC: the row read out in column order by the group's first min(group, 32)
 * lanes, a 32-column word a lane and round (its place in C from a scan of the words'
 * populations), the columns and sums written to C at crow[i]; no sort. blockDim.x = groups *
 * group; dynamic shared memory groups * spx_gpu_span_group_bytes(cols, NUMERIC ? sizeof(V) : 0). */
template <bool NUMERIC, typename V>
__global__ void __launch_bounds__(SPX_GPU_MAX_BLOCK)
    spx_spgemm_span_kernel(const int32_t *__restrict__ arp, const int32_t *__restrict__ aci, const V *__restrict__ av,
                           const int32_t *__restrict__ brp, const int32_t *__restrict__ bci, const V *__restrict__ bv,
                           const int2 *__restrict__ range, const int32_t *__restrict__ rows, int32_t nrows, int group,
                           int sub, int cols, int64_t *__restrict__ counts, const int64_t *__restrict__ crow,
                           int32_t *__restrict__ cci, V *__restrict__ cv)
{
    extern __shared__ __align__(16) unsigned char spx_spgemm_smem[];
    const int groups = blockDim.x / group;
    const int g = threadIdx.x / group, lane = threadIdx.x % group, words = cols >> 5;
    V *myvals = (V *)spx_spgemm_smem + (size_t)g * cols; /* NUMERIC only */
    uint32_t *bits = (uint32_t *)(spx_spgemm_smem + (NUMERIC ? (size_t)groups * cols * sizeof(V) : 0));
    uint32_t *mybits = bits + (size_t)g * words;
    int *found = (int *)(bits + (size_t)groups * words); /* one counter per group */
    const int per = group / sub;
    const int readers = group < 32 ? group : 32; /* NUMERIC: the lanes that read a row out */
    for (int64_t base = (int64_t)blockIdx.x * groups; base < nrows; base += (int64_t)gridDim.x * groups) {
        const int64_t r = base + g;
        const bool active = r < nrows;
        for (int w = lane; w < words; w += group) mybits[w] = 0;
        if (NUMERIC)
            for (int c = lane; c < cols; c += group) myvals[c] = V(0);
        if (lane == 0) found[g] = 0;
        __syncthreads();
        const int32_t i = active ? rows[r] : 0;
        const int32_t lo = active ? range[i].x : 0;
        if (active) {
            int fresh = 0;
            for (int32_t qa = arp[i] + lane / sub; qa < arp[i + 1]; qa += per) {
                const int32_t k = aci[qa];
                const V a = NUMERIC ? av[qa] : V(0);
                for (int32_t qb = brp[k] + lane % sub; qb < brp[k + 1]; qb += sub) {
                    const int32_t c = bci[qb] - lo;
                    const uint32_t bit = 1u << (c & 31);
                    if (NUMERIC) {
                        atomicAdd(myvals + c, a * bv[qb]);
                        atomicOr(mybits + (c >> 5), bit);
                    } else {
                        fresh += !(atomicOr(mybits + (c >> 5), bit) & bit);
                    }
                }
            }
            if (!NUMERIC && fresh) atomicAdd(found + g, fresh);
        }
        __syncthreads();
        if (!NUMERIC) {
            if (active && lane == 0) counts[i] = found[g];
        } else if (lane < readers) {
            const int64_t out = active ? crow[i] : 0, len = active ? crow[i + 1] - crow[i] : 0;
            spx_gpu_bits_write(mybits, words, lo, lane, readers, active, out, len, cci, cv,
                               [&](int c) { return myvals[c]; });
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

/* The dense fallback's block scan (its storage is reserved beside the dynamic shared memory). */
typedef cub::BlockScan<int, SPX_GPU_DENSE_BLOCK> spx_gpu_dense_scan_t;

/* The dense fallback's static shared memory beside its scan: the queue of long B rows, its
 * length, the row's count, the row taken. */
typedef struct spx_gpu_dense_shared {
    int32_t queue[SPX_GPU_DENSE_QUEUE];
    int queued;
    unsigned int found;
    int64_t row;
} spx_gpu_dense_shared;

/* Calls visit(qa, qb) once for every product of A's entries [first, last) (A entry qa, B entry
 * qb; a row, or a chunk of one) whose B row has at most skip_b entries (INT32_MAX: every
 * product; the dense panels' rows skip B's dense rows: spx_dense_panel.h): A's entries in
 * rounds of SPX_GPU_DENSE_QUEUE, groups of `sub` lanes taking one each and striding its B row,
 * except B rows longer than SPX_GPU_DENSE_LONG_B, which are queued and walked by the whole
 * block after the round (a long B row left to `sub` lanes is a serial tail: R-MAT's and the
 * power-law matrix's hubs). Every thread of the block calls it, sh->queued 0; ends with a
 * barrier. visit(qa, qb) takes int32 positions (nnz(A), nnz(B) < 2^31). */
template <typename F>
__device__ __forceinline__ void spx_gpu_dense_walk_range(const int32_t *__restrict__ aci,
                                                         const int32_t *__restrict__ brp, int64_t first, int64_t last,
                                                         int sub, int32_t skip_b, spx_gpu_dense_shared *sh, F visit)
{
    const int g = threadIdx.x / sub, groups = blockDim.x / sub, lane = threadIdx.x % sub;
    for (int64_t start = first; start < last; start += SPX_GPU_DENSE_QUEUE) { /* int64: steps past nnz(A) */
        const int64_t stop = last - start < SPX_GPU_DENSE_QUEUE ? last : start + SPX_GPU_DENSE_QUEUE;
        /* SPX_GPU_BOUNDS_UNROLL A entries a group at once: their B rows' bounds loaded side by
         * side (a row of 816k A entries is otherwise one dependent chain of loads a group) */
        for (int64_t qa0 = start + g; qa0 < stop; qa0 += (int64_t)groups * SPX_GPU_BOUNDS_UNROLL) {
            int32_t b0[SPX_GPU_BOUNDS_UNROLL], b1[SPX_GPU_BOUNDS_UNROLL];
#pragma unroll
            for (int u = 0; u < SPX_GPU_BOUNDS_UNROLL; u++) {
                const int64_t qa = qa0 + (int64_t)u * groups;
                const int32_t k = qa < stop ? aci[qa] : -1;
                b0[u] = k >= 0 ? brp[k] : 0;
                b1[u] = k >= 0 ? brp[k + 1] : 0;
            }
#pragma unroll
            for (int u = 0; u < SPX_GPU_BOUNDS_UNROLL; u++) {
                const int32_t qa = (int32_t)(qa0 + (int64_t)u * groups); /* < stop when its bounds are set */
                if (b1[u] - b0[u] > skip_b) continue;
                if (b1[u] - b0[u] > SPX_GPU_DENSE_LONG_B) {
                    if (lane == 0) sh->queue[atomicAdd(&sh->queued, 1)] = qa;
                    continue;
                }
                for (int32_t qb = b0[u] + lane; qb < b1[u]; qb += sub) visit(qa, qb);
            }
        }
        __syncthreads();
        const int nq = sh->queued;
        __syncthreads(); /* everyone has read the length */
        if (threadIdx.x == 0) sh->queued = 0;
        for (int t = 0; t < nq; t++) {
            const int32_t qa = sh->queue[t], k = aci[qa];
            for (int32_t qb = brp[k] + (int32_t)threadIdx.x; qb < brp[k + 1]; qb += (int32_t)blockDim.x) visit(qa, qb);
        }
        __syncthreads(); /* the queue is read before the next round fills it */
    }
    __syncthreads(); /* the end is a barrier even for a row without A entries */
}

/* Marks column j in a bitmap of 64-bit words (shared or global memory), bit j & 63 of word
 * j >> 6: with SPX_GPU_DENSE_MARK32 a 32-bit atomicOr on the half of the word that holds it
 * (little-endian), else a 64-bit one. */
__device__ __forceinline__ void spx_gpu_bitmap_mark(unsigned long long *bits, int32_t j)
{
#if SPX_GPU_DENSE_MARK32
    atomicOr((unsigned int *)bits + (j >> 5), 1u << (j & 31));
#else
    atomicOr(bits + (j >> 6), 1ull << (j & 63));
#endif
}

/* Column j's place in a row read out of a bitmap: its word's rank plus the bits below it. */
__device__ __forceinline__ int spx_gpu_bitmap_place(const unsigned long long *bits, const int32_t *rank, int32_t j)
{
    return rank[j >> 6] + __popcll(bits[j >> 6] & ((1ull << (j & 63)) - 1ull));
}

/* Writes word w's columns (its bits b, in order) into C's row at out, from place at on (places
 * at len and past dropped), their values zeroed. */
template <typename V>
__device__ __forceinline__ void spx_gpu_bitmap_write_word(int w, unsigned long long b, int at, int64_t out, int64_t len,
                                                          int32_t *__restrict__ cci, V *__restrict__ cv)
{
    for (; b; b &= b - 1, at++)
        if (at < len) {
            cci[out + at] = w * 64 + __ffsll((long long)b) - 1;
            cv[out + at] = V(0);
        }
}

/* spx_gpu_dense_walk_range over the whole of row i. */
template <typename F>
__device__ __forceinline__ void spx_gpu_dense_walk(const int32_t *__restrict__ arp, const int32_t *__restrict__ aci,
                                                   const int32_t *__restrict__ brp, int32_t i, int sub, int32_t skip_b,
                                                   spx_gpu_dense_shared *sh, F visit)
{
    spx_gpu_dense_walk_range(aci, brp, arp[i], arp[i + 1], sub, skip_b, sh, visit);
}

/* The B rows whose products row i of A leaves to the dense panels: those longer than b_min
 * when i is a panel row (panel_pos[i] >= 0), else none (INT32_MAX); NULL: no panels. */
__device__ __forceinline__ int32_t spx_gpu_panel_skip(const int32_t *__restrict__ panel_pos, int32_t i, int32_t b_min)
{
    return panel_pos && panel_pos[i] >= 0 ? b_min : INT32_MAX;
}

/* The dense fallback: blocks take rows rows[0..nrows) by a ticket (*ticket 0 at launch); a
 * row's columns are marked in a bitmap of n bits in shared memory (words = ceil(n / 64) 64-bit
 * words, dynamic), each of the row's products read once (spx_gpu_dense_walk). SYMBOLIC
 * (NUMERIC false): counts[i] = the marked bits. NUMERIC: a block scan of the words'
 * populations gives each word's first place in C's row (rank[], words int32 beside the
 * bitmap), the columns are written in order from the bitmap with their values zeroed, then
 * the products are read again and each added (global atomicAdd) at its column's place: the
 * rank of its word plus the bits below it. No accumulator beyond shared memory and C itself.
 * Rows of more than split entries of A are skipped: they are split over blocks
 * (spx_spgemm_split_*). The dense panels' rows (panel_pos[i] >= 0; NULL: no panels) leave out
 * of the sums the products of B rows of more than b_min entries (G has them:
 * spx_dense_panel.h), not of the marking (C's structure). Dynamic shared memory: words * 8
 * (symbolic) or words * 12 (numeric). */
template <bool NUMERIC, typename V>
__global__ void __launch_bounds__(SPX_GPU_DENSE_BLOCK)
    spx_spgemm_dense_kernel(const int32_t *__restrict__ arp, const int32_t *__restrict__ aci, const V *__restrict__ av,
                            const int32_t *__restrict__ brp, const int32_t *__restrict__ bci, const V *__restrict__ bv,
                            const int32_t *__restrict__ rows, int32_t nrows, int32_t n, int sub, int32_t split,
                            const int32_t *__restrict__ panel_pos, int32_t b_min, unsigned int *__restrict__ ticket,
                            int64_t *__restrict__ counts,
                            const int64_t *__restrict__ crow, int32_t *__restrict__ cci, V *__restrict__ cv)
{
    extern __shared__ __align__(16) unsigned char spx_spgemm_smem[];
    __shared__ typename spx_gpu_dense_scan_t::TempStorage scan_tmp;
    __shared__ spx_gpu_dense_shared sh;
    unsigned long long *bits = (unsigned long long *)spx_spgemm_smem;
    const int words = (int)(((int64_t)n + 63) >> 6), per = (words + (int)blockDim.x - 1) / (int)blockDim.x;
    int32_t *rank = (int32_t *)(bits + words); /* NUMERIC: the row's columns before word w */
    const int w0 = (int)threadIdx.x * per, w1 = w0 + per < words ? w0 + per : words;
    if (threadIdx.x == 0) sh.queued = 0;
    for (;;) {
        if (threadIdx.x == 0) {
            sh.row = (int64_t)atomicAdd(ticket, 1u);
            sh.found = 0;
        }
        for (int w = threadIdx.x; w < words; w += blockDim.x) bits[w] = 0;
        __syncthreads();
        const int64_t r = sh.row;
        if (r >= nrows) return;
        const int32_t i = rows[r];
        if (arp[i + 1] - arp[i] > split) { /* the same in every thread */
            __syncthreads(); /* sh is read before thread 0 takes the next row */
            continue;
        }
        spx_gpu_dense_walk(arp, aci, brp, i, sub, INT32_MAX, &sh,
                           [&](int32_t qa, int32_t qb) { spx_gpu_bitmap_mark(bits, bci[qb]); });
        int mine = 0;
        for (int w = w0; w < w1; w++) mine += __popcll(bits[w]);
        if (!NUMERIC) {
            if (mine) atomicAdd(&sh.found, (unsigned int)mine);
            __syncthreads();
            if (threadIdx.x == 0) counts[i] = (int64_t)sh.found;
            __syncthreads(); /* sh is read before thread 0 takes the next row */
            continue;
        }
        int pos = 0;
        spx_gpu_dense_scan_t(scan_tmp).ExclusiveSum(mine, pos);
        for (int w = w0; w < w1; w++) {
            rank[w] = pos;
            pos += __popcll(bits[w]);
        }
        __syncthreads();
        const int64_t out = crow[i], len = crow[i + 1] - crow[i];
        for (int w = threadIdx.x; w < words; w += blockDim.x) /* neighbouring words, neighbouring places */
            spx_gpu_bitmap_write_word(w, bits[w], rank[w], out, len, cci, cv);
        __syncthreads(); /* the row's values are zero before anyone adds */
        const int32_t skip_b = spx_gpu_panel_skip(panel_pos, i, b_min);
        spx_gpu_dense_walk(arp, aci, brp, i, sub, skip_b, &sh, [&](int32_t qa, int32_t qb) {
            const int at = spx_gpu_bitmap_place(bits, rank, bci[qb]);
            if (at < len) atomicAdd(cv + out + at, av[qa] * bv[qb]);
        });
        /* the walk ended with a barrier: bits, rank and scan_tmp are free for the next row */
    }
}

/* The dense fallback's split rows: a row of more than split entries of A is walked by many
 * blocks, a chunk of SPX_GPU_SPLIT_CHUNK entries each, its columns marked in a bitmap of n
 * bits in global memory (bits), then counted (symbolic) or ranked by a device scan of the
 * words' populations, written in order and summed into C in place (numeric), as the dense
 * kernel does in shared memory for one block. The power-law matrix's hub row (816k entries,
 * 6.5M products, 1M columns) was one block's work. */

/* list[0..*count) = (row, entries of A) of the rows of rows[0..nrows) with more than split
 * entries of A (any order; at most cap are kept, which nnz(A) / split + 1 always is). */
__global__ void __launch_bounds__(SPX_GPU_ANALYSE_BLOCK)
    spx_spgemm_split_select_kernel(const int32_t *__restrict__ rows, int32_t nrows, const int32_t *__restrict__ arp,
                                   int32_t split, int2 *__restrict__ list, unsigned int cap,
                                   unsigned int *__restrict__ count)
{
    for (int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; r < nrows; r += (int64_t)gridDim.x * blockDim.x) {
        const int32_t i = rows[r], len = arp[i + 1] - arp[i];
        if (len > split) {
            const unsigned int slot = atomicAdd(count, 1u);
            if (slot < cap) list[slot] = make_int2(i, len);
        }
    }
}

/* spx_gpu_dense_walk_range over block b's chunk of row i's A entries (SPX_GPU_SPLIT_CHUNK of
 * them from arp[i] + b * SPX_GPU_SPLIT_CHUNK on), B rows longer than skip_b left out. Every
 * thread of the block calls it. */
template <typename F>
__device__ __forceinline__ void spx_gpu_split_walk(const int32_t *__restrict__ arp, const int32_t *__restrict__ aci,
                                                   const int32_t *__restrict__ brp, int32_t i, int sub, int32_t skip_b,
                                                   F visit)
{
    __shared__ spx_gpu_dense_shared sh;
    if (threadIdx.x == 0) sh.queued = 0;
    __syncthreads();
    const int64_t first = arp[i] + (int64_t)blockIdx.x * SPX_GPU_SPLIT_CHUNK;
    const int64_t last = first + SPX_GPU_SPLIT_CHUNK < arp[i + 1] ? first + SPX_GPU_SPLIT_CHUNK : arp[i + 1];
    spx_gpu_dense_walk_range(aci, brp, first, last, sub, skip_b, &sh, visit);
}

/* The split rows' hot columns (SPX_GPU_HOT_COLS): hot[j] is column j's slot, -1 when it is not
 * hot; cols[s] the column of slot s; n slots (0: none, and hot is not read). */
typedef struct spx_gpu_hot {
    const int32_t *hot, *cols;
    int n;
} spx_gpu_hot;

/* Column j's hot slot, -1 when it is not hot. */
__device__ __forceinline__ int spx_gpu_hot_slot(spx_gpu_hot h, int32_t j) { return h.n ? h.hot[j] : -1; }

/* cnt[bci[q]] += 1 for every stride-th entry q of B's nnz (cnt zeroed before): sampled column
 * counts. */
__global__ void __launch_bounds__(SPX_GPU_ANALYSE_BLOCK)
    spx_spgemm_hot_count_kernel(int64_t nnz, const int32_t *__restrict__ bci, int stride, int32_t *__restrict__ cnt)
{
    for (int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; s * stride < nnz; s += (int64_t)gridDim.x * blockDim.x)
        atomicAdd(cnt + bci[s * stride], 1);
}

/* In place over map[0..n): a column of more than min sampled entries gets the next slot (the
 * count hands them out; columns past cap slots stay cold) and its column in cols; every other
 * column -1. */
__global__ void __launch_bounds__(SPX_GPU_ANALYSE_BLOCK)
    spx_spgemm_hot_list_kernel(int32_t n, int32_t min, int cap, int32_t *__restrict__ map, int32_t *__restrict__ cols,
                               unsigned int *__restrict__ count)
{
    for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += (int64_t)gridDim.x * blockDim.x) {
        int32_t slot = -1;
        if (map[j] > min) {
            const unsigned int at = atomicAdd(count, 1u);
            if (at < (unsigned int)cap) slot = (int32_t)at, cols[at] = (int32_t)j;
        }
        map[j] = slot;
    }
}

/* Marks in bits (n bits, zeroed) the columns of the products of block b's chunk of row i's A
 * entries (spx_gpu_bitmap_mark); a hot column is flagged in shared memory and marked once by
 * the block. Dynamic shared memory: h.n ints. */
__global__ void __launch_bounds__(SPX_GPU_DENSE_BLOCK)
    spx_spgemm_split_mark_kernel(const int32_t *__restrict__ arp, const int32_t *__restrict__ aci,
                                 const int32_t *__restrict__ brp, const int32_t *__restrict__ bci, int32_t i, int sub,
                                 spx_gpu_hot h, unsigned long long *__restrict__ bits)
{
    extern __shared__ __align__(16) unsigned char spx_spgemm_smem[];
    int *seen = (int *)spx_spgemm_smem;
    for (int c = threadIdx.x; c < h.n; c += blockDim.x) seen[c] = 0;
    /* the walk starts and ends with a barrier */
    spx_gpu_split_walk(arp, aci, brp, i, sub, INT32_MAX, [&](int32_t qa, int32_t qb) {
        const int32_t j = bci[qb];
        const int slot = spx_gpu_hot_slot(h, j);
        if (slot >= 0) seen[slot] = 1;
        else spx_gpu_bitmap_mark(bits, j);
    });
    for (int c = threadIdx.x; c < h.n; c += blockDim.x)
        if (seen[c]) spx_gpu_bitmap_mark(bits, h.cols[c]);
}

/* counts[i] += the bits set in bits[0..words) (counts[i] zero before). */
__global__ void __launch_bounds__(SPX_GPU_ANALYSE_BLOCK)
    spx_spgemm_split_count_kernel(const unsigned long long *__restrict__ bits, int words, int32_t i,
                                  int64_t *__restrict__ counts)
{
    unsigned long long mine = 0;
    for (int w = blockIdx.x * blockDim.x + threadIdx.x; w < words; w += gridDim.x * blockDim.x) mine += __popcll(bits[w]);
    for (int off = 16; off > 0; off >>= 1) mine += __shfl_xor_sync(SPX_GPU_FULL_WARP, mine, off);
    if ((threadIdx.x & 31) == 0 && mine) atomicAdd((unsigned long long *)(counts + i), mine);
}

/* pop[w] = the bits set in bits[w], w < words. */
__global__ void __launch_bounds__(SPX_GPU_ANALYSE_BLOCK)
    spx_spgemm_split_pop_kernel(const unsigned long long *__restrict__ bits, int words, int32_t *__restrict__ pop)
{
    for (int w = blockIdx.x * blockDim.x + threadIdx.x; w < words; w += gridDim.x * blockDim.x) pop[w] = __popcll(bits[w]);
}

/* Row i of C from its bitmap: each word's columns written in order from its rank (the exclusive
 * scan of the populations), their values zeroed. */
template <typename V>
__global__ void __launch_bounds__(SPX_GPU_ANALYSE_BLOCK)
    spx_spgemm_split_columns_kernel(const unsigned long long *__restrict__ bits, const int32_t *__restrict__ rank,
                                    int words, int32_t i, const int64_t *__restrict__ crow, int32_t *__restrict__ cci,
                                    V *__restrict__ cv)
{
    const int64_t out = crow[i], len = crow[i + 1] - crow[i];
    for (int w = blockIdx.x * blockDim.x + threadIdx.x; w < words; w += gridDim.x * blockDim.x)
        spx_gpu_bitmap_write_word(w, bits[w], rank[w], out, len, cci, cv);
}

/* Adds the products of block b's chunk of row i's A entries into C at their columns' places
 * (the word's rank plus the bits below; global atomicAdd), those of B rows longer than skip_b
 * left out (the dense panels' G has them); a hot column's products summed in shared memory
 * first and added once by the block. Dynamic shared memory: h.n values and h.n ints. */
template <typename V>
__global__ void __launch_bounds__(SPX_GPU_DENSE_BLOCK)
    spx_spgemm_split_add_kernel(const int32_t *__restrict__ arp, const int32_t *__restrict__ aci, const V *__restrict__ av,
                                const int32_t *__restrict__ brp, const int32_t *__restrict__ bci, const V *__restrict__ bv,
                                int32_t i, int sub, const int32_t *__restrict__ panel_pos, int32_t b_min,
                                spx_gpu_hot h,
                                const unsigned long long *__restrict__ bits, const int32_t *__restrict__ rank,
                                const int64_t *__restrict__ crow, V *__restrict__ cv)
{
    extern __shared__ __align__(16) unsigned char spx_spgemm_smem[];
    V *sum = (V *)spx_spgemm_smem;
    int *seen = (int *)(sum + h.n);
    for (int c = threadIdx.x; c < h.n; c += blockDim.x) sum[c] = V(0), seen[c] = 0;
    const int64_t out = crow[i], len = crow[i + 1] - crow[i];
    /* the walk starts and ends with a barrier */
    spx_gpu_split_walk(arp, aci, brp, i, sub, spx_gpu_panel_skip(panel_pos, i, b_min), [&](int32_t qa, int32_t qb) {
        const int32_t j = bci[qb];
        const int slot = spx_gpu_hot_slot(h, j);
        const V p = av[qa] * bv[qb];
        if (slot >= 0) {
            atomicAdd(sum + slot, p);
            seen[slot] = 1;
            return;
        }
        const int at = spx_gpu_bitmap_place(bits, rank, j);
        if (at < len) atomicAdd(cv + out + at, p);
    });
    for (int c = threadIdx.x; c < h.n; c += blockDim.x)
        if (seen[c]) {
            const int at = spx_gpu_bitmap_place(bits, rank, h.cols[c]);
            if (at < len) atomicAdd(cv + out + at, sum[c]);
        }
}

#endif
