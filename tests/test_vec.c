/* tests/test_vec.c: vectors and vector operations (fill, copy, axpby, dot, nrm2, set/get,
 * wrap) in fp64 and fp32 against long double loops with rounding-error bounds, on lengths 0 to
 * 2^20; the BLAS rules (b = 0 never reads y, a = 0 never reads x); overflow-safe nrm2;
 * argument errors with messages; the host budget; spx_plan_apply on a CPU csr plan; a few CG
 * iterations as the solver pattern. With a GPU: the same on CUDA vectors, compared with the
 * CPU, plus host <-> device copies, wrapped device memory, the device budget and CUDA plans. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cuda/gateway.h"
#include "spx/spx.h"

static const int64_t LENGTHS[] = {0, 1, 7, 1000, (int64_t)1 << 20};
#define N_LENGTHS ((int)(sizeof LENGTHS / sizeof LENGTHS[0]))
static const double A_COEF = 1.5, B_COEF = -0.75; /* exact in fp32 too */
static const double U64 = DBL_EPSILON / 2, U32 = FLT_EPSILON / 2; /* unit roundoffs */
#define POISSON "gen:poisson2d:n=50"
#define CG_ITERS 40 /* ||r|| falls from 50 to about 2.5 on the 50 x 50 Laplacian */

/* Entries in [-1, 1) from a seed (splitmix64): the same every run. */
static void random_fill(double *v, int64_t n, uint64_t seed)
{
    for (int64_t i = 0; i < n; i++) {
        uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        v[i] = (double)(z >> 11) * 0x1p-52 - 1.0;
    }
}

/* gamma_n = n*u / (1 - n*u): the relative error bound of any order of n fp64 additions. */
static double gamma_n(int64_t n) { return (double)n * U64 / (1.0 - (double)n * U64); }

/* Doubles that compare equal as bits (NaN equal to itself). */
static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* A context on the CPU with `threads` threads and the given host budget (0: default). */
static spx_ctx *cpu_ctx(int threads, size_t host_budget)
{
    spx_ctx *ctx = NULL;
    spx_ctx_opts o = {.backend = SPX_BACKEND_CPU, .threads = threads, .host_budget = host_budget};
    return spx_ctx_create(&ctx, &o) == SPX_OK ? ctx : NULL;
}

/* A new vector of n entries holding host (rounded for fp32), or NULL (a CHECK failed). */
static spx_vec *vec_from(spx_ctx *ctx, spx_backend b, spx_precision p, int64_t n, const double *host)
{
    spx_vec *v = NULL;
    CHECK_OK(ctx, spx_vec_create(ctx, b, p, n, &v));
    if (v && host) CHECK_OK(ctx, spx_vec_set(v, host));
    return v;
}

/* A vector's entries as fp64 (malloc'ed, at least one entry), or NULL. */
static double *vec_host(spx_ctx *ctx, const spx_vec *v)
{
    int64_t n = spx_vec_length(v);
    double *h = malloc((size_t)(n > 0 ? n : 1) * sizeof *h);
    if (h) CHECK_OK(ctx, spx_vec_get(v, h));
    return h;
}

/* What one run of the operations produced, for comparing backends. */
typedef struct op_out {
    double dot, nrm2;
    double *axpby; /* n entries (malloc'ed) */
} op_out;

/* Checks set/get, dot, nrm2, axpby, fill, copy on vectors of backend b against long double
 * loops with rounding-error bounds, and the BLAS rules with NaN poison; fills *res. */
static void check_ops(spx_ctx *ctx, spx_backend b, spx_precision p, int64_t n, op_out *res)
{
    const char *pn = p == SPX_FP32 ? "fp32" : "fp64";
    double *hx = malloc((size_t)(n + 1) * sizeof *hx), *hy = malloc((size_t)(n + 1) * sizeof *hy);
    random_fill(hx, n, 11 + (uint64_t)n);
    random_fill(hy, n, 23 + (uint64_t)n);
    spx_vec *x = vec_from(ctx, b, p, n, hx), *y = vec_from(ctx, b, p, n, hy);
    double *gx = x ? vec_host(ctx, x) : NULL, *gy = y ? vec_host(ctx, y) : NULL;
    if (!x || !y || !gx || !gy) goto done;
    CHECK(spx_vec_length(x) == n && spx_vec_backend(x) == b && spx_vec_precision(x) == p);
    CHECK((n == 0) == (spx_vec_data(x) == NULL));

    int exact = 1; /* set rounds once to the precision; get is exact */
    for (int64_t i = 0; i < n; i++) exact &= gx[i] == (p == SPX_FP32 ? (double)(float)hx[i] : hx[i]);
    CHECK_MSG(exact, "%s n=%lld: set/get not exact", pn, (long long)n);

    long double dref = 0, dabs = 0, sref = 0;
    for (int64_t i = 0; i < n; i++) {
        dref += (long double)gx[i] * gy[i];
        dabs += fabsl((long double)gx[i] * gy[i]);
        sref += (long double)gx[i] * gx[i];
    }
    double d = NAN, d2 = NAN, nr = NAN;
    CHECK_OK(ctx, spx_vec_dot(x, y, &d));
    CHECK_OK(ctx, spx_vec_dot(x, y, &d2));
    CHECK_MSG(fabsl(d - dref) <= gamma_n(n) * dabs, "%s n=%lld: dot %.17g, ref %.17Lg", pn, (long long)n, d, dref);
    CHECK_MSG(same_bits(d, d2), "%s n=%lld: dot not deterministic: %.17g then %.17g", pn, (long long)n, d, d2);
    CHECK_OK(ctx, spx_vec_nrm2(x, &nr));
    const long double nref = sqrtl(sref);
    CHECK_MSG(fabsl(nr - nref) <= (gamma_n(n + 1) + 2 * U64) * nref, "%s n=%lld: nrm2 %.17g, ref %.17Lg", pn,
              (long long)n, nr, nref);
    res->dot = d;
    res->nrm2 = nr;

    CHECK_OK(ctx, spx_vec_axpby(A_COEF, x, B_COEF, y)); /* y = a*x + b*y */
    res->axpby = vec_host(ctx, y);
    int ok = res->axpby != NULL;
    for (int64_t i = 0; ok && i < n; i++) {
        const double ax = fabs(A_COEF * gx[i]), by = fabs(B_COEF * gy[i]);
        const long double r = (long double)A_COEF * gx[i] + (long double)B_COEF * gy[i];
        double tol = 3 * U64 * (ax + by);
        if (p == SPX_FP32) tol = U32 * fabsl(r) + 4 * U64 * (ax + by);
        ok = fabsl(res->axpby[i] - r) <= tol;
        if (!ok) fprintf(stderr, "axpby %s n=%lld i=%lld: %.17g, ref %.17Lg\n", pn, (long long)n, (long long)i, res->axpby[i], r);
    }
    CHECK_MSG(ok, "%s n=%lld: axpby outside the bound", pn, (long long)n);

    /* b = 0 never reads y; a = 0 never reads x; both 0 reads neither. */
    spx_vec *nan = vec_from(ctx, b, p, n, NULL);
    double *h = NULL;
    if (!nan) goto done;
    CHECK_OK(ctx, spx_vec_fill(nan, NAN));
    CHECK_OK(ctx, spx_vec_fill(y, NAN));
    CHECK_OK(ctx, spx_vec_axpby(A_COEF, x, 0.0, y));
    h = vec_host(ctx, y);
    ok = h != NULL;
    for (int64_t i = 0; ok && i < n; i++) ok = h[i] == (p == SPX_FP32 ? (double)(float)(A_COEF * gx[i]) : A_COEF * gx[i]);
    CHECK_MSG(ok, "%s n=%lld: b = 0 read y (or a*x is wrong)", pn, (long long)n);
    free(h);
    CHECK_OK(ctx, spx_vec_axpby(0.0, nan, B_COEF, y)); /* y = b*a*x, exact: a*b and the fp32 roundings are */
    h = vec_host(ctx, y);
    ok = h != NULL;
    for (int64_t i = 0; ok && i < n; i++)
        ok = h[i] == (p == SPX_FP32 ? (double)(float)(B_COEF * (double)(float)(A_COEF * gx[i])) : B_COEF * (A_COEF * gx[i]));
    CHECK_MSG(ok, "%s n=%lld: a = 0 read x", pn, (long long)n);
    free(h);
    CHECK_OK(ctx, spx_vec_fill(y, NAN));
    CHECK_OK(ctx, spx_vec_axpby(0.0, nan, 0.0, y));
    h = vec_host(ctx, y);
    ok = h != NULL;
    for (int64_t i = 0; ok && i < n; i++) ok = h[i] == 0.0;
    CHECK_MSG(ok, "%s n=%lld: a = b = 0 did not give 0", pn, (long long)n);
    free(h);

    /* fill, copy, and x as both operands of axpby. */
    CHECK_OK(ctx, spx_vec_fill(y, 0.1));
    h = vec_host(ctx, y);
    ok = h != NULL;
    for (int64_t i = 0; ok && i < n; i++) ok = h[i] == (p == SPX_FP32 ? (double)0.1f : 0.1);
    CHECK_MSG(ok, "%s n=%lld: fill", pn, (long long)n);
    free(h);
    CHECK_OK(ctx, spx_vec_copy(y, x));
    CHECK_OK(ctx, spx_vec_axpby(1.0, y, 1.0, y));
    h = vec_host(ctx, y);
    ok = h != NULL;
    for (int64_t i = 0; ok && i < n; i++) ok = h[i] == 2.0 * gx[i];
    CHECK_MSG(ok, "%s n=%lld: copy, then y = y + y", pn, (long long)n);
    free(h);
    CHECK_OK(ctx, spx_vec_copy(y, y)); /* no-op */
    spx_vec_destroy(&nan);
    CHECK(nan == NULL);
done:
    spx_vec_destroy(&x);
    spx_vec_destroy(&y);
    free(gx);
    free(gy);
    free(hx);
    free(hy);
}

/* nrm2 where squaring overflows or underflows in fp64, and with inf and NaN entries. */
static void check_nrm2_safe(spx_ctx *ctx, spx_backend b)
{
    static const struct {
        double v[4];
        int n;
        double want; /* NaN: expect NaN */
    } cases[] = {
        {{3e200, 4e200}, 2, 5e200},
        {{3e-200, 4e-200}, 2, 5e-200},
        {{3e-300, 4e-300, 0.0}, 3, 5e-300},
        {{1e300, 1.0, 1e-300}, 3, 1e300},
        {{3.0, 4.0}, 2, 5.0},
        {{3e-170, 4e-170, 1e-320}, 3, 5e-170},
        {{DBL_TRUE_MIN}, 1, DBL_TRUE_MIN},
        {{DBL_MAX, 0.5}, 2, DBL_MAX},
        {{INFINITY, 1.0}, 2, INFINITY},
        {{1.0, NAN, INFINITY}, 3, NAN},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        spx_vec *x = vec_from(ctx, b, SPX_FP64, cases[c].n, cases[c].v);
        double r = 0.0, want = cases[c].want;
        if (!x) continue;
        CHECK_OK(ctx, spx_vec_nrm2(x, &r));
        int ok = isnan(want) ? isnan(r) : isinf(want) ? r == want : fabs(r - want) <= 4 * U64 * want;
        CHECK_MSG(ok, "%s nrm2 case %zu: %.17g, want %.17g", spx_backend_str(b), c, r, want);
        spx_vec_destroy(&x);
    }
    /* 1000 entries of 1e300 (and of 1e-300): the sum of squares is far outside fp64. */
    double big[1000], small[1000];
    for (int i = 0; i < 1000; i++) big[i] = 1e300, small[i] = 1e-300;
    const double root = sqrt(1000.0);
    spx_vec *x = vec_from(ctx, b, SPX_FP64, 1000, big), *y = vec_from(ctx, b, SPX_FP64, 1000, small);
    double rb = 0.0, rs = 0.0;
    if (x && y) {
        CHECK_OK(ctx, spx_vec_nrm2(x, &rb));
        CHECK_OK(ctx, spx_vec_nrm2(y, &rs));
        CHECK_MSG(fabs(rb - 1e300 * root) <= 1e-13 * 1e300 * root, "nrm2 of 1e300s: %.17g", rb);
        CHECK_MSG(fabs(rs - 1e-300 * root) <= 1e-13 * 1e-300 * root, "nrm2 of 1e-300s: %.17g", rs);
    }
    spx_vec_destroy(&x);
    spx_vec_destroy(&y);
    /* fp32: FLT_MAX entries square within fp64. */
    double fmax[8];
    for (int i = 0; i < 8; i++) fmax[i] = FLT_MAX;
    spx_vec *f = vec_from(ctx, b, SPX_FP32, 8, fmax);
    double rf = 0.0;
    if (f) CHECK_OK(ctx, spx_vec_nrm2(f, &rf));
    CHECK_MSG(fabs(rf - FLT_MAX * sqrt(8.0)) <= 1e-15 * FLT_MAX * sqrt(8.0), "fp32 nrm2 of FLT_MAX: %.17g", rf);
    spx_vec_destroy(&f);
}

/* Mismatched operands, NULL arguments, bad shapes: SPX_ERR_ARG with a message. */
static void check_errors(spx_ctx *ctx)
{
    spx_ctx *other = cpu_ctx(1, 0);
    spx_vec *a = vec_from(ctx, SPX_BACKEND_CPU, SPX_FP64, 7, NULL), *b8 = vec_from(ctx, SPX_BACKEND_CPU, SPX_FP64, 8, NULL);
    spx_vec *f = vec_from(ctx, SPX_BACKEND_CPU, SPX_FP32, 7, NULL), *o = NULL, *v = NULL;
    double d = 0.0, host[8] = {0};
    if (other) CHECK_OK(other, spx_vec_create(other, SPX_BACKEND_CPU, SPX_FP64, 7, &o));
    if (!a || !b8 || !f || !o) goto done;
    CHECK(spx_vec_dot(a, b8, &d) == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "length mismatch"));
    CHECK(spx_vec_dot(a, f, &d) == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "precision mismatch"));
    CHECK(spx_vec_axpby(1.0, a, 1.0, b8) == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "spx_vec_axpby"));
    CHECK(spx_vec_copy(f, a) == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "precision mismatch"));
    CHECK(spx_vec_copy(b8, a) == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "length mismatch"));
    CHECK(spx_vec_axpby(1.0, o, 1.0, a) == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "different contexts"));
    CHECK(spx_vec_dot(a, NULL, &d) == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "NULL"));
    CHECK(spx_vec_dot(a, a, NULL) == SPX_ERR_ARG);
    CHECK(spx_vec_nrm2(NULL, &d) == SPX_ERR_ARG);
    CHECK(spx_vec_fill(NULL, 1.0) == SPX_ERR_ARG);
    CHECK(spx_vec_set(a, NULL) == SPX_ERR_ARG && spx_vec_get(a, NULL) == SPX_ERR_ARG);
    CHECK(spx_vec_set(NULL, host) == SPX_ERR_ARG && spx_vec_copy(NULL, a) == SPX_ERR_ARG);
    CHECK(spx_vec_create(ctx, SPX_BACKEND_CPU, SPX_FP64, -1, &v) == SPX_ERR_ARG && v == NULL &&
          strstr(spx_ctx_last_error(ctx), "negative length"));
    CHECK(spx_vec_create(ctx, SPX_BACKEND_CPU, (spx_precision)7, 4, &v) == SPX_ERR_ARG && v == NULL);
    CHECK(spx_vec_create(ctx, (spx_backend)9, SPX_FP64, 4, &v) == SPX_ERR_ARG && v == NULL);
    CHECK(spx_vec_create(NULL, SPX_BACKEND_CPU, SPX_FP64, 4, &v) == SPX_ERR_ARG && v == NULL);
    CHECK(spx_vec_create(ctx, SPX_BACKEND_CPU, SPX_FP64, 4, NULL) == SPX_ERR_ARG);
    CHECK(spx_vec_wrap(ctx, SPX_BACKEND_CPU, SPX_FP64, 4, NULL, &v) == SPX_ERR_ARG && v == NULL);
    CHECK(spx_vec_wrap(ctx, SPX_BACKEND_CPU, SPX_FP64, 2, (char *)host + 4, &v) == SPX_ERR_ARG && v == NULL &&
          strstr(spx_ctx_last_error(ctx), "aligned"));
    /* Accessors and destroy accept NULL. */
    CHECK(spx_vec_length(NULL) == 0 && spx_vec_data(NULL) == NULL);
    spx_vec_destroy(NULL);
    spx_vec_destroy(&v);
    /* A CUDA vector where none can be: an error, never a CPU vector. */
    if (!spx_cuda_compiled() || spx_cuda_device_count() == 0) {
        spx_status s = spx_vec_create(ctx, SPX_BACKEND_CUDA, SPX_FP64, 4, &v);
        CHECK_MSG((s == SPX_ERR_NOT_COMPILED || s == SPX_ERR_NO_DEVICE) && v == NULL, "%s", spx_status_str(s));
    }
done:
    spx_vec_destroy(&a);
    spx_vec_destroy(&b8);
    spx_vec_destroy(&f);
    spx_vec_destroy(&o);
    spx_ctx_destroy(&other);
}

/* Wrapped host memory: operations act on the caller's array, destroy leaves it alone. */
static void check_wrap_host(spx_ctx *ctx)
{
    double arr[7] = {1, 2, 3, 4, 5, 6, 7};
    spx_vec *w = NULL, *z = NULL;
    double n2 = 0.0;
    CHECK_OK(ctx, spx_vec_wrap(ctx, SPX_BACKEND_AUTO, SPX_FP64, 7, arr, &w));
    if (!w) return;
    CHECK(spx_vec_backend(w) == SPX_BACKEND_CPU && spx_vec_data(w) == arr);
    CHECK_OK(ctx, spx_vec_nrm2(w, &n2));
    CHECK(fabs(n2 - sqrt(140.0)) <= 4 * U64 * sqrt(140.0));
    CHECK_OK(ctx, spx_vec_axpby(0.0, w, 2.0, w));
    CHECK(arr[0] == 2.0 && arr[6] == 14.0);
    spx_vec_destroy(&w);
    CHECK(arr[3] == 8.0); /* still the caller's */
    CHECK_OK(ctx, spx_vec_wrap(ctx, SPX_BACKEND_CPU, SPX_FP32, 0, NULL, &z));
    CHECK(z && spx_vec_length(z) == 0);
    spx_vec_destroy(&z);
}

/* Determinism across calls and agreement across thread counts (2^20 entries: OpenMP path). */
static void check_threads(void)
{
    const int64_t n = (int64_t)1 << 20;
    spx_ctx *c1 = cpu_ctx(1, 0), *c4 = cpu_ctx(4, 0);
    double *h = malloc((size_t)n * sizeof *h);
    if (!c1 || !c4 || !h) goto done;
    random_fill(h, n, 99);
    spx_vec *x1 = vec_from(c1, SPX_BACKEND_CPU, SPX_FP64, n, h), *x4 = vec_from(c4, SPX_BACKEND_CPU, SPX_FP64, n, h);
    double d1 = 0, d4 = 0, d4b = 1, r1 = 0, r4 = 0, r4b = 1;
    if (x1 && x4) {
        CHECK_OK(c1, spx_vec_dot(x1, x1, &d1));
        CHECK_OK(c4, spx_vec_dot(x4, x4, &d4));
        CHECK_OK(c4, spx_vec_dot(x4, x4, &d4b));
        CHECK_OK(c1, spx_vec_nrm2(x1, &r1));
        CHECK_OK(c4, spx_vec_nrm2(x4, &r4));
        CHECK_OK(c4, spx_vec_nrm2(x4, &r4b));
        CHECK(same_bits(d4, d4b) && same_bits(r4, r4b));
        CHECK_MSG(fabs(d1 - d4) <= 2 * gamma_n(n) * d1, "1 thread %.17g, 4 threads %.17g", d1, d4);
        CHECK(fabs(r1 - r4) <= 2 * gamma_n(n) * r1);
    }
    spx_vec_destroy(&x1);
    spx_vec_destroy(&x4);
done:
    free(h);
    spx_ctx_destroy(&c1);
    spx_ctx_destroy(&c4);
}

/* A vector over the host budget: SPX_ERR_NOMEM with a message, nothing held afterwards. */
static void check_budget(void)
{
    spx_ctx *ctx = cpu_ctx(2, (size_t)1 << 20);
    spx_vec *v = NULL;
    spx_mem_stats m;
    if (!ctx) return;
    spx_status s = spx_vec_create(ctx, SPX_BACKEND_CPU, SPX_FP64, (int64_t)1 << 20, &v); /* 8 MB > 1 MB */
    CHECK_MSG(s == SPX_ERR_NOMEM && v == NULL, "%s", spx_status_str(s));
    CHECK_MSG(strstr(spx_ctx_last_error(ctx), "host budget") && strstr(spx_ctx_last_error(ctx), "vector of 1048576 fp64"),
              "message: %s", spx_ctx_last_error(ctx));
    CHECK(spx_ctx_mem_stats(ctx, &m) == SPX_OK && m.host_bytes == 0);
    CHECK_OK(ctx, spx_vec_create(ctx, SPX_BACKEND_CPU, SPX_FP32, 1000, &v));
    CHECK(spx_ctx_mem_stats(ctx, &m) == SPX_OK && m.host_bytes >= 4000 && m.host_bytes < 4200);
    spx_vec_destroy(&v);
    CHECK(spx_ctx_mem_stats(ctx, &m) == SPX_OK && m.host_bytes == 0);
    spx_ctx_destroy(&ctx);
}

/* y = a*A*x + b*y through spx_plan_apply on a plan of backend b, against the reference. */
static void check_apply(spx_ctx *ctx, const spx_csr *A, spx_backend b, spx_precision p)
{
    const char *pn = p == SPX_FP32 ? "fp32" : "fp64";
    const double tol = p == SPX_FP32 ? 1e-5 : 1e-12;
    spx_plan *plan = NULL;
    spx_plan_opts o = {.format = "csr", .backend = b, .precision = p};
    double *hx = malloc((size_t)A->n * sizeof *hx), *hy = malloc((size_t)A->m * sizeof *hy);
    double *ref = malloc((size_t)A->m * sizeof *ref), *gx = NULL, *out = NULL;
    random_fill(hx, A->n, 5);
    random_fill(hy, A->m, 6);
    CHECK_OK(ctx, spx_plan_create(ctx, A, &o, &plan));
    spx_vec *x = vec_from(ctx, b, p, A->n, hx), *y = vec_from(ctx, b, p, A->m, hy);
    spx_vec *other = vec_from(ctx, b, p == SPX_FP32 ? SPX_FP64 : SPX_FP32, A->m, NULL);
    if (!plan || !x || !y || !other || !(gx = vec_host(ctx, x))) goto done;
    double *gy = vec_host(ctx, y);
    if (!gy) goto done;
    memcpy(ref, gy, (size_t)A->m * sizeof *ref);
    free(gy);
    spx_csr_spmv_ref(A, A_COEF, gx, B_COEF, ref);
    CHECK_OK(ctx, spx_plan_apply(plan, A_COEF, x, B_COEF, y));
    out = vec_host(ctx, y);
    double e = out ? spx_rel_error(out, SPX_FP64, ref, A->m) : INFINITY;
    CHECK_MSG(e <= tol, "%s %s apply: rel error %.3g", spx_backend_str(b), pn, e);
    free(out);
    CHECK_OK(ctx, spx_vec_fill(y, NAN)); /* b = 0 never reads y */
    spx_csr_spmv_ref(A, 1.0, gx, 0.0, ref);
    CHECK_OK(ctx, spx_plan_apply(plan, 1.0, x, 0.0, y));
    out = vec_host(ctx, y);
    e = out ? spx_rel_error(out, SPX_FP64, ref, A->m) : INFINITY;
    CHECK_MSG(e <= tol, "%s %s apply b = 0: rel error %.3g", spx_backend_str(b), pn, e);
    CHECK(spx_plan_apply(plan, 1.0, x, 0.0, other) == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "mismatch"));
    CHECK(spx_plan_apply(plan, 1.0, x, 0.0, x) == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "different vectors"));
    CHECK(spx_plan_apply(NULL, 1.0, x, 0.0, y) == SPX_ERR_ARG);
    spx_vec *shortx = vec_from(ctx, b, p, A->n - 1, NULL), *shorty = vec_from(ctx, b, p, A->m - 1, NULL);
    CHECK(shortx && spx_plan_apply(plan, 1.0, shortx, 0.0, y) == SPX_ERR_ARG &&
          strstr(spx_ctx_last_error(ctx), "needs x of"));
    CHECK(shorty && spx_plan_apply(plan, 1.0, x, 0.0, shorty) == SPX_ERR_ARG);
    spx_vec_destroy(&shortx);
    spx_vec_destroy(&shorty);
done:
    free(out);
    free(gx);
    free(hx);
    free(hy);
    free(ref);
    spx_vec_destroy(&x);
    spx_vec_destroy(&y);
    spx_vec_destroy(&other);
    spx_plan_destroy(&plan);
}

/* CG_ITERS iterations of CG on A x = 1 (x0 = 0) with fp64 vectors of backend b, written once
 * over spx_plan_apply and the vector operations; hist[k] = ||r_k|| (CG_ITERS + 1 entries), the
 * final x to x_out (A->m entries). Returns 0 when a call failed. */
static int run_cg(spx_ctx *ctx, const spx_csr *A, spx_backend b, double *hist, double *x_out)
{
    spx_plan *plan = NULL;
    spx_plan_opts o = {.format = "csr", .backend = b};
    spx_vec *x = NULL, *r = NULL, *p = NULL, *q = NULL;
    int ok = spx_plan_create(ctx, A, &o, &plan) == SPX_OK && spx_vec_create(ctx, b, SPX_FP64, A->m, &x) == SPX_OK &&
             spx_vec_create(ctx, b, SPX_FP64, A->m, &r) == SPX_OK && spx_vec_create(ctx, b, SPX_FP64, A->m, &p) == SPX_OK &&
             spx_vec_create(ctx, b, SPX_FP64, A->m, &q) == SPX_OK;
    double rr = 0.0, pq = 0.0, rr_new = 0.0;
    ok = ok && spx_vec_fill(r, 1.0) == SPX_OK && spx_vec_copy(p, r) == SPX_OK && spx_vec_dot(r, r, &rr) == SPX_OK;
    hist[0] = sqrt(rr);
    for (int k = 0; ok && k < CG_ITERS; k++) {
        ok = spx_plan_apply(plan, 1.0, p, 0.0, q) == SPX_OK && spx_vec_dot(p, q, &pq) == SPX_OK;
        const double alpha = rr / pq;
        ok = ok && spx_vec_axpby(alpha, p, 1.0, x) == SPX_OK && spx_vec_axpby(-alpha, q, 1.0, r) == SPX_OK &&
             spx_vec_dot(r, r, &rr_new) == SPX_OK && spx_vec_nrm2(r, &hist[k + 1]) == SPX_OK;
        ok = ok && spx_vec_axpby(1.0, r, rr_new / rr, p) == SPX_OK; /* p = r + beta*p */
        rr = rr_new;
    }
    ok = ok && spx_vec_get(x, x_out) == SPX_OK;
    if (!ok) fprintf(stderr, "cg on %s: %s\n", spx_backend_str(b), spx_ctx_last_error(ctx));
    spx_vec_destroy(&x);
    spx_vec_destroy(&r);
    spx_vec_destroy(&p);
    spx_vec_destroy(&q);
    spx_plan_destroy(&plan);
    return ok;
}

/* The CG run of backend b: it converges, and its recurrence residual is the true one. */
static void check_cg(spx_ctx *ctx, const spx_csr *A, spx_backend b, double *hist)
{
    double *x = malloc((size_t)A->m * sizeof *x), *res = malloc((size_t)A->m * sizeof *res);
    int ok = x && res && run_cg(ctx, A, b, hist, x);
    CHECK_MSG(ok, "cg on %s failed", spx_backend_str(b));
    if (ok) {
        for (int32_t i = 0; i < A->m; i++) res[i] = 1.0;
        spx_csr_spmv_ref(A, -1.0, x, 1.0, res); /* 1 - A x */
        long double t = 0;
        for (int32_t i = 0; i < A->m; i++) t += (long double)res[i] * res[i];
        const double truth = (double)sqrtl(t);
        CHECK_MSG(hist[CG_ITERS] < 0.1 * hist[0], "cg on %s: ||r|| %.3g -> %.3g", spx_backend_str(b), hist[0],
                  hist[CG_ITERS]);
        CHECK_MSG(fabs(truth - hist[CG_ITERS]) <= 1e-9 * hist[0], "cg on %s: recurrence %.17g, true residual %.17g",
                  spx_backend_str(b), hist[CG_ITERS], truth);
    }
    free(x);
    free(res);
}

/* The CPU part: every operation on every length in both precisions, spx_plan_apply on A,
 * CG on L (its Laplacian), and the rest. */
static void test_cpu(const spx_csr *A, const spx_csr *L, double *cg_hist)
{
    spx_ctx *ctx = cpu_ctx(0, 0);
    if (!ctx) {
        CHECK(!"context");
        return;
    }
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < N_LENGTHS; i++) {
            op_out r = {0};
            check_ops(ctx, SPX_BACKEND_CPU, p ? SPX_FP32 : SPX_FP64, LENGTHS[i], &r);
            free(r.axpby);
        }
    check_nrm2_safe(ctx, SPX_BACKEND_CPU);
    check_errors(ctx);
    check_wrap_host(ctx);
    check_threads();
    check_budget();
    if (A) {
        check_apply(ctx, A, SPX_BACKEND_CPU, SPX_FP64);
        check_apply(ctx, A, SPX_BACKEND_CPU, SPX_FP32);
    }
    if (L) check_cg(ctx, L, SPX_BACKEND_CPU, cg_hist);
    spx_mem_stats m;
    CHECK(spx_ctx_mem_stats(ctx, &m) == SPX_OK && m.host_bytes == 0);
    spx_ctx_destroy(&ctx);
}

/* GPU: the operations on CUDA vectors agree with the CPU's (each within its bound of the
 * long double reference, so within twice the bound of each other). */
static void gpu_ops(spx_ctx *gctx, spx_ctx *cctx)
{
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < N_LENGTHS; i++) {
            const spx_precision prec = p ? SPX_FP32 : SPX_FP64;
            const int64_t n = LENGTHS[i];
            op_out g = {0}, c = {0};
            check_ops(gctx, SPX_BACKEND_CUDA, prec, n, &g);
            check_ops(cctx, SPX_BACKEND_CPU, prec, n, &c);
            CHECK_MSG(fabs(g.dot - c.dot) <= 2 * gamma_n(n) * n + DBL_MIN, "n=%lld dot gpu %.17g cpu %.17g",
                      (long long)n, g.dot, c.dot);
            CHECK_MSG(fabs(g.nrm2 - c.nrm2) <= 2 * (gamma_n(n + 1) + 2 * U64) * c.nrm2, "n=%lld nrm2 gpu %.17g cpu %.17g",
                      (long long)n, g.nrm2, c.nrm2);
            int ok = g.axpby && c.axpby;
            /* twice check_ops' bound, with |a x| + |b y| <= 2.25 */
            const double tol = prec == SPX_FP32 ? 2 * (U32 + 4 * U64) * 2.25 : 6 * U64 * 2.25;
            for (int64_t k = 0; ok && k < n; k++) ok = fabs(g.axpby[k] - c.axpby[k]) <= tol;
            CHECK_MSG(ok, "n=%lld %s: axpby gpu and cpu differ", (long long)n, prec == SPX_FP32 ? "fp32" : "fp64");
            free(g.axpby);
            free(c.axpby);
        }
}

/* GPU: copies between backends, wrapped device memory, mismatched backends. */
static void gpu_copies(spx_ctx *gctx)
{
    const int64_t n = 1000;
    double h[1000], back[1000];
    random_fill(h, n, 77);
    spx_vec *hv = vec_from(gctx, SPX_BACKEND_CPU, SPX_FP64, n, h), *dv = vec_from(gctx, SPX_BACKEND_CUDA, SPX_FP64, n, NULL);
    spx_vec *hv2 = vec_from(gctx, SPX_BACKEND_CPU, SPX_FP64, n, NULL), *w = NULL, *bad = NULL;
    double d = 0.0;
    if (!hv || !dv || !hv2) goto done;
    CHECK(spx_vec_backend(dv) == SPX_BACKEND_CUDA);
    CHECK_OK(gctx, spx_vec_copy(dv, hv)); /* host -> device -> host */
    CHECK_OK(gctx, spx_vec_copy(hv2, dv));
    CHECK_OK(gctx, spx_vec_get(hv2, back));
    CHECK(memcmp(h, back, sizeof h) == 0);
    CHECK(spx_vec_dot(hv, dv, &d) == SPX_ERR_ARG && strstr(spx_ctx_last_error(gctx), "backend mismatch"));
    CHECK(spx_vec_axpby(1.0, dv, 1.0, hv) == SPX_ERR_ARG);
    /* Wrapping dv's device memory: AUTO sees device memory; the wrap shares dv's data. */
    CHECK_OK(gctx, spx_vec_wrap(gctx, SPX_BACKEND_AUTO, SPX_FP64, n, spx_vec_data(dv), &w));
    if (w) {
        CHECK(spx_vec_backend(w) == SPX_BACKEND_CUDA);
        CHECK_OK(gctx, spx_vec_fill(w, 2.0));
        CHECK_OK(gctx, spx_vec_dot(dv, dv, &d));
        CHECK(d == 4.0 * (double)n);
        spx_vec_destroy(&w);
        CHECK_OK(gctx, spx_vec_nrm2(dv, &d)); /* dv's memory survives the wrap's destroy */
        CHECK(fabs(d - 2.0 * sqrt((double)n)) <= 1e-14 * d);
    }
    CHECK(spx_vec_wrap(gctx, SPX_BACKEND_CUDA, SPX_FP64, n, h, &bad) == SPX_ERR_ARG && bad == NULL &&
          strstr(spx_ctx_last_error(gctx), "not device memory"));
done:
    spx_vec_destroy(&hv);
    spx_vec_destroy(&hv2);
    spx_vec_destroy(&dv);
}

/* GPU: a vector over the device budget fails with SPX_ERR_DEVICE_ALLOC, holding nothing. */
static void gpu_budget(void)
{
    spx_ctx *ctx = NULL;
    spx_ctx_opts o = {.backend = SPX_BACKEND_CUDA, .device_budget = (size_t)1 << 20};
    spx_vec *v = NULL;
    spx_mem_stats m;
    if (spx_ctx_create(&ctx, &o) != SPX_OK) {
        CHECK(!"context");
        return;
    }
    spx_backend b = SPX_BACKEND_AUTO;
    CHECK_OK(ctx, spx_ctx_resolve_backend(ctx, SPX_BACKEND_CUDA, &b)); /* the CUDA state: host memory */
    CHECK(spx_ctx_mem_stats(ctx, &m) == SPX_OK);
    const size_t host_before = m.host_bytes;
    spx_status s = spx_vec_create(ctx, SPX_BACKEND_CUDA, SPX_FP64, (int64_t)1 << 20, &v); /* 8 MB > 1 MB */
    CHECK_MSG(s == SPX_ERR_DEVICE_ALLOC && v == NULL, "%s: %s", spx_status_str(s), spx_ctx_last_error(ctx));
    CHECK(spx_ctx_mem_stats(ctx, &m) == SPX_OK && m.device_bytes == 0 && m.host_bytes == host_before);
    CHECK_OK(ctx, spx_vec_create(ctx, SPX_BACKEND_CUDA, SPX_FP32, 1000, &v));
    spx_vec_destroy(&v);
    CHECK(spx_ctx_mem_stats(ctx, &m) == SPX_OK && m.device_bytes == 0);
    spx_ctx_destroy(&ctx);
}

/* The GPU part, when a device is there (A, L and cpu_hist as test_cpu's). */
static void test_gpu(const spx_csr *A, const spx_csr *L, const double *cpu_hist)
{
    if (!spx_cuda_compiled() || spx_cuda_device_count() == 0) {
        printf("GPU part skipped: %s\n", spx_cuda_compiled() ? "no CUDA device" : "CUDA not compiled in");
        return;
    }
    spx_ctx *gctx = NULL, *cctx = cpu_ctx(0, 0);
    spx_ctx_opts o = {.backend = SPX_BACKEND_CUDA};
    if (spx_ctx_create(&gctx, &o) != SPX_OK || !cctx) {
        CHECK(!"contexts");
        spx_ctx_destroy(&cctx);
        return;
    }
    gpu_ops(gctx, cctx);
    check_nrm2_safe(gctx, SPX_BACKEND_CUDA);
    gpu_copies(gctx);
    gpu_budget();
    if (A) {
        check_apply(gctx, A, SPX_BACKEND_CUDA, SPX_FP64);
        check_apply(gctx, A, SPX_BACKEND_CUDA, SPX_FP32);
    }
    if (L) {
        double hist[CG_ITERS + 1];
        check_cg(gctx, L, SPX_BACKEND_CUDA, hist);
        int same = 1;
        for (int k = 0; k <= CG_ITERS; k++) same &= fabs(hist[k] - cpu_hist[k]) <= 1e-9 * cpu_hist[0];
        CHECK_MSG(same, "cg residuals differ between the GPU and the CPU");
    }
    spx_mem_stats m;
    CHECK(spx_ctx_mem_stats(gctx, &m) == SPX_OK && m.device_bytes == 0);
    spx_ctx_destroy(&gctx);
    spx_ctx_destroy(&cctx);
}

/* The 5-point Laplacian (4 on the diagonal, -1 beside it: SPD) on A's poisson2d pattern. */
static spx_csr *laplacian_of(spx_ctx *ctx, const spx_csr *A)
{
    spx_csr *L = NULL;
    CHECK_OK(ctx, spx_csr_copy(ctx, A, &L));
    for (int32_t i = 0; L && i < L->m; i++)
        for (int64_t k = L->rowptr[i]; k < L->rowptr[i + 1]; k++) L->val[k] = L->colind[k] == i ? 4.0 : -1.0;
    return L;
}

int main(void)
{
    spx_ctx *ctx = cpu_ctx(0, 0);
    spx_csr *A = NULL, *L = NULL;
    double cpu_hist[CG_ITERS + 1];
    if (ctx) CHECK_OK(ctx, spx_gen(ctx, POISSON, &A));
    if (A) L = laplacian_of(ctx, A);
    const double t0 = spx_wtime();
    test_cpu(A, L, cpu_hist);
    const double t1 = spx_wtime();
    test_gpu(A, L, cpu_hist);
    printf("cpu part %.2f s, gpu part %.2f s\n", t1 - t0, spx_wtime() - t1);
    spx_csr_destroy(&A);
    spx_csr_destroy(&L);
    spx_ctx_destroy(&ctx);
    return check_report();
}
