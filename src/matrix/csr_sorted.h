/* src/matrix/csr_sorted.h: the check that every row's columns strictly increase (SpGEMM's
 * inputs), in parallel on large matrices like spx_csr_check. */
#ifndef SPX_MATRIX_CSR_SORTED_H
#define SPX_MATRIX_CSR_SORTED_H

#include "spx/spx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when every row of A (a checked CSR) has strictly increasing columns, else 0 with the
 * first offending row in *bad_row. Runs on the context's threads when A is large. */
int spx_csr_sorted_unique(spx_ctx *ctx, const spx_csr *A, int32_t *bad_row);

#ifdef __cplusplus
}
#endif

#endif
