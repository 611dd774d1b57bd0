/* src/matrix/dev_csr_cuda.cu: a library CSR (int64 row pointers, fp64 values), or a caller's device CSR
 * (spx_csr_dev), put on the device in the shape device-built layouts start from (int32 row
 * pointers, values in the plan's precision), converted by kernels there; and any such device
 * CSR back to a host CSR, for round trips. */
#include "cuda/convert_kernels.cuh"
#include "cuda/primitives.cuh"
#include "matrix/csr_dev.h"

namespace {

/* Entries a thread of spx_unsorted_kernel checks, consecutive: parallel over entries, not rows,
 * so a row of millions of entries does not hold one thread. */
constexpr int SPX_UNSORTED_ITEMS = 8;

/* *flag = 1 when some row's columns are not ascending (equal neighbours, duplicates, pass). */
__global__ void __launch_bounds__(SPX_CONVERT_BLOCK)
    spx_unsorted_kernel(int32_t m, int64_t nnz, const int32_t *__restrict__ rowptr,
                        const int32_t *__restrict__ colind, int *flag)
{
    const int64_t chunks = (nnz + SPX_UNSORTED_ITEMS - 1) / SPX_UNSORTED_ITEMS;
    for (int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; c < chunks; c += (int64_t)gridDim.x * blockDim.x) {
        const int64_t e0 = c * SPX_UNSORTED_ITEMS, e1 = min(nnz, e0 + SPX_UNSORTED_ITEMS);
        int32_t r = spx_row_of(rowptr, 0, m - 1, e0);
        for (int64_t e = e0; e < e1; e++) {
            while (e >= __ldg(rowptr + r + 1)) r++;
            if (e > __ldg(rowptr + r) && __ldg(colind + e - 1) > __ldg(colind + e)) *flag = 1;
        }
    }
}

} /* namespace */

extern "C" spx_status spx_cuda_dev_csr_unsorted(spx_ctx *ctx, const spx_dev_csr *A, int *unsorted)
{
    *unsorted = 0;
    if (A->nnz == 0 || A->m == 0) return SPX_OK;
    int *flag = NULL;
    spx_status s = spx_cuda_malloc(ctx, (void **)&flag, sizeof *flag);
    if (s) return s;
    const cudaStream_t st = spx_cuda_stream(ctx);
    const int64_t chunks = (A->nnz + SPX_UNSORTED_ITEMS - 1) / SPX_UNSORTED_ITEMS;
    cudaError_t e = cudaMemsetAsync(flag, 0, sizeof *flag, st);
    if (e == cudaSuccess) {
        spx_unsorted_kernel<<<spx_cuda_grid_stride_blocks(ctx, chunks, SPX_CONVERT_BLOCK, SPX_CONVERT_BLOCKS_PER_SM),
                              SPX_CONVERT_BLOCK, 0, st>>>(A->m, A->nnz, A->rowptr, A->colind, flag);
        e = cudaGetLastError();
    }
    s = e != cudaSuccess ? spx_cuda_fail_at(ctx, e, "spx_unsorted_kernel", __FILE__, __LINE__)
                         : spx_cuda_d2h(ctx, unsorted, flag, sizeof *unsorted);
    spx_cuda_free(ctx, flag);
    return s;
}

extern "C" void spx_cuda_dev_csr_free(spx_ctx *ctx, spx_dev_csr *A)
{
    if (!A) return;
    spx_cuda_free(ctx, A->rowptr);
    spx_cuda_free(ctx, A->colind);
    spx_cuda_free(ctx, A->val);
    A->rowptr = A->colind = NULL;
    A->val = A->scratch = NULL;
}

/* Uploads n int64 row pointers and narrows them into out (device) through a staging buffer. */
static spx_status upload_rowptr(spx_ctx *ctx, const int64_t *host, int64_t n, int32_t *out)
{
    int64_t *stage = NULL;
    spx_status s = spx_cuda_malloc(ctx, (void **)&stage, (size_t)n * sizeof *stage);
    if (!s) s = spx_cuda_h2d(ctx, stage, host, (size_t)n * sizeof *stage);
    if (!s) s = spx_cuda_cast(ctx, stage, out, n);
    if (!s) s = spx_cuda_sync(ctx);
    spx_cuda_free(ctx, stage);
    return s;
}

/* Uploads n fp64 values into out in precision prec (narrowed on the device for fp32). */
static spx_status upload_values(spx_ctx *ctx, const double *host, int64_t n, spx_precision prec, void *out)
{
    if (prec == SPX_FP64) return spx_cuda_h2d(ctx, out, host, (size_t)n * sizeof(double));
    double *stage = NULL;
    spx_status s = spx_cuda_malloc(ctx, (void **)&stage, (size_t)n * sizeof *stage);
    if (!s) s = spx_cuda_h2d(ctx, stage, host, (size_t)n * sizeof *stage);
    if (!s) s = spx_cuda_cast(ctx, stage, (float *)out, n);
    if (!s) s = spx_cuda_sync(ctx);
    spx_cuda_free(ctx, stage);
    return s;
}

/* Bytes of the row pointers' allocation before its scratch (256-aligned). */
static size_t rowptr_bytes(int32_t m) { return (((size_t)m + 1) * sizeof(int32_t) + 255) / 256 * 256; }

/* *D: the three arrays of an m x n CSR of nnz entries in precision prec allocated (contents
 * unset; the scratch after the row pointers); nothing left on failure. */
static spx_status alloc_dev_csr(spx_ctx *ctx, int32_t m, int32_t n, int64_t nnz, spx_precision prec, spx_dev_csr *D)
{
    if (nnz > INT32_MAX)
        return spx_fail(ctx, SPX_ERR_OVERFLOW, "device CSR: %lld nonzeros exceed the int32 row-pointer range",
                        (long long)nnz);
    *D = (spx_dev_csr){m, n, nnz, prec, NULL, NULL, NULL, NULL};
    spx_status s;
    if ((s = spx_cuda_malloc(ctx, (void **)&D->rowptr, rowptr_bytes(m) + SPX_DEV_CSR_SCRATCH_BYTES)) ||
        (s = spx_cuda_malloc(ctx, (void **)&D->colind, (size_t)nnz * sizeof(int32_t))) ||
        (s = spx_cuda_malloc(ctx, &D->val, (size_t)nnz * spx_precision_bytes(prec)))) {
        spx_cuda_dev_csr_free(ctx, D);
        return s;
    }
    D->scratch = (char *)D->rowptr + rowptr_bytes(m);
    return SPX_OK;
}

extern "C" spx_status spx_cuda_dev_csr_upload(spx_ctx *ctx, const spx_csr *A, spx_precision prec, spx_dev_csr *out)
{
    if (!ctx || !A || !out) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "device CSR upload: NULL argument") : SPX_ERR_ARG;
    spx_dev_csr D;
    spx_status s = alloc_dev_csr(ctx, A->m, A->n, A->nnz, prec, &D);
    if (s) return s;
    if ((s = upload_rowptr(ctx, A->rowptr, (int64_t)A->m + 1, D.rowptr)) ||
        (s = spx_cuda_h2d(ctx, D.colind, A->colind, (size_t)A->nnz * sizeof(int32_t))) ||
        (s = upload_values(ctx, A->val, A->nnz, prec, D.val))) {
        spx_cuda_dev_csr_free(ctx, &D);
        return s;
    }
    *out = D;
    return SPX_OK;
}

/* Queues dst = the n values of src (precision from) in precision to. */
static spx_status copy_values(spx_ctx *ctx, const void *src, spx_precision from, void *dst, spx_precision to, int64_t n)
{
    if (from == to) return spx_cuda_d2d_async(ctx, dst, src, (size_t)n * spx_precision_bytes(to));
    return to == SPX_FP32 ? spx_cuda_cast(ctx, (const double *)src, (float *)dst, n)
                          : spx_cuda_cast(ctx, (const float *)src, (double *)dst, n);
}

extern "C" spx_status spx_cuda_dev_csr_copy(spx_ctx *ctx, const spx_csr_dev *A, spx_precision prec, spx_dev_csr *out)
{
    spx_dev_csr D;
    spx_status s = alloc_dev_csr(ctx, A->m, A->n, A->nnz, prec, &D);
    if (s) return s;
    const size_t rows = (size_t)A->m + 1;
    s = A->rowptr_type == SPX_INDEX_INT32 ? spx_cuda_d2d_async(ctx, D.rowptr, A->rowptr, rows * sizeof(int32_t))
                                          : spx_cuda_cast(ctx, (const int64_t *)A->rowptr, D.rowptr, (int64_t)rows);
    if (!s) s = spx_cuda_d2d_async(ctx, D.colind, A->colind, (size_t)A->nnz * sizeof(int32_t));
    if (!s) s = copy_values(ctx, A->val, A->precision, D.val, prec, A->nnz);
    if (s) {
        if (cudaStreamSynchronize(spx_cuda_stream(ctx)) != cudaSuccess) (void)cudaGetLastError();
        spx_cuda_dev_csr_free(ctx, &D);
        return s;
    }
    *out = D;
    return SPX_OK;
}

extern "C" spx_status spx_cuda_dev_csr_download(spx_ctx *ctx, const spx_dev_csr *D, spx_csr **out)
{
    if (!ctx || !D || !out) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "device CSR download: NULL argument") : SPX_ERR_ARG;
    spx_csr *A = NULL;
    int32_t *rowptr = NULL;
    float *val32 = NULL;
    spx_status s = spx_csr_alloc(ctx, D->m, D->n, D->nnz, &A);
    if (s) return s;
    rowptr = (int32_t *)spx_malloc_array(ctx, (size_t)D->m + 1, sizeof *rowptr);
    if (D->precision == SPX_FP32) val32 = (float *)spx_malloc_array(ctx, (size_t)D->nnz, sizeof *val32);
    if (!rowptr || (D->precision == SPX_FP32 && !val32)) {
        s = spx_fail_nomem(ctx, "device CSR download");
        goto done;
    }
    if (!D->rowptr) { /* an empty layout may keep no arrays */
        for (int64_t i = 0; i <= D->m; i++) rowptr[i] = 0;
    } else if ((s = spx_cuda_d2h(ctx, rowptr, D->rowptr, ((size_t)D->m + 1) * sizeof *rowptr))) {
        goto done;
    }
    if ((s = spx_cuda_d2h(ctx, A->colind, D->colind, (size_t)D->nnz * sizeof(int32_t))) ||
        (s = spx_cuda_d2h(ctx, D->precision == SPX_FP32 ? (void *)val32 : (void *)A->val, D->val,
                          (size_t)D->nnz * spx_precision_bytes(D->precision))))
        goto done;
    for (int64_t i = 0; i <= D->m; i++) A->rowptr[i] = rowptr[i];
    if (val32)
        for (int64_t k = 0; k < D->nnz; k++) A->val[k] = (double)val32[k];
    *out = A;
    A = NULL;
done:
    spx_free(ctx, rowptr);
    spx_free(ctx, val32);
    spx_csr_destroy(&A);
    return s;
}
