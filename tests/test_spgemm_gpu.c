/* tests/test_spgemm_gpu.c: every CUDA SpGEMM method (spx; cusparse alg1, alg2, alg3) against
 * the independent reference of spgemm_check.h, fp64 and fp32, A*B and A*A^T, on the edge
 * cases (the dense and the global fallbacks among them), generated matrices (spx's span
 * tables among them: banded, block-diagonal, stencil27; test_span_tables checks they are
 * taken); spx's dense fallback splitting a long row over blocks, against the CPU product; spx's
 * dense panels, dense x dense and sparse x dense (algorithms default, sparse, dense; every method
 * loop takes all three), and their fall-back to A's dense rows alone when the sparse rows'
 * rows of G do not fit;
 * value updates; and every device allocation failed in turn (an error, nothing left on the
 * device: no bytes, no block, nothing of the context's pool out; the dense panels too). Skips
 * (77) without a CUDA build or device. SPX_GPU_TEST_SKIP_CUSPARSE leaves cuSPARSE out (for
 * racecheck, as tests/test_gpu.c). */
#include <stdlib.h>
#include <string.h>

#include "core/ctx.h"
#include "cuda/gateway.h"
#include "spgemm/spgemm_internal.h" /* spx_spgemm_transpose */
#include "spgemm/spx/spx_tuning.h" /* SPX_GPU_LONG_A_ROW, SPX_GPU_SPLIT_A_ENTRIES, SPX_GPU_HOT_COLS */
#include "spgemm_ooc_check.h"      /* spgemm_check.h, and oc_run / oc_cpu_product / oc_close */

static const spx_precision precisions[] = {SPX_FP64, SPX_FP32};

/* A method and algorithm under test. */
typedef struct gpu_method {
    const char *method, *algo;
} gpu_method;

static gpu_method METHODS[8];
static int N_METHODS;

/* The CUDA methods of the registry, each algorithm. */
static void collect_methods(void)
{
    const int skip_cusparse = getenv("SPX_GPU_TEST_SKIP_CUSPARSE") != NULL;
    for (int i = 0; i < spx_spgemm_method_count(); i++) {
        spx_spgemm_method_desc d;
        if (spx_spgemm_method_describe(i, &d) || d.backend != SPX_BACKEND_CUDA || !d.available) continue;
        if (skip_cusparse && d.is_baseline) continue;
        if (!d.algos) METHODS[N_METHODS++] = (gpu_method){d.name, NULL};
        for (int a = 0; d.algos && d.algos[a] && N_METHODS < 8; a++) METHODS[N_METHODS++] = (gpu_method){d.name, d.algos[a]};
    }
}

/* Every method on A*B and A*A^T, both precisions. */
static void check_methods(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, const char *what)
{
    for (int t = 0; t < N_METHODS; t++)
        for (int p = 0; p < 2; p++)
            for (int tr = 0; tr < 2; tr++) {
                const spx_csr *R = tr ? A : B;
                sc_check(ctx, A, R, tr, SPX_BACKEND_CUDA, METHODS[t].method, METHODS[t].algo, precisions[p], what);
            }
}

static void test_edge_cases(spx_ctx *ctx)
{
    for (int c = 0; c < SC_N_CASES; c++) {
        spx_csr *A = NULL, *B = NULL;
        if (sc_case_make(ctx, c, &A, &B)) check_methods(ctx, A, B, sc_cases[c].name);
        spx_csr_destroy(&A);
        spx_csr_destroy(&B);
    }
}

/* The most entries a row of A has (the library's features). */
static int64_t longest_row(const spx_csr *A)
{
    spx_features f;
    return spx_features_compute(A, &f) == SPX_OK ? f.row_max : 0;
}

static void test_generated(spx_ctx *ctx)
{
    static const char *specs[] = {"gen:poisson2d:n=40",      "gen:poisson3d:n=12",      "gen:rmat:scale=11,ef=8",
                                  "gen:uniform:m=3000,k=8",  "gen:powerlaw:m=2000,k=6", "gen:banded:m=3000,bw=8",
                                  "gen:blockdiag:m=1000,b=32", "gen:stencil27:n=9",
                                  /* a 5000-entry row: over two or three of the pre-analysis's long-row
                                     chunks (SPX_GPU_LONG_A_ROW entries each) */
                                  "gen:powerlaw:m=5000,k=8"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        spx_csr *A = NULL;
        if (spx_gen(ctx, specs[i], &A) == SPX_OK) check_methods(ctx, A, A, specs[i]);
        spx_csr_destroy(&A);
    }
    /* spx alone on a 9000-entry row, over twice SPX_GPU_LONG_A_ROW: a whole chunk lies inside
     * it (the reference takes m x n steps a product: one product) */
    spx_csr *A = NULL;
    if (spx_gen(ctx, "gen:powerlaw:m=9000,k=8", &A) == SPX_OK) {
        const int64_t longest = longest_row(A);
        CHECK_MSG(longest > 2 * SPX_GPU_LONG_A_ROW, "the long-row case's longest row has %lld entries",
                  (long long)longest);
        sc_check(ctx, A, A, 0, SPX_BACKEND_CUDA, "spx", NULL, SPX_FP64, "gen:powerlaw:m=9000,k=8");
    }
    spx_csr_destroy(&A);
}

/* Whether plan's kernel name has `part` ("+span": span tables; "+dense": dense panels). */
static int kernel_has(const spx_spgemm_plan *plan, const char *part)
{
    spx_spgemm_info info;
    return plan && !spx_spgemm_plan_get_info(plan, &info) && strstr(info.kernel, part) != NULL;
}

/* spx takes span tables (its kernel's name says "+span") where rows reach a narrow column
 * range with many products (banded, blocks), and not where they do not (uniform: 64 products
 * a row over all columns); the products are checked by test_generated. */
static void test_span_tables(spx_ctx *ctx)
{
    static const struct {
        const char *spec;
        int span;
    } cases[] = {{"gen:banded:m=3000,bw=8", 1}, {"gen:blockdiag:m=1000,b=32", 1}, {"gen:uniform:m=3000,k=8", 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int p = 0; p < 2; p++) {
            spx_csr *A = NULL;
            if (spx_gen(ctx, cases[c].spec, &A)) continue;
            spx_spgemm_opts o = {.method = "spx", .backend = SPX_BACKEND_CUDA, .precision = precisions[p]};
            spx_spgemm_plan *plan = NULL;
            CHECK_OK(ctx, spx_spgemm_plan_create(ctx, A, A, &o, &plan));
            if (plan)
                CHECK_MSG(kernel_has(plan, "+span") == cases[c].span, "%s %s: span tables %d", cases[c].spec,
                          spx_precision_str(precisions[p]), kernel_has(plan, "+span"));
            spx_spgemm_plan_destroy(&plan);
            spx_csr_destroy(&A);
        }
}

/* spx reads numeric hash tables out by a bitmap of the row's range (its kernel's name says
 * "+bits") where the range is too wide for a span table but within SPX_GPU_BITMAP_COLS_PER_SLOT
 * columns a slot: stencil27 n=50, 125 columns a row (256 slots) over ~10,200, in both precisions;
 * C against the CPU product (structure exact, values within rounding in relative 2-norm), each
 * plan run twice. Nothing to test in a build without the bitmaps. */
static void test_bitmap_rows(spx_ctx *ctx)
{
    if (!SPX_GPU_BITMAP_COLS_PER_SLOT) return;
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:stencil27:n=50", &A));
    for (int p = 0; A && p < 2; p++) {
        spx_csr *C = NULL, *R = NULL;
        const spx_spgemm_opts o = {.method = "spx", .backend = SPX_BACKEND_CUDA, .precision = precisions[p]};
        spx_spgemm_plan *plan = NULL;
        CHECK_OK(ctx, oc_cpu_product(ctx, A, A, 0, precisions[p], &R));
        CHECK_OK(ctx, spx_spgemm_plan_create(ctx, A, A, &o, &plan));
        if (plan)
            CHECK_MSG(kernel_has(plan, "+bits"), "stencil27 n=50 %s: no bitmap read-out", spx_precision_str(precisions[p]));
        for (int run = 0; plan && run < 2; run++) {
            CHECK_OK(ctx, spx_spgemm_run(plan, &C)); /* the second into the same C */
            CHECK_MSG(C && R && oc_close(C, R, precisions[p] == SPX_FP64 ? 1e-12 : 1e-4),
                      "bitmap rows, %s, run %d: C differs", spx_precision_str(precisions[p]), run + 1);
        }
        spx_spgemm_plan_destroy(&plan);
        spx_csr_destroy(&C);
        spx_csr_destroy(&R);
    }
    spx_csr_destroy(&A);
}

/* A power-law matrix whose hubs (rows above P) link to hubs: dense x dense panels exist. */
#define DENSE_PANEL_SPEC "gen:powerlaw:m=20000,k=8,alpha=1.5"

/* spx's dense fallback splits a row of more than SPX_GPU_SPLIT_A_ENTRIES entries of A over
 * blocks (a bitmap in global memory): C against the CPU product (Gustavson, the oracle; the
 * independent reference takes m x n steps a product), structure exact, values within rounding
 * in relative 2-norm, A*A and A*A^T (whose B = A^T has dense columns: the split rows' hot
 * columns, asserted), fp64 and fp32, algorithms default and dense (the dense panels' rows among
 * the split ones); each plan run twice (the second run takes the numeric
 * split list the first one kept). Nothing to test in a build without the split. */
static void test_split_rows(spx_ctx *ctx)
{
    if (!SPX_GPU_SPLIT_A_ENTRIES) return;
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:powerlaw:m=60000,k=8", &A));
    if (!A) return;
    const int64_t longest = longest_row(A);
    CHECK_MSG(longest > SPX_GPU_SPLIT_A_ENTRIES, "the split case's longest row has %lld entries", (long long)longest);
    static const char *algos[] = {"default", "dense"};
    for (int a = 0; a < 2; a++)
    for (int p = 0; p < 2; p++)
        for (int tr = 0; tr < 2; tr++) {
            spx_csr *C = NULL, *R = NULL;
            const spx_spgemm_opts o = {.method = "spx", .algo = algos[a], .backend = SPX_BACKEND_CUDA,
                                       .precision = precisions[p], .transpose_b = tr};
            spx_spgemm_plan *plan = NULL;
            CHECK_OK(ctx, oc_cpu_product(ctx, A, A, tr, precisions[p], &R));
            CHECK_OK(ctx, spx_spgemm_plan_create(ctx, A, A, &o, &plan));
            if (a && !tr) /* the split rows' add kernel skipping the panels' products; the panels' sparse
                             rows (at most a_min = 3000 entries here) are not among the split ones */
                CHECK_MSG(kernel_has(plan, "+dense") && kernel_has(plan, "+spmm"),
                          "split rows, algorithm dense, %s: no panels, or no sparse rows among them",
                          spx_precision_str(precisions[p]));
            if (SPX_GPU_HOT_COLS && tr) /* B = A^T: A's long rows are B's dense columns */
                CHECK_MSG(kernel_has(plan, "+hot"), "split rows, A*A^T, %s: no hot columns",
                          spx_precision_str(precisions[p]));
            for (int run = 0; plan && run < 2; run++) {
                CHECK_OK(ctx, spx_spgemm_run(plan, &C)); /* the second into the same C */
                CHECK_MSG(oc_close(C, R, precisions[p] == SPX_FP64 ? 1e-12 : 1e-4),
                          "split rows, algorithm %s, %s%s, run %d: C differs", algos[a],
                          spx_precision_str(precisions[p]), tr ? ", A*A^T" : "", run + 1);
            }
            spx_spgemm_plan_destroy(&plan);
            spx_csr_destroy(&C);
            spx_csr_destroy(&R);
        }
    spx_csr_destroy(&A);
}

/* spx's dense panels (ApSpGEMM's DGEMM and SpMM panels, by cuBLAS) on DENSE_PANEL_SPEC: A*A, and
 * A*B^T with B = A^T (so that B^T = A has the dense rows: the power-law generator's columns
 * are uniform, A^T has none): algorithm dense takes them, sparse never does, the default as
 * its cost rule says (it does here: asserted, as the suite's figures rely on it), each with
 * sparse rows of A among the panels' rows ("+spmm": 25 sparse rows reach B's dense rows, 7 with
 * more than n / 2 products there, the default's fp64 bar, 11 past fp32's n / 4); C against
 * the CPU product (structure exact, values within rounding in relative 2-norm), fp64 and fp32,
 * each plan run twice with new values of A between (the panels gathered again from them). */
static void test_dense_panels(spx_ctx *ctx)
{
    static const char *algos[] = {"dense", "sparse", "default"};
    for (int a = 0; a < 3; a++)
        for (int p = 0; p < 2; p++)
            for (int tr = 0; tr < 2; tr++) {
                spx_csr *A = NULL, *At = NULL, *C = NULL, *R = NULL;
                int64_t *perm = NULL;
                CHECK_OK(ctx, spx_gen(ctx, DENSE_PANEL_SPEC, &A));
                if (A && tr) CHECK_OK(ctx, spx_spgemm_transpose(ctx, A, &At, &perm));
                const spx_csr *B = tr ? At : A;
                if (!A || !B) {
                    spx_csr_destroy(&A);
                    return;
                }
                const spx_spgemm_opts o = {.method = "spx", .algo = algos[a], .backend = SPX_BACKEND_CUDA,
                                           .precision = precisions[p], .transpose_b = tr};
                const double tol = precisions[p] == SPX_FP64 ? 1e-12 : 1e-4;
                spx_spgemm_plan *plan = NULL;
                CHECK_OK(ctx, spx_spgemm_plan_create(ctx, A, B, &o, &plan));
                CHECK_MSG(kernel_has(plan, "+dense") == (a != 1), "dense panels, algorithm %s, %s%s: taken %d", algos[a],
                          spx_precision_str(precisions[p]), tr ? ", A*(A^T)^T" : "", kernel_has(plan, "+dense"));
                CHECK_MSG(kernel_has(plan, "+spmm") == (a != 1), "sparse x dense rows, algorithm %s, %s%s: taken %d",
                          algos[a], spx_precision_str(precisions[p]), tr ? ", A*(A^T)^T" : "",
                          kernel_has(plan, "+spmm"));
                for (int run = 0; plan && run < 2; run++) {
                    if (run) {
                        for (int64_t q = 0; q < A->nnz; q++) A->val[q] = 0.25 * (double)(q % 7) - 0.6;
                        CHECK_OK(ctx, spx_spgemm_plan_update_values(plan));
                        spx_csr_destroy(&R);
                    }
                    CHECK_OK(ctx, oc_cpu_product(ctx, A, B, tr, precisions[p], &R));
                    CHECK_OK(ctx, spx_spgemm_run(plan, &C));
                    CHECK_MSG(C && R && oc_close(C, R, tol), "dense panels, algorithm %s, %s%s, run %d: C differs",
                              algos[a], spx_precision_str(precisions[p]), tr ? ", A*(A^T)^T" : "", run + 1);
                }
                spx_spgemm_plan_destroy(&plan);
                spx_csr_destroy(&C);
                spx_csr_destroy(&R);
                spx_csr_destroy(&At);
                spx_free(ctx, perm);
                spx_csr_destroy(&A);
            }
}

/* Algorithm dense on R-MAT 16 ef 8: its one dense row of B is reached by 3,853 sparse rows of A,
 * whose rows of G (1.9 GB in fp64) exceed SPX_GPU_PANEL_MAX_BYTES: the panels fall back to A's
 * dense row alone ("+dense" without "+spmm"); C against the CPU product, fp64. */
static void test_dense_panels_fallback(spx_ctx *ctx)
{
    spx_csr *A = NULL, *C = NULL, *R = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:rmat:scale=16,ef=8", &A));
    if (!A) return;
    const spx_spgemm_opts o = {.method = "spx", .algo = "dense", .backend = SPX_BACKEND_CUDA};
    spx_spgemm_plan *plan = NULL;
    CHECK_OK(ctx, oc_cpu_product(ctx, A, A, 0, SPX_FP64, &R));
    CHECK_OK(ctx, spx_spgemm_plan_create(ctx, A, A, &o, &plan));
    CHECK_MSG(kernel_has(plan, "+dense") && !kernel_has(plan, "+spmm"), "R-MAT 16, algorithm dense: panels %d, "
              "sparse rows among them %d", kernel_has(plan, "+dense"), kernel_has(plan, "+spmm"));
    if (plan) CHECK_OK(ctx, spx_spgemm_run(plan, &C));
    CHECK_MSG(C && R && oc_close(C, R, 1e-12), "R-MAT 16, algorithm dense: C differs");
    spx_spgemm_plan_destroy(&plan);
    spx_csr_destroy(&C);
    spx_csr_destroy(&R);
    spx_csr_destroy(&A);
}

/* New values of A and B: the next run of every method uses them. */
static void test_update_values(spx_ctx *ctx)
{
    for (int t = 0; t < N_METHODS; t++) {
        spx_csr *A = NULL, *C = NULL;
        if (spx_gen(ctx, "gen:uniform:m=900,k=6", &A)) continue;
        spx_spgemm_opts o = {.method = METHODS[t].method, .algo = METHODS[t].algo, .backend = SPX_BACKEND_CUDA};
        spx_spgemm_plan *plan = NULL;
        CHECK_OK(ctx, spx_spgemm_plan_create(ctx, A, A, &o, &plan));
        if (plan) CHECK_OK(ctx, spx_spgemm_run(plan, &C));
        for (int64_t q = 0; q < A->nnz; q++) A->val[q] = 0.25 * (double)(q % 11) - 0.5;
        if (plan) CHECK_OK(ctx, spx_spgemm_plan_update_values(plan));
        if (plan) CHECK_OK(ctx, spx_spgemm_run(plan, &C));
        sc_ref r;
        sc_ref_make(A, A, 0, &r);
        CHECK_MSG(C && sc_matches(C, &r, SPX_FP64, "gpu update_values"), "%s/%s", METHODS[t].method,
                  METHODS[t].algo ? METHODS[t].algo : "-");
        sc_ref_free(&r);
        spx_spgemm_plan_destroy(&plan);
        spx_csr_destroy(&C);
        spx_csr_destroy(&A);
    }
}

/* The n-th device allocation of plan + run of method/algo on spec fails, for every n until
 * none fails: a DEVICE_ALLOC error each time (or, for the optional dense panels' memory, a
 * success without them) and no device memory left after the plan is destroyed; with panels,
 * the plan that met no failure takes them. */
static void alloc_failure_sweep(const char *method, const char *algo, const char *spec, int panels)
{
    int saw_success = 0;
    for (long n = 1; n < 100 && !saw_success; n++) {
        spx_ctx *ctx = NULL;
        spx_ctx_opts co = {.backend = SPX_BACKEND_CUDA};
        if (spx_ctx_create(&ctx, &co)) return;
        spx_csr *A = NULL, *C = NULL;
        spx_gen(ctx, spec, &A);
        spx_ctx_fail_device_alloc_at(ctx, n);
        spx_spgemm_opts o = {.method = method, .algo = algo, .backend = SPX_BACKEND_CUDA};
        spx_spgemm_plan *plan = NULL;
        spx_status s = spx_spgemm_plan_create(ctx, A, A, &o, &plan);
        if (!s) s = spx_spgemm_run(plan, &C);
        CHECK_MSG(s == SPX_OK || s == SPX_ERR_DEVICE_ALLOC, "%s/%s on %s, fail at %ld: %s: %s", method,
                  algo ? algo : "-", spec, n, spx_status_str(s), spx_ctx_last_error(ctx));
        /* done once no allocation failed: an optional one (the dense panels') failing is a
           success without them */
        saw_success = s == SPX_OK && ctx->dev_allocs < n;
        if (saw_success && panels) CHECK_MSG(kernel_has(plan, "+dense"), "%s/%s on %s: no panels", method, algo, spec);
        spx_spgemm_plan_destroy(&plan);
        spx_mem_stats ms;
        spx_ctx_mem_stats(ctx, &ms);
        size_t reserved = 0, used = 1;
        CHECK_OK(ctx, spx_cuda_pool_stats(ctx, &reserved, &used));
        CHECK_MSG(ms.device_bytes == 0 && spx_cuda_block_count(ctx) == 0 && used == 0,
                  "%s/%s on %s, fail at %ld: %zu device bytes in %zu blocks left, %zu of the pool's out", method,
                  algo ? algo : "-", spec, n, ms.device_bytes, spx_cuda_block_count(ctx), used);
        spx_csr_destroy(&C);
        spx_csr_destroy(&A);
        spx_ctx_destroy(&ctx);
    }
    CHECK_MSG(saw_success, "%s/%s on %s never succeeded", method, algo ? algo : "-", spec);
}

/* The allocation-failure sweep for every method, and for spx's dense panels. */
static void test_device_alloc_failures(void)
{
    for (int t = 0; t < N_METHODS; t++)
        alloc_failure_sweep(METHODS[t].method, METHODS[t].algo, "gen:poisson2d:n=30", 0);
    alloc_failure_sweep("spx", "dense", DENSE_PANEL_SPEC, 1);
}

int main(void)
{
    spx_ctx *ctx = NULL;
    spx_ctx_opts co = {.backend = SPX_BACKEND_CUDA};
    spx_backend b;
    if (!spx_cuda_compiled() || spx_ctx_create(&ctx, &co) || spx_ctx_resolve_backend(ctx, SPX_BACKEND_CUDA, &b)) {
        printf("no CUDA build or device: skipped\n");
        spx_ctx_destroy(&ctx);
        return 77;
    }
    collect_methods();
    CHECK(N_METHODS >= 1);
    test_edge_cases(ctx);
    test_generated(ctx);
    test_span_tables(ctx);
    test_bitmap_rows(ctx);
    test_split_rows(ctx);
    test_dense_panels(ctx);
    if (!getenv("SPX_GPU_TEST_QUICK")) test_dense_panels_fallback(ctx); /* 123M products: slow under memcheck */
    test_update_values(ctx);
    spx_ctx_destroy(&ctx);
    /* SPX_GPU_TEST_QUICK (under racecheck): the allocation-failure sweep is left out */
    if (!getenv("SPX_GPU_TEST_QUICK")) test_device_alloc_failures();
    return check_report();
}
