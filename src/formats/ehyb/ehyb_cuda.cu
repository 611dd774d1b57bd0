/* src/formats/ehyb/ehyb_cuda.cu: the ehyb format on the GPU (paper Algorithm 3): upload of the
 * host layout, the ELL kernel (one block per part caches the part's x segment in shared
 * memory, gathered through the column permutation; its warps take slices from a
 * shared-memory counter; y written through the row permutation), the ER kernel (a warp per
 * ER slice or long row, x from global memory, adding into y), and the download for the
 * device round trip. Two launches per SpMV, no atomics on y: deterministic. */
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
    size_t smem_bytes; /* dynamic shared memory of the ELL kernel: seg_max + 1 values */
    char kernel[64];
} ehyb_dev;

namespace {

/* #pragma unroll takes a constant expression, not a macro. */
constexpr int EHYB_UNROLL = SPX_EHYB_CUDA_UNROLL;

/* The ELL kernel's operands (passed by value). */
template <typename VT>
struct ell_view {
    const int32_t *row_start, *col_start, *row_perm, *col_perm, *part_slice;
    const int64_t *ell_ptr;
    const uint16_t *ell_col;
    const VT *ell_val, *x;
    VT *y;
    acc_t a, b;
    bool read_y; /* b != 0 (BLAS rule: b == 0 never reads y) */
};

/* The ER kernel's operands. */
template <typename VT>
struct er_view {
    int32_t n_er_slices, n_long;
    const int32_t *er_row, *er_col, *long_row, *long_col;
    const int64_t *er_ptr, *long_ptr;
    const VT *er_val, *long_val, *x;
    VT *y;
    acc_t a;
};

/* ELL (Algorithm 3 lines 1-18): block p loads x[col_perm[col_start[p] + t]] for t < L into
 * shared memory, cell L = 0 (padding's target); each warp starts at slice s0 + warp and then
 * takes the next slice from the block's counter; lane l of slice j writes the row new
 * row_start[p] + 32j + l to y[row_perm[...]] = a*sum + b*y. Dynamic shared memory holds
 * seg_max + 1 values; every offset read is <= L <= seg_max. */
template <typename VT>
__global__ void __launch_bounds__(SPX_EHYB_CUDA_ELL_BLOCK) ehyb_ell_kernel(ell_view<VT> v)
{
    extern __shared__ __align__(16) unsigned char ehyb_smem[];
    VT *xs = reinterpret_cast<VT *>(ehyb_smem);
    __shared__ int32_t next_slice;
    const int32_t p = blockIdx.x;
    const int32_t s0 = __ldg(v.part_slice + p), s1 = __ldg(v.part_slice + p + 1);
    if (s0 == s1) return; /* a part without rows (block-uniform, before any barrier) */
    const int32_t c0 = __ldg(v.col_start + p), seg = __ldg(v.col_start + p + 1) - c0;
    for (int32_t t = threadIdx.x; t < seg; t += SPX_EHYB_CUDA_ELL_BLOCK)
        xs[t] = __ldg(v.x + __ldg(v.col_perm + c0 + t));
    if (threadIdx.x == 0) {
        xs[seg] = VT(0);
        next_slice = s0 + SPX_EHYB_CUDA_ELL_BLOCK / 32;
    }
    __syncthreads();
    const int lane = threadIdx.x & 31;
    const int32_t r0 = __ldg(v.row_start + p), r1 = __ldg(v.row_start + p + 1);
    int32_t s = s0 + (int32_t)(threadIdx.x >> 5);
    while (s < s1) { /* warp-uniform */
        const int64_t end = __ldg(v.ell_ptr + s + 1);
        acc_t sum = 0;
#pragma unroll EHYB_UNROLL
        for (int64_t k = __ldg(v.ell_ptr + s) + lane; k < end; k += 32)
            sum += (acc_t)__ldg(v.ell_val + k) * (acc_t)xs[__ldg(v.ell_col + k)];
        const int32_t r = r0 + (s - s0) * 32 + lane;
        if (r < r1) {
            const int32_t i = __ldg(v.row_perm + r);
            acc_t out = v.a * sum;
            if (v.read_y) out += v.b * (acc_t)v.y[i];
            v.y[i] = (VT)out;
        }
        int32_t nxt = 0;
        if (lane == 0) nxt = atomicAdd(&next_slice, 1);
        s = __shfl_sync(SPX_FULL_MASK, nxt, 0);
    }
}

/* ER (Algorithm 3 lines 19-20): warp w < n_er_slices runs ER slice w, lane l adding a*sum to
 * y[er_row[32w + l]] (padding columns -1 are skipped, x is not read for them); the next
 * n_long warps each sum one long row with a shuffle tree. Each row is in one slice or one
 * long-row warp, so the read-modify-write of y needs no atomics. */
template <typename VT>
__global__ void __launch_bounds__(SPX_EHYB_CUDA_ER_BLOCK) ehyb_er_kernel(er_view<VT> v)
{
    const int64_t w = ((int64_t)blockIdx.x * SPX_EHYB_CUDA_ER_BLOCK + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (w < v.n_er_slices) {
        const int32_t i = __ldg(v.er_row + w * 32 + lane);
        const int64_t end = __ldg(v.er_ptr + w + 1);
        acc_t sum = 0;
#pragma unroll EHYB_UNROLL
        for (int64_t k = __ldg(v.er_ptr + w) + lane; k < end; k += 32) {
            const int32_t c = __ldg(v.er_col + k);
            if (c >= 0) sum += (acc_t)__ldg(v.er_val + k) * (acc_t)__ldg(v.x + c);
        }
        if (i >= 0) v.y[i] = (VT)((acc_t)v.y[i] + v.a * sum);
    } else if (w < (int64_t)v.n_er_slices + v.n_long) { /* warp-uniform */
        const int64_t li = w - v.n_er_slices, end = __ldg(v.long_ptr + li + 1);
        acc_t sum = 0;
        for (int64_t k = __ldg(v.long_ptr + li) + lane; k < end; k += 32)
            sum += (acc_t)__ldg(v.long_val + k) * (acc_t)__ldg(v.x + __ldg(v.long_col + k));
        sum = spx_group_sum<32>(sum);
        if (lane == 0) {
            const int32_t i = __ldg(v.long_row + li);
            v.y[i] = (VT)((acc_t)v.y[i] + v.a * sum);
        }
    }
}

} // namespace

/* Lets the ELL kernel of value type VT take all the opt-in shared memory of the device
 * (spx_cuda_allow_max_smem) and prefer the shared-memory carveout. */
template <typename VT>
static spx_status allow_smem(spx_ctx *ctx)
{
    spx_status s = spx_cuda_allow_max_smem(ctx, ehyb_ell_kernel<VT>);
    if (s) return s;
    SPX_CUDA_RET(ctx, cudaFuncSetAttribute(ehyb_ell_kernel<VT>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                           (int)cudaSharedmemCarveoutMaxShared));
    return SPX_OK;
}

static void ehyb_free(spx_ctx *ctx, void *dev);

/* Sets every array field of L to NULL (before they receive device or host copies). */
static void clear_arrays(spx_ehyb_fmt *L)
{
    spx_ehyb_array arr[SPX_EHYB_N_ARRAYS];
    spx_ehyb_fmt_arrays(L, arr);
    for (int i = 0; i < SPX_EHYB_N_ARRAYS; i++) *arr[i].ptr = NULL;
}

/* The kernels' name, e.g. "ehyb_ell512+er_fp64". */
static void set_kernel_name(ehyb_dev *d)
{
    const char *prec = d->L.precision == SPX_FP32 ? "fp32" : "fp64";
    if (d->L.m == 0 || d->L.nnz == 0)
        snprintf(d->kernel, sizeof d->kernel, "ehyb_empty(y=b*y)");
    else
        snprintf(d->kernel, sizeof d->kernel, "ehyb_ell%d%s_%s", SPX_EHYB_CUDA_ELL_BLOCK,
                 d->L.n_er_slices + d->L.n_long > 0 ? "+er" : "", prec);
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
    s = F->precision == SPX_FP32 ? allow_smem<float>(ctx) : allow_smem<double>(ctx);
    if (s) return s;
    ehyb_dev *d = (ehyb_dev *)spx_calloc_array(ctx, 1, sizeof *d);
    if (!d) return spx_fail_nomem(ctx, "ehyb GPU state");
    d->L = *F;
    clear_arrays(&d->L);
    d->smem_bytes = smem;
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

/* y = a*A*x + b*y in value type VT: the ELL kernel, then the ER kernel when there is ER work. */
template <typename VT>
static spx_status spmv_typed(spx_ctx *ctx, const ehyb_dev *d, const spx_spmv_args *args)
{
    const spx_ehyb_fmt *L = &d->L;
    cudaStream_t st = spx_cuda_stream(ctx);
    const VT *x = (const VT *)args->x;
    VT *y = (VT *)args->y;
    const ell_view<VT> e = {L->row_start, L->col_start, L->row_perm, L->col_perm, L->part_slice, L->ell_ptr,
                            L->ell_col, (const VT *)L->ell_val, x, y, (acc_t)args->alpha, (acc_t)args->beta,
                            args->beta != 0.0};
    ehyb_ell_kernel<VT><<<(unsigned)L->nparts, SPX_EHYB_CUDA_ELL_BLOCK, d->smem_bytes, st>>>(e);
    SPX_CUDA_LAUNCHED(ctx, "ehyb_ell_kernel");
    const int64_t warps = (int64_t)L->n_er_slices + L->n_long;
    if (warps == 0) return SPX_OK;
    const er_view<VT> r = {L->n_er_slices, L->n_long, L->er_row, L->er_col, L->long_row, L->long_col, L->er_ptr,
                           L->long_ptr, (const VT *)L->er_val, (const VT *)L->long_val, x, y, (acc_t)args->alpha};
    const unsigned grid = (unsigned)((warps * 32 + SPX_EHYB_CUDA_ER_BLOCK - 1) / SPX_EHYB_CUDA_ER_BLOCK);
    ehyb_er_kernel<VT><<<grid, SPX_EHYB_CUDA_ER_BLOCK, 0, st>>>(r);
    SPX_CUDA_LAUNCHED(ctx, "ehyb_er_kernel");
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
