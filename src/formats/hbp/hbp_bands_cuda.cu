/* src/formats/hbp/hbp_bands_cuda.cu: hbp's band layout on the GPU (hbp_bands.h): uploaded from
 * the host bands or cut on the device from the uploaded CSR (where hot: column counts, a
 * radix sort into hot-first order, the columns renumbered and the rows sorted; then count,
 * scan, row statistics, scatter), each band handed to the csr format's GPU half, which runs
 * its kernel on it; SpMV is (where hot, a gather of x into hot-first order, then) one csr SpMV
 * per band on its x segment, the later ones adding into y. */
#include <stdio.h>
#include <string.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "cuda/check.cuh"
#include "cuda/cub_scratch.cuh"
#include "cuda/gateway.h"
#include "cuda/index_kernels.cuh"
#include "cuda/primitives.cuh"
#include "cuda/runtime.cuh"
#include "formats/hbp/hbp_cuda.h"
#include "formats/hbp/hbp_search.cuh"

/* The device state: a host header (bands' shapes, sizes, row statistics and algorithms, no
 * arrays) and one csr GPU state per band; where hot, the device's col_of and the hot x. */
struct spx_hbp_bands_dev {
    spx_hbp_bands head;
    void **dev;      /* [head.count] csr GPU states */
    int32_t *col_of; /* [head.cols] where head.hot */
    void *x_hot;     /* [head.cols] values, x gathered per SpMV, where head.hot */
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

/* From the n counts sorted descending: *used = the non-empty columns (*used zeroed). */
__global__ void used_cols(int32_t n, const int32_t *__restrict__ sorted, int32_t *used)
{
    for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < n; j += (int64_t)gridDim.x * blockDim.x)
        if (sorted[j] > 0 && (j + 1 == n || sorted[j + 1] == 0)) *used = (int32_t)(j + 1);
}

/* *sum += the first top counts (*sum zeroed). */
__global__ void top_sum(int64_t top, const int32_t *__restrict__ sorted, unsigned long long *sum)
{
    unsigned long long part = 0;
    for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < top; j += (int64_t)gridDim.x * blockDim.x)
        part += (unsigned long long)sorted[j];
    part = spx_group_sum<32>(part);
    if ((threadIdx.x & 31) == 0 && part) atomicAdd(sum, part);
}

/* out[e] = new_of[colind[e]]. */
__global__ void renumber_cols(int32_t nnz, const int32_t *__restrict__ colind, const int32_t *__restrict__ new_of,
                              int32_t *__restrict__ out)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < nnz; e += (int64_t)gridDim.x * blockDim.x)
        out[e] = new_of[colind[e]];
}

/* xh[j] = x[col_of[j]] for j < cols. */
template <typename VT>
__global__ void gather_hot(int32_t cols, const int32_t *__restrict__ col_of, const VT *__restrict__ x,
                           VT *__restrict__ xh)
{
    for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < cols; j += (int64_t)gridDim.x * blockDim.x)
        xh[j] = __ldg(x + __ldg(col_of + j));
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

/* Blocks of BUILD_BLOCK threads for a grid-stride kernel over count items. */
unsigned build_grid(const spx_ctx *ctx, int64_t count)
{
    return spx_cuda_grid_stride_blocks(ctx, count, BUILD_BLOCK, BUILD_BLOCKS_PER_SM);
}

/* Blocks for the entry-parallel kernels over nnz entries. */
unsigned entry_grid(const spx_ctx *ctx, int64_t nnz)
{
    return build_grid(ctx, entry_chunks((int32_t)nnz));
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
    const unsigned grid = build_grid(ctx, m);
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
        F->n = spx_hbp_band_cols(head->cols, head->width, k);
        F->nnz = nnz;
        F->precision = head->precision;
        spx_hbp_band_row_stats(F, (int64_t)stats[2 * k], (int64_t)stats[2 * k + 1], a->count == 1);
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

/* An empty device state for the bands of an m x n matrix cutting cols columns: the header,
 * storage for the bands' headers (band[0] owns it), no csr states yet. */
spx_status dev_new(spx_ctx *ctx, int32_t m, int32_t n, int32_t cols, int64_t nnz, spx_precision prec, int32_t width,
                   spx_hbp_bands_dev **out)
{
    spx_hbp_bands_dev *D = (spx_hbp_bands_dev *)spx_calloc_array(ctx, 1, sizeof *D);
    if (!D) return spx_fail_nomem(ctx, "hbp bands GPU state");
    D->head.m = m;
    D->head.n = n;
    D->head.nnz = nnz;
    D->head.precision = prec;
    D->head.width = width;
    D->head.cols = cols;
    D->head.count = spx_hbp_band_count(cols, width);
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

/* A's columns hot first on the device (as the host build's hot_order): *col_of [*cols] the
 * non-empty columns, the top spx_hbp_hot_top_cols of them by descending entry count, ties by
 * column (a stable radix sort of the counts), then the others by column (a radix sort of
 * their numbers); *top_nnz the entries of the top ones. */
spx_status hot_order(spx_ctx *ctx, const spx_dev_csr *A, int32_t **col_of, int32_t *cols, int64_t *top_nnz)
{
    const cudaStream_t st = spx_cuda_stream(ctx);
    const int32_t n = A->n;
    const size_t nb = (size_t)(n ? n : 1) * sizeof(int32_t);
    const unsigned grid_n = build_grid(ctx, n);
    int32_t *cnt = NULL, *sorted = NULL, *idx = NULL, *order = NULL, used = 0, t = 0;
    unsigned long long *sum = NULL, top = 0;
    void *temp = NULL;
    size_t bytes = 0;
    *col_of = NULL;
    spx_status s = spx_cuda_malloc(ctx, (void **)&cnt, nb);
    if (!s) s = spx_cuda_malloc(ctx, (void **)&sorted, nb);
    if (!s) s = spx_cuda_malloc(ctx, (void **)&idx, nb);
    if (!s) s = spx_cuda_malloc(ctx, (void **)&order, nb);
    if (!s) s = spx_cuda_malloc(ctx, (void **)&sum, sizeof *sum);
    if (s) goto done;
    SPX_CUDA_GOTO(ctx, s, cudaMemsetAsync(cnt, 0, nb, st));
    SPX_CUDA_GOTO(ctx, s, cudaMemsetAsync(sum, 0, sizeof *sum, st));
    if (n > 0) {
        if (A->nnz > 0)
            spx_histogram_kernel<<<build_grid(ctx, A->nnz), BUILD_BLOCK, 0, st>>>((int32_t)A->nnz, A->colind, cnt);
        spx_iota_kernel<<<grid_n, BUILD_BLOCK, 0, st>>>(n, idx);
        SPX_CUDA_LAUNCHED_GOTO(ctx, s, "column counts, iota");
        SPX_CUDA_GOTO(ctx, s,
                      cub::DeviceRadixSort::SortPairsDescending(NULL, bytes, cnt, sorted, idx, order, n, 0, 32, st));
        if ((s = spx_cuda_malloc(ctx, &temp, bytes < 16 ? 16 : bytes))) goto done;
        SPX_CUDA_GOTO(ctx, s,
                      cub::DeviceRadixSort::SortPairsDescending(temp, bytes, cnt, sorted, idx, order, n, 0, 32, st));
        SPX_CUDA_GOTO(ctx, s, cudaMemsetAsync(idx, 0, sizeof *idx, st)); /* idx is free again: idx[0] = used */
        used_cols<<<grid_n, BUILD_BLOCK, 0, st>>>(n, sorted, idx);
        SPX_CUDA_LAUNCHED_GOTO(ctx, s, "used_cols");
        if ((s = spx_cuda_d2h(ctx, &used, idx, sizeof used))) goto done;
        t = spx_hbp_hot_top_count(used);
        if (t > 0) {
            top_sum<<<build_grid(ctx, t), BUILD_BLOCK, 0, st>>>(t, sorted, sum);
            SPX_CUDA_LAUNCHED_GOTO(ctx, s, "top_sum");
        }
        if ((s = spx_cuda_d2h(ctx, &top, sum, sizeof top))) goto done;
    }
    if ((s = spx_cuda_malloc(ctx, (void **)col_of, (size_t)(used ? used : 1) * sizeof(int32_t)))) goto done;
    if (t) SPX_CUDA_GOTO(ctx, s, cudaMemcpyAsync(*col_of, order, (size_t)t * sizeof(int32_t), cudaMemcpyDeviceToDevice, st));
    if (used > t && (s = spx_cuda_sort_keys(ctx, order + t, *col_of + t, used - t, 32, &temp, &bytes)))
        goto done; /* the others by column, straight into col_of */
    s = spx_cuda_sync(ctx); /* before the scratch is freed */
done:
    if (s) (void)cudaStreamSynchronize(st); /* nothing still reads what is freed next */
    spx_cuda_free(ctx, cnt);
    spx_cuda_free(ctx, sorted);
    spx_cuda_free(ctx, idx);
    spx_cuda_free(ctx, order);
    spx_cuda_free(ctx, sum);
    spx_cuda_free(ctx, temp);
    if (s) {
        spx_cuda_free(ctx, *col_of);
        *col_of = NULL;
        return s;
    }
    *cols = used;
    *top_nnz = (int64_t)top;
    return SPX_OK;
}

/* *R = A with its columns renumbered hot first (column col_of[j] becomes j, cols columns) and
 * every row sorted, in new arrays the caller frees (R's row pointers are A's). */
template <typename VT>
spx_status renumber(spx_ctx *ctx, const spx_dev_csr *A, const int32_t *col_of, int32_t cols, spx_dev_csr *R)
{
    const cudaStream_t st = spx_cuda_stream(ctx);
    int32_t *new_of = NULL;
    spx_dev_csr T = *A; /* renumbered, rows unsorted: T.colind is new */
    T.colind = NULL;
    T.n = cols;
    spx_status s = spx_cuda_malloc(ctx, (void **)&new_of, (size_t)(A->n ? A->n : 1) * sizeof(int32_t));
    if (!s) s = spx_cuda_malloc(ctx, (void **)&T.colind, (size_t)(A->nnz ? A->nnz : 1) * sizeof(int32_t));
    if (s) goto done;
    if (cols > 0)
        spx_invert_kernel<<<build_grid(ctx, cols), BUILD_BLOCK, 0, st>>>(cols, col_of, new_of);
    if (A->nnz > 0)
        renumber_cols<<<build_grid(ctx, A->nnz), BUILD_BLOCK, 0, st>>>((int32_t)A->nnz, A->colind, new_of,
                                                                      T.colind);
    SPX_CUDA_LAUNCHED_GOTO(ctx, s, "column inverse, renumber_cols");
    s = sort_rows<VT>(ctx, &T, R); /* syncs */
done:
    if (s) (void)cudaStreamSynchronize(st);
    spx_cuda_free(ctx, new_of);
    spx_cuda_free(ctx, T.colind);
    return s;
}

/* The kernel name: plain or hot, the band count and band 0's csr kernel. */
void name_kernel(spx_hbp_bands_dev *D)
{
    const char *k0 = D->dev[0] ? spx_csr_cuda()->ops.spmv_kernel(D->dev[0]) : "none";
    snprintf(D->kernel, sizeof D->kernel, "hbp_%s%d_%s", D->head.hot ? "hot" : "bands", D->head.count, k0);
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
    spx_status s = spx_csr_cuda()->layout.build(ctx, &B, &feat, &opts, log, &D->dev[k]);
    spx_cuda_dev_csr_free(ctx, &B); /* what the csr build did not take */
    return s;
}

} /* namespace */

extern "C" void spx_hbp_bands_dev_free(spx_ctx *ctx, spx_hbp_bands_dev *D)
{
    if (!D) return;
    for (int32_t k = 0; D->dev && k < D->head.count; k++)
        if (D->dev[k]) spx_csr_cuda()->layout.free(ctx, D->dev[k]);
    spx_free(ctx, D->dev);
    spx_cuda_free(ctx, D->col_of);
    spx_cuda_free(ctx, D->x_hot);
    if (D->head.band) spx_free(ctx, D->head.band[0]);
    spx_free(ctx, D->head.band);
    spx_free(ctx, D);
}

namespace {

/* Takes the device col_of (cols entries) into hot bands D and allocates their hot x. */
spx_status adopt_hot(spx_ctx *ctx, spx_hbp_bands_dev *D, int32_t *col_of)
{
    D->col_of = col_of;
    D->head.hot = 1;
    const size_t vb = spx_precision_bytes(D->head.precision);
    return spx_cuda_malloc(ctx, &D->x_hot, (size_t)(D->head.cols ? D->head.cols : 1) * vb);
}

/* Cuts the bands of A (rows sorted) with that width on the device into D (convert phase in
 * the caller's timing). */
spx_status cut_bands(spx_ctx *ctx, const spx_dev_csr *A, int32_t width, spx_hbp_bands_dev *D, band_arrays *a)
{
    spx_status s = arrays_init(ctx, a, D->head.count, A->m);
    if (!s) s = upload_table(ctx, a->rp, a->count, &a->d_rp);
    if (!s && A->nnz > 0) {
        count_bands<<<entry_grid(ctx, A->nnz), BUILD_BLOCK, 0, spx_cuda_stream(ctx)>>>(A->m, (int32_t)A->nnz, A->rowptr,
                                                                                     A->colind, width, a->d_rp);
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) s = spx_cuda_fail_at(ctx, e, "count_bands", __FILE__, __LINE__);
    }
    if (!s) s = scan_bands(ctx, a, A->m);
    if (!s) s = size_bands(ctx, a, &D->head);
    if (!s && A->nnz > 0) s = scatter(ctx, A, a, width);
    return s;
}

} /* namespace */

extern "C" spx_status spx_hbp_bands_upload(spx_ctx *ctx, const spx_hbp_bands *B, spx_phase_log *log,
                                           spx_hbp_bands_dev **out)
{
    spx_hbp_bands_dev *D = NULL;
    int32_t *col_of = NULL;
    spx_status s = dev_new(ctx, B->m, B->n, B->cols, B->nnz, B->precision, B->width, &D);
    for (int32_t k = 0; k < B->count && !s; k++) {
        *D->head.band[k] = *B->band[k];
        D->head.band[k]->rowptr = D->head.band[k]->colind = NULL;
        D->head.band[k]->val64 = NULL;
        D->head.band[k]->val32 = NULL;
        s = spx_csr_cuda()->layout.upload(ctx, B->band[k], log, &D->dev[k]);
    }
    if (!s && B->hot) {
        const size_t bytes = (size_t)(B->cols ? B->cols : 1) * sizeof(int32_t);
        s = spx_cuda_malloc(ctx, (void **)&col_of, bytes);
        if (!s) s = spx_cuda_h2d(ctx, col_of, B->col_of, (size_t)B->cols * sizeof(int32_t));
        if (!s) s = adopt_hot(ctx, D, col_of);
        else spx_cuda_free(ctx, col_of);
    }
    if (s) {
        spx_hbp_bands_dev_free(ctx, D);
        return s;
    }
    name_kernel(D);
    *out = D;
    return SPX_OK;
}

extern "C" spx_status spx_hbp_bands_dev_build(spx_ctx *ctx, const spx_dev_csr *A, int32_t W, const spx_features *feat,
                                              spx_hbp_hot_mode mode, spx_phase_log *log, spx_hbp_bands_dev **out)
{
    if (!ctx || !A || !out) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "hbp bands build: NULL argument") : SPX_ERR_ARG;
    if (W < 0) return spx_fail(ctx, SPX_ERR_ARG, "hbp: band width %d must not be negative (0: the rule's)", W);
    const int vb = (int)spx_precision_bytes(A->precision);
    const double t0 = spx_now();
    spx_hbp_bands_dev *D = NULL;
    band_arrays a;
    memset(&a, 0, sizeof a);
    spx_dev_csr sorted; /* A renumbered or with sorted rows, when needed (colind NULL: A is used) */
    memset(&sorted, 0, sizeof sorted);
    int32_t *col_of = NULL, cols = A->n;
    int64_t top = 0;
    int hot = 0, unsorted = 0;
    spx_status s = SPX_OK;
    if (mode == SPX_HBP_HOT_ALWAYS || (mode == SPX_HBP_HOT_RULE && spx_hbp_hot_considered(A->n, vb, feat))) {
        s = hot_order(ctx, A, &col_of, &cols, &top);
        hot = !s && (mode == SPX_HBP_HOT_ALWAYS || spx_hbp_hot_wanted(A->nnz, top));
        if (!hot) {
            spx_cuda_free(ctx, col_of);
            col_of = NULL;
            cols = A->n;
        }
    }
    if (!s && hot)
        s = A->precision == SPX_FP32 ? renumber<float>(ctx, A, col_of, cols, &sorted)
                                     : renumber<double>(ctx, A, col_of, cols, &sorted);
    if (!s && !hot) s = spx_cuda_dev_csr_unsorted(ctx, A, &unsorted);
    if (!s && unsorted)
        s = A->precision == SPX_FP32 ? sort_rows<float>(ctx, A, &sorted) : sort_rows<double>(ctx, A, &sorted);
    const int32_t width = W ? W : hot ? spx_hbp_hot_width(cols, vb) : spx_hbp_plain_width(A->n, vb, feat, mode);
    if (!s) s = dev_new(ctx, A->m, A->n, cols, A->nnz, A->precision, width, &D);
    if (!s && hot) {
        s = adopt_hot(ctx, D, col_of);
        col_of = NULL;
    }
    if (!s) s = cut_bands(ctx, sorted.colind ? &sorted : A, width, D, &a);
    if (s) (void)cudaStreamSynchronize(spx_cuda_stream(ctx)); /* no kernel still reads what is freed next */
    spx_phase_add(log, "convert", spx_now() - t0);
    spx_cuda_free(ctx, col_of);
    spx_cuda_free(ctx, sorted.colind);
    spx_cuda_free(ctx, sorted.val);
    for (int32_t k = 0; D && k < D->head.count && !s; k++) s = adopt_band(ctx, D, &a, k, log);
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
    const void *x = args->x;
    if (D->head.hot && x && D->head.cols > 0) {
        const unsigned grid = build_grid(ctx, D->head.cols);
        if (D->head.precision == SPX_FP32)
            gather_hot<float><<<grid, BUILD_BLOCK, 0, spx_cuda_stream(ctx)>>>(D->head.cols, D->col_of, (const float *)x,
                                                                            (float *)D->x_hot);
        else
            gather_hot<double><<<grid, BUILD_BLOCK, 0, spx_cuda_stream(ctx)>>>(D->head.cols, D->col_of,
                                                                             (const double *)x, (double *)D->x_hot);
        SPX_CUDA_LAUNCHED(ctx, "gather_hot");
        x = D->x_hot;
    }
    spx_status s = SPX_OK;
    for (int32_t k = 0; k < D->head.count && !s; k++) {
        if (k > 0 && D->head.band[k]->nnz == 0) continue; /* adds nothing to y */
        spx_spmv_args ak = *args;
        ak.x = x ? (const char *)x + (size_t)k * (size_t)D->head.width * vb : NULL;
        ak.beta = k == 0 ? args->beta : 1.0;
        s = spx_csr_cuda()->ops.spmv(ctx, D->dev[k], &ak);
    }
    return s;
}

extern "C" spx_status spx_hbp_bands_dev_download(spx_ctx *ctx, const spx_hbp_bands_dev *D, spx_csr **parts,
                                                 int32_t **col_of)
{
    *col_of = NULL;
    spx_status s = SPX_OK;
    for (int32_t k = 0; k < D->head.count && !s; k++) s = spx_csr_cuda()->layout.to_csr(ctx, D->dev[k], &parts[k]);
    if (!s && D->head.hot) {
        *col_of = (int32_t *)spx_malloc_array(ctx, (size_t)(D->head.cols ? D->head.cols : 1), sizeof **col_of);
        s = *col_of ? spx_cuda_d2h(ctx, *col_of, D->col_of, (size_t)D->head.cols * sizeof **col_of)
                    : spx_fail_nomem(ctx, "hbp hot column order");
    }
    return s;
}

extern "C" spx_status spx_hbp_bands_dev_to_csr(spx_ctx *ctx, const spx_hbp_bands_dev *D, spx_csr **out)
{
    const int32_t K = D->head.count;
    spx_csr **parts = (spx_csr **)spx_calloc_array(ctx, (size_t)K, sizeof *parts);
    if (!parts) return spx_fail_nomem(ctx, "hbp band parts");
    int32_t *col_of = NULL;
    spx_status s = spx_hbp_bands_dev_download(ctx, D, parts, &col_of);
    if (!s)
        s = spx_hbp_bands_merge(ctx, parts, K, D->head.width, D->head.m, D->head.cols, col_of, D->head.n, out);
    for (int32_t k = 0; k < K; k++) spx_csr_destroy(&parts[k]);
    spx_free(ctx, parts);
    spx_free(ctx, col_of);
    return s;
}

extern "C" const spx_hbp_bands *spx_hbp_bands_dev_header(const spx_hbp_bands_dev *D) { return &D->head; }

extern "C" const char *spx_hbp_bands_dev_kernel(const spx_hbp_bands_dev *D) { return D->kernel; }
