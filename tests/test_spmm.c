/* tests/test_spmm.c: SpMM on the CPU (spx_plan_spmm): every format with a CPU path, fp64 and
 * fp32, in the caller's order and the plan's, against the oracle for k in {1, 2, 3, 8, 33} in
 * both layouts with leading dimensions beyond a line (tests/spmm_check.h), on the design's edge
 * cases (0 x 0, empty rows, one column, rectangular) and generated matrices; the report (csr's
 * own loop, the other formats' kernel or fallback named); bad arguments refused with Y
 * untouched; allocation failures of the row-major fallback's work vectors; in a CUDA build, the
 * GPU tables' SpMM slots (csr's kernels and cuSPARSE's, run by tests/test_spmm_gpu.c). */
#include <string.h>

#include "spmm_check.h"
#include "spmv/format.h"

/* Every case on one thread (many small calls: an OpenMP team's barriers would dominate on a
 * loaded machine); two cases of the first generated matrix on two (each kernel's thread shares). */
static void test_matrices(spx_ctx *ctx, spx_ctx *ctx2)
{
    sc_case cases[SC_MAX_CASES];
    sc_check_matrices(ctx, SPX_BACKEND_CPU, cases, sc_cases(cases));
    /* two threads: two cases (each SpMV of the fallback is a parallel region, up to a time slice
     * apiece while libgomp's spinning threads share a loaded 2-core machine) */
    const sc_case threaded[] = {{1.0, 0.0, 8, SPX_DENSE_COL_MAJOR, 0}, {1.5, -0.75, 33, SPX_DENSE_ROW_MAJOR, 1}};
    spx_csr *A = NULL;
    CHECK_OK(ctx2, spx_gen(ctx2, sc_generated[0], &A));
    if (A) sc_check_all(ctx2, A, SPX_BACKEND_CPU, threaded, 2, sc_generated[0]);
    spx_csr_destroy(&A);
}

/* csr runs its own OpenMP SpMM in both layouts, never the fallback. */
static void test_csr_report(spx_ctx *ctx)
{
    spx_csr *A = tm_make(ctx, 40, 40, tm_len_const8, 3);
    spx_plan *p = NULL;
    spx_plan_opts o = {.format = "csr", .backend = SPX_BACKEND_CPU};
    CHECK_OK(ctx, A ? spx_plan_create(ctx, A, &o, &p) : SPX_ERR_NOMEM);
    spx_spmm_info si;
    if (p) {
        CHECK_OK(ctx, spx_plan_spmm_info(p, 8, SPX_DENSE_ROW_MAJOR, &si));
        CHECK_MSG(!si.fallback && !strcmp(si.kernel, "cpu_omp_nnz_balanced_spmm_row"), "csr row-major: '%s'", si.kernel);
        CHECK_OK(ctx, spx_plan_spmm_info(p, 8, SPX_DENSE_COL_MAJOR, &si));
        CHECK_MSG(!si.fallback && !strcmp(si.kernel, "cpu_omp_nnz_balanced_spmm_col"), "csr col-major: '%s'", si.kernel);
        CHECK(spx_plan_spmm_info(p, 0, SPX_DENSE_ROW_MAJOR, &si) == SPX_ERR_ARG);
        CHECK(spx_plan_spmm_info(p, 2, (spx_dense_layout)5, &si) == SPX_ERR_ARG);
    }
    spx_plan_destroy(&p);
    spx_csr_destroy(&A);
}

/* In a CUDA build, csr and the cusparse baseline fill their GPU halves' SpMM slots (kernel and
 * name): their CUDA plans run csr_spmm_cuda.cu's kernels and cusparseSpMM, not the fallback. */
static void test_cuda_tables(void)
{
    if (!spx_cuda_compiled()) {
        printf("no CUDA in this build: the GPU SpMM slots not checked\n");
        return;
    }
    static const char *const own[] = {"csr", "cusparse"};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) {
        const spx_format *fmt = spx_format_find(own[i]);
        const spx_format_cuda *cu = fmt ? spx_format_cuda_of(fmt) : NULL;
        CHECK_MSG(cu && cu->ops.spmm && cu->ops.spmm_kernel, "%s declares no CUDA SpMM kernel", own[i]);
    }
}

/* A host block of the plan's shape, filled with v (fp64). */
static spx_dense *filled(spx_ctx *ctx, spx_precision prec, int64_t rows, int64_t cols, spx_dense_layout l, double v)
{
    spx_dense *d = NULL;
    if (spx_dense_create(ctx, SPX_BACKEND_CPU, prec, rows, cols, l, &d)) return NULL;
    double *h = malloc(sizeof(double) * (size_t)(rows * cols + 1));
    for (int64_t t = 0; t < rows * cols; t++) h[t] = v;
    spx_dense_set(d, h, l == SPX_DENSE_ROW_MAJOR ? cols : (rows > 0 ? rows : 1));
    free(h);
    return d;
}

/* Whether every entry of the 30 x 4 fp64 block Y is still v. */
static int untouched(const spx_dense *Y, double v)
{
    double h[120];
    if (spx_dense_get(Y, h, spx_dense_get_layout(Y) == SPX_DENSE_ROW_MAJOR ? spx_dense_cols(Y) : spx_dense_rows(Y)))
        return 0;
    for (int64_t t = 0; t < spx_dense_rows(Y) * spx_dense_cols(Y); t++)
        if (h[t] != v) return 0;
    return 1;
}

/* Expects spx_plan_spmm(p, 1, X, 0, Y) refused with SPX_ERR_ARG and text in the message, Y as it was. */
static void refused(spx_ctx *ctx, spx_plan *p, const spx_dense *X, spx_dense *Y, const char *text)
{
    spx_status s = spx_plan_spmm(p, 1.0, X, 0.0, Y);
    CHECK_MSG(s == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), text), "%s: '%s' (wanted '%s')", spx_status_str(s),
              spx_ctx_last_error(ctx), text);
    if (Y && spx_dense_rows(Y) * spx_dense_cols(Y) <= 120 && spx_dense_precision(Y) == SPX_FP64)
        CHECK_MSG(untouched(Y, 7.0), "Y written by a refused call ('%s')", text);
}

/* Bad arguments: SPX_ERR_ARG with a clear message, nothing written. */
static void test_bad_args(spx_ctx *ctx)
{
    spx_csr *A = tm_make(ctx, 30, 20, tm_len_const8, 5);
    spx_plan *p = NULL;
    spx_plan_opts o = {.format = "csr", .backend = SPX_BACKEND_CPU};
    if (!A || spx_plan_create(ctx, A, &o, &p)) {
        CHECK(!"plan");
        spx_csr_destroy(&A);
        return;
    }
    const spx_dense_layout C = SPX_DENSE_COL_MAJOR, R = SPX_DENSE_ROW_MAJOR;
    spx_dense *X = filled(ctx, SPX_FP64, 20, 4, C, 1.0), *Y = filled(ctx, SPX_FP64, 30, 4, C, 7.0);
    spx_dense *X0 = filled(ctx, SPX_FP64, 20, 0, C, 1.0), *Y0 = filled(ctx, SPX_FP64, 30, 0, C, 7.0);
    spx_dense *Xr = filled(ctx, SPX_FP64, 20, 4, R, 1.0), *Xf = filled(ctx, SPX_FP32, 20, 4, C, 1.0);
    spx_dense *Xn = filled(ctx, SPX_FP64, 21, 4, C, 1.0), *Xk = filled(ctx, SPX_FP64, 20, 3, C, 1.0);
    spx_dense *alias = NULL, *other = NULL;
    spx_ctx *ctx2 = NULL;
    spx_ctx_create(&ctx2, &(spx_ctx_opts){.backend = SPX_BACKEND_CPU});
    if (ctx2) other = filled(ctx2, SPX_FP64, 20, 4, C, 1.0);
    spx_dense_wrap(ctx, SPX_BACKEND_CPU, SPX_FP64, 20, 4, C, 30, spx_dense_data(Y), &alias); /* inside Y */
    CHECK(X && Y && X0 && Y0 && Xr && Xf && Xn && Xk && alias && other);
    if (X && Y && X0 && Y0 && Xr && Xf && Xn && Xk && alias && other) {
        CHECK(spx_plan_spmm(NULL, 1.0, X, 0.0, Y) == SPX_ERR_ARG);
        refused(ctx, p, NULL, Y, "NULL argument");
        refused(ctx, p, X0, Y0, "k = 0");
        refused(ctx, p, Xn, Y, "needs X of 20 rows and Y of 30");
        refused(ctx, p, Xk, Y, "X has 3 columns, Y 4");
        refused(ctx, p, Xr, Y, "X is row-major, Y col-major");
        refused(ctx, p, Xf, Y, "the plan is fp64; X is fp32");
        refused(ctx, p, other, Y, "plan's context");
        refused(ctx, p, alias, Y, "must not overlap");
        refused(ctx, p, Y, Y, "needs X of 20 rows");
    }
    spx_dense *blocks[] = {X, Y, X0, Y0, Xr, Xf, Xn, Xk, alias, other};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) spx_dense_destroy(&blocks[i]);
    spx_ctx_destroy(&ctx2);
    spx_plan_destroy(&p);
    spx_csr_destroy(&A);
}

/* A format whose CPU SpMM is the fallback (csr is not): the first registered one, or NULL. */
static const char *fallback_format(spx_ctx *ctx)
{
    spx_csr *A = tm_make(ctx, 10, 10, tm_len_one, 1);
    const char *found = NULL;
    for (int f = 0; f < spx_format_count() && A && !found; f++) {
        spx_format_desc d;
        spx_format_describe(f, &d);
        spx_plan *p = NULL;
        spx_plan_opts o = {.format = d.name, .backend = SPX_BACKEND_CPU};
        spx_spmm_info si;
        if (d.has_cpu && d.available && !spx_plan_create(ctx, A, &o, &p) &&
            !spx_plan_spmm_info(p, 2, SPX_DENSE_ROW_MAJOR, &si) && si.fallback)
            found = d.name;
        spx_plan_destroy(&p);
    }
    spx_csr_destroy(&A);
    return found;
}

/* The row-major fallback's work vectors failed in turn: SPX_ERR_NOMEM, Y untouched, nothing
 * leaked; then the call succeeds. */
static void test_alloc_failures(const char *format)
{
    fail_alloc fa = {0, 0, 0};
    spx_allocator al = {fa_alloc, fa_realloc, fa_free, &fa};
    spx_ctx *ctx = NULL;
    if (spx_ctx_create(&ctx, &(spx_ctx_opts){.alloc = &al, .backend = SPX_BACKEND_CPU})) {
        CHECK(!"context");
        return;
    }
    spx_csr *A = tm_make(ctx, 30, 30, tm_len_const8, 9);
    spx_plan *p = NULL;
    spx_plan_opts o = {.format = format, .backend = SPX_BACKEND_CPU};
    spx_dense *X = filled(ctx, SPX_FP64, 30, 4, SPX_DENSE_ROW_MAJOR, 1.0);
    spx_dense *Y = filled(ctx, SPX_FP64, 30, 4, SPX_DENSE_ROW_MAJOR, 7.0);
    if (!A || !X || !Y || spx_plan_create(ctx, A, &o, &p)) {
        CHECK(!"setup");
    } else {
        const long base = fa.live;
        int failures = 0;
        for (long n = 1; n < 10; n++) {
            fa.calls = 0;
            fa.fail_at = n;
            spx_status s = spx_plan_spmm(p, 1.0, X, 0.0, Y);
            const long calls = fa.calls;
            fa.fail_at = 0;
            CHECK_MSG(fa.live == base, "%s: allocation %ld failed: %ld blocks left", format, n, fa.live - base);
            if (calls < n) {
                CHECK_OK(ctx, s);
                break;
            }
            failures++;
            CHECK_MSG(s == SPX_ERR_NOMEM && untouched(Y, 7.0), "%s: allocation %ld failed: %s, Y %s", format, n,
                      spx_status_str(s), untouched(Y, 7.0) ? "kept" : "written");
        }
        CHECK_MSG(failures >= 1, "%s: the row-major fallback allocated nothing", format);
    }
    spx_dense_destroy(&X);
    spx_dense_destroy(&Y);
    spx_plan_destroy(&p);
    spx_csr_destroy(&A);
    spx_ctx_destroy(&ctx);
}

int main(void)
{
    spx_ctx *ctx = NULL, *ctx2 = NULL;
    if (spx_ctx_create(&ctx, &(spx_ctx_opts){.backend = SPX_BACKEND_CPU, .threads = 1})) return 1;
    if (spx_ctx_create(&ctx2, &(spx_ctx_opts){.backend = SPX_BACKEND_CPU, .threads = 2})) return 1;
    test_matrices(ctx, ctx2);
    test_csr_report(ctx);
    test_cuda_tables();
    test_bad_args(ctx);
    const char *fb = fallback_format(ctx);
    if (fb) test_alloc_failures(fb);
    else printf("no CPU format runs the fallback in this build: its allocation failures skipped\n");
    spx_ctx_destroy(&ctx);
    spx_ctx_destroy(&ctx2);
    return check_report();
}
