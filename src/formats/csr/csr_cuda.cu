/* src/formats/csr/csr_cuda.cu: the csr format on the GPU: the kernel family (scalar, vector,
 * adaptive, merge-path, nzsplit, stream, colblock; sliced in csr_sliced_cuda.cu), the
 * plan-time GPU preprocessing each needs, the launchers. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cub/block/block_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "cuda/gateway.h"
#include "cuda/primitives.cuh"
#include "cuda/runtime.cuh"
#include "formats/csr/csr.h"
#include "formats/csr/csr_cuda.h"
#include "formats/csr/csr_cuda_tuning.h"
#include "formats/csr/csr_sliced_cuda.h"
#include "formats/csr/csr_spmm_cuda.h"
#include "formats/csr/csr_spmm_shape.h"
#include "formats/csr/csr_stream_blocks.h"
#include "formats/csr/csr_tuning.h"
#include "spmv/format.h"

/* Every kernel accumulates in fp64, fp32 values too: Hopper runs fp64 at half the fp32 rate,
 * far above what a memory-bound SpMV needs (1 FMA per 8-12 bytes), and fp32 results then
 * carry one rounding instead of one per nonzero. */
typedef double acc_t;

/* Adaptive bins: lane groups of 1/2/4/8/16 for short rows, a warp, a block, split rows. */
enum { BIN_G1, BIN_G2, BIN_G4, BIN_G8, BIN_G16, BIN_WARP, BIN_BLOCK, BIN_HUGE, N_BINS };
static const char *const bin_names[N_BINS] = {"g1", "g2", "g4", "g8", "g16", "warp", "block", "huge"};

/* The csr format's GPU state (plan-owned): the arrays and each algorithm's plan-time data. */
typedef struct csr_dev {
    int32_t m, n, nnz;
    spx_precision prec;
    spx_csr_algo algo;
    int32_t *rowptr, *colind; /* m + 1, nnz */
    void *val;                /* nnz floats or doubles */
    int group;                /* vector: lanes per row */
    int32_t *rows;            /* adaptive: row ids grouped by bin, ascending within a bin */
    int64_t bin_off[N_BINS + 1];
    int2 *chunks; /* adaptive: (row, first nonzero) of each HUGE_CHUNK piece of a huge row */
    int32_t n_chunks;
    int2 *tiles; /* merge: merge-path coordinates (rows done, nonzeros done) of tile starts */
    int32_t n_tiles;
    int32_t *carry_row; /* merge: each tile's carry-out row (-1: none) and partial sum */
    acc_t *carry_val;
    int32_t *warp_row; /* nzsplit: row of each warp's first nonzero (n_warps + 1) */
    int32_t n_warps;
    int32_t *prep_rows; /* nzsplit: rows set to b*y before the split kernel (empty or split) */
    int32_t n_prep;
    int4 *blocks;        /* stream: (first row, end row, first nonzero, kind) of each block */
    int32_t n_blocks;
    int32_t stream_nnz;  /* stream: the nonzero budget of a block of rows */
    int2 *splits;        /* stream: (first partial slot, chunks) of each row split over blocks */
    int32_t *split_done; /* stream: chunks finished per split row (the last resets it to 0) */
    acc_t *partials;     /* stream: one partial sum per chunk of a split row */
    int32_t cb_cols;     /* colblock: columns a block (W) */
    int32_t cb_blocks;   /* colblock: column blocks (ceil(n / W)) */
    int32_t cb_smem;     /* colblock: 1 when a W-column x segment goes to shared memory */
    int32_t *cb_off;     /* colblock: m x (cb_blocks + 1) entry offsets, row r's first entry at
                            or after each column block's first column, then rowptr[r + 1] */
    acc_t *cb_part;      /* colblock: m x cb_blocks partial sums (cb_blocks > 1) */
    spx_csr_sliced sl;   /* sliced: the slice layout (csr_sliced_cuda.h) */
    double row_mean;     /* SpMM: the row statistics its shapes follow (csr_spmm_shape.h) */
    int64_t row_max;
    spx_csr_spmm_pieces mm; /* SpMM: the long rows' pieces, listed on first use */
    char kernel[64];
} csr_dev;

namespace {

/* One SpMV's operands as the kernels see them (passed by value). */
template <typename VT>
struct spmv_view {
    int32_t m, nnz;
    const int32_t *rowptr, *colind;
    const VT *val, *x;
    VT *y;
    acc_t a, b;
    bool read_y; /* b != 0: y is read (BLAS rule: b == 0 never reads y) */
};

/* val[k] * x[colind[k]] through the read-only path. */
template <typename VT>
__device__ __forceinline__ acc_t nz_prod(const spmv_view<VT> &v, int64_t k)
{
    return (acc_t)spx_ld_stream(v.val + k) * (acc_t)__ldg(v.x + spx_ld_stream(v.colind + k));
}

/* y[row] = a*sum + b*y[row] (b*y only when y may be read). */
template <typename VT>
__device__ __forceinline__ void put_y(const spmv_view<VT> &v, int32_t row, acc_t sum)
{
    acc_t r = v.a * sum;
    if (v.read_y) r += v.b * (acc_t)v.y[row];
    v.y[row] = (VT)r;
}

/* The adaptive bin of a row of len nonzeros: the narrowest lane group that gives each lane at
 * most NZ_PER_LANE nonzeros, then a warp, a block, split. */
__host__ __device__ __forceinline__ int bin_of(int32_t len)
{
    constexpr int L = SPX_CSR_CUDA_NZ_PER_LANE;
    if (len <= L) return BIN_G1;
    if (len <= 2 * L) return BIN_G2;
    if (len <= 4 * L) return BIN_G4;
    if (len <= 8 * L) return BIN_G8;
    if (len <= 16 * L) return BIN_G16;
    if (len <= SPX_CSR_CUDA_ADAPT_WARP_MAX) return BIN_WARP;
    if (len <= SPX_CSR_CUDA_ADAPT_HUGE_MIN) return BIN_BLOCK;
    return BIN_HUGE;
}

/* ---- SpMV kernels ------------------------------------------------------------------------ */

/* scalar: one thread a row. */
template <typename VT>
__global__ void __launch_bounds__(SPX_CSR_CUDA_SCALAR_BLOCK) csr_scalar_kernel(spmv_view<VT> v)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= v.m) return;
    const int32_t e = __ldg(v.rowptr + i + 1);
    acc_t sum = 0;
#pragma unroll 4
    for (int32_t k = __ldg(v.rowptr + i); k < e; k++) sum += nz_prod(v, k);
    put_y(v, (int32_t)i, sum);
}

/* vector and adaptive short/warp bins: G lanes a row (32/G rows a warp), strided coalesced
 * loads, a shuffle tree. Rows are 0..nrows-1, or rows[0..nrows) when LIST. No thread leaves
 * before the shuffles, so the full-warp masks hold. */
template <typename VT, int G, bool LIST, int BLOCK>
__global__ void __launch_bounds__(BLOCK) csr_group_kernel(spmv_view<VT> v, const int32_t *__restrict__ rows,
                                                          int64_t nrows)
{
    const int64_t idx = ((int64_t)blockIdx.x * BLOCK + threadIdx.x) / G;
    const int lane = threadIdx.x & (G - 1);
    const bool active = idx < nrows;
    int32_t row = 0;
    acc_t sum = 0;
    if (active) {
        row = LIST ? __ldg(rows + idx) : (int32_t)idx;
        const int64_t e = __ldg(v.rowptr + row + 1);
#pragma unroll 4
        for (int64_t k = (int64_t)__ldg(v.rowptr + row) + lane; k < e; k += G) sum += nz_prod(v, k);
    }
    sum = spx_group_sum<G>(sum);
    if (active && lane == 0) put_y(v, row, sum);
}

/* adaptive long bin: one block a row, a block-wide shuffle tree. */
template <typename VT>
__global__ void __launch_bounds__(SPX_CSR_CUDA_ADAPT_BLOCK) csr_block_row_kernel(spmv_view<VT> v,
                                                                                const int32_t *__restrict__ rows)
{
    const int32_t row = __ldg(rows + blockIdx.x);
    const int64_t e = __ldg(v.rowptr + row + 1);
    acc_t sum = 0;
    for (int64_t k = (int64_t)__ldg(v.rowptr + row) + threadIdx.x; k < e; k += SPX_CSR_CUDA_ADAPT_BLOCK)
        sum += nz_prod(v, k);
    sum = spx_block_sum<SPX_CSR_CUDA_ADAPT_BLOCK>(sum);
    if (threadIdx.x == 0) put_y(v, row, sum);
}

/* adaptive huge bin: one block a chunk of a huge row; the block's sum goes into y with an
 * atomicAdd (y[row] was set to b*y by csr_prep_rows_kernel before this launch). */
template <typename VT>
__global__ void __launch_bounds__(SPX_CSR_CUDA_ADAPT_BLOCK) csr_huge_chunk_kernel(spmv_view<VT> v,
                                                                                 const int2 *__restrict__ chunks)
{
    const int2 c = chunks[blockIdx.x];
    const int64_t row_end = __ldg(v.rowptr + c.x + 1);
    const int64_t e = min((int64_t)c.y + SPX_CSR_CUDA_ADAPT_HUGE_CHUNK, row_end);
    acc_t sum = 0;
    for (int64_t k = (int64_t)c.y + threadIdx.x; k < e; k += SPX_CSR_CUDA_ADAPT_BLOCK) sum += nz_prod(v, k);
    sum = spx_block_sum<SPX_CSR_CUDA_ADAPT_BLOCK>(sum);
    if (threadIdx.x == 0) atomicAdd(v.y + c.x, (VT)(v.a * sum));
}

/* y[rows[i]] = b*y (0 when b == 0): the rows other kernels then add into atomically. */
template <typename VT>
__global__ void __launch_bounds__(SPX_CSR_CUDA_AUX_BLOCK)
    csr_prep_rows_kernel(int32_t n, const int32_t *__restrict__ rows, VT *__restrict__ y, acc_t b, bool read_y)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const int32_t r = __ldg(rows + i);
        y[r] = read_y ? (VT)(b * (acc_t)y[r]) : VT(0);
    }
}

/* merge: the carry of a thread (its partial sum after its last completed row) and whether it
 * completed a row (a segment head), combined by the segmented-sum operator. */
struct seg_pair {
    acc_t val;
    int head;
};
struct seg_op {
    __device__ __forceinline__ seg_pair operator()(const seg_pair &p, const seg_pair &q) const
    {
        seg_pair r;
        r.head = p.head | q.head;
        r.val = q.head ? q.val : p.val + q.val;
        return r;
    }
};

/* merge (Merrill & Garland SC'16): a tile of BLOCK*IPT items of the merge of row ends and
 * nonzeros, starting at the plan-time coordinate tiles[blockIdx.x]. The tile's products and
 * row ends are staged in shared memory with coalesced loads; each thread searches its own
 * start on the tile's path and consumes IPT items. A row completed by a thread gets the
 * carries of the threads before it in the tile through a block-wide segmented scan; the
 * tile's own carry-out (the row still open at its end) is left for csr_merge_fixup_kernel. */
template <typename VT>
__global__ void __launch_bounds__(SPX_CSR_CUDA_MERGE_BLOCK, SPX_CSR_CUDA_MERGE_MIN_BLOCKS)
    csr_merge_kernel(spmv_view<VT> v, const int2 *__restrict__ tiles, int32_t *__restrict__ carry_row,
                     acc_t *__restrict__ carry_val)
{
    constexpr int BLOCK = SPX_CSR_CUDA_MERGE_BLOCK, IPT = SPX_CSR_CUDA_MERGE_IPT, TILE = BLOCK * IPT;
    typedef cub::BlockScan<seg_pair, BLOCK, cub::BLOCK_SCAN_WARP_SCANS> scan_t; /* shuffles, as CUB's SpMV */
    __shared__ acc_t s_prod[TILE];
    __shared__ int32_t s_end[TILE];
    __shared__ typename scan_t::TempStorage s_scan;

    const int tid = threadIdx.x;
    const int2 c0 = tiles[blockIdx.x], c1 = tiles[blockIdx.x + 1];
    const int n_rows = c1.x - c0.x, n_nz = c1.y - c0.y, items = n_rows + n_nz; /* items <= TILE */
    { /* staging, unrolled so that every load of the tile is in flight at once */
        int32_t col[IPT];
        VT val[IPT];
#pragma unroll
        for (int it = 0; it < IPT; it++) {
            const int i = tid + it * BLOCK;
            col[it] = i < n_nz ? spx_ld_stream(v.colind + c0.y + i) : 0;
            val[it] = i < n_nz ? spx_ld_stream(v.val + c0.y + i) : VT(0);
            if (i < n_rows) s_end[i] = __ldg(v.rowptr + c0.x + 1 + i);
        }
#pragma unroll
        for (int it = 0; it < IPT; it++) {
            const int i = tid + it * BLOCK;
            if (i < n_nz) s_prod[i] = (acc_t)val[it] * (acc_t)__ldg(v.x + col[it]);
        }
    }
    __syncthreads();

    const int d0 = min(tid * IPT, items), d1 = min(d0 + IPT, items);
    int tx = spx_merge_path_search<const int32_t *, int>(d0, s_end, n_rows, n_nz, c0.y);
    int ty = d0 - tx;
    const int32_t first_row = c0.x + tx;
    acc_t run = 0, first = 0;
    bool completed = false;
    for (int d = d0; d < d1; d++) {
        if (tx < n_rows && (ty >= n_nz || s_end[tx] <= c0.y + ty)) { /* row end: the row is done */
            if (completed)
                put_y(v, c0.x + tx, run);
            else
                first = run; /* written once the carry-in from earlier threads is known */
            completed = true;
            run = 0;
            tx++;
        } else {
            run += s_prod[ty++];
        }
    }
    seg_pair in, ex;
    in.val = run;
    in.head = completed ? 1 : 0;
    seg_pair zero;
    zero.val = 0;
    zero.head = 0;
    scan_t(s_scan).ExclusiveScan(in, ex, zero, seg_op());
    if (completed) put_y(v, first_row, first + ex.val);
    if (tid == BLOCK - 1) { /* the last thread ends at the tile's end: its inclusive value */
        carry_row[blockIdx.x] = c1.x < v.m ? c1.x : -1;
        carry_val[blockIdx.x] = in.head ? in.val : ex.val + in.val;
    }
}

/* merge fix-up: the tiles' carry-outs added to their rows (written by then). One warp per
 * tile; the warp of the first tile of a run carrying the same row sums the run 32 carries at
 * a time (a row spanning T tiles costs T/32 steps) in a fixed order: deterministic, no atomics. */
template <typename VT>
__global__ void __launch_bounds__(SPX_CSR_CUDA_AUX_BLOCK)
    csr_merge_fixup_kernel(spmv_view<VT> v, int32_t n_tiles, const int32_t *__restrict__ carry_row,
                           const acc_t *__restrict__ carry_val)
{
    const int lane = threadIdx.x & 31;
    const int64_t t = ((int64_t)blockIdx.x * SPX_CSR_CUDA_AUX_BLOCK + threadIdx.x) >> 5;
    if (t >= n_tiles) return; /* whole warps leave together */
    const int32_t r = carry_row[t];
    if (r < 0 || (t > 0 && carry_row[t - 1] == r)) return; /* not a run's first tile (warp-uniform) */
    acc_t sum = 0;
    for (int64_t base = t; base < n_tiles; base += 32) { /* runs are contiguous: rows ascend */
        const int64_t u = base + lane;
        const bool same = u < n_tiles && carry_row[u] == r;
        if (same) sum += carry_val[u];
        if (__ballot_sync(SPX_FULL_MASK, same) != SPX_FULL_MASK) break; /* the run ended here */
    }
    sum = spx_group_sum<32>(sum);
    if (lane == 0) v.y[r] = (VT)((acc_t)v.y[r] + v.a * sum);
}

/* nzsplit: a row's sum leaves the warp; rows shared with a neighbouring warp go in by atomicAdd
 * (prepared to b*y beforehand), the others are written whole. */
template <typename VT>
__device__ __forceinline__ void nz_emit(const spmv_view<VT> &v, int32_t row, acc_t sum, int32_t shared_first,
                                        int32_t shared_last)
{
    if (row == shared_first || row == shared_last)
        atomicAdd(v.y + row, (VT)(v.a * sum));
    else
        put_y(v, row, sum);
}

/* nzsplit: warp w owns nonzeros [w*32K, (w+1)*32K), read in K coalesced rounds of 32. Each lane
 * finds its nonzero's row (monotone search from its previous row, bounded by the next warp's
 * first row); a keyed shuffle scan sums each row's run within the round; a row still open at
 * lane 31 is carried to the next round. */
template <typename VT>
__global__ void __launch_bounds__(SPX_CSR_CUDA_NZSPLIT_BLOCK)
    csr_nzsplit_kernel(spmv_view<VT> v, int32_t n_warps, const int32_t *__restrict__ warp_row)
{
    constexpr int K = SPX_CSR_CUDA_NZSPLIT_K, CHUNK = 32 * K;
    const int lane = threadIdx.x & 31;
    const int64_t w = ((int64_t)blockIdx.x * SPX_CSR_CUDA_NZSPLIT_BLOCK + threadIdx.x) >> 5;
    if (w >= n_warps) return; /* whole warps leave together */
    const int64_t beg = w * CHUNK, end = min(beg + CHUNK, (int64_t)v.nnz);
    const int32_t lo = __ldg(warp_row + w), hi = __ldg(warp_row + w + 1);
    const int32_t shared_first = (int64_t)__ldg(v.rowptr + lo) < beg ? lo : -1;
    const int32_t shared_last = end < v.nnz ? hi : -1;
    acc_t p[K]; /* all K products first: every load of the warp's chunk in flight at once */
    {
        int32_t col[K];
        VT val[K];
#pragma unroll
        for (int j = 0; j < K; j++) {
            const int64_t k = beg + (int64_t)j * 32 + lane;
            col[j] = k < end ? spx_ld_stream(v.colind + k) : 0;
            val[j] = k < end ? spx_ld_stream(v.val + k) : VT(0);
        }
#pragma unroll
        for (int j = 0; j < K; j++) p[j] = beg + (int64_t)j * 32 + lane < end ? (acc_t)val[j] * (acc_t)__ldg(v.x + col[j]) : 0;
    }
    int32_t r = lo, carry_row = -1;
    acc_t carry = 0;
#pragma unroll
    for (int j = 0; j < K; j++) {
        const int64_t base = beg + (int64_t)j * 32;
        if (base >= end) break; /* warp-uniform */
        const int64_t k = base + lane;
        int32_t row = INT32_MAX; /* past the end: a segment of its own, never emitted */
        if (k < end) {
            r = spx_row_of(v.rowptr, r, hi, k);
            row = r;
        }
        acc_t s = spx_warp_segscan(p[j], row);
        const int32_t next = __shfl_down_sync(SPX_FULL_MASK, row, 1);
        const int32_t row0 = __shfl_sync(SPX_FULL_MASK, row, 0); /* lane 0 is always in range */
        if (carry_row >= 0) {
            if (carry_row == row0) {
                if (row == row0) s += carry; /* the open row continues in this round */
            } else if (lane == 0) {
                nz_emit(v, carry_row, carry, shared_first, shared_last); /* it ended last round */
            }
        }
        if (lane < 31 && next != row && row != INT32_MAX) nz_emit(v, row, s, shared_first, shared_last);
        carry_row = __shfl_sync(SPX_FULL_MASK, row, 31);
        carry = __shfl_sync(SPX_FULL_MASK, s, 31);
        if (carry_row == INT32_MAX) carry_row = -1;
    }
    if (carry_row >= 0 && lane == 0) nz_emit(v, carry_row, carry, shared_first, shared_last);
}

/* ---- plan-time kernels ------------------------------------------------------------------- */

/* adaptive: bins[i] = bin of row i; counts[b] += rows in bin b (block histogram first). */
__global__ void __launch_bounds__(SPX_CSR_CUDA_AUX_BLOCK)
    csr_classify_kernel(int32_t m, const int32_t *__restrict__ rowptr, uint8_t *__restrict__ bins,
                        unsigned long long *__restrict__ counts)
{
    __shared__ unsigned int hist[N_BINS];
    if (threadIdx.x < N_BINS) hist[threadIdx.x] = 0;
    __syncthreads();
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += (int64_t)gridDim.x * blockDim.x) {
        const int b = bin_of(rowptr[i + 1] - rowptr[i]);
        bins[i] = (uint8_t)b;
        atomicAdd(&hist[b], 1u);
    }
    __syncthreads();
    if (threadIdx.x < N_BINS && hist[threadIdx.x]) atomicAdd(counts + threadIdx.x, (unsigned long long)hist[threadIdx.x]);
}

/* adaptive: selects the rows of one bin (DeviceSelect predicate). */
struct bin_is {
    const uint8_t *bins;
    uint8_t bin;
    __device__ __forceinline__ bool operator()(int32_t row) const { return bins[row] == bin; }
};

/* merge: tiles[t] = merge-path coordinate at diagonal t*TILE (clamped to the path's end). */
__global__ void __launch_bounds__(SPX_CSR_CUDA_AUX_BLOCK)
    csr_merge_tiles_kernel(int32_t m, int32_t nnz, int32_t n_tiles, const int32_t *__restrict__ rowptr,
                           int2 *__restrict__ tiles)
{
    constexpr int64_t TILE = (int64_t)SPX_CSR_CUDA_MERGE_BLOCK * SPX_CSR_CUDA_MERGE_IPT;
    const int64_t items = (int64_t)m + nnz;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t <= n_tiles; t += (int64_t)gridDim.x * blockDim.x) {
        const int64_t d = min(t * TILE, items);
        const int64_t x = spx_merge_path_search<const int32_t *, int64_t>(d, rowptr + 1, m, nnz, 0);
        tiles[t] = make_int2((int)x, (int)(d - x));
    }
}

/* nzsplit: warp_row[w] = row of nonzero min(w*32K, nnz-1), for w in [0, n_warps]. */
__global__ void __launch_bounds__(SPX_CSR_CUDA_AUX_BLOCK)
    csr_warp_rows_kernel(int32_t m, int32_t nnz, int32_t n_warps, const int32_t *__restrict__ rowptr,
                         int32_t *__restrict__ warp_row)
{
    constexpr int64_t CHUNK = 32 * SPX_CSR_CUDA_NZSPLIT_K;
    for (int64_t w = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; w <= n_warps; w += (int64_t)gridDim.x * blockDim.x)
        warp_row[w] = spx_row_of(rowptr, 0, m - 1, min(w * CHUNK, (int64_t)nnz - 1));
}

/* nzsplit: flags[i] = 1 for empty rows (no warp writes them), else 0. */
__global__ void __launch_bounds__(SPX_CSR_CUDA_AUX_BLOCK)
    csr_empty_rows_kernel(int32_t m, const int32_t *__restrict__ rowptr, uint8_t *__restrict__ flags)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += (int64_t)gridDim.x * blockDim.x)
        flags[i] = rowptr[i] == rowptr[i + 1] ? 1 : 0;
}

/* nzsplit: flags[r] = 1 for each row that crosses a warp boundary (several warps add into it).
 * A row crossing several boundaries gets the same 1 from each. */
__global__ void __launch_bounds__(SPX_CSR_CUDA_AUX_BLOCK)
    csr_split_rows_kernel(int32_t n_warps, const int32_t *__restrict__ rowptr, const int32_t *__restrict__ warp_row,
                          uint8_t *__restrict__ flags)
{
    constexpr int64_t CHUNK = 32 * SPX_CSR_CUDA_NZSPLIT_K;
    for (int64_t w = 1 + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; w < n_warps; w += (int64_t)gridDim.x * blockDim.x) {
        const int32_t r = warp_row[w];
        if ((int64_t)rowptr[r] < w * CHUNK) flags[r] = 1;
    }
}

/* stream block kinds (the .w of a block): SPX_CSR_STREAM_ROWS, rows staged together, or one
 * chunk of a long row (SPX_CSR_STREAM_LONG: the whole row in one block; >= 0: the index of the
 * row's split, several blocks); csr_stream_blocks.h, shared with the host walk. */

/* stream, a block of short rows: stage the block's products in shared memory (coalesced,
 * STREAM_NNZ / BLOCK loads in flight a thread), then reduce each row from there: one thread
 * a row when rows are many, else the widest power-of-two lane group that covers them. */
template <typename VT, int NNZ>
__device__ __forceinline__ void stream_rows(const spmv_view<VT> &v, int4 blk, acc_t *s_prod)
{
    constexpr int BLOCK = SPX_CSR_CUDA_STREAM_BLOCK;
    const int tid = threadIdx.x;
    static_assert(NNZ % BLOCK == 0, "the staging loop covers NNZ in whole rounds");
    const int32_t rb = blk.x, re = blk.y, nz0 = __ldg(v.rowptr + rb), nzn = __ldg(v.rowptr + re) - nz0;
#pragma unroll
    for (int it = 0; it < NNZ / BLOCK; it++) {
        const int i = tid + it * BLOCK;
        if (i < nzn) s_prod[i] = nz_prod(v, nz0 + i);
    }
    __syncthreads();
    const int32_t nrows = re - rb;
    if (nrows * 2 > BLOCK) { /* many short rows: a thread a row */
        for (int32_t r = tid; r < nrows; r += BLOCK) {
            const int32_t b = __ldg(v.rowptr + rb + r) - nz0, e = __ldg(v.rowptr + rb + r + 1) - nz0;
            acc_t sum = 0;
            for (int32_t k = b; k < e; k++) sum += s_prod[k];
            put_y(v, rb + r, sum);
        }
        return;
    }
    int g = 32; /* lanes a row: the largest power of two <= 32 with g * nrows <= BLOCK */
    while (g > 1 && g * nrows > BLOCK) g >>= 1;
    const int32_t r = tid / g;
    const int lane = tid & (g - 1);
    acc_t sum = 0;
    int32_t b = 0, e = 0;
    if (r < nrows) {
        b = __ldg(v.rowptr + rb + r) - nz0;
        e = __ldg(v.rowptr + rb + r + 1) - nz0;
        for (int32_t k = b + lane; k < e; k += g) sum += s_prod[k];
    }
    for (int off = g / 2; off > 0; off >>= 1) sum += __shfl_xor_sync(SPX_FULL_MASK, sum, off); /* whole warps */
    if (r < nrows && lane == 0) put_y(v, rb + r, sum);
}

/* stream, one chunk of a long row: a block-wide sum; a row in several chunks leaves its
 * partial in its slot and the last chunk to finish adds the slots in order (deterministic). */
template <typename VT>
__device__ __forceinline__ void stream_long(const spmv_view<VT> &v, int4 blk, const int2 *__restrict__ splits,
                                            int32_t *split_done, acc_t *partials)
{
    constexpr int BLOCK = SPX_CSR_CUDA_STREAM_BLOCK, CHUNK = SPX_CSR_CUDA_STREAM_CHUNK;
    const int32_t row = blk.x, row_b = __ldg(v.rowptr + row), row_e = __ldg(v.rowptr + row + 1);
    const int32_t k0 = blk.z, k1 = min(k0 + CHUNK, row_e);
    acc_t sum = 0;
#pragma unroll 4
    for (int32_t k = k0 + (int32_t)threadIdx.x; k < k1; k += BLOCK) sum += nz_prod(v, k);
    sum = spx_block_sum<BLOCK>(sum);
    if (threadIdx.x != 0) return;
    if (blk.w == SPX_CSR_STREAM_LONG) {
        put_y(v, row, sum);
        return;
    }
    const int2 sp = splits[blk.w]; /* (first slot, chunks) */
    partials[sp.x + (k0 - row_b) / CHUNK] = sum;
    __threadfence(); /* the partial is visible before the count says so */
    if (atomicAdd(split_done + blk.w, 1) != sp.y - 1) return;
    __threadfence();
    acc_t total = 0;
    for (int c = 0; c < sp.y; c++) total += __ldcg(partials + sp.x + c); /* from L2, not a stale L1 */
    put_y(v, row, total);
    split_done[blk.w] = 0; /* ready for the next SpMV (launches on one stream do not overlap) */
}

/* stream: one block per plan-time row block of at most NNZ nonzeros. */
template <typename VT, int NNZ>
__global__ void __launch_bounds__(SPX_CSR_CUDA_STREAM_BLOCK)
    csr_stream_kernel(spmv_view<VT> v, const int4 *__restrict__ blocks, const int2 *__restrict__ splits,
                      int32_t *split_done, acc_t *partials)
{
    __shared__ acc_t s_prod[NNZ];
    const int4 blk = blocks[blockIdx.x];
    if (blk.w == SPX_CSR_STREAM_ROWS)
        stream_rows<VT, NNZ>(v, blk, s_prod);
    else
        stream_long(v, blk, splits, split_done, partials);
}

/* colblock: rows [g R, g R + R) of column block b (blockIdx.x = g, blockIdx.y = b), a warp a
 * row; x[c0, c0 + W) copied to shared memory first when SMEM. Row r's entries in block b are
 * off[r stride + b] .. off[r stride + b + 1] (stride nblocks + 1: the plan's table; 1 with one
 * block: the row pointers). A row's sum over the block goes to its partial slot, or straight to
 * y when there is one column block. SMEM needs every row's columns ascending (the plan checks:
 * an unsorted row's range for block b may hold columns outside it); without SMEM any order
 * works, the table's searches still splitting each row into consecutive ranges, one per block. */
template <typename VT, bool SMEM>
__global__ void __launch_bounds__(SPX_CSR_CUDA_COLBLOCK_BLOCK)
    csr_colblock_kernel(spmv_view<VT> v, int32_t n, int32_t cols, int32_t nblocks, const int32_t *__restrict__ off,
                        int32_t stride, acc_t *__restrict__ part)
{
    constexpr int BLOCK = SPX_CSR_CUDA_COLBLOCK_BLOCK, WARPS = BLOCK / 32;
    extern __shared__ __align__(16) unsigned char csr_colblock_smem[];
    VT *xs = reinterpret_cast<VT *>(csr_colblock_smem);
    const int32_t b = (int32_t)blockIdx.y;
    const int64_t c0 = (int64_t)b * cols;
    if (SMEM) {
        const int32_t w = (int32_t)min((int64_t)cols, (int64_t)n - c0);
        for (int32_t i = threadIdx.x; i < w; i += BLOCK) xs[i] = __ldg(v.x + c0 + i);
        __syncthreads();
    }
    const int lane = threadIdx.x & 31;
    const int64_t r_end = min((int64_t)v.m, ((int64_t)blockIdx.x + 1) * SPX_CSR_CUDA_COLBLOCK_ROWS);
    for (int64_t r = (int64_t)blockIdx.x * SPX_CSR_CUDA_COLBLOCK_ROWS + threadIdx.x / 32; r < r_end; r += WARPS) {
        const int32_t *o = off + r * stride + b;
        const int32_t k1 = __ldg(o + 1);
        acc_t sum = 0;
#pragma unroll 4
        for (int32_t k = __ldg(o) + lane; k < k1; k += 32) {
            const int32_t c = spx_ld_stream(v.colind + k);
            const acc_t xv = SMEM ? (acc_t)xs[c - c0] : (acc_t)__ldg(v.x + c);
            sum += (acc_t)spx_ld_stream(v.val + k) * xv;
        }
        sum = spx_group_sum<32>(sum);
        if (lane != 0) continue;
        if (nblocks == 1)
            put_y(v, (int32_t)r, sum);
        else
            part[r * nblocks + b] = sum;
    }
}

/* colblock, several column blocks: y[r] = a * (the row's partial sums added in a fixed order:
 * thread t sums blocks t, t + T, .., then a fixed tree; deterministic) + b*y; T threads a row
 * (32: a warp, or the block). */
template <typename VT, int T>
__global__ void __launch_bounds__(SPX_CSR_CUDA_COLBLOCK_BLOCK)
    csr_colblock_reduce_kernel(spmv_view<VT> v, int32_t nblocks, const acc_t *__restrict__ part)
{
    constexpr int BLOCK = SPX_CSR_CUDA_COLBLOCK_BLOCK;
    static_assert(T == 32 || T == BLOCK, "a warp or the block a row");
    const int64_t r = (int64_t)blockIdx.x * (BLOCK / T) + threadIdx.x / T;
    const int t = threadIdx.x % T;
    acc_t sum = 0;
    if (r < v.m)
        for (int32_t b = t; b < nblocks; b += T) sum += __ldg(part + r * nblocks + b);
    if constexpr (T == 32)
        sum = spx_group_sum<32>(sum);
    else
        sum = spx_block_sum<BLOCK>(sum);
    if (r < v.m && t == 0) put_y(v, (int32_t)r, sum);
}

/* colblock plan: off[r (nblocks + 1) + b] = the first entry of row r whose column is at least
 * b * cols (a binary search in the row's columns; for an unsorted row still non-decreasing in
 * b, each comparison being monotone in the target), rowptr[r + 1] for b = nblocks. */
__global__ void __launch_bounds__(SPX_CSR_CUDA_AUX_BLOCK)
    csr_colblock_table_kernel(int32_t m, int32_t cols, int32_t nblocks, const int32_t *__restrict__ rowptr,
                              const int32_t *__restrict__ colind, int32_t *__restrict__ off)
{
    const int64_t total = (int64_t)m * ((int64_t)nblocks + 1);
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t r = i / ((int64_t)nblocks + 1), b = i % ((int64_t)nblocks + 1);
        int32_t lo = __ldg(rowptr + r), hi = __ldg(rowptr + r + 1);
        const int64_t first = b * cols;
        while (b < nblocks && lo < hi) { /* first k in [lo, hi) with colind[k] >= first */
            const int32_t mid = lo + (hi - lo) / 2;
            if (__ldg(colind + mid) < first)
                lo = mid + 1;
            else
                hi = mid;
        }
        off[i] = hi; /* the search's end (lo == hi), or the row's end for b == nblocks */
    }
}

} /* namespace */

/* ---- plan time (upload + analyse) --------------------------------------------------------- */

/* Grid of a plan-time or preparation kernel over n items. */
static unsigned aux_grid(const spx_ctx *ctx, int64_t n)
{
    return spx_cuda_grid_stride_blocks(ctx, n, SPX_CSR_CUDA_AUX_BLOCK, SPX_CSR_CUDA_AUX_BLOCKS_PER_SM);
}

/* vector: the smallest power of two >= mean / NZ_PER_LANE, clamped to [G_MIN, G_MAX]. */
static int vector_group(double mean)
{
    int g = SPX_CSR_CUDA_VECTOR_G_MIN;
    while (g < SPX_CSR_CUDA_VECTOR_G_MAX && (double)g * SPX_CSR_CUDA_NZ_PER_LANE < mean) g *= 2;
    return g;
}

/* adaptive, huge bin: the chunk table of the huge rows (few: at most nnz / HUGE_MIN), built on
 * the host from the GPU-selected row list and the host row pointers. */
static spx_status build_chunks(spx_ctx *ctx, const spx_csr_fmt *F, csr_dev *d)
{
    const int64_t nh = d->bin_off[BIN_HUGE + 1] - d->bin_off[BIN_HUGE];
    if (nh == 0) return SPX_OK;
    spx_status s = SPX_OK;
    int2 *hc = NULL;
    int32_t *hr = (int32_t *)spx_malloc_array(ctx, (size_t)nh, sizeof *hr);
    if (!hr) return spx_fail_nomem(ctx, "csr adaptive: huge row list");
    int64_t n = 0;
    if ((s = spx_cuda_d2h(ctx, hr, d->rows + d->bin_off[BIN_HUGE], (size_t)nh * sizeof *hr))) goto done;
    for (int64_t i = 0; i < nh; i++) {
        const int64_t len = (int64_t)F->rowptr[hr[i] + 1] - F->rowptr[hr[i]];
        n += (len + SPX_CSR_CUDA_ADAPT_HUGE_CHUNK - 1) / SPX_CSR_CUDA_ADAPT_HUGE_CHUNK;
    }
    hc = (int2 *)spx_malloc_array(ctx, (size_t)n, sizeof *hc);
    if (!hc) {
        s = spx_fail_nomem(ctx, "csr adaptive: chunk table");
        goto done;
    }
    n = 0;
    for (int64_t i = 0; i < nh; i++)
        for (int64_t k = F->rowptr[hr[i]]; k < F->rowptr[hr[i] + 1]; k += SPX_CSR_CUDA_ADAPT_HUGE_CHUNK)
            hc[n++] = make_int2(hr[i], (int)k);
    if ((s = spx_cuda_malloc(ctx, (void **)&d->chunks, (size_t)n * sizeof *hc))) goto done;
    if ((s = spx_cuda_h2d(ctx, d->chunks, hc, (size_t)n * sizeof *hc))) goto done;
    d->n_chunks = (int32_t)n;
done:
    spx_free(ctx, hr);
    spx_free(ctx, hc);
    return s;
}

/* adaptive: classify rows on the GPU, compact each bin's rows (stable), chunk the huge rows. */
static spx_status analyse_adaptive(spx_ctx *ctx, const spx_csr_fmt *F, csr_dev *d)
{
    cudaStream_t st = spx_cuda_stream(ctx);
    const int32_t m = d->m;
    spx_status s = SPX_OK;
    uint8_t *bins = NULL;
    unsigned long long *counts = NULL;
    int64_t *num = NULL;
    void *tmp = NULL;
    size_t tmp_bytes = 0;
    unsigned long long hcount[N_BINS];
    int64_t hnum[N_BINS];
    thrust::counting_iterator<int32_t> ids(0);
    if ((s = spx_cuda_malloc(ctx, (void **)&bins, (size_t)m)) ||
        (s = spx_cuda_malloc(ctx, (void **)&counts, N_BINS * sizeof *counts)) ||
        (s = spx_cuda_malloc(ctx, (void **)&num, N_BINS * sizeof *num)) ||
        (s = spx_cuda_malloc(ctx, (void **)&d->rows, (size_t)m * sizeof(int32_t))))
        goto done;
    SPX_CUDA_GOTO(ctx, s, cudaMemsetAsync(counts, 0, N_BINS * sizeof *counts, st));
    SPX_CUDA_GOTO(ctx, s, cudaMemsetAsync(num, 0, N_BINS * sizeof *num, st));
    csr_classify_kernel<<<aux_grid(ctx, m), SPX_CSR_CUDA_AUX_BLOCK, 0, st>>>(m, d->rowptr, bins, counts);
    SPX_CUDA_LAUNCHED_GOTO(ctx, s, "csr_classify_kernel");
    if ((s = spx_cuda_d2h(ctx, hcount, counts, sizeof hcount))) goto done;
    d->bin_off[0] = 0;
    for (int b = 0; b < N_BINS; b++) d->bin_off[b + 1] = d->bin_off[b] + (int64_t)hcount[b];
    if (d->bin_off[N_BINS] != m) {
        s = spx_fail(ctx, SPX_ERR_CUDA, "csr adaptive: bins hold %lld rows of %d", (long long)d->bin_off[N_BINS], m);
        goto done;
    }
    SPX_CUDA_GOTO(ctx, s, cub::DeviceSelect::If(NULL, tmp_bytes, ids, d->rows, num, m, bin_is{bins, 0}, st));
    if ((s = spx_cuda_malloc(ctx, &tmp, tmp_bytes ? tmp_bytes : 1))) goto done;
    for (int b = 0; b < N_BINS; b++) {
        if (!hcount[b]) continue;
        size_t tb = tmp_bytes;
        SPX_CUDA_GOTO(ctx, s, cub::DeviceSelect::If(tmp, tb, ids, d->rows + d->bin_off[b], num + b, m,
                                                    bin_is{bins, (uint8_t)b}, st));
    }
    if ((s = spx_cuda_d2h(ctx, hnum, num, sizeof hnum))) goto done;
    for (int b = 0; b < N_BINS; b++)
        if (hnum[b] != (int64_t)hcount[b]) {
            s = spx_fail(ctx, SPX_ERR_CUDA, "csr adaptive: bin %s selected %lld rows, counted %llu", bin_names[b],
                         (long long)hnum[b], hcount[b]);
            goto done;
        }
    s = build_chunks(ctx, F, d);
done:
    spx_cuda_free(ctx, bins);
    spx_cuda_free(ctx, counts);
    spx_cuda_free(ctx, num);
    spx_cuda_free(ctx, tmp);
    return s;
}

/* merge: the tiles' start coordinates on the merge path (the matrix is fixed, so the partition
 * search runs once here) and the carry-out slots. */
static spx_status analyse_merge(spx_ctx *ctx, csr_dev *d)
{
    const int64_t tile = (int64_t)SPX_CSR_CUDA_MERGE_BLOCK * SPX_CSR_CUDA_MERGE_IPT;
    const int64_t n_tiles = ((int64_t)d->m + d->nnz + tile - 1) / tile;
    spx_status s;
    d->n_tiles = (int32_t)n_tiles;
    if ((s = spx_cuda_malloc(ctx, (void **)&d->tiles, (size_t)(n_tiles + 1) * sizeof(int2))) ||
        (s = spx_cuda_malloc(ctx, (void **)&d->carry_row, (size_t)n_tiles * sizeof(int32_t))) ||
        (s = spx_cuda_malloc(ctx, (void **)&d->carry_val, (size_t)n_tiles * sizeof(acc_t))))
        return s;
    csr_merge_tiles_kernel<<<aux_grid(ctx, n_tiles + 1), SPX_CSR_CUDA_AUX_BLOCK, 0, spx_cuda_stream(ctx)>>>(
        d->m, d->nnz, d->n_tiles, d->rowptr, d->tiles);
    SPX_CUDA_LAUNCHED(ctx, "csr_merge_tiles_kernel");
    return SPX_OK;
}

/* nzsplit: each warp's first row, and the list of rows to prepare (empty rows and rows that
 * cross a warp boundary), compacted with a flagged select. */
static spx_status analyse_nzsplit(spx_ctx *ctx, csr_dev *d)
{
    cudaStream_t st = spx_cuda_stream(ctx);
    const int64_t chunk = 32 * SPX_CSR_CUDA_NZSPLIT_K;
    const int32_t m = d->m;
    spx_status s = SPX_OK;
    uint8_t *flags = NULL;
    int32_t *list = NULL;
    int64_t *num = NULL, hnum = 0;
    void *tmp = NULL;
    size_t tmp_bytes = 0;
    thrust::counting_iterator<int32_t> ids(0);
    d->n_warps = (int32_t)(((int64_t)d->nnz + chunk - 1) / chunk);
    if ((s = spx_cuda_malloc(ctx, (void **)&d->warp_row, ((size_t)d->n_warps + 1) * sizeof(int32_t))) ||
        (s = spx_cuda_malloc(ctx, (void **)&flags, (size_t)m)) ||
        (s = spx_cuda_malloc(ctx, (void **)&list, (size_t)m * sizeof(int32_t))) ||
        (s = spx_cuda_malloc(ctx, (void **)&num, sizeof *num)))
        goto done;
    csr_warp_rows_kernel<<<aux_grid(ctx, (int64_t)d->n_warps + 1), SPX_CSR_CUDA_AUX_BLOCK, 0, st>>>(
        m, d->nnz, d->n_warps, d->rowptr, d->warp_row);
    SPX_CUDA_LAUNCHED_GOTO(ctx, s, "csr_warp_rows_kernel");
    csr_empty_rows_kernel<<<aux_grid(ctx, m), SPX_CSR_CUDA_AUX_BLOCK, 0, st>>>(m, d->rowptr, flags);
    SPX_CUDA_LAUNCHED_GOTO(ctx, s, "csr_empty_rows_kernel");
    if (d->n_warps > 1) {
        csr_split_rows_kernel<<<aux_grid(ctx, d->n_warps), SPX_CSR_CUDA_AUX_BLOCK, 0, st>>>(d->n_warps, d->rowptr,
                                                                                           d->warp_row, flags);
        SPX_CUDA_LAUNCHED_GOTO(ctx, s, "csr_split_rows_kernel");
    }
    SPX_CUDA_GOTO(ctx, s, cub::DeviceSelect::Flagged(NULL, tmp_bytes, ids, flags, list, num, m, st));
    if ((s = spx_cuda_malloc(ctx, &tmp, tmp_bytes ? tmp_bytes : 1))) goto done;
    SPX_CUDA_GOTO(ctx, s, cub::DeviceSelect::Flagged(tmp, tmp_bytes, ids, flags, list, num, m, st));
    if ((s = spx_cuda_d2h(ctx, &hnum, num, sizeof hnum))) goto done;
    if (hnum < 0 || hnum > m) {
        s = spx_fail(ctx, SPX_ERR_CUDA, "csr nzsplit: %lld rows to prepare of %d", (long long)hnum, m);
        goto done;
    }
    d->n_prep = (int32_t)hnum;
    if (hnum > 0) {
        if ((s = spx_cuda_malloc(ctx, (void **)&d->prep_rows, (size_t)hnum * sizeof(int32_t)))) goto done;
        SPX_CUDA_GOTO(ctx, s, cudaMemcpyAsync(d->prep_rows, list, (size_t)hnum * sizeof(int32_t),
                                              cudaMemcpyDeviceToDevice, st));
    }
done:
    if (list) (void)cudaStreamSynchronize(st); /* the copy out of list ends before list is freed */
    spx_cuda_free(ctx, flags);
    spx_cuda_free(ctx, list);
    spx_cuda_free(ctx, num);
    spx_cuda_free(ctx, tmp);
    return s;
}

/* The host walk's blocks and splits are uploaded as they are: the same layout as int4, int2. */
static_assert(sizeof(spx_csr_stream_block) == sizeof(int4) && offsetof(spx_csr_stream_block, w) == offsetof(int4, w),
              "a host block is an int4");
static_assert(sizeof(spx_csr_stream_split) == sizeof(int2) && offsetof(spx_csr_stream_split, y) == offsetof(int2, y),
              "a host split is an int2");

/* stream: the split rows' completion counters and partial sums for P's splits. */
static spx_status stream_split_slots(spx_ctx *ctx, const spx_csr_stream_plan *P, csr_dev *d)
{
    if (P->n_splits == 0) return SPX_OK;
    spx_status s;
    if ((s = spx_cuda_malloc(ctx, (void **)&d->split_done, (size_t)P->n_splits * sizeof(int32_t))) ||
        (s = spx_cuda_malloc(ctx, (void **)&d->partials, (size_t)P->n_parts * sizeof(acc_t))))
        return s;
    SPX_CUDA_RET(ctx, cudaMemsetAsync(d->split_done, 0, (size_t)P->n_splits * sizeof(int32_t), spx_cuda_stream(ctx)));
    return SPX_OK;
}

/* stream: the blocks of host plan P copied up into d. */
static spx_status stream_upload(spx_ctx *ctx, const spx_csr_stream_plan *P, csr_dev *d)
{
    spx_status s;
    if ((s = spx_cuda_malloc(ctx, (void **)&d->blocks, (size_t)P->n_blocks * sizeof(int4))) ||
        (s = spx_cuda_h2d(ctx, d->blocks, P->blocks, (size_t)P->n_blocks * sizeof(int4))))
        return s;
    if (P->n_splits == 0) return SPX_OK;
    if ((s = spx_cuda_malloc(ctx, (void **)&d->splits, (size_t)P->n_splits * sizeof(int2))) ||
        (s = spx_cuda_h2d(ctx, d->splits, P->splits, (size_t)P->n_splits * sizeof(int2))))
        return s;
    return SPX_OK;
}

/* stream: the nonzeros a block of rows may hold (csr_cuda_tuning.h): skewed rows', or even
 * rows' by how many blocks the matrix makes a SM. */
static int32_t stream_budget(const spx_ctx *ctx, const spx_csr_fmt *F)
{
    if (spx_csr_rows_skewed(F->row_mean, F->row_max, F->row_cv)) return SPX_CSR_CUDA_STREAM_NNZ_SKEWED;
    const spx_cuda_state *st = spx_cuda_state_of(ctx);
    const int64_t sms = st && st->sm_count > 0 ? st->sm_count : 1;
    const int64_t blocks = ((int64_t)F->nnz + SPX_CSR_CUDA_STREAM_NNZ - 1) / SPX_CSR_CUDA_STREAM_NNZ;
    return blocks < SPX_CSR_CUDA_STREAM_MIN_BLOCKS_PER_SM * sms ? SPX_CSR_CUDA_STREAM_NNZ_SMALL : SPX_CSR_CUDA_STREAM_NNZ;
}

/* stream: the plan's block budget, its row blocks and split-row slots, on the device. The
 * blocks are cut where the row pointers are: on the host from F->rowptr when it is set
 * (csr_stream_blocks.c, on the context's threads), else on the device from d->rowptr
 * (csr_stream_cuda.cu); the two give the same blocks. */
static spx_status analyse_stream(spx_ctx *ctx, const spx_csr_fmt *F, csr_dev *d)
{
    const int32_t NNZ = stream_budget(ctx, F);
    d->stream_nnz = NNZ;
    const spx_csr_stream_limits lim = {NNZ, SPX_CSR_CUDA_STREAM_CHUNK, SPX_CSR_CUDA_STREAM_MAX_ROWS};
    const int on_host = F->rowptr != NULL;
    spx_csr_stream_plan P;
    spx_status s = on_host ? spx_csr_stream_blocks(ctx, F->rowptr, F->m, &lim, &P)
                           : spx_csr_stream_blocks_device(ctx, d->rowptr, F->m, &lim, &P);
    if (s) return s;
    if (P.n_blocks > INT32_MAX) {
        s = spx_fail(ctx, SPX_ERR_OVERFLOW, "csr stream: %lld row blocks exceed the grid", (long long)P.n_blocks);
    } else {
        d->n_blocks = (int32_t)P.n_blocks;
        if (on_host) {
            s = stream_upload(ctx, &P, d);
        } else { /* the device arrays become d's */
            d->blocks = (int4 *)P.blocks;
            d->splits = (int2 *)P.splits;
            P.blocks = NULL;
            P.splits = NULL;
        }
    }
    if (!s) s = stream_split_slots(ctx, &P, d);
    if (on_host) {
        spx_csr_stream_plan_free(ctx, &P);
    } else {
        spx_cuda_free(ctx, P.blocks);
        spx_cuda_free(ctx, P.splits);
    }
    return s;
}

/* colblock: the column blocks' width and count (csr_cuda_tuning.h): COLBLOCK_SEGMENT_BYTES of x,
 * wider when m rows x that many blocks would pass the table's bound (with one block at the
 * least: then every row is one warp's, over all columns); the segment in shared memory when
 * it fits COLBLOCK_SMEM_BYTES and, with several blocks, every row is sorted. Then, with several
 * blocks, the offset table on the device and the partial sums. */
static spx_status analyse_colblock(spx_ctx *ctx, csr_dev *d)
{
    const int64_t m = d->m, n = d->n > 0 ? d->n : 1;
    const int64_t cap = (int64_t)d->nnz / SPX_CSR_CUDA_COLBLOCK_TABLE_DIV + SPX_CSR_CUDA_COLBLOCK_TABLE_MIN;
    const int64_t w0 = SPX_CSR_CUDA_COLBLOCK_SEGMENT_BYTES / (int64_t)spx_precision_bytes(d->prec);
    int64_t nb = (n + w0 - 1) / w0;
    if (m * (nb + 1) > cap) nb = cap / m - 1;
    if (nb > 65535) nb = 65535; /* gridDim.y */
    if (nb < 1) nb = 1;
    const int64_t cols = (n + nb - 1) / nb;
    d->cb_cols = (int32_t)cols;
    d->cb_blocks = (int32_t)((n + cols - 1) / cols);
    d->cb_smem = cols * (int64_t)spx_precision_bytes(d->prec) <= SPX_CSR_CUDA_COLBLOCK_SMEM_BYTES;
    if (d->cb_smem && d->cb_blocks > 1) { /* unsorted rows (spx_csr_wrap allows them) read x through L1 */
        const spx_dev_csr view = {d->m, d->n, d->nnz, d->prec, d->rowptr, d->colind, d->val, NULL};
        int unsorted = 0;
        spx_status s = spx_cuda_dev_csr_unsorted(ctx, &view, &unsorted);
        if (s) return s;
        d->cb_smem = !unsorted;
    }
    if (d->cb_blocks == 1) return SPX_OK; /* the row pointers are the table */
    const int64_t entries = m * ((int64_t)d->cb_blocks + 1);
    spx_status s;
    if ((s = spx_cuda_malloc(ctx, (void **)&d->cb_off, (size_t)entries * sizeof(int32_t))) ||
        (s = spx_cuda_malloc(ctx, (void **)&d->cb_part, (size_t)m * (size_t)d->cb_blocks * sizeof(acc_t))))
        return s;
    csr_colblock_table_kernel<<<aux_grid(ctx, entries), SPX_CSR_CUDA_AUX_BLOCK, 0, spx_cuda_stream(ctx)>>>(
        d->m, d->cb_cols, d->cb_blocks, d->rowptr, d->colind, d->cb_off);
    SPX_CUDA_LAUNCHED(ctx, "csr_colblock_table_kernel");
    return SPX_OK;
}

/* The name of the kernel(s) that run, e.g. "csr_vector_g8", "csr_adaptive(g8+warp)". */
static void set_kernel_name(csr_dev *d)
{
    if (d->m == 0 || d->nnz == 0) {
        snprintf(d->kernel, sizeof d->kernel, "csr_empty(y=b*y)");
        return;
    }
    switch (d->algo) {
    case SPX_CSR_SCALAR: snprintf(d->kernel, sizeof d->kernel, "csr_scalar"); break;
    case SPX_CSR_VECTOR: snprintf(d->kernel, sizeof d->kernel, "csr_vector_g%d", d->group); break;
    case SPX_CSR_MERGE:
        snprintf(d->kernel, sizeof d->kernel, "csr_merge_%dx%d", SPX_CSR_CUDA_MERGE_BLOCK, SPX_CSR_CUDA_MERGE_IPT);
        break;
    case SPX_CSR_NZSPLIT: snprintf(d->kernel, sizeof d->kernel, "csr_nzsplit_k%d", SPX_CSR_CUDA_NZSPLIT_K); break;
    case SPX_CSR_STREAM:
        snprintf(d->kernel, sizeof d->kernel, "csr_stream_%dx%d", SPX_CSR_CUDA_STREAM_BLOCK, d->stream_nnz);
        break;
    case SPX_CSR_COLBLOCK:
        snprintf(d->kernel, sizeof d->kernel, "csr_colblock_%s_w%dx%d", d->cb_smem ? "smem" : "l1", d->cb_cols,
                 d->cb_blocks);
        break;
    case SPX_CSR_SLICED: snprintf(d->kernel, sizeof d->kernel, "csr_sliced_l%d", d->sl.lanes); break;
    case SPX_CSR_ADAPTIVE: {
        size_t len = (size_t)snprintf(d->kernel, sizeof d->kernel, "csr_adaptive(");
        const char *sep = "";
        for (int b = 0; b < N_BINS && len < sizeof d->kernel; b++) {
            if (d->bin_off[b + 1] == d->bin_off[b]) continue;
            len += (size_t)snprintf(d->kernel + len, sizeof d->kernel - len, "%s%s", sep, bin_names[b]);
            sep = "+";
        }
        if (len < sizeof d->kernel) snprintf(d->kernel + len, sizeof d->kernel - len, ")");
        break;
    }
    default: snprintf(d->kernel, sizeof d->kernel, "csr_unknown"); break;
    }
}

/* The per-algorithm GPU preprocessing (nothing for scalar and vector). */
static spx_status analyse(spx_ctx *ctx, const spx_csr_fmt *F, csr_dev *d, spx_phase_log *log)
{
    if (d->algo == SPX_CSR_VECTOR) d->group = vector_group(F->row_mean);
    if (d->m == 0 || d->nnz == 0) return SPX_OK;
    if (d->algo == SPX_CSR_SCALAR || d->algo == SPX_CSR_VECTOR) return SPX_OK;
    const double t0 = spx_now();
    spx_status s = d->algo == SPX_CSR_ADAPTIVE ? analyse_adaptive(ctx, F, d)
                   : d->algo == SPX_CSR_MERGE  ? analyse_merge(ctx, d)
                   : d->algo == SPX_CSR_STREAM ? analyse_stream(ctx, F, d)
                   : d->algo == SPX_CSR_COLBLOCK ? analyse_colblock(ctx, d)
                   : d->algo == SPX_CSR_SLICED ? spx_csr_sliced_build(ctx, d->m, d->nnz, d->prec, d->rowptr, d->colind,
                                                                      d->val, &d->sl)
                                               : analyse_nzsplit(ctx, d);
    if (!s) s = spx_cuda_sync(ctx);
    spx_phase_add(log, "analyse", spx_now() - t0);
    return s;
}

static void csr_free(spx_ctx *ctx, void *dev);

/* A GPU state with layout F's shape, precision and algorithm, no arrays yet; NULL (message
 * set) when out of memory. */
static csr_dev *dev_new(spx_ctx *ctx, const spx_csr_fmt *F)
{
    csr_dev *d = (csr_dev *)spx_calloc_array(ctx, 1, sizeof *d);
    if (!d) {
        spx_fail_nomem(ctx, "csr GPU state");
        return NULL;
    }
    d->m = F->m;
    d->n = F->n;
    d->nnz = (int32_t)F->nnz;
    d->prec = F->precision;
    d->algo = F->algo;
    d->row_mean = F->row_mean;
    d->row_max = F->row_max;
    return d;
}

/* After d's arrays are on the device (status s): runs F's analysis and hands d out as *dev,
 * or frees it on any failure. */
static spx_status dev_finish(spx_ctx *ctx, const spx_csr_fmt *F, csr_dev *d, spx_status s, spx_phase_log *log,
                             void **dev)
{
    if (!s) s = analyse(ctx, F, d, log);
    if (s) {
        csr_free(ctx, d);
        return s;
    }
    set_kernel_name(d);
    *dev = d;
    return SPX_OK;
}

/* Uploads the host layout and runs the algorithm's GPU preprocessing. */
static spx_status csr_upload(spx_ctx *ctx, const void *impl, spx_phase_log *log, void **dev)
{
    const spx_csr_fmt *F = (const spx_csr_fmt *)impl;
    if (!ctx || !F || !dev) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "csr upload: NULL argument") : SPX_ERR_ARG;
    if (F->nnz > INT32_MAX || F->m < 0 || F->n < 0)
        return spx_fail(ctx, SPX_ERR_OVERFLOW, "csr upload: %lld nonzeros exceed the int32 range", (long long)F->nnz);
    if (F->algo <= SPX_CSR_AUTO || F->algo >= SPX_CSR_ALGO_COUNT)
        return spx_fail(ctx, SPX_ERR_ARG, "csr upload: algorithm %d not resolved", (int)F->algo);
    spx_status s = spx_cuda_init(ctx);
    if (s) return s;
    csr_dev *d = dev_new(ctx, F);
    if (!d) return SPX_ERR_NOMEM;
    const double t0 = spx_now();
    s = spx_csr_fmt_upload(ctx, F, &d->rowptr, &d->colind, &d->val);
    spx_phase_add(log, "upload", spx_now() - t0);
    return dev_finish(ctx, F, d, s, log, dev);
}

/* Builds on the device from the uploaded CSR: takes its arrays as they are, resolves the
 * algorithm from the features and runs its analysis. No host layout is made (that copy cost
 * more than the upload: 34-47 ms of 62-77 ms on poisson3d n=100, H100, e7efcf9); the
 * analyses that walk the row pointers on the host (adaptive's huge rows; stream's blocks below
 * SPX_CSR_CUDA_STREAM_DEVICE_WALK_ROWS rows, cut on the device above) read a downloaded copy of
 * them (4 bytes a row). */
static spx_status csr_build(spx_ctx *ctx, spx_dev_csr *A, const spx_features *feat, const spx_plan_opts *opts,
                            spx_phase_log *log, void **dev)
{
    if (!ctx || !A || !feat || !dev) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "csr build: NULL argument") : SPX_ERR_ARG;
    if (A->nnz > INT32_MAX)
        return spx_fail(ctx, SPX_ERR_OVERFLOW, "csr: %lld nonzeros exceed the int32 row-pointer range", (long long)A->nnz);
    const int a = spx_csr_algo_resolve(opts ? opts->algo : NULL, A->nnz, feat);
    if (a <= SPX_CSR_AUTO) return spx_fail(ctx, SPX_ERR_ARG, "csr: unknown algorithm '%s'", opts->algo);
    spx_csr_fmt H; /* the analyses' view: shape and row statistics, row pointers if needed */
    memset(&H, 0, sizeof H);
    H.m = A->m;
    H.n = A->n;
    H.nnz = A->nnz;
    H.precision = A->precision;
    H.algo = (spx_csr_algo)a;
    H.row_max = feat->row_max;
    H.row_mean = feat->row_mean;
    H.row_cv = feat->row_cv;
    csr_dev *d = dev_new(ctx, &H);
    if (!d) return SPX_ERR_NOMEM;
    d->rowptr = A->rowptr;
    d->colind = A->colind;
    d->val = A->val;
    A->rowptr = A->colind = NULL;
    A->val = NULL;
    spx_status s = SPX_OK;
    const int stream_on_host = H.algo == SPX_CSR_STREAM && H.m < SPX_CSR_CUDA_STREAM_DEVICE_WALK_ROWS;
    if ((H.algo == SPX_CSR_ADAPTIVE || stream_on_host) && H.m > 0) {
        H.rowptr = (int32_t *)spx_malloc_array(ctx, (size_t)H.m + 1, sizeof *H.rowptr);
        s = H.rowptr ? spx_cuda_d2h(ctx, H.rowptr, d->rowptr, ((size_t)H.m + 1) * sizeof *H.rowptr)
                     : spx_fail_nomem(ctx, "csr build: host row pointers");
    }
    s = dev_finish(ctx, &H, d, s, log, dev);
    spx_free(ctx, H.rowptr);
    return s;
}

/* The resolved algorithm of a plan built on the device. */
static const char *csr_dev_algo(const void *dev) { return spx_csr_algo_names[((const csr_dev *)dev)->algo]; }

/* The minimum bytes of one SpMV with b = 0 (int32 row pointers), as the host layout counts. */
static double csr_dev_bytes(const void *dev)
{
    const csr_dev *d = (const csr_dev *)dev;
    return spx_csr_traffic_bytes(d->m, d->n, d->nnz, (int)spx_precision_bytes(d->prec), 4, 0);
}

/* Frees the GPU state. */
static void csr_free(spx_ctx *ctx, void *dev)
{
    csr_dev *d = (csr_dev *)dev;
    if (!d) return;
    void *bufs[] = {d->rowptr, d->colind, d->val, d->rows, d->chunks, d->tiles,
                    d->carry_row, d->carry_val, d->warp_row, d->prep_rows, d->blocks,
                    d->splits, d->split_done, d->partials, d->cb_off, d->cb_part};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) spx_cuda_free(ctx, bufs[i]);
    spx_csr_sliced_free(ctx, &d->sl);
    spx_csr_spmm_pieces_free(ctx, &d->mm);
    spx_free(ctx, d);
}

/* The kernel the plan runs. */
static const char *csr_kernel(const void *dev)
{
    return dev ? ((const csr_dev *)dev)->kernel : "none";
}

/* The layout on the device back to a host CSR. */
static spx_status csr_dev_to_csr(spx_ctx *ctx, const void *dev, spx_csr **out)
{
    const csr_dev *d = (const csr_dev *)dev;
    spx_dev_csr view = {d->m, d->n, d->nnz, d->prec, d->rowptr, d->colind, d->val, NULL};
    return spx_cuda_dev_csr_download(ctx, &view, out);
}

/* ---- SpMV launchers ------------------------------------------------------------------------ */

/* Rows 0..nrows-1 (or rows[0..nrows)) with G lanes each. */
template <typename VT, int G, bool LIST, int BLOCK>
static spx_status launch_group(spx_ctx *ctx, const spmv_view<VT> &v, const int32_t *rows, int64_t nrows)
{
    if (nrows <= 0) return SPX_OK;
    const unsigned grid = (unsigned)((nrows * G + BLOCK - 1) / BLOCK);
    csr_group_kernel<VT, G, LIST, BLOCK><<<grid, BLOCK, 0, spx_cuda_stream(ctx)>>>(v, rows, nrows);
    SPX_CUDA_LAUNCHED(ctx, "csr_group_kernel");
    return SPX_OK;
}

/* vector: the group width picked at plan time. */
template <typename VT>
static spx_status run_vector(spx_ctx *ctx, const csr_dev *d, const spmv_view<VT> &v)
{
    constexpr int B = SPX_CSR_CUDA_VECTOR_BLOCK;
    switch (d->group) {
    case 2: return launch_group<VT, 2, false, B>(ctx, v, NULL, d->m);
    case 4: return launch_group<VT, 4, false, B>(ctx, v, NULL, d->m);
    case 8: return launch_group<VT, 8, false, B>(ctx, v, NULL, d->m);
    case 16: return launch_group<VT, 16, false, B>(ctx, v, NULL, d->m);
    case 32: return launch_group<VT, 32, false, B>(ctx, v, NULL, d->m);
    default: return spx_fail(ctx, SPX_ERR_ARG, "csr vector: bad group width %d", d->group);
    }
}

/* Sets rows[0..n) of y to b*y (0 when b == 0) before kernels add into them atomically. */
template <typename VT>
static spx_status prep_rows(spx_ctx *ctx, const spmv_view<VT> &v, const int32_t *rows, int64_t n)
{
    if (n <= 0) return SPX_OK;
    csr_prep_rows_kernel<VT><<<aux_grid(ctx, n), SPX_CSR_CUDA_AUX_BLOCK, 0, spx_cuda_stream(ctx)>>>(
        (int32_t)n, rows, v.y, v.b, v.read_y);
    SPX_CUDA_LAUNCHED(ctx, "csr_prep_rows_kernel");
    return SPX_OK;
}

/* adaptive: one launch per non-empty bin (huge rows prepared first). */
template <typename VT>
static spx_status run_adaptive(spx_ctx *ctx, const csr_dev *d, const spmv_view<VT> &v)
{
    constexpr int B = SPX_CSR_CUDA_ADAPT_BLOCK;
    const int64_t *o = d->bin_off;
    cudaStream_t st = spx_cuda_stream(ctx);
    spx_status s;
    if ((s = prep_rows(ctx, v, d->rows + o[BIN_HUGE], o[BIN_HUGE + 1] - o[BIN_HUGE])) ||
        (s = launch_group<VT, 1, true, B>(ctx, v, d->rows + o[BIN_G1], o[BIN_G1 + 1] - o[BIN_G1])) ||
        (s = launch_group<VT, 2, true, B>(ctx, v, d->rows + o[BIN_G2], o[BIN_G2 + 1] - o[BIN_G2])) ||
        (s = launch_group<VT, 4, true, B>(ctx, v, d->rows + o[BIN_G4], o[BIN_G4 + 1] - o[BIN_G4])) ||
        (s = launch_group<VT, 8, true, B>(ctx, v, d->rows + o[BIN_G8], o[BIN_G8 + 1] - o[BIN_G8])) ||
        (s = launch_group<VT, 16, true, B>(ctx, v, d->rows + o[BIN_G16], o[BIN_G16 + 1] - o[BIN_G16])) ||
        (s = launch_group<VT, 32, true, B>(ctx, v, d->rows + o[BIN_WARP], o[BIN_WARP + 1] - o[BIN_WARP])))
        return s;
    const int64_t n_block = o[BIN_BLOCK + 1] - o[BIN_BLOCK];
    if (n_block > 0) {
        csr_block_row_kernel<VT><<<(unsigned)n_block, B, 0, st>>>(v, d->rows + o[BIN_BLOCK]);
        SPX_CUDA_LAUNCHED(ctx, "csr_block_row_kernel");
    }
    if (d->n_chunks > 0) {
        csr_huge_chunk_kernel<VT><<<(unsigned)d->n_chunks, B, 0, st>>>(v, d->chunks);
        SPX_CUDA_LAUNCHED(ctx, "csr_huge_chunk_kernel");
    }
    return SPX_OK;
}

/* merge: the tile kernel, then the carry fix-up. */
template <typename VT>
static spx_status run_merge(spx_ctx *ctx, const csr_dev *d, const spmv_view<VT> &v)
{
    cudaStream_t st = spx_cuda_stream(ctx);
    csr_merge_kernel<VT><<<(unsigned)d->n_tiles, SPX_CSR_CUDA_MERGE_BLOCK, 0, st>>>(v, d->tiles, d->carry_row,
                                                                                   d->carry_val);
    SPX_CUDA_LAUNCHED(ctx, "csr_merge_kernel");
    const unsigned grid = (unsigned)(((int64_t)d->n_tiles * 32 + SPX_CSR_CUDA_AUX_BLOCK - 1) / SPX_CSR_CUDA_AUX_BLOCK);
    csr_merge_fixup_kernel<VT><<<grid, SPX_CSR_CUDA_AUX_BLOCK, 0, st>>>(v, d->n_tiles, d->carry_row, d->carry_val);
    SPX_CUDA_LAUNCHED(ctx, "csr_merge_fixup_kernel");
    return SPX_OK;
}

/* nzsplit: prepare the shared and empty rows, then the split kernel. */
template <typename VT>
static spx_status run_nzsplit(spx_ctx *ctx, const csr_dev *d, const spmv_view<VT> &v)
{
    spx_status s = prep_rows(ctx, v, d->prep_rows, d->n_prep);
    if (s) return s;
    const unsigned grid = (unsigned)(((int64_t)d->n_warps * 32 + SPX_CSR_CUDA_NZSPLIT_BLOCK - 1) / SPX_CSR_CUDA_NZSPLIT_BLOCK);
    csr_nzsplit_kernel<VT><<<grid, SPX_CSR_CUDA_NZSPLIT_BLOCK, 0, spx_cuda_stream(ctx)>>>(v, d->n_warps, d->warp_row);
    SPX_CUDA_LAUNCHED(ctx, "csr_nzsplit_kernel");
    return SPX_OK;
}

/* stream: one launch, the kernel instance of the plan's block budget. */
template <typename VT>
static spx_status run_stream(spx_ctx *ctx, const csr_dev *d, const spmv_view<VT> &v)
{
    const unsigned grid = (unsigned)d->n_blocks;
    cudaStream_t st = spx_cuda_stream(ctx);
    if (d->stream_nnz == SPX_CSR_CUDA_STREAM_NNZ_SKEWED)
        csr_stream_kernel<VT, SPX_CSR_CUDA_STREAM_NNZ_SKEWED><<<grid, SPX_CSR_CUDA_STREAM_BLOCK, 0, st>>>(
            v, d->blocks, d->splits, d->split_done, d->partials);
    else if (d->stream_nnz == SPX_CSR_CUDA_STREAM_NNZ_SMALL)
        csr_stream_kernel<VT, SPX_CSR_CUDA_STREAM_NNZ_SMALL><<<grid, SPX_CSR_CUDA_STREAM_BLOCK, 0, st>>>(
            v, d->blocks, d->splits, d->split_done, d->partials);
    else
        csr_stream_kernel<VT, SPX_CSR_CUDA_STREAM_NNZ><<<grid, SPX_CSR_CUDA_STREAM_BLOCK, 0, st>>>(
            v, d->blocks, d->splits, d->split_done, d->partials);
    SPX_CUDA_LAUNCHED(ctx, "csr_stream_kernel");
    return SPX_OK;
}

/* colblock: the column-block kernel, then (several blocks) the rows' reduction. */
template <typename VT>
static spx_status run_colblock(spx_ctx *ctx, const csr_dev *d, const spmv_view<VT> &v)
{
    constexpr int BLOCK = SPX_CSR_CUDA_COLBLOCK_BLOCK;
    cudaStream_t st = spx_cuda_stream(ctx);
    const dim3 grid((unsigned)(((int64_t)d->m + SPX_CSR_CUDA_COLBLOCK_ROWS - 1) / SPX_CSR_CUDA_COLBLOCK_ROWS),
                    (unsigned)d->cb_blocks);
    const int32_t *off = d->cb_blocks == 1 ? d->rowptr : d->cb_off;
    const int32_t stride = d->cb_blocks == 1 ? 1 : d->cb_blocks + 1;
    if (d->cb_smem)
        csr_colblock_kernel<VT, true><<<grid, BLOCK, (size_t)d->cb_cols * sizeof(VT), st>>>(
            v, d->n, d->cb_cols, d->cb_blocks, off, stride, d->cb_part);
    else
        csr_colblock_kernel<VT, false><<<grid, BLOCK, 0, st>>>(v, d->n, d->cb_cols, d->cb_blocks, off, stride,
                                                             d->cb_part);
    SPX_CUDA_LAUNCHED(ctx, "csr_colblock_kernel");
    if (d->cb_blocks == 1) return SPX_OK;
    if (d->cb_blocks >= SPX_CSR_CUDA_COLBLOCK_BLOCK_REDUCE_MIN)
        csr_colblock_reduce_kernel<VT, BLOCK><<<(unsigned)d->m, BLOCK, 0, st>>>(v, d->cb_blocks, d->cb_part);
    else
        csr_colblock_reduce_kernel<VT, 32><<<(unsigned)(((int64_t)d->m * 32 + BLOCK - 1) / BLOCK), BLOCK, 0, st>>>(
            v, d->cb_blocks, d->cb_part);
    SPX_CUDA_LAUNCHED(ctx, "csr_colblock_reduce_kernel");
    return SPX_OK;
}

/* y = a*A*x + b*y in value type VT. */
template <typename VT>
static spx_status spmv_typed(spx_ctx *ctx, const csr_dev *d, const spx_spmv_args *args)
{
    spmv_view<VT> v;
    v.m = d->m;
    v.nnz = d->nnz;
    v.rowptr = d->rowptr;
    v.colind = d->colind;
    v.val = (const VT *)d->val;
    v.x = (const VT *)args->x;
    v.y = (VT *)args->y;
    v.a = (acc_t)args->alpha;
    v.b = (acc_t)args->beta;
    v.read_y = args->beta != 0.0;
    switch (d->algo) {
    case SPX_CSR_SCALAR: {
        const unsigned grid = (unsigned)(((int64_t)d->m + SPX_CSR_CUDA_SCALAR_BLOCK - 1) / SPX_CSR_CUDA_SCALAR_BLOCK);
        csr_scalar_kernel<VT><<<grid, SPX_CSR_CUDA_SCALAR_BLOCK, 0, spx_cuda_stream(ctx)>>>(v);
        SPX_CUDA_LAUNCHED(ctx, "csr_scalar_kernel");
        return SPX_OK;
    }
    case SPX_CSR_VECTOR: return run_vector(ctx, d, v);
    case SPX_CSR_ADAPTIVE: return run_adaptive(ctx, d, v);
    case SPX_CSR_MERGE: return run_merge(ctx, d, v);
    case SPX_CSR_NZSPLIT: return run_nzsplit(ctx, d, v);
    case SPX_CSR_STREAM: return run_stream(ctx, d, v);
    case SPX_CSR_COLBLOCK: return run_colblock(ctx, d, v);
    case SPX_CSR_SLICED: return spx_csr_sliced_spmv(ctx, &d->sl, d->m, d->prec, args->alpha, args->x, args->beta, args->y);
    default: return spx_fail(ctx, SPX_ERR_ARG, "csr: algorithm %d has no CUDA kernel", (int)d->algo);
    }
}

/* y = a*A*x + b*y with the plan's algorithm, on the context's stream. */
static spx_status csr_spmv(spx_ctx *ctx, void *dev, const spx_spmv_args *args)
{
    const csr_dev *d = (const csr_dev *)dev;
    if (!ctx || !d || !args) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "csr spmv: NULL argument") : SPX_ERR_ARG;
    if (args->precision != d->prec)
        return spx_fail(ctx, SPX_ERR_ARG, "csr spmv: the plan is %s, the call %s", d->prec == SPX_FP32 ? "fp32" : "fp64",
                        args->precision == SPX_FP32 ? "fp32" : "fp64");
    if (d->m == 0) return SPX_OK;
    if (!args->y || (d->nnz > 0 && !args->x)) return spx_fail(ctx, SPX_ERR_ARG, "csr spmv: NULL vector");
    if (d->nnz == 0) return spx_cuda_scale_y(ctx, d->prec, d->m, args->beta, args->y);
    return d->prec == SPX_FP32 ? spmv_typed<float>(ctx, d, args) : spmv_typed<double>(ctx, d, args);
}

/* Y = a*A*X + b*Y on the context's stream: one column-major column through the plan's SpMV
 * kernel (it is a vector wherever ld is), else csr_spmm_cuda.cu's kernels on the same arrays,
 * whatever the SpMV algorithm (csr_spmm_shape.h). */
static spx_status csr_spmm(spx_ctx *ctx, void *dev, const spx_spmm_args *a)
{
    csr_dev *d = (csr_dev *)dev;
    if (!ctx || !d || !a) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "csr spmm: NULL argument") : SPX_ERR_ARG;
    spx_csr_spmm_shape s;
    spx_csr_spmm_shape_of(a->k, a->layout, d->row_mean, d->row_max, &s);
    if (s.kind == SPX_CSR_SPMM_SPMV) {
        const spx_spmv_args v = {a->precision, a->alpha, a->beta, a->x, a->y};
        return csr_spmv(ctx, dev, &v);
    }
    const spx_csr_spmm_mat A = {d->m, d->n, d->nnz, d->prec, d->rowptr, d->colind, d->val, d->row_mean, d->row_max};
    return spx_csr_spmm_cuda(ctx, &A, &d->mm, a);
}

/* The SpMM kernel a call of k columns in layout runs (csr_spmm_shape.c names it). */
static void csr_spmm_kernel(const void *dev, int64_t k, spx_dense_layout layout, char *name, size_t cap)
{
    const csr_dev *d = (const csr_dev *)dev;
    if (d->m == 0 || d->nnz == 0) {
        snprintf(name, cap, "csr_spmm_empty(Y=b*Y)");
        return;
    }
    spx_csr_spmm_shape s;
    spx_csr_spmm_shape_of(k, layout, d->row_mean, d->row_max, &s);
    spx_csr_spmm_shape_name(&s, d->kernel, name, cap);
}

/* The csr format's GPU half (slots in spx_cuda_layout's and spx_cuda_ops' order). */
static const spx_format_cuda csr_cuda = {
    { /* layout */
        csr_upload,     /* upload: a host-built layout (SPX_BUILD_HOST) */
        csr_build,      /* build: on the device, from the uploaded CSR (the default) */
        csr_dev_to_csr, /* to_csr */
        csr_free,       /* free */
        csr_dev_algo,   /* algo_name */
        csr_dev_bytes,  /* bytes_per_spmv */
    },
    {csr_spmv, csr_kernel, csr_spmm, csr_spmm_kernel}, /* ops: spmv, spmv_kernel, spmm, spmm_kernel */
};

extern "C" const spx_format_cuda *spx_csr_cuda(void) { return &csr_cuda; }

extern "C" spx_status spx_csr_cuda_view(const void *dev, spx_dev_csr *out)
{
    const csr_dev *d = (const csr_dev *)dev;
    if (!d || !out) return SPX_ERR_ARG;
    const spx_dev_csr view = {d->m, d->n, d->nnz, d->prec, d->rowptr, d->colind, d->val, NULL};
    *out = view;
    return SPX_OK;
}
