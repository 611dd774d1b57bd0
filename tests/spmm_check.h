/* tests/spmm_check.h: the check every format's SpMM passes on any backend: Y = a*A*X + b*Y on
 * dense blocks (both layouts, leading dimensions beyond a line, in the plan's numbering when it
 * has one) against the oracle column by column (spx_csr_spmm_ref), NaN where the oracle has
 * NaN and nowhere else, b = 0 never reading Y (poisoned with NaN), X and the padding between
 * lines left alone; and what spx_plan_spmm_info reports (a kernel, or the fallback named). A
 * vendor baseline may refuse a configuration its library documents it does not take
 * (SPX_ERR_UNSUPPORTED, "does not take"): noted, with Y untouched, never another algorithm. */
#ifndef SPX_TESTS_SPMM_CHECK_H
#define SPX_TESTS_SPMM_CHECK_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format_check.h"
#include "matrices.h"
#include "spx/spx.h"

/* What fills the padding between lines: any change to it is a write outside the block. */
#define SC_PAD 12345.0

/* One SpMM case: the coefficients, the columns and layout, and whether X holds a NaN. */
typedef struct sc_case {
    double a, b;
    int64_t k;
    spx_dense_layout layout;
    int nan_x;
} sc_case;

/* Entries in [-1, 1) exact in fp32, from a seed: the same every run. */
static inline double sc_value(uint64_t *seed)
{
    *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(float)((double)(*seed >> 11) * 0x1.0p-53 * 2.0 - 1.0);
}

/* Index of (i, j) in a layout-l array with leading dimension ld. */
static inline int64_t sc_at(spx_dense_layout l, int64_t ld, int64_t i, int64_t j)
{
    return l == SPX_DENSE_ROW_MAJOR ? i * ld + j : i + j * ld;
}

/* Lines of a rows x cols block in layout l, and its leading dimension with `extra` beyond a line. */
static inline void sc_shape(int64_t rows, int64_t cols, spx_dense_layout l, int64_t extra, int64_t *lines, int64_t *ld)
{
    *lines = l == SPX_DENSE_ROW_MAJOR ? rows : cols;
    *ld = (l == SPX_DENSE_ROW_MAJOR ? cols : rows) + extra;
}

/* A rows x cols block with leading dimension ld on backend b: the storage *S (lines x ld, every
 * entry, padding SC_PAD) holding col-major src (ldsrc) in the plan's numbering perm, and *V,
 * the rows x cols view of it that the call takes. */
static inline spx_status sc_block(spx_ctx *ctx, spx_backend b, spx_precision p, const double *src, int64_t ldsrc,
                                  const int32_t *perm, int64_t rows, int64_t cols, spx_dense_layout l, spx_dense **S,
                                  spx_dense **V)
{
    int64_t lines, ld;
    sc_shape(rows, cols, l, 3, &lines, &ld);
    const int64_t total = lines * ld;
    double *h = malloc(sizeof(double) * (size_t)(total + 1));
    for (int64_t t = 0; t < total; t++) h[t] = SC_PAD;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) h[sc_at(l, ld, i, j)] = src[(perm ? perm[i] : i) + j * ldsrc];
    const int row = l == SPX_DENSE_ROW_MAJOR;
    spx_status s = spx_dense_create(ctx, b, p, row ? lines : ld, row ? ld : lines, l, S);
    if (!s) s = spx_dense_set(*S, h, ld);
    if (!s) s = spx_dense_wrap(ctx, b, p, rows, cols, l, ld, spx_dense_data(*S), V);
    free(h);
    return s;
}

/* *out (col-major, ldout) = the block stored in S, back in the caller's numbering; returns
 * whether the padding still holds SC_PAD. */
static inline int sc_read(const spx_dense *S, const int32_t *perm, int64_t rows, int64_t cols, spx_dense_layout l,
                          double *out, int64_t ldout)
{
    int64_t lines, ld;
    sc_shape(rows, cols, l, 3, &lines, &ld);
    const int64_t total = lines * ld;
    double *h = malloc(sizeof(double) * (size_t)(total + 1));
    int pad_kept = spx_dense_get(S, h, ld) == SPX_OK;
    for (int64_t t = 0; pad_kept && t < total; t++) {
        const int64_t off = t % ld, len = l == SPX_DENSE_ROW_MAJOR ? cols : rows;
        if (off >= len) pad_kept = h[t] == SC_PAD;
    }
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) out[(perm ? perm[i] : i) + j * ldout] = h[sc_at(l, ld, i, j)];
    free(h);
    return pad_kept;
}

/* The relative error of column y against ref (m entries), over ref's finite entries; +inf
 * when a NaN is where ref has none or missing where ref has one, unless spread is set: then
 * such an entry is counted in *spread instead (the baseline, whose NaN handling is its own:
 * cuSPARSE's SpMM on an H100, 2026-12-07, placed NaN differently from the oracle with a NaN in
 * X) and the entries finite in both are compared. */
static inline double sc_column_error(const double *y, const double *ref, int64_t m, int64_t *spread)
{
    long double num = 0, den = 0;
    for (int64_t i = 0; i < m; i++) {
        if (isnan(ref[i]) != isnan(y[i])) {
            if (!spread) return INFINITY;
            (*spread)++;
            continue;
        }
        if (isnan(ref[i])) continue;
        if (!isfinite(y[i])) return INFINITY;
        const long double d = (long double)y[i] - ref[i];
        num += d * d;
        den += (long double)ref[i] * ref[i];
    }
    return den > 0 ? (double)sqrtl(num / den) : (double)sqrtl(num);
}

/* A column of R holding an entry (the first row's first), or -1. */
static inline int32_t sc_used_column(const spx_csr *R)
{
    return R->nnz > 0 ? R->colind[0] : -1;
}

/* The worst column's relative error of Y (col-major, m x k) against ref, and that column
 * (spread: as sc_column_error's). */
static inline double sc_worst_column(const double *Y, const double *ref, int64_t m, int64_t k, int64_t *worst_j,
                                     int64_t *spread)
{
    double worst = 0;
    *worst_j = 0;
    for (int64_t j = 0; j < k; j++) {
        const double e = sc_column_error(Y + j * m, ref + j * m, m, spread);
        if (!(e <= worst)) worst = e, *worst_j = j;
    }
    return worst;
}

/* Whether a (n entries) equals b, NaN where b has NaN. */
static inline int sc_same(const double *a, const double *b, int64_t n)
{
    int same = 1;
    for (int64_t t = 0; t < n; t++) same &= isnan(b[t]) ? isnan(a[t]) : a[t] == b[t];
    return same;
}

/* A configuration the plan refuses as its library documents (SPX_ERR_UNSUPPORTED, "does not
 * take"): noted, and Y (read back into Y, m x k) must be Y0 still. */
static inline void sc_refused(spx_ctx *ctx, const spx_dense *SY, const int32_t *perm, int64_t m, const sc_case *c,
                              const double *Y0, double *Y, const char *label)
{
    printf("  refused: %s: %s\n", label, spx_ctx_last_error(ctx));
    CHECK_MSG(sc_read(SY, perm, m, c->k, c->layout, Y, m) && sc_same(Y, Y0, m * c->k), "%s: refused but Y written",
              label);
}

/* Checks plan p (of matrix R: A with values rounded for fp32; numbering perm) on case c; with
 * may_refuse, a configuration the plan's library refuses (sc_refused) is noted, not failed. */
static inline void sc_check(spx_ctx *ctx, spx_plan *p, const spx_csr *R, const int32_t *perm, spx_backend b,
                            spx_precision prec, const sc_case *c, double tol, int may_refuse, const char *label)
{
    const int64_t m = R->m, n = R->n, k = c->k;
    double *X = malloc(sizeof(double) * (size_t)(n * k + 1)), *Y0 = malloc(sizeof(double) * (size_t)(m * k + 1));
    double *ref = malloc(sizeof(double) * (size_t)(m * k + 1)), *Y = malloc(sizeof(double) * (size_t)(m * k + 1));
    double *Xback = malloc(sizeof(double) * (size_t)(n * k + 1));
    uint64_t seed = 1000 + (uint64_t)k;
    for (int64_t t = 0; t < n * k; t++) X[t] = sc_value(&seed);
    for (int64_t t = 0; t < m * k; t++) Y0[t] = c->b == 0.0 ? NAN : sc_value(&seed);
    const int32_t nan_col = c->nan_x ? sc_used_column(R) : -1;
    if (nan_col >= 0) X[nan_col + (k / 2) * n] = NAN;
    memcpy(ref, Y0, sizeof(double) * (size_t)(m * k));
    spx_csr_spmm_ref(R, c->a, X, n, k, c->b, ref, m);
    spx_dense *SX = NULL, *VX = NULL, *SY = NULL, *VY = NULL;
    spx_status s = sc_block(ctx, b, prec, X, n, perm, n, k, c->layout, &SX, &VX);
    if (!s) s = sc_block(ctx, b, prec, Y0, m, perm, m, k, c->layout, &SY, &VY);
    CHECK_MSG(s == SPX_OK, "%s: blocks: %s", label, spx_ctx_last_error(ctx));
    if (!s) s = spx_plan_spmm(p, c->a, VX, c->b, VY);
    const int refused = s == SPX_ERR_UNSUPPORTED && may_refuse && strstr(spx_ctx_last_error(ctx), "does not take");
    if (refused) sc_refused(ctx, SY, perm, m, c, Y0, Y, label);
    CHECK_MSG(s == SPX_OK || refused, "%s: spmm: %s", label, spx_ctx_last_error(ctx));
    if (!s) {
        CHECK_MSG(sc_read(SY, perm, m, k, c->layout, Y, m), "%s: Y's padding was written", label);
        CHECK_MSG(sc_read(SX, perm, n, k, c->layout, Xback, n), "%s: X's padding was written", label);
        CHECK_MSG(sc_same(Xback, X, n * k), "%s: X changed", label);
        int64_t worst_j = 0, spread = 0;
        spx_plan_info pi;
        const int baseline = nan_col >= 0 && spx_plan_get_info(p, &pi) == SPX_OK && !strcmp(pi.format, "cusparse");
        const double worst = sc_worst_column(Y, ref, m, k, &worst_j, baseline ? &spread : NULL);
        if (spread) printf("  noted: %s: cuSPARSE differs from the oracle in where NaN is (%lld entries)\n", label, (long long)spread);
        CHECK_MSG(worst <= tol, "%s: column %lld rel error %.3e > %.1e", label, (long long)worst_j, worst, tol);
    }
    spx_dense_destroy(&VX);
    spx_dense_destroy(&VY);
    spx_dense_destroy(&SX);
    spx_dense_destroy(&SY);
    free(X);
    free(Y0);
    free(ref);
    free(Y);
    free(Xback);
}

/* What spx_plan_spmm_info says for k columns in layout l: a kernel name; the fallback named
 * "<SpMV kernel>_spmv_x<k>" with k times the SpMV's bytes, else the SpMV's bytes plus k - 1 more
 * reads of x and y. Returns the fallback flag. */
static inline int sc_check_info(spx_ctx *ctx, spx_plan *p, int64_t k, spx_dense_layout l, const char *label)
{
    spx_spmm_info si;
    spx_plan_info pi;
    CHECK_OK(ctx, spx_plan_spmm_info(p, k, l, &si));
    CHECK_OK(ctx, spx_plan_get_info(p, &pi));
    const double vb = pi.precision == SPX_FP32 ? 4.0 : 8.0;
    if (si.fallback) {
        char want[96];
        snprintf(want, sizeof want, "%s_spmv_x%lld", pi.kernel, (long long)k);
        CHECK_MSG(!strcmp(si.kernel, want), "%s: fallback named '%s', not '%s'", label, si.kernel, want);
        CHECK_MSG(si.bytes == (double)k * pi.bytes_per_spmv, "%s: fallback bytes %g", label, si.bytes);
    } else {
        CHECK_MSG(si.kernel[0] && !strstr(si.kernel, "_spmv_x"), "%s: kernel '%s'", label, si.kernel);
        CHECK_MSG(si.bytes == pi.bytes_per_spmv + (double)(k - 1) * (pi.m + pi.n) * vb, "%s: bytes %g", label, si.bytes);
    }
    return si.fallback;
}

/* Every case on A in format with algorithm algo (NULL: its default) on backend b, fp64 and
 * fp32, in the caller's order and, where the format has one, the plan's; may_refuse: as
 * sc_check's (a vendor baseline's documented refusals). */
static inline void sc_check_format_algo(spx_ctx *ctx, const spx_csr *A, const char *format, const char *algo,
                                        spx_backend b, const sc_case *cases, int n_cases, int may_refuse,
                                        const char *what)
{
    for (int pr = 0; pr < 2; pr++)
        for (int order = 0; order < (fc_has_plan_order(format) ? 2 : 1); order++) {
            const spx_precision prec = pr ? SPX_FP32 : SPX_FP64;
            spx_plan_opts o = {.format = format, .algo = algo, .backend = b, .precision = prec,
                               .order = order ? SPX_ORDER_PLAN : SPX_ORDER_CALLER};
            char label[256];
            snprintf(label, sizeof label, "%s [%s%s%s %s %s%s]", what, format, algo ? "/" : "", algo ? algo : "",
                     spx_backend_str(b), spx_precision_str(prec), order ? " plan order" : "");
            spx_plan *p = NULL;
            spx_status s = spx_plan_create(ctx, A, &o, &p);
            CHECK_MSG(s == SPX_OK, "%s: plan: %s", label, spx_ctx_last_error(ctx));
            if (s) continue;
            const int32_t *perm = NULL;
            CHECK_OK(ctx, spx_plan_permutation(p, &perm));
            spx_csr *Ar = NULL;
            if (prec == SPX_FP32 && spx_csr_copy(ctx, A, &Ar) == SPX_OK)
                for (int64_t e = 0; e < A->nnz; e++) Ar->val[e] = (float)Ar->val[e];
            const double tol = fc_tolerance(A, prec);
            for (int i = 0; i < n_cases; i++) {
                char cl[320];
                snprintf(cl, sizeof cl, "%s k=%lld %s a=%g b=%g%s", label, (long long)cases[i].k,
                         spx_dense_layout_str(cases[i].layout), cases[i].a, cases[i].b, cases[i].nan_x ? " NaN in X" : "");
                sc_check_info(ctx, p, cases[i].k, cases[i].layout, cl);
                sc_check(ctx, p, Ar ? Ar : A, perm, b, prec, &cases[i], tol, may_refuse, cl);
            }
            spx_csr_destroy(&Ar);
            spx_plan_destroy(&p);
        }
}

/* sc_check_format_algo with the format's default algorithm. */
static inline void sc_check_format(spx_ctx *ctx, const spx_csr *A, const char *format, spx_backend b,
                                   const sc_case *cases, int n_cases, int may_refuse, const char *what)
{
    sc_check_format_algo(ctx, A, format, NULL, b, cases, n_cases, may_refuse, what);
}

/* sc_check_format on A for every format with a path on backend b in this build (those not built
 * skipped, with the reason); the vendor baseline's documented refusals are noted, not failed. */
static inline void sc_check_all(spx_ctx *ctx, const spx_csr *A, spx_backend b, const sc_case *cases, int n_cases,
                                const char *what)
{
    for (int f = 0; f < spx_format_count(); f++) {
        spx_format_desc d;
        spx_format_describe(f, &d);
        if (!(b == SPX_BACKEND_CUDA ? d.has_cuda : d.has_cpu)) continue;
        if (!d.available) {
            printf("  %s: %s skipped: not built: %s\n", what, d.name, d.why_unavailable);
            continue;
        }
        sc_check_format(ctx, A, d.name, b, cases, n_cases, d.is_baseline, what);
    }
}

/* The matrices: the design's edge cases (0 x 0, 0 x 5, 5 x 0, empty rows, one column,
 * rectangular), rows around a warp, then generated ones (SC_GENERATED). */
static const tm_case sc_matrices[] = {
    {"0x0", 0, 0, tm_len_const8},
    {"1x1", 1, 1, tm_len_one},
    {"0x5", 0, 5, tm_len_const8},
    {"5x0", 5, 0, tm_len_const8},
    {"empty rows", 300, 300, tm_len_alt_empty},
    {"one column", 300, 1, tm_len_one},
    {"wide", 3, 2000, tm_len_half},
    {"tall", 2000, 50, tm_len_one},
    {"rows of 31..33", 200, 1000, tm_len_around32},
};
static const char *const sc_generated[] = {"gen:poisson2d:n=20", "gen:rmat:scale=8,ef=8"};
#define SC_GENERATED ((int)(sizeof sc_generated / sizeof sc_generated[0]))

/* sc_check_all on every matrix above. */
static inline void sc_check_matrices(spx_ctx *ctx, spx_backend b, const sc_case *cases, int n_cases)
{
    for (size_t i = 0; i < sizeof sc_matrices / sizeof sc_matrices[0]; i++) {
        const tm_case *c = &sc_matrices[i];
        spx_csr *A = tm_make(ctx, c->m, c->n, c->len, 11 + (uint64_t)i);
        CHECK_MSG(A != NULL, "%s: build", c->name);
        if (A) sc_check_all(ctx, A, b, cases, n_cases, c->name);
        spx_csr_destroy(&A);
    }
    for (int i = 0; i < SC_GENERATED; i++) {
        spx_csr *A = NULL;
        CHECK_OK(ctx, spx_gen(ctx, sc_generated[i], &A));
        if (A) sc_check_all(ctx, A, b, cases, n_cases, sc_generated[i]);
        spx_csr_destroy(&A);
    }
}

/* The cases: k in {1, 2, 3, 8, 33} in both layouts with b = 0 (Y poisoned) and b != 0; then the
 * other coefficients (a = 0, a = -1 with b = 1) and a NaN in X, on k = 3. Returns their count. */
static inline int sc_cases(sc_case *out)
{
    static const int64_t ks[] = {1, 2, 3, 8, 33};
    int n = 0;
    for (int l = 0; l < 2; l++) {
        const spx_dense_layout lay = l ? SPX_DENSE_ROW_MAJOR : SPX_DENSE_COL_MAJOR;
        for (int i = 0; i < 5; i++) {
            out[n++] = (sc_case){1.0, 0.0, ks[i], lay, 0};
            out[n++] = (sc_case){1.5, -0.75, ks[i], lay, 0};
        }
        out[n++] = (sc_case){0.0, 2.0, 3, lay, 0};
        out[n++] = (sc_case){-1.0, 1.0, 3, lay, 0};
        out[n++] = (sc_case){1.0, 0.5, 3, lay, 1};
    }
    return n;
}
#define SC_MAX_CASES 32

#endif
