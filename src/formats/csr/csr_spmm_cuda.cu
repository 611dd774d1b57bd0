/* src/formats/csr/csr_spmm_cuda.cu: the csr format's CUDA SpMM, Y = a*A*X + b*Y on the plan's
 * CSR arrays. Row-major X: a row's lanes are groups of g column lanes, each group reading one
 * nonzero's run of k values of X (coalesced), several nonzeros of the row at once, summed over
 * the groups by shuffles. Column-major X: a row's lanes keep its (column, value) pairs in
 * registers and read X a tile of columns at a time, so A is read once for the columns of a
 * chunk. Rows longer than SPX_CSR_CUDA_SPMM_LONG_MIN are set to b*Y by the main kernel and cut
 * into pieces, a warp a piece, added atomically. Shapes: csr_spmm_shape.c. */
#include <stdio.h>

#include "cuda/gateway.h"
#include "cuda/primitives.cuh"
#include "cuda/runtime.cuh"
#include "formats/csr/csr_cuda_tuning.h"
#include "formats/csr/csr_spmm_cuda.h"
#include "formats/csr/csr_spmm_shape.h"

/* Sums in fp64 for fp32 values too, as the SpMV kernels (csr_cuda.cu says why). */
typedef double acc_t;

namespace {

constexpr int BLOCK = SPX_CSR_CUDA_SPMM_BLOCK;
constexpr int COL_R = SPX_CSR_CUDA_SPMM_COL_NZ_PER_LANE, COL_T = SPX_CSR_CUDA_SPMM_COL_TILE;
constexpr int PIECE = SPX_CSR_CUDA_SPMM_LONG_PIECE;
static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "whole warps: a row's lanes never straddle two");
static_assert(SPX_CSR_CUDA_SPMM_ROW_MAX_C == 1 || SPX_CSR_CUDA_SPMM_ROW_MAX_C == 2 || SPX_CSR_CUDA_SPMM_ROW_MAX_C == 4 ||
                  SPX_CSR_CUDA_SPMM_ROW_MAX_C == 8,
              "the row-major launcher instantiates 1, 2, 4 and 8 columns a lane");

/* One SpMM's operands as the kernels see them (passed by value). */
template <typename VT>
struct mm_view {
    int32_t m;
    const int32_t *rowptr, *colind;
    const VT *val, *x;
    VT *y;
    int64_t k, ldx, ldy;
    int64_t cols, chunks; /* columns a chunk of the grid's y, and how many */
    int32_t long_min;     /* rows with more entries go to the pieces (INT32_MAX: none do) */
    acc_t a, b;
    bool read_y; /* b != 0: Y is read (BLAS rule: b == 0 never reads Y) */
};

/* Y's entry (row, j): row-major y[row*ldy + j], column-major y[row + j*ldy]. */
template <bool ROW, typename VT>
__device__ __forceinline__ VT *y_at(const mm_view<VT> &v, int64_t row, int64_t j)
{
    return v.y + (ROW ? row * v.ldy + j : row + j * v.ldy);
}

/* *p = a*sum + b*(*p) (b*(*p) only when Y may be read). */
template <typename VT>
__device__ __forceinline__ void put(const mm_view<VT> &v, VT *p, acc_t sum)
{
    acc_t r = v.a * sum;
    if (v.read_y) r += v.b * (acc_t)*p;
    *p = (VT)r;
}

/* *p = b*(*p), or 0 when b == 0: a long row's entry before its pieces add into it. */
template <typename VT>
__device__ __forceinline__ void prep(const mm_view<VT> &v, VT *p)
{
    *p = v.read_y ? (VT)(v.b * (acc_t)*p) : VT(0);
}

/* The entry range of row r ([*b, *e)), or an empty one for an inactive lane. */
template <typename VT>
__device__ __forceinline__ void row_range(const mm_view<VT> &v, bool active, int64_t r, int32_t *b, int32_t *e)
{
    *b = active ? __ldg(v.rowptr + r) : 0;
    *e = active ? __ldg(v.rowptr + r + 1) : 0;
}

/* ---- row-major X -------------------------------------------------------------------------- */

/* acc[cc] += val * X(col, j0 + cc*g) over the entries b + slot, b + slot + slots, .. < e, for
 * the columns below k: the g lanes of a slot read one nonzero's consecutive values. */
template <typename VT, int C>
__device__ __forceinline__ void row_sum(const mm_view<VT> &v, int32_t b, int32_t e, int slot, int slots, int g,
                                        int64_t j0, acc_t (&acc)[C])
{
#pragma unroll 4
    for (int32_t p = b + slot; p < e; p += slots) {
        const VT *xr = v.x + (int64_t)spx_ld_stream(v.colind + p) * v.ldx;
        const acc_t a = (acc_t)spx_ld_stream(v.val + p);
#pragma unroll
        for (int cc = 0; cc < C; cc++) {
            const int64_t j = j0 + (int64_t)cc * g;
            if (j < v.k) acc[cc] += a * (acc_t)__ldg(xr + j);
        }
    }
}

/* Adds the slots' sums of a row together (xor-shuffles at offsets g .. lanes / 2): every lane
 * of the row gets the total. All 32 lanes of the warp call it. */
template <int C>
__device__ __forceinline__ void slot_sum(acc_t (&acc)[C], int g, int lanes)
{
    for (int off = g; off < lanes; off <<= 1)
#pragma unroll
        for (int cc = 0; cc < C; cc++) acc[cc] += __shfl_xor_sync(SPX_FULL_MASK, acc[cc], off);
}

/* Row-major: 2^lanes_log lanes a row (2^g_log column lanes times the slots), C columns a lane,
 * column chunk blockIdx.y (and every gridDim.y-th after it). A long row is only set to b*Y. No
 * lane leaves before the shuffles. */
template <typename VT, int C>
__global__ void __launch_bounds__(BLOCK) csr_spmm_row_kernel(mm_view<VT> v, int g_log, int lanes_log)
{
    const int g = 1 << g_log, lanes = 1 << lanes_log;
    const int64_t row = ((int64_t)blockIdx.x * BLOCK + threadIdx.x) >> lanes_log;
    const int lane = threadIdx.x & (lanes - 1), cl = lane & (g - 1), slot = lane >> g_log;
    const bool active = row < v.m;
    int32_t b, e;
    row_range(v, active, row, &b, &e);
    const bool split = e - b > v.long_min;
    for (int64_t ch = blockIdx.y; ch < v.chunks; ch += gridDim.y) {
        const int64_t j0 = ch * v.cols + cl;
        acc_t acc[C] = {};
        if (active && !split) row_sum<VT, C>(v, b, e, slot, lanes >> g_log, g, j0, acc);
        slot_sum<C>(acc, g, lanes);
        if (!active || slot != 0) continue;
#pragma unroll
        for (int cc = 0; cc < C; cc++) {
            const int64_t j = j0 + (int64_t)cc * g;
            if (j >= v.k) continue;
            VT *p = y_at<true>(v, row, j);
            if (split)
                prep(v, p);
            else
                put(v, p, acc[cc]);
        }
    }
}

/* Row-major long rows: warp w sums piece w (PIECE entries of a row from pairs[2w + 1]) with
 * 32 / 2^g_log slots and adds a * its sums into the row's Y atomically. */
template <typename VT, int C>
__global__ void __launch_bounds__(BLOCK)
    csr_spmm_row_pieces_kernel(mm_view<VT> v, const int32_t *__restrict__ pairs, int64_t n, int g_log)
{
    const int64_t w = ((int64_t)blockIdx.x * BLOCK + threadIdx.x) >> 5;
    if (w >= n) return; /* whole warps leave together */
    const int g = 1 << g_log, lane = threadIdx.x & 31, cl = lane & (g - 1), slot = lane >> g_log;
    const int32_t row = __ldg(pairs + 2 * w), b = __ldg(pairs + 2 * w + 1);
    const int32_t e = (int32_t)min((int64_t)b + PIECE, (int64_t)__ldg(v.rowptr + row + 1));
    for (int64_t ch = blockIdx.y; ch < v.chunks; ch += gridDim.y) {
        const int64_t j0 = ch * v.cols + cl;
        acc_t acc[C] = {};
        row_sum<VT, C>(v, b, e, slot, 32 >> g_log, g, j0, acc);
        slot_sum<C>(acc, g, 32);
        if (slot != 0) continue;
#pragma unroll
        for (int cc = 0; cc < C; cc++) {
            const int64_t j = j0 + (int64_t)cc * g;
            if (j < v.k) atomicAdd(y_at<true>(v, row, j), (VT)(v.a * acc[cc]));
        }
    }
}

/* ---- column-major X ----------------------------------------------------------------------- */

/* Loads entries b + lane + i*lanes (< e) into the pairs; column -1 where there is none. */
template <typename VT>
__device__ __forceinline__ void col_load(const mm_view<VT> &v, int64_t b, int64_t e, int lane, int lanes,
                                         int32_t (&col)[COL_R], acc_t (&val)[COL_R])
{
#pragma unroll
    for (int i = 0; i < COL_R; i++) {
        const int64_t p = b + lane + (int64_t)i * lanes;
        col[i] = p < e ? spx_ld_stream(v.colind + p) : -1;
        val[i] = p < e ? (acc_t)spx_ld_stream(v.val + p) : acc_t(0);
    }
}

/* acc[t] += val[i] * X(col[i], j0 + t) for the loaded pairs and the columns below je. */
template <typename VT>
__device__ __forceinline__ void col_tile(const mm_view<VT> &v, const int32_t (&col)[COL_R],
                                         const acc_t (&val)[COL_R], int64_t j0, int64_t je, acc_t (&acc)[COL_T])
{
#pragma unroll
    for (int i = 0; i < COL_R; i++) {
        if (col[i] < 0) continue;
        const VT *xc = v.x + col[i] + j0 * v.ldx;
#pragma unroll
        for (int t = 0; t < COL_T; t++)
            if (j0 + t < je) acc[t] += val[i] * (acc_t)__ldg(xc + (int64_t)t * v.ldx);
    }
}

/* col_tile over entries [b, e) of a row, loaded lanes * COL_R at a time (again each tile). */
template <typename VT>
__device__ __forceinline__ void col_range(const mm_view<VT> &v, int64_t b, int64_t e, int lane, int lanes,
                                          int64_t j0, int64_t je, acc_t (&acc)[COL_T])
{
    int32_t col[COL_R];
    acc_t val[COL_R];
    for (int64_t base = b; base < e; base += (int64_t)lanes * COL_R) {
        col_load(v, base, e, lane, lanes, col, val);
        col_tile(v, col, val, j0, je, acc);
    }
}

/* Adds a row's lanes' sums together (xor-shuffles below lanes); all 32 lanes call it. */
__device__ __forceinline__ void lane_sum(acc_t (&acc)[COL_T], int lanes)
{
    for (int off = 1; off < lanes; off <<= 1)
#pragma unroll
        for (int t = 0; t < COL_T; t++) acc[t] += __shfl_xor_sync(SPX_FULL_MASK, acc[t], off);
}

/* acc[t] for a t known only at run time (a register array is not indexable). */
__device__ __forceinline__ acc_t pick(const acc_t (&acc)[COL_T], int t)
{
    acc_t r = 0;
#pragma unroll
    for (int q = 0; q < COL_T; q++)
        if (q == t) r = acc[q];
    return r;
}

/* Column-major: 2^lanes_log lanes a row; a row of at most lanes * COL_R entries loads its pairs
 * once for every tile of the chunk, a longer one per tile; lane t, t + lanes, .. of the row
 * writes the tile's column t. A long row is only set to b*Y. No lane leaves before the
 * shuffles (the tile loop's trip count is the block's). */
template <typename VT>
__global__ void __launch_bounds__(BLOCK) csr_spmm_col_kernel(mm_view<VT> v, int lanes_log)
{
    const int lanes = 1 << lanes_log;
    const int64_t row = ((int64_t)blockIdx.x * BLOCK + threadIdx.x) >> lanes_log;
    const int lane = threadIdx.x & (lanes - 1);
    const bool active = row < v.m;
    int32_t b, e;
    row_range(v, active, row, &b, &e);
    const bool split = e - b > v.long_min, fits = (int64_t)(e - b) <= (int64_t)lanes * COL_R;
    int32_t col[COL_R];
    acc_t val[COL_R];
    col_load(v, b, active && !split && fits ? e : b, lane, lanes, col, val);
    for (int64_t ch = blockIdx.y; ch < v.chunks; ch += gridDim.y) {
        const int64_t jb = ch * v.cols, je = min(v.k, jb + v.cols);
        for (int64_t j0 = jb; j0 < je; j0 += COL_T) {
            acc_t acc[COL_T] = {};
            if (active && !split && fits) col_tile(v, col, val, j0, je, acc);
            else if (active && !split) col_range(v, b, e, lane, lanes, j0, je, acc);
            lane_sum(acc, lanes);
            if (!active) continue;
            for (int t = lane; t < COL_T && j0 + t < je; t += lanes) {
                VT *p = y_at<false>(v, row, j0 + t);
                if (split)
                    prep(v, p);
                else
                    put(v, p, pick(acc, t));
            }
        }
    }
}

/* Column-major long rows: warp w sums piece w over every tile of its chunk and adds a * the
 * sums into the row's Y atomically (lane t the tile's column t). */
template <typename VT>
__global__ void __launch_bounds__(BLOCK)
    csr_spmm_col_pieces_kernel(mm_view<VT> v, const int32_t *__restrict__ pairs, int64_t n)
{
    const int64_t w = ((int64_t)blockIdx.x * BLOCK + threadIdx.x) >> 5;
    if (w >= n) return; /* whole warps leave together */
    const int lane = threadIdx.x & 31;
    const int32_t row = __ldg(pairs + 2 * w), b = __ldg(pairs + 2 * w + 1);
    const int64_t e = min((int64_t)b + PIECE, (int64_t)__ldg(v.rowptr + row + 1));
    for (int64_t ch = blockIdx.y; ch < v.chunks; ch += gridDim.y) {
        const int64_t jb = ch * v.cols, je = min(v.k, jb + v.cols);
        for (int64_t j0 = jb; j0 < je; j0 += COL_T) {
            acc_t acc[COL_T] = {};
            col_range(v, b, e, lane, 32, j0, je, acc);
            lane_sum(acc, 32);
            if (lane < COL_T && j0 + lane < je) atomicAdd(y_at<false>(v, row, j0 + lane), (VT)(v.a * pick(acc, lane)));
        }
    }
}

/* ---- Y = b*Y ------------------------------------------------------------------------------ */

/* Y(i, j) = b*Y(i, j) (0 when Y is not read) over m x k entries, grid-stride, in the layout's
 * order (consecutive threads, consecutive addresses). */
template <typename VT>
__global__ void __launch_bounds__(BLOCK)
    csr_spmm_scale_kernel(int64_t m, int64_t k, bool row_major, VT *y, int64_t ldy, acc_t b, bool read_y)
{
    const int64_t total = m * k;
    for (int64_t t = (int64_t)blockIdx.x * BLOCK + threadIdx.x; t < total; t += (int64_t)gridDim.x * BLOCK) {
        const int64_t line = row_major ? t / k : t / m, at = row_major ? t % k : t % m;
        VT *p = y + line * ldy + at;
        *p = read_y ? (VT)(b * (acc_t)*p) : VT(0);
    }
}

} /* namespace */

/* ---- launchers ---------------------------------------------------------------------------- */

/* log2 of a power of two. */
static int log2_of(int p)
{
    int l = 0;
    while ((1 << l) < p) l++;
    return l;
}

/* A grid of `threads` threads in blocks of BLOCK (x, at most 2^31 - 1 blocks) by the column
 * chunks (y, at most 65535: the kernels loop over the rest). */
static dim3 grid_of(int64_t threads, int64_t chunks)
{
    int64_t x = (threads + BLOCK - 1) / BLOCK;
    if (x < 1) x = 1;
    if (x > INT32_MAX) x = INT32_MAX;
    return dim3((unsigned)x, (unsigned)(chunks < 65535 ? (chunks < 1 ? 1 : chunks) : 65535));
}

/* The call's view for shape s. */
template <typename VT>
static mm_view<VT> view_of(const spx_csr_spmm_mat *A, const spx_spmm_args *a, const spx_csr_spmm_shape *s)
{
    mm_view<VT> v;
    v.m = A->m;
    v.rowptr = A->rowptr;
    v.colind = A->colind;
    v.val = (const VT *)A->val;
    v.x = (const VT *)a->x;
    v.y = (VT *)a->y;
    v.k = a->k;
    v.ldx = a->ldx;
    v.ldy = a->ldy;
    v.cols = s->cols;
    v.chunks = s->chunks;
    v.long_min = s->long_rows ? (int32_t)SPX_CSR_CUDA_SPMM_LONG_MIN : INT32_MAX;
    v.a = (acc_t)a->alpha;
    v.b = (acc_t)a->beta;
    v.read_y = a->beta != 0.0;
    return v;
}

/* Row-major with C columns a lane: the main kernel, then the long rows' pieces. */
template <typename VT, int C>
static spx_status launch_row(spx_ctx *ctx, const mm_view<VT> &v, const spx_csr_spmm_shape *s,
                             const spx_csr_spmm_pieces *P)
{
    const cudaStream_t st = spx_cuda_stream(ctx);
    const int g_log = log2_of(s->g);
    csr_spmm_row_kernel<VT, C><<<grid_of((int64_t)v.m * s->lanes, s->chunks), BLOCK, 0, st>>>(v, g_log,
                                                                                             log2_of(s->lanes));
    SPX_CUDA_LAUNCHED(ctx, "csr_spmm_row_kernel");
    if (!s->long_rows || P->n == 0) return SPX_OK;
    csr_spmm_row_pieces_kernel<VT, C><<<grid_of(P->n * 32, s->chunks), BLOCK, 0, st>>>(v, P->pairs, P->n, g_log);
    SPX_CUDA_LAUNCHED(ctx, "csr_spmm_row_pieces_kernel");
    return SPX_OK;
}

/* Column-major: the main kernel, then the long rows' pieces. */
template <typename VT>
static spx_status launch_col(spx_ctx *ctx, const mm_view<VT> &v, const spx_csr_spmm_shape *s,
                             const spx_csr_spmm_pieces *P)
{
    const cudaStream_t st = spx_cuda_stream(ctx);
    csr_spmm_col_kernel<VT><<<grid_of((int64_t)v.m * s->lanes, s->chunks), BLOCK, 0, st>>>(v, log2_of(s->lanes));
    SPX_CUDA_LAUNCHED(ctx, "csr_spmm_col_kernel");
    if (!s->long_rows || P->n == 0) return SPX_OK;
    csr_spmm_col_pieces_kernel<VT><<<grid_of(P->n * 32, s->chunks), BLOCK, 0, st>>>(v, P->pairs, P->n);
    SPX_CUDA_LAUNCHED(ctx, "csr_spmm_col_pieces_kernel");
    return SPX_OK;
}

/* The call in value type VT with shape s. */
template <typename VT>
static spx_status run_typed(spx_ctx *ctx, const spx_csr_spmm_mat *A, const spx_csr_spmm_pieces *P,
                            const spx_csr_spmm_shape *s, const spx_spmm_args *a)
{
    const mm_view<VT> v = view_of<VT>(A, a, s);
    if (s->kind == SPX_CSR_SPMM_COL) return launch_col<VT>(ctx, v, s, P);
    switch (s->c) {
    case 1: return launch_row<VT, 1>(ctx, v, s, P);
    case 2: return launch_row<VT, 2>(ctx, v, s, P);
    case 4: return launch_row<VT, 4>(ctx, v, s, P);
    case 8: return launch_row<VT, 8>(ctx, v, s, P);
    default: return spx_fail(ctx, SPX_ERR_ARG, "csr spmm: %d columns a lane has no kernel", s->c);
    }
}

/* Lists A's long rows' pieces into P from the row pointers (downloaded once, walked on the
 * host: csr_spmm_shape.c); P is left as it was on failure. */
static spx_status list_pieces(spx_ctx *ctx, const spx_csr_spmm_mat *A, spx_csr_spmm_pieces *P)
{
    int32_t *rp = (int32_t *)spx_malloc_array(ctx, (size_t)A->m + 1, sizeof(int32_t)), *hp = NULL, *dp = NULL;
    spx_status s = rp ? spx_cuda_d2h(ctx, rp, A->rowptr, ((size_t)A->m + 1) * sizeof(int32_t))
                      : spx_fail_nomem(ctx, "csr spmm: host row pointers for the long rows");
    const int64_t n = s ? 0 : spx_csr_spmm_long_pieces(rp, A->m, NULL);
    if (!s && n > 0) {
        hp = (int32_t *)spx_malloc_array(ctx, (size_t)n * 2, sizeof(int32_t));
        s = hp ? SPX_OK : spx_fail_nomem(ctx, "csr spmm: the long rows' pieces");
        if (!s) spx_csr_spmm_long_pieces(rp, A->m, hp);
        if (!s) s = spx_cuda_malloc(ctx, (void **)&dp, (size_t)n * 2 * sizeof(int32_t));
        if (!s) s = spx_cuda_h2d(ctx, dp, hp, (size_t)n * 2 * sizeof(int32_t));
    }
    if (s) {
        spx_cuda_free(ctx, dp);
    } else {
        P->pairs = dp;
        P->n = n;
        P->ready = 1;
    }
    spx_free(ctx, rp);
    spx_free(ctx, hp);
    return s;
}

extern "C" spx_status spx_csr_spmm_cuda(spx_ctx *ctx, const spx_csr_spmm_mat *A, spx_csr_spmm_pieces *P,
                                        const spx_spmm_args *a)
{
    if (!ctx || !A || !P || !a) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "csr spmm: NULL argument") : SPX_ERR_ARG;
    if (a->precision != A->prec) return spx_fail(ctx, SPX_ERR_ARG, "csr spmm: the plan's precision differs from the call's");
    if (A->m == 0) return SPX_OK;
    if (A->nnz == 0) return spx_cuda_spmm_scale_y(ctx, A->m, a);
    spx_csr_spmm_shape s;
    spx_csr_spmm_shape_of(a->k, a->layout, A->row_mean, A->row_max, &s);
    if (s.kind == SPX_CSR_SPMM_SPMV)
        return spx_fail(ctx, SPX_ERR_ARG, "csr spmm: one column-major column is the SpMV kernel's (csr_cuda.cu)");
    if (s.long_rows && !P->ready) {
        spx_status st = list_pieces(ctx, A, P);
        if (st) return st;
    }
    return A->prec == SPX_FP32 ? run_typed<float>(ctx, A, P, &s, a) : run_typed<double>(ctx, A, P, &s, a);
}

extern "C" void spx_csr_spmm_pieces_free(spx_ctx *ctx, spx_csr_spmm_pieces *P)
{
    if (!P) return;
    spx_cuda_free(ctx, P->pairs);
    P->pairs = NULL;
    P->n = 0;
    P->ready = 0;
}

/* Y = b*Y in value type VT. */
template <typename VT>
static spx_status scale_typed(spx_ctx *ctx, int64_t m, const spx_spmm_args *a)
{
    const unsigned grid = spx_cuda_grid_stride_blocks(ctx, m * a->k, BLOCK, SPX_CSR_CUDA_AUX_BLOCKS_PER_SM);
    csr_spmm_scale_kernel<VT><<<grid, BLOCK, 0, spx_cuda_stream(ctx)>>>(
        m, a->k, a->layout == SPX_DENSE_ROW_MAJOR, (VT *)a->y, a->ldy, (acc_t)a->beta, a->beta != 0.0);
    SPX_CUDA_LAUNCHED(ctx, "csr_spmm_scale_kernel");
    return SPX_OK;
}

extern "C" spx_status spx_cuda_spmm_scale_y(spx_ctx *ctx, int64_t m, const spx_spmm_args *a)
{
    if (m == 0 || a->k == 0) return SPX_OK;
    return a->precision == SPX_FP32 ? scale_typed<float>(ctx, m, a) : scale_typed<double>(ctx, m, a);
}
