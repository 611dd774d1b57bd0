/* src/spgemm/transpose.c: B^T for C = A*B^T, made inside the plan (a counting sort by
 * column), with the map from its entries back to B's so new values of B refresh it in
 * O(nnz) without re-sorting. On several threads each owns a range of B's columns (T's rows):
 * it counts them, then places their entries walking B's rows in order, so T's rows come out
 * sorted and the same as on one thread. Every thread reads all of B's columns twice but
 * writes only its own rows: the one-thread scatter's random writes (16M entries over 2M
 * columns: 1.5 s on the H100 machine's host, 2026-11-27 run 3) are what it spreads. Measured
 * here (2 cores, uniform 2M x 8): 1 thread 1221 ms, 2 threads 632 ms. More ranges than
 * threads, so that a range's writes stay in cache, was slower (8 MB ranges: 3350 / 1737 ms):
 * each range is one more walk over all of B. */
#include <string.h>

#include "core/ctx.h"
#include "spgemm/spgemm_internal.h"

/* Entries below which the transpose runs on one thread (a guess: a few ms of work). */
#define TRANSPOSE_PARALLEL_MIN_NNZ ((int64_t)1 << 18)

/* The first column of part p of parts, by entries: the smallest j with rowptr[j] >= p nnz /
 * parts (rowptr: T's row pointers, n + 1). */
static int32_t part_start(const int64_t *rowptr, int32_t n, int p, int parts)
{
    const int64_t want = (int64_t)((double)rowptr[n] * p / parts);
    int32_t lo = 0, hi = n;
    while (lo < hi) {
        const int32_t mid = lo + (hi - lo) / 2;
        if (rowptr[mid] < want) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* T's row counts of columns [lo, hi) of B, into rowptr[lo + 1 .. hi] (zeroed). */
static void count_columns(const spx_csr *B, int32_t lo, int32_t hi, int64_t *rowptr)
{
    for (int64_t q = 0; q < B->nnz; q++) {
        const int32_t j = B->colind[q];
        if (j >= lo && j < hi) rowptr[j + 1]++;
    }
}

/* Places B's entries of columns [lo, hi) into T (next[j]: T row j's next place) and perm. */
static void place_columns(const spx_csr *B, int32_t lo, int32_t hi, int64_t *next, spx_csr *T, int64_t *perm)
{
    for (int32_t i = 0; i < B->m; i++) /* rows in order: each row of T comes out sorted */
        for (int64_t q = B->rowptr[i]; q < B->rowptr[i + 1]; q++) {
            const int32_t j = B->colind[q];
            if (j < lo || j >= hi) continue;
            const int64_t at = next[j]++;
            T->colind[at] = i;
            T->val[at] = B->val[q];
            perm[at] = q;
        }
}

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
    int parts = B->nnz >= TRANSPOSE_PARALLEL_MIN_NNZ ? spx_ctx_threads(ctx) : 1;
    if (parts < 1) parts = 1;
    if (parts > B->n) parts = B->n > 0 ? B->n : 1;
#pragma omp parallel for schedule(static, 1) num_threads(parts)
    for (int p = 0; p < parts; p++) /* equal column ranges: the counts are not known yet */
        count_columns(B, (int32_t)((int64_t)B->n * p / parts), (int32_t)((int64_t)B->n * (p + 1) / parts), T->rowptr);
    for (int32_t j = 0; j < B->n; j++) T->rowptr[j + 1] += T->rowptr[j];
    memcpy(next, T->rowptr, ((size_t)B->n + 1) * sizeof *next);
#pragma omp parallel for schedule(static, 1) num_threads(parts)
    for (int p = 0; p < parts; p++) /* ranges of equal entries */
        place_columns(B, part_start(T->rowptr, B->n, p, parts),
                      p + 1 < parts ? part_start(T->rowptr, B->n, p + 1, parts) : B->n, next, T, perm);
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

void spx_spgemm_transpose_values(const spx_csr *B, const int64_t *perm, spx_csr *T, int threads)
{
#pragma omp parallel for schedule(static) num_threads(threads > 0 ? threads : 1)
    for (int64_t q = 0; q < T->nnz; q++) T->val[q] = B->val[perm[q]];
}
