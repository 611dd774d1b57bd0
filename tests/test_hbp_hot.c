/* tests/test_hbp_hot.c: hbp's hot columns (hbp_bands.h) on the host: the numbering's
 * invariants (the non-empty columns once each; the top ones by count, non-increasing, ties by
 * column; then the others by column, none with more entries than a top one), the
 * bands over it (rows ascending, every entry where the numbering puts it), round trip and CPU
 * SpMV at several widths and with a dense row of 1M entries, the rule (`auto` renumbers a skewed matrix, not an even one), and
 * the registry's format checks (fp64, fp32) on DESIGN.md §8's edge cases, generated and shared
 * matrices, with allocation failures injected. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format_check.h"
#include "matrices.h"
#include "formats/hbp/hbp.h"
#include "formats/hbp/hbp_tuning.h"
#include "hbp_check.h"

/* Entries of each of A's columns (n of them, caller frees). */
static int64_t *column_counts(const spx_csr *A)
{
    int64_t *c = calloc((size_t)A->n + 1, sizeof *c);
    for (int64_t e = 0; c && e < A->nnz; e++) c[A->colind[e]]++;
    return c;
}

/* col_of numbers exactly A's non-empty columns, hot first (the first spx_hbp_hot_top_cols by
 * count, non-increasing, ties by column; the rest by column, none above the last top count);
 * every band's columns lie in it and ascend along a row, and its entries mapped back are row
 * i's entries of A. */
static void check_hot(const spx_csr *A, const spx_hbp_bands *B, const char *label)
{
    int64_t *cnt = column_counts(A);
    int32_t used = 0;
    for (int32_t j = 0; cnt && j < A->n; j++) used += cnt[j] > 0;
    int ok = cnt && B->hot && B->col_of && B->cols == used && B->n == A->n;
    char *seen = calloc((size_t)A->n + 1, 1);
    for (int32_t j = 0; ok && j < B->cols; j++) {
        const int32_t c = B->col_of[j];
        ok = c >= 0 && c < A->n && !seen[c] && cnt[c] > 0;
        const int32_t top = spx_hbp_hot_top_count(used);
        if (ok && j > 0 && j < top) {
            const int32_t p = B->col_of[j - 1];
            ok = cnt[p] > cnt[c] || (cnt[p] == cnt[c] && p < c);
        }
        if (ok && j > top) ok = B->col_of[j - 1] < c;
        if (ok && j >= top && top > 0) ok = cnt[c] <= cnt[B->col_of[top - 1]];
        if (ok) seen[c] = 1;
    }
    CHECK_MSG(ok, "%s: the hot numbering breaks its invariants", label);
    int64_t total = 0;
    for (int32_t k = 0; ok && k < B->count; k++) {
        const spx_csr_fmt *b = B->band[k];
        ok = b->n == spx_hbp_band_cols(B->cols, B->width, k);
        for (int32_t i = 0; ok && i < A->m; i++)
            for (int64_t e = b->rowptr[i]; ok && e < b->rowptr[i + 1]; e++) {
                const int64_t j = (int64_t)b->colind[e] + (int64_t)k * B->width;
                ok = b->colind[e] >= 0 && j < B->cols && (e == b->rowptr[i] || b->colind[e] >= b->colind[e - 1]);
                const int32_t c = ok ? B->col_of[j] : -1;
                int found = 0; /* c is one of row i's columns with this value */
                for (int64_t a = A->rowptr[i]; ok && a < A->rowptr[i + 1]; a++)
                    found |= A->colind[a] == c && A->val[a] == b->val64[e];
                ok = ok && found;
            }
        total += b->nnz;
    }
    CHECK_MSG(ok && total == A->nnz, "%s: the hot bands do not hold A's entries as the invariants say", label);
    free(seen);
    free(cnt);
}

/* Hot layouts of A at widths 32, 100 and the rule's: invariants, round trip, SpMV. */
static void check_layouts(spx_ctx *ctx, const spx_csr *A, const char *what)
{
    static const int32_t widths[] = {32, 100, 0};
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
        char label[200];
        snprintf(label, sizeof label, "%s hot W=%d", what, widths[w]);
        spx_hbp_fmt *F = NULL;
        CHECK_OK(ctx, spx_hbp_fmt_build(ctx, A, NULL, SPX_FP64, "hot", 0, widths[w], &F));
        if (!F) continue;
        CHECK_MSG(F->algo == SPX_HBP_HOT && F->bands, "%s: header", label);
        if (F->bands) check_hot(A, F->bands, label);
        check_round_trip(ctx, A, F, label);
        check_spmv(ctx, A, F, label);
        spx_hbp_fmt_destroy(ctx, F);
    }
}

static void check_registry(spx_ctx *ctx, const spx_csr *A, const char *name)
{
    for (int p = 0; p < 2; p++) fc_check(ctx, A, "hbp", "hot", SPX_BACKEND_CPU, p ? SPX_FP32 : SPX_FP64, name);
}

static void test_generated(spx_ctx *ctx)
{
    static const char *specs[] = {"gen:rmat:scale=12,ef=8", "gen:rmat:scale=10,ef=8,sym=1", "gen:powerlaw:m=4000,k=6",
                                  "gen:uniform:m=3000,k=16", "gen:wide:m=8,n=50000", "gen:tall:m=20000,n=100,k=2"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        spx_csr *A = NULL;
        CHECK_OK(ctx, spx_gen(ctx, specs[i], &A));
        if (A) check_layouts(ctx, A, specs[i]);
        if (A) check_registry(ctx, A, specs[i]);
        spx_csr_destroy(&A);
    }
}

static void test_edge_cases(spx_ctx *ctx)
{
    for (int i = 0; i < TM_N_EDGE; i++) {
        const tm_case *c = &tm_edge_cases[i];
        spx_csr *A = tm_make(ctx, c->m, c->n, c->len, 17 + (uint64_t)i);
        if (A) check_layouts(ctx, A, c->name);
        if (A) check_registry(ctx, A, c->name);
        spx_csr_destroy(&A);
    }
}

static int64_t len_million(int32_t i, int32_t m, int32_t n)
{
    (void)m;
    return i == 0 ? n : 2;
}

/* A dense row of 1M entries (longer than a thread's sorting room: sorted on its own after the
 * others): round trip, SpMV, the registry's checks. */
static void test_dense_row(spx_ctx *ctx)
{
    spx_csr *A = tm_make(ctx, 64, 1000000, len_million, 5);
    spx_hbp_fmt *F = NULL;
    if (A) CHECK_OK(ctx, spx_hbp_fmt_build(ctx, A, NULL, SPX_FP64, "hot", 0, 0, &F));
    if (F) {
        CHECK_MSG(F->bands && F->bands->hot && F->bands->cols == 1000000, "dense row: hot numbering");
        check_round_trip(ctx, A, F, "dense row of 1M, hot");
        check_spmv(ctx, A, F, "dense row of 1M, hot");
    }
    spx_hbp_fmt_destroy(ctx, F);
    if (A) check_registry(ctx, A, "dense row of 1M");
    spx_csr_destroy(&A);
}

/* The rule: x over one segment in fp64 (2.5M columns), a few columns holding most entries:
 * `auto` renumbers (and runs right); every column about as full, or the same matrix in fp32
 * (x within one segment), or features that say the entries stay near the diagonal: plain
 * bands. */
static void test_rule(spx_ctx *ctx)
{
    const int32_t n = 2500000;
    CHECK(spx_hbp_hot_considered(n, 8, NULL) && !spx_hbp_hot_considered(n, 4, NULL));
    spx_features near = {.m = n, .n = n, .diag_distance = 0.001};
    CHECK(!spx_hbp_hot_considered(n, 8, &near));
    CHECK(spx_hbp_hot_top_cols(0) == 1 && spx_hbp_hot_top_cols(160) == 10);
    CHECK(spx_hbp_hot_wanted(100, 25) && !spx_hbp_hot_wanted(100, 24) && !spx_hbp_hot_wanted(0, 0));
    const int32_t seg = (int32_t)(SPX_HBP_HOT_SEGMENT_BYTES / 8);
    CHECK(spx_hbp_hot_width(1000, 8) >= seg && spx_hbp_band_count(1000, spx_hbp_hot_width(1000, 8)) == 1);
    CHECK(spx_hbp_band_count(3 * seg, spx_hbp_hot_width(3 * seg, 8)) == 2);
    spx_csr *S = hbp_skewed_matrix(ctx, 3000, n, 8, 6), *U = hbp_skewed_matrix(ctx, 3000, n, 8, 0);
    for (int p = 0; p < 2; p++) {
        const spx_precision prec = p ? SPX_FP32 : SPX_FP64;
        spx_hbp_fmt *F = NULL, *G = NULL;
        if (S) CHECK_OK(ctx, spx_hbp_fmt_build(ctx, S, NULL, prec, "auto", 0, 0, &F));
        if (U) CHECK_OK(ctx, spx_hbp_fmt_build(ctx, U, NULL, prec, "auto", 0, 0, &G));
        CHECK_MSG(F && F->algo == (p ? SPX_HBP_BAND : SPX_HBP_HOT), "skewed %s: auto took %s", p ? "fp32" : "fp64",
                  F ? spx_hbp_algo_names[F->algo] : "nothing");
        CHECK_MSG(G && G->algo == SPX_HBP_BAND, "even %s: auto took %s", p ? "fp32" : "fp64",
                  G ? spx_hbp_algo_names[G->algo] : "nothing");
        if (F && !p) {
            check_hot(S, F->bands, "skewed, auto");
            check_round_trip(ctx, S, F, "skewed, auto");
            check_spmv(ctx, S, F, "skewed, auto");
        }
        spx_hbp_fmt_destroy(ctx, F);
        spx_hbp_fmt_destroy(ctx, G);
    }
    spx_hbp_fmt *N = NULL;
    if (S) CHECK_OK(ctx, spx_hbp_fmt_build(ctx, S, &near, SPX_FP64, "auto", 0, 0, &N));
    CHECK_MSG(N && N->algo == SPX_HBP_BAND, "skewed, near the diagonal by its features: auto took %s",
              N ? spx_hbp_algo_names[N->algo] : "nothing");
    spx_hbp_fmt_destroy(ctx, N);
    if (S) check_registry(ctx, S, "skewed 3000 x 2.5M");
    spx_csr_destroy(&S);
    spx_csr_destroy(&U);
}

static spx_csr *alloc_matrix(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    return spx_gen(ctx, "gen:rmat:scale=11,ef=8", &A) ? NULL : A;
}

int main(void)
{
    spx_ctx *ctx = NULL;
    spx_ctx_opts co = {.backend = SPX_BACKEND_CPU};
    if (spx_ctx_create(&ctx, &co)) return 1;
    test_generated(ctx);
    test_edge_cases(ctx);
    test_dense_row(ctx);
    test_rule(ctx);
    tm_each_shared(ctx, check_registry); /* every shared matrix */
    spx_ctx_destroy(&ctx);
    fc_alloc_failures("hbp", "hot", alloc_matrix, 200);
    return check_report();
}
