/* src/formats/teb/teb_cuda.cu: the teb format on the GPU: the host layout uploaded as it is,
 * one thread block per TEB block (the paper's Algorithm 3) with two kernels: `thread` (one
 * thread a row, looping when a block has more rows than threads) and `warp-long` (the block's
 * long rows first, a warp or several each, then a thread a row); the round trip from the
 * device. */
#include <stdio.h>
#include <string.h>

#include "cuda/primitives.cuh"
#include "cuda/runtime.cuh"
#include "spmv/format_cuda.cuh"
#include "formats/teb/teb.h"
#include "formats/teb/teb_cuda_tuning.h"
#include "formats/teb/teb_tuning.h"

/* Sums in fp64 for fp32 values too, as the csr kernels (csr_cuda.cu says why). */
typedef double acc_t;

/* The teb format's GPU state (plan-owned): the layout's arrays on the device. */
typedef struct teb_dev {
    int32_t m, n, nnz, n_blocks;
    spx_precision prec;
    spx_teb_algo algo;
    int32_t *blk_row, *blk_long; /* n_blocks + 1, n_blocks */
    int32_t *row_off, *row_orig; /* m + 1, m */
    int32_t *colind;             /* nnz */
    void *val;                   /* nnz floats or doubles */
    int lanes; /* warp-long: threads per row at least for the rows that are not long (a power
                  of two; a block with few such rows gives them more) */
    char kernel[48];
} teb_dev;

namespace {

constexpr int BLOCK = SPX_TEB_CUDA_BLOCK;
constexpr int WARPS = BLOCK / 32;
static_assert(BLOCK % 32 == 0 && BLOCK <= 1024 && (WARPS & (WARPS - 1)) == 0,
              "SPX_TEB_CUDA_BLOCK must be 32 times a power of two, at most 1024");

/* One SpMV's operands as the kernels see them (passed by value). */
template <typename VT>
struct teb_view {
    const int32_t *blk_row, *blk_long, *row_off, *row_orig, *colind;
    const VT *val, *x;
    VT *y;
    acc_t a, b;
    bool read_y; /* b != 0: y is read (BLAS rule: b == 0 never reads y) */
};

/* The sum over nonzeros first, first + stride, ... of reordered row r. */
template <typename VT>
__device__ __forceinline__ acc_t row_part(const teb_view<VT> &v, int64_t r, int first, int stride)
{
    const int64_t e = __ldg(v.row_off + r + 1);
    acc_t sum = 0;
#pragma unroll 4
    for (int64_t k = (int64_t)__ldg(v.row_off + r) + first; k < e; k += stride)
        sum += (acc_t)spx_ld_stream(v.val + k) * (acc_t)__ldg(v.x + spx_ld_stream(v.colind + k));
    return sum;
}

/* y[original row of r] = a*sum + b*y (b*y only when y may be read). */
template <typename VT>
__device__ __forceinline__ void put_y(const teb_view<VT> &v, int64_t r, acc_t sum)
{
    const int32_t i = __ldg(v.row_orig + r);
    acc_t out = v.a * sum;
    if (v.read_y) out += v.b * (acc_t)v.y[i];
    v.y[i] = (VT)out;
}

/* Reordered rows [r0, r1), one thread a row, BLOCK rows at a time. */
template <typename VT>
__device__ __forceinline__ void thread_rows(const teb_view<VT> &v, int32_t r0, int32_t r1)
{
    for (int64_t r = (int64_t)r0 + threadIdx.x; r < r1; r += BLOCK) put_y(v, r, row_part(v, r, 0, 1));
}

/* Reordered rows [r0, r1), G threads a row (G a power of two <= 32), BLOCK / G rows at a time;
 * the loop is uniform across the block so every lane reaches the shuffles. */
template <typename VT, int G>
__device__ __forceinline__ void grouped_rows(const teb_view<VT> &v, int32_t r0, int32_t r1)
{
    const int sub = threadIdx.x % G;
    for (int64_t base = r0; base < r1; base += BLOCK / G) {
        const int64_t r = base + threadIdx.x / G;
        acc_t sum = r < r1 ? row_part(v, r, sub, G) : acc_t(0);
        sum = spx_group_sum<G>(sum);
        if (r < r1 && sub == 0) put_y(v, r, sum);
    }
}

/* thread (Algorithm 3): block blockIdx.x's rows, one thread a row. */
template <typename VT>
__global__ void __launch_bounds__(BLOCK) teb_thread_kernel(teb_view<VT> v)
{
    thread_rows(v, __ldg(v.blk_row + blockIdx.x), __ldg(v.blk_row + blockIdx.x + 1));
}

/* A block's n_long (< WARPS) long rows from r0: the warps split into groups of wpg (a power
 * of two, the most that gives every long row a group), each group sums one row; warp partial
 * sums meet in shared memory. Every thread of the block calls it (it synchronises). */
template <typename VT>
__device__ __forceinline__ void grouped_long_rows(const teb_view<VT> &v, int32_t r0, int n_long)
{
    __shared__ acc_t part[WARPS];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int wpg = 1 << (31 - __clz(WARPS / n_long));
    const int g = warp / wpg;
    acc_t sum = 0;
    if (g < n_long) sum = row_part(v, (int64_t)r0 + g, threadIdx.x - g * wpg * 32, wpg * 32);
    sum = spx_group_sum<32>(sum);
    if (lane == 0) part[warp] = sum;
    __syncthreads();
    if (g < n_long && lane == 0 && warp % wpg == 0) {
        acc_t total = 0;
        for (int w = warp; w < warp + wpg; w++) total += part[w];
        put_y(v, (int64_t)r0 + g, total);
    }
}

/* Threads a short row gets in one block: at least g_min (from the mean row length), widened
 * while the block's n_short rows still fill the block at twice the width (a block of a few
 * dense-band rows would otherwise leave most of its threads idle), at most a warp. */
__device__ __forceinline__ int block_lanes(int g_min, int32_t n_short)
{
    int g = g_min;
    while (g < 32 && (int64_t)2 * g * n_short <= BLOCK) g *= 2;
    return g;
}

/* warp-long: the block's long rows [blk_row, blk_long) get a warp each (several when there are
 * fewer long rows than warps), then its other rows G threads each (G from the mean row length,
 * beyond the paper: one thread a row reads a 30-70 entry FEM row uncoalesced; widened per
 * block by block_lanes). */
template <typename VT>
__global__ void __launch_bounds__(BLOCK) teb_warp_long_kernel(teb_view<VT> v, int g_min)
{
    const int32_t r0 = __ldg(v.blk_row + blockIdx.x), rl = __ldg(v.blk_long + blockIdx.x);
    const int32_t r1 = __ldg(v.blk_row + blockIdx.x + 1);
    const int32_t n_long = rl - r0; /* the same in every thread: the branches below are uniform */
    if (n_long >= WARPS) {
        const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
        for (int64_t r = (int64_t)r0 + warp; r < rl; r += WARPS) {
            const acc_t sum = spx_group_sum<32>(row_part(v, r, lane, 32));
            if (lane == 0) put_y(v, r, sum);
        }
    } else if (n_long > 0) {
        grouped_long_rows(v, r0, n_long);
    }
    switch (block_lanes(g_min, r1 - rl)) { /* uniform across the block */
    case 1: thread_rows(v, rl, r1); break;
    case 2: grouped_rows<VT, 2>(v, rl, r1); break;
    case 4: grouped_rows<VT, 4>(v, rl, r1); break;
    case 8: grouped_rows<VT, 8>(v, rl, r1); break;
    case 16: grouped_rows<VT, 16>(v, rl, r1); break;
    default: grouped_rows<VT, 32>(v, rl, r1); break;
    }
}

} // namespace

/* Copies n bytes of a host array into a new device array *d (nothing to copy when n = 0). */
static spx_status put_array(spx_ctx *ctx, void **d, const void *h, size_t n)
{
    spx_status s = spx_cuda_malloc(ctx, d, n);
    if (s || n == 0) return s;
    return spx_cuda_h2d(ctx, *d, h, n);
}

static void teb_free(spx_ctx *ctx, void *dev);

/* warp-long's threads per (not long) row for a mean row length: the smallest power of two
 * >= mean / SPX_TEB_NZ_PER_LANE, from 1 to 32. */
static int lanes_per_row(double mean)
{
    int g = 1;
    while (g < 32 && g * SPX_TEB_NZ_PER_LANE < mean) g *= 2;
    return g;
}

/* The kernel's name for the plan's algorithm and precision. */
static void set_kernel_name(teb_dev *d)
{
    if (d->algo == SPX_TEB_WARP_LONG)
        snprintf(d->kernel, sizeof d->kernel, "teb_warp_long_gmin%d_%s", d->lanes, d->prec == SPX_FP32 ? "fp32" : "fp64");
    else
        snprintf(d->kernel, sizeof d->kernel, "teb_thread_%s", d->prec == SPX_FP32 ? "fp32" : "fp64");
}

/* Uploads the host layout's arrays (no GPU preprocessing: the host did the merge). */
static spx_status teb_upload(spx_ctx *ctx, const void *impl, spx_phase_log *log, void **dev)
{
    const spx_teb_fmt *F = (const spx_teb_fmt *)impl;
    if (!ctx || !F || !dev) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "teb upload: NULL argument") : SPX_ERR_ARG;
    if (F->nnz > INT32_MAX || F->m < 0 || F->n < 0)
        return spx_fail(ctx, SPX_ERR_OVERFLOW, "teb upload: %lld nonzeros exceed the int32 range", (long long)F->nnz);
    if (F->algo <= SPX_TEB_AUTO || F->algo >= SPX_TEB_ALGO_COUNT)
        return spx_fail(ctx, SPX_ERR_ARG, "teb upload: algorithm %d not resolved", (int)F->algo);
    spx_status s = spx_cuda_init(ctx);
    if (s) return s;
    teb_dev *d = (teb_dev *)spx_calloc_array(ctx, 1, sizeof *d);
    if (!d) return spx_fail_nomem(ctx, "teb GPU state");
    d->m = F->m;
    d->n = F->n;
    d->nnz = (int32_t)F->nnz;
    d->n_blocks = F->n_blocks;
    d->prec = F->precision;
    d->algo = F->algo;
    d->lanes = lanes_per_row(F->m > 0 ? (double)F->nnz / F->m : 0.0);
    const size_t nb = (size_t)F->n_blocks, m = (size_t)F->m, nnz = (size_t)F->nnz, i4 = sizeof(int32_t);
    const size_t vb = F->precision == SPX_FP32 ? sizeof(float) : sizeof(double);
    const void *hv = F->precision == SPX_FP32 ? (const void *)F->val32 : (const void *)F->val64;
    const double t0 = spx_now();
    if ((s = put_array(ctx, (void **)&d->blk_row, F->blk_row, (nb + 1) * i4)) ||
        (s = put_array(ctx, (void **)&d->blk_long, F->blk_long, nb * i4)) ||
        (s = put_array(ctx, (void **)&d->row_off, F->row_off, (m + 1) * i4)) ||
        (s = put_array(ctx, (void **)&d->row_orig, F->row_orig, m * i4)) ||
        (s = put_array(ctx, (void **)&d->colind, F->colind, nnz * i4)) || (s = put_array(ctx, &d->val, hv, nnz * vb))) {
        teb_free(ctx, d);
        return s;
    }
    spx_phase_add(log, "upload", spx_now() - t0);
    set_kernel_name(d);
    *dev = d;
    return SPX_OK;
}

/* Frees the GPU state. */
static void teb_free(spx_ctx *ctx, void *dev)
{
    teb_dev *d = (teb_dev *)dev;
    if (!d) return;
    void *bufs[] = {d->blk_row, d->blk_long, d->row_off, d->row_orig, d->colind, d->val};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) spx_cuda_free(ctx, bufs[i]);
    spx_free(ctx, d);
}

/* The layout on the device back to a host CSR (downloaded, then put back in row order). */
static spx_status teb_dev_to_csr(spx_ctx *ctx, const void *dev, spx_csr **out)
{
    const teb_dev *d = (const teb_dev *)dev;
    const size_t m = (size_t)d->m, nnz = (size_t)d->nnz, i4 = sizeof(int32_t);
    const size_t vb = d->prec == SPX_FP32 ? sizeof(float) : sizeof(double);
    int32_t *off = (int32_t *)spx_malloc_array(ctx, m + 1, i4), *orig = (int32_t *)spx_malloc_array(ctx, m, i4);
    int32_t *col = (int32_t *)spx_malloc_array(ctx, nnz, i4);
    void *val = spx_malloc_array(ctx, nnz, vb);
    spx_status s = SPX_OK;
    if (!off || !orig || !col || !val)
        s = spx_fail_nomem(ctx, "teb download");
    else if (!(s = spx_cuda_d2h(ctx, off, d->row_off, (m + 1) * i4)) && (m == 0 || !(s = spx_cuda_d2h(ctx, orig, d->row_orig, m * i4))) &&
             (nnz == 0 || (!(s = spx_cuda_d2h(ctx, col, d->colind, nnz * i4)) && !(s = spx_cuda_d2h(ctx, val, d->val, nnz * vb)))))
        s = spx_teb_arrays_to_csr(ctx, d->m, d->n, d->nnz, off, orig, col,
                                  d->prec == SPX_FP32 ? NULL : (const double *)val,
                                  d->prec == SPX_FP32 ? (const float *)val : NULL, out);
    spx_free(ctx, off);
    spx_free(ctx, orig);
    spx_free(ctx, col);
    spx_free(ctx, val);
    return s;
}

/* The operands of one SpMV in value type VT. */
template <typename VT>
static teb_view<VT> view_of(const teb_dev *d, const spx_spmv_args *args)
{
    return teb_view<VT>{d->blk_row, d->blk_long, d->row_off, d->row_orig, d->colind, (const VT *)d->val,
                        (const VT *)args->x, (VT *)args->y, (acc_t)args->alpha, (acc_t)args->beta,
                        args->beta != 0.0};
}

/* y = a*A*x + b*y in value type VT: one thread block per TEB block. */
template <typename VT>
static spx_status spmv_typed(spx_ctx *ctx, const teb_dev *d, const spx_spmv_args *args)
{
    const teb_view<VT> v = view_of<VT>(d, args);
    const unsigned grid = (unsigned)d->n_blocks;
    const cudaStream_t st = spx_cuda_stream(ctx);
    if (d->algo == SPX_TEB_WARP_LONG) {
        teb_warp_long_kernel<VT><<<grid, BLOCK, 0, st>>>(v, d->lanes);
        SPX_CUDA_LAUNCHED(ctx, "teb_warp_long_kernel");
    } else {
        teb_thread_kernel<VT><<<grid, BLOCK, 0, st>>>(v);
        SPX_CUDA_LAUNCHED(ctx, "teb_thread_kernel");
    }
    return SPX_OK;
}

/* y = a*A*x + b*y with the plan's algorithm, on the context's stream; no allocation. */
static spx_status teb_spmv(spx_ctx *ctx, void *dev, const spx_spmv_args *args)
{
    const teb_dev *d = (const teb_dev *)dev;
    if (!d) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "teb spmv: NULL plan state") : SPX_ERR_ARG;
    int done = 1;
    spx_status s = spx_cuda_spmv_begin(ctx, "teb", d->prec, d->m, d->nnz, args, &done);
    if (s || done) return s;
    if (d->n_blocks <= 0) return spx_fail(ctx, SPX_ERR_ARG, "teb spmv: no blocks for %d rows", d->m);
    return d->prec == SPX_FP32 ? spmv_typed<float>(ctx, d, args) : spmv_typed<double>(ctx, d, args);
}

/* The kernel the plan runs. */
static const char *teb_kernel(const void *dev)
{
    return dev ? ((const teb_dev *)dev)->kernel : "none";
}

/* The resolved algorithm, as the device holds it. */
static const char *teb_algo(const void *dev)
{
    return spx_teb_algo_names[dev ? ((const teb_dev *)dev)->algo : SPX_TEB_AUTO];
}

/* Minimum bytes of one SpMV with b = 0 on the device layout. */
static double teb_dev_bytes(const void *dev)
{
    const teb_dev *d = (const teb_dev *)dev;
    return spx_teb_bytes(d->m, d->n, d->nnz, d->n_blocks, d->prec);
}

/* The teb format's GPU half (slots in spx_cuda_layout's and spx_cuda_ops' order). */
static const spx_format_cuda teb_cuda = {
    { /* layout */
        teb_upload,     /* upload */
        NULL,           /* build: the merge runs on the host (teb_build.c) */
        teb_dev_to_csr, /* to_csr */
        teb_free,       /* free */
        teb_algo,       /* algo_name */
        teb_dev_bytes,  /* bytes_per_spmv */
        NULL,           /* stats: the host layout's */
    },
    {teb_spmv, teb_kernel}, /* ops: spmv, spmv_kernel; no spmm kernel yet (the plan runs k SpMVs) */
};

extern "C" const spx_format_cuda *spx_teb_cuda(void) { return &teb_cuda; }
