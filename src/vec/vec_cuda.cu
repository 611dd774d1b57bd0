/* src/vec/vec_cuda.cu: the vector operations on the GPU: grid-stride fill, axpby and mul, and the
 * deterministic two-pass reduction behind dot and nrm2 (per-block partials in a fixed order,
 * then one block sums them in a fixed order: no atomics, the same bits every run). */
#include <math.h>

#include "cuda/primitives.cuh"
#include "cuda/runtime.cuh"
#include "vec/vec_cuda.h"
#include "vec/vec_reduce.cuh"
#define SPX_VEC_FN static __host__ __device__ __forceinline__
#include "vec/vec_blue.h"

/* Launch constants (SPX_VEC_BLOCK and the grid: vec_reduce.cuh). */
#define SPX_VEC_FINAL_BLOCK 1024 /* threads of the single block of reduction pass 2: each adds
                                    at most SPX_VEC_RED_MAX_BLOCKS / 1024 = 4 partials per sum */

namespace {

/* x[0..n) = v. */
template <typename VT>
__global__ void __launch_bounds__(SPX_VEC_BLOCK) vec_fill_kernel(int64_t n, VT *__restrict__ x, VT v)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) x[i] = v;
}

/* y = a*x + b*y in fp64; an operand whose READ_ flag is false is not read. x may be y. */
template <typename VT, bool READ_X, bool READ_Y>
__global__ void __launch_bounds__(SPX_VEC_BLOCK) vec_axpby_kernel(int64_t n, double a, const VT *x, double b, VT *y)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        double r = 0.0;
        if (READ_X) r = a * (double)x[i];
        if (READ_Y) r += b * (double)y[i];
        y[i] = (VT)r;
    }
}

/* z = x .* y in fp64, rounded once; z may be x or y. */
template <typename VT>
__global__ void __launch_bounds__(SPX_VEC_BLOCK) vec_mul_kernel(int64_t n, const VT *x, const VT *y, VT *z)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        z[i] = (VT)((double)x[i] * (double)y[i]);
}

/* out[k] = x[idx[k]]. */
__global__ void __launch_bounds__(SPX_VEC_BLOCK) vec_gather_kernel(int64_t n, const int32_t *__restrict__ idx,
                                                                   const double *__restrict__ x, double *__restrict__ out)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride) out[k] = x[idx[k]];
}

/* y[idx[k]] += z[k] (idx distinct). */
__global__ void __launch_bounds__(SPX_VEC_BLOCK) vec_scatter_add_kernel(int64_t n, const int32_t *__restrict__ idx,
                                                                        const double *__restrict__ z, double *__restrict__ y)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride) y[idx[k]] += z[k];
}

/* What a reduction sums. */
enum red_op { RED_DOT, RED_SUMSQ };

/* Sums per thread: Blue's three for the fp64 sum of squares, one otherwise. */
template <int OP, typename VT>
struct red_sums {
    static constexpr int N = (OP == RED_SUMSQ && sizeof(VT) == sizeof(double)) ? SPX_N_SUMS : 1;
};

/* Adds entry i's contribution to s (s[0] when there is one sum; Blue's slots otherwise). */
template <int OP, typename VT>
__device__ __forceinline__ void red_add(double *s, const VT *x, const VT *y, int64_t i)
{
    if constexpr (OP == RED_DOT) {
        s[0] += (double)x[i] * (double)y[i];
    } else if constexpr (red_sums<OP, VT>::N == 1) {
        const double d = (double)x[i];
        s[0] += d * d;
    } else {
        spx_blue_add(s, (double)x[i]);
    }
}

/* Pass 1: block b's sums of its grid-stride share go to partials[k * gridDim.x + b]. */
template <int OP, typename VT>
__global__ void __launch_bounds__(SPX_VEC_BLOCK)
    vec_red_pass1(int64_t n, const VT *__restrict__ x, const VT *__restrict__ y, double *__restrict__ partials)
{
    constexpr int NS = red_sums<OP, VT>::N;
    double s[NS];
#pragma unroll
    for (int k = 0; k < NS; k++) s[k] = 0.0;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) red_add<OP, VT>(s, x, y, i);
    spx_vec_block_sums<SPX_VEC_BLOCK, NS>(s);
    if (threadIdx.x == 0)
        for (int k = 0; k < NS; k++) partials[(int64_t)k * gridDim.x + blockIdx.x] = s[k];
}

/* Pass 2 (one block): out[k] = the sum of the `parts` partials of sum k, in a fixed order. */
template <int NS>
__global__ void __launch_bounds__(SPX_VEC_FINAL_BLOCK)
    vec_red_pass2(int parts, const double *__restrict__ partials, double *__restrict__ out)
{
    double s[NS];
#pragma unroll
    for (int k = 0; k < NS; k++) {
        s[k] = 0.0;
        for (int i = threadIdx.x; i < parts; i += SPX_VEC_FINAL_BLOCK) s[k] += partials[(int64_t)k * parts + i];
    }
    spx_vec_block_sums<SPX_VEC_FINAL_BLOCK, NS>(s);
    if (threadIdx.x == 0)
        for (int k = 0; k < NS; k++) out[k] = s[k];
}

/* Blocks for a grid-stride element-wise kernel over n entries on the context's device. */
unsigned grid_for(spx_ctx *ctx, int64_t n) { return spx_vec_grid(ctx, n); }

/* Launches axpby with the read flags a and b call for. */
template <typename VT>
spx_status launch_axpby(spx_ctx *ctx, int64_t n, double a, const VT *x, double b, VT *y)
{
    const unsigned grid = grid_for(ctx, n);
    cudaStream_t st = spx_cuda_stream(ctx);
    if (a != 0.0 && b != 0.0)
        vec_axpby_kernel<VT, true, true><<<grid, SPX_VEC_BLOCK, 0, st>>>(n, a, x, b, y);
    else if (a != 0.0)
        vec_axpby_kernel<VT, true, false><<<grid, SPX_VEC_BLOCK, 0, st>>>(n, a, x, b, y);
    else if (b != 0.0)
        vec_axpby_kernel<VT, false, true><<<grid, SPX_VEC_BLOCK, 0, st>>>(n, a, x, b, y);
    else
        vec_fill_kernel<VT><<<grid, SPX_VEC_BLOCK, 0, st>>>(n, y, VT(0));
    SPX_CUDA_LAUNCHED(ctx, "vec_axpby_kernel");
    return SPX_OK;
}

/* The two passes of a reduction over n > 0 entries, then the totals copied to out (synchronises). */
template <int OP, typename VT>
spx_status reduce(spx_ctx *ctx, int64_t n, const VT *x, const VT *y, double *scratch, double out[SPX_N_SUMS])
{
    constexpr int NS = red_sums<OP, VT>::N;
    unsigned grid = grid_for(ctx, n);
    if (grid > SPX_VEC_RED_MAX_BLOCKS) grid = SPX_VEC_RED_MAX_BLOCKS;
    double *totals = scratch + (size_t)SPX_N_SUMS * SPX_VEC_RED_MAX_BLOCKS;
    cudaStream_t st = spx_cuda_stream(ctx);
    vec_red_pass1<OP, VT><<<grid, SPX_VEC_BLOCK, 0, st>>>(n, x, y, scratch);
    SPX_CUDA_LAUNCHED(ctx, "vec_red_pass1");
    vec_red_pass2<NS><<<1, SPX_VEC_FINAL_BLOCK, 0, st>>>((int)grid, scratch, totals);
    SPX_CUDA_LAUNCHED(ctx, "vec_red_pass2");
    double t[SPX_N_SUMS] = {0.0, 0.0, 0.0};
    spx_status s = spx_cuda_d2h(ctx, t, totals, NS * sizeof(double));
    if (s) return s;
    if (NS == 1) {
        out[SPX_SUM_MED] = t[0];
    } else {
        for (int k = 0; k < SPX_N_SUMS; k++) out[k] = t[k];
    }
    return SPX_OK;
}

/* SPX_OK when the entry point's arguments are usable, else SPX_ERR_ARG with a message. */
spx_status check_args(spx_ctx *ctx, const char *fn, spx_precision p, int64_t n, const void *a, const void *b)
{
    if (!ctx) return SPX_ERR_ARG;
    if (p != SPX_FP64 && p != SPX_FP32) return spx_fail(ctx, SPX_ERR_ARG, "%s: unknown precision", fn);
    if (n < 0) return spx_fail(ctx, SPX_ERR_ARG, "%s: negative length %lld", fn, (long long)n);
    if (n > 0 && (!a || !b)) return spx_fail(ctx, SPX_ERR_ARG, "%s: NULL device pointer", fn);
    return SPX_OK;
}

} /* namespace */

extern "C" spx_status spx_vec_cuda_fill(spx_ctx *ctx, spx_precision p, int64_t n, void *x, double value)
{
    spx_status s = check_args(ctx, "spx_vec_cuda_fill", p, n, x, x);
    if (s || n == 0) return s;
    const unsigned grid = grid_for(ctx, n);
    cudaStream_t st = spx_cuda_stream(ctx);
    if (p == SPX_FP32)
        vec_fill_kernel<float><<<grid, SPX_VEC_BLOCK, 0, st>>>(n, (float *)x, (float)value);
    else
        vec_fill_kernel<double><<<grid, SPX_VEC_BLOCK, 0, st>>>(n, (double *)x, value);
    SPX_CUDA_LAUNCHED(ctx, "vec_fill_kernel");
    return SPX_OK;
}

extern "C" spx_status spx_vec_cuda_axpby(spx_ctx *ctx, spx_precision p, int64_t n, double a, const void *x,
                                         double b, void *y)
{
    spx_status s = check_args(ctx, "spx_vec_cuda_axpby", p, n, a != 0.0 ? x : y, y);
    if (s || n == 0) return s;
    if (p == SPX_FP32) return launch_axpby<float>(ctx, n, a, (const float *)x, b, (float *)y);
    return launch_axpby<double>(ctx, n, a, (const double *)x, b, (double *)y);
}

extern "C" spx_status spx_vec_cuda_mul(spx_ctx *ctx, spx_precision p, int64_t n, const void *x, const void *y,
                                       void *z)
{
    spx_status s = check_args(ctx, "spx_vec_cuda_mul", p, n, x, y);
    if (s || (s = check_args(ctx, "spx_vec_cuda_mul", p, n, z, z)) || n == 0) return s;
    const unsigned grid = grid_for(ctx, n);
    cudaStream_t st = spx_cuda_stream(ctx);
    if (p == SPX_FP32)
        vec_mul_kernel<float><<<grid, SPX_VEC_BLOCK, 0, st>>>(n, (const float *)x, (const float *)y, (float *)z);
    else
        vec_mul_kernel<double><<<grid, SPX_VEC_BLOCK, 0, st>>>(n, (const double *)x, (const double *)y, (double *)z);
    SPX_CUDA_LAUNCHED(ctx, "vec_mul_kernel");
    return SPX_OK;
}

extern "C" spx_status spx_vec_cuda_gather(spx_ctx *ctx, int64_t n, const int32_t *idx, const double *x, double *out)
{
    spx_status s = check_args(ctx, "spx_vec_cuda_gather", SPX_FP64, n, idx, x);
    if (s || (s = check_args(ctx, "spx_vec_cuda_gather", SPX_FP64, n, out, out)) || n == 0) return s;
    vec_gather_kernel<<<grid_for(ctx, n), SPX_VEC_BLOCK, 0, spx_cuda_stream(ctx)>>>(n, idx, x, out);
    SPX_CUDA_LAUNCHED(ctx, "vec_gather_kernel");
    return SPX_OK;
}

extern "C" spx_status spx_vec_cuda_scatter_add(spx_ctx *ctx, int64_t n, const int32_t *idx, const double *z, double *y)
{
    spx_status s = check_args(ctx, "spx_vec_cuda_scatter_add", SPX_FP64, n, idx, z);
    if (s || (s = check_args(ctx, "spx_vec_cuda_scatter_add", SPX_FP64, n, y, y)) || n == 0) return s;
    vec_scatter_add_kernel<<<grid_for(ctx, n), SPX_VEC_BLOCK, 0, spx_cuda_stream(ctx)>>>(n, idx, z, y);
    SPX_CUDA_LAUNCHED(ctx, "vec_scatter_add_kernel");
    return SPX_OK;
}

extern "C" spx_status spx_vec_cuda_dot(spx_ctx *ctx, spx_precision p, int64_t n, const void *x, const void *y,
                                       double *scratch, double out[SPX_N_SUMS])
{
    spx_status s = check_args(ctx, "spx_vec_cuda_dot", p, n, x, y);
    if (s) return s;
    for (int k = 0; k < SPX_N_SUMS; k++) out[k] = 0.0;
    if (n == 0) return SPX_OK;
    if (!scratch) return spx_fail(ctx, SPX_ERR_ARG, "spx_vec_cuda_dot: NULL scratch");
    if (p == SPX_FP32) return reduce<RED_DOT, float>(ctx, n, (const float *)x, (const float *)y, scratch, out);
    return reduce<RED_DOT, double>(ctx, n, (const double *)x, (const double *)y, scratch, out);
}

extern "C" spx_status spx_vec_cuda_sumsq(spx_ctx *ctx, spx_precision p, int64_t n, const void *x,
                                         double *scratch, double out[SPX_N_SUMS])
{
    spx_status s = check_args(ctx, "spx_vec_cuda_sumsq", p, n, x, x);
    if (s) return s;
    for (int k = 0; k < SPX_N_SUMS; k++) out[k] = 0.0;
    if (n == 0) return SPX_OK;
    if (!scratch) return spx_fail(ctx, SPX_ERR_ARG, "spx_vec_cuda_sumsq: NULL scratch");
    if (p == SPX_FP32) return reduce<RED_SUMSQ, float>(ctx, n, (const float *)x, (const float *)x, scratch, out);
    return reduce<RED_SUMSQ, double>(ctx, n, (const double *)x, (const double *)x, scratch, out);
}
