/* tests/test_spmm_gpu.c: SpMM on CUDA plans (spx_plan_spmm with device blocks): every format
 * with a GPU path, fp64 and fp32, in the caller's order and the plan's, against the oracle for k
 * in {1, 2, 3, 8, 33} in both layouts with leading dimensions beyond a line (tests/spmm_check.h:
 * the format's GPU SpMM kernel, or the fallback of k device SpMVs with row-major columns
 * gathered by strided copies, reported as such), on edge cases and generated matrices; csr's own
 * kernels (csr_spmm_cuda.cu) at their chunk boundaries (k = 31, 32, 33, 64, 65, 256) and on long
 * rows (5000 entries; every row long); cuSPARSE's SpMM with each of its algorithms (alg1..alg3)
 * in both layouts, a layout it refuses noted with Y untouched; host blocks refused by a CUDA
 * plan; no device memory left behind. Skipped (77) without a GPU. SPX_GPU_TEST_QUICK (the
 * sanitizer's run): csr's and cuSPARSE's kernels on fewer cases, not the every-format sweep. */
#include <string.h>

#include "formats/csr/csr_cuda_tuning.h"
#include "spmm_check.h"

/* Row lengths with long rows: row 5 of 5000 entries, row 9 just past the long-row bound, every
 * seventh row empty, the others 1 to 9. */
static int64_t len_long(int32_t i, int32_t m, int32_t n)
{
    (void)m;
    (void)n;
    return i == 5 ? 5000 : i == 9 ? SPX_CSR_CUDA_SPMM_LONG_MIN + 1 : i % 7 == 3 ? 0 : 1 + i % 9;
}

/* Appends, for each k in ks and both layouts, b = 0 (Y poisoned) and b != 0; then a NaN in X
 * at the first and last k. Returns the new count. */
static int wide_cases(const int64_t *ks, int nk, sc_case *out, int n)
{
    for (int l = 0; l < 2; l++) {
        const spx_dense_layout lay = l ? SPX_DENSE_ROW_MAJOR : SPX_DENSE_COL_MAJOR;
        for (int i = 0; i < nk; i++) {
            out[n++] = (sc_case){1.0, 0.0, ks[i], lay, 0};
            out[n++] = (sc_case){1.5, -0.75, ks[i], lay, 0};
        }
        out[n++] = (sc_case){1.0, 0.5, ks[l ? 0 : nk - 1], lay, 1};
    }
    return n;
}

/* Expects the SpMM report of a plan of A (format/algo, fp64) for k columns in layout l to name
 * a kernel starting with prefix and holding part (NULL: anything), not the fallback. */
static void expect_kernel(spx_ctx *ctx, const spx_csr *A, const char *format, const char *algo, int64_t k,
                          spx_dense_layout l, const char *prefix, const char *part)
{
    spx_plan *p = NULL;
    spx_plan_opts o = {.format = format, .algo = algo, .backend = SPX_BACKEND_CUDA};
    spx_spmm_info si;
    CHECK_OK(ctx, spx_plan_create(ctx, A, &o, &p));
    if (p && spx_plan_spmm_info(p, k, l, &si) == SPX_OK)
        CHECK_MSG(!si.fallback && !strncmp(si.kernel, prefix, strlen(prefix)) && (!part || strstr(si.kernel, part)),
                  "%s k=%lld %s: kernel '%s', want %s..%s", format, (long long)k, spx_dense_layout_str(l), si.kernel,
                  prefix, part ? part : "");
    spx_plan_destroy(&p);
}

/* csr's kernels at the chunk boundaries of their shapes and on long rows (pieces added
 * atomically), both layouts, fp64 and fp32; and what the report names. */
static void test_csr_kernels(spx_ctx *ctx, int quick)
{
    static const int64_t ks[] = {31, 32, 33, 64, 65, 256}, ks_quick[] = {8, 33, 256};
    sc_case cases[64];
    const int n = quick ? wide_cases(ks_quick, 3, cases, 0) : wide_cases(ks, 6, cases, wide_cases((int64_t[]){8}, 1, cases, 0));
    spx_csr *mats[3] = {tm_make(ctx, 400, 6000, len_long, 21), tm_make(ctx, 40, 3000, tm_len_half, 22), NULL};
    const char *names[3] = {"long rows (5000)", "every row long", "gen:poisson2d:n=30"};
    CHECK_OK(ctx, spx_gen(ctx, names[2], &mats[2]));
    for (int i = 0; i < 3; i++) {
        CHECK_MSG(mats[i] != NULL, "%s: build", names[i]);
        if (mats[i] && (!quick || i != 1)) sc_check_format(ctx, mats[i], "csr", SPX_BACKEND_CUDA, cases, n, 0, names[i]);
    }
    if (mats[0]) {
        expect_kernel(ctx, mats[0], "csr", NULL, 256, SPX_DENSE_ROW_MAJOR, "csr_spmm_row_g32x8_", "+long");
        expect_kernel(ctx, mats[0], "csr", NULL, 8, SPX_DENSE_COL_MAJOR, "csr_spmm_col_", "+long");
        expect_kernel(ctx, mats[0], "csr", NULL, 1, SPX_DENSE_COL_MAJOR, "csr_spmm_col_k1(csr_", NULL);
    }
    if (mats[2]) expect_kernel(ctx, mats[2], "csr", NULL, 8, SPX_DENSE_ROW_MAJOR, "csr_spmm_row_g8_s1", NULL);
    for (int i = 0; i < 3; i++) spx_csr_destroy(&mats[i]);
}

/* cuSPARSE's SpMM with each algorithm in both layouts (a refusal noted, Y untouched: never
 * another algorithm), fp64 and fp32, and its report's name. */
static void test_cusparse_algs(spx_ctx *ctx, int quick)
{
    static const char *const algs[] = {"alg1", "alg2", "alg3"};
    static const int64_t ks[] = {1, 3, 8, 33}, ks_quick[] = {3, 8};
    sc_case cases[32];
    const int n = quick ? wide_cases(ks_quick, 2, cases, 0) : wide_cases(ks, 4, cases, 0);
    spx_csr *mats[2] = {NULL, tm_make(ctx, 400, 6000, len_long, 23)};
    const char *names[2] = {"gen:poisson2d:n=20", "long rows (5000)"};
    CHECK_OK(ctx, spx_gen(ctx, names[0], &mats[0]));
    for (int a = 0; a < 3; a++) {
        for (int i = 0; i < (quick ? 1 : 2); i++)
            if (mats[i]) sc_check_format_algo(ctx, mats[i], "cusparse", algs[a], SPX_BACKEND_CUDA, cases, n, 1, names[i]);
        char want[64];
        for (int l = 0; l < 2 && mats[0]; l++) {
            snprintf(want, sizeof want, "cusparse_spmm_csr_alg%d_%s", a + 1, l ? "row" : "col");
            expect_kernel(ctx, mats[0], "cusparse", algs[a], 8, l ? SPX_DENSE_ROW_MAJOR : SPX_DENSE_COL_MAJOR, want, NULL);
        }
    }
    for (int i = 0; i < 2; i++) spx_csr_destroy(&mats[i]);
}

/* A CUDA plan refuses host blocks, Y untouched. */
static void test_host_blocks(spx_ctx *ctx)
{
    spx_csr *A = tm_make(ctx, 30, 30, tm_len_const8, 2);
    spx_plan *p = NULL;
    spx_dense *X = NULL, *Y = NULL;
    spx_plan_opts o = {.format = "csr", .backend = SPX_BACKEND_CUDA};
    CHECK_OK(ctx, A ? spx_plan_create(ctx, A, &o, &p) : SPX_ERR_NOMEM);
    CHECK_OK(ctx, spx_dense_create(ctx, SPX_BACKEND_CPU, SPX_FP64, 30, 2, SPX_DENSE_COL_MAJOR, &X));
    CHECK_OK(ctx, spx_dense_create(ctx, SPX_BACKEND_CUDA, SPX_FP64, 30, 2, SPX_DENSE_COL_MAJOR, &Y));
    if (p && X && Y) {
        spx_status s = spx_plan_spmm(p, 1.0, X, 0.0, Y);
        CHECK_MSG(s == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "X is a cpu block"), "%s: %s", spx_status_str(s),
                  spx_ctx_last_error(ctx));
    }
    spx_dense_destroy(&X);
    spx_dense_destroy(&Y);
    spx_plan_destroy(&p);
    spx_csr_destroy(&A);
}

int main(void)
{
    spx_ctx *ctx = NULL;
    const int skip = fc_gpu_ctx(&ctx);
    if (skip) return skip;
    const int quick = getenv("SPX_GPU_TEST_QUICK") != NULL;
    sc_case cases[SC_MAX_CASES];
    if (!quick) sc_check_matrices(ctx, SPX_BACKEND_CUDA, cases, sc_cases(cases));
    test_csr_kernels(ctx, quick);
    test_cusparse_algs(ctx, quick);
    test_host_blocks(ctx);
    spx_mem_stats m;
    CHECK(spx_ctx_mem_stats(ctx, &m) == SPX_OK && m.device_bytes == 0);
    spx_ctx_destroy(&ctx);
    return check_report();
}
