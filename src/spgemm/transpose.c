/* src/spgemm/transpose.c: B^T for C = A*B^T, made inside the plan (a counting sort by
 * column), with the map from its entries back to B's so new values of B refresh it in
 * O(nnz) without re-sorting. */
#include <string.h>

#include "spgemm/spgemm_internal.h"

spx_status spx_spgemm_transpose(spx_ctx *ctx, const spx_csr *B, spx_csr **out, int64_t **perm_out)
{
    spx_csr *T = NULL;
    int64_t *perm = NULL, *next = NULL;
    spx_status s = spx_csr_alloc(ctx, B->n, B->m, B->nnz, &T);
    if (s) return s;
    perm = spx_malloc_array(ctx, (size_t)B->nnz, sizeof *perm);
    next = spx_malloc_array(ctx, (size_t)B->n + 1, sizeof *next);
    if (!perm || !next) {
        s = spx_fail_nomem(ctx, "spgemm: B^T");
        goto done;
    }
    for (int64_t q = 0; q < B->nnz; q++) T->rowptr[B->colind[q] + 1]++;
    for (int32_t j = 0; j < B->n; j++) T->rowptr[j + 1] += T->rowptr[j];
    memcpy(next, T->rowptr, ((size_t)B->n + 1) * sizeof *next);
    for (int32_t i = 0; i < B->m; i++) /* rows in order: each column of T comes out sorted */
        for (int64_t q = B->rowptr[i]; q < B->rowptr[i + 1]; q++) {
            int64_t at = next[B->colind[q]]++;
            T->colind[at] = i;
            T->val[at] = B->val[q];
            perm[at] = q;
        }
    *out = T;
    *perm_out = perm;
    T = NULL;
    perm = NULL;
done:
    spx_free(ctx, next);
    spx_free(ctx, perm);
    spx_csr_destroy(&T);
    return s;
}

void spx_spgemm_transpose_values(const spx_csr *B, const int64_t *perm, spx_csr *T)
{
    for (int64_t q = 0; q < T->nnz; q++) T->val[q] = B->val[perm[q]];
}
