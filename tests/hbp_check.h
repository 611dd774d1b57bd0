/* tests/hbp_check.h: what the hbp tests share: the round trip of a host layout to CSR, its CPU
 * SpMV against the reference, and a matrix with a hub row over two column blocks. */
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
    CHECK_MSG(spx_csr_equal(B, A), "%s: round trip differs", label);
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

/* 70000 x 3M: 4 entries a row (columns i K + t 750001 mod n, distinct), row 5 every 15th
 * column (200,000 entries): on an H100 more units than one wave (two rounds, so the second
 * walks the blocks down), two column blocks in fp64, and a panel split into units that each
 * span both blocks (the wide tiles' tests). Built directly: tm_make scans all n columns a row. */
static inline spx_csr *hbp_hub_matrix(spx_ctx *ctx)
{
    const int32_t m = 70000, n = 3000000, hub = 5, hub_len = 200000;
    spx_csr *A = NULL;
    if (spx_csr_alloc(ctx, m, n, (int64_t)(m - 1) * 4 + hub_len, &A)) return NULL;
    int64_t k = 0;
    for (int32_t i = 0; i < m; i++) {
        if (i == hub) {
            for (int32_t j = 0; j < hub_len; j++, k++) A->colind[k] = j * 15;
        } else {
            int32_t c[4];
            for (int t = 0; t < 4; t++) c[t] = (int32_t)(((int64_t)i * 2654435761LL + (int64_t)t * 750001) % n);
            for (int a = 1; a < 4; a++) /* sort the four */
                for (int b = a; b > 0 && c[b - 1] > c[b]; b--) {
                    const int32_t tmp = c[b];
                    c[b] = c[b - 1];
                    c[b - 1] = tmp;
                }
            for (int t = 0; t < 4; t++, k++) A->colind[k] = c[t];
        }
        A->rowptr[i + 1] = k;
    }
    for (int64_t e = 0; e < k; e++) A->val[e] = 1.0 + (double)(e % 7) * 0.125;
    return A;
}

/* m x n, k entries a row (fewer where two coincide), columns ascending: `hot` of them among
 * 64 columns spread over n (the rest anywhere), so for hot = 6, k = 8 a few columns hold most
 * entries (the hot-column rule's case) and for hot = 0 every column holds about as many. */
static inline spx_csr *hbp_skewed_matrix(spx_ctx *ctx, int32_t m, int32_t n, int k, int hot)
{
    spx_csr *A = NULL;
    if (k > 16 || spx_csr_alloc(ctx, m, n, (int64_t)m * k, &A)) return NULL;
    int64_t e = 0;
    for (int32_t i = 0; i < m; i++) {
        int32_t c[16];
        for (int t = 0; t < k; t++) {
            const int64_t h = t < hot ? ((int64_t)i * 7 + t * 13) % 64 * 40503 : (int64_t)i * 2654435761LL + t * 750001;
            c[t] = (int32_t)(h % n);
        }
        for (int a = 1; a < k; a++) /* sort */
            for (int b = a; b > 0 && c[b - 1] > c[b]; b--) {
                const int32_t tmp = c[b];
                c[b] = c[b - 1];
                c[b - 1] = tmp;
            }
        for (int t = 0; t < k; t++)
            if (t == 0 || c[t] != c[t - 1]) {
                A->colind[e] = c[t];
                A->val[e] = 1.0 + (double)(e % 5) * 0.25;
                e++;
            }
        A->rowptr[i + 1] = e;
    }
    A->nnz = e;
    return A;
}

#endif
