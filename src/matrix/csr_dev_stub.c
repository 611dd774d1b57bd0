/* src/matrix/csr_dev_stub.c: the device CSR's GPU entry points (matrix/csr_dev.h,
 * features.h) for builds without CUDA: each reports SPX_ERR_NOT_COMPILED. */
#include "matrix/csr_dev.h"
#include "matrix/features.h"

static spx_status not_compiled(spx_ctx *ctx)
{
    return spx_fail(ctx, SPX_ERR_NOT_COMPILED, "the CUDA backend is not compiled into this build");
}

spx_status spx_cuda_features(spx_ctx *ctx, const spx_dev_csr *D, spx_features *out) { return not_compiled(ctx); }
spx_status spx_cuda_coo_to_csr(spx_ctx *ctx, const spx_coo *A, spx_csr **out, double *s)
{
    return not_compiled(ctx);
}

spx_status spx_cuda_dev_csr_upload(spx_ctx *ctx, const spx_csr *A, spx_precision prec, spx_dev_csr *out)
{
    return not_compiled(ctx);
}
void spx_cuda_dev_csr_free(spx_ctx *ctx, spx_dev_csr *A) { (void)ctx; (void)A; }
spx_status spx_cuda_dev_csr_copy(spx_ctx *ctx, const spx_csr_dev *A, spx_precision prec, spx_dev_csr *out)
{
    return not_compiled(ctx);
}
spx_status spx_cuda_dev_csr_download(spx_ctx *ctx, const spx_dev_csr *A, spx_csr **out) { return not_compiled(ctx); }
spx_status spx_cuda_dev_csr_unsorted(spx_ctx *ctx, const spx_dev_csr *A, int *unsorted)
{
    (void)A;
    if (unsorted) *unsorted = 0;
    return not_compiled(ctx);
}

spx_status spx_cuda_csr_dev_check(spx_ctx *ctx, const spx_csr_dev *A, int32_t *unsorted_row)
{
    (void)A;
    (void)unsorted_row;
    return not_compiled(ctx);
}
spx_status spx_cuda_csr_dev_alloc(spx_ctx *ctx, int32_t m, int32_t n, int64_t nnz, spx_index_type rowptr_type,
                                  spx_precision prec, int pooled, spx_csr_dev *out)
{
    return not_compiled(ctx);
}
spx_status spx_cuda_csr_dev_upload(spx_ctx *ctx, const spx_csr *A, spx_index_type rowptr_type, spx_precision prec,
                                   spx_csr_dev *out)
{
    return not_compiled(ctx);
}
spx_status spx_cuda_csr_dev_fill(spx_ctx *ctx, const spx_csr *A, spx_csr_dev *D, int values_only)
{
    return not_compiled(ctx);
}
spx_status spx_cuda_csr_dev_revalue(spx_ctx *ctx, const spx_csr_dev *A, const spx_dev_csr *view)
{
    return not_compiled(ctx);
}
spx_status spx_cuda_csr_dev_download(spx_ctx *ctx, const spx_csr_dev *A, spx_csr *C) { return not_compiled(ctx); }
spx_status spx_cuda_csr_dev_view(spx_ctx *ctx, const spx_csr_dev *A, spx_precision prec, spx_dev_csr *out,
                                 void **block)
{
    return not_compiled(ctx);
}
