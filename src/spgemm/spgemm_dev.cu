/* src/spgemm/spgemm_dev.cu: the SpGEMM GPU implementations' shared operand upload and result
 * download (see spgemm_dev.cuh). */
#include "spgemm/spgemm_dev.cuh"

spx_status spx_spgemm_dev_upload(spx_ctx *ctx, const spx_spgemm_input *in, spx_spgemm_operands *out)
{
    memset(out, 0, sizeof *out);
    spx_status s = spx_cuda_dev_csr_upload(ctx, in->A, in->precision, &out->A);
    if (!s && in->dev_b) {
        out->B = *(const spx_dev_csr *)in->dev_b;
        out->b_borrowed = 1;
    } else if (!s) {
        s = spx_cuda_dev_csr_upload(ctx, in->B, in->precision, &out->B);
    }
    if (s) spx_spgemm_dev_free(ctx, out);
    return s;
}

void spx_spgemm_dev_free(spx_ctx *ctx, spx_spgemm_operands *ops)
{
    spx_cuda_dev_csr_free(ctx, &ops->A);
    if (!ops->b_borrowed) spx_cuda_dev_csr_free(ctx, &ops->B);
    memset(&ops->B, 0, sizeof ops->B);
    ops->b_borrowed = 0;
}

spx_status spx_spgemm_dev_download(spx_ctx *ctx, const int32_t *colind, const void *val, spx_precision prec,
                                   int64_t nnz, spx_csr *C)
{
    if (nnz == 0) return SPX_OK;
    spx_status s = spx_cuda_d2h(ctx, C->colind, colind, (size_t)nnz * sizeof(int32_t));
    return s ? s : spx_cuda_download_values(ctx, C->val, val, prec, nnz);
}
