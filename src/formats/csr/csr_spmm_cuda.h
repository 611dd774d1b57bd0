/* src/formats/csr/csr_spmm_cuda.h: the csr format's CUDA SpMM (csr_spmm_cuda.cu), Y = a*A*X +
 * b*Y on the csr arrays a plan holds, whatever its SpMV algorithm; and Y = b*Y for an SpMM on a
 * matrix without entries, shared with the cusparse baseline. Called from .cu files only. */
#ifndef SPX_FORMATS_CSR_SPMM_CUDA_H
#define SPX_FORMATS_CSR_SPMM_CUDA_H

#include <stdint.h>

#include "core/ctx.h"
#include "spmv/format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The matrix as the SpMM kernels read it: the plan's device CSR (nnz <= INT32_MAX) and the row
 * statistics its shapes are chosen by. */
typedef struct spx_csr_spmm_mat {
    int32_t m, n, nnz;
    spx_precision prec;
    const int32_t *rowptr, *colind;
    const void *val; /* float or double per prec */
    double row_mean;
    int64_t row_max;
} spx_csr_spmm_mat;

/* The long rows' pieces (csr_spmm_shape.h), listed on the first SpMM that needs them and kept
 * by the plan: n (row, first entry) pairs on the device. Zero-initialised: none listed yet. */
typedef struct spx_csr_spmm_pieces {
    int32_t *pairs;
    int64_t n;
    int ready;
} spx_csr_spmm_pieces;

/* Y = a*A*X + b*Y (a's blocks on the device, k >= 1, either layout; b = 0 never reads Y) with
 * the shape csr_spmm_shape.c gives, queued on the context's stream; lists P on first use. Not
 * for the shape SPX_CSR_SPMM_SPMV (the caller runs its SpMV kernel on column 0). */
spx_status spx_csr_spmm_cuda(spx_ctx *ctx, const spx_csr_spmm_mat *A, spx_csr_spmm_pieces *P, const spx_spmm_args *a);
/* Frees P's device array (P itself is the caller's). */
void spx_csr_spmm_pieces_free(spx_ctx *ctx, spx_csr_spmm_pieces *P);
/* Y = b*Y (0 when b = 0: Y not read) for the m rows and a->k columns of a's Y, queued on the
 * context's stream: the SpMM of a matrix with no entries. */
spx_status spx_cuda_spmm_scale_y(spx_ctx *ctx, int64_t m, const spx_spmm_args *a);

#ifdef __cplusplus
}
#endif
#endif
