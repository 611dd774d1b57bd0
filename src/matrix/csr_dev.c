/* src/matrix/csr_dev.c: the device CSR (spx_csr_dev): its header checked on the host (sizes,
 * types, arrays present), its arrays and invariants on the device (the gateway), the host
 * struct that holds it, copies to and from a host CSR, and its release. */
#include <string.h>

#include "cuda/gateway.h"
#include "matrix/csr_dev.h"

spx_status spx_csr_dev_check_header(spx_ctx *ctx, const spx_csr_dev *A)
{
    if (A->m < 0 || A->n < 0 || A->nnz < 0)
        return spx_fail(ctx, SPX_ERR_ARG, "device CSR: negative size %d x %d, nnz %lld", A->m, A->n,
                        (long long)A->nnz);
    if (A->rowptr_type != SPX_INDEX_INT32 && A->rowptr_type != SPX_INDEX_INT64)
        return spx_fail(ctx, SPX_ERR_ARG, "device CSR: rowptr_type must be SPX_INDEX_INT32 or SPX_INDEX_INT64, not %d",
                        (int)A->rowptr_type);
    if (A->precision != SPX_FP64 && A->precision != SPX_FP32)
        return spx_fail(ctx, SPX_ERR_ARG, "device CSR: unknown precision %d (SPX_FP64 or SPX_FP32)", (int)A->precision);
    if (A->rowptr_type == SPX_INDEX_INT32 && A->nnz > INT32_MAX)
        return spx_fail(ctx, SPX_ERR_OVERFLOW, "device CSR: %lld nonzeros exceed int32 row pointers: pass int64 ones",
                        (long long)A->nnz);
    if (!A->rowptr) return spx_fail(ctx, SPX_ERR_ARG, "device CSR: rowptr is NULL (m + 1 = %lld entries needed)",
                                    (long long)A->m + 1);
    if (A->nnz > 0 && (!A->colind || !A->val))
        return spx_fail(ctx, SPX_ERR_ARG, "device CSR: %s is NULL with %lld nonzeros", !A->colind ? "colind" : "val",
                        (long long)A->nnz);
    return SPX_OK;
}

spx_status spx_csr_dev_adopt(spx_ctx *ctx, const spx_csr_dev *fields, spx_csr_dev **out)
{
    spx_csr_dev *A = spx_malloc(ctx, sizeof *A);
    if (!A) {
        if (fields->owns) spx_cuda_free(ctx, fields->rowptr);
        return spx_fail_nomem(ctx, "device CSR header");
    }
    *A = *fields;
    A->ctx = ctx;
    *out = A;
    return SPX_OK;
}

spx_status spx_csr_dev_wrap(spx_ctx *ctx, int32_t m, int32_t n, int64_t nnz, spx_index_type rowptr_type, void *rowptr,
                            int32_t *colind, spx_precision precision, void *val, spx_csr_dev **out)
{
    if (!ctx || !out) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_csr_dev_wrap: NULL argument") : SPX_ERR_ARG;
    spx_csr_dev D = {.m = m, .n = n, .nnz = nnz, .rowptr_type = rowptr_type, .rowptr = rowptr, .colind = colind,
                     .val = val, .precision = precision, .unsorted_row = -1, .ctx = ctx, .owns = 0};
    spx_status s = spx_csr_dev_check_header(ctx, &D);
    if (!s) s = spx_cuda_csr_dev_check(ctx, &D, &D.unsorted_row);
    return s ? s : spx_csr_dev_adopt(ctx, &D, out);
}

/* The host CSR's header: sizes and arrays present (its contents are checked on the device). */
static spx_status check_host_header(spx_ctx *ctx, const spx_csr *A)
{
    if (A->m < 0 || A->n < 0 || A->nnz < 0) return spx_fail(ctx, SPX_ERR_ARG, "invalid CSR header");
    if (!A->rowptr || (A->nnz > 0 && (!A->colind || !A->val))) return spx_fail(ctx, SPX_ERR_ARG, "CSR arrays missing");
    return SPX_OK;
}

spx_status spx_csr_dev_upload(spx_ctx *ctx, const spx_csr *A, spx_index_type rowptr_type, spx_precision precision,
                              spx_csr_dev **out)
{
    if (!ctx || !A || !out) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_csr_dev_upload: NULL argument") : SPX_ERR_ARG;
    spx_csr_dev D = {.m = A->m, .n = A->n, .nnz = A->nnz, .rowptr_type = rowptr_type, .rowptr = A->rowptr,
                     .colind = A->colind, .val = A->val, .precision = precision, .unsorted_row = -1};
    spx_status s = check_host_header(ctx, A);
    if (!s) s = spx_csr_dev_check_header(ctx, &D); /* the types asked for (the host arrays stand in) */
    if (!s) s = spx_cuda_init(ctx);
    if (!s) s = spx_cuda_csr_dev_upload(ctx, A, rowptr_type, precision, &D);
    return s ? s : spx_csr_dev_adopt(ctx, &D, out);
}

spx_status spx_csr_dev_download(const spx_csr_dev *A, spx_csr **out)
{
    if (!A || !out || !A->ctx) return A && A->ctx ? spx_fail(A->ctx, SPX_ERR_ARG, "spx_csr_dev_download: NULL argument")
                                                  : SPX_ERR_ARG;
    spx_csr *C = NULL;
    spx_status s = spx_csr_alloc(A->ctx, A->m, A->n, A->nnz, &C);
    if (!s) s = spx_cuda_csr_dev_download(A->ctx, A, C);
    if (s) spx_csr_destroy(&C);
    else *out = C;
    return s;
}

void spx_csr_dev_destroy(spx_csr_dev **pA)
{
    if (!pA || !*pA) return;
    spx_csr_dev *A = *pA;
    if (A->owns) spx_cuda_free(A->ctx, A->rowptr);
    spx_free(A->ctx, A);
    *pA = NULL;
}
