/* src/formats/hbp/hbp_wide_cuda.cu: hbp's wide tiles on the GPU (hbp_wide.h): uploaded from the
 * host layout or built on the device from the uploaded CSR (a key per entry, a stable radix sort
 * by (panel, block), tile heads and a gather: the host build's arrays), and the SpMV: one
 * resident wave of CTAs, paced to walk the column blocks together; a CTA's work unit sums its
 * panel's tiles into shared memory (warp runs of one row reduced by shuffles first, then a
 * shared atomic), then writes its rows of y once; units of a split panel add into y, scaled by
 * b beforehand. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "cuda/check.cuh"
#include "cuda/gateway.h"
#include "cuda/primitives.cuh"
#include "cuda/runtime.cuh"
#include "formats/hbp/hbp_cuda.h"
#include "formats/hbp/hbp_search.cuh"
#include "formats/hbp/hbp_table.cuh"
#include "formats/hbp/hbp_cuda_tuning.h"

/* The device state: the header with device arrays. */
struct spx_hbp_wide_dev {
    spx_hbp_wide L;
    int64_t grid;                /* CTAs of the SpMV launch: one resident wave, at most n_units */
    int64_t steps;               /* rounds (ceil(n_units / grid)) x n_blocks */
    unsigned long long *arrived; /* [steps] the wave's pacing counters, never reset */
    unsigned long long calls;    /* SpMVs launched: call k counts up to k x the CTAs of a step */
    char kernel[48];
};

namespace {

/* Entries a lane of a warp takes per step of the SpMV (loads issued before the sums). */
constexpr int CHUNK = 32 * SPX_HBP_WIDE_ILP;

/* What the SpMV kernels read: the device arrays and one call's arguments. */
template <typename VT>
struct wide_view {
    const int64_t *__restrict__ panel_tile, *__restrict__ tile_start, *__restrict__ unit_start;
    const int32_t *__restrict__ tile_block, *__restrict__ unit_panel, *__restrict__ split_panel;
    const uint32_t *__restrict__ idx;
    const VT *__restrict__ val;
    const VT *__restrict__ x;
    VT *y;
    unsigned long long *arrived; /* [rounds x n_blocks] CTAs done with each step of the walk, over all calls */
    unsigned long long call;     /* this call's number, from 1: a step is done at call x its CTAs */
    int64_t m, n_units, grid;
    int32_t H, W, row_bits, n_split, n_blocks;
    double a, b;
};

/* Adds each lane's product into acc[row]: lanes hold rows in non-decreasing order (a tile's
 * entries are in row order; row INT_MAX marks no entry), so one row's lanes are adjacent; when
 * some are, an inclusive segmented scan by shuffles leaves each segment's sum on its last lane,
 * which alone adds it by a shared atomic (other warps may add to the row: a compare-and-swap
 * loop on sm_90, but giving each warp its own rows to add without atomics was slower: uniform
 * 16.8M 2.31 against 1.91 ms, H100 2026-11-28). */
template <typename VT>
__device__ __forceinline__ void segment_add(VT s, int row, VT *acc)
{
    const int lane = threadIdx.x & 31;
    const int next = __shfl_down_sync(SPX_FULL_MASK, row, 1);
    const bool tail = lane == 31 || next != row;
    if (__any_sync(SPX_FULL_MASK, !tail)) {
#pragma unroll
        for (int off = 1; off < 32; off <<= 1) {
            const VT o = __shfl_up_sync(SPX_FULL_MASK, s, off);
            const int ro = __shfl_up_sync(SPX_FULL_MASK, row, off);
            if (lane >= off && ro == row) s += o;
        }
    }
    if (tail && row != INT_MAX) atomicAdd(acc + row, s);
}

/* One chunk of a tile on a warp: entries [base, min(base + CHUNK, te)), lane l taking base +
 * 32 j + l for j < SPX_HBP_WIDE_ILP, summed into acc; xb is the tile's x segment. */
template <typename VT>
__device__ __forceinline__ void chunk_sum(const wide_view<VT> &v, int64_t base, int64_t te, const VT *xb, VT *acc)
{
    const int lane = threadIdx.x & 31;
    const uint32_t rmask = (1u << v.row_bits) - 1u;
    uint32_t id[SPX_HBP_WIDE_ILP];
    VT a[SPX_HBP_WIDE_ILP];
#pragma unroll
    for (int j = 0; j < SPX_HBP_WIDE_ILP; j++) {
        const int64_t q = base + 32 * j + lane;
        id[j] = q < te ? spx_ld_stream(v.idx + q) : 0u;
        a[j] = q < te ? spx_ld_stream(v.val + q) : (VT)0;
    }
#pragma unroll
    for (int j = 0; j < SPX_HBP_WIDE_ILP; j++) {
        const bool in = base + 32 * j + lane < te;
        const VT s = in ? a[j] * __ldg(xb + (id[j] >> v.row_bits)) : (VT)0;
        segment_add<VT>(s, in ? (int)(id[j] & rmask) : INT_MAX, acc);
    }
}

/* Unit [e0, e1) of panel p: its tiles [*ta, *tb) (those holding its entries). */
template <typename VT>
__device__ __forceinline__ void unit_tile_range(const wide_view<VT> &v, int32_t p, int64_t e0, int64_t e1, int64_t *ta,
                                                int64_t *tb)
{
    int64_t t = __ldg(v.panel_tile + p);
    const int64_t tend = __ldg(v.panel_tile + p + 1);
    while (t < tend && __ldg(v.tile_start + t + 1) <= e0) t++;
    *ta = t;
    while (t < tend && __ldg(v.tile_start + t) < e1) t++;
    *tb = t;
}

/* Tile t's entries within [e0, e1) on the CTA: warp w takes chunks w, w + warps, ... */
template <typename VT>
__device__ __forceinline__ void tile_sum(const wide_view<VT> &v, int64_t t, int64_t e0, int64_t e1, VT *acc)
{
    const int warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const int64_t ts = max(__ldg(v.tile_start + t), e0), te = min(__ldg(v.tile_start + t + 1), e1);
    const VT *xb = v.x + (int64_t)__ldg(v.tile_block + t) * v.W;
    for (int64_t base = ts + (int64_t)warp * CHUNK; base < te; base += (int64_t)warps * CHUNK)
        chunk_sum<VT>(v, base, te, xb, acc);
}

/* The wave's pacing (see hbp_wide_kernel): before step `step` of its walk, a CTA waits until
 * every CTA of the round holding step - SPX_HBP_WIDE_LAG has finished that step. Pacing only:
 * no data passes between CTAs, so it changes speed, never results. */
template <typename VT>
__device__ __forceinline__ void wave_wait(const wide_view<VT> &v, int64_t step)
{
    if (SPX_HBP_WIDE_LAG > 0 && step >= SPX_HBP_WIDE_LAG && threadIdx.x == 0) {
        const int64_t s = step - SPX_HBP_WIDE_LAG, left = v.n_units - s / v.n_blocks * v.grid;
        const int64_t need = left < v.grid ? left : v.grid;
        const unsigned long long target = v.call * (unsigned long long)need;
        const volatile unsigned long long *c = v.arrived + s;
        while (*c < target) __nanosleep(SPX_HBP_WIDE_SPIN_NS);
    }
    __syncthreads();
}

/* The CTA has finished step `step` (its warps are done with the step's tile). */
template <typename VT>
__device__ __forceinline__ void wave_arrive(const wide_view<VT> &v, int64_t step)
{
    __syncthreads();
    if (SPX_HBP_WIDE_LAG > 0 && threadIdx.x == 0) atomicAdd(v.arrived + step, 1ull);
}

/* Work unit u in round `round` on the CTA: its panel's row sums cleared; then one step per
 * column block (ascending in even rounds, descending in odd ones), the unit's tile of that
 * block summed, if it has one; then y: y = a*sum + b*y for a panel's only unit, y += a*sum
 * (atomics; y already b*y) for a split panel's. */
template <typename VT>
__device__ void unit_run(const wide_view<VT> &v, int64_t u, int64_t round, VT *acc)
{
    const int32_t p = __ldg(v.unit_panel + u);
    const int64_t r0 = (int64_t)p * v.H, e0 = __ldg(v.unit_start + u), e1 = __ldg(v.unit_start + u + 1);
    const int rows = (int)(v.m - r0 < v.H ? v.m - r0 : v.H);
    for (int i = threadIdx.x; i < rows; i += blockDim.x) acc[i] = (VT)0;
    int64_t ta, tb;
    unit_tile_range(v, p, e0, e1, &ta, &tb);
    const bool down = round & 1;
    int64_t t = down ? tb - 1 : ta; /* the unit's next tile in the walk */
    for (int32_t k = 0; k < v.n_blocks; k++) {
        const int32_t b = down ? v.n_blocks - 1 - k : k;
        const int64_t step = round * v.n_blocks + k;
        wave_wait(v, step);
        if (t >= ta && t < tb && __ldg(v.tile_block + t) == b) {
            tile_sum<VT>(v, t, e0, e1, acc);
            t += down ? -1 : 1;
        }
        wave_arrive(v, step);
    }
    const bool split = (u > 0 && __ldg(v.unit_panel + u - 1) == p) ||
                       (u + 1 < v.n_units && __ldg(v.unit_panel + u + 1) == p);
    for (int i = threadIdx.x; i < rows; i += blockDim.x) {
        const double s = v.a * (double)acc[i];
        if (split) {
            if (acc[i] != (VT)0) atomicAdd(v.y + r0 + i, (VT)s);
        } else {
            v.y[r0 + i] = (VT)(v.b != 0.0 ? s + v.b * (double)v.y[r0 + i] : s);
        }
    }
    __syncthreads(); /* acc is cleared for the next unit */
}

/* The SpMV kernel, one resident wave of CTAs (a cooperative launch: all resident together):
 * CTA c runs units c, c + grid, ... (round k = the k-th of them), sums in dynamic shared
 * memory (H values). The wave walks the column blocks in step, so the x segment it gathers
 * from stays in L2: a CTA starts a block only when every CTA has finished the block
 * SPX_HBP_WIDE_LAG steps back (counters per step, counting on from call to call: no reset, so
 * two calls on one plan cannot wipe each other's). Even rounds walk the blocks up, odd rounds
 * down, so a round's first blocks are the last ones of the round before. Without the pacing
 * the CTAs drifted apart and gathered from all of x (uniform 16.8M at csr's 4.4 ms, L2 hit rate
 * 27 %, H100 2026-11-28). */
template <typename VT>
__global__ void __launch_bounds__(SPX_HBP_WIDE_BLOCK) hbp_wide_kernel(wide_view<VT> v)
{
    extern __shared__ double wide_smem[];
    VT *acc = reinterpret_cast<VT *>(wide_smem);
    int64_t round = 0;
    for (int64_t u = blockIdx.x; u < v.n_units; u += gridDim.x, round++) unit_run<VT>(v, u, round, acc);
}

/* y = b*y (0 when b = 0: y not read) over the rows of the split panels, before their units add. */
template <typename VT>
__global__ void hbp_wide_prescale(wide_view<VT> v)
{
    for (int32_t k = blockIdx.x; k < v.n_split; k += gridDim.x) {
        const int64_t r0 = (int64_t)__ldg(v.split_panel + k) * v.H;
        const int rows = (int)(v.m - r0 < v.H ? v.m - r0 : v.H);
        for (int i = threadIdx.x; i < rows; i += blockDim.x)
            v.y[r0 + i] = v.b != 0.0 ? (VT)(v.b * (double)v.y[r0 + i]) : (VT)0;
    }
}

template <typename VT>
wide_view<VT> view_of(const spx_hbp_wide *L, const spx_spmv_args *args)
{
    wide_view<VT> v;
    v.panel_tile = L->panel_tile;
    v.tile_start = L->tile_start;
    v.unit_start = L->unit_start;
    v.tile_block = L->tile_block;
    v.unit_panel = L->unit_panel;
    v.split_panel = L->split_panel;
    v.idx = L->idx;
    v.val = (const VT *)L->val;
    v.x = (const VT *)args->x;
    v.y = (VT *)args->y;
    v.m = L->m;
    v.n_units = L->n_units;
    v.H = L->H;
    v.W = L->W;
    v.row_bits = L->row_bits;
    v.n_split = L->n_split;
    v.n_blocks = L->n_blocks;
    v.a = args->alpha;
    v.b = args->beta;
    return v;
}

template <typename VT>
spx_status launch(spx_ctx *ctx, spx_hbp_wide_dev *D, const spx_spmv_args *args)
{
    const spx_hbp_wide *L = &D->L;
    wide_view<VT> v = view_of<VT>(L, args);
    v.grid = D->grid;
    v.arrived = D->arrived;
    v.call = ++D->calls;
    const cudaStream_t st = spx_cuda_stream(ctx);
    if (L->n_split > 0) {
        hbp_wide_prescale<VT><<<(unsigned)L->n_split, SPX_HBP_WIDE_BLOCK, 0, st>>>(v);
        SPX_CUDA_LAUNCHED(ctx, "hbp_wide_prescale");
    }
    void *args_[] = {&v};
    SPX_CUDA_RET(ctx, cudaLaunchCooperativeKernel((const void *)hbp_wide_kernel<VT>, dim3((unsigned)D->grid),
                                                  dim3(SPX_HBP_WIDE_BLOCK), args_, (size_t)L->H * sizeof(VT), st));
    return SPX_OK;
}

/* A new device state holding L's header and no arrays. */
spx_status dev_new(spx_ctx *ctx, const spx_hbp_wide *L, spx_hbp_wide_dev **out)
{
    spx_hbp_wide_dev *D = (spx_hbp_wide_dev *)spx_calloc_array(ctx, 1, sizeof *D);
    if (!D) return spx_fail_nomem(ctx, "hbp wide GPU state");
    D->L = *L;
    hbp_table_clear(hbp_table_of(&D->L));
    snprintf(D->kernel, sizeof D->kernel, "hbp_wide_%s", L->precision == SPX_FP32 ? "fp32" : "fp64");
    *out = D;
    return SPX_OK;
}

/* D->grid: the SpMV kernel's resident CTAs (occupancy with H sums in shared memory, times
 * the SMs), at most the units, at least 1; and the pacing counters for its steps, zeroed.
 * Needs the unit count; SPX_ERR_UNSUPPORTED on a device without cooperative launch. */
spx_status size_grid(spx_ctx *ctx, spx_hbp_wide_dev *D)
{
    int dev = 0, coop = 0, per_sm = 0;
    SPX_CUDA_RET(ctx, cudaGetDevice(&dev));
    SPX_CUDA_RET(ctx, cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    const size_t smem = (size_t)D->L.H * spx_precision_bytes(D->L.precision);
    const int block = SPX_HBP_WIDE_BLOCK;
    if (D->L.precision == SPX_FP32)
        SPX_CUDA_RET(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, hbp_wide_kernel<float>, block, smem));
    else
        SPX_CUDA_RET(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, hbp_wide_kernel<double>, block, smem));
    if (!coop || per_sm < 1)
        return spx_fail(ctx, SPX_ERR_UNSUPPORTED,
                        "hbp wide: the device %s (use algorithm band)",
                        coop ? "cannot hold one of its CTAs" : "has no cooperative launch");
    const spx_cuda_state *cs = spx_cuda_state_of(ctx);
    const int64_t g = (int64_t)per_sm * (cs && cs->sm_count > 0 ? cs->sm_count : 1);
    D->grid = D->L.n_units < g ? (D->L.n_units > 0 ? D->L.n_units : 1) : g;
    D->steps = (D->L.n_units + D->grid - 1) / D->grid * D->L.n_blocks;
    const size_t bytes = (size_t)(D->steps > 0 ? D->steps : 1) * sizeof *D->arrived;
    spx_status s = spx_cuda_malloc(ctx, (void **)&D->arrived, bytes);
    if (!s) SPX_CUDA_RET(ctx, cudaMemsetAsync(D->arrived, 0, bytes, spx_cuda_stream(ctx)));
    return s;
}

/* ---- device build ---- */

constexpr int BUILD_BLOCK = SPX_HBP_BUILD_BLOCK;
constexpr int ENTRY_ITEMS = 8; /* consecutive entries a thread of the key kernel takes */

/* Per entry: its sort key (panel << bbits | block), its packed offsets, its own index. */
__global__ void wide_keys(int32_t m, int64_t nnz, const int32_t *__restrict__ rowptr,
                          const int32_t *__restrict__ colind, int row_bits, int lw, int bbits,
                          unsigned long long *key, uint32_t *packed, uint32_t *order)
{
    const int64_t chunks = (nnz + ENTRY_ITEMS - 1) / ENTRY_ITEMS;
    const uint32_t rmask = (1u << row_bits) - 1u, cmask = (uint32_t)((1ll << lw) - 1);
    for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < chunks; c += (int64_t)gridDim.x * blockDim.x) {
        const int64_t e0 = c * ENTRY_ITEMS, e1 = e0 + ENTRY_ITEMS < nnz ? e0 + ENTRY_ITEMS : nnz;
        int32_t r = hbp_row_of(rowptr, m, e0);
        for (int64_t e = e0; e < e1; e++) {
            while (e >= rowptr[r + 1]) r++;
            const uint32_t col = (uint32_t)colind[e];
            key[e] = (unsigned long long)(r >> row_bits) << bbits | (col >> lw);
            packed[e] = (col & cmask) << row_bits | ((uint32_t)r & rmask);
            order[e] = (uint32_t)e;
        }
    }
}

/* head[i] = 1 where sorted key i starts a tile (a new (panel, block)), else 0. */
__global__ void wide_heads(int64_t nnz, const unsigned long long *__restrict__ key, uint32_t *head)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < nnz; i += (int64_t)gridDim.x * blockDim.x)
        head[i] = i == 0 || key[i] != key[i - 1];
}

/* For each tile head i (tile t = tiles before it): tile_start[t] = i, tile_block[t]. */
__global__ void wide_tiles(int64_t nnz, const unsigned long long *__restrict__ key, const uint32_t *__restrict__ head,
                           const uint32_t *__restrict__ before, int bbits, int64_t *tile_start, int32_t *tile_block)
{
    const unsigned long long bmask = (1ull << bbits) - 1ull;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < nnz; i += (int64_t)gridDim.x * blockDim.x)
        if (head[i]) {
            tile_start[before[i]] = i;
            tile_block[before[i]] = (int32_t)(key[i] & bmask);
        }
}

/* Per panel p (and p = n_panels): its first entry E_p = rowptr[min(p H, m)] and its first
 * tile, the tiles before E_p (all of them when E_p = nnz). */
__global__ void wide_panels(int32_t n_panels, int32_t m, int32_t H, int64_t nnz, int64_t n_tiles,
                            const int32_t *__restrict__ rowptr, const uint32_t *__restrict__ before,
                            int64_t *panel_nnz, int64_t *panel_tile)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; p <= n_panels; p += stride) {
        const int64_t r = p * H < m ? p * H : m, e = rowptr[r];
        panel_nnz[p] = e;
        panel_tile[p] = e < nnz ? (int64_t)before[e] : n_tiles;
    }
}

/* The layout's entries in sorted order: idx[i] = packed[order[i]], val[i] = val[order[i]]. */
template <typename VT>
__global__ void wide_gather(int64_t nnz, const uint32_t *__restrict__ order, const uint32_t *__restrict__ packed,
                            const VT *__restrict__ src, uint32_t *idx, VT *val)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < nnz; i += (int64_t)gridDim.x * blockDim.x) {
        const uint32_t e = order[i];
        idx[i] = packed[e];
        val[i] = src[e];
    }
}

/* The build's scratch on the device. */
struct wide_scratch {
    unsigned long long *key[2];
    uint32_t *order[2], *packed, *head, *before;
    int64_t *panel_nnz;
    void *temp;
};

void scratch_free(spx_ctx *ctx, wide_scratch *w)
{
    spx_cuda_free(ctx, w->key[0]);
    spx_cuda_free(ctx, w->key[1]);
    spx_cuda_free(ctx, w->order[0]);
    spx_cuda_free(ctx, w->order[1]);
    spx_cuda_free(ctx, w->packed);
    spx_cuda_free(ctx, w->head);
    spx_cuda_free(ctx, w->before);
    spx_cuda_free(ctx, w->panel_nnz);
    spx_cuda_free(ctx, w->temp);
    memset(w, 0, sizeof *w);
}

/* Keys, then the stable radix sort of (key, entry) over the key's bits: w->key[1] and
 * w->order[1] hold the sorted pairs. */
spx_status sort_entries(spx_ctx *ctx, const spx_dev_csr *A, const spx_hbp_wide *L, int bbits, wide_scratch *w)
{
    const size_t n = (size_t)A->nnz;
    if (n == 0) return SPX_OK; /* no keys: no tiles */
    spx_status s = SPX_OK;
    for (int k = 0; k < 2 && !s; k++) {
        s = spx_cuda_malloc(ctx, (void **)&w->key[k], n * sizeof(unsigned long long));
        if (!s) s = spx_cuda_malloc(ctx, (void **)&w->order[k], n * sizeof(uint32_t));
    }
    if (!s) s = spx_cuda_malloc(ctx, (void **)&w->packed, n * sizeof(uint32_t));
    if (s) return s;
    const cudaStream_t st = spx_cuda_stream(ctx);
    const unsigned grid = spx_cuda_grid_stride_blocks(ctx, ((int64_t)n + ENTRY_ITEMS - 1) / ENTRY_ITEMS, BUILD_BLOCK,
                                                      SPX_HBP_BUILD_BLOCKS_PER_SM);
    const int lw = spx_hbp_bits(L->W);
    wide_keys<<<grid, BUILD_BLOCK, 0, st>>>(A->m, A->nnz, A->rowptr, A->colind, L->row_bits, lw, bbits, w->key[0],
                                            w->packed, w->order[0]);
    SPX_CUDA_LAUNCHED(ctx, "wide_keys");
    const int end_bit = spx_hbp_bits(L->n_panels) + bbits;
    size_t bytes = 0;
    SPX_CUDA_RET(ctx, cub::DeviceRadixSort::SortPairs(NULL, bytes, w->key[0], w->key[1], w->order[0], w->order[1],
                                                      (int64_t)n, 0, end_bit > 0 ? end_bit : 1, st));
    s = spx_cuda_malloc(ctx, &w->temp, bytes < 16 ? 16 : bytes);
    if (s) return s;
    SPX_CUDA_RET(ctx, cub::DeviceRadixSort::SortPairs(w->temp, bytes, w->key[0], w->key[1], w->order[0], w->order[1],
                                                      (int64_t)n, 0, end_bit > 0 ? end_bit : 1, st));
    spx_status synced = spx_cuda_sync(ctx); /* the sort has read its inputs before they go */
    if (synced) return synced;
    spx_cuda_free(ctx, w->key[0]);
    w->key[0] = NULL;
    spx_cuda_free(ctx, w->order[0]);
    w->order[0] = NULL;
    spx_cuda_free(ctx, w->temp);
    w->temp = NULL;
    return SPX_OK;
}

/* Tile heads, their count and headers, the panels' first entries and tiles (into D). */
spx_status find_tiles(spx_ctx *ctx, const spx_dev_csr *A, spx_hbp_wide *D, int bbits, wide_scratch *w)
{
    const size_t n = (size_t)A->nnz;
    const cudaStream_t st = spx_cuda_stream(ctx);
    const unsigned grid = spx_cuda_grid_stride_blocks(ctx, (int64_t)n, BUILD_BLOCK, SPX_HBP_BUILD_BLOCKS_PER_SM);
    spx_status s = spx_cuda_malloc(ctx, (void **)&w->head, (n + 1) * sizeof(uint32_t));
    if (!s) s = spx_cuda_malloc(ctx, (void **)&w->before, (n + 1) * sizeof(uint32_t));
    if (s) return s;
    SPX_CUDA_RET(ctx, cudaMemsetAsync(w->head + n, 0, sizeof(uint32_t), st));
    if (n > 0) {
        wide_heads<<<grid, BUILD_BLOCK, 0, st>>>(A->nnz, w->key[1], w->head);
        SPX_CUDA_LAUNCHED(ctx, "wide_heads");
    }
    size_t bytes = 0;
    SPX_CUDA_RET(ctx, cub::DeviceScan::ExclusiveSum(NULL, bytes, w->head, w->before, (int64_t)n + 1, st));
    s = spx_cuda_malloc(ctx, &w->temp, bytes < 16 ? 16 : bytes);
    if (s) return s;
    SPX_CUDA_RET(ctx, cub::DeviceScan::ExclusiveSum(w->temp, bytes, w->head, w->before, (int64_t)n + 1, st));
    uint32_t tiles = 0;
    s = spx_cuda_d2h(ctx, &tiles, w->before + n, sizeof tiles);
    if (s) return s;
    D->n_tiles = tiles;
    s = spx_cuda_malloc(ctx, (void **)&D->tile_block, (size_t)tiles * sizeof(int32_t));
    if (!s) s = spx_cuda_malloc(ctx, (void **)&D->tile_start, ((size_t)tiles + 1) * sizeof(int64_t));
    if (!s) s = spx_cuda_malloc(ctx, (void **)&D->panel_tile, ((size_t)D->n_panels + 1) * sizeof(int64_t));
    if (!s) s = spx_cuda_malloc(ctx, (void **)&w->panel_nnz, ((size_t)D->n_panels + 1) * sizeof(int64_t));
    if (s) return s;
    const int64_t nnz = A->nnz;
    s = spx_cuda_h2d(ctx, D->tile_start + tiles, &nnz, sizeof nnz);
    if (s) return s;
    if (n > 0) {
        wide_tiles<<<grid, BUILD_BLOCK, 0, st>>>(A->nnz, w->key[1], w->head, w->before, bbits, D->tile_start,
                                                 D->tile_block);
        SPX_CUDA_LAUNCHED(ctx, "wide_tiles");
    }
    const unsigned pgrid = spx_cuda_grid_stride_blocks(ctx, (int64_t)D->n_panels + 1, BUILD_BLOCK,
                                                       SPX_HBP_BUILD_BLOCKS_PER_SM);
    wide_panels<<<pgrid, BUILD_BLOCK, 0, st>>>(D->n_panels, A->m, D->H, A->nnz, (int64_t)tiles, A->rowptr, w->before,
                                               w->panel_nnz, D->panel_tile);
    SPX_CUDA_LAUNCHED(ctx, "wide_panels");
    return spx_cuda_sync(ctx);
}

/* The entries gathered into D's idx and val. */
spx_status gather_entries(spx_ctx *ctx, const spx_dev_csr *A, spx_hbp_wide *D, wide_scratch *w)
{
    const size_t n = (size_t)A->nnz, vb = spx_precision_bytes(D->precision);
    spx_status s = spx_cuda_malloc(ctx, (void **)&D->idx, n * sizeof(uint32_t));
    if (!s) s = spx_cuda_malloc(ctx, &D->val, n * vb);
    if (s || n == 0) return s;
    const unsigned grid = spx_cuda_grid_stride_blocks(ctx, (int64_t)n, BUILD_BLOCK, SPX_HBP_BUILD_BLOCKS_PER_SM);
    const cudaStream_t st = spx_cuda_stream(ctx);
    if (D->precision == SPX_FP32)
        wide_gather<float><<<grid, BUILD_BLOCK, 0, st>>>(A->nnz, w->order[1], w->packed, (const float *)A->val, D->idx,
                                                         (float *)D->val);
    else
        wide_gather<double><<<grid, BUILD_BLOCK, 0, st>>>(A->nnz, w->order[1], w->packed, (const double *)A->val,
                                                          D->idx, (double *)D->val);
    SPX_CUDA_LAUNCHED(ctx, "wide_gather");
    return SPX_OK;
}

/* The units from the panels' first entries (made on the host, shared with the host build),
 * uploaded into D. */
spx_status make_units(spx_ctx *ctx, spx_hbp_wide *D, const wide_scratch *w)
{
    spx_hbp_wide H = *D;
    hbp_table_clear(hbp_table_of(&H));
    int64_t *panel_nnz = (int64_t *)spx_malloc_array(ctx, (size_t)D->n_panels + 1, sizeof *panel_nnz);
    if (!panel_nnz) return spx_fail_nomem(ctx, "hbp wide panels");
    spx_status s = spx_cuda_d2h(ctx, panel_nnz, w->panel_nnz, ((size_t)D->n_panels + 1) * sizeof *panel_nnz);
    if (!s) s = spx_hbp_wide_units(ctx, &H, panel_nnz);
    D->n_units = H.n_units;
    D->n_split = H.n_split;
    /* table order: unit_panel, unit_start, split_panel are the last three */
    if (!s)
        s = hbp_table_upload(ctx, hbp_table_of(&H), hbp_table_of(D), SPX_HBP_WIDE_N_ARRAYS - 3, SPX_HBP_WIDE_N_ARRAYS);
    spx_free(ctx, panel_nnz);
    spx_free(ctx, H.unit_panel);
    spx_free(ctx, H.unit_start);
    spx_free(ctx, H.split_panel);
    return s;
}

} /* namespace */

extern "C" void spx_hbp_wide_dev_free(spx_ctx *ctx, spx_hbp_wide_dev *D)
{
    if (!D) return;
    hbp_table_free(ctx, hbp_table_of(&D->L));
    spx_cuda_free(ctx, D->arrived);
    spx_free(ctx, D);
}

extern "C" spx_status spx_hbp_wide_upload(spx_ctx *ctx, const spx_hbp_wide *L, spx_phase_log *log,
                                          spx_hbp_wide_dev **out)
{
    spx_hbp_wide_dev *D = NULL;
    spx_status s = dev_new(ctx, L, &D);
    if (!s) s = size_grid(ctx, D);
    const double t0 = spx_now();
    if (!s) s = hbp_table_upload(ctx, hbp_table_of((spx_hbp_wide *)L) /* read only */, hbp_table_of(&D->L), 0,
                                 SPX_HBP_WIDE_N_ARRAYS);
    spx_phase_add(log, "upload", spx_now() - t0);
    if (s) {
        spx_hbp_wide_dev_free(ctx, D);
        return s;
    }
    *out = D;
    return SPX_OK;
}

extern "C" spx_status spx_hbp_wide_dev_build(spx_ctx *ctx, const spx_dev_csr *A, spx_phase_log *log,
                                             spx_hbp_wide_dev **out)
{
    if (!ctx || !A || !out) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "hbp wide build: NULL argument") : SPX_ERR_ARG;
    spx_hbp_wide head;
    memset(&head, 0, sizeof head);
    spx_hbp_wide_header(&head, A->m, A->n, A->nnz, A->precision);
    spx_hbp_wide_dev *D = NULL;
    spx_status s = dev_new(ctx, &head, &D);
    if (s) return s;
    wide_scratch w;
    memset(&w, 0, sizeof w);
    const int bbits = spx_hbp_bits(D->L.n_blocks);
    const double t0 = spx_now();
    s = sort_entries(ctx, A, &D->L, bbits, &w);
    if (!s) s = find_tiles(ctx, A, &D->L, bbits, &w);
    if (!s) s = gather_entries(ctx, A, &D->L, &w);
    if (!s) s = make_units(ctx, &D->L, &w);
    if (!s) s = size_grid(ctx, D);
    if (!s) s = spx_cuda_sync(ctx);
    spx_phase_add(log, "convert", spx_now() - t0);
    if (s) (void)spx_cuda_sync(ctx); /* no kernel still reads the scratch (its own error stays in s) */
    scratch_free(ctx, &w);
    if (s) {
        spx_hbp_wide_dev_free(ctx, D);
        return s;
    }
    *out = D;
    return SPX_OK;
}

extern "C" spx_status spx_hbp_wide_dev_spmv(spx_ctx *ctx, spx_hbp_wide_dev *D, const spx_spmv_args *args)
{
    if (D->L.m == 0) return SPX_OK;
    return D->L.precision == SPX_FP32 ? launch<float>(ctx, D, args) : launch<double>(ctx, D, args);
}

extern "C" spx_status spx_hbp_wide_dev_download(spx_ctx *ctx, const spx_hbp_wide_dev *D, spx_hbp_wide **out)
{
    spx_hbp_wide *H = (spx_hbp_wide *)spx_calloc_array(ctx, 1, sizeof *H);
    if (!H) return spx_fail_nomem(ctx, "hbp wide download");
    *H = D->L;
    const hbp_table h = hbp_table_of(H);
    hbp_table_clear(h);
    const spx_status s =
        hbp_table_download(ctx, hbp_table_of((spx_hbp_wide *)&D->L) /* read only */, h, "hbp wide download");
    if (s) {
        spx_hbp_wide_destroy(ctx, H);
        return s;
    }
    *out = H;
    return SPX_OK;
}

extern "C" spx_status spx_hbp_wide_dev_to_csr(spx_ctx *ctx, const spx_hbp_wide_dev *D, spx_csr **out)
{
    spx_hbp_wide *H = NULL;
    spx_status s = spx_hbp_wide_dev_download(ctx, D, &H);
    if (!s) s = spx_hbp_wide_to_csr(ctx, H, out);
    spx_hbp_wide_destroy(ctx, H);
    return s;
}

extern "C" const spx_hbp_wide *spx_hbp_wide_dev_header(const spx_hbp_wide_dev *D) { return &D->L; }

extern "C" const char *spx_hbp_wide_dev_kernel(const spx_hbp_wide_dev *D) { return D->kernel; }
