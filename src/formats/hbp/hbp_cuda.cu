/* src/formats/hbp/hbp_cuda.cu: the hbp format's GPU half: the host layout uploaded as it is
 * or built on the device (hbp_build_cuda.cu), SpMV (HBP Algorithm 3 with §III-C's mixed scheduling) with two combine steps (`hash`/`sort`:
 * one CTA per row panel, partial sums of a row's column blocks added in shared memory;
 * `hash_atomic`: one warp per tile, atomicAdd into y), the device layout back to CSR, and the
 * layout statistics. Nothing is allocated per call: the ticket counter is made at upload. */
#include <stdio.h>
#include <string.h>

#include "cuda/primitives.cuh"
#include "cuda/runtime.cuh"
#include "formats/hbp/hbp.h"
#include "formats/hbp/hbp_cuda.h"
#include "formats/hbp/hbp_cuda_tuning.h"
#include "formats/hbp/hbp_search.cuh"
#include "formats/hbp/hbp_table.cuh"
#include "formats/hbp/hbp_tuning.h"
#include "formats/hbp/hbp_units.h"

namespace {

/* The layout on the device (plan-owned), plus the launch it was sized for. */
struct hbp_dev {
    spx_hbp_fmt L; /* the host layout's header and figures, its arrays on the device */
    unsigned long long *ticket; /* the competitive part's counter, reset before each launch */
    int stage;                  /* x segments may be staged in shared memory */
    size_t smem;                /* dynamic shared memory of the launch */
    unsigned grid;
    int64_t n_fixed; /* work units handed out statically */
    spx_hbp_units units; /* the unit kernel's (`hash`, `sort`) */
    char kernel[64];
    spx_hbp_bands_dev *bands; /* SPX_HBP_BAND, _HOT: the bands (L holds the header only) */
    spx_hbp_wide_dev *wide;   /* SPX_HBP_WIDE: the wide tiles (L holds the header only) */
};

/* What a kernel reads: the device arrays and one call's arguments. */
template <typename VT>
struct hbp_view {
    spx_hbp_fmt L; /* device arrays */
    int64_t n_fixed;
    const VT *__restrict__ val;
    const VT *__restrict__ x;
    VT *y;
    unsigned long long *ticket;
    spx_hbp_units u; /* work units (`hash`, `sort`) */
    double a, b;
};

/* One group's sums on a warp: lane l gets slot l's sum of val * xs[col] (0 for lanes past the
 * group's slots) and its row within the panel (*row, -1 past the slots). Entries are step-major:
 * at step s the lanes with len > s read consecutive positions, ranked by a ballot. The
 * positions depend on the lengths only, so SPX_HBP_ILP steps' loads are issued before their
 * sums. xs is the tile's x segment, in shared memory (SMEM) or global. */
template <typename VT, bool SMEM>
__device__ __forceinline__ double group_sum(const hbp_view<VT> &v, int64_t g, int64_t t, const VT *xs, int *row)
{
    const int lane = threadIdx.x & 31;
    const int64_t s0 = __ldg(v.L.tile_slot + t) + (g - __ldg(v.L.tile_group + t)) * SPX_HBP_GROUP;
    const int64_t rem = __ldg(v.L.tile_slot + t + 1) - s0;
    const int k = rem < SPX_HBP_GROUP ? (int)rem : SPX_HBP_GROUP;
    const int len = lane < k ? (int)__ldg(v.L.slot_len + s0 + lane) : 0;
    *row = lane < k ? (int)__ldg(v.L.slot_row + s0 + lane) : -1;
    const int maxlen = (int)__reduce_max_sync(SPX_FULL_MASK, (unsigned)len);
    const unsigned below = (1u << lane) - 1u;
    int64_t pos = __ldg(v.L.group_nnz + g);
    double acc = 0.0;
    for (int st = 0; st < maxlen; st += SPX_HBP_ILP) {
        int64_t q[SPX_HBP_ILP];
        int c[SPX_HBP_ILP];
        VT a[SPX_HBP_ILP];
#pragma unroll
        for (int j = 0; j < SPX_HBP_ILP; j++) {
            const unsigned act = __ballot_sync(SPX_FULL_MASK, len > st + j);
            q[j] = len > st + j ? pos + __popc(act & below) : -1;
            pos += __popc(act);
        }
#pragma unroll
        for (int j = 0; j < SPX_HBP_ILP; j++) {
            c[j] = q[j] >= 0 ? (int)spx_ld_stream(v.L.col + q[j]) : 0;
            a[j] = q[j] >= 0 ? spx_ld_stream(v.val + q[j]) : (VT)0;
        }
#pragma unroll
        for (int j = 0; j < SPX_HBP_ILP; j++)
            if (q[j] >= 0) acc += (double)a[j] * (double)(SMEM ? xs[c[j]] : __ldg(xs + c[j]));
    }
    return acc;
}

/* Whether tile t's x segment is staged in shared memory (the same answer in every thread). */
template <typename VT, bool STAGE>
__device__ __forceinline__ bool staged(const hbp_view<VT> &v, int64_t t)
{
    return STAGE && hbp_tile_nnz(v.L.tile_group, v.L.group_nnz, t) >= (int64_t)v.L.W * SPX_HBP_STAGE_NNZ_PER_COL;
}

/* The CTA's warps over groups [g0, g1) of the panel's tiles from t on (not staged: x read
 * through the cache), each lane's sum added to its row's accumulator. */
template <typename VT>
__device__ void panel_groups_global(const hbp_view<VT> &v, int64_t t, int64_t g0, int64_t g1, double *acc)
{
    const int warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    for (int64_t g = g0 + warp; g < g1; g += nwarps) {
        while (__ldg(v.L.tile_group + t + 1) <= g) t++; /* the group's tile: warps walk forward */
        const VT *xs = v.x + (int64_t)__ldg(v.L.tile_colblock + t) * v.L.W;
        int row;
        const double s = group_sum<VT, false>(v, g, t, xs, &row);
        if (row >= 0) atomicAdd(acc + row, s);
    }
}

/* The CTA's warps over groups [g0, g1) of tile t with its x segment staged in xs (shared
 * memory). */
template <typename VT>
__device__ void tile_groups_staged(const hbp_view<VT> &v, int64_t t, int64_t g0, int64_t g1, VT *xs, double *acc)
{
    const int64_t base = (int64_t)__ldg(v.L.tile_colblock + t) * v.L.W;
    const int64_t cnt = v.L.n - base < v.L.W ? v.L.n - base : v.L.W;
    for (int64_t j = threadIdx.x; j < cnt; j += blockDim.x) xs[j] = __ldg(v.x + base + j);
    __syncthreads();
    const int warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    for (int64_t g = g0 + warp; g < g1; g += nwarps) {
        int row;
        const double s = group_sum<VT, true>(v, g, t, xs, &row);
        if (row >= 0) atomicAdd(acc + row, s);
    }
    __syncthreads(); /* xs is rewritten by the next staged tile */
}

/* The tile of panel p holding group g (g inside the panel's groups). */
template <typename VT>
__device__ __forceinline__ int64_t tile_of_group(const hbp_view<VT> &v, int64_t p, int64_t g)
{
    return hbp_last_le(v.L.tile_group, __ldg(v.L.panel_tile + p), __ldg(v.L.panel_tile + p + 1) - 1, g);
}

/* The CTA over groups [g0, g1) of panel p, sums into acc: tiles with x staged one by one,
 * runs of unstaged tiles as one range of groups (x read through the cache). */
template <typename VT, bool STAGE>
__device__ void unit_groups(const hbp_view<VT> &v, int64_t p, int64_t g0, int64_t g1, double *acc, VT *xs)
{
    const int64_t te = __ldg(v.L.panel_tile + p + 1);
    for (int64_t g = g0, t = tile_of_group(v, p, g0); g < g1;) {
        if (staged<VT, STAGE>(v, t)) {
            const int64_t ge = min(__ldg(v.L.tile_group + t + 1), g1);
            tile_groups_staged<VT>(v, t, g, ge, xs, acc);
            g = ge;
            t++;
        } else {
            int64_t t2 = t + 1;
            while (t2 < te && __ldg(v.L.tile_group + t2) < g1 && !staged<VT, STAGE>(v, t2)) t2++;
            const int64_t ge = t2 < te ? min(__ldg(v.L.tile_group + t2), g1) : g1;
            panel_groups_global<VT>(v, t, g, ge, acc);
            g = ge;
            t = t2;
        }
    }
}

/* y = a*sum + b*y for the panel's rows from r0 (b = 0: y not read). */
template <typename VT>
__device__ __forceinline__ void write_rows(const hbp_view<VT> &v, int64_t r0, int rows, const double *sum, bool l2)
{
    for (int i = threadIdx.x; i < rows; i += blockDim.x) {
        const double r = v.a * (l2 ? __ldcg(sum + i) : sum[i]);
        v.y[r0 + i] = (VT)(v.b != 0.0 ? r + v.b * (double)v.y[r0 + i] : r);
    }
}

/* A split panel's unit done: its sums added to the panel's row buffer, its arrival counted;
 * the last unit to arrive writes y from the buffer (read from L2: other SMs wrote it) and
 * clears the buffer and the count for the next call. */
template <typename VT>
__device__ void unit_combine(const hbp_view<VT> &v, int64_t p, int64_t r0, int rows, const double *acc, double *buf)
{
    __shared__ int last;
    for (int i = threadIdx.x; i < rows; i += blockDim.x)
        if (acc[i] != 0.0) atomicAdd(buf + i, acc[i]);
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned k = (unsigned)(__ldg(v.u.panel_unit + p + 1) - __ldg(v.u.panel_unit + p));
        last = atomicAdd(v.u.arrivals + p, 1u) == k - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    write_rows(v, r0, rows, buf, true);
    for (int i = threadIdx.x; i < rows; i += blockDim.x) buf[i] = 0.0;
    if (threadIdx.x == 0) v.u.arrivals[p] = 0u;
}

/* Work unit u on the CTA: accumulators cleared, its groups summed, then y written (the
 * panel's only unit) or the sums combined with the panel's other units. */
template <typename VT, bool STAGE>
__device__ void unit_run(const hbp_view<VT> &v, int64_t u, double *acc, VT *xs)
{
    const int64_t p = __ldg(v.u.unit_panel + u), g0 = __ldg(v.u.unit_group + u), g1 = __ldg(v.u.unit_group + u + 1);
    const int64_t r0 = p * v.L.H, yb = __ldg(v.u.panel_ybuf + p);
    const int rows = (int)(v.L.m - r0 < v.L.H ? v.L.m - r0 : v.L.H);
    for (int i = threadIdx.x; i < rows; i += blockDim.x) acc[i] = 0.0;
    __syncthreads();
    if (g0 < g1) unit_groups<VT, STAGE>(v, p, g0, g1, acc, xs);
    __syncthreads();
    if (yb < 0)
        write_rows(v, r0, rows, acc, false);
    else
        unit_combine(v, p, r0, rows, acc, v.u.ybuf + yb);
    __syncthreads(); /* acc is cleared for the next unit */
}

/* The unit kernel: CTAs take work units (ranges of one panel's groups, hbp_units.h), the first
 * n_fixed statically (CTA c: c, c + grid, ...; §III-C's fixed share), the rest by atomic
 * ticket. Dynamic shared memory: H doubles, then W values if STAGE. */
template <typename VT, bool STAGE>
__global__ void __launch_bounds__(SPX_HBP_PANEL_BLOCK) hbp_unit_kernel(hbp_view<VT> v)
{
    extern __shared__ double hbp_smem[];
    __shared__ long long next_unit;
    double *acc = hbp_smem;
    VT *xs = reinterpret_cast<VT *>(hbp_smem + v.L.H);
    for (long long k = 0;; k++) {
        if (threadIdx.x == 0) {
            long long f = (long long)blockIdx.x + k * (long long)gridDim.x;
            next_unit = f < v.n_fixed ? f : v.n_fixed + (long long)atomicAdd(v.ticket, 1ull);
        }
        __syncthreads();
        const long long u = next_unit;
        __syncthreads(); /* every thread has read next_unit before thread 0 writes it again */
        if (u >= v.u.n_units) break;
        unit_run<VT, STAGE>(v, u, acc, xs);
    }
}

/* The panel holding tile t: the last p with panel_tile[p] <= t. */
template <typename VT>
__device__ __forceinline__ int32_t panel_of(const hbp_view<VT> &v, int64_t t)
{
    return hbp_last_le(v.L.panel_tile, (int32_t)0, v.L.n_panels - 1, t);
}

/* One tile on a warp: each group's sums times a added into y by atomics (y already b*y). */
template <typename VT>
__device__ void atomic_tile(const hbp_view<VT> &v, int64_t t)
{
    const int64_t r0 = (int64_t)panel_of(v, t) * v.L.H;
    const VT *xs = v.x + (int64_t)__ldg(v.L.tile_colblock + t) * v.L.W;
    const int64_t g1 = __ldg(v.L.tile_group + t + 1);
    for (int64_t g = __ldg(v.L.tile_group + t); g < g1; g++) {
        int row;
        const double s = group_sum<VT, false>(v, g, t, xs, &row);
        if (row >= 0) atomicAdd(v.y + r0 + row, (VT)(v.a * s));
    }
}

/* The atomic combine: warps take tiles, a contiguous chunk of the first n_fixed each, the rest
 * by atomic ticket (lane 0 draws, the warp follows). */
template <typename VT>
__global__ void __launch_bounds__(SPX_HBP_ATOMIC_BLOCK) hbp_atomic_kernel(hbp_view<VT> v)
{
    const int lane = threadIdx.x & 31;
    const long long nw = (long long)gridDim.x * (blockDim.x >> 5);
    const long long w = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    const long long chunk = (v.n_fixed + nw - 1) / nw;
    const long long f0 = w * chunk, f1 = f0 + chunk < v.n_fixed ? f0 + chunk : v.n_fixed;
    for (long long t = f0; t < f1; t++) atomic_tile(v, t);
    for (;;) {
        long long t = 0;
        if (lane == 0) t = v.n_fixed + (long long)atomicAdd(v.ticket, 1ull);
        t = __shfl_sync(SPX_FULL_MASK, t, 0);
        if (t >= v.L.n_tiles) break;
        atomic_tile(v, t);
    }
}

/* The kernel view of d for one call. */
template <typename VT>
hbp_view<VT> view_of(const hbp_dev *d, const spx_spmv_args *args)
{
    hbp_view<VT> v;
    v.L = d->L;
    v.n_fixed = d->n_fixed;
    v.val = (const VT *)(d->L.precision == SPX_FP32 ? (const void *)d->L.val32 : (const void *)d->L.val64);
    v.x = (const VT *)args->x;
    v.y = (VT *)args->y;
    v.ticket = d->ticket;
    v.u = d->units;
    v.a = args->alpha;
    v.b = args->beta;
    return v;
}

/* Whether the algorithm combines by atomics (one warp per tile). */
bool uses_atomics(const hbp_dev *d) { return d->L.algo == SPX_HBP_HASH_ATOMIC; }

/* Launches the unit kernel of the right type and staging. */
template <typename VT>
spx_status launch_unit(spx_ctx *ctx, const hbp_dev *d, const spx_spmv_args *args)
{
    const hbp_view<VT> v = view_of<VT>(d, args);
    const cudaStream_t st = spx_cuda_stream(ctx);
    if (d->stage)
        hbp_unit_kernel<VT, true><<<d->grid, SPX_HBP_PANEL_BLOCK, d->smem, st>>>(v);
    else
        hbp_unit_kernel<VT, false><<<d->grid, SPX_HBP_PANEL_BLOCK, d->smem, st>>>(v);
    SPX_CUDA_LAUNCHED(ctx, "hbp_unit_kernel");
    return SPX_OK;
}

/* y = b*y, then the atomic kernel of the right type. */
template <typename VT>
spx_status launch_atomic(spx_ctx *ctx, const hbp_dev *d, const spx_spmv_args *args)
{
    spx_status s = spx_cuda_scale_y(ctx, d->L.precision, d->L.m, args->beta, args->y);
    if (s || d->L.n_tiles == 0) return s;
    const hbp_view<VT> v = view_of<VT>(d, args);
    hbp_atomic_kernel<VT><<<d->grid, SPX_HBP_ATOMIC_BLOCK, 0, spx_cuda_stream(ctx)>>>(v);
    SPX_CUDA_LAUNCHED(ctx, "hbp_atomic_kernel");
    return SPX_OK;
}

/* Raises a kernel's dynamic shared-memory limit (spx_cuda_allow_max_smem) and returns its
 * resident CTAs per SM for block threads and smem bytes. */
template <typename K>
spx_status occupancy(spx_ctx *ctx, K kernel, int block, size_t smem, int *per_sm)
{
    spx_status s = spx_cuda_allow_max_smem(ctx, kernel);
    if (s) return s;
    SPX_CUDA_RET(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, kernel, block, smem));
    if (*per_sm < 1) *per_sm = 1;
    if (*per_sm > SPX_HBP_MAX_BLOCKS_PER_SM) *per_sm = SPX_HBP_MAX_BLOCKS_PER_SM;
    return SPX_OK;
}

/* The device's per-block shared-memory opt-in limit and SM count. */
void device_limits(spx_ctx *ctx, long long *optin, long long *sms)
{
    const spx_cuda_state *cs = spx_cuda_state_of(ctx);
    *optin = cs && cs->smem_per_block_optin > 0 ? cs->smem_per_block_optin : 48 * 1024;
    *sms = cs && cs->sm_count > 0 ? cs->sm_count : 132;
}

/* Refuses a launch needing more shared memory per block than the device has. */
spx_status check_smem(spx_ctx *ctx, const hbp_dev *d, long long optin)
{
    if ((long long)d->smem <= optin) return SPX_OK;
    return spx_fail(ctx, SPX_ERR_UNSUPPORTED,
                    "hbp: tile of %d rows needs %zu bytes of shared memory per block; the device allows %lld", d->L.H,
                    d->smem, optin);
}

/* The unit kernel: shared memory (H accumulators, the x segment when it fits and some tile
 * is dense enough to stage it), units of
 * about nnz / (SPX_HBP_UNITS_PER_CTA x resident CTAs) entries (at least SPX_HBP_UNIT_MIN_NNZ
 * and SPX_HBP_UNIT_NNZ_PER_ROW x H), grid at full residency, fixed share of units. */
template <typename VT>
spx_status plan_unit(spx_ctx *ctx, hbp_dev *d, const char *pn)
{
    long long optin, sms;
    device_limits(ctx, &optin, &sms);
    const size_t acc = (size_t)d->L.H * SPX_HBP_ACC_BYTES, xseg = (size_t)d->L.W * sizeof(VT);
    int64_t dense = 0; /* tiles dense enough to stage: none, no x segment reserved (occupancy) */
    spx_status s = spx_hbp_dense_tiles(ctx, &d->L, (int64_t)d->L.W * SPX_HBP_STAGE_NNZ_PER_COL, &dense);
    if (s) return s;
    d->stage = dense > 0 && acc + xseg <= (size_t)SPX_HBP_SMEM_BUDGET && (long long)(acc + xseg) <= optin;
    d->smem = acc + (d->stage ? xseg : 0);
    s = check_smem(ctx, d, optin);
    int per_sm = 1;
    if (!s) s = occupancy(ctx, d->stage ? hbp_unit_kernel<VT, true> : hbp_unit_kernel<VT, false>,
                          SPX_HBP_PANEL_BLOCK, d->smem, &per_sm);
    if (s) return s;
    const long long cap = sms * per_sm;
    long long target = d->L.nnz / (SPX_HBP_UNITS_PER_CTA * cap);
    if (target < SPX_HBP_UNIT_MIN_NNZ) target = SPX_HBP_UNIT_MIN_NNZ;
    if (target < (long long)SPX_HBP_UNIT_NNZ_PER_ROW * d->L.H) target = (long long)SPX_HBP_UNIT_NNZ_PER_ROW * d->L.H;
    if ((s = spx_hbp_units_make(ctx, &d->L, target, &d->units))) return s;
    const long long need = d->units.n_units;
    d->grid = (unsigned)(need < 1 ? 1 : need < cap ? need : cap);
    d->n_fixed = d->units.n_units * SPX_HBP_FIXED_NUM / SPX_HBP_FIXED_DEN;
    snprintf(d->kernel, sizeof d->kernel, "hbp_unit_%s%s_%s", d->L.algo == SPX_HBP_SORT ? "sort" : "hash",
             d->stage ? "_staged" : "", pn);
    return SPX_OK;
}

/* The atomic kernel: grid, fixed share of tiles. */
template <typename VT>
spx_status plan_atomic(spx_ctx *ctx, hbp_dev *d, const char *pn)
{
    long long optin, sms;
    device_limits(ctx, &optin, &sms);
    int per_sm = 1;
    spx_status s = occupancy(ctx, hbp_atomic_kernel<VT>, SPX_HBP_ATOMIC_BLOCK, 0, &per_sm);
    if (s) return s;
    const long long warps = SPX_HBP_ATOMIC_BLOCK / 32, cap = sms * per_sm, need = (d->L.n_tiles + warps - 1) / warps;
    d->grid = (unsigned)(need < 1 ? 1 : need < cap ? need : cap);
    d->n_fixed = d->L.n_tiles * SPX_HBP_FIXED_NUM / SPX_HBP_FIXED_DEN;
    snprintf(d->kernel, sizeof d->kernel, "hbp_atomic_%s", pn);
    return SPX_OK;
}

/* The launch of d's algorithm in its precision. */
spx_status plan_launch(spx_ctx *ctx, hbp_dev *d)
{
    const bool f32 = d->L.precision == SPX_FP32;
    const char *pn = f32 ? "fp32" : "fp64";
    if (uses_atomics(d)) return f32 ? plan_atomic<float>(ctx, d, pn) : plan_atomic<double>(ctx, d, pn);
    return f32 ? plan_unit<float>(ctx, d, pn) : plan_unit<double>(ctx, d, pn);
}

void hbp_free(spx_ctx *ctx, void *dev);

/* Uploads the host layout's arrays into d->L (header already copied, pointers cleared). */
spx_status upload_arrays(spx_ctx *ctx, spx_hbp_fmt *F, hbp_dev *d)
{
    spx_status s = hbp_table_upload(ctx, hbp_table_of(F), hbp_table_of(&d->L), 0, SPX_HBP_N_ARRAYS);
    if (!s) s = spx_cuda_malloc(ctx, (void **)&d->ticket, sizeof *d->ticket);
    return s;
}

/* Uploads the host layout and sizes the launch. */
spx_status hbp_upload(spx_ctx *ctx, const void *impl, spx_phase_log *log, void **dev)
{
    spx_hbp_fmt *F = (spx_hbp_fmt *)impl; /* read only: the table hands out its addresses */
    if (!ctx || !F || !dev) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "hbp upload: NULL argument") : SPX_ERR_ARG;
    spx_status s = spx_cuda_init(ctx);
    if (s) return s;
    hbp_dev *d = (hbp_dev *)spx_calloc_array(ctx, 1, sizeof *d);
    if (!d) return spx_fail_nomem(ctx, "hbp GPU state");
    d->L = *F;
    hbp_table_clear(hbp_table_of(&d->L));
    d->L.bands = NULL;
    d->L.wide = NULL;
    if (F->bands) {
        s = spx_hbp_bands_upload(ctx, F->bands, log, &d->bands);
    } else if (F->wide) {
        s = spx_hbp_wide_upload(ctx, F->wide, log, &d->wide);
    } else {
        const double t0 = spx_now();
        s = upload_arrays(ctx, F, d);
        spx_phase_add(log, "upload", spx_now() - t0);
        if (!s) s = plan_launch(ctx, d);
    }
    if (s) {
        hbp_free(ctx, d);
        return s;
    }
    *dev = d;
    return SPX_OK;
}

/* The band layout of A on the device (the rules' width for feat, columns numbered per mode)
 * under an hbp header in d. */
spx_status build_bands(spx_ctx *ctx, const spx_dev_csr *A, const spx_features *feat, spx_hbp_hot_mode mode,
                       spx_phase_log *log, hbp_dev *d)
{
    spx_status s = spx_hbp_bands_dev_build(ctx, A, 0, feat, mode, log, &d->bands);
    if (!s) spx_hbp_fmt_band_header(&d->L, spx_hbp_bands_dev_header(d->bands));
    return s;
}

/* The wide tiles of A on the device under an hbp header in d. */
spx_status build_wide(spx_ctx *ctx, const spx_dev_csr *A, spx_phase_log *log, hbp_dev *d)
{
    spx_status s = spx_hbp_wide_dev_build(ctx, A, log, &d->wide);
    if (!s) spx_hbp_fmt_wide_header(&d->L, spx_hbp_wide_dev_header(d->wide));
    return s;
}

/* Builds the layout on the device from the uploaded CSR (A's arrays stay the plan's), then
 * the ticket counter and the launch, as an upload does; or the bands, or the wide tiles. */
spx_status hbp_build(spx_ctx *ctx, spx_dev_csr *A, const spx_features *feat, const spx_plan_opts *opts,
                     spx_phase_log *log, void **dev)
{
    if (!ctx || !A || !dev) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "hbp build: NULL argument") : SPX_ERR_ARG;
    const char *name = opts ? opts->algo : NULL;
    const int a = spx_hbp_algo_from_name(name);
    if (a < 0) return spx_fail(ctx, SPX_ERR_ARG, "hbp: unknown algorithm '%s'", name);
    const spx_hbp_algo r = spx_hbp_algo_resolve(a, A->n, (int)spx_precision_bytes(A->precision), feat);
    const bool tiled = r != SPX_HBP_BAND && r != SPX_HBP_HOT && r != SPX_HBP_WIDE;
    hbp_dev *d = (hbp_dev *)spx_calloc_array(ctx, 1, sizeof *d);
    if (!d) return spx_fail_nomem(ctx, "hbp GPU state");
    spx_status s = r == SPX_HBP_BAND || r == SPX_HBP_HOT ? build_bands(ctx, A, feat, spx_hbp_hot_mode_of(a), log, d)
                   : r == SPX_HBP_WIDE ? build_wide(ctx, A, log, d)
                                       : spx_hbp_dev_build(ctx, A, feat, name, 0, 0, log, &d->L);
    if (!s && tiled) s = spx_cuda_malloc(ctx, (void **)&d->ticket, sizeof *d->ticket);
    if (!s && tiled) s = plan_launch(ctx, d);
    if (s) {
        hbp_free(ctx, d);
        return s;
    }
    *dev = d;
    return SPX_OK;
}

/* The device layout back to a host CSR: downloaded into a host layout, decoded there. */
spx_status hbp_to_csr(spx_ctx *ctx, const void *dev, spx_csr **out)
{
    if (((const hbp_dev *)dev)->bands) return spx_hbp_bands_dev_to_csr(ctx, ((const hbp_dev *)dev)->bands, out);
    if (((const hbp_dev *)dev)->wide) return spx_hbp_wide_dev_to_csr(ctx, ((const hbp_dev *)dev)->wide, out);
    spx_hbp_fmt *F = NULL;
    spx_status s = spx_hbp_dev_download(ctx, &((const hbp_dev *)dev)->L, &F);
    if (!s) s = spx_hbp_fmt_to_csr(ctx, F, out);
    spx_hbp_fmt_destroy(ctx, F);
    return s;
}

/* y = a*A*x + b*y on device arrays, on the context's stream, no allocation. */
spx_status hbp_spmv(spx_ctx *ctx, void *dev, const spx_spmv_args *args)
{
    hbp_dev *d = (hbp_dev *)dev;
    if (!ctx || !d || !args) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "hbp spmv: NULL argument") : SPX_ERR_ARG;
    if (args->precision != d->L.precision) return spx_fail(ctx, SPX_ERR_ARG, "hbp spmv: precision differs from the plan's");
    if (d->L.m == 0) return SPX_OK;
    if (!args->y || (d->L.nnz > 0 && !args->x)) return spx_fail(ctx, SPX_ERR_ARG, "hbp spmv: NULL vector");
    if (d->bands) return spx_hbp_bands_dev_spmv(ctx, d->bands, args);
    if (d->wide) return spx_hbp_wide_dev_spmv(ctx, d->wide, args);
    SPX_CUDA_RET(ctx, cudaMemsetAsync(d->ticket, 0, sizeof *d->ticket, spx_cuda_stream(ctx)));
    const bool f32 = d->L.precision == SPX_FP32;
    if (uses_atomics(d)) return f32 ? launch_atomic<float>(ctx, d, args) : launch_atomic<double>(ctx, d, args);
    return f32 ? launch_unit<float>(ctx, d, args) : launch_unit<double>(ctx, d, args);
}

void hbp_free(spx_ctx *ctx, void *dev)
{
    hbp_dev *d = (hbp_dev *)dev;
    if (!d) return;
    spx_hbp_dev_free(ctx, &d->L);
    spx_hbp_bands_dev_free(ctx, d->bands);
    spx_hbp_wide_dev_free(ctx, d->wide);
    spx_hbp_units_free(ctx, &d->units);
    spx_cuda_free(ctx, d->ticket);
    spx_free(ctx, d);
}

const char *hbp_kernel(const void *dev)
{
    const hbp_dev *d = (const hbp_dev *)dev;
    return !d ? "none" : d->bands ? spx_hbp_bands_dev_kernel(d->bands) : d->wide ? spx_hbp_wide_dev_kernel(d->wide) : d->kernel;
}

const char *hbp_algo(const void *dev) { return spx_hbp_algo_names[((const hbp_dev *)dev)->L.algo]; }

/* The layout's minimum bytes (the same figure as the host layout's). */
double hbp_bytes(const void *dev)
{
    const hbp_dev *d = (const hbp_dev *)dev;
    return d->bands  ? spx_hbp_bands_bytes(spx_hbp_bands_dev_header(d->bands))
           : d->wide ? spx_hbp_wide_bytes(spx_hbp_wide_dev_header(d->wide))
                     : spx_hbp_fmt_bytes(&d->L);
}

/* The layout's figures, from the header the device state keeps (a device build's: the
 * "before" balance shown as not computed). */
void hbp_stats(const void *dev, spx_stat_list *out)
{
    const hbp_dev *d = (const hbp_dev *)dev;
    if (d->bands)
        spx_hbp_bands_stats(spx_hbp_bands_dev_header(d->bands), out);
    else if (d->wide)
        spx_hbp_wide_stats(spx_hbp_wide_dev_header(d->wide), out);
    else
        spx_hbp_fmt_stats(&d->L, out);
}

/* The GPU half (slots in spx_cuda_layout's and spx_cuda_ops' order). */
const spx_format_cuda hbp_cuda = {
    { /* layout */
        hbp_upload, /* upload */
        hbp_build,  /* build: on the device, from the uploaded CSR */
        hbp_to_csr, /* to_csr */
        hbp_free,   /* free */
        hbp_algo,   /* algo_name */
        hbp_bytes,  /* bytes_per_spmv */
        hbp_stats,  /* stats */
    },
    {hbp_spmv, hbp_kernel}, /* ops: spmv, spmv_kernel; no spmm kernel yet (the plan runs k SpMVs) */
};

} /* namespace */

extern "C" const spx_format_cuda *spx_hbp_cuda(void) { return &hbp_cuda; }

extern "C" spx_status spx_hbp_dev_download(spx_ctx *ctx, const spx_hbp_fmt *L, spx_hbp_fmt **out)
{
    if (!ctx || !L || !out) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "hbp download: NULL argument") : SPX_ERR_ARG;
    spx_hbp_fmt *F = (spx_hbp_fmt *)spx_calloc_array(ctx, 1, sizeof *F);
    if (!F) return spx_fail_nomem(ctx, "hbp download");
    *F = *L;
    const hbp_table h = hbp_table_of(F);
    hbp_table_clear(h);
    const hbp_table g = hbp_table_of((spx_hbp_fmt *)L); /* L read only */
    const spx_status s = hbp_table_download(ctx, g, h, "hbp download");
    if (s) {
        spx_hbp_fmt_destroy(ctx, F);
        return s;
    }
    *out = F;
    return SPX_OK;
}

extern "C" void spx_hbp_dev_free(spx_ctx *ctx, spx_hbp_fmt *L)
{
    if (!L) return;
    const hbp_table g = hbp_table_of(L);
    hbp_table_free(ctx, g);
    hbp_table_clear(g);
}
