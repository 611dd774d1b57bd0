/* src/formats/hbp/hbp_build_cuda.cu: the hbp layout built on the GPU from the uploaded CSR
 * (HBP Algorithm 2), producing the host build's arrays exactly. Passes: (count) one thread per
 * row walks its sorted columns tile by tile (galloping search for each run's end), counting
 * the row's slots (the pieces of its (tile, row) runs, hbp_tuning.h) and the floor(log2 len)
 * histogram of the pieces; a scan places each row's slots; the 32-bin histogram goes to the
 * host for spx_hbp_agg_shift. (hash / sort) the same walk writes one key per piece, (tile <<
 * b) | bucket for `hash` (b = 3) or (tile << b) | len - 1 for `sort` (b = 15), tile = panel * colblocks + colblock, and a stable radix sort
 * of the keys puts the pieces in slot order: emitted in row order, they come out in (tile,
 * bucket, row) or (tile, len, row) order, the host's. (convert) tile heads and a scan give the
 * tiles, per-tile group counts and a scan the groups, per-group lengths and a scan begin_nnz;
 * one warp per group writes its entries step-major (and adds the Fig. 6 "after" balance). */
#include <math.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "cuda/cub_scratch.cuh"
#include "cuda/primitives.cuh"
#include "cuda/runtime.cuh"
#include "formats/hbp/hbp_cuda.h"
#include "formats/hbp/hbp_cuda_tuning.h"
#include "formats/hbp/hbp_search.cuh"
#include "formats/hbp/hbp_table.cuh"
#include "formats/hbp/hbp_tuning.h"

namespace {

/* Key bits below the tile number: the bucket (hash) or len - 1 (sort; len <= SPX_HBP_MAX_W). */
constexpr int HASH_SUB_BITS = 3;
constexpr int SORT_SUB_BITS = 15;
static_assert((1 << HASH_SUB_BITS) >= SPX_HBP_BUCKETS, "hash key bits hold every bucket");
static_assert((1 << SORT_SUB_BITS) >= SPX_HBP_MAX_W, "sort key bits hold every length");

/* What the row walks need: the CSR and the shape. */
struct walk_args {
    const int32_t *__restrict__ rowptr;
    const int32_t *__restrict__ colind;
    int32_t m, H, lw; /* lw = log2 W */
    int64_t ncb;      /* column blocks */
};

/* The end of the run starting at k (k < e) of entries whose columns are below lim (columns
 * ascending): the first q in (k, e] with q == e or colind[q] >= lim. Galloping, then binary
 * search: O(log run) loads. */
__device__ __forceinline__ int64_t run_end(const int32_t *__restrict__ colind, int64_t k, int64_t e, int64_t lim)
{
    int64_t lo = k, step = 1; /* colind[lo] < lim */
    while (lo + step < e && (int64_t)__ldg(colind + lo + step) < lim) {
        lo += step;
        step <<= 1;
    }
    int64_t hi = lo + step < e ? lo + step : e; /* hi == e or colind[hi] >= lim */
    while (hi - lo > 1) {
        const int64_t mid = lo + ((hi - lo) >> 1);
        if ((int64_t)__ldg(colind + mid) < lim)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

/* Pass 1: nseg[i] = row i's slots, the pieces of its runs per tile (nseg[m] = 0, for the
 * scan), and hist[floor(log2 len)] over every piece (per-block shared counters, then one global atomic per bin). */
__global__ void __launch_bounds__(SPX_HBP_BUILD_BLOCK)
    hbp_count_kernel(walk_args w, int64_t *__restrict__ nseg, unsigned long long *__restrict__ hist)
{
    __shared__ unsigned int h[32];
    for (int i = threadIdx.x; i < 32; i += blockDim.x) h[i] = 0;
    __syncthreads();
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < w.m; i += stride) {
        const int64_t e = __ldg(w.rowptr + i + 1);
        int64_t c = 0;
        for (int64_t k = __ldg(w.rowptr + i); k < e;) {
            const int64_t cb = (int64_t)__ldg(w.colind + k) >> w.lw;
            const int64_t q = run_end(w.colind, k, e, (cb + 1) << w.lw);
            const int len = (int)(q - k), n = SPX_HBP_PIECES(len), longer = len % n; /* pieces, one longer */
            if (n > longer) atomicAdd(&h[31 - __clz(len / n)], (unsigned)(n - longer));
            if (longer) atomicAdd(&h[31 - __clz(len / n + 1)], (unsigned)longer);
            c += n;
            k = q;
        }
        nseg[i] = c;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) nseg[w.m] = 0;
    __syncthreads();
    for (int i = threadIdx.x; i < 32; i += blockDim.x)
        if (h[i]) atomicAdd(hist + i, (unsigned long long)h[i]);
}

/* Pass 2: each piece's sort key (tile << sub_bits | sub) and payload (CSR start << 32 |
 * len << 16 | row within the panel) at the row's place row_seg[i] + j, in row order. */
__global__ void __launch_bounds__(SPX_HBP_BUILD_BLOCK)
    hbp_emit_kernel(walk_args w, const int64_t *__restrict__ row_seg, int sort, int agg, int sub_bits,
                    uint64_t *__restrict__ key, uint64_t *__restrict__ seg)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < w.m; i += stride) {
        const int64_t e = __ldg(w.rowptr + i + 1), p = i / w.H, r = i - p * w.H;
        int64_t s = __ldg(row_seg + i);
        for (int64_t k = __ldg(w.rowptr + i); k < e;) {
            const int64_t cb = (int64_t)__ldg(w.colind + k) >> w.lw;
            const int64_t q = run_end(w.colind, k, e, (cb + 1) << w.lw);
            const int run = (int)(q - k), n = SPX_HBP_PIECES(run);
            const uint64_t tile = (uint64_t)p * (uint64_t)w.ncb + (uint64_t)cb;
            for (int j = 0; j < n; j++, s++) {
                const int len = SPX_HBP_PIECE_LEN(run, n, j);
                const uint64_t sub = sort ? (uint64_t)(len - 1) : (uint64_t)SPX_HBP_BUCKET(len, agg);
                key[s] = (tile << sub_bits) | sub;
                seg[s] = ((uint64_t)(k + SPX_HBP_PIECE_OFF(run, n, j)) << 32) | ((uint64_t)len << 16) | (uint64_t)r;
            }
            k = q;
        }
    }
}

/* Slots in order: slot_row, slot_len from the payloads; head[s] = 1 where a tile starts
 * (head[n_slots] = 0, for the scan). */
__global__ void __launch_bounds__(SPX_HBP_BUILD_BLOCK)
    hbp_slot_kernel(const uint64_t *__restrict__ key, const uint64_t *__restrict__ seg, int64_t n_slots, int sub_bits,
                    uint16_t *__restrict__ slot_row, uint16_t *__restrict__ slot_len, int64_t *__restrict__ head)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; s <= n_slots; s += stride) {
        if (s == n_slots) {
            head[s] = 0;
            continue;
        }
        const uint64_t v = __ldg(seg + s);
        slot_row[s] = (uint16_t)(v & 0xffffu);
        slot_len[s] = (uint16_t)((v >> 16) & 0xffffu);
        head[s] = s == 0 || (__ldg(key + s) >> sub_bits) != (__ldg(key + s - 1) >> sub_bits);
    }
}

/* Tiles: tile tidx[s] starts at each head s (tile_slot, tile_colblock); tile_slot[n_tiles] =
 * n_slots. */
__global__ void __launch_bounds__(SPX_HBP_BUILD_BLOCK)
    hbp_tile_kernel(const uint64_t *__restrict__ key, const int64_t *__restrict__ tidx, int64_t n_slots, int64_t n_tiles,
                    int sub_bits, int64_t ncb, int64_t *__restrict__ tile_slot, int32_t *__restrict__ tile_colblock)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; s <= n_slots; s += stride) {
        if (s == n_slots) {
            tile_slot[n_tiles] = n_slots;
        } else if (__ldg(tidx + s + 1) != __ldg(tidx + s)) { /* a head */
            const int64_t t = __ldg(tidx + s);
            tile_slot[t] = s;
            tile_colblock[t] = (int32_t)((__ldg(key + s) >> sub_bits) % (uint64_t)ncb);
        }
    }
}

/* The panel of tile t (its first slot's key). */
__device__ __forceinline__ int64_t panel_of_tile(const uint64_t *__restrict__ key, const int64_t *__restrict__ tile_slot,
                                                 int64_t t, int sub_bits, int64_t ncb)
{
    return (int64_t)((__ldg(key + __ldg(tile_slot + t)) >> sub_bits) / (uint64_t)ncb);
}

/* Per tile: its groups (gcnt[n_tiles] = 0, for the scan). Per panel q <= n_panels:
 * panel_tile[q] = the first tile of a panel >= q (binary search over the tiles' panels). */
__global__ void __launch_bounds__(SPX_HBP_BUILD_BLOCK)
    hbp_build_panels_kernel(const uint64_t *__restrict__ key, const int64_t *__restrict__ tile_slot, int64_t n_tiles,
                     int64_t n_panels, int sub_bits, int64_t ncb, int64_t *__restrict__ gcnt,
                     int64_t *__restrict__ panel_tile)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    const int64_t items = n_tiles > n_panels ? n_tiles + 1 : n_panels + 1;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < items; i += stride) {
        if (i < n_tiles)
            gcnt[i] = (__ldg(tile_slot + i + 1) - __ldg(tile_slot + i) + SPX_HBP_GROUP - 1) / SPX_HBP_GROUP;
        else if (i == n_tiles)
            gcnt[i] = 0;
        if (i <= n_panels) {
            int64_t lo = 0, hi = n_tiles; /* first t with panel(t) >= i */
            while (lo < hi) {
                const int64_t mid = lo + ((hi - lo) >> 1);
                if (panel_of_tile(key, tile_slot, mid, sub_bits, ncb) < i)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            panel_tile[i] = lo;
        }
    }
}

/* The tile holding group g: the last t < n_tiles with tile_group[t] <= g. */
__device__ __forceinline__ int64_t tile_of_group(const int64_t *__restrict__ tile_group, int64_t n_tiles, int64_t g)
{
    return hbp_last_le(tile_group, (int64_t)0, n_tiles - 1, g);
}

/* Group g's first slot and slot count (<= 32), given its tile t. */
__device__ __forceinline__ int64_t group_slots(const int64_t *__restrict__ tile_slot,
                                               const int64_t *__restrict__ tile_group, int64_t t, int64_t g, int *k)
{
    const int64_t s0 = __ldg(tile_slot + t) + (g - __ldg(tile_group + t)) * SPX_HBP_GROUP;
    const int64_t rem = __ldg(tile_slot + t + 1) - s0;
    *k = rem < SPX_HBP_GROUP ? (int)rem : SPX_HBP_GROUP;
    return s0;
}

/* One warp per group: glen[g] = the group's entries (glen[n_groups] = 0, for the scan). */
__global__ void __launch_bounds__(SPX_HBP_BUILD_BLOCK)
    hbp_group_len_kernel(const int64_t *__restrict__ tile_slot, const int64_t *__restrict__ tile_group,
                         const uint16_t *__restrict__ slot_len, int64_t n_tiles, int64_t n_groups,
                         int64_t *__restrict__ glen)
{
    const int lane = threadIdx.x & 31;
    const int64_t nw = (int64_t)gridDim.x * (blockDim.x >> 5);
    if (blockIdx.x == 0 && threadIdx.x == 0) glen[n_groups] = 0;
    for (int64_t g = (int64_t)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); g < n_groups; g += nw) {
        int k;
        const int64_t s0 = group_slots(tile_slot, tile_group, tile_of_group(tile_group, n_tiles, g), g, &k);
        const unsigned len = lane < k ? (unsigned)__ldg(slot_len + s0 + lane) : 0u;
        const unsigned sum = __reduce_add_sync(SPX_FULL_MASK, len);
        if (lane == 0) glen[g] = (int64_t)sum;
    }
}

/* What the entry pass reads and writes. */
template <typename VT>
struct entry_args {
    const int32_t *__restrict__ colind;
    const VT *__restrict__ val;
    const uint64_t *__restrict__ seg; /* payloads in slot order */
    const int64_t *__restrict__ tile_slot, *__restrict__ tile_group, *__restrict__ group_nnz;
    const int32_t *__restrict__ tile_colblock;
    int64_t n_tiles, n_groups, W;
    uint16_t *__restrict__ col;
    VT *__restrict__ out;
    double *bal; /* [2]: sum over groups of the stddev of len, of the longest len */
};

/* The Fig. 6 figures of one group on a warp: the stddev and the largest of the k lanes' len. */
__device__ __forceinline__ void group_balance(int len, int k, double *std, double *mx)
{
    const int lane = threadIdx.x & 31;
    const double mean = (double)__reduce_add_sync(SPX_FULL_MASK, (unsigned)len) / (double)k;
    const double d = lane < k ? ((double)len - mean) * ((double)len - mean) : 0.0;
    *std = sqrt(spx_group_sum<32>(d) / (double)k);
    *mx = (double)__reduce_max_sync(SPX_FULL_MASK, (unsigned)len);
}

/* One warp per group: its entries step-major (step st: entry st of every slot longer than st,
 * ranked by a ballot, as the SpMV kernels read them), column offsets inside the tile; the
 * group's balance summed per warp, one atomic per warp at the end. */
template <typename VT>
__global__ void __launch_bounds__(SPX_HBP_BUILD_BLOCK) hbp_entry_kernel(entry_args<VT> a)
{
    const int lane = threadIdx.x & 31;
    const unsigned below = (1u << lane) - 1u;
    const int64_t nw = (int64_t)gridDim.x * (blockDim.x >> 5);
    double sum_std = 0.0, sum_max = 0.0;
    for (int64_t g = (int64_t)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); g < a.n_groups; g += nw) {
        const int64_t t = tile_of_group(a.tile_group, a.n_tiles, g);
        int k;
        const int64_t s0 = group_slots(a.tile_slot, a.tile_group, t, g, &k);
        const uint64_t v = lane < k ? __ldg(a.seg + s0 + lane) : 0ull;
        const int len = (int)((v >> 16) & 0xffffu);
        const int64_t start = (int64_t)(v >> 32), cbase = (int64_t)__ldg(a.tile_colblock + t) * a.W;
        double sd, mx;
        group_balance(len, k, &sd, &mx);
        sum_std += sd;
        sum_max += mx;
        int64_t pos = __ldg(a.group_nnz + g);
        for (int st = 0; st < (int)mx; st++) {
            const unsigned act = __ballot_sync(SPX_FULL_MASK, len > st);
            if (len > st) {
                const int64_t q = pos + __popc(act & below);
                a.col[q] = (uint16_t)((int64_t)__ldg(a.colind + start + st) - cbase);
                a.out[q] = __ldg(a.val + start + st);
            }
            pos += __popc(act);
        }
    }
    if (lane == 0 && sum_max > 0.0) {
        atomicAdd(a.bal, sum_std);
        atomicAdd(a.bal + 1, sum_max);
    }
}

/* Scratch of one build (device), freed whatever happens. */
struct build_ws {
    int64_t *nseg, *row_seg;        /* [m + 1] */
    unsigned long long *hist;       /* [32] */
    uint64_t *key[2], *seg[2];      /* [n_slots]: radix sort ping-pong */
    int64_t *head, *tidx;           /* [n_slots + 1] */
    int64_t *gcnt, *glen;           /* [n_tiles + 1], [n_groups + 1] */
    double *bal;                    /* [2] */
    void *temp;                     /* CUB's scratch */
    size_t temp_bytes;
};

void ws_free(spx_ctx *ctx, build_ws *w)
{
    void *p[] = {w->nseg, w->row_seg, w->hist, w->key[0], w->key[1], w->seg[0], w->seg[1],
                 w->head, w->tidx, w->gcnt, w->glen, w->bal, w->temp};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) spx_cuda_free(ctx, p[i]);
}

/* Grows the build's CUB scratch to at least bytes. */
spx_status ws_temp(spx_ctx *ctx, build_ws *w, size_t bytes)
{
    return spx_cuda_grow_scratch(ctx, &w->temp, &w->temp_bytes, bytes);
}

/* out[0..n) = exclusive prefix sums of in[0..n) (int64), on the context's stream. */
spx_status scan64(spx_ctx *ctx, build_ws *w, const int64_t *in, int64_t *out, int64_t n)
{
    return spx_hbp_dev_scan64(ctx, in, out, n, &w->temp, &w->temp_bytes);
}

/* Grid of a grid-stride launch over items (threads, or warps when per_warp). */
unsigned grid_for(const spx_ctx *ctx, int64_t items, bool per_warp)
{
    const long long threads = per_warp ? (long long)items * 32 : (long long)items;
    return spx_cuda_grid_stride_blocks(ctx, threads, SPX_HBP_BUILD_BLOCK, SPX_HBP_BUILD_BLOCKS_PER_SM);
}

/* Bits needed to write v (0 for 0). */
int bits_of(uint64_t v)
{
    int b = 0;
    while (b < 64 && (v >> b)) b++;
    return b;
}

/* One build's fixed inputs. */
struct build_in {
    const spx_dev_csr *A;
    walk_args w;
    int sort, sub_bits, end_bit;
};

/* Count pass: ws->row_seg (each row's first segment), L->n_slots, L->agg_shift. */
spx_status pass_count(spx_ctx *ctx, const build_in *in, build_ws *ws, spx_hbp_fmt *L)
{
    const int64_t m = in->A->m;
    spx_status s = spx_cuda_malloc(ctx, (void **)&ws->nseg, (size_t)(m + 1) * sizeof(int64_t));
    if (!s) s = spx_cuda_malloc(ctx, (void **)&ws->row_seg, (size_t)(m + 1) * sizeof(int64_t));
    if (!s) s = spx_cuda_malloc(ctx, (void **)&ws->hist, 32 * sizeof(unsigned long long));
    if (s) return s;
    const cudaStream_t st = spx_cuda_stream(ctx);
    SPX_CUDA_RET(ctx, cudaMemsetAsync(ws->hist, 0, 32 * sizeof(unsigned long long), st));
    hbp_count_kernel<<<grid_for(ctx, m, false), SPX_HBP_BUILD_BLOCK, 0, st>>>(in->w, ws->nseg, ws->hist);
    SPX_CUDA_LAUNCHED(ctx, "hbp_count_kernel");
    if ((s = scan64(ctx, ws, ws->nseg, ws->row_seg, m + 1))) return s;
    unsigned long long h[32];
    int64_t hist[32];
    if ((s = spx_cuda_d2h(ctx, h, ws->hist, sizeof h))) return s;
    if ((s = spx_cuda_d2h(ctx, &L->n_slots, ws->row_seg + m, sizeof L->n_slots))) return s;
    for (int i = 0; i < 32; i++) hist[i] = (int64_t)h[i];
    L->agg_shift = spx_hbp_agg_shift(hist);
    return SPX_OK;
}

/* Reorder pass: the segments' keys and payloads in slot order (*key, *seg point into ws). */
spx_status pass_order(spx_ctx *ctx, const build_in *in, build_ws *ws, spx_hbp_fmt *L, const uint64_t **key,
                      const uint64_t **seg)
{
    const int64_t S = L->n_slots;
    const size_t bytes = (size_t)S * sizeof(uint64_t);
    spx_status s = SPX_OK;
    for (int i = 0; i < 2 && !s; i++) {
        s = spx_cuda_malloc(ctx, (void **)&ws->key[i], bytes);
        if (!s) s = spx_cuda_malloc(ctx, (void **)&ws->seg[i], bytes);
    }
    if (s) return s;
    *key = ws->key[0];
    *seg = ws->seg[0];
    if (S == 0) return SPX_OK;
    const cudaStream_t st = spx_cuda_stream(ctx);
    hbp_emit_kernel<<<grid_for(ctx, in->A->m, false), SPX_HBP_BUILD_BLOCK, 0, st>>>(
        in->w, ws->row_seg, in->sort, L->agg_shift, in->sub_bits, ws->key[0], ws->seg[0]);
    SPX_CUDA_LAUNCHED(ctx, "hbp_emit_kernel");
    cub::DoubleBuffer<uint64_t> k(ws->key[0], ws->key[1]), v(ws->seg[0], ws->seg[1]);
    size_t tb = 0;
    SPX_CUDA_RET(ctx, cub::DeviceRadixSort::SortPairs(NULL, tb, k, v, S, 0, in->end_bit, st));
    if ((s = ws_temp(ctx, ws, tb))) return s;
    tb = ws->temp_bytes;
    SPX_CUDA_RET(ctx, cub::DeviceRadixSort::SortPairs(ws->temp, tb, k, v, S, 0, in->end_bit, st));
    *key = k.Current();
    *seg = v.Current();
    return spx_cuda_sync(ctx); /* the phase's time is the GPU's */
}

/* Allocates L's device arrays [from, upto) of the array table, of the counts known so far. */
spx_status alloc_arrays(spx_ctx *ctx, spx_hbp_fmt *L, int from, int upto)
{
    return hbp_table_alloc(ctx, hbp_table_of(L), from, upto);
}

/* The array table's order (hbp.h spx_hbp_arrays): panel_tile, tile_colblock, tile_slot,
 * tile_group, group_nnz, slot_row, slot_len, col, values. */
enum { A_PANEL_TILE, A_TILE_COLBLOCK, A_TILE_SLOT, A_TILE_GROUP, A_GROUP_NNZ, A_SLOT_ROW, A_SLOT_LEN, A_COL, A_VAL };

/* Convert, tiles: slot_row, slot_len, tile_slot, tile_colblock, panel_tile, tile_group;
 * L->n_tiles, L->n_groups. */
spx_status pass_tiles(spx_ctx *ctx, const build_in *in, build_ws *ws, spx_hbp_fmt *L, const uint64_t *key,
                      const uint64_t *seg)
{
    const int64_t S = L->n_slots, ncb = in->w.ncb;
    const cudaStream_t st = spx_cuda_stream(ctx);
    spx_status s = alloc_arrays(ctx, L, A_SLOT_ROW, A_SLOT_LEN + 1);
    if (!s) s = spx_cuda_malloc(ctx, (void **)&ws->head, (size_t)(S + 1) * sizeof(int64_t));
    if (!s) s = spx_cuda_malloc(ctx, (void **)&ws->tidx, (size_t)(S + 1) * sizeof(int64_t));
    if (s) return s;
    hbp_slot_kernel<<<grid_for(ctx, S + 1, false), SPX_HBP_BUILD_BLOCK, 0, st>>>(key, seg, S, in->sub_bits,
                                                                              L->slot_row, L->slot_len, ws->head);
    SPX_CUDA_LAUNCHED(ctx, "hbp_slot_kernel");
    if ((s = scan64(ctx, ws, ws->head, ws->tidx, S + 1))) return s;
    if ((s = spx_cuda_d2h(ctx, &L->n_tiles, ws->tidx + S, sizeof L->n_tiles))) return s;
    s = alloc_arrays(ctx, L, A_PANEL_TILE, A_TILE_GROUP + 1);
    if (!s) s = spx_cuda_malloc(ctx, (void **)&ws->gcnt, (size_t)(L->n_tiles + 1) * sizeof(int64_t));
    if (s) return s;
    hbp_tile_kernel<<<grid_for(ctx, S + 1, false), SPX_HBP_BUILD_BLOCK, 0, st>>>(
        key, ws->tidx, S, L->n_tiles, in->sub_bits, ncb, L->tile_slot, L->tile_colblock);
    SPX_CUDA_LAUNCHED(ctx, "hbp_tile_kernel");
    const int64_t items = (L->n_tiles > L->n_panels ? L->n_tiles : L->n_panels) + 1;
    hbp_build_panels_kernel<<<grid_for(ctx, items, false), SPX_HBP_BUILD_BLOCK, 0, st>>>(
        key, L->tile_slot, L->n_tiles, L->n_panels, in->sub_bits, ncb, ws->gcnt, L->panel_tile);
    SPX_CUDA_LAUNCHED(ctx, "hbp_build_panels_kernel");
    if ((s = scan64(ctx, ws, ws->gcnt, L->tile_group, L->n_tiles + 1))) return s;
    return spx_cuda_d2h(ctx, &L->n_groups, L->tile_group + L->n_tiles, sizeof L->n_groups);
}

/* Convert, entries: group_nnz, col, values, and the "after" balance figures. */
template <typename VT>
spx_status pass_entries(spx_ctx *ctx, const build_in *in, build_ws *ws, spx_hbp_fmt *L, const uint64_t *seg)
{
    const cudaStream_t st = spx_cuda_stream(ctx);
    spx_status s = alloc_arrays(ctx, L, A_GROUP_NNZ, A_GROUP_NNZ + 1);
    if (!s) s = alloc_arrays(ctx, L, A_COL, A_VAL + 1);
    if (!s) s = spx_cuda_malloc(ctx, (void **)&ws->glen, (size_t)(L->n_groups + 1) * sizeof(int64_t));
    if (!s) s = spx_cuda_malloc(ctx, (void **)&ws->bal, 2 * sizeof(double));
    if (s) return s;
    SPX_CUDA_RET(ctx, cudaMemsetAsync(ws->bal, 0, 2 * sizeof(double), st));
    hbp_group_len_kernel<<<grid_for(ctx, L->n_groups, true), SPX_HBP_BUILD_BLOCK, 0, st>>>(
        L->tile_slot, L->tile_group, L->slot_len, L->n_tiles, L->n_groups, ws->glen);
    SPX_CUDA_LAUNCHED(ctx, "hbp_group_len_kernel");
    if ((s = scan64(ctx, ws, ws->glen, L->group_nnz, L->n_groups + 1))) return s;
    if (L->n_groups > 0) {
        entry_args<VT> a;
        a.colind = in->A->colind;
        a.val = (const VT *)in->A->val;
        a.seg = seg;
        a.tile_slot = L->tile_slot;
        a.tile_group = L->tile_group;
        a.group_nnz = L->group_nnz;
        a.tile_colblock = L->tile_colblock;
        a.n_tiles = L->n_tiles;
        a.n_groups = L->n_groups;
        a.W = L->W;
        a.col = L->col;
        a.out = (VT *)(L->precision == SPX_FP32 ? (void *)L->val32 : (void *)L->val64);
        a.bal = ws->bal;
        hbp_entry_kernel<VT><<<grid_for(ctx, L->n_groups, true), SPX_HBP_BUILD_BLOCK, 0, st>>>(a);
        SPX_CUDA_LAUNCHED(ctx, "hbp_entry_kernel");
    }
    double bal[2];
    if ((s = spx_cuda_d2h(ctx, bal, ws->bal, sizeof bal))) return s;
    L->balance_after = L->n_groups > 0 ? bal[0] / (double)L->n_groups : 0.0;
    L->lane_util_after = bal[1] > 0 ? (double)L->nnz / (SPX_HBP_GROUP * bal[1]) : 1.0;
    L->balance_before = L->lane_util_before = NAN;
    return SPX_OK;
}

/* The tile shape (the rule's for 0, 0, within the device's shared memory) and L's header;
 * the build's fixed inputs. */
spx_status setup(spx_ctx *ctx, const spx_dev_csr *A, const spx_features *feat, const char *algo, int32_t H,
                 int32_t W, spx_hbp_fmt *L, build_in *in)
{
    int a = spx_hbp_algo_from_name(algo);
    if (a < 0) return spx_fail(ctx, SPX_ERR_ARG, "hbp: unknown algorithm '%s'", algo);
    a = spx_hbp_algo_resolve(a, A->n, (int)spx_precision_bytes(A->precision), feat);
    if (a == SPX_HBP_BAND || a == SPX_HBP_HOT || a == SPX_HBP_WIDE)
        return spx_fail(ctx, SPX_ERR_ARG, "hbp device build: the %s layout has its own device build",
                        spx_hbp_algo_names[a]);
    if (A->m < 0 || A->n < 0 || A->nnz < 0 || A->nnz > INT32_MAX)
        return spx_fail(ctx, SPX_ERR_ARG, "hbp device build: bad CSR sizes %d x %d, %lld entries", A->m, A->n,
                        (long long)A->nnz);
    spx_status s = spx_cuda_init(ctx);
    if (s) return s;
    if (H == 0 && W == 0) {
        const spx_cuda_state *cs = spx_cuda_state_of(ctx);
        long long smem = cs && cs->smem_per_block_optin > 0 ? cs->smem_per_block_optin : SPX_HBP_SMEM_BUDGET;
        if (smem > SPX_HBP_SMEM_BUDGET) smem = SPX_HBP_SMEM_BUDGET;
        spx_hbp_tile_shape(feat, (int)spx_precision_bytes(A->precision), smem, &H, &W);
    }
    if ((s = spx_hbp_check_shape(ctx, H, W))) return s;
    spx_hbp_fmt_header(L, A->m, A->n, A->nnz, A->precision, (spx_hbp_algo)a, H, W);
    in->A = A;
    in->w.rowptr = A->rowptr;
    in->w.colind = A->colind;
    in->w.m = A->m;
    in->w.H = H;
    in->w.lw = bits_of((uint64_t)W) - 1;
    in->w.ncb = L->n_colblocks;
    in->sort = L->algo == SPX_HBP_SORT;
    in->sub_bits = in->sort ? SORT_SUB_BITS : HASH_SUB_BITS;
    const uint64_t tiles = (uint64_t)L->n_panels * (uint64_t)L->n_colblocks;
    in->end_bit = bits_of(tiles > 0 ? tiles - 1 : 0) + in->sub_bits;
    if (in->end_bit > 64)
        return spx_fail(ctx, SPX_ERR_OVERFLOW, "hbp device build: %d panels x %d column blocks exceed a 64-bit key",
                        L->n_panels, L->n_colblocks);
    return SPX_OK;
}

} /* namespace */

extern "C" spx_status spx_hbp_dev_scan64(spx_ctx *ctx, const int64_t *in, int64_t *out, int64_t n, void **temp,
                                         size_t *temp_bytes)
{
    return spx_cuda_exclusive_sum(ctx, in, out, n, temp, temp_bytes);
}

extern "C" spx_status spx_hbp_dev_build(spx_ctx *ctx, const spx_dev_csr *A, const spx_features *feat,
                                        const char *algo, int32_t H, int32_t W, spx_phase_log *log, spx_hbp_fmt *L)
{
    if (!ctx || !A || !L) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "hbp device build: NULL argument") : SPX_ERR_ARG;
    build_in in;
    build_ws ws;
    memset(&ws, 0, sizeof ws);
    memset(L, 0, sizeof *L);
    const uint64_t *key = NULL, *seg = NULL;
    spx_status s = setup(ctx, A, feat, algo, H, W, L, &in);
    if (s) return s;
    double t0 = spx_now();
    s = pass_count(ctx, &in, &ws, L);
    spx_phase_add(log, "count", spx_now() - t0);
    if (!s) {
        t0 = spx_now();
        s = pass_order(ctx, &in, &ws, L, &key, &seg);
        spx_phase_add(log, in.sort ? "sort" : "hash", spx_now() - t0);
    }
    if (!s) {
        t0 = spx_now();
        s = pass_tiles(ctx, &in, &ws, L, key, seg);
        if (!s)
            s = L->precision == SPX_FP32 ? pass_entries<float>(ctx, &in, &ws, L, seg)
                                         : pass_entries<double>(ctx, &in, &ws, L, seg);
        if (!s) s = spx_cuda_sync(ctx);
        spx_phase_add(log, "convert", spx_now() - t0);
    }
    ws_free(ctx, &ws);
    if (s) spx_hbp_dev_free(ctx, L);
    return s;
}
