/* src/formats/ehyb/ehyb_cuda.cu: the ehyb format on the GPU (paper Algorithm 3): upload of the
 * host layout, the slice kernel (each block caches its part's x segment in shared memory,
 * gathered through the column permutation; its warps take the part's slices, or its share
 * of them, from a
 * shared-memory counter, G lanes a row summing its ELL entries from shared memory and its ER
 * entries from global memory; y written once through the row permutation; blocks after the
 * parts' take the long rows, a warp a whole row), and the download for the device round
 * trip. One launch per SpMV, every y written by one lane group or warp: no atomics,
 * deterministic. */
#include <stdio.h>
#include <string.h>

#include "cuda/primitives.cuh"
#include "cuda/runtime.cuh"
#include "formats/ehyb/ehyb.h"
#include "formats/ehyb/ehyb_cuda_tuning.h"
#include "formats/ehyb/ehyb_dev.cuh"

/* Sums in fp64 for both precisions (as the csr kernels: one rounding per row in fp32). */
typedef double acc_t;

/* The GPU state: the host layout's counts with device pointers in its array fields. */
typedef struct ehyb_dev {
    spx_ehyb_fmt L;
    size_t smem_bytes;     /* dynamic shared memory of the slice kernel: seg_max + 1 values */
    int32_t part_grid;     /* blocks of the slice kernel over the parts (each a share of a part's slices) */
    int32_t max_part_blocks; /* the most blocks one part has */
    bool longest_first;        /* unequal parts: the blocks ordered by descending share */
    int2 *block_task;          /* device, part_grid: each such block's {part, share | C << 16} (set_blocks) */
    bool prefetch;              /* the kernel prefetches slices into L2 (prefetches) */
    int64_t prefetch_whole_max; /* slice bytes up to which a slice is prefetched whole */
    int32_t *host_perm;         /* built on the device in plan order: row_perm on the host (the
                                   plan's permutation), else NULL */
    char kernel[64];
} ehyb_dev;

namespace {

/* #pragma unroll takes a constant expression, not a macro. */
constexpr int EHYB_UNROLL = SPX_EHYB_CUDA_UNROLL;
constexpr int EHYB_ER_UNROLL = SPX_EHYB_CUDA_ER_UNROLL;
constexpr int64_t EHYB_PREFETCH_LEAD = SPX_EHYB_CUDA_PREFETCH_LEAD;
constexpr int64_t EHYB_CHUNK = 32 * EHYB_UNROLL;

/* The kernel's operands (passed by value). */
template <typename VT>
struct slice_view {
    const int32_t *row_start, *col_start, *row_perm, *col_perm, *part_slice, *er_col;
    const int64_t *ell_ptr, *er_ptr;
    const uint16_t *ell_col;
    const VT *ell_val, *er_val;
    int32_t n_long;
    const int32_t *long_row, *long_col;
    const int64_t *long_ptr;
    const VT *long_val, *x;
    VT *y;
    acc_t a, b;
    int32_t lanes;       /* G: lanes per row, a power of two <= 32 */
    const int2 *block_task; /* block -> {part, share | C << 16} */
    int32_t part_grid; /* the parts' blocks, before the long rows' */
    bool read_y;         /* b != 0 (BLAS rule: b == 0 never reads y) */
    bool prefetch;              /* slices prefetched into L2 (host: prefetches) */
    int64_t prefetch_whole_max; /* longer slices take the chunked loop (host: prefetch_whole_max) */
};

/* Long row w (one warp, after the parts' blocks in the same launch): its whole row with x
 * from global memory, a shuffle tree, y = a*sum + b*y. Long rows are in no slice, so no
 * other thread writes their y. */
template <typename VT>
__device__ void long_row(const slice_view<VT> &v, int64_t w, int lane)
{
    const int64_t end = __ldg(v.long_ptr + w + 1);
    acc_t sum = 0;
    for (int64_t k = __ldg(v.long_ptr + w) + lane; k < end; k += 32)
        sum += (acc_t)spx_ld_stream(v.long_val + k) * (acc_t)__ldg(v.x + spx_ld_stream(v.long_col + k));
    sum = spx_group_sum<32>(sum);
    if (lane == 0) {
        const int32_t i = __ldg(v.long_row + w);
        acc_t out = v.a * sum;
        if (v.read_y) out += v.b * (acc_t)v.y[i];
        v.y[i] = (VT)out;
    }
}

/* Where slice s's entries lie in the ELL and ER arrays. */
struct slice_bounds {
    int64_t ell_begin, ell_end, er_begin, er_end;
};

/* Slice s's bounds (four loads, one memory round trip). */
template <typename VT>
__device__ slice_bounds load_bounds(const slice_view<VT> &v, int32_t s)
{
    return {__ldg(v.ell_ptr + s), __ldg(v.ell_ptr + s + 1), __ldg(v.er_ptr + s), __ldg(v.er_ptr + s + 1)};
}

/* The bytes of a slice's ELL and ER entries (values and columns). */
template <typename VT>
__device__ __forceinline__ int64_t slice_bytes(const slice_bounds &b)
{
    return (b.ell_end - b.ell_begin) * (int64_t)(sizeof(VT) + sizeof(uint16_t)) +
           (b.er_end - b.er_begin) * (int64_t)(sizeof(VT) + sizeof(int32_t));
}

/* Asks the L2 for ELL entries [from, to) of slice b (clipped to its end), and for its ER
 * entries when the span reaches the ELL end (at the slice's start, or from inside the ELL). */
template <typename VT>
__device__ void prefetch_span(const slice_view<VT> &v, const slice_bounds &b, int64_t from, int64_t to, bool start)
{
    if (to > b.ell_end) to = b.ell_end;
    if (from < to) {
        spx_prefetch_l2(v.ell_val + from, (size_t)(to - from) * sizeof(VT));
        spx_prefetch_l2(v.ell_col + from, (size_t)(to - from) * sizeof(uint16_t));
    }
    if (to == b.ell_end && (start || from < to)) {
        spx_prefetch_l2(v.er_col + b.er_begin, (size_t)(b.er_end - b.er_begin) * sizeof(int32_t));
        spx_prefetch_l2(v.er_val + b.er_begin, (size_t)(b.er_end - b.er_begin) * sizeof(VT));
    }
}

/* Asks the L2 for a whole slice, ELL and ER entries (one lane calls it). */
template <typename VT>
__device__ void prefetch_slice(const slice_view<VT> &v, const slice_bounds &b)
{
    prefetch_span(v, b, b.ell_begin, b.ell_end, true);
}

/* The block's next slice, from its shared counter (lane 0 claims; every lane gets it). */
__device__ __forceinline__ int32_t claim_slice(int32_t *counter, int lane)
{
    int32_t n = 0;
    if (lane == 0) n = atomicAdd(counter, 1);
    return __shfl_sync(SPX_FULL_MASK, n, 0);
}

/* Slices (Algorithm 3 lines 1-20, the ER part fused in) and long rows, one launch. Block b
 * of the parts' takes task block_task[b] = {p, share | C << 16}: the share-th of C equal
 * shares of part p's slices. It loads
 * x[col_perm[col_start[p] + t]] for t < L into shared memory, cell L = 0 (padding's
 * target); each warp starts at the
 * share's slice first + warp and then takes the next from the block's counter. Lane l of
 * the part's slice j belongs to the row new row_start[p] + (32/G) j + l/G: it sums its ELL
 * slots (x from shared memory) and its ER slots (x from global memory, padding -1 not read);
 * the G lanes' sums meet by a butterfly and the group's first lane writes y[row_perm[...]] =
 * a*sum + b*y. Dynamic shared memory holds seg_max + 1 values; every offset read is <= L <=
 * seg_max. The blocks after nparts x C take the long rows, a warp each (long_row). The
 * launch bound keeps the registers at 32 a thread, so the layout's blocks an SM (4 of 512
 * threads or 2 of 1024) fit an SM as the segments were sized for (loading the first ER step
 * ahead of the ELL loop took 38: 3 blocks an SM, poisson3d n = 100 0.91x -> 0.76x ALG1).
 * With v.prefetch (a layout larger than the L2), a warp asks the L2 for a slice's entries as
 * it starts it: the whole slice when it has at most v.prefetch_whole_max bytes, else
 * EHYB_PREFETCH_LEAD entries ahead of its loads, a chunk of EHYB_UNROLL steps at a time.
 * PLAN_ORDER (the layout's plan_order): x and y in the new numbering, no permutation read.
 * BLOCK: threads a block, the layout's shape (spx_ehyb_block_threads). */
template <typename VT, bool PLAN_ORDER, int BLOCK>
__global__ void __launch_bounds__(BLOCK, SPX_EHYB_SM_THREADS / BLOCK) ehyb_slice_kernel(slice_view<VT> v)
{
    extern __shared__ __align__(16) unsigned char ehyb_smem[];
    VT *xs = reinterpret_cast<VT *>(ehyb_smem);
    __shared__ int32_t next_slice;
    if ((int32_t)blockIdx.x >= v.part_grid) { /* a long rows' block (block-uniform) */
        const int64_t w = (int64_t)(blockIdx.x - v.part_grid) * (BLOCK / 32) + (threadIdx.x >> 5);
        if (w < v.n_long) long_row(v, w, threadIdx.x & 31);
        return;
    }
    const int2 task = __ldg(v.block_task + blockIdx.x);
    const int32_t p = task.x, C = task.y >> 16, share = task.y & 0xffff;
    /* the part's bounds, loaded together (one memory round trip, not three) */
    const int32_t s0 = __ldg(v.part_slice + p), s_end = __ldg(v.part_slice + p + 1);
    const int32_t c0 = __ldg(v.col_start + p), c_end = __ldg(v.col_start + p + 1);
    const int32_t r0 = __ldg(v.row_start + p), r1 = __ldg(v.row_start + p + 1);
    const int32_t first = s0 + (int32_t)((int64_t)(s_end - s0) * share / C);
    const int32_t last = s0 + (int32_t)((int64_t)(s_end - s0) * (share + 1) / C);
    if (first == last) return; /* no slices for this block (block-uniform, before any barrier) */
    const int32_t seg = c_end - c0;
#pragma unroll 4
    for (int32_t t = threadIdx.x; t < seg; t += BLOCK)
        xs[t] = PLAN_ORDER ? __ldg(v.x + c0 + t) : __ldg(v.x + __ldg(v.col_perm + c0 + t));
    if (threadIdx.x == 0) {
        xs[seg] = VT(0);
        next_slice = first + BLOCK / 32;
    }
    __syncthreads();
    const int lane = threadIdx.x & 31, G = v.lanes;
    const int32_t first_row = r0 + lane / G;
    int32_t s = first + (int32_t)(threadIdx.x >> 5);
    while (s < last) { /* warp-uniform */
        const slice_bounds cur = load_bounds(v, s);
        const int32_t r = first_row + (s - s0) * (32 / G);
        const bool writes = (lane & (G - 1)) == 0 && r < r1;
        const int32_t i = !writes ? 0 : PLAN_ORDER ? r : __ldg(v.row_perm + r); /* in flight during the sums */
        acc_t sum = 0;
        if (slice_bytes<VT>(cur) <= v.prefetch_whole_max) { /* warp-uniform */
            if (v.prefetch && lane == 0) prefetch_slice(v, cur);
#pragma unroll EHYB_UNROLL
            for (int64_t k = cur.ell_begin + lane; k < cur.ell_end; k += 32)
                sum += (acc_t)spx_ld_stream(v.ell_val + k) * (acc_t)xs[spx_ld_stream(v.ell_col + k)];
        } else { /* a long slice: EHYB_PREFETCH_LEAD entries ahead of the loads, a chunk at a time */
            if (lane == 0) prefetch_span(v, cur, cur.ell_begin, cur.ell_begin + EHYB_PREFETCH_LEAD, true);
            for (int64_t k0 = cur.ell_begin; k0 < cur.ell_end; k0 += EHYB_CHUNK) {
                const int64_t ahead = k0 + EHYB_PREFETCH_LEAD;
                if (lane == 0) prefetch_span(v, cur, ahead, ahead + EHYB_CHUNK, false);
#pragma unroll
                for (int j = 0; j < EHYB_UNROLL; ++j) {
                    const int64_t k = k0 + 32 * j + lane;
                    if (k < cur.ell_end)
                        sum += (acc_t)spx_ld_stream(v.ell_val + k) * (acc_t)xs[spx_ld_stream(v.ell_col + k)];
                }
            }
        }
#pragma unroll EHYB_ER_UNROLL
        for (int64_t k = cur.er_begin + lane; k < cur.er_end; k += 32) {
            const int32_t c = spx_ld_stream(v.er_col + k);
            if (c >= 0) sum += (acc_t)spx_ld_stream(v.er_val + k) * (acc_t)__ldg(v.x + c);
        }
        for (int off = G / 2; off >= 1; off /= 2) sum += __shfl_xor_sync(SPX_FULL_MASK, sum, off);
        if (writes) {
            acc_t out = v.a * sum;
            if (v.read_y) out += v.b * (acc_t)v.y[i];
            v.y[i] = (VT)out;
        }
        s = claim_slice(&next_slice, lane);
    }
}

} // namespace

/* The two block shapes' threads (ehyb_tuning.h). */
constexpr int NARROW_BLOCK = SPX_EHYB_SM_THREADS / SPX_EHYB_BLOCKS_PER_SM;
constexpr int WIDE_BLOCK = SPX_EHYB_SM_THREADS / SPX_EHYB_WIDE_BLOCKS_PER_SM;

/* Lets the slice kernel of value type VT take all the opt-in shared memory of the device
 * (spx_cuda_allow_max_smem) and prefer the shared-memory carveout. */
template <typename VT, bool PLAN_ORDER, int BLOCK>
static spx_status allow_smem(spx_ctx *ctx)
{
    spx_status s = spx_cuda_allow_max_smem(ctx, ehyb_slice_kernel<VT, PLAN_ORDER, BLOCK>);
    if (s) return s;
    SPX_CUDA_RET(ctx, cudaFuncSetAttribute(ehyb_slice_kernel<VT, PLAN_ORDER, BLOCK>,
                                           cudaFuncAttributePreferredSharedMemoryCarveout,
                                           (int)cudaSharedmemCarveoutMaxShared));
    return SPX_OK;
}

/* allow_smem for the kernel of VT and F's shape. */
template <typename VT, bool PLAN_ORDER>
static spx_status allow_smem_shape(spx_ctx *ctx, const spx_ehyb_fmt *F)
{
    return F->blocks_per_sm == SPX_EHYB_WIDE_BLOCKS_PER_SM ? allow_smem<VT, PLAN_ORDER, WIDE_BLOCK>(ctx)
                                                           : allow_smem<VT, PLAN_ORDER, NARROW_BLOCK>(ctx);
}

/* allow_smem for the kernel the layout F runs. */
static spx_status allow_smem_for(spx_ctx *ctx, const spx_ehyb_fmt *F)
{
    if (F->precision == SPX_FP32)
        return F->plan_order ? allow_smem_shape<float, true>(ctx, F) : allow_smem_shape<float, false>(ctx, F);
    return F->plan_order ? allow_smem_shape<double, true>(ctx, F) : allow_smem_shape<double, false>(ctx, F);
}

static void ehyb_free(spx_ctx *ctx, void *dev);

/* Blocks of a part of `slices` slices (split into equal shares): enough that none has more
 * than `unit` slices, at most SPX_EHYB_CUDA_MAX_PART_BLOCKS. */
static int32_t blocks_of_part(int32_t slices, int64_t unit)
{
    const int64_t c = (slices + unit - 1) / unit;
    return c < 1 ? 1 : c > SPX_EHYB_CUDA_MAX_PART_BLOCKS ? SPX_EHYB_CUDA_MAX_PART_BLOCKS : (int32_t)c;
}

/* The slices a block may take (blocks_of_part's unit) for layout F on `slots` block slots (SMs
 * x the layout's blocks an SM), at least one a
 * warp. Parts of about equal size (the largest at most SPX_EHYB_CUDA_UNEQUAL_PARTS x the mean:
 * METIS, grow): SPX_EHYB_CUDA_BLOCK_SLACK x the slices a block slot gets with all of them
 * spread over the device's slots (SMs x blocks an SM), so parts that fill the slots keep one
 * block each and small matrices (parts fewer than slots) get a block per `warps` slices.
 * Unequal parts (voronoi's cells): that share over SPX_EHYB_CUDA_BALANCE_WAVES waves, so the
 * larger parts are shared by several blocks (*unequal = 1). */
static int64_t block_unit(const spx_ehyb_fmt *F, const int32_t *part_slice, int64_t slots, bool *unequal)
{
    const int64_t warps = spx_ehyb_block_threads(F->blocks_per_sm) / 32;
    int32_t largest = 0;
    for (int32_t p = 0; p < F->nparts; p++)
        if (part_slice[p + 1] - part_slice[p] > largest) largest = part_slice[p + 1] - part_slice[p];
    const double mean = F->nparts > 0 ? (double)F->n_ell_slices / F->nparts : 0.0;
    *unequal = largest > SPX_EHYB_CUDA_UNEQUAL_PARTS * mean;
    const double share = (double)F->n_ell_slices / (double)slots;
    const int64_t unit = (int64_t)(*unequal ? share / SPX_EHYB_CUDA_BALANCE_WAVES : SPX_EHYB_CUDA_BLOCK_SLACK * share);
    return unit > warps ? unit : warps;
}

/* A part's blocks, for the launch order. */
typedef struct part_blocks_t {
    int32_t part, blocks, share; /* share: slices a block of the part takes (rounded up) */
} part_blocks_t;

/* Descending share, then ascending part (longest processing time first). */
static int cmp_longest_first(const void *a, const void *b)
{
    const part_blocks_t *x = (const part_blocks_t *)a, *y = (const part_blocks_t *)b;
    if (x->share != y->share) return x->share > y->share ? -1 : 1;
    return (x->part > y->part) - (x->part < y->part);
}

/* d's block tasks from the host's part_slice (F's nparts + 1 slice offsets), uploaded: each
 * part's blocks_of_part blocks, in part order, or longest share first when the parts are
 * unequal and few waves of them (a block slot that frees takes the next block, so the short
 * ones fill the end; over more waves the part order, whose neighbouring parts run together,
 * keeps the ER part's x in L2); part_grid and max_part_blocks. */
static spx_status set_blocks(spx_ctx *ctx, ehyb_dev *d, const int32_t *part_slice, int sms)
{
    const spx_ehyb_fmt *F = &d->L;
    const int64_t slots = (int64_t)(sms > 0 ? sms : 1) * F->blocks_per_sm;
    bool unequal = false;
    const int64_t unit = block_unit(F, part_slice, slots, &unequal);
    part_blocks_t *pb = (part_blocks_t *)spx_malloc_array(ctx, (size_t)F->nparts + 1, sizeof *pb);
    if (!pb) return spx_fail_nomem(ctx, "ehyb: block table");
    int64_t grid = 0;
    d->max_part_blocks = 1;
    for (int32_t p = 0; p < F->nparts; p++) {
        const int32_t slices = part_slice[p + 1] - part_slice[p], c = blocks_of_part(slices, unit);
        pb[p] = (part_blocks_t){p, c, (slices + c - 1) / c};
        grid += c;
        if (c > d->max_part_blocks) d->max_part_blocks = c;
    }
    d->longest_first = unequal && F->nparts <= SPX_EHYB_CUDA_LPT_WAVES * slots;
    if (d->longest_first) qsort(pb, (size_t)F->nparts, sizeof *pb, cmp_longest_first);
    d->part_grid = (int32_t)grid;
    int2 *task = (int2 *)spx_malloc_array(ctx, (size_t)grid + 1, sizeof *task);
    spx_status s = task ? SPX_OK : spx_fail_nomem(ctx, "ehyb: block table");
    for (int64_t b = 0, i = 0; !s && i < F->nparts; i++)
        for (int32_t c = 0; c < pb[i].blocks; c++) task[b++] = make_int2(pb[i].part, c | pb[i].blocks << 16);
    if (!s) s = spx_cuda_malloc(ctx, (void **)&d->block_task, ((size_t)grid + 1) * sizeof *task);
    if (!s && grid) s = spx_cuda_h2d(ctx, d->block_task, task, (size_t)grid * sizeof *task);
    spx_free(ctx, pb);
    spx_free(ctx, task);
    return s;
}

/* Whether the slice kernel prefetches layout F's slices into L2: SPX_EHYB_CUDA_L2_PREFETCH on,
 * and (SPX_EHYB_CUDA_PREFETCH_ABOVE_L2) one SpMV's bytes (spx_ehyb_fmt_bytes) more than the
 * L2 holds: a smaller layout stays there from one SpMV to the next. */
static bool prefetches(const spx_cuda_state *st, const spx_ehyb_fmt *F)
{
    if (!SPX_EHYB_CUDA_L2_PREFETCH) return false;
    return !SPX_EHYB_CUDA_PREFETCH_ABOVE_L2 || spx_ehyb_fmt_bytes(F) > (double)st->l2_bytes;
}

/* The largest slice (bytes of entries) the kernel prefetches into L2 whole as a warp starts
 * it: one slice for every warp the device holds at once must fit the L2 (H200: 50 MB over
 * 132 x 64 warps, 6.2 KB), else the prefetched lines evict each other before their loads.
 * Longer slices are prefetched a chunk ahead. */
static int64_t prefetch_whole_max(const spx_cuda_state *st)
{
    const int64_t warps = (int64_t)(st->sm_count > 0 ? st->sm_count : 1) * (SPX_EHYB_SM_THREADS / 32);
    const int64_t l2 = st->l2_bytes > 0 ? st->l2_bytes : 0;
    return l2 / warps;
}

/* Sets every array field of L to NULL (before they receive device or host copies). */
static void clear_arrays(spx_ehyb_fmt *L)
{
    spx_ehyb_array arr[SPX_EHYB_N_ARRAYS];
    spx_ehyb_fmt_arrays(L, arr);
    for (int i = 0; i < SPX_EHYB_N_ARRAYS; i++) *arr[i].ptr = NULL;
}

/* The kernel's name, e.g. "ehyb_slices512_g4_c2+long_fp64" (block size, lanes per row, the
 * most blocks a part has, whether there are long rows; before the precision: "_plan" in plan
 * order, "_pf" when it prefetches slices, "_lpt" when its blocks run longest share first). */
static void set_kernel_name(ehyb_dev *d)
{
    const char *prec = d->L.precision == SPX_FP32 ? "fp32" : "fp64";
    if (d->L.m == 0 || d->L.nnz == 0)
        snprintf(d->kernel, sizeof d->kernel, "ehyb_empty(y=b*y)");
    else
        snprintf(d->kernel, sizeof d->kernel, "ehyb_slices%d_g%d_c%d%s%s%s%s_%s",
                 spx_ehyb_block_threads(d->L.blocks_per_sm), d->L.lanes, d->max_part_blocks,
                 d->L.n_long > 0 ? "+long" : "", d->L.plan_order ? "_plan" : "", d->prefetch ? "_pf" : "",
                 d->longest_first ? "_lpt" : "", prec);
}

/* Copies the host layout's arrays to the device (each allocation recorded as it succeeds,
 * so ehyb_free releases exactly what was made). */
static spx_status upload_arrays(spx_ctx *ctx, const spx_ehyb_fmt *F, ehyb_dev *d)
{
    spx_ehyb_fmt host = *F;
    spx_ehyb_array harr[SPX_EHYB_N_ARRAYS], darr[SPX_EHYB_N_ARRAYS];
    spx_ehyb_fmt_arrays(&host, harr);
    spx_ehyb_fmt_arrays(&d->L, darr);
    spx_status s;
    for (int i = 0; i < SPX_EHYB_N_ARRAYS; i++)
        if ((s = spx_cuda_malloc(ctx, darr[i].ptr, darr[i].bytes))) return s;
    for (int i = 0; i < SPX_EHYB_N_ARRAYS; i++)
        if (darr[i].bytes && (s = spx_cuda_h2d(ctx, *darr[i].ptr, *harr[i].ptr, darr[i].bytes))) return s;
    return SPX_OK;
}

/* The shared memory the kernel of layout F needs (its longest segment and the padding's 0),
 * checked against the device's. */
static spx_status kernel_smem(spx_ctx *ctx, const spx_ehyb_fmt *F, size_t *smem)
{
    const spx_cuda_state *st = spx_cuda_state_of(ctx);
    *smem = ((size_t)F->seg_max + 1) * spx_ehyb_vbytes(F);
    if (*smem + SPX_EHYB_SMEM_RESERVE > (size_t)st->smem_per_block_optin)
        return spx_fail(ctx, SPX_ERR_UNSUPPORTED,
                        "ehyb: a segment of %d values needs %zu bytes of shared memory, the device has %d", F->seg_max,
                        *smem, st->smem_per_block_optin);
    return allow_smem_for(ctx, F);
}

/* The launch settings of d's layout (d->L's counts set; part_slice: its slice offsets on the
 * host): the block tables, the prefetch, the kernel's name. */
static spx_status set_launch(spx_ctx *ctx, ehyb_dev *d, const int32_t *part_slice)
{
    const spx_cuda_state *st = spx_cuda_state_of(ctx);
    spx_status s = set_blocks(ctx, d, part_slice, st->sm_count);
    if (s) return s;
    d->prefetch = prefetches(st, &d->L);
    d->prefetch_whole_max = d->prefetch ? prefetch_whole_max(st) : INT64_MAX; /* INT64_MAX: every slice the plain loop */
    set_kernel_name(d);
    return SPX_OK;
}

/* set_launch for a layout built on the device: its part_slice downloaded first. */
static spx_status set_launch_device(spx_ctx *ctx, ehyb_dev *d)
{
    const size_t bytes = ((size_t)d->L.nparts + 1) * sizeof(int32_t);
    int32_t *part_slice = (int32_t *)spx_malloc(ctx, bytes);
    if (!part_slice) return spx_fail_nomem(ctx, "ehyb: slice offsets on the host");
    spx_status s = spx_cuda_d2h(ctx, part_slice, d->L.part_slice, bytes);
    if (!s) s = set_launch(ctx, d, part_slice);
    spx_free(ctx, part_slice);
    return s;
}

/* Uploads the host layout; checks that its segments fit this device's shared memory. */
static spx_status ehyb_upload(spx_ctx *ctx, const void *impl, spx_phase_log *log, void **dev)
{
    const spx_ehyb_fmt *F = (const spx_ehyb_fmt *)impl;
    if (!ctx || !F || !dev) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "ehyb upload: NULL argument") : SPX_ERR_ARG;
    size_t smem = 0;
    spx_status s = spx_cuda_init(ctx);
    if (s || (s = kernel_smem(ctx, F, &smem))) return s;
    ehyb_dev *d = (ehyb_dev *)spx_calloc_array(ctx, 1, sizeof *d);
    if (!d) return spx_fail_nomem(ctx, "ehyb GPU state");
    d->L = *F;
    clear_arrays(&d->L);
    d->smem_bytes = smem;
    const double t0 = spx_now();
    s = upload_arrays(ctx, F, d);
    if (!s) s = set_launch(ctx, d, F->part_slice);
    spx_phase_add(log, "upload", spx_now() - t0);
    if (s) {
        ehyb_free(ctx, d);
        return s;
    }
    *dev = d;
    return SPX_OK;
}

/* The algorithms ehyb builds on the device: the data-parallel partitioner, and auto (the
 * default) as it. */
static const char *const ehyb_device_algos[] = {"auto", "voronoi", NULL};

/* Every row's and column's part on the device into P (arrays of the context's device memory),
 * as the host's spx_ehyb_partition with algorithm voronoi: the voronoi split of a square
 * matrix with entries off the diagonal, else contiguous blocks. */
static spx_status device_parts(spx_ctx *ctx, const spx_dev_csr *A, spx_precision prec, spx_ehyb_parts *P,
                               ehyb_scratch *t)
{
    const spx_cuda_state *st = spx_cuda_state_of(ctx);
    const spx_ehyb_target tg = {st->sm_count, st->smem_per_block_optin};
    spx_ehyb_parts_shape(A->m, A->n, A->nnz, &tg, prec, P);
    int graph = P->split == SPX_EHYB_SPLIT_GRAPH;
    spx_status s = spx_cuda_malloc(ctx, (void **)&P->row_part, ((size_t)A->m + 1) * sizeof(int32_t));
    if (!s && graph) s = ehyb_dev_has_off_diagonal(ctx, A, &graph);
    if (s) return s;
    if (!graph) P->split = SPX_EHYB_SPLIT_BLOCKS;
    if (graph) {
        P->col_part = P->row_part;
        return ehyb_dev_voronoi(ctx, A, spx_ehyb_voronoi_mean(A->n, P->nparts, P->seg_cap), P->seg_cap,
                                P->row_part, &P->nparts, t);
    }
    if (A->m == A->n) P->col_part = P->row_part;
    else if ((s = spx_cuda_malloc(ctx, (void **)&P->col_part, ((size_t)A->n + 1) * sizeof(int32_t)))) return s;
    if ((s = ehyb_dev_blocks(ctx, A->m, P->nparts, P->row_part))) return s;
    return P->col_part == P->row_part ? SPX_OK : ehyb_dev_blocks(ctx, A->n, P->nparts, P->col_part);
}

/* Frees the device part maps. */
static void device_parts_free(spx_ctx *ctx, spx_ehyb_parts *P)
{
    if (P->col_part != P->row_part) spx_cuda_free(ctx, P->col_part);
    spx_cuda_free(ctx, P->row_part);
    P->row_part = P->col_part = NULL;
}

/* A plan-order layout's renumbering downloaded into d->host_perm (the plan's permutation:
 * the caller renumbers x and y with it on the host). */
static spx_status keep_permutation(spx_ctx *ctx, ehyb_dev *d)
{
    d->host_perm = (int32_t *)spx_malloc_array(ctx, (size_t)d->L.m + 1, sizeof *d->host_perm);
    if (!d->host_perm) return spx_fail_nomem(ctx, "ehyb: the plan's permutation");
    return spx_cuda_d2h(ctx, d->host_perm, d->L.row_perm, (size_t)d->L.m * sizeof *d->host_perm);
}

/* Builds the GPU state from the uploaded CSR with the voronoi partitioner, every step on the
 * device ("partition" and "reorder" phases, as the host's build): the same layout as a host
 * build of algorithm voronoi for this device. */
static spx_status ehyb_build(spx_ctx *ctx, spx_dev_csr *A, const spx_features *feat, const spx_plan_opts *o,
                             spx_phase_log *log, void **dev)
{
    (void)feat;
    if (!ctx || !A || !o || !dev) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "ehyb build: NULL argument") : SPX_ERR_ARG;
    if (o->algo && strcmp(o->algo, "auto") && strcmp(o->algo, "voronoi"))
        return spx_fail(ctx, SPX_ERR_UNSUPPORTED, "ehyb: only algorithms auto and voronoi build on the device");
    spx_status s = spx_cuda_init(ctx);
    if (s) return s;
    ehyb_dev *d = (ehyb_dev *)spx_calloc_array(ctx, 1, sizeof *d);
    if (!d) return spx_fail_nomem(ctx, "ehyb GPU state");
    ehyb_scratch t = {};
    spx_ehyb_parts P = {};
    double t0 = spx_now();
    s = device_parts(ctx, A, o->precision, &P, &t);
    if (!s) s = spx_cuda_sync(ctx);
    spx_phase_add(log, "partition", spx_now() - t0);
    spx_ehyb_fmt *L = &d->L;
    *L = (spx_ehyb_fmt){.m = A->m, .n = A->n, .nnz = A->nnz, .precision = o->precision, .algo = SPX_EHYB_VORONOI,
                        .split = P.split, .K = P.K, .P = P.P, .nparts = P.nparts, .seg_cap = P.seg_cap,
                        .blocks_per_sm = P.blocks_per_sm};
    t0 = spx_now();
    if (!s) s = ehyb_dev_layout(ctx, A, &P, o->order == SPX_ORDER_PLAN, L, &t);
    if (!s && L->plan_order) s = keep_permutation(ctx, d);
    spx_phase_add(log, "reorder", spx_now() - t0);
    /* the voronoi split's cut: half its entries outside their part (its pattern is square) */
    if (P.split == SPX_EHYB_SPLIT_GRAPH) L->edge_cut = L->out_nnz / 2;
    device_parts_free(ctx, &P);
    ehyb_scratch_free(ctx, &t);
    if (!s) s = kernel_smem(ctx, L, &d->smem_bytes);
    if (!s) s = set_launch_device(ctx, d);
    if (s) {
        ehyb_free(ctx, d);
        return s;
    }
    *dev = d;
    return SPX_OK;
}

/* Frees the GPU state. */
static void ehyb_free(spx_ctx *ctx, void *dev)
{
    ehyb_dev *d = (ehyb_dev *)dev;
    if (!d) return;
    spx_ehyb_array arr[SPX_EHYB_N_ARRAYS];
    spx_ehyb_fmt_arrays(&d->L, arr);
    for (int i = 0; i < SPX_EHYB_N_ARRAYS; i++) spx_cuda_free(ctx, *arr[i].ptr);
    spx_free(ctx, d->host_perm);
    spx_cuda_free(ctx, d->block_task);
    spx_free(ctx, d);
}

extern "C" spx_status spx_ehyb_dev_download(spx_ctx *ctx, const spx_ehyb_fmt *L, spx_ehyb_fmt **out)
{
    spx_ehyb_fmt *H = (spx_ehyb_fmt *)spx_malloc(ctx, sizeof *H);
    if (!H) return spx_fail_nomem(ctx, "ehyb: downloaded layout");
    *H = *L;
    clear_arrays(H);
    spx_ehyb_fmt src = *L;
    spx_ehyb_array harr[SPX_EHYB_N_ARRAYS], darr[SPX_EHYB_N_ARRAYS];
    spx_ehyb_fmt_arrays(H, harr);
    spx_ehyb_fmt_arrays(&src, darr);
    spx_status s = SPX_OK;
    for (int i = 0; i < SPX_EHYB_N_ARRAYS && !s; i++) {
        *harr[i].ptr = spx_malloc(ctx, harr[i].bytes);
        if (!*harr[i].ptr)
            s = spx_fail_nomem(ctx, "ehyb: downloaded layout arrays");
        else if (harr[i].bytes)
            s = spx_cuda_d2h(ctx, *harr[i].ptr, *darr[i].ptr, harr[i].bytes);
    }
    if (s) {
        spx_ehyb_fmt_destroy(ctx, H);
        return s;
    }
    *out = H;
    return SPX_OK;
}

/* The device layout downloaded into a host layout, then back to CSR: the round trip checks
 * what the GPU holds. */
static spx_status ehyb_dev_to_csr(spx_ctx *ctx, const void *dev, spx_csr **out)
{
    spx_ehyb_fmt *H = NULL;
    spx_status s = spx_ehyb_dev_download(ctx, &((const ehyb_dev *)dev)->L, &H);
    if (!s) s = spx_ehyb_fmt_to_csr(ctx, H, out);
    spx_ehyb_fmt_destroy(ctx, H);
    return s;
}

/* For a plan built on the device: its algorithm, bytes per SpMV and statistics from the
 * device layout's counts. */
static const char *ehyb_dev_algo(const void *dev) { return spx_ehyb_algo_names[((const ehyb_dev *)dev)->L.algo]; }
static double ehyb_dev_bytes(const void *dev) { return spx_ehyb_fmt_bytes(&((const ehyb_dev *)dev)->L); }
static void ehyb_dev_stats(const void *dev, spx_stat_list *l) { spx_ehyb_fmt_stats(&((const ehyb_dev *)dev)->L, l); }
static const int32_t *ehyb_dev_permutation(const void *dev) { return ((const ehyb_dev *)dev)->host_perm; }

/* The kernel the plan runs. */
static const char *ehyb_kernel(const void *dev) { return dev ? ((const ehyb_dev *)dev)->kernel : "none"; }

/* Launches the slice kernel of VT in F's vector order, BLOCK threads a block. */
template <typename VT, int BLOCK>
static void launch_slices(const spx_ehyb_fmt *L, unsigned grid, size_t smem, cudaStream_t st, const slice_view<VT> &e)
{
    if (L->plan_order)
        ehyb_slice_kernel<VT, true, BLOCK><<<grid, BLOCK, smem, st>>>(e);
    else
        ehyb_slice_kernel<VT, false, BLOCK><<<grid, BLOCK, smem, st>>>(e);
}

/* y = a*A*x + b*y in value type VT: one launch, the parts' blocks then the long rows' (the
 * kernel of the layout's vector order and shape). */
template <typename VT>
static spx_status spmv_typed(spx_ctx *ctx, const ehyb_dev *d, const spx_spmv_args *args)
{
    const spx_ehyb_fmt *L = &d->L;
    cudaStream_t st = spx_cuda_stream(ctx);
    const VT *x = (const VT *)args->x;
    VT *y = (VT *)args->y;
    const int32_t part_grid = d->part_grid;
    const int64_t warps = spx_ehyb_block_threads(L->blocks_per_sm) / 32;
    const int64_t long_blocks = ((int64_t)L->n_long + warps - 1) / warps;
    const slice_view<VT> e = {L->row_start, L->col_start, L->row_perm, L->col_perm, L->part_slice, L->er_col,
                              L->ell_ptr, L->er_ptr, L->ell_col, (const VT *)L->ell_val, (const VT *)L->er_val,
                              L->n_long, L->long_row, L->long_col, L->long_ptr, (const VT *)L->long_val, x, y,
                              (acc_t)args->alpha, (acc_t)args->beta, L->lanes, d->block_task, part_grid,
                              args->beta != 0.0, d->prefetch, d->prefetch_whole_max};
    const unsigned grid = (unsigned)(part_grid + long_blocks);
    if (L->blocks_per_sm == SPX_EHYB_WIDE_BLOCKS_PER_SM)
        launch_slices<VT, WIDE_BLOCK>(L, grid, d->smem_bytes, st, e);
    else
        launch_slices<VT, NARROW_BLOCK>(L, grid, d->smem_bytes, st, e);
    SPX_CUDA_LAUNCHED(ctx, "ehyb_slice_kernel");
    return SPX_OK;
}

/* y = a*A*x + b*y on the context's stream; allocates nothing. */
static spx_status ehyb_spmv(spx_ctx *ctx, void *dev, const spx_spmv_args *args)
{
    const ehyb_dev *d = (const ehyb_dev *)dev;
    if (!ctx || !d || !args) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "ehyb spmv: NULL argument") : SPX_ERR_ARG;
    if (args->precision != d->L.precision)
        return spx_fail(ctx, SPX_ERR_ARG, "ehyb spmv: the plan is %s, the call %s", spx_precision_str(d->L.precision),
                        spx_precision_str(args->precision));
    if (d->L.m == 0) return SPX_OK;
    if (!args->y || (d->L.nnz > 0 && !args->x)) return spx_fail(ctx, SPX_ERR_ARG, "ehyb spmv: NULL vector");
    if (d->L.nnz == 0) return spx_cuda_scale_y(ctx, d->L.precision, d->L.m, args->beta, args->y);
    return d->L.precision == SPX_FP32 ? spmv_typed<float>(ctx, d, args) : spmv_typed<double>(ctx, d, args);
}

/* The ehyb format's GPU half (slots in spx_cuda_layout's and spx_cuda_ops' order). */
static const spx_format_cuda ehyb_cuda = {
    { /* layout */
        ehyb_upload,          /* upload: a host-built layout (metis, bfs, grow; voronoi with SPX_BUILD_HOST) */
        ehyb_build,           /* build: voronoi on the device */
        ehyb_dev_to_csr,      /* to_csr */
        ehyb_free,            /* free */
        ehyb_dev_algo,        /* algo_name */
        ehyb_dev_bytes,       /* bytes_per_spmv */
        ehyb_dev_stats,       /* stats */
        ehyb_device_algos,    /* build_algos */
        ehyb_dev_permutation, /* permutation: a device-built plan's, in plan order */
    },
    {ehyb_spmv, ehyb_kernel}, /* ops: spmv, spmv_kernel; no spmm kernel yet (the plan runs k SpMVs) */
};

extern "C" const spx_format_cuda *spx_ehyb_cuda(void) { return &ehyb_cuda; }
