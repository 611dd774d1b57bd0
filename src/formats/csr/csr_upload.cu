/* src/formats/csr/csr_upload.cu: the csr layout's arrays on the device, shared by the csr
 * kernels and the cusparse baseline (which runs on the same layout). */
#include "cuda/runtime.cuh"
#include "formats/csr/csr_cuda.h"

extern "C" spx_status spx_csr_fmt_upload(spx_ctx *ctx, const spx_csr_fmt *F, int32_t **rowptr, int32_t **colind,
                                         void **val)
{
    const size_t vb = F->precision == SPX_FP32 ? sizeof(float) : sizeof(double);
    const void *hv = F->precision == SPX_FP32 ? (const void *)F->val32 : (const void *)F->val64;
    spx_status s;
    if ((s = spx_cuda_malloc(ctx, (void **)rowptr, ((size_t)F->m + 1) * sizeof(int32_t))) ||
        (s = spx_cuda_malloc(ctx, (void **)colind, (size_t)F->nnz * sizeof(int32_t))) ||
        (s = spx_cuda_malloc(ctx, val, (size_t)F->nnz * vb)))
        return s;
    if ((s = spx_cuda_h2d(ctx, *rowptr, F->rowptr, ((size_t)F->m + 1) * sizeof(int32_t))) ||
        (s = spx_cuda_h2d(ctx, *colind, F->colind, (size_t)F->nnz * sizeof(int32_t))) ||
        (s = spx_cuda_h2d(ctx, *val, hv, (size_t)F->nnz * vb)))
        return s;
    return SPX_OK;
}
