/* tests/spgemm_check.h: an independent SpGEMM reference for the tests (one dense long-double
 * row at a time; B^T by a dense scan, not the library's transpose) and the comparison of a
 * computed C with it: structure exact, each value within the rounding bound of its sum. */
#ifndef SPX_TESTS_SPGEMM_CHECK_H
#define SPX_TESTS_SPGEMM_CHECK_H

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "matrices.h"
#include "spx/spx.h"

/* The reference C: structure (touched columns, cancellations kept), values in long double,
 * and per entry the sum of |a*b| and the number of products (for the rounding bound). */
typedef struct sc_ref {
    int32_t m, n;
    int64_t nnz;
    int64_t *rowptr;
    int32_t *colind;
    long double *val, *absum;
    int64_t *terms;
} sc_ref;

static void sc_ref_free(sc_ref *r)
{
    free(r->rowptr);
    free(r->colind);
    free(r->val);
    free(r->absum);
    free(r->terms);
    memset(r, 0, sizeof *r);
}

/* B(k, j) for C = A*B or B(j, k) for C = A*B^T, scattered into the dense row acc (the
 * transpose read by scanning every row of B for column k: slow and independent). */
static void sc_row(const spx_csr *A, const spx_csr *B, int transpose_b, int32_t i, long double *acc, long double *abs_,
                   int64_t *terms, unsigned char *hit)
{
    for (int64_t qa = A->rowptr[i]; qa < A->rowptr[i + 1]; qa++) {
        const int32_t k = A->colind[qa];
        const long double a = A->val[qa];
        if (!transpose_b) {
            for (int64_t qb = B->rowptr[k]; qb < B->rowptr[k + 1]; qb++) {
                const int32_t j = B->colind[qb];
                acc[j] += a * B->val[qb], abs_[j] += fabsl(a * B->val[qb]), terms[j]++, hit[j] = 1;
            }
        } else {
            for (int32_t j = 0; j < B->m; j++)
                for (int64_t qb = B->rowptr[j]; qb < B->rowptr[j + 1]; qb++)
                    if (B->colind[qb] == k) acc[j] += a * B->val[qb], abs_[j] += fabsl(a * B->val[qb]), terms[j]++, hit[j] = 1;
        }
    }
}

/* Computes the reference of A*B (A*B^T with transpose_b); 0 on success. */
static int sc_ref_make(const spx_csr *A, const spx_csr *B, int transpose_b, sc_ref *r)
{
    memset(r, 0, sizeof *r);
    r->m = A->m;
    r->n = transpose_b ? B->m : B->n;
    const size_t n = (size_t)r->n + 1;
    long double *acc = calloc(n, sizeof *acc), *abs_ = calloc(n, sizeof *abs_);
    int64_t *terms = calloc(n, sizeof *terms);
    unsigned char *hit = calloc(n, 1);
    size_t cap = 16;
    r->rowptr = calloc((size_t)r->m + 1, sizeof *r->rowptr);
    r->colind = malloc(cap * sizeof *r->colind);
    r->val = malloc(cap * sizeof *r->val);
    r->absum = malloc(cap * sizeof *r->absum);
    r->terms = malloc(cap * sizeof *r->terms);
    for (int32_t i = 0; i < r->m; i++) {
        sc_row(A, B, transpose_b, i, acc, abs_, terms, hit);
        for (int32_t j = 0; j < r->n; j++) {
            if (!hit[j]) continue;
            if ((size_t)r->nnz == cap) {
                cap *= 2;
                r->colind = realloc(r->colind, cap * sizeof *r->colind);
                r->val = realloc(r->val, cap * sizeof *r->val);
                r->absum = realloc(r->absum, cap * sizeof *r->absum);
                r->terms = realloc(r->terms, cap * sizeof *r->terms);
            }
            r->colind[r->nnz] = j, r->val[r->nnz] = acc[j], r->absum[r->nnz] = abs_[j], r->terms[r->nnz] = terms[j];
            r->nnz++;
            acc[j] = abs_[j] = 0, terms[j] = 0, hit[j] = 0;
        }
        r->rowptr[i + 1] = r->nnz;
    }
    free(acc);
    free(abs_);
    free(terms);
    free(hit);
    return 0;
}

/* Whether C equals the reference: shape and structure exactly, values within
 * (terms + 2) * 2 * eps * sum|a*b| (eps of the precision; fp32 also rounds the inputs). */
static int sc_matches(const spx_csr *C, const sc_ref *r, spx_precision p, const char *what)
{
    if (!C || C->m != r->m || C->n != r->n || C->nnz != r->nnz) {
        fprintf(stderr, "%s: shape/nnz %d x %d, %lld != reference %d x %d, %lld\n", what, C ? C->m : -1,
                C ? C->n : -1, C ? (long long)C->nnz : -1LL, r->m, r->n, (long long)r->nnz);
        return 0;
    }
    const double eps = p == SPX_FP32 ? FLT_EPSILON : DBL_EPSILON;
    for (int32_t i = 0; i <= r->m; i++)
        if (C->rowptr[i] != r->rowptr[i]) {
            fprintf(stderr, "%s: rowptr[%d] %lld != %lld\n", what, i, (long long)C->rowptr[i], (long long)r->rowptr[i]);
            return 0;
        }
    for (int64_t q = 0; q < r->nnz; q++) {
        const long double tol = (long double)(r->terms[q] + 2) * 2 * eps * r->absum[q] + 1e-300L;
        if (C->colind[q] != r->colind[q] || !(fabsl((long double)C->val[q] - r->val[q]) <= tol)) {
            fprintf(stderr, "%s: entry %lld: (%d, %.17g) != reference (%d, %.17Lg)\n", what, (long long)q,
                    C->colind[q], C->val[q], r->colind[q], r->val[q]);
            return 0;
        }
    }
    return 1;
}

/* Plans, runs and compares C = A*B (A*B^T) with the reference on the given backend and
 * method; returns 1 when it matched. */
static int sc_check(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, int transpose_b, spx_backend b,
                    const char *method, const char *algo, spx_precision p, const char *what)
{
    sc_ref r;
    sc_ref_make(A, B, transpose_b, &r);
    spx_spgemm_opts o = {.method = method, .algo = algo, .backend = b, .precision = p, .transpose_b = transpose_b};
    spx_spgemm_plan *plan = NULL;
    spx_csr *C = NULL;
    char label[256];
    snprintf(label, sizeof label, "%s [%s/%s %s%s]", what, method ? method : "auto", algo ? algo : "-",
             spx_precision_str(p), transpose_b ? " B^T" : "");
    spx_status s = spx_spgemm_plan_create(ctx, A, B, &o, &plan);
    if (!s) s = spx_spgemm_run(plan, &C);
    int ok = s == SPX_OK && sc_matches(C, &r, p, label);
    CHECK_MSG(ok, "%s: %s: %s", label, spx_status_str(s), spx_ctx_last_error(ctx));
    if (!s && plan) {
        spx_spgemm_info info;
        spx_spgemm_plan_get_info(plan, &info);
        CHECK_MSG(info.nnz_c == r.nnz && info.runs == 1, "%s: info nnz_c %lld runs %ld", label,
                  (long long)info.nnz_c, info.runs);
    }
    spx_csr_destroy(&C);
    spx_spgemm_plan_destroy(&plan);
    sc_ref_free(&r);
    return ok;
}

static int64_t sc_len_dense0(int32_t i, int32_t m, int32_t n) { (void)m; return i == 0 ? n : 2; }
/* Every 97th row a hub of 3000 + i entries (at most n), the others 6. */
static int64_t sc_len_hubs(int32_t i, int32_t m, int32_t n)
{
    (void)m;
    const int64_t hub = 3000 + (int64_t)i;
    return i % 97 ? 6 : hub < n ? hub : n;
}

/* A product's shape: A is m x k with row lengths la, B is k x n with row lengths lb. */
typedef struct sc_case {
    const char *name;
    int32_t m, k, n;
    int64_t (*la)(int32_t, int32_t, int32_t), (*lb)(int32_t, int32_t, int32_t);
} sc_case;

/* The edge cases every path is checked on (A*B and A*A^T). */
static const sc_case sc_cases[] = {
    {"0x0 * 0x0", 0, 0, 0, tm_len_const8, tm_len_const8},
    {"0x5 * 5x3", 0, 5, 3, tm_len_const8, tm_len_const8},
    {"4x0 * 0x3 (inner 0)", 4, 0, 3, tm_len_const8, tm_len_const8},
    {"1x1", 1, 1, 1, tm_len_one, tm_len_one},
    {"empty rows", 300, 300, 300, tm_len_alt_empty, tm_len_alt_empty},
    {"empty columns", 200, 800, 200, tm_len_empty_cols, tm_len_const8},
    {"one dense row", 100, 4000, 300, tm_len_dense_row, tm_len_const8},
    {"rectangular 30x50 * 50x20", 30, 50, 20, tm_len_const8, tm_len_const8},
    {"rectangular tall * wide", 2000, 40, 3000, tm_len_one, tm_len_varied},
    {"hash rows (wide B)", 500, 500, 20000, tm_len_const8, tm_len_const8},
    /* CPU: a row's span above 4096 x its products takes the hash table (A rows of more than 16)
     * or the k-way merge (shorter A rows, no repeated column) */
    {"CPU hash rows (A rows of 31..33, very wide B)", 200, 200, 200000, tm_len_around32, tm_len_one},
    {"CPU merge rows (A rows of 8, very wide B)", 300, 300, 200000, tm_len_const8, tm_len_one},
    {"rows of 31..33", 200, 1000, 1000, tm_len_around32, tm_len_around32},
    {"a dense row over a wide B (GPU: dense fallback)", 8, 3000, 10000, sc_len_dense0, tm_len_const8},
    {"a dense row over a wider B (GPU: dense fallback)", 8, 3000, 60000, sc_len_dense0, tm_len_const8},
    {"a dense row over a very wide B (GPU: dense fallback, 1M columns)", 4, 3000, 1000000, sc_len_dense0,
     tm_len_const8},
    {"a dense row over 1.5M columns (GPU: dense symbolic, global numeric fallback)", 4, 3000, 1500000,
     sc_len_dense0, tm_len_const8},
    {"a dense row over 2M columns (GPU: global fallback)", 4, 3000, 2000000, sc_len_dense0, tm_len_const8},
    {"hub rows in B (GPU: dense fallback, long B rows walked by the whole block)", 64, 2000, 50000, sc_len_dense0,
     sc_len_hubs},
};
#define SC_N_CASES ((int)(sizeof sc_cases / sizeof sc_cases[0]))

/* Makes case c's operands (seeded by c); 0 when either cannot be made. */
static int sc_case_make(spx_ctx *ctx, int c, spx_csr **A, spx_csr **B)
{
    *A = tm_make(ctx, sc_cases[c].m, sc_cases[c].k, sc_cases[c].la, 11 + (uint64_t)c);
    *B = tm_make(ctx, sc_cases[c].k, sc_cases[c].n, sc_cases[c].lb, 97 + (uint64_t)c);
    return *A && *B;
}

#endif
