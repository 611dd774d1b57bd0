/* src/matrix/coo_to_csr_cuda.cu: COO -> CSR on the GPU: a stable CUB radix sort of (row, col) keys
 * packed in 64 bits carrying the values, duplicates summed left to right in input order (as
 * the host conversion sums them, so the values are the same bits), row pointers from a row
 * histogram and an exclusive scan. Host arrays in and out, like spx_coo_to_csr. */
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "cuda/runtime.cuh"
#include "matrix/csr_dev.h"

#define SPX_COO_BLOCK 256
#define SPX_COO_BLOCKS_PER_SM 16 /* grid-stride kernels: a full SM's worth of warps each */

namespace {

/* *bad = the smallest k whose entry lies outside m x n (left alone when none does). */
__global__ void __launch_bounds__(SPX_COO_BLOCK)
    coo_check_kernel(int32_t nnz, const int32_t *__restrict__ row, const int32_t *__restrict__ col, int32_t m,
                     int32_t n, int32_t *bad)
{
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += (int64_t)gridDim.x * blockDim.x)
        if (row[k] < 0 || row[k] >= m || col[k] < 0 || col[k] >= n) atomicMin(bad, (int32_t)k);
}

/* head[k] = 1 where a new (row, col) key starts in the sorted keys, else 0. */
__global__ void __launch_bounds__(SPX_COO_BLOCK)
    coo_heads_kernel(int32_t nnz, const uint64_t *__restrict__ key, int32_t *__restrict__ head)
{
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += (int64_t)gridDim.x * blockDim.x)
        head[k] = k == 0 || key[k] != key[k - 1];
}

/* At each head k: the run of equal keys summed left to right into val_out[idx[k]], its key
 * into key_out[idx[k]]; *n_unique from the last entry. */
__global__ void __launch_bounds__(SPX_COO_BLOCK)
    coo_sum_runs_kernel(int32_t nnz, const uint64_t *__restrict__ key, const double *__restrict__ val,
                        const int32_t *__restrict__ head, const int32_t *__restrict__ idx,
                        uint64_t *__restrict__ key_out, double *__restrict__ val_out, int32_t *n_unique)
{
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += (int64_t)gridDim.x * blockDim.x) {
        if (k == nnz - 1) *n_unique = idx[k] + head[k];
        if (!head[k]) continue;
        double sum = val[k];
        for (int64_t q = k + 1; q < nnz && key[q] == key[k]; q++) sum += val[q];
        key_out[idx[k]] = key[k];
        val_out[idx[k]] = sum;
    }
}

/* key[k] = row << col_bits | col: sorting the keys sorts by row, then column. */
__global__ void __launch_bounds__(SPX_COO_BLOCK)
    coo_pack_keys_kernel(int32_t nnz, const int32_t *__restrict__ row, const int32_t *__restrict__ col,
                         int col_bits, uint64_t *__restrict__ key)
{
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += (int64_t)gridDim.x * blockDim.x)
        key[k] = ((uint64_t)(uint32_t)row[k] << col_bits) | (uint64_t)(uint32_t)col[k];
}

/* counts[row of unique key k]++ and col[k] = its column, for k < *n_unique. */
__global__ void __launch_bounds__(SPX_COO_BLOCK)
    coo_count_rows_kernel(const int32_t *__restrict__ n_unique, const uint64_t *__restrict__ key, int col_bits,
                          int32_t *__restrict__ counts, int32_t *__restrict__ col)
{
    const int64_t n = *n_unique;
    const uint64_t mask = (col_bits >= 64) ? ~0ull : ((1ull << col_bits) - 1ull);
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x) {
        uint64_t v = key[k];
        atomicAdd(counts + (v >> col_bits), 1);
        col[k] = (int32_t)(v & mask);
    }
}

} /* namespace */

/* Bits needed to write v (0 for v = 0). */
static int bits_for(uint64_t v)
{
    int b = 0;
    while (b < 64 && (v >> b)) b++;
    return b;
}

/* Device buffers of one conversion. */
typedef struct coo_bufs {
    int32_t *row, *col, *counts, *n_unique;
    uint64_t *key_a, *key_b;
    double *val_a, *val_b;
    int64_t *rowptr;
    void *tmp;
} coo_bufs;

/* The sizes and arrays of A (its entries are checked on the device, coo_entries_check). */
static spx_status coo_check(spx_ctx *ctx, const spx_coo *A)
{
    if (A->m < 0 || A->n < 0 || A->nnz < 0) return spx_fail(ctx, SPX_ERR_ARG, "COO: negative size");
    if (A->nnz > 0 && (!A->row || !A->col || !A->val)) return spx_fail(ctx, SPX_ERR_ARG, "COO: arrays missing");
    if (A->nnz > INT32_MAX)
        return spx_fail(ctx, SPX_ERR_OVERFLOW, "COO -> CSR on the GPU: %lld entries exceed the int32 range",
                        (long long)A->nnz);
    return SPX_OK;
}

/* Every entry of A (uploaded to b->row, b->col) inside m x n; the first one outside is named
 * from the host arrays. b->n_unique serves as the flag. */
static spx_status coo_entries_check(spx_ctx *ctx, const spx_coo *A, coo_bufs *b)
{
    cudaStream_t st = spx_cuda_stream(ctx);
    const int32_t nnz = (int32_t)A->nnz, none = INT32_MAX;
    int32_t bad = none;
    spx_status s = spx_cuda_h2d(ctx, b->n_unique, &none, sizeof none);
    if (s) return s;
    coo_check_kernel<<<spx_cuda_grid_stride_blocks(ctx, nnz, SPX_COO_BLOCK, SPX_COO_BLOCKS_PER_SM), SPX_COO_BLOCK, 0,
                       st>>>(nnz, b->row, b->col, A->m, A->n, b->n_unique);
    SPX_CUDA_LAUNCHED(ctx, "coo_check_kernel");
    if ((s = spx_cuda_d2h(ctx, &bad, b->n_unique, sizeof bad))) return s;
    if (bad == none) return SPX_OK;
    return spx_fail(ctx, SPX_ERR_ARG, "COO entry %lld at (%d, %d) outside %d x %d", (long long)bad, A->row[bad],
                    A->col[bad], A->m, A->n);
}

static void coo_bufs_free(spx_ctx *ctx, coo_bufs *b)
{
    spx_cuda_free(ctx, b->row);
    spx_cuda_free(ctx, b->col);
    spx_cuda_free(ctx, b->counts);
    spx_cuda_free(ctx, b->n_unique);
    spx_cuda_free(ctx, b->key_a);
    spx_cuda_free(ctx, b->key_b);
    spx_cuda_free(ctx, b->val_a);
    spx_cuda_free(ctx, b->val_b);
    spx_cuda_free(ctx, b->rowptr);
    spx_cuda_free(ctx, b->tmp);
}

/* Scratch bytes of the three CUB passes (the largest is allocated once). */
static spx_status coo_tmp_bytes(spx_ctx *ctx, int32_t nnz, int32_t m, int end_bit, size_t *bytes)
{
    size_t a = 0, b = 0, c = 0;
    SPX_CUDA_RET(ctx, cub::DeviceRadixSort::SortPairs(NULL, a, (const uint64_t *)NULL, (uint64_t *)NULL,
                                                      (const double *)NULL, (double *)NULL, nnz, 0, end_bit));
    SPX_CUDA_RET(ctx, cub::DeviceScan::ExclusiveSum(NULL, b, (int32_t *)NULL, (int32_t *)NULL, nnz));
    SPX_CUDA_RET(ctx, cub::DeviceScan::ExclusiveSum(NULL, c, (int32_t *)NULL, (int64_t *)NULL, m + 1));
    *bytes = a > b ? (a > c ? a : c) : (b > c ? b : c);
    return SPX_OK;
}

/* The device part: keys, sort, duplicates summed (heads, a scan placing the runs, a left to
 * right sum per run), histogram, scan. Leaves the unique count in
 * b->n_unique, columns in b->col, values in b->val_a, row pointers in b->rowptr. */
static spx_status coo_device_pass(spx_ctx *ctx, const spx_coo *A, coo_bufs *b, size_t tmp_bytes, int col_bits,
                                  int end_bit)
{
    cudaStream_t st = spx_cuda_stream(ctx);
    const int32_t nnz = (int32_t)A->nnz;
    unsigned grid = spx_cuda_grid_stride_blocks(ctx, nnz, SPX_COO_BLOCK, SPX_COO_BLOCKS_PER_SM);
    coo_pack_keys_kernel<<<grid, SPX_COO_BLOCK, 0, st>>>(nnz, b->row, b->col, col_bits, b->key_a);
    SPX_CUDA_LAUNCHED(ctx, "coo_pack_keys_kernel");
    size_t tb = tmp_bytes;
    /* stable: duplicates keep their input order */
    SPX_CUDA_RET(ctx, cub::DeviceRadixSort::SortPairs(b->tmp, tb, b->key_a, b->key_b, b->val_a, b->val_b, nnz, 0,
                                                      end_bit, st));
    /* row and col are free once the keys are packed: the heads and their places */
    coo_heads_kernel<<<grid, SPX_COO_BLOCK, 0, st>>>(nnz, b->key_b, b->row);
    SPX_CUDA_LAUNCHED(ctx, "coo_heads_kernel");
    tb = tmp_bytes;
    SPX_CUDA_RET(ctx, cub::DeviceScan::ExclusiveSum(b->tmp, tb, b->row, b->col, nnz, st));
    coo_sum_runs_kernel<<<grid, SPX_COO_BLOCK, 0, st>>>(nnz, b->key_b, b->val_b, b->row, b->col, b->key_a, b->val_a,
                                                        b->n_unique);
    SPX_CUDA_LAUNCHED(ctx, "coo_sum_runs_kernel");
    SPX_CUDA_RET(ctx, cudaMemsetAsync(b->counts, 0, ((size_t)A->m + 1) * sizeof(int32_t), st));
    coo_count_rows_kernel<<<grid, SPX_COO_BLOCK, 0, st>>>(b->n_unique, b->key_a, col_bits, b->counts, b->col);
    SPX_CUDA_LAUNCHED(ctx, "coo_count_rows_kernel");
    tb = tmp_bytes; /* counts[m] = 0, so rowptr[m] = the number of unique entries */
    SPX_CUDA_RET(ctx, cub::DeviceScan::ExclusiveSum(b->tmp, tb, b->counts, b->rowptr, A->m + 1, st));
    return SPX_OK;
}

extern "C" spx_status spx_cuda_coo_to_csr(spx_ctx *ctx, const spx_coo *A, spx_csr **out, double *sort_seconds)
{
    if (!ctx || !A || !out) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_cuda_coo_to_csr: NULL argument") : SPX_ERR_ARG;
    spx_status s = coo_check(ctx, A);
    if (s) return s;
    if ((s = spx_cuda_init(ctx))) return s;
    spx_csr *C = NULL;
    coo_bufs b;
    memset(&b, 0, sizeof b);
    cudaEvent_t e0 = NULL, e1 = NULL;
    float ms = 0.0f;
    int32_t n_unique = 0;
    size_t tmp_bytes = 0;
    const size_t nnz = (size_t)A->nnz, m1 = (size_t)A->m + 1;
    const int col_bits = A->n > 0 ? bits_for((uint64_t)(A->n - 1)) : 0;
    int end_bit = col_bits + (A->m > 0 ? bits_for((uint64_t)(A->m - 1)) : 0);
    if (end_bit < 1) end_bit = 1; /* a 1 x 1 matrix: every key is 0 */
    if (sort_seconds) *sort_seconds = 0.0;
    if (A->nnz == 0) { /* nothing to sort: an empty m x n CSR */
        if ((s = spx_csr_alloc(ctx, A->m, A->n, 0, &C))) return s;
        *out = C;
        return SPX_OK;
    }
    if ((s = coo_tmp_bytes(ctx, (int32_t)nnz, A->m, end_bit, &tmp_bytes))) goto done;
    if ((s = spx_cuda_malloc(ctx, (void **)&b.row, nnz * sizeof(int32_t))) ||
        (s = spx_cuda_malloc(ctx, (void **)&b.col, nnz * sizeof(int32_t))) ||
        (s = spx_cuda_malloc(ctx, (void **)&b.key_a, nnz * sizeof(uint64_t))) ||
        (s = spx_cuda_malloc(ctx, (void **)&b.key_b, nnz * sizeof(uint64_t))) ||
        (s = spx_cuda_malloc(ctx, (void **)&b.val_a, nnz * sizeof(double))) ||
        (s = spx_cuda_malloc(ctx, (void **)&b.val_b, nnz * sizeof(double))) ||
        (s = spx_cuda_malloc(ctx, (void **)&b.counts, m1 * sizeof(int32_t))) ||
        (s = spx_cuda_malloc(ctx, (void **)&b.rowptr, m1 * sizeof(int64_t))) ||
        (s = spx_cuda_malloc(ctx, (void **)&b.n_unique, sizeof(int32_t))) ||
        (s = spx_cuda_malloc(ctx, &b.tmp, tmp_bytes ? tmp_bytes : 1)))
        goto done;
    if ((s = spx_cuda_h2d(ctx, b.row, A->row, nnz * sizeof(int32_t))) ||
        (s = spx_cuda_h2d(ctx, b.col, A->col, nnz * sizeof(int32_t))) ||
        (s = spx_cuda_h2d(ctx, b.val_a, A->val, nnz * sizeof(double))) || (s = coo_entries_check(ctx, A, &b)))
        goto done;
    SPX_CUDA_GOTO(ctx, s, cudaEventCreate(&e0));
    SPX_CUDA_GOTO(ctx, s, cudaEventCreate(&e1));
    SPX_CUDA_GOTO(ctx, s, cudaEventRecord(e0, spx_cuda_stream(ctx)));
    if ((s = coo_device_pass(ctx, A, &b, tmp_bytes, col_bits, end_bit))) goto done;
    SPX_CUDA_GOTO(ctx, s, cudaEventRecord(e1, spx_cuda_stream(ctx)));
    SPX_CUDA_GOTO(ctx, s, cudaEventSynchronize(e1));
    SPX_CUDA_GOTO(ctx, s, cudaEventElapsedTime(&ms, e0, e1));
    if ((s = spx_cuda_d2h(ctx, &n_unique, b.n_unique, sizeof n_unique))) goto done;
    if (n_unique < 1 || (size_t)n_unique > nnz) {
        s = spx_fail(ctx, SPX_ERR_CUDA, "COO -> CSR on the GPU: %d unique entries of %zu", n_unique, nnz);
        goto done;
    }
    if ((s = spx_csr_alloc(ctx, A->m, A->n, n_unique, &C))) goto done;
    if ((s = spx_cuda_d2h(ctx, C->rowptr, b.rowptr, m1 * sizeof(int64_t))) ||
        (s = spx_cuda_d2h(ctx, C->colind, b.col, (size_t)n_unique * sizeof(int32_t))) ||
        (s = spx_cuda_d2h(ctx, C->val, b.val_a, (size_t)n_unique * sizeof(double))))
        goto done;
    C->meta.stored_entries = A->nnz;
    C->meta.duplicates = A->nnz - n_unique;
    if (sort_seconds) *sort_seconds = 1e-3 * (double)ms;
    *out = C;
    C = NULL;
done:
    if (e0) (void)cudaEventDestroy(e0);
    if (e1) (void)cudaEventDestroy(e1);
    coo_bufs_free(ctx, &b);
    spx_csr_destroy(&C);
    return s;
}
