/* src/formats/hbp/hbp_bands_cuda.cu: hbp's band layout on the GPU (hbp_bands.h): uploaded from
 * the host bands or cut on the device from the uploaded CSR (count, scan, row statistics,
 * scatter), each band handed to the csr format's GPU half, which runs its kernel on it; SpMV
 * is one csr SpMV per band on its x segment, the later ones adding into y. */
#include <stdio.h>
#include <string.h>

#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "cuda/check.cuh"
#include "cuda/gateway.h"
#include "cuda/primitives.cuh"
#include "cuda/runtime.cuh"
#include "formats/hbp/hbp_cuda.h"
#include "formats/hbp/hbp_search.cuh"

/* The device state: a host header (bands' shapes, sizes, row statistics and algorithms, no
 * arrays) and one csr GPU state per band. */
struct spx_hbp_bands_dev {
    spx_hbp_bands head;
    void **dev; /* [head.count] csr GPU states */
    char kernel[64];
};

namespace {

/* Threads per block of the build kernels, and their grid-stride cap per SM. */
constexpr int BUILD_BLOCK = 256;
constexpr int BUILD_BLOCKS_PER_SM = 8;

/* Entries a thread of the count and scatter kernels takes, consecutive: the build is
 * parallel over entries, not rows, so a row of millions of entries does not hold one thread
 * (a thread per row took 1.03 s on powerlaw 4M, H100, 2026-11-26). */
constexpr int ENTRY_ITEMS = 8;

/* Chunks of ENTRY_ITEMS entries in nnz, and chunk c's entries [*e0, *e1) (the end computed in
 * 64 bits: no overflow for nnz near 2^31). */
__host__ __device__ __forceinline__ int64_t entry_chunks(int32_t nnz)
{
    return ((int64_t)nnz + ENTRY_ITEMS - 1) / ENTRY_ITEMS;
}
__device__ __forceinline__ void entry_chunk(int64_t c, int32_t nnz, int32_t *e0, int32_t *e1)
{
    const int64_t lo = c * ENTRY_ITEMS, hi = lo + ENTRY_ITEMS < nnz ? lo + ENTRY_ITEMS : nnz;
    *e0 = (int32_t)lo;
    *e1 = (int32_t)hi;
}

/* rp[k][i] += row i's entries in band k (the arrays zeroed): runs of one (row, band) within
 * a thread's entries add once. */
__global__ void count_bands(int32_t m, int32_t nnz, const int32_t *__restrict__ rowptr,
                            const int32_t *__restrict__ colind, int32_t width, int32_t *const *__restrict__ rp)
{
    for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < entry_chunks(nnz);
         c += (int64_t)gridDim.x * blockDim.x) {
        int32_t e0, e1;
        entry_chunk(c, nnz, &e0, &e1);
        int32_t r = hbp_row_of(rowptr, m, e0), run_k = -1, run_r = -1, run_n = 0;
        for (int32_t e = e0; e < e1; e++) {
            while (e >= rowptr[r + 1]) r++;
            const int32_t k = colind[e] / width;
            if (k == run_k && r == run_r) {
                run_n++;
                continue;
            }
            if (run_n) atomicAdd(&rp[run_k][run_r], run_n);
            run_k = k;
            run_r = r;
            run_n = 1;
        }
        if (run_n) atomicAdd(&rp[run_k][run_r], run_n);
    }
}

/* out[0] = max, out[1] = sum of squares of the row lengths of row pointers rp (m rows). */
__global__ void band_row_stats(int32_t m, const int32_t *__restrict__ rp, unsigned long long *out)
{
    unsigned long long mx = 0, sq = 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < m; i += (int64_t)gridDim.x * blockDim.x) {
        const unsigned long long len = (unsigned long long)(rp[i + 1] - rp[i]);
        mx = len > mx ? len : mx;
        sq += len * len;
    }
    for (int off = 16; off > 0; off >>= 1) {
        const unsigned long long o = __shfl_xor_sync(SPX_FULL_MASK, mx, off);
        mx = o > mx ? o : mx;
    }
    sq = spx_group_sum<32>(sq);
    if ((threadIdx.x & 31) == 0 && (mx || sq)) {
        atomicMax(out, mx);
        atomicAdd(out + 1, sq);
    }
}

/* The first entry of row r's run in band k, given that entry e of row r is in it (columns
 * sorted within a row, as the build makes sure: a row's entries of one band are one run). */
__device__ __forceinline__ int32_t run_start(const int32_t *__restrict__ rowptr, const int32_t *__restrict__ colind,
                                             int32_t width, int32_t r, int32_t k, int32_t e)
{
    int32_t lo = rowptr[r], hi = e;
    const int32_t first = k * width;
    while (lo < hi) {
        const int32_t mid = lo + (hi - lo) / 2;
        if (colind[mid] < first)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Copies the entries into their bands: entry e of row r goes to band k at rp[k][r] + (e - the
 * first entry of the row's run in band k). */
template <typename VT>
__global__ void scatter_bands(int32_t m, int32_t nnz, const int32_t *__restrict__ rowptr,
                              const int32_t *__restrict__ colind, const VT *__restrict__ val, int32_t width,
                              int32_t *const *__restrict__ rp, int32_t *const *__restrict__ col,
                              VT *const *__restrict__ bval)
{
    for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < entry_chunks(nnz);
         c += (int64_t)gridDim.x * blockDim.x) {
        int32_t e0, e1;
        entry_chunk(c, nnz, &e0, &e1);
        int32_t r = hbp_row_of(rowptr, m, e0), run_k = -1, run_r = -1, base = 0;
        for (int32_t e = e0; e < e1; e++) {
            while (e >= rowptr[r + 1]) r++;
            const int32_t cl = colind[e], k = cl / width;
            if (k != run_k || r != run_r) {
                run_k = k;
                run_r = r;
                base = rp[k][r] - run_start(rowptr, colind, width, r, k, e);
            }
            col[k][base + e] = cl - k * width;
            bval[k][base + e] = val[e];
        }
    }
}

/* The build's device arrays: per band row pointers, columns and values (owned until handed to
 * the csr states), their device pointer tables, the row statistics and CUB's scratch. */
struct band_arrays {
    int32_t count;
    int32_t **rp, **col;
    void **val;
    int32_t **d_rp, **d_col; /* device copies of the tables */
    void **d_val;
    unsigned long long *stats; /* [2 * count] */
    void *temp;
    size_t temp_bytes;
};

void arrays_free(spx_ctx *ctx, band_arrays *a)
{
    for (int32_t k = 0; k < a->count; k++) {
        if (a->rp) spx_cuda_free(ctx, a->rp[k]);
        if (a->col) spx_cuda_free(ctx, a->col[k]);
        if (a->val) spx_cuda_free(ctx, a->val[k]);
    }
    spx_free(ctx, a->rp);
    spx_free(ctx, a->col);
    spx_free(ctx, a->val);
    spx_cuda_free(ctx, a->d_rp);
    spx_cuda_free(ctx, a->d_col);
    spx_cuda_free(ctx, a->d_val);
    spx_cuda_free(ctx, a->stats);
    spx_cuda_free(ctx, a->temp);
    memset(a, 0, sizeof *a);
}

/* Blocks for the entry-parallel kernels over nnz entries. */
unsigned entry_grid(const spx_ctx *ctx, int64_t nnz)
{
    return spx_cuda_grid_stride_blocks(ctx, entry_chunks((int32_t)nnz), BUILD_BLOCK, BUILD_BLOCKS_PER_SM);
}

/* Allocates the host tables, the zeroed row pointers and the statistics. */
spx_status arrays_init(spx_ctx *ctx, band_arrays *a, int32_t count, int32_t m)
{
    a->count = count;
    a->rp = (int32_t **)spx_calloc_array(ctx, (size_t)count, sizeof *a->rp);
    a->col = (int32_t **)spx_calloc_array(ctx, (size_t)count, sizeof *a->col);
    a->val = (void **)spx_calloc_array(ctx, (size_t)count, sizeof *a->val);
    if (!a->rp || !a->col || !a->val) return spx_fail_nomem(ctx, "hbp band tables");
    spx_status s = SPX_OK;
    const size_t rp_bytes = ((size_t)m + 1) * sizeof(int32_t);
    for (int32_t k = 0; k < count && !s; k++) {
        s = spx_cuda_malloc(ctx, (void **)&a->rp[k], rp_bytes);
        if (!s) SPX_CUDA_RET(ctx, cudaMemsetAsync(a->rp[k], 0, rp_bytes, spx_cuda_stream(ctx)));
    }
    if (!s) s = spx_cuda_malloc(ctx, (void **)&a->stats, 2 * (size_t)count * sizeof *a->stats);
    if (!s) SPX_CUDA_RET(ctx, cudaMemsetAsync(a->stats, 0, 2 * (size_t)count * sizeof *a->stats, spx_cuda_stream(ctx)));
    return s;
}

/* A device copy of a host table of count pointers. */
template <typename P>
spx_status upload_table(spx_ctx *ctx, P *const *host, int32_t count, P ***dev)
{
    spx_status s = spx_cuda_malloc(ctx, (void **)dev, (size_t)count * sizeof(P *));
    return s ? s : spx_cuda_h2d(ctx, *dev, host, (size_t)count * sizeof(P *));
}

/* Exclusive scan of every band's counts into row pointers (in place), then their statistics. */
spx_status scan_bands(spx_ctx *ctx, band_arrays *a, int32_t m)
{
    size_t bytes = 0;
    SPX_CUDA_RET(ctx, cub::DeviceScan::ExclusiveSum(NULL, bytes, a->rp[0], (int64_t)m + 1, spx_cuda_stream(ctx)));
    if (bytes < 16) bytes = 16;
    spx_status s = spx_cuda_malloc(ctx, &a->temp, bytes);
    if (s) return s;
    a->temp_bytes = bytes;
    const unsigned grid = spx_cuda_grid_stride_blocks(ctx, m, BUILD_BLOCK, BUILD_BLOCKS_PER_SM);
    for (int32_t k = 0; k < a->count; k++) {
        bytes = a->temp_bytes;
        SPX_CUDA_RET(ctx, cub::DeviceScan::ExclusiveSum(a->temp, bytes, a->rp[k], (int64_t)m + 1, spx_cuda_stream(ctx)));
        band_row_stats<<<grid, BUILD_BLOCK, 0, spx_cuda_stream(ctx)>>>(m, a->rp[k], a->stats + 2 * k);
        SPX_CUDA_RET(ctx, cudaGetLastError());
    }
    return SPX_OK;
}

/* The bands' headers from the device counts (entries, row statistics, csr algorithm), and
 * their entry arrays allocated (a band holds at most the source's nnz <= INT32_MAX entries). */
spx_status size_bands(spx_ctx *ctx, band_arrays *a, spx_hbp_bands *head)
{
    unsigned long long *stats = (unsigned long long *)spx_malloc_array(ctx, 2 * (size_t)a->count, sizeof *stats);
    if (!stats) return spx_fail_nomem(ctx, "hbp band statistics");
    spx_status s = spx_cuda_d2h(ctx, stats, a->stats, 2 * (size_t)a->count * sizeof *stats);
    const size_t vb = spx_precision_bytes(head->precision);
    for (int32_t k = 0; k < a->count && !s; k++) {
        int32_t nnz = 0;
        s = spx_cuda_d2h(ctx, &nnz, a->rp[k] + head->m, sizeof nnz);
        if (s) break;
        spx_csr_fmt *F = head->band[k];
        memset(F, 0, sizeof *F);
        F->m = head->m;
        F->n = spx_hbp_band_cols(head->n, head->width, k);
        F->nnz = nnz;
        F->precision = head->precision;
        spx_hbp_band_row_stats(F, (int64_t)stats[2 * k], (int64_t)stats[2 * k + 1]);
        s = spx_cuda_malloc(ctx, (void **)&a->col[k], (size_t)nnz * sizeof(int32_t));
        if (!s) s = spx_cuda_malloc(ctx, &a->val[k], (size_t)nnz * vb);
    }
    spx_free(ctx, stats);
    return s;
}

/* Scatters A's entries into the bands. */
spx_status scatter(spx_ctx *ctx, const spx_dev_csr *A, band_arrays *a, int32_t width)
{
    spx_status s = upload_table(ctx, a->col, a->count, &a->d_col);
    if (!s) s = upload_table(ctx, a->val, a->count, &a->d_val);
    if (s) return s;
    const unsigned grid = entry_grid(ctx, A->nnz);
    const int32_t nnz = (int32_t)A->nnz;
    if (A->precision == SPX_FP32)
        scatter_bands<float><<<grid, BUILD_BLOCK, 0, spx_cuda_stream(ctx)>>>(
            A->m, nnz, A->rowptr, A->colind, (const float *)A->val, width, a->d_rp, a->d_col, (float *const *)a->d_val);
    else
        scatter_bands<double><<<grid, BUILD_BLOCK, 0, spx_cuda_stream(ctx)>>>(
            A->m, nnz, A->rowptr, A->colind, (const double *)A->val, width, a->d_rp, a->d_col, (double *const *)a->d_val);
    SPX_CUDA_RET(ctx, cudaGetLastError());
    return spx_cuda_sync(ctx);
}

/* *S = A with every row's columns (and values) sorted, on the device (CUB's segmented sort
 * into new column and value arrays; the row pointers are A's). The caller frees S's colind
 * and val. */
template <typename VT>
spx_status sort_rows(spx_ctx *ctx, const spx_dev_csr *A, spx_dev_csr *S)
{
    *S = *A;
    S->colind = NULL;
    S->val = NULL;
    const int n = (int)A->nnz;
    spx_status s = spx_cuda_malloc(ctx, (void **)&S->colind, (size_t)n * sizeof(int32_t));
    if (!s) s = spx_cuda_malloc(ctx, &S->val, (size_t)n * sizeof(VT));
    size_t bytes = 0;
    void *temp = NULL;
    const cudaStream_t st = spx_cuda_stream(ctx);
    if (!s) {
        const cudaError_t e = cub::DeviceSegmentedSort::StableSortPairs(
            NULL, bytes, A->colind, S->colind, (const VT *)A->val, (VT *)S->val, n, A->m, A->rowptr, A->rowptr + 1, st);
        if (e != cudaSuccess) s = spx_cuda_fail_at(ctx, e, "segmented sort (size)", __FILE__, __LINE__);
    }
    if (!s) s = spx_cuda_malloc(ctx, &temp, bytes < 16 ? 16 : bytes);
    if (!s) {
        const cudaError_t e = cub::DeviceSegmentedSort::StableSortPairs(
            temp, bytes, A->colind, S->colind, (const VT *)A->val, (VT *)S->val, n, A->m, A->rowptr, A->rowptr + 1, st);
        if (e != cudaSuccess) s = spx_cuda_fail_at(ctx, e, "segmented sort", __FILE__, __LINE__);
    }
    if (!s) s = spx_cuda_sync(ctx);
    spx_cuda_free(ctx, temp);
    return s;
}

/* An empty device state for the bands of an m x n matrix: the header, storage for the bands'
 * headers (band[0] owns it), no csr states yet. */
spx_status dev_new(spx_ctx *ctx, int32_t m, int32_t n, int64_t nnz, spx_precision prec, int32_t width,
                   spx_hbp_bands_dev **out)
{
    spx_hbp_bands_dev *D = (spx_hbp_bands_dev *)spx_calloc_array(ctx, 1, sizeof *D);
    if (!D) return spx_fail_nomem(ctx, "hbp bands GPU state");
    D->head.m = m;
    D->head.n = n;
    D->head.nnz = nnz;
    D->head.precision = prec;
    D->head.width = width;
    D->head.count = spx_hbp_band_count(n, width);
    const size_t k = (size_t)D->head.count;
    D->head.band = (spx_csr_fmt **)spx_calloc_array(ctx, k, sizeof *D->head.band);
    spx_csr_fmt *store = (spx_csr_fmt *)spx_calloc_array(ctx, k, sizeof *store);
    D->dev = (void **)spx_calloc_array(ctx, k, sizeof *D->dev);
    if (!D->head.band || !store || !D->dev) {
        spx_free(ctx, store);
        spx_hbp_bands_dev_free(ctx, D);
        return spx_fail_nomem(ctx, "hbp bands GPU state");
    }
    for (size_t i = 0; i < k; i++) D->head.band[i] = &store[i];
    *out = D;
    return SPX_OK;
}

/* The kernel name: the band count and band 0's csr kernel. */
void name_kernel(spx_hbp_bands_dev *D)
{
    const char *k0 = D->dev[0] ? spx_csr_cuda()->kernel_name(D->dev[0]) : "none";
    snprintf(D->kernel, sizeof D->kernel, "hbp_bands%d_%s", D->head.count, k0);
}

/* Hands band k's arrays to a csr GPU state built on the device with the band's algorithm. */
spx_status adopt_band(spx_ctx *ctx, spx_hbp_bands_dev *D, band_arrays *a, int32_t k, spx_phase_log *log)
{
    const spx_csr_fmt *F = D->head.band[k];
    spx_dev_csr B;
    memset(&B, 0, sizeof B);
    B.m = F->m;
    B.n = F->n;
    B.nnz = F->nnz;
    B.precision = F->precision;
    B.rowptr = a->rp[k];
    B.colind = a->col[k];
    B.val = a->val[k];
    a->rp[k] = a->col[k] = NULL;
    a->val[k] = NULL;
    spx_features feat;
    memset(&feat, 0, sizeof feat);
    feat.m = F->m;
    feat.n = F->n;
    feat.nnz = F->nnz;
    feat.row_max = F->row_max;
    feat.row_mean = F->row_mean;
    feat.row_cv = F->row_cv;
    spx_plan_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.algo = spx_csr_algo_names[F->algo];
    spx_status s = spx_csr_cuda()->build(ctx, &B, &feat, &opts, log, &D->dev[k]);
    spx_cuda_dev_csr_free(ctx, &B); /* what the csr build did not take */
    return s;
}

} /* namespace */

extern "C" void spx_hbp_bands_dev_free(spx_ctx *ctx, spx_hbp_bands_dev *D)
{
    if (!D) return;
    for (int32_t k = 0; D->dev && k < D->head.count; k++)
        if (D->dev[k]) spx_csr_cuda()->free(ctx, D->dev[k]);
    spx_free(ctx, D->dev);
    if (D->head.band) spx_free(ctx, D->head.band[0]);
    spx_free(ctx, D->head.band);
    spx_free(ctx, D);
}

extern "C" spx_status spx_hbp_bands_upload(spx_ctx *ctx, const spx_hbp_bands *B, spx_phase_log *log,
                                           spx_hbp_bands_dev **out)
{
    spx_hbp_bands_dev *D = NULL;
    spx_status s = dev_new(ctx, B->m, B->n, B->nnz, B->precision, B->width, &D);
    for (int32_t k = 0; k < B->count && !s; k++) {
        *D->head.band[k] = *B->band[k];
        D->head.band[k]->rowptr = D->head.band[k]->colind = NULL;
        D->head.band[k]->val64 = NULL;
        D->head.band[k]->val32 = NULL;
        s = spx_csr_cuda()->upload(ctx, B->band[k], log, &D->dev[k]);
    }
    if (s) {
        spx_hbp_bands_dev_free(ctx, D);
        return s;
    }
    name_kernel(D);
    *out = D;
    return SPX_OK;
}

extern "C" spx_status spx_hbp_bands_dev_build(spx_ctx *ctx, const spx_dev_csr *A, int32_t width, spx_phase_log *log,
                                              spx_hbp_bands_dev **out)
{
    if (!ctx || !A || !out) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "hbp bands build: NULL argument") : SPX_ERR_ARG;
    if (width < 1) return spx_fail(ctx, SPX_ERR_ARG, "hbp: band width %d must be positive", width);
    spx_hbp_bands_dev *D = NULL;
    spx_status s = dev_new(ctx, A->m, A->n, A->nnz, A->precision, width, &D);
    if (s) return s;
    band_arrays a;
    memset(&a, 0, sizeof a);
    spx_dev_csr sorted; /* A with sorted rows, when A's are not (colind NULL: A is used) */
    memset(&sorted, 0, sizeof sorted);
    const double t0 = spx_now();
    int unsorted = 0;
    s = spx_cuda_dev_csr_unsorted(ctx, A, &unsorted);
    if (!s && unsorted)
        s = A->precision == SPX_FP32 ? sort_rows<float>(ctx, A, &sorted) : sort_rows<double>(ctx, A, &sorted);
    if (!s && unsorted) A = &sorted;
    if (!s) s = arrays_init(ctx, &a, D->head.count, A->m);
    if (!s) s = upload_table(ctx, a.rp, a.count, &a.d_rp);
    if (!s && A->nnz > 0) {
        count_bands<<<entry_grid(ctx, A->nnz), BUILD_BLOCK, 0, spx_cuda_stream(ctx)>>>(A->m, (int32_t)A->nnz, A->rowptr,
                                                                                     A->colind, width, a.d_rp);
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) s = spx_cuda_fail_at(ctx, e, "count_bands", __FILE__, __LINE__);
    }
    if (!s) s = scan_bands(ctx, &a, A->m);
    if (!s) s = size_bands(ctx, &a, &D->head);
    if (!s && A->nnz > 0) s = scatter(ctx, A, &a, width);
    spx_phase_add(log, "convert", spx_now() - t0);
    spx_cuda_free(ctx, sorted.colind);
    spx_cuda_free(ctx, sorted.val);
    for (int32_t k = 0; k < D->head.count && !s; k++) s = adopt_band(ctx, D, &a, k, log);
    arrays_free(ctx, &a);
    if (s) {
        spx_hbp_bands_dev_free(ctx, D);
        return s;
    }
    name_kernel(D);
    *out = D;
    return SPX_OK;
}

extern "C" spx_status spx_hbp_bands_dev_spmv(spx_ctx *ctx, spx_hbp_bands_dev *D, const spx_spmv_args *args)
{
    const size_t vb = spx_precision_bytes(D->head.precision);
    spx_status s = SPX_OK;
    for (int32_t k = 0; k < D->head.count && !s; k++) {
        if (k > 0 && D->head.band[k]->nnz == 0) continue; /* adds nothing to y */
        spx_spmv_args ak = *args;
        ak.x = args->x ? (const char *)args->x + (size_t)k * (size_t)D->head.width * vb : NULL;
        ak.beta = k == 0 ? args->beta : 1.0;
        s = spx_csr_cuda()->spmv(ctx, D->dev[k], &ak);
    }
    return s;
}

extern "C" spx_status spx_hbp_bands_dev_to_csr(spx_ctx *ctx, const spx_hbp_bands_dev *D, spx_csr **out)
{
    const int32_t K = D->head.count;
    spx_csr **parts = (spx_csr **)spx_calloc_array(ctx, (size_t)K, sizeof *parts);
    if (!parts) return spx_fail_nomem(ctx, "hbp band parts");
    spx_status s = SPX_OK;
    for (int32_t k = 0; k < K && !s; k++) s = spx_csr_cuda()->to_csr(ctx, D->dev[k], &parts[k]);
    if (!s) s = spx_hbp_bands_merge(ctx, parts, K, D->head.width, D->head.m, D->head.n, out);
    for (int32_t k = 0; k < K; k++) spx_csr_destroy(&parts[k]);
    spx_free(ctx, parts);
    return s;
}

extern "C" const spx_hbp_bands *spx_hbp_bands_dev_header(const spx_hbp_bands_dev *D) { return &D->head; }

extern "C" const char *spx_hbp_bands_dev_kernel(const spx_hbp_bands_dev *D) { return D->kernel; }
