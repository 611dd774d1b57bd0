/* tests/test_teb.c: the teb format's own checks: the paper's worked example (Fig. 13-15), the
 * histogram simulation against a row-by-row merge, the layout's invariants on several shapes,
 * the selection (decision tree, range, eq. 10, balance against an equal-rows split), the
 * plan's layout statistics, and a timing-free scalability check (the selection's steps on a
 * 200M-nonzero histogram are bounded by its candidates). */
#include <math.h>
#include <string.h>

#include "check.h"
#include "format_check.h"
#include "formats/teb/teb.h"
#include "formats/teb/teb_tuning.h"
#include "matrices.h"

/* The 8 x 8 matrix A of the paper's Fig. 1 (CSR of Fig. 2). */
static spx_csr *paper_matrix(spx_ctx *ctx)
{
    static const int64_t ptr[] = {0, 3, 4, 6, 8, 9, 11, 12, 16};
    static const int32_t col[] = {2, 6, 7, 0, 3, 7, 0, 1, 6, 4, 5, 4, 0, 5, 6, 7};
    static const double val[] = {2, 1, 8, 3, 6, 9, 6, 7, 2, 5, 8, 6, 5, 4, 2, 1};
    return tm_csr_literal(ctx, 8, 8, ptr, col, val);
}

/* Fig. 13-15: rows {3,1,2,2,1,2,1,4}, bLN = 4, k = 1: four blocks of exactly 4 nonzeros, laid
 * out as Fig. 15 (Blo_Idx, RowNNZ_Sum, Values, Col_Idx; rows R7 | R0 R6 | R2 R4 R1 | R3 R5). */
static void test_worked_example(spx_ctx *ctx)
{
    static const int32_t blo[] = {0, 1, 3, 6, 8}, rs[] = {0, 4, 7, 8, 10, 11, 12, 14, 16};
    static const int32_t orig[] = {7, 0, 6, 2, 4, 1, 3, 5};
    static const double vals[] = {5, 4, 2, 1, 2, 1, 8, 6, 6, 9, 2, 3, 6, 7, 5, 8};
    static const int32_t cols[] = {0, 5, 6, 7, 2, 6, 7, 4, 3, 7, 6, 0, 0, 1, 4, 5};
    spx_csr *A = paper_matrix(ctx);
    CHECK(A != NULL);
    if (!A) return;
    spx_teb_choice force = {.bln = 4, .k = 1.0};
    spx_teb_fmt *F = NULL;
    CHECK_OK(ctx, spx_teb_fmt_build(ctx, A, SPX_FP64, "thread", &force, NULL, &F));
    if (F) {
        CHECK(F->n_blocks == 4 && F->choice.threshold == 4.0);
        CHECK(!memcmp(F->blk_row, blo, sizeof blo));
        CHECK(!memcmp(F->row_off, rs, sizeof rs));
        CHECK(!memcmp(F->row_orig, orig, sizeof orig));
        CHECK(!memcmp(F->colind, cols, sizeof cols));
        CHECK(!memcmp(F->val64, vals, sizeof vals));
        CHECK(F->block_var == 0.0 && F->block_max == 4);
        CHECK(F->eq_max == 5); /* equal rows {R0,R1} {R2,R3} {R4,R5} {R6,R7}: 4, 4, 3, 5 */
        spx_teb_fmt_destroy(ctx, F);
    }
    /* the histogram simulation agrees: S^2 = 0 */
    int32_t ord[8];
    spx_teb_hist h;
    CHECK_OK(ctx, spx_teb_sort_rows(ctx, A->rowptr, 8, ord, &h));
    static const int32_t sorted[] = {7, 0, 2, 3, 5, 1, 4, 6}; /* descending, ties by index */
    CHECK(!memcmp(ord, sorted, sizeof sorted));
    CHECK(h.d == 4 && h.rows == 8 && h.nnz == 16 && h.len[0] == 4 && h.cnt[2] == 3 && h.cnt[3] == 3);
    int64_t rem[4], steps = 0;
    CHECK(spx_teb_simulate(&h, 4, 1.0, rem, &steps) == 0.0);
    CHECK(steps > 0);
    spx_teb_hist_free(ctx, &h);
    spx_csr_destroy(&A);
}

/* S^2 of Algorithm 2 computed row by row on the expanded sorted lengths (the reference). */
static double naive_merge_var(const int64_t *len, int64_t rows, int64_t nnz, int64_t bln, double k)
{
    const int64_t T = (int64_t)floor(spx_teb_threshold(nnz, bln, k));
    const double avg = (double)nnz / (double)bln;
    int64_t b = 0, e = rows - 1;
    double acc = 0.0;
    for (int64_t i = 0; i < bln; i++) {
        int64_t s = 0;
        if (b <= e && i == bln - 1) {
            while (b <= e) s += len[b++];
        } else if (b <= e) {
            s = len[b++];
            while (b <= e && s + len[e] <= T) s += len[e--];
        }
        acc += ((double)s - avg) * ((double)s - avg);
    }
    return acc / (double)bln;
}

/* The O(d + bLN) simulation equals the row-by-row merge on random histograms. */
static void test_simulation_matches_rows(void)
{
    uint64_t seed = 11;
    for (int trial = 0; trial < 300; trial++) {
        int64_t lens[64], cnts[64], d = 1 + (int64_t)(spx_splitmix64(&seed) % 12), rows = 0, nnz = 0;
        int64_t l = 1 + (int64_t)(spx_splitmix64(&seed) % 50);
        for (int64_t j = d - 1; j >= 0; j--) { /* ascending from the end: strictly descending */
            lens[j] = l;
            l += 1 + (int64_t)(spx_splitmix64(&seed) % 40);
            cnts[j] = 1 + (int64_t)(spx_splitmix64(&seed) % 30);
            rows += cnts[j];
            nnz += lens[j] * cnts[j];
        }
        int64_t *expanded = malloc(sizeof *expanded * (size_t)rows), p = 0;
        for (int64_t j = 0; j < d; j++)
            for (int64_t c = 0; c < cnts[j]; c++) expanded[p++] = lens[j];
        spx_teb_hist h = {d, lens, cnts, rows, nnz};
        const int64_t bln = 1 + (int64_t)(spx_splitmix64(&seed) % (uint64_t)rows);
        static const double ks[] = {1.0, 1.005, 1.01, 1.03, 1.3};
        const double k = ks[trial % 5];
        int64_t rem[64], steps = 0;
        const double v = spx_teb_simulate(&h, bln, k, rem, &steps), ref = naive_merge_var(expanded, rows, nnz, bln, k);
        CHECK_MSG(fabs(v - ref) <= 1e-9 * (1.0 + ref), "trial %d: bLN %lld k %g: simulated %g, rows %g", trial,
                  (long long)bln, k, v, ref);
        CHECK_MSG(steps <= 3 * (d + bln) + 2, "trial %d: %lld steps for d %lld bLN %lld", trial, (long long)steps,
                  (long long)d, (long long)bln);
        free(expanded);
    }
}

/* The decision tree of Fig. 11 and the reading of "eq. 7 never held". */
static void test_decision_tree(void)
{
    CHECK(spx_teb_k_for(1000, 5, 10) == SPX_TEB_K_NEAR);  /* AVG 200 > AVG_crit 100 */
    CHECK(spx_teb_k_for(1000, 15, 10) == SPX_TEB_K_MID);  /* 66.7 > 50 */
    CHECK(spx_teb_k_for(1000, 20, 10) == SPX_TEB_K_FAR);  /* 50 = 50: not above */
    CHECK(spx_teb_k_for(1000, 40, 10) == SPX_TEB_K_FAR);
    CHECK(spx_teb_k_for(1000, 40, 0) == SPX_TEB_K_NEAR);
}

/* Whether r's row (original index) is long, short or empty: 2, 1, 0. */
static int row_class(const spx_csr *A, int32_t i)
{
    const int64_t l = A->rowptr[i + 1] - A->rowptr[i];
    return l >= SPX_TEB_LONG_ROW ? 2 : l > 0;
}

/* The layout's invariants (teb.h) on F built from A. */
static void check_layout(const spx_teb_fmt *F, const spx_csr *A, const char *what)
{
    CHECK_MSG(F->m == A->m && F->nnz == A->nnz, "%s: sizes", what);
    CHECK_MSG(F->m == 0 ? F->n_blocks == 0 : F->n_blocks >= 1, "%s: %d blocks for %d rows", what, F->n_blocks, F->m);
    unsigned char *seen = calloc((size_t)A->m + 1, 1);
    int ok = 1;
    for (int32_t r = 0; r < F->m && ok; r++) {
        const int32_t i = F->row_orig[r];
        ok = i >= 0 && i < A->m && !seen[i] && F->row_off[r + 1] - F->row_off[r] == A->rowptr[i + 1] - A->rowptr[i];
        if (ok) seen[i] = 1;
    }
    CHECK_MSG(ok, "%s: row_orig is not a permutation with matching lengths", what);
    free(seen);
    CHECK_MSG(F->row_off[0] == 0 && F->row_off[F->m] == F->nnz, "%s: row_off ends", what);
    CHECK_MSG(F->blk_row[0] == 0 && F->blk_row[F->n_blocks] == F->m, "%s: blk_row ends", what);
    const int64_t T = (int64_t)floor(F->choice.threshold);
    for (int32_t b = 0; b < F->n_blocks && ok; b++) {
        const int32_t r0 = F->blk_row[b], rl = F->blk_long[b], r1 = F->blk_row[b + 1];
        ok = r0 <= rl && rl <= r1;
        int cls = 2; /* long rows, then short, then empty */
        for (int32_t r = r0; r < r1 && ok; r++) {
            const int c = row_class(A, F->row_orig[r]);
            ok = c <= cls && (c == 2) == (r < rl);
            cls = c;
        }
        const int64_t s = (int64_t)F->row_off[r1] - F->row_off[r0];
        int64_t longest = 0;
        for (int32_t r = r0; r < r1; r++)
            if (F->row_off[r + 1] - F->row_off[r] > longest) longest = F->row_off[r + 1] - F->row_off[r];
        if (ok) ok = s <= T || s == longest; /* the last block too: the overflow is split */
        CHECK_MSG(ok, "%s: block %d (rows %d..%d, long to %d, %lld nonzeros, threshold %lld)", what, b, r0, r1, rl,
                  (long long)s, (long long)T);
    }
    CHECK_MSG(F->n_blocks == (F->m ? F->choice.bln + F->overflow_blocks : 0), "%s: %d blocks, bLN %lld + %lld overflow",
              what, F->n_blocks, (long long)F->choice.bln, (long long)F->overflow_blocks);
    /* the selection's S^2 models Algorithm 2's last block: the layout's equals it without overflow */
    if (F->overflow_blocks == 0)
        CHECK_MSG(fabs(F->block_var - F->choice.var) <= 1e-9 * (1.0 + F->block_var), "%s: layout S^2 %g, selection %g",
                  what, F->block_var, F->choice.var);
}

static int64_t len_powerish(int32_t i, int32_t m, int32_t n)
{
    (void)m;
    (void)n;
    return i % 97 == 0 ? 300 + i % 700 : i % 5 == 0 ? 0 : 1 + (i * 31) % 13;
}
static int64_t len_two(int32_t i, int32_t m, int32_t n) { (void)i; (void)m; (void)n; return 2; }
static int64_t len_one_huge(int32_t i, int32_t m, int32_t n) { (void)m; return i == 3 ? n : 1 + i % 4; }

/* Layout invariants and selection on several shapes, built by selection and by force. */
static void test_layouts(spx_ctx *ctx)
{
    struct { const char *name; int32_t m, n; int64_t (*len)(int32_t, int32_t, int32_t); } cases[] = {
        {"skewed with empty rows", 30000, 4000, len_powerish},
        {"tall rows of 2", 200000, 1000, len_two},
        {"one row of 200k", 5000, 200000, len_one_huge},
        {"empty rows", 300, 300, tm_len_alt_empty},
        {"0x0", 0, 0, tm_len_const8},
        {"5x0", 5, 0, tm_len_const8},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        spx_csr *A = tm_make(ctx, cases[c].m, cases[c].n, cases[c].len, 5 + c);
        CHECK(A != NULL);
        if (!A) continue;
        spx_teb_fmt *F = NULL;
        CHECK_OK(ctx, spx_teb_fmt_build(ctx, A, SPX_FP64, NULL, NULL, NULL, &F));
        if (F) {
            check_layout(F, A, cases[c].name);
            const spx_teb_choice *ch = &F->choice;
            if (F->m > 0)
                CHECK_MSG(ch->bln >= ch->bln_lo && ch->bln <= ch->bln_hi, "%s: bLN %lld outside %lld..%lld",
                          cases[c].name, (long long)ch->bln, (long long)ch->bln_lo, (long long)ch->bln_hi);
            CHECK(F->algo == SPX_TEB_AUTO_ALGO);
            spx_teb_fmt_destroy(ctx, F);
        }
        if (A->m >= 8) { /* forced, as the paper's: fewer blocks, each k */
            spx_teb_choice force = {.bln = 7, .k = 1.03};
            F = NULL;
            CHECK_OK(ctx, spx_teb_fmt_build(ctx, A, SPX_FP32, "warp-long", &force, NULL, &F));
            if (F) check_layout(F, A, cases[c].name);
            spx_teb_fmt_destroy(ctx, F);
        }
        spx_csr_destroy(&A);
    }
}

/* On irregular rows (none beyond Threshold) TEB's blocks are more even than an equal-rows
 * split of the same count. */
static void test_balance_vs_equal_rows(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:rmat:scale=16,ef=8", &A));
    if (!A) return;
    spx_teb_fmt *F = NULL;
    CHECK_OK(ctx, spx_teb_fmt_build(ctx, A, SPX_FP64, NULL, NULL, NULL, &F));
    if (F) {
        check_layout(F, A, "rmat 16");
        CHECK_MSG(F->block_var < 0.5 * F->eq_var, "rmat: S^2 %g against equal rows %g", F->block_var, F->eq_var);
        CHECK(F->choice.n_candidates > 1);
    }
    spx_teb_fmt_destroy(ctx, F);
    spx_csr_destroy(&A);
}

/* Bad forced choices are refused with SPX_ERR_ARG, as unknown algorithms. */
static void test_bad_args(spx_ctx *ctx)
{
    spx_csr *A = paper_matrix(ctx);
    if (!A) return;
    spx_teb_fmt *F = NULL;
    spx_teb_choice too_many = {.bln = 9, .k = 1.0}, bad_k = {.bln = 2, .k = 0.0};
    CHECK(spx_teb_fmt_build(ctx, A, SPX_FP64, NULL, &too_many, NULL, &F) == SPX_ERR_ARG && !F);
    CHECK(spx_teb_fmt_build(ctx, A, SPX_FP64, NULL, &bad_k, NULL, &F) == SPX_ERR_ARG && !F);
    CHECK(spx_teb_fmt_build(ctx, A, SPX_FP64, "block", NULL, NULL, &F) == SPX_ERR_ARG && !F);
    spx_csr_destroy(&A);
}

/* The plan reports the layout's figures; every algorithm runs correctly on the CPU. */
static void test_plan_stats(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:rmat:scale=12,ef=8", &A));
    if (!A) return;
    static const char *algos[] = {"auto", "thread", "warp-long"};
    for (int a = 0; a < 3; a++) fc_check(ctx, A, "teb", algos[a], SPX_BACKEND_CPU, SPX_FP64, "rmat 12");
    spx_plan_opts o = {.format = "teb", .backend = SPX_BACKEND_CPU, .precision = SPX_FP64};
    spx_plan *p = NULL;
    CHECK_OK(ctx, spx_plan_create(ctx, A, &o, &p));
    spx_plan_info pi;
    if (p && spx_plan_get_info(p, &pi) == SPX_OK) {
        static const char *keys[] = {"bLN", "k", "threshold", "block_nnz_var", "eqrows_nnz_var", "max_row"};
        for (int k = 0; k < 6; k++) {
            int found = 0;
            for (int i = 0; i < pi.n_stats; i++) found |= !strcmp(pi.stats[i].key, keys[k]);
            CHECK_MSG(found, "stat %s missing", keys[k]);
        }
    }
    spx_plan_destroy(&p);
    spx_csr_destroy(&A);
}

/* Scalability without timing: ~500k rows and ~680M nonzeros as a histogram (no matrix); the
 * selection evaluates a bounded number of block counts, each in O(distinct lengths + bLN). */
static void test_selection_scales(spx_ctx *ctx)
{
    enum { D = 2000 };
    int64_t *len = malloc(sizeof *len * D), *cnt = malloc(sizeof *cnt * D);
    spx_teb_hist h = {D, len, cnt, 0, 0};
    for (int64_t j = 0; j < D; j++) { /* power-law-ish: lengths 4000..2, counts growing */
        len[j] = 2 * (D - j);
        cnt[j] = 1 + (j * j * j) / 400000000 + j / 4;
        h.rows += cnt[j];
        h.nnz += len[j] * cnt[j];
    }
    spx_teb_choice c;
    CHECK_OK(ctx, spx_teb_select(ctx, &h, 2, &c));
    CHECK_MSG(h.nnz > 100000000, "histogram of %lld nonzeros", (long long)h.nnz);
    CHECK(c.n_candidates <= SPX_TEB_CANDIDATES + SPX_TEB_CRIT_CANDIDATES + 2);
    const int64_t bound = (int64_t)c.n_candidates * 2 * 3 * (D + c.bln_hi + 2);
    CHECK_MSG(c.steps <= bound, "%lld steps over %d candidates (bound %lld)", (long long)c.steps, c.n_candidates,
              (long long)bound);
    CHECK(c.bln >= c.bln_lo && c.bln <= c.bln_hi && c.bln_hi <= h.nnz / SPX_TEB_MIN_BLOCK_NNZ + 1);
    CHECK(c.bln_lo == (int64_t)SPX_TEB_SM_COUNT * SPX_TEB_MIN_BLOCKS_PER_SM);
    printf("  selection on %lld rows, %lld nonzeros: bLN %lld (%lld..%lld), k %.3f, %d candidates, %lld steps\n",
           (long long)h.rows, (long long)h.nnz, (long long)c.bln, (long long)c.bln_lo, (long long)c.bln_hi, c.k,
           c.n_candidates, (long long)c.steps);
    free(len);
    free(cnt);
}

int main(void)
{
    spx_ctx *ctx = NULL;
    spx_ctx_opts co = {.backend = SPX_BACKEND_CPU};
    if (spx_ctx_create(&ctx, &co)) return 1;
    test_worked_example(ctx);
    test_simulation_matches_rows();
    test_decision_tree();
    test_layouts(ctx);
    test_balance_vs_equal_rows(ctx);
    test_bad_args(ctx);
    test_plan_stats(ctx);
    test_selection_scales(ctx);
    spx_ctx_destroy(&ctx);
    return check_report();
}
