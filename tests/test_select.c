/* tests/test_select.c: format "auto": the selection is a format this build runs (with one of
 * its algorithms) for edge cases and generated matrices on both backends and precisions, it
 * follows expected_spmvs where the committed table (src/select/select_rules.inc) tells the
 * counts apart, and bad options are refused. */
#include <string.h>

#include "check.h"
#include "spx/spx.h"

/* Whether sel names a registered format that runs on sel's backend, with a listed algorithm. */
static int runnable(const spx_selection *sel)
{
    for (int i = 0; i < spx_format_count(); i++) {
        spx_format_desc d;
        if (spx_format_describe(i, &d) || strcmp(d.name, sel->format)) continue;
        int on = sel->backend == SPX_BACKEND_CUDA ? d.has_cuda : d.has_cpu;
        int algo_ok = !strcmp(sel->algo, "auto");
        for (int k = 0; d.algos && d.algos[k]; k++) algo_ok |= !strcmp(d.algos[k], sel->algo);
        return d.available && on && algo_ok;
    }
    return 0;
}

/* Checks every backend, precision and SpMV count selects something runnable for A. */
static void check_all_choices(spx_ctx *ctx, const spx_csr *A, const char *what)
{
    const spx_backend backends[] = {SPX_BACKEND_CPU, SPX_BACKEND_CUDA};
    const spx_precision precs[] = {SPX_FP64, SPX_FP32};
    const int64_t counts[] = {0, 1, 7, 100, 10000, 1000000000000LL};
    for (int b = 0; b < 2; b++)
        for (int p = 0; p < 2; p++)
            for (int c = 0; c < 6; c++) {
                spx_plan_opts o = {.backend = backends[b], .precision = precs[p], .expected_spmvs = counts[c]};
                spx_selection sel;
                CHECK_OK(ctx, spx_plan_select(ctx, A, &o, &sel));
                /* a build without CUDA runs nothing on the CUDA backend: the last resort, csr/auto */
                CHECK_MSG(runnable(&sel) || (backends[b] == SPX_BACKEND_CUDA && !spx_cuda_compiled() &&
                                             !strcmp(sel.format, "csr") && !strcmp(sel.algo, "auto")),
                          "%s: %s/%s", what, sel.format, sel.algo);
                CHECK(sel.why[0] != '\0');
                CHECK(sel.expected_spmvs == (counts[c] ? counts[c] : SPX_SELECT_DEFAULT_SPMVS));
                if (backends[b] == SPX_BACKEND_CPU) CHECK(!strcmp(sel.format, "csr") && !strcmp(sel.algo, "auto"));
            }
}

/* Edge cases (no rows, no entries, one entry, empty rows) and one generated matrix per family. */
static void test_runnable(spx_ctx *ctx)
{
    const char *specs[] = {"gen:banded:m=2000,bw=4", "gen:poisson2d:n=40", "gen:stencil27:n=10",
                           "gen:rmat:scale=10,ef=8", "gen:powerlaw:m=3000,k=8", "gen:uniform:m=3000,k=8",
                           "gen:wide:m=8,n=5000", "gen:tall:m=5000,n=10,k=2"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        spx_csr *A = NULL;
        CHECK_OK(ctx, spx_gen(ctx, specs[i], &A));
        if (A) check_all_choices(ctx, A, specs[i]);
        spx_csr_destroy(&A);
    }
    const int32_t dims[][2] = {{0, 0}, {1, 1}, {5, 0}, {0, 5}, {100, 3}};
    for (int i = 0; i < 5; i++) {
        spx_csr *A = NULL;
        CHECK_OK(ctx, spx_csr_alloc(ctx, dims[i][0], dims[i][1], 0, &A));
        if (A) check_all_choices(ctx, A, "no entries");
        spx_csr_destroy(&A);
    }
}

/* Expects A's CUDA choice in precision p for n SpMVs to be format/algo. */
static void expect_choice(spx_ctx *ctx, const spx_csr *A, spx_precision p, int64_t n, const char *format,
                          const char *algo)
{
    spx_plan_opts o = {.backend = SPX_BACKEND_CUDA, .precision = p, .expected_spmvs = n};
    spx_selection sel;
    CHECK_OK(ctx, spx_plan_select(ctx, A, &o, &sel));
    CHECK_MSG(!strcmp(sel.format, format) && !strcmp(sel.algo, algo), "%s, n=%lld: %s/%s, want %s/%s (%s)",
              p == SPX_FP32 ? "fp32" : "fp64", (long long)n, sel.format, sel.algo, format, algo, sel.why);
    CHECK(sel.runner_format[0] != '\0');
}

/* Leaves of the committed trees. fp64: csr/auto at 1 SpMV; at 100 and 10000 (counts between
 * take the tree nearest on a log scale; 0 means the default, 100) poisson2d n=350 (columns
 * spread over a band of ~400) takes csr/auto and uniform m=2200000 k=1 (random columns:
 * spread_cols 2.2e6 > 2.1e6) hbp. fp32 at 1 SpMV: poisson2d n=350 (611100 entries > 210000)
 * cuSPARSE ALG2, poisson2d n=50 (2500 rows) csr/auto, wide m=64 (64 rows <= 120) teb; at 100
 * uniform 2.2M csr/auto (spread_cols <= 4.2e6), uniform 4.4M hbp. Needs the CUDA formats
 * (cusparse, hbp, teb) here. */
static void test_expected_spmvs(spx_ctx *ctx)
{
    spx_format_desc d;
    for (int i = 0; i < spx_format_count(); i++)
        if (!spx_format_describe(i, &d) && !strcmp(d.name, "cusparse") && !(d.available && d.has_cuda)) return;
    spx_csr *A = NULL, *U = NULL, *S = NULL, *R = NULL, *W = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:poisson2d:n=350", &A));
    CHECK_OK(ctx, spx_gen(ctx, "gen:uniform:m=4400000,k=1", &U));
    CHECK_OK(ctx, spx_gen(ctx, "gen:poisson2d:n=50", &S));
    CHECK_OK(ctx, spx_gen(ctx, "gen:uniform:m=2200000,k=1", &R));
    CHECK_OK(ctx, spx_gen(ctx, "gen:wide:m=64,n=5000,k=1000", &W));
    if (A) {
        const int64_t counts[] = {1, 9, 0, 100, 10000, 2000};
        for (int c = 0; c < 6; c++) expect_choice(ctx, A, SPX_FP64, counts[c], "csr", "auto");
        expect_choice(ctx, A, SPX_FP32, 1, "cusparse", "alg2");
        expect_choice(ctx, A, SPX_FP32, 100, "csr", "auto");
    }
    if (S) expect_choice(ctx, S, SPX_FP32, 1, "csr", "auto");
    if (W) expect_choice(ctx, W, SPX_FP32, 1, "teb", "auto");
    if (R) {
        expect_choice(ctx, R, SPX_FP64, 1, "csr", "auto");
        expect_choice(ctx, R, SPX_FP64, 100, "hbp", "auto");
        expect_choice(ctx, R, SPX_FP64, 10000, "hbp", "auto");
        expect_choice(ctx, R, SPX_FP32, 100, "csr", "auto");
    }
    if (U) expect_choice(ctx, U, SPX_FP32, 100, "hbp", "auto");
    spx_csr_destroy(&A);
    spx_csr_destroy(&W);
    spx_csr_destroy(&U);
    spx_csr_destroy(&S);
    spx_csr_destroy(&R);
}

/* A negative expected_spmvs is refused by spx_plan_select and spx_plan_create; an auto CPU
 * plan is csr. */
static void test_plan_auto(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:poisson2d:n=20", &A));
    if (!A) return;
    spx_selection sel;
    spx_plan *p = NULL;
    spx_plan_opts bad = {.backend = SPX_BACKEND_CPU, .expected_spmvs = -1};
    CHECK(spx_plan_select(ctx, A, &bad, &sel) == SPX_ERR_ARG);
    CHECK(spx_plan_create(ctx, A, &bad, &p) == SPX_ERR_ARG && p == NULL);
    spx_plan_opts o = {.format = "auto", .backend = SPX_BACKEND_CPU, .expected_spmvs = 1};
    CHECK_OK(ctx, spx_plan_create(ctx, A, &o, &p));
    spx_plan_info pi;
    if (p) CHECK_OK(ctx, spx_plan_get_info(p, &pi));
    if (p) CHECK(!strcmp(pi.format, "csr"));
    spx_plan_destroy(&p);
    spx_csr_destroy(&A);
}

int main(void)
{
    spx_ctx *ctx = NULL;
    if (spx_ctx_create(&ctx, NULL)) return 1;
    test_runnable(ctx);
    test_expected_spmvs(ctx);
    test_plan_auto(ctx);
    spx_ctx_destroy(&ctx);
    return check_report();
}
