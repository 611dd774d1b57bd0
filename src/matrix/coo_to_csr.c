/* src/core/coo_to_csr.c: COO -> CSR on the host: counting sort by row, stable merge sort of
 * each row by column, duplicates summed (or rejected when strict). */
#include <omp.h>
#include <string.h>

#include "core/ctx.h"

/* Stable sort of (col, val)[0..len) by col, using scratch of len entries each. */
static void sort_row(int32_t *col, double *val, int32_t *tcol, double *tval, int64_t len)
{
    if (len <= 32) { /* insertion sort: stable, fast on short rows */
        for (int64_t i = 1; i < len; i++) {
            int32_t c = col[i];
            double v = val[i];
            int64_t j = i - 1;
            while (j >= 0 && col[j] > c) {
                col[j + 1] = col[j];
                val[j + 1] = val[j];
                j--;
            }
            col[j + 1] = c;
            val[j + 1] = v;
        }
        return;
    }
    int64_t half = len / 2;
    sort_row(col, val, tcol, tval, half);
    sort_row(col + half, val + half, tcol, tval, len - half);
    if (col[half - 1] <= col[half]) return; /* already in order */
    memcpy(tcol, col, (size_t)half * sizeof *tcol);
    memcpy(tval, val, (size_t)half * sizeof *tval);
    int64_t i = 0, j = half, k = 0;
    while (i < half && j < len) {
        if (col[j] < tcol[i]) {
            col[k] = col[j];
            val[k++] = val[j++];
        } else {
            col[k] = tcol[i];
            val[k++] = tval[i++];
        }
    }
    while (i < half) {
        col[k] = tcol[i];
        val[k++] = tval[i++];
    }
}

/* Rows longer than this are sorted one at a time after the parallel pass, so that each
 * thread's scratch is bounded (nt x 32K entries, 0.4 MB a thread) instead of nt x half the
 * longest row (a 10^8-entry row on 16 threads asked for 9.6 GB). */
#define SPX_SORT_PARALLEL_ROW_MAX ((int64_t)1 << 16)

/* Sorts row i with scratch (tcol, tval); returns whether it holds a repeated column. */
static int sort_one_row(spx_csr *A, int32_t i, int32_t *tcol, double *tval)
{
    int64_t b = A->rowptr[i], e = A->rowptr[i + 1];
    sort_row(A->colind + b, A->val + b, tcol, tval, e - b);
    for (int64_t k = b + 1; k < e; k++)
        if (A->colind[k] == A->colind[k - 1]) return 1;
    return 0;
}

/* Sorts every row's columns; sets *dup_row to the first row holding a duplicate, or -1. */
static spx_status sort_rows(spx_ctx *ctx, spx_csr *A, int32_t *dup_row, int64_t max_len)
{
    int nt = spx_ctx_threads(ctx);
    int64_t short_max = max_len < SPX_SORT_PARALLEL_ROW_MAX ? max_len : SPX_SORT_PARALLEL_ROW_MAX;
    size_t per_thread = (size_t)(short_max / 2 + 1), serial = max_len > short_max ? (size_t)(max_len / 2 + 1) : 0;
    int32_t *tcol = spx_malloc_array(ctx, (size_t)nt * per_thread + serial, sizeof *tcol);
    double *tval = spx_malloc_array(ctx, (size_t)nt * per_thread + serial, sizeof *tval);
    spx_status s = SPX_OK;
    if (!tcol || !tval) {
        s = spx_fail_nomem(ctx, "COO->CSR sort scratch");
        goto done;
    }
    int32_t first_dup = INT32_MAX; /* a reduction, not a critical section: no process-wide lock */
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1024) reduction(min : first_dup)
    for (int32_t i = 0; i < A->m; i++) {
        size_t off = (size_t)omp_get_thread_num() * per_thread;
        if (A->rowptr[i + 1] - A->rowptr[i] <= short_max && sort_one_row(A, i, tcol + off, tval + off) &&
            i < first_dup)
            first_dup = i;
    }
    for (int32_t i = 0; serial && i < A->m; i++) /* the long rows, with the one large scratch */
        if (A->rowptr[i + 1] - A->rowptr[i] > short_max &&
            sort_one_row(A, i, tcol + (size_t)nt * per_thread, tval + (size_t)nt * per_thread) && i < first_dup)
            first_dup = i;
    *dup_row = first_dup == INT32_MAX ? -1 : first_dup;
done:
    spx_free(ctx, tcol);
    spx_free(ctx, tval);
    return s;
}

/* Sums duplicate columns (rows already sorted) in place; returns the entries removed. */
static int64_t merge_duplicates(spx_csr *A)
{
    int64_t w = 0;
    for (int32_t i = 0; i < A->m; i++) {
        int64_t b = A->rowptr[i], e = A->rowptr[i + 1];
        int64_t start = w;
        for (int64_t k = b; k < e; k++) {
            if (w > start && A->colind[w - 1] == A->colind[k]) {
                A->val[w - 1] += A->val[k];
            } else {
                A->colind[w] = A->colind[k];
                A->val[w++] = A->val[k];
            }
        }
        A->rowptr[i] = start;
    }
    int64_t removed = A->nnz - w;
    A->rowptr[A->m] = w;
    A->nnz = w;
    return removed;
}

spx_status spx_coo_to_csr(spx_ctx *ctx, const spx_coo *C, int strict, int64_t *duplicates, spx_csr **out)
{
    if (!ctx || !C || !out) return SPX_ERR_ARG;
    spx_csr *A = NULL;
    int64_t *rowcnt = NULL;
    spx_status s = spx_csr_alloc(ctx, C->m, C->n, C->nnz, &A);
    if (s) goto done;
    rowcnt = spx_calloc_array(ctx, (size_t)C->m + 1, sizeof *rowcnt);
    if (!rowcnt) {
        s = spx_fail_nomem(ctx, "COO->CSR row counts");
        goto done;
    }
    for (int64_t k = 0; k < C->nnz; k++) {
        if (C->row[k] < 0 || C->row[k] >= C->m || C->col[k] < 0 || C->col[k] >= C->n) {
            s = spx_fail(ctx, SPX_ERR_ARG, "COO entry %lld at (%d, %d) outside %d x %d", (long long)k,
                         C->row[k], C->col[k], C->m, C->n);
            goto done;
        }
        A->rowptr[C->row[k] + 1]++;
    }
    int64_t max_len = 0;
    for (int32_t i = 0; i < C->m; i++) {
        if (A->rowptr[i + 1] > max_len) max_len = A->rowptr[i + 1];
        A->rowptr[i + 1] += A->rowptr[i];
    }
    memcpy(rowcnt, A->rowptr, (size_t)C->m * sizeof *rowcnt); /* next free slot per row */
    for (int64_t k = 0; k < C->nnz; k++) {
        int64_t dst = rowcnt[C->row[k]]++;
        A->colind[dst] = C->col[k];
        A->val[dst] = C->val[k];
    }
    int32_t dup_row = -1;
    s = sort_rows(ctx, A, &dup_row, max_len);
    if (s) goto done;
    int64_t removed = 0;
    if (dup_row >= 0) {
        if (strict) {
            s = spx_fail(ctx, SPX_ERR_PARSE, "duplicate entry in row %d (strict mode rejects duplicates)",
                         dup_row + 1);
            goto done;
        }
        removed = merge_duplicates(A);
    }
    if (duplicates) *duplicates = removed;
    A->meta.stored_entries = C->nnz;
    A->meta.duplicates = removed;
    *out = A;
    A = NULL;
done:
    spx_free(ctx, rowcnt);
    spx_csr_destroy(&A);
    return s;
}
