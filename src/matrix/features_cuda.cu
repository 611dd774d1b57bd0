/* src/matrix/features_cuda.cu: a matrix's features (src/matrix/features.c's measures) computed on
 * the device from the uploaded CSR, so a CUDA plan does not walk the matrix on the host, in one
 * launch: row statistics (exact) one thread a row; the column measures from a stratified
 * sample of SPX_FEATURES_COL_SAMPLES entries (every entry of a smaller matrix), one thread a
 * sample. The grid is fixed (not sized to the device) and each block's sums are added on the
 * host in block order, so the result is the same on every run and every GPU. The blocks' sums
 * go to the upload's scratch (spx_dev_csr.scratch): a cudaMalloc and cudaFree of their own
 * took 0.2-0.6 ms of the 0.3-1.0 ms this cost on 16M-134M-entry matrices (H100, 2026-11-27). */
#include <cstdint>
#include <cmath>
#include <cstring>

#include <cub/block/block_reduce.cuh>

#include "cuda/gateway.h"
#include "cuda/primitives.cuh"
#include "cuda/runtime.cuh"
#include "matrix/features.h"
#define SPX_FEATURES_SAMPLE_FN static __host__ __device__ __forceinline__
#include "matrix/features_sample.h"

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

/* Row lengths (min, max, empty rows, sum of squares) over every row, then the column measures
 * of a stratified sample (entries [0, nnz) cut into S strata of near-equal width, one entry at
 * a jittered place in each; every entry when S == nnz): bandwidth over the sample, summed
 * |j - i|, entries after their row's first (pairs) and, of those, the ones within near_cols of
 * the entry before; one thread a row, then one a sample (its row by binary search). Block b
 * writes every field of parts[b]. */
__global__ void __launch_bounds__(FEAT_BLOCK) features_kernel(const int32_t *rowptr, const int32_t *colind, int32_t m,
                                                              long long nnz, long long S, int near_cols,
                                                              feat_part *parts)
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
    int64_t bw = 0, near = 0, pairs = 0;
    double dist = 0;
    for (long long t = blockIdx.x * (long long)FEAT_BLOCK + threadIdx.x; t < S; t += (long long)FEAT_GRID * FEAT_BLOCK) {
        const long long k = spx_features_sample_entry(t, S, nnz);
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
    block_reduce_to<int64_t>(mn, min_op(), &p->row_min);
    block_reduce_to<int64_t>(mx, max_op(), &p->row_max);
    block_reduce_to<int64_t>(empty, sum_op(), &p->empty);
    block_reduce_to<double>(sumsq, sum_op(), &p->sumsq);
    block_reduce_to<int64_t>(bw, max_op(), &p->bandwidth);
    block_reduce_to<int64_t>(near, sum_op(), &p->near);
    block_reduce_to<int64_t>(pairs, sum_op(), &p->pairs);
    block_reduce_to<double>(dist, sum_op(), &p->dist);
}

} // namespace

static_assert(sizeof(feat_part) * FEAT_GRID <= SPX_DEV_CSR_SCRATCH_BYTES, "the blocks' sums fit the upload's scratch");

extern "C" spx_status spx_cuda_features(spx_ctx *ctx, const spx_dev_csr *D, spx_features *out)
{
    if (!ctx || !D || !out) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "device features: NULL argument") : SPX_ERR_ARG;
    feat_part host[FEAT_GRID];
    const long long S = D->nnz < SPX_FEATURES_COL_SAMPLES ? D->nnz : SPX_FEATURES_COL_SAMPLES;
    memset(host, 0, sizeof host);
    feat_part *parts = (feat_part *)D->scratch, *own = NULL; /* own: a CSR without scratch */
    spx_status s = SPX_OK;
    if (D->m > 0) {
        if (!parts && (s = spx_cuda_malloc(ctx, (void **)&own, sizeof host))) return s;
        if (own) parts = own;
        features_kernel<<<FEAT_GRID, FEAT_BLOCK, 0, spx_cuda_stream(ctx)>>>(D->rowptr, D->colind, D->m, D->nnz, S,
                                                                           SPX_FEATURES_NEAR_COLS, parts);
        SPX_CUDA_LAUNCHED_GOTO(ctx, s, "features_kernel");
        if ((s = spx_cuda_d2h(ctx, host, parts, sizeof host))) goto done;
        for (int b = 0; b < FEAT_GRID && S < D->nnz; b++) host[b].dist *= (double)D->nnz / (double)S; /* a mean of S */
    }
    spx_features_finish(D->m, D->n, D->nnz, host, FEAT_GRID, out);
done:
    spx_cuda_free(ctx, own);
    return s;
}
