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

/* Sums in fp64 for both precisions (as the csr kernels: one rounding per row in fp32). */
typedef double acc_t;

/* The GPU state: the host layout's counts with device pointers in its array fields. */
typedef struct ehyb_dev {
    spx_ehyb_fmt L;
    size_t smem_bytes;     /* dynamic shared memory of the slice kernel: seg_max + 1 values */
    int32_t part_blocks;   /* blocks of the slice kernel per part (each a share of its slices) */
    bool prefetch;              /* the kernel prefetches slices into L2 (prefetches) */
    int64_t prefetch_whole_max; /* slice bytes up to which a slice is prefetched whole */
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
    int32_t part_blocks; /* C: blocks per part */
    int32_t part_grid;   /* nparts x C: the blocks before the long rows' */
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
 * of part p = b / C takes the (b % C)-th of C equal shares of the part's slices: it loads
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
    const int32_t p = blockIdx.x / v.part_blocks, share = blockIdx.x % v.part_blocks;
    /* the part's bounds, loaded together (one memory round trip, not three) */
    const int32_t s0 = __ldg(v.part_slice + p), s_end = __ldg(v.part_slice + p + 1);
    const int32_t c0 = __ldg(v.col_start + p), c_end = __ldg(v.col_start + p + 1);
    const int32_t r0 = __ldg(v.row_start + p), r1 = __ldg(v.row_start + p + 1);
    const int32_t first = s0 + (int32_t)((int64_t)(s_end - s0) * share / v.part_blocks);
    const int32_t last = s0 + (int32_t)((int64_t)(s_end - s0) * (share + 1) / v.part_blocks);
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

/* Blocks per part: a matrix with fewer parts than the device holds blocks (SMs x
 * SPX_EHYB_BLOCKS_PER_SM) would leave SMs idle, so each part's slices are shared by up to
 * SPX_EHYB_CUDA_MAX_PART_BLOCKS blocks, each loading the (small, L2-resident) segment; never
 * more than a part has, on average, slices for each warp of one block. The long rows'
 * blocks of the same launch get the same dynamic shared memory, unused: with few long rows
 * that costs little, and a second launch cost more (bench/NOTES.md, 2026-11-26). */
static int32_t part_blocks(const spx_ehyb_fmt *F, int sms)
{
    const int64_t slots = (int64_t)(sms > 0 ? sms : 1) * F->blocks_per_sm, parts = F->nparts > 0 ? F->nparts : 1;
    int64_t c = (slots + parts - 1) / parts;
    const int64_t per_part = ((int64_t)F->n_ell_slices + parts - 1) / parts;
    const int64_t by_slices = per_part / (spx_ehyb_block_threads(F->blocks_per_sm) / 32);
    if (c > by_slices) c = by_slices;
    if (c > SPX_EHYB_CUDA_MAX_PART_BLOCKS) c = SPX_EHYB_CUDA_MAX_PART_BLOCKS;
    return c < 1 ? 1 : (int32_t)c;
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

/* The kernel's name, e.g. "ehyb_slices512_g4_c2+long_fp64" (block size, lanes per row, blocks
 * per part, whether there are long rows; "_plan" before the precision in plan order). */
static void set_kernel_name(ehyb_dev *d)
{
    const char *prec = d->L.precision == SPX_FP32 ? "fp32" : "fp64";
    if (d->L.m == 0 || d->L.nnz == 0)
        snprintf(d->kernel, sizeof d->kernel, "ehyb_empty(y=b*y)");
    else
        snprintf(d->kernel, sizeof d->kernel, "ehyb_slices%d_g%d_c%d%s%s%s_%s",
                 spx_ehyb_block_threads(d->L.blocks_per_sm), d->L.lanes, d->part_blocks,
                 d->L.n_long > 0 ? "+long" : "", d->L.plan_order ? "_plan" : "", d->prefetch ? "_pf" : "", prec);
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

/* Uploads the host layout; checks that its segments fit this device's shared memory. */
static spx_status ehyb_upload(spx_ctx *ctx, const void *impl, spx_phase_log *log, void **dev)
{
    const spx_ehyb_fmt *F = (const spx_ehyb_fmt *)impl;
    if (!ctx || !F || !dev) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "ehyb upload: NULL argument") : SPX_ERR_ARG;
    spx_status s = spx_cuda_init(ctx);
    if (s) return s;
    const spx_cuda_state *st = spx_cuda_state_of(ctx);
    const size_t smem = ((size_t)F->seg_max + 1) * spx_ehyb_vbytes(F);
    if (smem + SPX_EHYB_SMEM_RESERVE > (size_t)st->smem_per_block_optin)
        return spx_fail(ctx, SPX_ERR_UNSUPPORTED,
                        "ehyb upload: a segment of %d values needs %zu bytes of shared memory, the device has %d",
                        F->seg_max, smem, st->smem_per_block_optin);
    s = allow_smem_for(ctx, F);
    if (s) return s;
    ehyb_dev *d = (ehyb_dev *)spx_calloc_array(ctx, 1, sizeof *d);
    if (!d) return spx_fail_nomem(ctx, "ehyb GPU state");
    d->L = *F;
    clear_arrays(&d->L);
    d->smem_bytes = smem;
    d->part_blocks = part_blocks(F, st->sm_count);
    d->prefetch = prefetches(st, F);
    d->prefetch_whole_max = d->prefetch ? prefetch_whole_max(st) : INT64_MAX; /* INT64_MAX: every slice the plain loop */
    const double t0 = spx_now();
    s = upload_arrays(ctx, F, d);
    spx_phase_add(log, "upload", spx_now() - t0);
    if (s) {
        ehyb_free(ctx, d);
        return s;
    }
    set_kernel_name(d);
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
    spx_free(ctx, d);
}

/* The device layout downloaded into a host layout, then back to CSR: the round trip checks
 * what the GPU holds. */
static spx_status ehyb_dev_to_csr(spx_ctx *ctx, const void *dev, spx_csr **out)
{
    const ehyb_dev *d = (const ehyb_dev *)dev;
    spx_ehyb_fmt *H = (spx_ehyb_fmt *)spx_malloc(ctx, sizeof *H);
    if (!H) return spx_fail_nomem(ctx, "ehyb: downloaded layout");
    *H = d->L;
    clear_arrays(H);
    spx_ehyb_fmt src = d->L;
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
    if (!s) s = spx_ehyb_fmt_to_csr(ctx, H, out);
    spx_ehyb_fmt_destroy(ctx, H);
    return s;
}

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
    const int32_t part_grid = L->nparts * d->part_blocks;
    const int64_t warps = spx_ehyb_block_threads(L->blocks_per_sm) / 32;
    const int64_t long_blocks = ((int64_t)L->n_long + warps - 1) / warps;
    const slice_view<VT> e = {L->row_start, L->col_start, L->row_perm, L->col_perm, L->part_slice, L->er_col,
                              L->ell_ptr, L->er_ptr, L->ell_col, (const VT *)L->ell_val, (const VT *)L->er_val,
                              L->n_long, L->long_row, L->long_col, L->long_ptr, (const VT *)L->long_val, x, y,
                              (acc_t)args->alpha, (acc_t)args->beta, L->lanes, d->part_blocks, part_grid,
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

/* The ehyb format's GPU half (slots in spx_format_cuda's order). */
static const spx_format_cuda ehyb_cuda = {
    ehyb_upload,     /* upload */
    NULL,            /* build: the partitioner runs on the host */
    ehyb_dev_to_csr, /* to_csr */
    ehyb_spmv,       /* spmv */
    ehyb_free,       /* free */
    ehyb_kernel,     /* kernel_name */
    NULL,            /* algo_name: from the host layout */
    NULL,            /* bytes_per_spmv: from the host layout */
    NULL,            /* stats: the host layout's */
};

extern "C" const spx_format_cuda *spx_ehyb_cuda(void) { return &ehyb_cuda; }
