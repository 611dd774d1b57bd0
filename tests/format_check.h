/* tests/format_check.h: the checks every format passes on every matrix, on any backend:
 * build -> to_csr round trip equals the input (values rounded for fp32), and SpMV on the
 * format's own layout matches the extended-precision reference with b = 0 (y poisoned with
 * NaN) and with b != 0. */
#ifndef SPX_TESTS_FORMAT_CHECK_H
#define SPX_TESTS_FORMAT_CHECK_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cuda/gateway.h"
#include "fail_alloc.h"
#include "spx/spx.h"

/* A CUDA context for a GPU test in *ctx: 0; 77 (the skip code, after printing so) when there
 * is no CUDA build or device; 1 when the context cannot be made. */
static inline int fc_gpu_ctx(spx_ctx **ctx)
{
    if (!spx_cuda_compiled() || spx_cuda_device_count() == 0) {
        printf("0 passed, 0 failed (no GPU: skipped)\n");
        return 77;
    }
    spx_ctx_opts o = {.backend = SPX_BACKEND_CUDA};
    if (spx_ctx_create(ctx, &o) != SPX_OK) {
        fprintf(stderr, "cannot create a context\n");
        return 1;
    }
    return 0;
}

/* The error bound of a format's SpMV against the reference: fp64 1e-12; fp32 grows with the
 * longest row (a float sum's error grows like sqrt(length)). */
static inline double fc_tolerance(const spx_csr *A, spx_precision prec)
{
    spx_features f;
    spx_features_compute(A, &f);
    return prec == SPX_FP64 ? 1e-12 : 1e-6 * sqrt(f.row_max > 100 ? (double)f.row_max : 100.0);
}

/* Round trip: the plan's layout back to CSR equals A (fp32: values rounded to float). */
static inline void fc_round_trip(spx_ctx *ctx, spx_plan *p, const spx_csr *A, spx_precision prec, const char *label)
{
    spx_csr *B = NULL;
    spx_status s = spx_plan_to_csr(p, &B);
    CHECK_MSG(s == SPX_OK, "%s: to_csr: %s", label, spx_ctx_last_error(ctx));
    if (s) return;
    int same = B->m == A->m && B->n == A->n && B->nnz == A->nnz;
    for (int32_t i = 0; same && i <= A->m; i++) same = B->rowptr[i] == A->rowptr[i];
    for (int64_t k = 0; same && k < A->nnz; k++) {
        double v = prec == SPX_FP32 ? (double)(float)A->val[k] : A->val[k];
        same = B->colind[k] == A->colind[k] && B->val[k] == v;
    }
    CHECK_MSG(same, "%s: round trip differs", label);
    spx_csr_destroy(&B);
}

/* Runs one SpMV in the plan's precision on host arrays (converted for fp32). */
static inline spx_status fc_spmv(spx_plan *p, spx_precision prec, double a, const double *x, double b, double *y,
                          int64_t m, int64_t n)
{
    if (prec == SPX_FP64) return spx_plan_spmv(p, a, x, b, y);
    float *xf = malloc(sizeof(float) * (size_t)(n + 1)), *yf = malloc(sizeof(float) * (size_t)(m + 1));
    for (int64_t j = 0; j < n; j++) xf[j] = (float)x[j];
    for (int64_t i = 0; i < m; i++) yf[i] = (float)y[i];
    spx_status s = spx_plan_spmv_f32(p, (float)a, xf, (float)b, yf);
    for (int64_t i = 0; i < m; i++) y[i] = yf[i];
    free(xf);
    free(yf);
    return s;
}

/* The format's layout statistics are named, finite and within the table. */
static inline void fc_layout_stats(const spx_plan *p, const char *label)
{
    spx_plan_info pi;
    CHECK(spx_plan_get_info(p, &pi) == SPX_OK);
    CHECK_MSG(pi.n_stats >= 0 && pi.n_stats <= SPX_MAX_LAYOUT_STATS, "%s: %d layout stats", label, pi.n_stats);
    for (int i = 0; i < pi.n_stats && i < SPX_MAX_LAYOUT_STATS; i++)
        CHECK_MSG(pi.stats[i].key[0] && isfinite(pi.stats[i].value), "%s: layout stat %d ('%s') unnamed or not finite",
                  label, i, pi.stats[i].key);
}

/* out[i] = v[perm[i]] for i < len (a copy when perm is NULL): a vector into the plan's order. */
static inline void fc_to_plan_order(const int32_t *perm, const double *v, double *out, int64_t len)
{
    for (int64_t i = 0; i < len; i++) out[i] = v[perm ? perm[i] : i];
}

/* y = a*A*x + b*y through plan p whose vectors are in the numbering perm (NULL: the caller's),
 * checked against ref = a*R*x + b*y computed in the caller's order; y (the caller's order) is
 * the starting y and is left unchanged. */
static inline void fc_spmv_check(spx_ctx *ctx, spx_plan *p, const spx_csr *R, const int32_t *perm, spx_precision prec,
                                 double a, const double *x, double b, const double *y, double tol, const char *label)
{
    const int64_t m = R->m, n = R->n;
    double *xp = malloc(sizeof(double) * (size_t)(n + 1)), *yp = malloc(sizeof(double) * (size_t)(m + 1));
    double *ref = malloc(sizeof(double) * (size_t)(m + 1)), *refp = malloc(sizeof(double) * (size_t)(m + 1));
    memcpy(ref, y, sizeof(double) * (size_t)m);
    spx_csr_spmv_ref(R, a, x, b, ref);
    fc_to_plan_order(perm, x, xp, n);
    fc_to_plan_order(perm, y, yp, m);
    fc_to_plan_order(perm, ref, refp, m);
    spx_status s = fc_spmv(p, prec, a, xp, b, yp, m, n);
    double e = s ? INFINITY : spx_rel_error(yp, SPX_FP64, refp, m);
    CHECK_MSG(e <= tol, "%s: b=%g rel error %.3e > %.1e (%s)", label, b, e, tol, s ? spx_ctx_last_error(ctx) : "");
    free(xp);
    free(yp);
    free(ref);
    free(refp);
}

/* Plans A in format/algo on backend with vectors in `order` and checks round trip, stats and
 * SpMV (b = 0 with y NaN, and b != 0), in the plan's numbering when it has one. */
static inline void fc_check_order(spx_ctx *ctx, const spx_csr *A, const char *format, const char *algo,
                                  spx_backend backend, spx_precision prec, spx_vector_order order, const char *what)
{
    char label[256];
    snprintf(label, sizeof label, "%s [%s/%s %s %s%s]", what, format, algo ? algo : "auto",
             backend == SPX_BACKEND_CUDA ? "cuda" : "cpu", prec == SPX_FP32 ? "fp32" : "fp64",
             order == SPX_ORDER_PLAN ? " plan order" : "");
    spx_plan_opts o = {.format = format, .algo = algo, .backend = backend, .precision = prec, .order = order};
    spx_plan *p = NULL;
    spx_status s = spx_plan_create(ctx, A, &o, &p);
    CHECK_MSG(s == SPX_OK, "%s: plan: %s", label, spx_ctx_last_error(ctx));
    if (s) return;
    fc_round_trip(ctx, p, A, prec, label);
    fc_layout_stats(p, label);
    const int32_t *perm = NULL;
    spx_plan_info pi;
    CHECK_OK(ctx, spx_plan_permutation(p, &perm));
    CHECK_OK(ctx, spx_plan_get_info(p, &pi));
    CHECK_MSG(pi.plan_order == (perm != NULL) && (!perm || (order == SPX_ORDER_PLAN && A->m == A->n)),
              "%s: plan_order %d with permutation %p", label, pi.plan_order, (const void *)perm);
    int64_t m = A->m, n = A->n;
    double *x = malloc(sizeof(double) * (size_t)(n + 1)), *y = malloc(sizeof(double) * (size_t)(m + 1));
    uint64_t seed = 42;
    for (int64_t j = 0; j < n; j++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        x[j] = (double)(float)((double)(seed >> 11) * 0x1.0p-53 * 2.0 - 1.0); /* exact in fp32 */
    }
    /* fp32 reference: A's values rounded to float, so only the arithmetic differs */
    spx_csr *Ar = NULL;
    if (prec == SPX_FP32 && spx_csr_copy(ctx, A, &Ar) == SPX_OK)
        for (int64_t k = 0; k < A->nnz; k++) Ar->val[k] = (float)Ar->val[k];
    const spx_csr *R = Ar ? Ar : A;
    double tol = fc_tolerance(A, prec);
    for (int64_t i = 0; i < m; i++) y[i] = NAN;
    fc_spmv_check(ctx, p, R, perm, prec, 1.0, x, 0.0, y, tol, label);
    for (int64_t i = 0; i < m; i++) y[i] = (double)(float)(0.25 * (double)(i % 7) - 0.5);
    fc_spmv_check(ctx, p, R, perm, prec, -1.5, x, 0.5, y, tol, label);
    spx_csr_destroy(&Ar);
    spx_plan_destroy(&p);
    free(x);
    free(y);
}

/* Whether the registered format of that name can keep vectors in its own order. */
static inline int fc_has_plan_order(const char *format)
{
    for (int f = 0; f < spx_format_count(); f++) {
        spx_format_desc d;
        if (!spx_format_describe(f, &d) && !strcmp(d.name, format)) return d.has_plan_order;
    }
    return 0;
}

/* fc_check_order in the caller's order, and in plan order for formats that have one. */
static inline void fc_check(spx_ctx *ctx, const spx_csr *A, const char *format, const char *algo, spx_backend backend,
                            spx_precision prec, const char *what)
{
    fc_check_order(ctx, A, format, algo, backend, prec, SPX_ORDER_CALLER, what);
    if (fc_has_plan_order(format)) fc_check_order(ctx, A, format, algo, backend, prec, SPX_ORDER_PLAN, what);
}

/* Fails each host allocation of one CPU plan creation in turn (n = 1, 2, ... until one
 * succeeds, at most max_n): every failure is SPX_ERR_NOMEM with no plan and nothing leaked.
 * make builds the matrix in the context before the count starts. */
static inline void fc_alloc_failures(const char *format, const char *algo, spx_csr *(*make)(spx_ctx *), long max_n)
{
    int saw_success = 0;
    for (long n = 1; n < max_n && !saw_success; n++) {
        fail_alloc fa = {0, 0, 0};
        spx_allocator al = {fa_alloc, fa_realloc, fa_free, &fa};
        spx_ctx *ctx = NULL;
        spx_ctx_opts co = {.alloc = &al, .backend = SPX_BACKEND_CPU};
        if (spx_ctx_create(&ctx, &co)) continue;
        spx_csr *A = make(ctx);
        fa.fail_at = fa.calls + n; /* count from here: the plan's allocations */
        spx_plan *p = NULL;
        spx_plan_opts po = {.format = format, .algo = algo, .backend = SPX_BACKEND_CPU};
        spx_status s = A ? spx_plan_create(ctx, A, &po, &p) : SPX_ERR_NOMEM;
        if (s == SPX_OK) {
            saw_success = 1;
            CHECK(p != NULL);
        } else {
            CHECK_MSG(s == SPX_ERR_NOMEM && p == NULL, "%s/%s fail at %ld: %s", format, algo ? algo : "auto", n,
                      spx_status_str(s));
        }
        spx_plan_destroy(&p);
        spx_csr_destroy(&A);
        spx_ctx_destroy(&ctx);
        CHECK_MSG(fa.live == 0, "%s/%s fail at %ld: %ld blocks leaked", format, algo ? algo : "auto", n, fa.live);
    }
    CHECK_MSG(saw_success, "%s/%s: no plan within %ld allocations", format, algo ? algo : "auto", max_n);
}

#endif
