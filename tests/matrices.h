/* tests/matrices.h: test matrices built without the generators: given row lengths, random
 * distinct sorted columns and values in [-1, 1], deterministic from a seed. */
#ifndef SPX_TESTS_MATRICES_H
#define SPX_TESTS_MATRICES_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "core/rng.h"
#include "spx/spx.h"

/* splitmix64 (the library's own, src/core/rng.h). */
static uint64_t tm_next(uint64_t *s) { return spx_splitmix64(s); }

/* An m x n CSR whose row i has len(i, m, n) entries (clamped to n). */
static spx_csr *tm_make(spx_ctx *ctx, int32_t m, int32_t n, int64_t (*len)(int32_t, int32_t, int32_t), uint64_t seed)
{
    int64_t nnz = 0;
    for (int32_t i = 0; i < m; i++) {
        int64_t l = len(i, m, n);
        nnz += l > n ? n : l;
    }
    spx_csr *A = NULL;
    if (spx_csr_alloc(ctx, m, n, nnz, &A)) return NULL;
    unsigned char *used = calloc((size_t)n + 1, 1);
    int64_t k = 0;
    for (int32_t i = 0; i < m; i++) {
        int64_t l = len(i, m, n);
        if (l > n) l = n;
        int64_t start = k;
        if (l * 2 > n) { /* dense-ish: take every column, then drop at random */
            for (int32_t j = 0; j < n; j++) used[j] = 1;
            for (int64_t drop = n - l; drop > 0;) {
                int32_t j = (int32_t)(tm_next(&seed) % (uint64_t)n);
                if (used[j]) { used[j] = 0; drop--; }
            }
        } else {
            for (int64_t got = 0; got < l;) {
                int32_t j = (int32_t)(tm_next(&seed) % (uint64_t)n);
                if (!used[j]) { used[j] = 1; got++; }
            }
        }
        for (int32_t j = 0; j < n && k - start < l; j++)
            if (used[j]) {
                used[j] = 0;
                A->colind[k] = j;
                A->val[k++] = (double)(tm_next(&seed) >> 11) * 0x1.0p-53 * 2.0 - 1.0;
            }
        for (int32_t j = 0; j < n; j++) used[j] = 0;
        A->rowptr[i + 1] = k;
    }
    free(used);
    return A;
}

static int64_t tm_len_const8(int32_t i, int32_t m, int32_t n) { (void)i; (void)m; (void)n; return 8; }
static int64_t tm_len_one(int32_t i, int32_t m, int32_t n) { (void)i; (void)m; (void)n; return 1; }
static int64_t tm_len_alt_empty(int32_t i, int32_t m, int32_t n) { (void)m; (void)n; return i % 3 == 1 ? 0 : 5; }
static int64_t tm_len_dense_row(int32_t i, int32_t m, int32_t n) { (void)m; return i == 1 ? n : 3; }
static int64_t tm_len_around32(int32_t i, int32_t m, int32_t n) { (void)m; (void)n; return 31 + i % 3; }
static int64_t tm_len_around512(int32_t i, int32_t m, int32_t n) { (void)m; (void)n; return 511 + i % 3; }
static int64_t tm_len_varied(int32_t i, int32_t m, int32_t n) { (void)m; (void)n; return (i * 7919) % 61; }
static int64_t tm_len_half(int32_t i, int32_t m, int32_t n) { (void)i; (void)m; return n / 2 + i; }
static int64_t tm_len_empty_cols(int32_t i, int32_t m, int32_t n) { (void)i; (void)m; return n / 4; }

/* An m x n CSR copied from literal arrays (rp: m + 1 row pointers; ci, v: rp[m] entries);
 * NULL when allocation fails. */
static inline spx_csr *tm_csr_literal(spx_ctx *ctx, int32_t m, int32_t n, const int64_t *rp, const int32_t *ci,
                                      const double *v)
{
    spx_csr *A = NULL;
    if (spx_csr_alloc(ctx, m, n, rp[m], &A)) return NULL;
    memcpy(A->rowptr, rp, ((size_t)m + 1) * sizeof *rp);
    memcpy(A->colind, ci, (size_t)rp[m] * sizeof *ci);
    memcpy(A->val, v, (size_t)rp[m] * sizeof *v);
    return A;
}

/* The docs' worked example (docs/formats/hbp.md): 4 x 6, rows (0,1) (1,2) (4,3) | (2,4) |
 * empty | (0,5) (1,6) (2,7) (5,8); NULL when allocation fails. */
static inline spx_csr *tm_worked_example(spx_ctx *ctx)
{
    static const int64_t rp[] = {0, 3, 4, 4, 8};
    static const int32_t ci[] = {0, 1, 4, 2, 0, 1, 2, 5};
    static const double va[] = {1, 2, 3, 4, 5, 6, 7, 8};
    return tm_csr_literal(ctx, 4, 6, rp, ci, va);
}

typedef struct tm_case {
    const char *name;
    int32_t m, n;
    int64_t (*len)(int32_t, int32_t, int32_t);
} tm_case;

/* The edge cases of DESIGN.md §8 (the 1M-entry dense row has its own case in the tests). */
static const tm_case tm_edge_cases[] = {
    {"0x0", 0, 0, tm_len_const8},
    {"1x1", 1, 1, tm_len_one},
    {"0x5", 0, 5, tm_len_const8},
    {"5x0", 5, 0, tm_len_const8},
    {"empty rows", 300, 300, tm_len_alt_empty},
    {"empty columns (n/4 of 4n used)", 200, 800, tm_len_empty_cols},
    {"one dense row", 100, 4000, tm_len_dense_row},
    {"rows of 31..33", 200, 1000, tm_len_around32},
    {"rows of 511..513", 70, 2000, tm_len_around512},
    {"1024-97", 927, 927, tm_len_varied},
    {"1024+97", 1121, 1121, tm_len_varied},
    {"65536-97", 65439, 65439, tm_len_const8},
    {"65536+97", 65633, 65633, tm_len_varied},
    {"tall", 20000, 50, tm_len_one},
    {"wide", 3, 100000, tm_len_half},
    {"square, 8 per row", 5000, 5000, tm_len_const8},
};
#define TM_N_EDGE ((int)(sizeof tm_edge_cases / sizeof tm_edge_cases[0]))

/* Calls each(ctx, A, name) on every shared matrix (*.mtx.gz in SPX_SHARED_MATRICES, read in
 * full); a file that does not read is a failed check. Returns how many were read, or -1 when
 * the folder is missing (a note says so). */
static inline int tm_each_shared(spx_ctx *ctx, void (*each)(spx_ctx *, const spx_csr *, const char *))
{
    DIR *d = opendir(SPX_SHARED_MATRICES);
    if (!d) {
        fprintf(stderr, "note: %s not found; shared matrices skipped\n", SPX_SHARED_MATRICES);
        return -1;
    }
    int count = 0;
    for (struct dirent *e; (e = readdir(d));) {
        const size_t len = strlen(e->d_name);
        if (len < 7 || strcmp(e->d_name + len - 7, ".mtx.gz")) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", SPX_SHARED_MATRICES, e->d_name);
        spx_csr *A = NULL;
        const spx_status s = spx_mtx_read(ctx, path, NULL, &A, NULL);
        CHECK_MSG(s == SPX_OK, "%s: %s", path, spx_ctx_last_error(ctx));
        if (!s) each(ctx, A, e->d_name);
        spx_csr_destroy(&A);
        count += !s;
    }
    closedir(d);
    return count;
}

#endif
