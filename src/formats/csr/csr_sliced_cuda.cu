/* src/formats/csr/csr_sliced_cuda.cu: the csr format's `sliced` algorithm: warp-wide slices of
 * rows whose entries are interleaved so that each step of a warp reads 32 consecutive entries
 * (no row pointers, no staging, no shared memory in the SpMV), built on the device from the
 * plan's CSR; its SpMV. Meant for rows of even length on matrices whose SpMV takes a few
 * microseconds, where every dependent load in the kernel's chain shows (DASP's row blocks,
 * Lu & Liu SC'23, avoid the same chain with tensor-core tiles). */
#include <stdio.h>

#include "cuda/cub_scratch.cuh"
#include "cuda/gateway.h"
#include "cuda/primitives.cuh"
#include "cuda/runtime.cuh"
#include "formats/csr/csr_cuda_tuning.h"
#include "formats/csr/csr_sliced_cuda.h"

namespace {

/* Accumulation in fp64 for fp32 values too, as every csr kernel (csr_cuda.cu). */
typedef double acc_t;

/* One SpMV's operands on the slice layout (passed by value). */
template <typename VT>
struct sliced_view {
    int32_t m, n_slices;
    const int32_t *off, *col;
    const VT *val, *x;
    VT *y;
    acc_t a, b;
    bool read_y; /* b != 0 (BLAS rule: b == 0 never reads y) */
};

/* y = a*A*x + b*y, a warp a slice of 32 / LANES rows, LANES lanes a row, the lanes' sums added
 * by a fixed shuffle tree (deterministic). Padding (column -1) is skipped, never multiplied. */
template <typename VT, int LANES>
__global__ void __launch_bounds__(SPX_CSR_CUDA_SLICED_BLOCK) csr_sliced_kernel(sliced_view<VT> v)
{
    const int64_t s = ((int64_t)blockIdx.x * SPX_CSR_CUDA_SLICED_BLOCK + threadIdx.x) / 32;
    if (s >= v.n_slices) return; /* whole warps: the shuffles below see all 32 lanes */
    const int lane = threadIdx.x & 31;
    const int32_t e = __ldg(v.off + s + 1);
    constexpr int UNROLL = SPX_CSR_CUDA_SLICED_UNROLL;
    acc_t sum = 0;
#pragma unroll UNROLL
    for (int32_t k = __ldg(v.off + s) + lane; k < e; k += 32) {
        const int32_t c = spx_ld_stream(v.col + k);
        const acc_t a = (acc_t)spx_ld_stream(v.val + k);
        if (c >= 0) sum += a * (acc_t)__ldg(v.x + c);
    }
    sum = spx_group_sum<LANES>(sum);
    const int64_t row = s * (32 / LANES) + lane / LANES;
    if (lane % LANES != 0 || row >= v.m) return;
    acc_t r = v.a * sum;
    if (v.read_y) r += v.b * (acc_t)v.y[row];
    v.y[row] = (VT)r;
}

/* cnt[s] = 32 * ceil(longest row of slice s / lanes) for s < n_slices; cnt[n_slices] = 0 (the
 * exclusive sum then ends with the total). */
__global__ void __launch_bounds__(SPX_CSR_CUDA_AUX_BLOCK)
    sliced_width_kernel(int32_t m, int lanes, int32_t n_slices, const int32_t *__restrict__ rowptr,
                        int64_t *__restrict__ cnt)
{
    const int32_t rows = 32 / lanes;
    for (int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; s <= n_slices; s += (int64_t)gridDim.x * blockDim.x) {
        if (s == n_slices) {
            cnt[s] = 0;
            continue;
        }
        const int64_t r0 = s * rows, r1 = min(r0 + rows, (int64_t)m);
        int32_t longest = 0;
        for (int64_t r = r0; r < r1; r++) longest = max(longest, __ldg(rowptr + r + 1) - __ldg(rowptr + r));
        cnt[s] = 32 * (((int64_t)longest + lanes - 1) / lanes);
    }
}

/* off[s] = off64[s] (the total was checked to fit int32). */
__global__ void __launch_bounds__(SPX_CSR_CUDA_AUX_BLOCK)
    sliced_narrow_kernel(int64_t n, const int64_t *__restrict__ off64, int32_t *__restrict__ off)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        off[i] = (int32_t)off64[i];
}

/* Fills the slices, a warp a slice: lane l = i * lanes + t writes entries t, t + lanes, .. of
 * the slice's row i into its column of the slice (coalesced writes), padding past the row. */
template <typename VT>
__global__ void __launch_bounds__(SPX_CSR_CUDA_AUX_BLOCK)
    sliced_fill_kernel(int32_t m, int lanes, int32_t n_slices, const int32_t *__restrict__ rowptr,
                       const int32_t *__restrict__ colind, const VT *__restrict__ val, const int32_t *__restrict__ off,
                       int32_t *__restrict__ scol, VT *__restrict__ sval)
{
    const int lane = threadIdx.x & 31, i = lane / lanes, t = lane % lanes;
    const int64_t warps = (int64_t)gridDim.x * blockDim.x / 32;
    for (int64_t s = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; s < n_slices; s += warps) {
        const int64_t row = s * (32 / lanes) + i;
        const int32_t base = row < m ? __ldg(rowptr + row) : 0, len = row < m ? __ldg(rowptr + row + 1) - base : 0;
        const int32_t o = __ldg(off + s), steps = (__ldg(off + s + 1) - o) / 32;
        for (int32_t it = 0; it < steps; it++) {
            const int32_t j = it * lanes + t, dst = o + it * 32 + lane;
            scol[dst] = j < len ? __ldg(colind + base + j) : -1;
            sval[dst] = j < len ? __ldg(val + base + j) : (VT)0;
        }
    }
}

/* Grid of a plan-time kernel over n items. */
unsigned aux_grid(const spx_ctx *ctx, int64_t n)
{
    return spx_cuda_grid_stride_blocks(ctx, n, SPX_CSR_CUDA_AUX_BLOCK, SPX_CSR_CUDA_AUX_BLOCKS_PER_SM);
}

/* The SpMV launch for lanes known at compile time. */
template <typename VT, int LANES>
spx_status launch_lanes(spx_ctx *ctx, const sliced_view<VT> &v)
{
    constexpr int WARPS = SPX_CSR_CUDA_SLICED_BLOCK / 32;
    const unsigned grid = (unsigned)(((int64_t)v.n_slices + WARPS - 1) / WARPS);
    csr_sliced_kernel<VT, LANES><<<grid, SPX_CSR_CUDA_SLICED_BLOCK, 0, spx_cuda_stream(ctx)>>>(v);
    SPX_CUDA_LAUNCHED(ctx, "csr_sliced_kernel");
    return SPX_OK;
}

/* The SpMV in value type VT. */
template <typename VT>
spx_status spmv_typed(spx_ctx *ctx, const spx_csr_sliced *L, int32_t m, double a, const void *x, double b, void *y)
{
    sliced_view<VT> v;
    v.m = m;
    v.n_slices = L->n_slices;
    v.off = L->off;
    v.col = L->col;
    v.val = (const VT *)L->val;
    v.x = (const VT *)x;
    v.y = (VT *)y;
    v.a = (acc_t)a;
    v.b = (acc_t)b;
    v.read_y = b != 0.0;
    switch (L->lanes) {
    case 1: return launch_lanes<VT, 1>(ctx, v);
    case 2: return launch_lanes<VT, 2>(ctx, v);
    case 4: return launch_lanes<VT, 4>(ctx, v);
    case 8: return launch_lanes<VT, 8>(ctx, v);
    case 16: return launch_lanes<VT, 16>(ctx, v);
    case 32: return launch_lanes<VT, 32>(ctx, v);
    default: return spx_fail(ctx, SPX_ERR_ARG, "csr sliced: %d lanes a row is not a power of two in 1..32", L->lanes);
    }
}

/* The slice offsets (off64: n_slices + 1 int64 scratch, scanned in place), the padded total
 * downloaded and checked, then the int32 offsets in L->off. */
spx_status build_offsets(spx_ctx *ctx, int32_t m, const int32_t *rowptr, int64_t *off64, spx_csr_sliced *L)
{
    void *temp = NULL;
    size_t temp_bytes = 0;
    const int64_t n = (int64_t)L->n_slices + 1;
    sliced_width_kernel<<<aux_grid(ctx, n), SPX_CSR_CUDA_AUX_BLOCK, 0, spx_cuda_stream(ctx)>>>(m, L->lanes, L->n_slices,
                                                                                               rowptr, off64);
    SPX_CUDA_LAUNCHED(ctx, "sliced_width_kernel");
    spx_status s = spx_cuda_exclusive_sum(ctx, off64, off64, n, &temp, &temp_bytes);
    if (!s) s = spx_cuda_d2h(ctx, &L->padded, off64 + L->n_slices, sizeof L->padded);
    spx_cuda_free(ctx, temp);
    if (s) return s;
    if (L->padded > INT32_MAX)
        return spx_fail(ctx, SPX_ERR_OVERFLOW, "csr sliced: %lld entries with padding exceed the int32 range",
                        (long long)L->padded);
    s = spx_cuda_malloc(ctx, (void **)&L->off, (size_t)n * sizeof *L->off);
    if (s) return s;
    sliced_narrow_kernel<<<aux_grid(ctx, n), SPX_CSR_CUDA_AUX_BLOCK, 0, spx_cuda_stream(ctx)>>>(n, off64, L->off);
    SPX_CUDA_LAUNCHED(ctx, "sliced_narrow_kernel");
    return SPX_OK;
}

/* The padded entries: columns and values of L's offsets, filled from the CSR. */
spx_status fill_slices(spx_ctx *ctx, int32_t m, spx_precision prec, const int32_t *rowptr, const int32_t *colind,
                       const void *val, spx_csr_sliced *L)
{
    const size_t vb = spx_precision_bytes(prec), n = (size_t)(L->padded > 0 ? L->padded : 1);
    spx_status s = spx_cuda_malloc(ctx, (void **)&L->col, n * sizeof *L->col);
    if (!s) s = spx_cuda_malloc(ctx, &L->val, n * vb);
    if (s) return s;
    const unsigned grid = aux_grid(ctx, (int64_t)L->n_slices * 32);
    if (prec == SPX_FP32)
        sliced_fill_kernel<float><<<grid, SPX_CSR_CUDA_AUX_BLOCK, 0, spx_cuda_stream(ctx)>>>(
            m, L->lanes, L->n_slices, rowptr, colind, (const float *)val, L->off, L->col, (float *)L->val);
    else
        sliced_fill_kernel<double><<<grid, SPX_CSR_CUDA_AUX_BLOCK, 0, spx_cuda_stream(ctx)>>>(
            m, L->lanes, L->n_slices, rowptr, colind, (const double *)val, L->off, L->col, (double *)L->val);
    SPX_CUDA_LAUNCHED(ctx, "sliced_fill_kernel");
    return SPX_OK;
}

} /* namespace */

extern "C" int spx_csr_sliced_lanes(double mean)
{
    int lanes = 1;
    while (lanes < 32 && (double)lanes * SPX_CSR_CUDA_SLICED_NZ_PER_LANE < mean) lanes *= 2;
    return lanes;
}

extern "C" spx_status spx_csr_sliced_build(spx_ctx *ctx, int32_t m, int64_t nnz, spx_precision prec,
                                           const int32_t *rowptr, const int32_t *colind, const void *val,
                                           spx_csr_sliced *out)
{
    if (!ctx || !out || m < 0) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "csr sliced: bad arguments") : SPX_ERR_ARG;
    spx_csr_sliced L = {0, 0, NULL, NULL, NULL, 0};
    L.lanes = spx_csr_sliced_lanes(m > 0 ? (double)nnz / m : 0.0);
    const int64_t rows = 32 / L.lanes, slices = ((int64_t)m + rows - 1) / rows;
    if (slices >= INT32_MAX) return spx_fail(ctx, SPX_ERR_OVERFLOW, "csr sliced: %lld slices", (long long)slices);
    L.n_slices = (int32_t)slices;
    int64_t *off64 = NULL;
    spx_status s = spx_cuda_malloc(ctx, (void **)&off64, ((size_t)slices + 1) * sizeof *off64);
    if (!s) s = build_offsets(ctx, m, rowptr, off64, &L);
    if (!s) s = fill_slices(ctx, m, prec, rowptr, colind, val, &L);
    if (!s) s = spx_cuda_sync(ctx); /* off64 is freed below: the kernels reading it end first */
    spx_cuda_free(ctx, off64);
    if (s) {
        spx_csr_sliced_free(ctx, &L);
        return s;
    }
    *out = L;
    return SPX_OK;
}

extern "C" spx_status spx_csr_sliced_spmv(spx_ctx *ctx, const spx_csr_sliced *L, int32_t m, spx_precision prec,
                                          double a, const void *x, double b, void *y)
{
    return prec == SPX_FP32 ? spmv_typed<float>(ctx, L, m, a, x, b, y) : spmv_typed<double>(ctx, L, m, a, x, b, y);
}

extern "C" void spx_csr_sliced_free(spx_ctx *ctx, spx_csr_sliced *L)
{
    if (!L) return;
    spx_cuda_free(ctx, L->off);
    spx_cuda_free(ctx, L->col);
    spx_cuda_free(ctx, L->val);
    L->off = L->col = NULL;
    L->val = NULL;
}
