/* src/cuda/features.cu: a matrix's features (src/matrix/features.c's measures) computed on
 * the device from the uploaded CSR, so a CUDA plan does not walk the matrix on the host: row
 * statistics (exact) one thread a row; the column measures from a stratified sample of
 * SPX_FEATURES_COL_SAMPLES entries (every entry of a smaller matrix), one thread a sample. The
 * grid is fixed (not sized to the device) and each block's sums are added on the host in
 * block order, so the result is the same on every run and every GPU. */
#include <cstdint>
#include <cmath>
#include <cstring>

#include <cub/block/block_reduce.cuh>

#include "cuda/gateway.h"
#include "cuda/primitives.cuh"
#include "cuda/runtime.cuh"
#include "matrix/features.h"
#include <cstdio>
#include <cstdlib>
#include "core/ctx.h"

namespace {

/* The fixed launch: 512 blocks of 256 threads (131072 threads; on an H100's 132 SMs ~4 blocks
 * an SM, enough to stream the row pointers at full bandwidth; two samples a thread). */
constexpr int FEAT_BLOCK = 256;
constexpr int FEAT_GRID = 512;

using feat_part = spx_feature_sums;

struct max_op {
    __device__ int64_t operator()(int64_t a, int64_t b) const { return a > b ? a : b; }
};
struct min_op {
    __device__ int64_t operator()(int64_t a, int64_t b) const { return a < b ? a : b; }
};

/* Reduces v over the block with op into *dst (thread 0 writes); every thread must call it. */
template <typename T, typename Op>
__device__ void block_reduce_to(T v, Op op, T *dst)
{
    using R = cub::BlockReduce<T, FEAT_BLOCK>;
    __shared__ typename R::TempStorage tmp;
    const T r = R(tmp).Reduce(v, op);
    if (threadIdx.x == 0) *dst = r;
    __syncthreads();
}

struct sum_op {
    template <typename T> __device__ T operator()(T a, T b) const { return a + b; }
};

/* Row lengths: min, max, empty rows, sum of squares. */
__global__ void __launch_bounds__(FEAT_BLOCK) row_stats_kernel(const int32_t *rowptr, int32_t m, feat_part *parts)
{
    int64_t mn = INT64_MAX, mx = 0, empty = 0;
    double sumsq = 0;
    for (long long i = blockIdx.x * (long long)FEAT_BLOCK + threadIdx.x; i < m; i += (long long)FEAT_GRID * FEAT_BLOCK) {
        const int64_t len = rowptr[i + 1] - rowptr[i];
        mn = len < mn ? len : mn;
        mx = len > mx ? len : mx;
        empty += len == 0;
        sumsq += (double)len * (double)len;
    }
    feat_part *p = &parts[blockIdx.x];
    block_reduce_to<int64_t>(mn, min_op(), &p->row_min);
    block_reduce_to<int64_t>(mx, max_op(), &p->row_max);
    block_reduce_to<int64_t>(empty, sum_op(), &p->empty);
    block_reduce_to<double>(sumsq, sum_op(), &p->sumsq);
}

/* A 32-bit integer mix (the same bits on every device): the jitter of the column sample. */
__device__ __forceinline__ uint32_t mix32(uint32_t x)
{
    x *= 0x9E3779B1u;
    x ^= x >> 15;
    x *= 0x85EBCA77u;
    x ^= x >> 13;
    return x;
}

/* Column measures of a stratified sample (entries [0, nnz) cut into S strata of near-equal
 * width, one entry at a jittered place in each; every entry when S == nnz): bandwidth over
 * the sample, summed |j - i|, entries after their row's first (pairs) and, of those, the ones
 * within near_cols of the entry before. One thread a sample, its row by binary search. */
__global__ void __launch_bounds__(FEAT_BLOCK) col_sample_kernel(const int32_t *rowptr, const int32_t *colind, int32_t m,
                                                                long long nnz, long long S, int near_cols,
                                                                feat_part *parts)
{
    int64_t bw = 0, near = 0, pairs = 0;
    double dist = 0;
    for (long long t = blockIdx.x * (long long)FEAT_BLOCK + threadIdx.x; t < S; t += (long long)FEAT_GRID * FEAT_BLOCK) {
        const long long lo = t * nnz / S, width = (t + 1) * nnz / S - lo; /* >= 1: S <= nnz */
        const long long k = lo + (long long)(mix32((uint32_t)t) % (uint32_t)width);
        const int32_t i = spx_row_of(rowptr, 0, m - 1, k), j = __ldg(colind + k);
        long long d = (long long)j - i;
        d = d < 0 ? -d : d;
        bw = d > bw ? d : bw;
        dist += (double)d;
        if (k > __ldg(rowptr + i)) {
            pairs++;
            if ((long long)j - __ldg(colind + k - 1) <= near_cols) near++;
        }
    }
    feat_part *p = &parts[blockIdx.x];
    block_reduce_to<int64_t>(bw, max_op(), &p->bandwidth);
    block_reduce_to<int64_t>(near, sum_op(), &p->near);
    block_reduce_to<int64_t>(pairs, sum_op(), &p->pairs);
    block_reduce_to<double>(dist, sum_op(), &p->dist);
}

} // namespace

extern "C" spx_status spx_cuda_features(spx_ctx *ctx, const spx_dev_csr *D, spx_features *out)
{
    if (!ctx || !D || !out) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "device features: NULL argument") : SPX_ERR_ARG;
    const int tr = getenv("SPX_FEAT_TRACE") != NULL;
    double T[8] = {0};
    int nt = 0;
    T[nt++] = spx_now();
    feat_part host[FEAT_GRID];
    const long long S = D->nnz < SPX_FEATURES_COL_SAMPLES ? D->nnz : SPX_FEATURES_COL_SAMPLES;
    memset(host, 0, sizeof host);
    feat_part *parts = NULL;
    spx_status s = SPX_OK;
    if (D->m > 0) {
        if ((s = spx_cuda_malloc(ctx, (void **)&parts, sizeof host))) return s;
        T[nt++] = spx_now();
        SPX_CUDA_GOTO(ctx, s, cudaMemsetAsync(parts, 0, sizeof host, spx_cuda_stream(ctx))); /* S = 0: no sample */
        row_stats_kernel<<<FEAT_GRID, FEAT_BLOCK, 0, spx_cuda_stream(ctx)>>>(D->rowptr, D->m, parts);
        SPX_CUDA_LAUNCHED_GOTO(ctx, s, "row_stats_kernel");
        if (tr) { cudaStreamSynchronize(spx_cuda_stream(ctx)); }
        T[nt++] = spx_now();
        if (S > 0) {
            col_sample_kernel<<<FEAT_GRID, FEAT_BLOCK, 0, spx_cuda_stream(ctx)>>>(D->rowptr, D->colind, D->m, D->nnz, S,
                                                                                 SPX_FEATURES_NEAR_COLS, parts);
            SPX_CUDA_LAUNCHED_GOTO(ctx, s, "col_sample_kernel");
        }
        if (tr) { cudaStreamSynchronize(spx_cuda_stream(ctx)); }
        T[nt++] = spx_now();
        if ((s = spx_cuda_d2h(ctx, host, parts, sizeof host))) goto done;
        T[nt++] = spx_now();
        for (int b = 0; b < FEAT_GRID && S < D->nnz; b++) host[b].dist *= (double)D->nnz / (double)S; /* a mean of S */
    }
    spx_features_finish(D->m, D->n, D->nnz, host, FEAT_GRID, out);
done:
    spx_cuda_free(ctx, parts);
    T[nt++] = spx_now();
    if (tr && nt == 6)
        fprintf(stderr, "FEATTRACE m=%d nnz=%lld prec=%d malloc_us=%.1f rows_us=%.1f cols_us=%.1f d2h_us=%.1f free_us=%.1f total_us=%.1f\n",
                D->m, (long long)D->nnz, (int)D->precision, 1e6*(T[1]-T[0]), 1e6*(T[2]-T[1]), 1e6*(T[3]-T[2]),
                1e6*(T[4]-T[3]), 1e6*(T[5]-T[4]), 1e6*(T[5]-T[0]));
    return s;
}
