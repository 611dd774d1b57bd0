/* tests/hbp_check.h: checks of an hbp host layout that test_hbp and test_hbp_wide share: the
 * round trip to CSR and the CPU SpMV against the reference. */
#ifndef SPX_TESTS_HBP_CHECK_H
#define SPX_TESTS_HBP_CHECK_H

#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "formats/hbp/hbp.h"

/* The layout back to CSR equals A (fp64). */
static inline void check_round_trip(spx_ctx *ctx, const spx_csr *A, const spx_hbp_fmt *F, const char *label)
{
    spx_csr *B = NULL;
    CHECK_OK(ctx, spx_hbp_fmt_to_csr(ctx, F, &B));
    if (!B) return;
    int same = B->m == A->m && B->n == A->n && B->nnz == A->nnz;
    for (int32_t i = 0; same && i <= A->m; i++) same = B->rowptr[i] == A->rowptr[i];
    for (int64_t k = 0; same && k < A->nnz; k++) same = B->colind[k] == A->colind[k] && B->val[k] == A->val[k];
    CHECK_MSG(same, "%s: round trip differs", label);
    spx_csr_destroy(&B);
}

/* CPU SpMV on the layout against the reference, b = 0 (y poisoned) and b != 0. */
static inline void check_spmv(spx_ctx *ctx, const spx_csr *A, const spx_hbp_fmt *F, const char *label)
{
    double *x = malloc(((size_t)A->n + 1) * sizeof *x), *y = malloc(((size_t)A->m + 1) * sizeof *y);
    double *ref = malloc(((size_t)A->m + 1) * sizeof *ref);
    for (int32_t j = 0; j < A->n; j++) x[j] = 1.0 + (double)(j % 13) / 16.0;
    for (int32_t i = 0; i < A->m; i++) y[i] = NAN;
    spx_csr_spmv_ref(A, 2.0, x, 0.0, ref);
    CHECK_OK(ctx, spx_hbp_fmt_spmv_cpu(ctx, F, SPX_FP64, 2.0, x, 0.0, y));
    CHECK_MSG(spx_rel_error(y, SPX_FP64, ref, A->m) <= 1e-13, "%s: b=0 SpMV", label);
    for (int32_t i = 0; i < A->m; i++) ref[i] = y[i] = (double)(i % 5) - 2.0;
    spx_csr_spmv_ref(A, -0.5, x, 0.25, ref);
    CHECK_OK(ctx, spx_hbp_fmt_spmv_cpu(ctx, F, SPX_FP64, -0.5, x, 0.25, y));
    CHECK_MSG(spx_rel_error(y, SPX_FP64, ref, A->m) <= 1e-13, "%s: b!=0 SpMV", label);
    free(x);
    free(y);
    free(ref);
}

#endif
