/* src/matrix/csr.c: CSR and COO objects: allocation, wrapping, checks, copies, COO -> CSR. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/ctx.h"
#include "matrix/csr_sorted.h"

/* Entries below which spx_csr_check and spx_csr_sorted_unique run on one thread (a parallel
 * region costs ~10 us). */
#define CSR_CHECK_PARALLEL_MIN_NNZ 200000

/* Frees the arrays and the struct of a CSR built by the library. */
static void csr_free_all(spx_ctx *ctx, spx_csr *A)
{
    if (!A) return;
    if (A->owns) {
        spx_free(ctx, A->rowptr);
        spx_free(ctx, A->colind);
        spx_free(ctx, A->val);
    }
    spx_free(ctx, A);
}

spx_status spx_csr_alloc(spx_ctx *ctx, int64_t m, int64_t n, int64_t nnz, spx_csr **out)
{
    if (!ctx || !out) return SPX_ERR_ARG;
    if (m < 0 || n < 0 || nnz < 0)
        return spx_fail(ctx, SPX_ERR_ARG, "negative matrix size %lld x %lld, nnz %lld",
                        (long long)m, (long long)n, (long long)nnz);
    if (m > INT32_MAX || n > INT32_MAX)
        return spx_fail(ctx, SPX_ERR_OVERFLOW, "matrix size %lld x %lld exceeds the int32 index range",
                        (long long)m, (long long)n);
    spx_csr *A = spx_malloc(ctx, sizeof *A);
    if (!A) return spx_fail_nomem(ctx, "CSR header");
    memset(A, 0, sizeof *A);
    A->m = (int32_t)m;
    A->n = (int32_t)n;
    A->nnz = nnz;
    A->ctx = ctx;
    A->owns = 1;
    A->rowptr = spx_calloc_array(ctx, (size_t)m + 1, sizeof *A->rowptr);
    A->colind = spx_malloc_array(ctx, (size_t)nnz, sizeof *A->colind);
    A->val = spx_malloc_array(ctx, (size_t)nnz, sizeof *A->val);
    if (!A->rowptr || !A->colind || !A->val) {
        csr_free_all(ctx, A);
        return spx_fail_nomem(ctx, "CSR arrays");
    }
    *out = A;
    return SPX_OK;
}

spx_status spx_csr_check(spx_ctx *ctx, const spx_csr *A)
{
    if (!A || A->m < 0 || A->n < 0 || A->nnz < 0) return spx_fail(ctx, SPX_ERR_ARG, "invalid CSR header");
    if (!A->rowptr || (A->nnz > 0 && (!A->colind || !A->val)))
        return spx_fail(ctx, SPX_ERR_ARG, "CSR arrays missing");
    if (A->rowptr[0] != 0) return spx_fail(ctx, SPX_ERR_ARG, "CSR rowptr[0] = %lld, expected 0", (long long)A->rowptr[0]);
    /* in parallel on large matrices; the first offence (lowest index) is the one reported */
    const int nt = A->nnz >= CSR_CHECK_PARALLEL_MIN_NNZ ? spx_ctx_threads(ctx) : 1;
    int32_t bad_row = A->m;
#pragma omp parallel for num_threads(nt) schedule(static) reduction(min : bad_row)
    for (int32_t i = 0; i < A->m; i++)
        if (A->rowptr[i + 1] < A->rowptr[i] && i < bad_row) bad_row = i;
    if (bad_row < A->m) return spx_fail(ctx, SPX_ERR_ARG, "CSR rowptr decreases at row %d", bad_row);
    if (A->rowptr[A->m] != A->nnz)
        return spx_fail(ctx, SPX_ERR_ARG, "CSR rowptr[m] = %lld, nnz = %lld", (long long)A->rowptr[A->m],
                        (long long)A->nnz);
    int64_t bad = A->nnz;
#pragma omp parallel for num_threads(nt) schedule(static) reduction(min : bad)
    for (int64_t k = 0; k < A->nnz; k++)
        if ((A->colind[k] < 0 || A->colind[k] >= A->n) && k < bad) bad = k;
    if (bad < A->nnz)
        return spx_fail(ctx, SPX_ERR_ARG, "CSR column index %d out of range 0..%d", A->colind[bad], A->n - 1);
    return SPX_OK;
}

int spx_csr_sorted_unique(spx_ctx *ctx, const spx_csr *A, int32_t *bad_row)
{
    const int nt = A->nnz >= CSR_CHECK_PARALLEL_MIN_NNZ ? spx_ctx_threads(ctx) : 1;
    int32_t bad = A->m;
#pragma omp parallel for num_threads(nt) schedule(static) reduction(min : bad)
    for (int32_t i = 0; i < A->m; i++)
        for (int64_t q = A->rowptr[i] + 1; q < A->rowptr[i + 1]; q++)
            if (A->colind[q] <= A->colind[q - 1]) {
                if (i < bad) bad = i;
                break;
            }
    *bad_row = bad;
    return bad == A->m;
}

spx_status spx_csr_wrap(spx_ctx *ctx, int32_t m, int32_t n, int64_t nnz, int64_t *rowptr,
                        int32_t *colind, double *val, spx_csr **out)
{
    if (!ctx || !out) return SPX_ERR_ARG;
    spx_csr tmp = {.m = m, .n = n, .nnz = nnz, .rowptr = rowptr, .colind = colind, .val = val};
    spx_status s = spx_csr_check(ctx, &tmp);
    if (s) return s;
    spx_csr *A = spx_malloc(ctx, sizeof *A);
    if (!A) return spx_fail_nomem(ctx, "CSR header");
    *A = tmp;
    A->ctx = ctx;
    A->owns = 0;
    A->meta.stored_entries = nnz;
    *out = A;
    return SPX_OK;
}

spx_status spx_csr_copy(spx_ctx *ctx, const spx_csr *A, spx_csr **out)
{
    if (!ctx || !A || !out) return SPX_ERR_ARG;
    spx_csr *B = NULL;
    spx_status s = spx_csr_alloc(ctx, A->m, A->n, A->nnz, &B);
    if (s) return s;
    memcpy(B->rowptr, A->rowptr, ((size_t)A->m + 1) * sizeof *A->rowptr);
    if (A->nnz) {
        memcpy(B->colind, A->colind, (size_t)A->nnz * sizeof *A->colind);
        memcpy(B->val, A->val, (size_t)A->nnz * sizeof *A->val);
    }
    B->meta = A->meta;
    *out = B;
    return SPX_OK;
}

void spx_csr_destroy(spx_csr **pA)
{
    if (!pA || !*pA) return;
    csr_free_all((*pA)->ctx, *pA);
    *pA = NULL;
}

int64_t spx_csr_count_nonfinite(const spx_csr *A, int64_t *nan, int64_t *inf)
{
    int64_t n_nan = 0, n_inf = 0;
    const int64_t nnz = A && A->val ? A->nnz : 0;
    const int nt = nnz >= CSR_CHECK_PARALLEL_MIN_NNZ && A->ctx ? spx_ctx_threads(A->ctx) : 1;
#pragma omp parallel for num_threads(nt) schedule(static) reduction(+ : n_nan, n_inf)
    for (int64_t k = 0; k < nnz; k++) {
        n_nan += isnan(A->val[k]) != 0;
        n_inf += isinf(A->val[k]) != 0;
    }
    if (nan) *nan = n_nan;
    if (inf) *inf = n_inf;
    return n_nan + n_inf;
}

int spx_csr_equal(const spx_csr *A, const spx_csr *B)
{
    if (!A || !B || A->m != B->m || A->n != B->n || A->nnz != B->nnz) return 0;
    if (memcmp(A->rowptr, B->rowptr, ((size_t)A->m + 1) * sizeof *A->rowptr)) return 0;
    for (int64_t k = 0; k < A->nnz; k++)
        if (A->colind[k] != B->colind[k] || A->val[k] != B->val[k]) return 0;
    return 1;
}

spx_status spx_coo_alloc(spx_ctx *ctx, int64_t m, int64_t n, int64_t nnz, spx_coo **out)
{
    if (!ctx || !out) return SPX_ERR_ARG;
    if (m < 0 || n < 0 || nnz < 0) return spx_fail(ctx, SPX_ERR_ARG, "negative COO size");
    if (m > INT32_MAX || n > INT32_MAX)
        return spx_fail(ctx, SPX_ERR_OVERFLOW, "matrix size %lld x %lld exceeds the int32 index range",
                        (long long)m, (long long)n);
    spx_coo *A = spx_malloc(ctx, sizeof *A);
    if (!A) return spx_fail_nomem(ctx, "COO header");
    memset(A, 0, sizeof *A);
    A->m = (int32_t)m;
    A->n = (int32_t)n;
    A->nnz = nnz;
    A->ctx = ctx;
    A->row = spx_malloc_array(ctx, (size_t)nnz, sizeof *A->row);
    A->col = spx_malloc_array(ctx, (size_t)nnz, sizeof *A->col);
    A->val = spx_malloc_array(ctx, (size_t)nnz, sizeof *A->val);
    if (!A->row || !A->col || !A->val) {
        spx_coo_destroy(&A);
        return spx_fail_nomem(ctx, "COO arrays");
    }
    *out = A;
    return SPX_OK;
}

void spx_coo_destroy(spx_coo **pA)
{
    if (!pA || !*pA) return;
    spx_coo *A = *pA;
    spx_free(A->ctx, A->row);
    spx_free(A->ctx, A->col);
    spx_free(A->ctx, A->val);
    spx_free(A->ctx, A);
    *pA = NULL;
}
