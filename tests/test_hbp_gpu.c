/* tests/test_hbp_gpu.c: the hbp layout built on the GPU (hbp_build_cuda.cu) against the host
 * build, array by array (downloaded), for `hash` and `sort`, fp64 and fp32, on the docs'
 * worked example, generated matrices with small and default tiles, the DESIGN §8 edge cases
 * and a 64 x 1,000,000 matrix; plus the phases it records and a device-built plan's stats;
 * and the band layout's device build against its host build, plain and hot (numbering, band
 * entries, the rule on a skewed and an even matrix).
 * Skips (77) without a GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format_check.h"
#include "matrices.h"
#include "cuda/gateway.h"
#include "formats/hbp/hbp_cuda.h"
#include "hbp_check.h"
#include "spx/spx.h"

static const char *const ALGOS[2] = {"hash", "sort"};

/* Whether the log holds a phase of that name. */
static int has_phase(const spx_phase_log *log, const char *name)
{
    for (int i = 0; i < log->n; i++)
        if (!strcmp(log->phases[i].name, name)) return 1;
    return 0;
}

/* Whether a and b agree to a relative 1e-9 (the device sums the balance in another order). */
static int close_to(double a, double b) { return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b)) + 1e-12; }

/* The header fields and every array of the host layout F and the downloaded device layout G
 * are identical; the "after" balance agrees, the "before" one is NaN. */
static void compare_layouts(spx_hbp_fmt *F, spx_hbp_fmt *G, const char *label)
{
    int head = F->m == G->m && F->n == G->n && F->nnz == G->nnz && F->precision == G->precision &&
               F->algo == G->algo && F->H == G->H && F->W == G->W && F->n_panels == G->n_panels &&
               F->n_colblocks == G->n_colblocks && F->n_tiles == G->n_tiles && F->n_groups == G->n_groups &&
               F->n_slots == G->n_slots && F->agg_shift == G->agg_shift;
    CHECK_MSG(head, "%s: headers differ (tiles %lld/%lld, groups %lld/%lld, slots %lld/%lld, a %d/%d, %dx%d/%dx%d)",
              label, (long long)F->n_tiles, (long long)G->n_tiles, (long long)F->n_groups, (long long)G->n_groups,
              (long long)F->n_slots, (long long)G->n_slots, F->agg_shift, G->agg_shift, F->H, F->W, G->H, G->W);
    if (!head) return;
    static const char *const names[SPX_HBP_N_ARRAYS] = {"panel_tile", "tile_colblock", "tile_slot",
                                                        "tile_group", "group_nnz",     "slot_row",
                                                        "slot_len",   "col",           "values"};
    void **pf[SPX_HBP_N_ARRAYS], **pg[SPX_HBP_N_ARRAYS];
    int64_t cf[SPX_HBP_N_ARRAYS], cg[SPX_HBP_N_ARRAYS];
    size_t zf[SPX_HBP_N_ARRAYS], zg[SPX_HBP_N_ARRAYS];
    spx_hbp_arrays(F, pf, cf, zf);
    spx_hbp_arrays(G, pg, cg, zg);
    for (int i = 0; i < SPX_HBP_N_ARRAYS; i++) {
        size_t bytes = (size_t)cf[i] * zf[i];
        CHECK_MSG(bytes == 0 || !memcmp(*pf[i], *pg[i], bytes), "%s: %s differs between host and device builds",
                  label, names[i]);
    }
    CHECK_MSG(close_to(F->balance_after, G->balance_after) && close_to(F->lane_util_after, G->lane_util_after),
              "%s: balance after %g/%g, lane utilisation %g/%g", label, F->balance_after, G->balance_after,
              F->lane_util_after, G->lane_util_after);
    CHECK_MSG(isnan(G->balance_before) && isnan(G->lane_util_before), "%s: device build reports a before balance",
              label);
}

/* Builds A on the host and on the device with (algo, H, W) in prec and compares them. */
static void compare_one(spx_ctx *ctx, const spx_csr *A, const spx_features *feat, spx_precision prec,
                        const char *algo, int32_t H, int32_t W, const char *what)
{
    char label[200];
    snprintf(label, sizeof label, "%s %s %s %dx%d", what, algo, prec == SPX_FP32 ? "fp32" : "fp64", H, W);
    spx_hbp_fmt *F = NULL, *G = NULL, L;
    spx_dev_csr D;
    spx_phase_log log = {0};
    memset(&D, 0, sizeof D);
    memset(&L, 0, sizeof L);
    CHECK_OK(ctx, spx_hbp_fmt_build(ctx, A, feat, prec, algo, H, W, &F));
    CHECK_OK(ctx, spx_cuda_dev_csr_upload(ctx, A, prec, &D));
    spx_status s = spx_hbp_dev_build(ctx, &D, feat, algo, H, W, &log, &L);
    CHECK_MSG(s == SPX_OK, "%s: device build: %s: %s", label, spx_status_str(s), spx_ctx_last_error(ctx));
    if (!s) {
        CHECK_OK(ctx, spx_hbp_dev_download(ctx, &L, &G));
        CHECK_MSG(has_phase(&log, "count") && has_phase(&log, !strcmp(algo, "sort") ? "sort" : "hash") &&
                      has_phase(&log, "convert"),
                  "%s: phases missing (%d recorded)", label, log.n);
    }
    if (F && G) compare_layouts(F, G, label);
    spx_hbp_dev_free(ctx, &L);
    spx_cuda_dev_csr_free(ctx, &D);
    spx_hbp_fmt_destroy(ctx, F);
    spx_hbp_fmt_destroy(ctx, G);
}

/* Both algorithms (and, when both_prec, both precisions) of A with tiles H x W. */
static void compare_all(spx_ctx *ctx, const spx_csr *A, int32_t H, int32_t W, int both_prec, const char *what)
{
    spx_features feat;
    CHECK_OK(ctx, spx_features_compute(A, &feat));
    for (int a = 0; a < 2; a++) {
        compare_one(ctx, A, &feat, SPX_FP64, ALGOS[a], H, W, what);
        if (both_prec) compare_one(ctx, A, &feat, SPX_FP32, ALGOS[a], H, W, what);
    }
}

/* The docs' worked example: 4 x 6, tiles 32 x 4. */
static void test_worked_example(spx_ctx *ctx)
{
    spx_csr *A = tm_worked_example(ctx);
    CHECK(A != NULL);
    if (!A) return;
    compare_all(ctx, A, 32, 4, 1, "worked example");
    spx_csr_destroy(&A);
}

/* Generated matrices with small tiles (many tiles, partial groups) and the shape rule's. */
static void test_generated(spx_ctx *ctx)
{
    static const char *specs[] = {"gen:rmat:scale=12,ef=8", "gen:powerlaw:m=5000,k=6", "gen:poisson2d:n=60",
                                  "gen:uniform:m=3000,n=200000,k=9"};
    static const int32_t shapes[][2] = {{32, 16}, {64, 256}, {96, 1}, {512, 4096}, {0, 0}};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        spx_csr *A = NULL;
        CHECK_OK(ctx, spx_gen(ctx, specs[i], &A));
        for (size_t s = 0; A && s < sizeof shapes / sizeof shapes[0]; s++)
            compare_all(ctx, A, shapes[s][0], shapes[s][1], s == 0 || s == 4, specs[i]);
        spx_csr_destroy(&A);
    }
}

/* DESIGN §8 edge cases (0 x 0, empty rows, a dense row, ...) with small and default tiles. */
static void test_edge_cases(spx_ctx *ctx)
{
    for (int c = 0; c < TM_N_EDGE; c++) {
        spx_csr *A = tm_make(ctx, tm_edge_cases[c].m, tm_edge_cases[c].n, tm_edge_cases[c].len, 11 + (uint64_t)c);
        CHECK_MSG(A != NULL, "%s: could not make the matrix", tm_edge_cases[c].name);
        if (A) compare_all(ctx, A, 32, 64, 0, tm_edge_cases[c].name);
        if (A) compare_all(ctx, A, 0, 0, 0, tm_edge_cases[c].name);
        spx_csr_destroy(&A);
    }
}

/* Row lengths of the wide case: a few very long rows, empty ones, short ones. */
static int64_t len_wide(int32_t i, int32_t m, int32_t n)
{
    (void)m;
    return i % 16 == 0 ? n / 3 : i % 5 == 0 ? 0 : 1 + (i * 37) % 200;
}

/* 64 x 1,000,000 (one panel, long rows spread over hundreds of column blocks). */
static void test_wide(spx_ctx *ctx)
{
    spx_csr *A = tm_make(ctx, 64, 1000000, len_wide, 99);
    CHECK(A != NULL);
    if (A) compare_all(ctx, A, 0, 0, 1, "64 x 1000000");
    if (A) compare_all(ctx, A, 64, 32768, 0, "64 x 1000000");
    spx_csr_destroy(&A);
}

/* A plan built on the device reports hbp's stats (finite numbers or text) and its phases. */
static void test_plan_info(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:powerlaw:m=4000,k=8", &A));
    if (!A) return;
    for (int a = 0; a < 2; a++) {
        spx_plan_opts o = {.format = "hbp", .algo = ALGOS[a], .backend = SPX_BACKEND_CUDA, .build = SPX_BUILD_DEVICE};
        spx_plan *p = NULL;
        CHECK_OK(ctx, spx_plan_create(ctx, A, &o, &p));
        if (!p) continue;
        spx_plan_info pi;
        CHECK_OK(ctx, spx_plan_get_info(p, &pi));
        CHECK(pi.built_on_device && !strcmp(pi.algo, ALGOS[a]));
        int tiles = 0, before_text = 0, phases = 0;
        for (int i = 0; i < pi.n_stats; i++) {
            CHECK_MSG(pi.stats[i].key[0] && isfinite(pi.stats[i].value), "stat %d ('%s')", i, pi.stats[i].key);
            tiles |= !strcmp(pi.stats[i].key, "tiles") && pi.stats[i].value > 0;
            before_text |= !strcmp(pi.stats[i].key, "group_stddev_before") && pi.stats[i].text[0];
        }
        for (int i = 0; i < pi.n_phases; i++)
            phases += !strcmp(pi.phases[i].name, "count") || !strcmp(pi.phases[i].name, ALGOS[a]) ||
                      !strcmp(pi.phases[i].name, "convert");
        CHECK_MSG(tiles && before_text, "%s: device-built plan's stats incomplete", ALGOS[a]);
        CHECK_MSG(phases == 3, "%s: device-built plan records %d of the 3 build phases", ALGOS[a], phases);
        spx_plan_destroy(&p);
    }
    spx_csr_destroy(&A);
}

/* The device's band parts and numbering equal the host's: each band's entries, and col_of. */
static int same_parts(spx_ctx *ctx, const spx_hbp_bands *h, const spx_hbp_bands_dev *G)
{
    spx_csr **parts = calloc((size_t)h->count, sizeof *parts);
    int32_t *col_of = NULL;
    int same = parts && spx_hbp_bands_dev_download(ctx, G, parts, &col_of) == SPX_OK;
    same = same && (col_of != NULL) == (h->col_of != NULL);
    for (int32_t j = 0; same && h->col_of && j < h->cols; j++) same = col_of[j] == h->col_of[j];
    for (int32_t k = 0; same && k < h->count; k++) {
        spx_csr *p = NULL;
        same = spx_csr_fmt_to_csr(ctx, h->band[k], &p) == SPX_OK && spx_csr_equal(p, parts[k]);
        spx_csr_destroy(&p);
    }
    for (int32_t k = 0; parts && k < h->count; k++) spx_csr_destroy(&parts[k]);
    free(parts);
    spx_free(ctx, col_of);
    return same;
}

/* The bands of A (algorithm algo: band, hot or auto; width W, 0: the rules') built on the
 * device equal the host build's: the same headers (numbering, sizes, row statistics, csr
 * algorithms), the same numbering and band entries, and both round trips give A (test_gpu runs
 * the SpMV through plans of either build); want_hot >= 0: the device build renumbered or not. */
static void compare_bands(spx_ctx *ctx, const spx_csr *A, spx_precision prec, const char *algo, int32_t W,
                          int want_hot, const char *what)
{
    char label[200];
    snprintf(label, sizeof label, "%s %s %s W=%d", what, algo, prec == SPX_FP32 ? "fp32" : "fp64", W);
    spx_hbp_fmt *F = NULL;
    spx_hbp_bands_dev *G = NULL;
    spx_dev_csr D;
    spx_phase_log log = {0};
    memset(&D, 0, sizeof D);
    CHECK_OK(ctx, spx_hbp_fmt_build(ctx, A, NULL, prec, algo, 0, W, &F));
    CHECK_OK(ctx, spx_cuda_dev_csr_upload(ctx, A, prec, &D));
    const spx_hbp_hot_mode mode = spx_hbp_hot_mode_of(spx_hbp_algo_from_name(algo));
    spx_status s = spx_hbp_bands_dev_build(ctx, &D, W, NULL, mode, &log, &G);
    CHECK_MSG(s == SPX_OK, "%s: device build: %s: %s", label, spx_status_str(s), spx_ctx_last_error(ctx));
    if (F && G && F->bands) {
        const spx_hbp_bands *h = F->bands, *g = spx_hbp_bands_dev_header(G);
        int same = h->count == g->count && h->width == g->width && h->m == g->m && h->n == g->n &&
                   h->hot == g->hot && h->cols == g->cols;
        for (int32_t k = 0; same && k < h->count; k++)
            same = h->band[k]->nnz == g->band[k]->nnz && h->band[k]->n == g->band[k]->n &&
                   h->band[k]->algo == g->band[k]->algo && h->band[k]->row_max == g->band[k]->row_max &&
                   h->band[k]->row_mean == g->band[k]->row_mean && h->band[k]->row_cv == g->band[k]->row_cv;
        CHECK_MSG(same, "%s: band headers differ between host and device builds", label);
        CHECK_MSG(want_hot < 0 || g->hot == want_hot, "%s: the device build %s", label,
                  g->hot ? "renumbered" : "did not renumber");
        CHECK_MSG(same && same_parts(ctx, h, G), "%s: numbering or band entries differ between the builds", label);
        CHECK_MSG(has_phase(&log, "convert"), "%s: no convert phase", label);
        spx_csr *Bh = NULL, *Bg = NULL;
        CHECK_OK(ctx, spx_hbp_fmt_to_csr(ctx, F, &Bh));
        CHECK_OK(ctx, spx_hbp_bands_dev_to_csr(ctx, G, &Bg));
        if (Bh && Bg) {
            same = Bh->nnz == Bg->nnz && Bh->nnz == A->nnz;
            for (int32_t i = 0; same && i <= A->m; i++) same = Bh->rowptr[i] == Bg->rowptr[i];
            for (int64_t e = 0; same && e < A->nnz; e++)
                same = Bh->colind[e] == Bg->colind[e] && Bg->colind[e] == A->colind[e] && Bh->val[e] == Bg->val[e];
            CHECK_MSG(same, "%s: round trips differ from A", label);
        }
        spx_csr_destroy(&Bh);
        spx_csr_destroy(&Bg);
    }
    spx_hbp_bands_dev_free(ctx, G);
    spx_cuda_dev_csr_free(ctx, &D);
    spx_hbp_fmt_destroy(ctx, F);
}

/* A matrix whose rows are in reverse column order (spx_csr_wrap accepts it): the device build
 * sorts the rows first, so its bands read back as the sorted matrix, entry for entry. */
static void test_bands_unsorted(spx_ctx *ctx)
{
    spx_csr *A = NULL, *U = NULL, *B = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:rmat:scale=11,ef=8", &A));
    if (!A || spx_csr_alloc(ctx, A->m, A->n, A->nnz, &U) != SPX_OK) {
        spx_csr_destroy(&A);
        return;
    }
    memcpy(U->rowptr, A->rowptr, ((size_t)A->m + 1) * sizeof *U->rowptr);
    for (int32_t i = 0; i < A->m; i++)
        for (int64_t e = A->rowptr[i], f = A->rowptr[i + 1] - 1; e < A->rowptr[i + 1]; e++, f--) {
            U->colind[f] = A->colind[e];
            U->val[f] = A->val[e];
        }
    for (int p = 0; p < 2; p++) {
        spx_dev_csr D;
        memset(&D, 0, sizeof D);
        spx_hbp_bands_dev *G = NULL;
        const spx_precision prec = p ? SPX_FP32 : SPX_FP64;
        CHECK_OK(ctx, spx_cuda_dev_csr_upload(ctx, U, prec, &D));
        CHECK_OK(ctx, spx_hbp_bands_dev_build(ctx, &D, 96, NULL, SPX_HBP_HOT_NEVER, NULL, &G));
        if (G) CHECK_OK(ctx, spx_hbp_bands_dev_to_csr(ctx, G, &B));
        int same = B && B->nnz == A->nnz;
        for (int32_t i = 0; same && i <= A->m; i++) same = B->rowptr[i] == A->rowptr[i];
        for (int64_t e = 0; same && e < A->nnz; e++)
            same = B->colind[e] == A->colind[e] && B->val[e] == (p ? (double)(float)A->val[e] : A->val[e]);
        CHECK_MSG(same, "unsorted rows %s: device bands differ from the sorted matrix", p ? "fp32" : "fp64");
        spx_csr_destroy(&B);
        spx_hbp_bands_dev_free(ctx, G);
        spx_cuda_dev_csr_free(ctx, &D);
    }
    spx_csr_destroy(&U);
    spx_csr_destroy(&A);
}

/* Bands and hot bands on generated matrices and the edge cases: widths of 32, 100 (not
 * aligned), the rules' (band: at least two bands), fp64 and fp32; the hot rule (`auto`) on a
 * skewed matrix with x over one segment (renumbered) and an even one (not). */
static void test_bands(spx_ctx *ctx)
{
    static const char *specs[] = {"gen:rmat:scale=12,ef=8", "gen:uniform:m=3000,n=200000,k=9", "gen:wide:m=8,n=50000"};
    static const char *algos[] = {"band", "hot"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        spx_csr *A = NULL;
        CHECK_OK(ctx, spx_gen(ctx, specs[i], &A));
        const int32_t widths[] = {32, 100, 0};
        for (size_t w = 0; A && w < 3; w++)
            for (int a = 0; a < 2; a++)
                for (int p = 0; p < 2; p++)
                    compare_bands(ctx, A, p ? SPX_FP32 : SPX_FP64, algos[a], widths[w], a, specs[i]);
        spx_csr_destroy(&A);
    }
    for (int c = 0; c < TM_N_EDGE; c++) {
        spx_csr *A = tm_make(ctx, tm_edge_cases[c].m, tm_edge_cases[c].n, tm_edge_cases[c].len, 11 + (uint64_t)c);
        for (int a = 0; A && a < 2; a++) {
            compare_bands(ctx, A, SPX_FP64, algos[a], 32, a, tm_edge_cases[c].name);
            compare_bands(ctx, A, SPX_FP32, algos[a], 0, a, tm_edge_cases[c].name);
        }
        spx_csr_destroy(&A);
    }
    spx_csr *S = hbp_skewed_matrix(ctx, 3000, 2500000, 8, 6), *U = hbp_skewed_matrix(ctx, 3000, 2500000, 8, 0);
    for (int p = 0; p < 2; p++) {
        if (S) compare_bands(ctx, S, p ? SPX_FP32 : SPX_FP64, "auto", 0, !p, "skewed 3000 x 2.5M");
        if (U) compare_bands(ctx, U, p ? SPX_FP32 : SPX_FP64, "auto", 0, 0, "even 3000 x 2.5M");
    }
    spx_csr_destroy(&S);
    spx_csr_destroy(&U);
}

int main(void)
{
    spx_ctx *ctx = NULL;
    int rc = fc_gpu_ctx(&ctx);
    if (rc) return rc;
    test_worked_example(ctx);
    test_generated(ctx);
    test_edge_cases(ctx);
    test_wide(ctx);
    test_plan_info(ctx);
    test_bands(ctx);
    test_bands_unsorted(ctx);
    spx_ctx_destroy(&ctx);
    return check_report();
}
