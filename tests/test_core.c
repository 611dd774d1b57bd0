/* tests/test_core.c: reference SpMV on hand-checked matrices, COO -> CSR, CSR checks, the
 * context, statuses and the plan API's argument errors. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/ctx.h"
#include "core/huge_pages.h"
#include "formats/csr/csr_tuning.h"
#include "matrix/features.h"
#include "spx/spx.h"

/* A 4x5 matrix with an empty row and an empty column:
 *   [ 1  0  2  0  0 ]
 *   [ 0  0  0  0  0 ]
 *   [ 0 -3  0  4  0 ]
 *   [ 5  0  0  0  6 ]                                                                     */
static int64_t rp4[] = {0, 2, 2, 4, 6};
static int32_t ci4[] = {0, 2, 1, 3, 0, 4};
static double va4[] = {1, 2, -3, 4, 5, 6};

static void test_reference_exact(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_csr_wrap(ctx, 4, 5, 6, rp4, ci4, va4, &A));
    double x[5] = {1, 2, 3, 4, 5};
    double y[4] = {NAN, NAN, NAN, NAN}; /* b = 0: y must not be read */
    spx_csr_spmv_ref(A, 1.0, x, 0.0, y);
    CHECK(y[0] == 7 && y[1] == 0 && y[2] == 10 && y[3] == 35);
    double y2[4] = {1, 1, 1, 1};
    spx_csr_spmv_ref(A, 2.0, x, -1.0, y2);
    CHECK(y2[0] == 13 && y2[1] == -1 && y2[2] == 19 && y2[3] == 69);
    /* extended precision: 1e16 + 1 - 1e16 is 1, not 0 */
    int64_t rp[] = {0, 3};
    int32_t ci[] = {0, 1, 2};
    double va[] = {1e16, 1, -1e16};
    spx_csr *B = NULL;
    CHECK_OK(ctx, spx_csr_wrap(ctx, 1, 3, 3, rp, ci, va, &B));
    double xb[3] = {1, 1, 1}, yb[1];
    spx_csr_spmv_ref(B, 1.0, xb, 0.0, yb);
    CHECK(yb[0] == 1.0);
    spx_csr_destroy(&A);
    spx_csr_destroy(&B);
    CHECK(A == NULL);
    spx_csr_destroy(&A); /* NULL accepted */
}

static void test_wrap_rejects(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    int64_t bad_rp[] = {0, 2, 1, 4, 6};
    CHECK(spx_csr_wrap(ctx, 4, 5, 6, bad_rp, ci4, va4, &A) == SPX_ERR_ARG && A == NULL);
    CHECK(strstr(spx_ctx_last_error(ctx), "decreases") != NULL);
    int32_t bad_ci[] = {0, 2, 1, 5, 0, 4};
    CHECK(spx_csr_wrap(ctx, 4, 5, 6, rp4, bad_ci, va4, &A) == SPX_ERR_ARG);
    CHECK(strstr(spx_ctx_last_error(ctx), "out of range") != NULL);
    CHECK(spx_csr_wrap(ctx, 4, 5, 7, rp4, ci4, va4, &A) == SPX_ERR_ARG);
    CHECK(spx_csr_alloc(ctx, -1, 3, 0, &A) == SPX_ERR_ARG);
    CHECK(spx_csr_alloc(ctx, (int64_t)INT32_MAX + 1, 3, 0, &A) == SPX_ERR_OVERFLOW);
}

static void test_coo_to_csr(spx_ctx *ctx)
{
    spx_coo *C = NULL;
    CHECK_OK(ctx, spx_coo_alloc(ctx, 3, 3, 6, &C));
    int32_t r[] = {2, 0, 2, 0, 1, 2}, c[] = {1, 2, 0, 2, 1, 1};
    double v[] = {1, 2, 3, 4, 5, 6};
    memcpy(C->row, r, sizeof r);
    memcpy(C->col, c, sizeof c);
    memcpy(C->val, v, sizeof v);
    spx_csr *A = NULL;
    int64_t dups = -1;
    CHECK_OK(ctx, spx_coo_to_csr(ctx, C, 0, &dups, &A));
    CHECK(dups == 2);
    CHECK(A && A->nnz == 4);
    if (A && A->nnz == 4) {
        CHECK(A->rowptr[0] == 0 && A->rowptr[1] == 1 && A->rowptr[2] == 2 && A->rowptr[3] == 4);
        CHECK(A->colind[0] == 2 && A->val[0] == 6);  /* (0,2): 2 + 4 */
        CHECK(A->colind[1] == 1 && A->val[1] == 5);
        CHECK(A->colind[2] == 0 && A->val[2] == 3);
        CHECK(A->colind[3] == 1 && A->val[3] == 7);  /* (2,1): 1 + 6 */
    }
    spx_csr *S = NULL;
    CHECK(spx_coo_to_csr(ctx, C, 1, NULL, &S) == SPX_ERR_PARSE && S == NULL);
    CHECK(strstr(spx_ctx_last_error(ctx), "duplicate") != NULL);
    spx_csr_destroy(&A);
    spx_coo_destroy(&C);
}

/* Rows longer than the parallel sort's limit (2^16) are sorted after the parallel pass with
 * their own scratch: a 300000-entry row in reverse order with every column twice, among
 * short rows, comes out sorted with duplicates summed, and the same under strict is refused
 * naming that row. */
static void test_coo_to_csr_long_row(spx_ctx *ctx)
{
    const int32_t m = 5, n = 150000, reps = 2;
    const int64_t longlen = (int64_t)n * reps, nnz = longlen + 8;
    spx_coo *C = NULL;
    CHECK_OK(ctx, spx_coo_alloc(ctx, m, n, nnz, &C));
    if (!C) return;
    int64_t k = 0;
    for (int32_t j = n - 1; j >= 0; j--)
        for (int r = 0; r < reps; r++, k++) {
            C->row[k] = 3;
            C->col[k] = j;
            C->val[k] = (double)(j % 7) + 0.5 * r;
        }
    for (int32_t i = 0; i < 8; i++, k++) { /* short rows 0, 1, 2 and 4, out of order */
        C->row[k] = i < 6 ? i % 3 : 4;
        C->col[k] = 10 - i;
        C->val[k] = 1.0 + i;
    }
    spx_csr *A = NULL;
    int64_t dups = -1;
    CHECK_OK(ctx, spx_coo_to_csr(ctx, C, 0, &dups, &A));
    CHECK(A && dups == (int64_t)n * (reps - 1) && A->nnz == n + 8);
    int sorted = A != NULL;
    for (int32_t i = 0; sorted && i < A->m; i++)
        for (int64_t q = A->rowptr[i] + 1; q < A->rowptr[i + 1]; q++) sorted &= A->colind[q - 1] < A->colind[q];
    CHECK(sorted);
    if (A && A->rowptr[4] - A->rowptr[3] == n) {
        int sums = 1;
        for (int32_t j = 0; j < n; j++) sums &= A->val[A->rowptr[3] + j] == 2.0 * (j % 7) + 0.5;
        CHECK(sums);
    }
    spx_csr *S = NULL;
    CHECK(spx_coo_to_csr(ctx, C, 1, NULL, &S) == SPX_ERR_PARSE && strstr(spx_ctx_last_error(ctx), "row 4"));
    spx_csr_destroy(&A);
    spx_coo_destroy(&C);
}

static void test_stats(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_csr_wrap(ctx, 4, 5, 6, rp4, ci4, va4, &A));
    spx_csr_stats st;
    CHECK_OK(ctx, spx_csr_compute_stats(ctx, A, &st));
    CHECK(st.row_min == 0 && st.row_max == 2 && st.empty_rows == 1 && st.empty_cols == 0);
    CHECK(fabs(st.row_mean - 1.5) < 1e-15);
    CHECK(fabs(st.row_stddev - sqrt(0.75)) < 1e-12);
    CHECK(st.bandwidth == 3);
    CHECK(!st.structurally_symmetric);
    int64_t rp[] = {0, 2, 4};
    int32_t ci[] = {0, 1, 0, 1};
    double va[] = {1, 2, 2, 3};
    spx_csr *S = NULL;
    CHECK_OK(ctx, spx_csr_wrap(ctx, 2, 2, 4, rp, ci, va, &S));
    CHECK_OK(ctx, spx_csr_compute_stats(ctx, S, &st));
    CHECK(st.structurally_symmetric && st.numerically_symmetric);
    va[2] = 5;
    CHECK_OK(ctx, spx_csr_compute_stats(ctx, S, &st));
    CHECK(st.structurally_symmetric && !st.numerically_symmetric);
    spx_csr_destroy(&A);
    spx_csr_destroy(&S);
}

static void test_plan_errors(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_csr_wrap(ctx, 4, 5, 6, rp4, ci4, va4, &A));
    spx_plan *p = NULL;
    spx_plan_opts o = {.format = "nosuch", .backend = SPX_BACKEND_CPU};
    CHECK(spx_plan_create(ctx, A, &o, &p) == SPX_ERR_ARG && !p);
    CHECK(strstr(spx_ctx_last_error(ctx), "nosuch") != NULL);
    o = (spx_plan_opts){.format = "csr", .algo = "nosuch", .backend = SPX_BACKEND_CPU};
    CHECK(spx_plan_create(ctx, A, &o, &p) == SPX_ERR_ARG && !p);
    o = (spx_plan_opts){.format = "cusparse", .backend = SPX_BACKEND_CPU};
    CHECK(spx_plan_create(ctx, A, &o, &p) == SPX_ERR_UNSUPPORTED && !p);
    if (!spx_cuda_compiled()) {
        o = (spx_plan_opts){.backend = SPX_BACKEND_CUDA};
        CHECK(spx_plan_create(ctx, A, &o, &p) == SPX_ERR_NOT_COMPILED && !p);
        CHECK(strstr(spx_ctx_last_error(ctx), "cuda") != NULL);
    }
    o = (spx_plan_opts){.backend = SPX_BACKEND_CPU};
    CHECK_OK(ctx, spx_plan_create(ctx, A, &o, &p));
    double x[5] = {1, 2, 3, 4, 5}, y[5];
    float xf[5] = {0}, yf[4];
    CHECK(spx_plan_spmv_f32(p, 1, xf, 0, yf) == SPX_ERR_ARG);           /* fp64 plan */
    CHECK(spx_plan_spmv(p, 1, x, 0, (double *)x) == SPX_ERR_ARG);        /* aliasing */
    CHECK(spx_plan_spmv(p, 1, NULL, 0, y) == SPX_ERR_ARG);
    CHECK(spx_plan_spmv_device(p, 1, x, 0, y) == SPX_ERR_ARG);           /* CPU plan */
    CHECK_OK(ctx, spx_plan_spmv(p, 1, x, 0, y));
    CHECK(y[0] == 7 && y[1] == 0 && y[2] == 10 && y[3] == 35);
    spx_plan_info info;
    CHECK_OK(ctx, spx_plan_get_info(p, &info));
    CHECK(!strcmp(info.format, "csr") && info.backend == SPX_BACKEND_CPU && info.n_phases >= 1);
    CHECK(info.bytes_per_spmv == 6 * 12.0 + 5 * 4.0 + 5 * 8.0 + 4 * 8.0);
    spx_plan_destroy(&p);
    CHECK(p == NULL);
    spx_plan_destroy(&p);
    spx_csr_destroy(&A);
}

static void test_status_and_registry(void)
{
    CHECK(!strcmp(spx_status_str(SPX_OK), "SPX_OK"));
    CHECK(!strcmp(spx_status_str(SPX_ERR_PARSE), "SPX_ERR_PARSE"));
    CHECK(!strcmp(spx_status_str((spx_status)999), "SPX_ERR_UNKNOWN"));
    CHECK(spx_format_count() >= 2);
    spx_format_desc d;
    CHECK(spx_format_describe(0, &d) == SPX_OK && !strcmp(d.name, "csr") && d.has_cpu);
    CHECK(spx_format_describe(-1, &d) == SPX_ERR_ARG);
    CHECK(spx_format_describe(spx_format_count(), &d) == SPX_ERR_ARG);
    spx_ctx *ctx = NULL;
    spx_ctx_opts bad = {.threads = -1};
    CHECK(spx_ctx_create(&ctx, &bad) == SPX_ERR_ARG && !ctx);
}

/* The features pass gives the same bits on 1, 2, 3 and 7 threads (fixed blocks summed in
 * order) and agrees with the row statistics of spx_csr_compute_stats. */
static void test_features_threads(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:powerlaw:m=60000,k=9", &A)); /* > 200000 entries: parallel */
    if (!A) return;
    spx_features f1, fk;
    CHECK_OK(ctx, spx_features_compute_threads(A, 1, &f1));
    for (int t = 2; t <= 7; t += t < 3 ? 1 : 4) {
        CHECK_OK(ctx, spx_features_compute_threads(A, t, &fk));
        CHECK_MSG(!memcmp(&f1, &fk, sizeof f1), "features on %d threads differ from one thread's", t);
    }
    spx_csr_stats st;
    CHECK_OK(ctx, spx_csr_compute_stats(ctx, A, &st));
    CHECK(f1.row_min == st.row_min && f1.row_max == st.row_max && f1.empty_rows == st.empty_rows);
    CHECK(f1.bandwidth == st.bandwidth && fabs(f1.row_stddev - st.row_stddev) <= 1e-9 * st.row_stddev);
    spx_csr_destroy(&A);
}

/* The sampled features (what CUDA plans compute): every entry below SPX_FEATURES_COL_SAMPLES
 * (== the full pass); above it the same bits on 1, 2 and 5 threads, the row measures exact, and
 * the column measures close to the full pass's: a banded matrix (every |j - i| <= 2: the
 * sample's bandwidth is 2 and its distance within 1 %) and a random one (distance ~1/3). */
static void test_features_sampled(spx_ctx *ctx)
{
    const char *specs[] = {"gen:powerlaw:m=20000,k=9", "gen:banded:m=200000,bw=2", "gen:uniform:m=100000,k=8"};
    for (int c = 0; c < 3; c++) {
        spx_csr *A = NULL;
        CHECK_OK(ctx, spx_gen(ctx, specs[c], &A));
        if (!A) continue;
        spx_features full, s1, sk;
        CHECK_OK(ctx, spx_features_compute_threads(A, 2, &full));
        CHECK_OK(ctx, spx_features_compute_sampled_threads(A, 1, &s1));
        for (int t = 2; t <= 5; t += 3) {
            CHECK_OK(ctx, spx_features_compute_sampled_threads(A, t, &sk));
            CHECK_MSG(!memcmp(&s1, &sk, sizeof s1), "%s: sampled features on %d threads differ", specs[c], t);
        }
        if (A->nnz <= SPX_FEATURES_COL_SAMPLES) {
            CHECK_MSG(!memcmp(&s1, &full, sizeof s1), "%s: %lld entries, not sampled, yet not the full pass", specs[c],
                      (long long)A->nnz);
        } else {
            CHECK(s1.row_min == full.row_min && s1.row_max == full.row_max && s1.empty_rows == full.empty_rows &&
                  s1.row_mean == full.row_mean && fabs(s1.row_stddev - full.row_stddev) <= 1e-9 * full.row_stddev);
            CHECK_MSG(s1.bandwidth <= full.bandwidth && fabs(s1.diag_distance - full.diag_distance) <= 0.01 * full.diag_distance &&
                          fabs(s1.col_near - full.col_near) <= 0.01,
                      "%s: sampled bandwidth %lld distance %.6g near %.4f; full %lld %.6g %.4f", specs[c],
                      (long long)s1.bandwidth, s1.diag_distance, s1.col_near, (long long)full.bandwidth,
                      full.diag_distance, full.col_near);
        }
        spx_csr_destroy(&A);
    }
}

/* On a matrix large enough for the parallel check, the first bad column (lowest index) is the
 * one reported, and the first decreasing row pointer likewise. */
static void test_check_first_offence(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:uniform:m=50000,k=8", &A));
    if (!A) return;
    const int32_t c1 = A->colind[300001], c2 = A->colind[123457];
    A->colind[300001] = A->n + 7;
    A->colind[123457] = -3;
    spx_csr *W = NULL;
    CHECK(spx_csr_wrap(ctx, A->m, A->n, A->nnz, A->rowptr, A->colind, A->val, &W) == SPX_ERR_ARG);
    CHECK_MSG(strstr(spx_ctx_last_error(ctx), "column index -3 ") != NULL, "got '%s'", spx_ctx_last_error(ctx));
    A->colind[300001] = c1;
    A->colind[123457] = c2;
    const int64_t r1 = A->rowptr[40001], r2 = A->rowptr[20001];
    A->rowptr[40001] = A->rowptr[40000] - 1;
    A->rowptr[20001] = A->rowptr[20000] - 1;
    CHECK(spx_csr_wrap(ctx, A->m, A->n, A->nnz, A->rowptr, A->colind, A->val, &W) == SPX_ERR_ARG);
    CHECK_MSG(strstr(spx_ctx_last_error(ctx), "decreases at row 20000") != NULL, "got '%s'", spx_ctx_last_error(ctx));
    A->rowptr[40001] = r1;
    A->rowptr[20001] = r2;
    spx_csr_destroy(&A);
}

/* Huge pages: the advised range lies inside the block and on 2 MB boundaries, small blocks
 * and NULL are never advised, advice leaves a block's contents alone, and SPX_HUGE_PAGES=0
 * (exactly "0") gives a context whose allocator does not advise, with the same results. */
static void test_huge_pages(void)
{
    const uintptr_t starts[] = {0x1000, 0x200000, 0x1fffff, 0x7f0000123456};
    const size_t sizes[] = {SPX_HUGE_PAGE_MIN_BYTES - 1, SPX_HUGE_PAGE_MIN_BYTES, SPX_HUGE_PAGE_MIN_BYTES + 1,
                            SPX_HUGE_PAGE_MIN_BYTES + SPX_HUGE_PAGE_BYTES + 12345};
    for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++)
        for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
            uintptr_t lo, hi;
            const int got = spx_huge_page_range((const void *)starts[i], sizes[j], &lo, &hi);
            const uintptr_t end = starts[i] + sizes[j];
            CHECK_MSG(got ? lo >= starts[i] && hi <= end && hi > lo && lo % SPX_HUGE_PAGE_BYTES == 0 &&
                                hi % SPX_HUGE_PAGE_BYTES == 0 && hi - lo + 2 * SPX_HUGE_PAGE_BYTES > sizes[j]
                          : sizes[j] < SPX_HUGE_PAGE_MIN_BYTES && lo == 0 && hi == 0,
                      "range of %zu bytes at %#lx: %d [%#lx, %#lx)", sizes[j], (unsigned long)starts[i], got,
                      (unsigned long)lo, (unsigned long)hi);
        }
    CHECK(spx_advise_huge_pages(NULL, SPX_HUGE_PAGE_MIN_BYTES) == 0);
    const size_t n = (SPX_HUGE_PAGE_MIN_BYTES + 3 * 4096 + 40) / sizeof(int64_t);
    int64_t *b = malloc(n * sizeof *b);
    CHECK(b != NULL);
    if (!b) return;
    for (size_t i = 0; i < n; i++) b[i] = (int64_t)i * 3 - 7;
    CHECK(spx_advise_huge_pages(b, 4096) == 0);
    const int taken = spx_advise_huge_pages((char *)b + 8, n * sizeof *b - 8);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += b[i] != (int64_t)i * 3 - 7;
    CHECK_MSG(bad == 0, "%zu of %zu words changed under huge-page advice", bad, n);
    free(b);
    printf("huge pages: advice %s by this kernel\n", taken ? "taken" : "not taken");
    const char *was = getenv("SPX_HUGE_PAGES");
    char saved[32] = "";
    if (was) snprintf(saved, sizeof saved, "%s", was);
    spx_ctx *c[2] = {NULL, NULL};
    spx_csr *A[2] = {NULL, NULL};
    for (int off = 0; off < 2; off++) {
        setenv("SPX_HUGE_PAGES", off ? "0" : "1", 1);
        CHECK(spx_ctx_create(&c[off], NULL) == SPX_OK);
        if (!c[off]) continue;
        CHECK_MSG((c[off]->alloc.user == NULL) == off, "SPX_HUGE_PAGES=%d: the allocator %s", !off,
                  off ? "still advises" : "does not advise");
        CHECK_OK(c[off], spx_gen(c[off], "gen:uniform:m=300000,k=8", &A[off]));
    }
    if (was) setenv("SPX_HUGE_PAGES", saved, 1);
    else unsetenv("SPX_HUGE_PAGES");
    CHECK(A[0] && A[1] && A[0]->nnz == A[1]->nnz &&
          !memcmp(A[0]->colind, A[1]->colind, (size_t)A[0]->nnz * sizeof *A[0]->colind) &&
          !memcmp(A[0]->val, A[1]->val, (size_t)A[0]->nnz * sizeof *A[0]->val));
    for (int off = 0; off < 2; off++) {
        spx_csr_destroy(&A[off]);
        spx_ctx_destroy(&c[off]);
    }
}

/* csr's `auto` rule takes column blocks for few long rows over many columns only: the large
 * suite's wide matrix (64 x 2M, rows of ~216k), not the default suite's (512 x 395k, rows of
 * 2200), a matrix of short rows, one dense row over 1M columns (x read by about one entry a
 * column) or a hbp band (cols 0). */
static void test_csr_auto_rule(void)
{
    CHECK(spx_csr_auto_algo(13852185, 2000000, 13852185 / 64.0, 220000, 0.01) == SPX_CSR_COLBLOCK);
    CHECK(spx_csr_auto_algo(13852185, 0, 13852185 / 64.0, 220000, 0.01) == SPX_CSR_STREAM);
    CHECK(spx_csr_auto_algo(1126400, 394792, 2200.0, 2300, 0.02) == SPX_CSR_STREAM);
    CHECK(spx_csr_auto_algo(188460000, 27000000, 6.98, 7, 0.05) == SPX_CSR_STREAM);
    CHECK(spx_csr_auto_algo(1048576 + 100, 1 << 20, (1048576 + 100) / 8.0, 1 << 20, 2.6) == SPX_CSR_STREAM);
    CHECK(spx_csr_auto_algo(0, 2000000, 0.0, 0, 0.0) == SPX_CSR_SCALAR);
    /* sliced: landmark (16 a row, cv 0.03), bcsstk29 (44, 0.35) take it; vibrobox (cv 0.58),
       finan512 (8 a row), stencil27 n=60 (5.6M nonzeros) and rows of 2200 do not */
    CHECK(spx_csr_auto_algo(1146848, 2704, 15.94, 16, 0.031) == SPX_CSR_SLICED);
    CHECK(spx_csr_auto_algo(619488, 13992, 44.27, 71, 0.353) == SPX_CSR_SLICED);
    CHECK(spx_csr_auto_algo(342828, 12328, 27.81, 121, 0.579) == SPX_CSR_STREAM);
    CHECK(spx_csr_auto_algo(596992, 74752, 7.99, 55, 0.786) == SPX_CSR_STREAM);
    CHECK(spx_csr_auto_algo(5639752, 216000, 26.11, 27, 0.1) == SPX_CSR_STREAM);
}

int main(void)
{
    spx_ctx *ctx = NULL;
    if (spx_ctx_create(&ctx, NULL)) return 1;
    test_reference_exact(ctx);
    test_wrap_rejects(ctx);
    test_coo_to_csr(ctx);
    test_coo_to_csr_long_row(ctx);
    test_stats(ctx);
    test_features_threads(ctx);
    test_features_sampled(ctx);
    test_check_first_offence(ctx);
    test_plan_errors(ctx);
    test_status_and_registry();
    test_huge_pages();
    test_csr_auto_rule();
    spx_ctx_destroy(&ctx);
    CHECK(ctx == NULL);
    return check_report();
}
