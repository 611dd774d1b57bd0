/* src/spgemm/spgemm_internal.h: helpers the SpGEMM plan shares with its implementations:
 * the transpose for C = A*B^T, the input check, and the products count. */
#ifndef SPX_SPGEMM_INTERNAL_H
#define SPX_SPGEMM_INTERNAL_H

#include "spgemm/impl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* *out = B^T (sorted columns) and *perm with out->val[q] = B->val[perm[q]]; on the context's
 * threads. */
spx_status spx_spgemm_transpose(spx_ctx *ctx, const spx_csr *B, spx_csr **out, int64_t **perm);
/* Refreshes T = B^T's values from B through the map spx_spgemm_transpose made, on up to
 * threads OpenMP threads. */
void spx_spgemm_transpose_values(const spx_csr *B, const int64_t *perm, spx_csr *T, int threads);
/* The products A*B forms (sum over A's entries of B's row lengths) in total, and row i's in
 * prod[i] when prod is not NULL; on up to threads OpenMP threads. */
int64_t spx_spgemm_row_products(const spx_csr *A, const spx_csr *B, int64_t *prod, int threads);

#ifdef __cplusplus
}
#endif
#endif
