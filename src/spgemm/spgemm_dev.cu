/* src/spgemm/spgemm_dev.cu: what the SpGEMM GPU implementations share (spgemm_dev.cuh): the
 * operands borrowed or uploaded, the products counted on the device, C downloaded. */
#include "cuda/primitives.cuh"
#include "spgemm/spgemm_dev.cuh"

spx_status spx_spgemm_dev_upload(spx_ctx *ctx, const spx_spgemm_input *in, spx_spgemm_operands *out)
{
    memset(out, 0, sizeof *out);
    spx_status s = SPX_OK;
    if (in->dev_a) {
        out->A = *(const spx_dev_csr *)in->dev_a;
        out->a_borrowed = 1;
    } else {
        s = spx_cuda_dev_csr_upload(ctx, in->A, in->precision, &out->A);
    }
    if (!s && in->dev_b) {
        out->B = *(const spx_dev_csr *)in->dev_b;
        out->b_borrowed = 1;
    } else if (!s && !in->dev_a && in->B == in->A) { /* A * A: one upload serves both */
        out->B = out->A;
        out->b_borrowed = 1;
    } else if (!s) {
        s = spx_cuda_dev_csr_upload(ctx, in->B, in->precision, &out->B);
    }
    if (s) spx_spgemm_dev_free(ctx, out);
    return s;
}

void spx_spgemm_dev_free(spx_ctx *ctx, spx_spgemm_operands *ops)
{
    if (!ops->b_borrowed) spx_cuda_dev_csr_free(ctx, &ops->B);
    if (!ops->a_borrowed) spx_cuda_dev_csr_free(ctx, &ops->A);
    memset(ops, 0, sizeof *ops);
}

/* Threads a block of spx_spgemm_products_kernel, and its blocks an SM (grid-stride over A's
 * entries: enough resident warps to stream A's columns at full bandwidth). */
#define SPX_SPGEMM_PRODUCTS_BLOCK 256
#define SPX_SPGEMM_PRODUCTS_BLOCKS_PER_SM 8

/* *total += the sum over A's entries of B's row lengths (each block adds its part). */
__global__ void __launch_bounds__(SPX_SPGEMM_PRODUCTS_BLOCK)
    spx_spgemm_products_kernel(int64_t nnz_a, const int32_t *__restrict__ a_col, const int32_t *__restrict__ b_rowptr,
                               unsigned long long *total)
{
    unsigned long long sum = 0;
    for (int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; q < nnz_a; q += (int64_t)gridDim.x * blockDim.x) {
        const int32_t j = a_col[q];
        sum += (unsigned long long)(b_rowptr[j + 1] - b_rowptr[j]);
    }
    sum = spx_block_sum<SPX_SPGEMM_PRODUCTS_BLOCK>(sum);
    if (threadIdx.x == 0) atomicAdd(total, sum);
}

spx_status spx_spgemm_dev_products(spx_ctx *ctx, const spx_dev_csr *A, const spx_dev_csr *B, int64_t *products)
{
    *products = 0;
    if (A->nnz == 0) return SPX_OK;
    unsigned long long *d = NULL, total = 0;
    spx_status s = spx_cuda_malloc_async(ctx, (void **)&d, sizeof *d);
    if (s) return s;
    const cudaStream_t st = spx_cuda_stream(ctx);
    cudaError_t e = cudaMemsetAsync(d, 0, sizeof *d, st);
    if (e == cudaSuccess) {
        spx_spgemm_products_kernel<<<spx_cuda_grid_stride_blocks(ctx, A->nnz, SPX_SPGEMM_PRODUCTS_BLOCK,
                                                                 SPX_SPGEMM_PRODUCTS_BLOCKS_PER_SM),
                                     SPX_SPGEMM_PRODUCTS_BLOCK, 0, st>>>(A->nnz, A->colind, B->rowptr, d);
        e = cudaGetLastError();
    }
    s = e != cudaSuccess ? spx_cuda_fail_at(ctx, e, "spx_spgemm_products_kernel", __FILE__, __LINE__)
                         : spx_cuda_d2h(ctx, &total, d, sizeof total);
    spx_cuda_free_async(ctx, d);
    if (!s) *products = (int64_t)total;
    return s;
}

spx_status spx_spgemm_dev_download(spx_ctx *ctx, const int32_t *colind, const void *val, spx_precision prec,
                                   int64_t nnz, spx_csr *C)
{
    if (nnz == 0) return SPX_OK;
    spx_status s = spx_cuda_d2h(ctx, C->colind, colind, (size_t)nnz * sizeof(int32_t));
    return s ? s : spx_cuda_download_values(ctx, C->val, val, prec, nnz);
}
