/* tests/test_formats_cpu.c: every format with a CPU path, fp64 and fp32, on the edge cases of
 * DESIGN.md §8, on generated matrices and on the shared matrices; plus allocation-failure
 * injection on plan creation. */
#include <string.h>

#include "format_check.h"
#include "matrices.h"

static const spx_precision precisions[] = {SPX_FP64, SPX_FP32};

/* Runs fc_check for every CPU format and both precisions. */
static void check_all_formats(spx_ctx *ctx, const spx_csr *A, const char *what)
{
    for (int f = 0; f < spx_format_count(); f++) {
        spx_format_desc d;
        spx_format_describe(f, &d);
        if (!d.has_cpu) continue;
        if (!d.available) { /* a dependency is missing from this build: skipped, with the reason */
            printf("  %s: %s skipped: not built: %s\n", what, d.name, d.why_unavailable);
            continue;
        }
        for (int p = 0; p < 2; p++) fc_check(ctx, A, d.name, NULL, SPX_BACKEND_CPU, precisions[p], what);
    }
}

static void test_edge_cases(spx_ctx *ctx)
{
    for (int i = 0; i < TM_N_EDGE; i++) {
        const tm_case *c = &tm_edge_cases[i];
        spx_csr *A = tm_make(ctx, c->m, c->n, c->len, 7 + (uint64_t)i);
        CHECK_MSG(A != NULL, "%s: build", c->name);
        if (A) check_all_formats(ctx, A, c->name);
        spx_csr_destroy(&A);
    }
}

static int64_t len_million(int32_t i, int32_t m, int32_t n) { (void)m; return i == 0 ? n : 2; }

static void test_dense_row_1m(spx_ctx *ctx)
{
    spx_csr *A = tm_make(ctx, 64, 1000000, len_million, 3);
    CHECK(A && A->nnz == 1000000 + 63 * 2);
    if (A) check_all_formats(ctx, A, "one dense row of 1M entries");
    spx_csr_destroy(&A);
}

static void test_generated(spx_ctx *ctx)
{
    static const char *specs[] = {
        "gen:poisson2d:n=40", "gen:poisson3d:n=12", "gen:stencil27:n=9", "gen:rmat:scale=10,ef=8",
        "gen:rmat:scale=9,ef=4,sym=1", "gen:uniform:m=3000,k=16", "gen:powerlaw:m=4000,k=6",
        "gen:banded:m=2000,bw=3", "gen:blockdiag:m=1000,b=40", "gen:tall:m=20000,n=100,k=2",
        "gen:wide:m=8,n=50000",
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        spx_csr *A = NULL;
        spx_status s = spx_gen(ctx, specs[i], &A);
        CHECK_MSG(s == SPX_OK, "%s: %s", specs[i], spx_ctx_last_error(ctx));
        if (!s) check_all_formats(ctx, A, specs[i]);
        spx_csr_destroy(&A);
    }
}

static void test_shared_matrices(spx_ctx *ctx)
{
    const int count = tm_each_shared(ctx, check_all_formats);
    if (count >= 0) CHECK(count >= 60);
}

/* The csr plan's matrix for allocation-failure injection. */
static spx_csr *alloc_matrix(spx_ctx *ctx) { return tm_make(ctx, 50, 60, tm_len_const8, 1); }

int main(void)
{
    spx_ctx *ctx = NULL;
    spx_ctx_opts co = {.backend = SPX_BACKEND_CPU};
    if (spx_ctx_create(&ctx, &co)) return 1;
    test_edge_cases(ctx);
    test_dense_row_1m(ctx);
    test_generated(ctx);
    test_shared_matrices(ctx);
    fc_alloc_failures("csr", NULL, alloc_matrix, 200);
    spx_ctx_destroy(&ctx);
    return check_report();
}
