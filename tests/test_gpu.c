/* tests/test_gpu.c: the CUDA backend against the reference SpMV: every algorithm of every
 * registered format with a CUDA path (built on the host and, where the format can, on the
 * device), fp64 and fp32, host and device entry points, on edge cases (DESIGN §8), generated
 * and shared matrices; the GPU round trip of every device layout (and host-built vs
 * device-built layouts identical); plus the GPU COO -> CSR and the runtime helpers.
 * Environment: SPX_GPU_TEST_QUICK or SPX_GPU_TEST_NO_SHARED leave out the shared matrices;
 * SPX_GPU_TEST_SKIP_CUSPARSE leaves out cuSPARSE (racecheck flags hazards inside its kernels);
 * SPX_GPU_TEST_FORMATS=csr,hbp/sort keeps only those formats or algorithms (sanitizer runs
 * split by format);
 * SPX_SHARED_MATRICES overrides the directory of the shared matrices. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format_check.h"
#include "cuda/gateway.h"
#include "core/rng.h"
#include "spmv/format.h"
#include "formats/csr/csr_cuda.h"
#include "formats/csr/csr_cuda_tuning.h"
#include "matrix/features.h"
#include "spx/spx.h"

static const double ALPHA = 1.5, BETA = -0.75; /* exact in fp32 too */
static const double TOL64 = 1e-12, TOL32 = 1e-5;

/* One configuration under test: a format's algorithm, built on the host or the device. */
typedef struct gpu_cfg {
    const char *format, *algo, *kernel_prefix;
    spx_build_site build;
    int baseline, round_trip;
} gpu_cfg;

/* Configurations at most: every algorithm of every format, twice for device builds. */
#define MAX_CFGS 128
static gpu_cfg CFGS[MAX_CFGS];
static int N_CFGS;

/* Fills CFGS from the registry: every available format with a CUDA path, every algorithm,
 * host-built and (where the format can) device-built. */
/* Whether SPX_GPU_TEST_FORMATS (a comma list of format or format/algo; unset: everything)
 * selects this format's algorithm. */
static int cfg_selected(const char *name, const char *algo)
{
    const char *list = getenv("SPX_GPU_TEST_FORMATS");
    if (!list || !*list) return 1;
    char want[96], whole[64];
    snprintf(want, sizeof want, "%s/%s", name, algo);
    snprintf(whole, sizeof whole, "%s", name);
    for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
        size_t len = strcspn(p, ",");
        if ((len == strlen(want) && !strncmp(p, want, len)) || (len == strlen(whole) && !strncmp(p, whole, len)))
            return 1;
    }
    return 0;
}

static void collect_cfgs(void)
{
    for (int i = 0; i < spx_format_count(); i++) {
        spx_format_desc d;
        if (spx_format_describe(i, &d) != SPX_OK || !d.has_cuda) continue;
        if (!d.available) {
            printf("format %s skipped: not built: %s\n", d.name, d.why_unavailable);
            continue;
        }
        for (int a = 0; d.algos[a]; a++)
            for (int site = 0; site < 2 && cfg_selected(d.name, d.algos[a]); site++) {
                if (site == 1 && !spx_format_builds_on_device(spx_format_find(d.name), d.algos[a])) continue;
                if (N_CFGS == MAX_CFGS) return;
                CFGS[N_CFGS++] = (gpu_cfg){d.name, d.algos[a], d.kernel_prefix,
                                           site ? SPX_BUILD_DEVICE : SPX_BUILD_HOST, d.is_baseline,
                                           d.has_device_to_csr};
            }
    }
}

/* "host" or "device": where a configuration builds. */
static const char *site_name(const gpu_cfg *c) { return c->build == SPX_BUILD_DEVICE ? "device" : "host"; }

/* splitmix64 (the library's own, src/core/rng.h). */
static uint64_t rng_next(uint64_t *s) { return spx_splitmix64(s); }

/* Uniform in [-1, 1). */
static double rng_sym(uint64_t *s) { return (double)(rng_next(s) >> 11) * 0x1.0p-52 - 1.0; }

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* An m x n CSR whose row i has len[i] entries (clamped to n): distinct sorted random columns,
 * values in [-1, 1). Columns are drawn from [0, col_span) when col_span > 0 (empty columns). */
static spx_csr *make_rows(spx_ctx *ctx, int32_t m, int32_t n, const int64_t *len, int32_t col_span, uint64_t seed)
{
    int32_t span = col_span > 0 && col_span < n ? col_span : n;
    int64_t nnz = 0;
    for (int32_t i = 0; i < m; i++) nnz += len[i] < span ? len[i] : span;
    spx_csr *A = NULL;
    if (spx_csr_alloc(ctx, m, n, nnz, &A)) return NULL;
    unsigned char *used = calloc((size_t)span + 1, 1);
    int64_t k = 0;
    for (int32_t i = 0; i < m; i++) {
        int64_t l = len[i] < span ? len[i] : span;
        if (l * 2 > span) { /* selection sampling: sorted by construction */
            int64_t need = l;
            for (int32_t j = 0; j < span && need > 0; j++)
                if ((int64_t)(rng_next(&seed) % (uint64_t)(span - j)) < need) {
                    A->colind[k++] = j;
                    need--;
                }
        } else { /* distinct draws, then sort */
            int64_t start = k;
            while (k - start < l) {
                int32_t j = (int32_t)(rng_next(&seed) % (uint64_t)span);
                if (!used[j]) {
                    used[j] = 1;
                    A->colind[k++] = j;
                }
            }
            for (int64_t t = start; t < k; t++) used[A->colind[t]] = 0;
            qsort(A->colind + start, (size_t)l, sizeof(int32_t), cmp_i32);
        }
        A->rowptr[i + 1] = k;
    }
    for (int64_t t = 0; t < nnz; t++) A->val[t] = rng_sym(&seed);
    free(used);
    return A;
}

/* The vectors and references of one matrix in one precision: x, y0 and the references of
 * b = 0 and b = BETA, computed by spx_csr_spmv_ref on the values the plan really holds (fp32
 * plans round A, x and y0 to float first, so only the kernel's own rounding is measured). */
typedef struct gpu_case {
    int64_t m, n;
    double *x, *y0, *ref0, *ref1;
} gpu_case;

static void case_free(gpu_case *c)
{
    free(c->x);
    free(c->y0);
    free(c->ref0);
    free(c->ref1);
}

static int case_make(spx_ctx *ctx, const spx_csr *A, spx_precision prec, uint64_t seed, gpu_case *c)
{
    memset(c, 0, sizeof *c);
    c->m = A->m;
    c->n = A->n;
    c->x = malloc(((size_t)A->n + 1) * sizeof(double));
    c->y0 = malloc(((size_t)A->m + 1) * sizeof(double));
    c->ref0 = malloc(((size_t)A->m + 1) * sizeof(double));
    c->ref1 = malloc(((size_t)A->m + 1) * sizeof(double));
    if (!c->x || !c->y0 || !c->ref0 || !c->ref1) return 0;
    for (int64_t j = 0; j < A->n; j++) c->x[j] = rng_sym(&seed);
    for (int64_t i = 0; i < A->m; i++) c->y0[i] = rng_sym(&seed);
    const spx_csr *R = A;
    spx_csr *A32 = NULL;
    if (prec == SPX_FP32) {
        if (spx_csr_copy(ctx, A, &A32)) return 0;
        for (int64_t k = 0; k < A32->nnz; k++) A32->val[k] = (double)(float)A32->val[k];
        for (int64_t j = 0; j < A->n; j++) c->x[j] = (double)(float)c->x[j];
        for (int64_t i = 0; i < A->m; i++) c->y0[i] = (double)(float)c->y0[i];
        R = A32;
    }
    spx_csr_spmv_ref(R, ALPHA, c->x, 0.0, c->ref0);
    memcpy(c->ref1, c->y0, (size_t)A->m * sizeof(double));
    spx_csr_spmv_ref(R, ALPHA, c->x, BETA, c->ref1);
    spx_csr_destroy(&A32);
    return 1;
}

/* One host-array SpMV of plan p (either precision), y widened back to fp64 in out. */
static spx_status host_spmv(spx_plan *p, spx_precision prec, const gpu_case *c, double b, const double *yin,
                            double *out)
{
    spx_status s;
    if (prec == SPX_FP64) {
        memcpy(out, yin, (size_t)c->m * sizeof(double));
        return spx_plan_spmv(p, ALPHA, c->x, b, out);
    }
    float *x = malloc(((size_t)c->n + 1) * sizeof(float)), *y = malloc(((size_t)c->m + 1) * sizeof(float));
    if (!x || !y) {
        free(x);
        free(y);
        return SPX_ERR_NOMEM;
    }
    for (int64_t j = 0; j < c->n; j++) x[j] = (float)c->x[j];
    for (int64_t i = 0; i < c->m; i++) y[i] = (float)yin[i];
    s = spx_plan_spmv_f32(p, (float)ALPHA, x, (float)b, y);
    for (int64_t i = 0; i < c->m; i++) out[i] = (double)y[i];
    free(x);
    free(y);
    return s;
}

/* One device-array SpMV of plan p: x and yin uploaded in the plan's precision, y poisoned
 * with yin (NaN for b = 0), run, synchronised, downloaded into out. */
static spx_status device_spmv(spx_ctx *ctx, spx_plan *p, spx_precision prec, const gpu_case *c, double b,
                              const double *yin, double *out)
{
    size_t vb = prec == SPX_FP32 ? sizeof(float) : sizeof(double);
    void *dx = NULL, *dy = NULL;
    char *hx = malloc(((size_t)c->n + 1) * vb), *hy = malloc(((size_t)c->m + 1) * vb);
    spx_status s = SPX_ERR_NOMEM;
    if (!hx || !hy) goto done;
    for (int64_t j = 0; j < c->n; j++) {
        if (prec == SPX_FP32)
            ((float *)hx)[j] = (float)c->x[j];
        else
            ((double *)hx)[j] = c->x[j];
    }
    for (int64_t i = 0; i < c->m; i++) {
        if (prec == SPX_FP32)
            ((float *)hy)[i] = (float)yin[i];
        else
            ((double *)hy)[i] = yin[i];
    }
    if ((s = spx_cuda_malloc(ctx, &dx, (size_t)c->n * vb)) || (s = spx_cuda_malloc(ctx, &dy, (size_t)c->m * vb)) ||
        (s = spx_cuda_h2d(ctx, dx, hx, (size_t)c->n * vb)) || (s = spx_cuda_h2d(ctx, dy, hy, (size_t)c->m * vb)) ||
        (s = spx_plan_spmv_device(p, ALPHA, dx, b, dy)) || (s = spx_cuda_sync(ctx)) ||
        (s = spx_cuda_d2h(ctx, hy, dy, (size_t)c->m * vb)))
        goto done;
    for (int64_t i = 0; i < c->m; i++) out[i] = prec == SPX_FP32 ? (double)((float *)hy)[i] : ((double *)hy)[i];
done:
    spx_cuda_free(ctx, dx);
    spx_cuda_free(ctx, dy);
    free(hx);
    free(hy);
    return s;
}

/* Checks what a plan reports: the CUDA backend, a kernel name of its format's family, where it
 * was built, its device bytes, an upload phase. */
static void check_info(spx_plan *p, const gpu_cfg *cfg, const spx_csr *A, const char *label)
{
    spx_plan_info info;
    CHECK(spx_plan_get_info(p, &info) == SPX_OK);
    CHECK_MSG(info.backend == SPX_BACKEND_CUDA, "%s: %s/%s ran on %s", label, cfg->format, cfg->algo,
              spx_backend_str(info.backend));
    CHECK_MSG(info.kernel[0], "%s: %s/%s reports no kernel", label, cfg->format, cfg->algo);
    CHECK_MSG(info.built_on_device == (cfg->build == SPX_BUILD_DEVICE), "%s: %s/%s built on the %s, reports %d",
              label, cfg->format, cfg->algo, site_name(cfg), info.built_on_device);
    if (A->m > 0 && A->nnz > 0) {
        const char *want = cfg->kernel_prefix ? cfg->kernel_prefix : "";
        CHECK_MSG(!strncmp(info.kernel, want, strlen(want)), "%s: %s/%s reports kernel '%s', not %s*", label,
                  cfg->format, cfg->algo, info.kernel, want);
        /* the smallest layout: hbp in fp32, 16-bit column offsets and float values */
        CHECK_MSG(info.device_bytes >= (size_t)A->nnz * 6, "%s: %s/%s holds %zu device bytes for %lld nonzeros",
                  label, cfg->format, cfg->algo, info.device_bytes, (long long)A->nnz);
        int upload = 0;
        for (int i = 0; i < info.n_phases; i++) upload |= info.phases[i].name && !strcmp(info.phases[i].name, "upload");
        CHECK_MSG(upload, "%s: %s/%s has no upload phase", label, cfg->format, cfg->algo);
    }
}

/* The plan's device layout back to CSR equals A (values rounded to float for fp32 plans): the
 * round trip checks what the GPU holds, whether the host or the device built it; both builds
 * equal to A means they produced identical arrays. */
static void check_round_trip(spx_ctx *ctx, spx_plan *p, const spx_csr *A, spx_precision prec, const gpu_cfg *cfg,
                             const char *label)
{
    char what[256];
    snprintf(what, sizeof what, "%s: %s/%s (%s build, %s) device layout", label, cfg->format, cfg->algo,
             site_name(cfg), prec == SPX_FP32 ? "fp32" : "fp64");
    fc_round_trip(ctx, p, A, prec, what);
}

/* Every configuration (of format only_format; NULL: every format) in one precision on A: host
 * b = 0 (y poisoned), host b != 0, and the same two through the device entry point. Returns
 * the worst error seen. */
static double check_precision(spx_ctx *ctx, const spx_csr *A, const char *label, spx_precision prec,
                              const char *only_format)
{
    gpu_case c;
    memset(&c, 0, sizeof c);
    double worst = 0.0, tol = prec == SPX_FP32 ? TOL32 : TOL64;
    const char *pn = prec == SPX_FP32 ? "fp32" : "fp64";
    double *y = malloc(((size_t)A->m + 1) * sizeof(double)), *nan_y = malloc(((size_t)A->m + 1) * sizeof(double));
    if (!y || !nan_y || !case_make(ctx, A, prec, 0x5eed0000u + (uint64_t)A->nnz, &c)) {
        CHECK_MSG(0, "%s: out of host memory", label);
        free(y);
        free(nan_y);
        case_free(&c);
        return INFINITY;
    }
    for (int64_t i = 0; i < A->m; i++) nan_y[i] = NAN;
    /* racecheck reports hazards inside cuSPARSE's own kernels: let such runs leave it out */
    const char *skip_env = getenv("SPX_GPU_TEST_SKIP_CUSPARSE");
    const int skip_cusparse = skip_env && *skip_env;
    for (int k = 0; k < N_CFGS; k++) {
        const gpu_cfg *cfg = &CFGS[k];
        if ((skip_cusparse && cfg->baseline) || (only_format && strcmp(cfg->format, only_format))) continue;
        spx_plan_opts o = {.format = cfg->format, .algo = cfg->algo, .backend = SPX_BACKEND_CUDA, .precision = prec,
                           .build = cfg->build};
        spx_plan *p = NULL;
        spx_status s = spx_plan_create(ctx, A, &o, &p);
        CHECK_MSG(s == SPX_OK, "%s %s %s/%s (%s build): plan: %s: %s", label, pn, cfg->format, cfg->algo,
                  site_name(cfg), spx_status_str(s), spx_ctx_last_error(ctx));
        if (s) continue;
        check_info(p, cfg, A, label);
        if (cfg->round_trip) check_round_trip(ctx, p, A, prec, cfg, label);
        for (int run = 0; run < 4; run++) {
            int dev = run >= 2, with_b = run & 1;
            double b = with_b ? BETA : 0.0;
            const double *yin = with_b ? c.y0 : nan_y;
            s = dev ? device_spmv(ctx, p, prec, &c, b, yin, y) : host_spmv(p, prec, &c, b, yin, y);
            double e = s ? INFINITY : spx_rel_error(y, SPX_FP64, with_b ? c.ref1 : c.ref0, A->m);
            if (e > worst || isnan(e)) worst = e;
            CHECK_MSG(s == SPX_OK && e <= tol, "%s %s %s/%s %s b=%g: %s %s rel err %.3g (tol %.0e)", label, pn,
                      cfg->format, cfg->algo, dev ? "device" : "host", b, spx_status_str(s),
                      s ? spx_ctx_last_error(ctx) : "", e, tol);
        }
        spx_plan_destroy(&p);
    }
    free(y);
    free(nan_y);
    case_free(&c);
    return worst;
}

/* Whether two summed measures agree to rounding. */
static int close_to(double a, double b) { return fabs(a - b) <= 1e-9 * (fabs(a) > 1 ? fabs(a) : 1); }

/* A's features computed on the device (what CUDA plans use) against the host's mirror of them
 * (spx_features_compute_sampled_threads: the same sampled entries above
 * SPX_FEATURES_COL_SAMPLES): counts and maxima exactly, sums to rounding; the same bits in two
 * device runs and without the upload's scratch (the allocating path). And the sample against
 * the full pass: diag_distance within 5 % (+ 0.002), col_near within 0.02, the bandwidth at most
 * the full pass's. */
static void check_features(spx_ctx *ctx, const spx_csr *A, const char *label)
{
    spx_dev_csr D;
    memset(&D, 0, sizeof D);
    spx_features h, full, d1, d2, d3;
    CHECK_OK(ctx, spx_features_compute_sampled_threads(A, 4, &h));
    CHECK_OK(ctx, spx_features_compute(A, &full));
    spx_status s = spx_cuda_dev_csr_upload(ctx, A, SPX_FP64, &D);
    CHECK_MSG(s || D.scratch, "%s: the uploaded CSR has no scratch", label);
    if (!s) s = spx_cuda_features(ctx, &D, &d1);
    if (!s) s = spx_cuda_features(ctx, &D, &d2);
    spx_dev_csr bare = D;
    bare.scratch = NULL;
    if (!s) s = spx_cuda_features(ctx, &bare, &d3);
    spx_cuda_dev_csr_free(ctx, &D);
    CHECK_OK(ctx, s);
    if (s) return;
    CHECK_MSG(!memcmp(&d1, &d2, sizeof d1) && !memcmp(&d1, &d3, sizeof d1),
              "%s: the device features differ between runs (or without the scratch)", label);
    CHECK_MSG(h.m == d1.m && h.n == d1.n && h.nnz == d1.nnz && h.row_min == d1.row_min && h.row_max == d1.row_max &&
                  h.empty_rows == d1.empty_rows && close_to(h.row_mean, d1.row_mean) &&
                  close_to(h.row_stddev, d1.row_stddev) && close_to(h.row_cv, d1.row_cv),
              "%s: device features: rows %lld..%lld, %lld empty, stddev %.17g; host %lld..%lld, %lld, %.17g", label,
              (long long)d1.row_min, (long long)d1.row_max, (long long)d1.empty_rows, d1.row_stddev,
              (long long)h.row_min, (long long)h.row_max, (long long)h.empty_rows, h.row_stddev);
    const int sampled = A->nnz > SPX_FEATURES_COL_SAMPLES;
    CHECK_MSG(d1.bandwidth == h.bandwidth && close_to(h.diag_distance, d1.diag_distance) &&
                  close_to(h.col_near, d1.col_near),
              "%s: device features (%s): bandwidth %lld distance %.17g near %.17g; host %lld %.17g %.17g", label,
              sampled ? "sampled" : "every entry", (long long)d1.bandwidth, d1.diag_distance, d1.col_near,
              (long long)h.bandwidth, h.diag_distance, h.col_near);
    CHECK_MSG(d1.bandwidth <= full.bandwidth &&
                  fabs(d1.diag_distance - full.diag_distance) <= 0.05 * full.diag_distance + 0.002 &&
                  fabs(d1.col_near - full.col_near) <= 0.02,
              "%s: sampled features far from the full pass: bandwidth %lld distance %.17g near %.17g; full %lld "
              "%.17g %.17g",
              label, (long long)d1.bandwidth, d1.diag_distance, d1.col_near, (long long)full.bandwidth,
              full.diag_distance, full.col_near);
}

/* Both precisions on A; prints one line per matrix. Takes ownership of A. */
static void check_matrix(spx_ctx *ctx, spx_csr *A, const char *label)
{
    CHECK_MSG(A != NULL, "%s: could not build or load the matrix: %s", label, spx_ctx_last_error(ctx));
    if (!A) return;
    check_features(ctx, A, label);
    double e64 = check_precision(ctx, A, label, SPX_FP64, NULL);
    double e32 = check_precision(ctx, A, label, SPX_FP32, NULL);
    printf("  %-28s %9d x %-9d nnz %-9lld worst rel err fp64 %.2e fp32 %.2e\n", label, A->m, A->n,
           (long long)A->nnz, e64, e32);
    fflush(stdout);
    spx_csr_destroy(&A);
}

/* A matrix from a generator spec (NULL on failure, message in ctx). */
static spx_csr *gen(spx_ctx *ctx, const char *spec)
{
    spx_csr *A = NULL;
    return spx_gen(ctx, spec, &A) == SPX_OK ? A : NULL;
}

/* A CSR from row lengths given by a small repeating pattern. */
static spx_csr *pattern_rows(spx_ctx *ctx, int32_t m, int32_t n, const int64_t *pat, int npat, int32_t span,
                             uint64_t seed)
{
    int64_t *len = malloc(((size_t)m + 1) * sizeof *len);
    if (!len) return NULL;
    for (int32_t i = 0; i < m; i++) len[i] = pat[i % npat];
    spx_csr *A = make_rows(ctx, m, n, len, span, seed);
    free(len);
    return A;
}

/* DESIGN §8's edge cases. */
static void test_edge_cases(spx_ctx *ctx)
{
    printf("edge cases:\n");
    { /* 0 x 0 */
        spx_csr *A = NULL;
        CHECK_OK(ctx, spx_csr_alloc(ctx, 0, 0, 0, &A));
        check_matrix(ctx, A, "0x0");
    }
    { /* 1 x 1 with one entry, and with none */
        const int64_t one[] = {1}, none[] = {0};
        check_matrix(ctx, pattern_rows(ctx, 1, 1, one, 1, 0, 11), "1x1");
        check_matrix(ctx, pattern_rows(ctx, 1, 1, none, 1, 0, 12), "1x1 empty");
        check_matrix(ctx, pattern_rows(ctx, 300, 200, none, 1, 0, 13), "300x200 no entries");
    }
    { /* empty rows: leading, trailing and every fourth */
        int32_t m = 2000;
        int64_t *len = malloc((size_t)m * sizeof *len);
        for (int32_t i = 0; i < m; i++) len[i] = (i < 50 || i >= m - 100 || i % 4 == 0) ? 0 : 1 + i % 40;
        check_matrix(ctx, make_rows(ctx, m, 1500, len, 0, 14), "empty rows");
        free(len);
    }
    { /* empty columns: only the first 2000 of 5000 columns used */
        const int64_t pat[] = {3, 0, 7, 12, 1};
        check_matrix(ctx, pattern_rows(ctx, 700, 5000, pat, 5, 2000, 15), "empty columns");
    }
    { /* rows around a warp and a 512-thread block */
        const int64_t pat[] = {31, 32, 33, 511, 512, 513};
        check_matrix(ctx, pattern_rows(ctx, 300, 1024, pat, 6, 0, 16), "rows 31-33, 511-513");
    }
    { /* every adaptive bin, huge rows with a partial last chunk, between empty rows */
        const int64_t pat[] = {0,   1,   2,    3,    4,    5,     8,     9,     16,    17, 31, 33,
                               64,  65,  100,  128,  129,  1024,  1025,  5000,  32768, 32769, 70000, 0};
        check_matrix(ctx, pattern_rows(ctx, 72, 70001, pat, 24, 0, 17), "all row-length bins");
    }
    { /* one dense row of 2^20 entries among short rows */
        const int64_t pat[] = {0, 1, 33, 1 << 20, 5, 5, 5, 5};
        check_matrix(ctx, pattern_rows(ctx, 8, 1 << 20, pat, 8, 0, 18), "dense row 1M");
    }
    { /* one long row in a long matrix of short rows: many warps/tiles carry into it */
        int32_t m = 20000;
        int64_t *len = malloc((size_t)m * sizeof *len);
        for (int32_t i = 0; i < m; i++) len[i] = i == 777 ? 150000 : i % 5;
        check_matrix(ctx, make_rows(ctx, m, 200000, len, 0, 19), "one 150k row + short rows");
        free(len);
    }
    check_matrix(ctx, gen(ctx, "gen:uniform:m=3999,n=4193,k=7"), "4096-97 x 4096+97");
    check_matrix(ctx, gen(ctx, "gen:uniform:m=65633,n=65439,k=5"), "65536+97 x 65536-97");
    check_matrix(ctx, gen(ctx, "gen:uniform:m=161,n=31,k=3"), "128+33 x 32-1");
    check_matrix(ctx, gen(ctx, "gen:tall"), "tall (gen:tall)");
    check_matrix(ctx, gen(ctx, "gen:wide"), "wide (gen:wide)");
}

/* Rows whose columns run backwards (spx_csr_wrap accepts any order), through every csr
 * algorithm: 64 rows of ~3000 entries over 300,000 columns make colblock take several column
 * blocks with x in shared memory, where an entry's column may lie outside the block whose
 * range holds it. (Other formats have their own: hbp's test_bands_unsorted.) */
static void test_unsorted_rows(spx_ctx *ctx)
{
    printf("unsorted rows (csr):\n");
    const int64_t pat[] = {3000, 2999, 17, 0, 3100, 1};
    spx_csr *S = pattern_rows(ctx, 64, 300000, pat, 6, 0, 23);
    CHECK_MSG(S != NULL, "unsorted rows: %s", spx_ctx_last_error(ctx));
    if (!S) return;
    for (int32_t i = 0; i < S->m; i++) /* reverse each row: columns descending */
        for (int64_t a = S->rowptr[i], b = S->rowptr[i + 1] - 1; a < b; a++, b--) {
            const int32_t c = S->colind[a];
            const double v = S->val[a];
            S->colind[a] = S->colind[b], S->val[a] = S->val[b];
            S->colind[b] = c, S->val[b] = v;
        }
    spx_csr *W = NULL;
    CHECK_OK(ctx, spx_csr_wrap(ctx, S->m, S->n, S->nnz, S->rowptr, S->colind, S->val, &W));
    if (W) {
        const double e64 = check_precision(ctx, W, "unsorted rows", SPX_FP64, "csr");
        const double e32 = check_precision(ctx, W, "unsorted rows", SPX_FP32, "csr");
        printf("  %-28s %9d x %-9d nnz %-9lld worst rel err fp64 %.2e fp32 %.2e\n", "rows descending", W->m, W->n,
               (long long)W->nnz, e64, e32);
    }
    spx_csr_destroy(&W);
    spx_csr_destroy(&S);
}

/* Generated matrices bigger than a warp, of the kinds the benchmarks use. */
static void test_generated(spx_ctx *ctx)
{
    static const char *const specs[] = {
        "gen:poisson2d:n=100",         "gen:poisson3d:n=20", "gen:stencil27:n=12",   "gen:powerlaw:m=20000,k=8",
        "gen:rmat:scale=12,ef=8",      "gen:banded:m=3000",  "gen:blockdiag:m=2000", "gen:uniform:m=5000,n=5000,k=40",
    };
    printf("generated:\n");
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) check_matrix(ctx, gen(ctx, specs[i]), specs[i]);
    /* features only: columns sampled 1 in 61 (random), 1 in 26 (narrow band), 1 in 8 (a few long rows) */
    static const char *const big[] = {"gen:uniform:m=2000000,k=8", "gen:poisson3d:n=100", "gen:powerlaw:m=250000,k=8"};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        spx_csr *A = gen(ctx, big[i]);
        CHECK_MSG(A != NULL, "%s: %s", big[i], spx_ctx_last_error(ctx));
        if (A) check_features(ctx, A, big[i]);
        spx_csr_destroy(&A);
    }
}

/* Every *.mtx.gz of the shared matrix directory. */
static void test_shared(spx_ctx *ctx)
{
    const char *dir = getenv("SPX_SHARED_MATRICES");
    if (!dir || !*dir) dir = SPX_SHARED_MATRICES;
    DIR *d = opendir(dir);
    printf("shared matrices (%s):\n", dir);
    if (!d) {
        printf("  (directory not found: skipped)\n");
        return;
    }
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, cap = 0;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 8 || strcmp(e->d_name + l - 7, ".mtx.gz")) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **nn = realloc(names, cap * sizeof *names);
            if (!nn) break;
            names = nn;
        }
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    for (size_t i = 0; i < n; i++) { /* directory order is arbitrary: sort for stable logs */
        for (size_t j = i + 1; j < n; j++)
            if (strcmp(names[j], names[i]) < 0) {
                char *t = names[i];
                names[i] = names[j];
                names[j] = t;
            }
    }
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        spx_csr *A = NULL;
        spx_status s = spx_mtx_read(ctx, path, NULL, &A, NULL);
        CHECK_MSG(s == SPX_OK, "%s: %s: %s", names[i], spx_status_str(s), spx_ctx_last_error(ctx));
        if (!s) check_matrix(ctx, A, names[i]);
        free(names[i]);
    }
    free(names);
}

/* A random COO with many duplicates (few distinct columns), rows left empty on purpose. */
static spx_coo *random_coo(spx_ctx *ctx, int32_t m, int32_t n, int64_t nnz, int32_t ncols, uint64_t seed)
{
    spx_coo *C = NULL;
    if (spx_coo_alloc(ctx, m, n, nnz, &C)) return NULL;
    for (int64_t k = 0; k < nnz; k++) {
        int32_t r = (int32_t)(rng_next(&seed) % (uint64_t)m);
        if (r % 7 == 3) r = (r + 1) % m; /* rows = 3 mod 7 stay empty (if m > 3) */
        C->row[k] = r;
        C->col[k] = (int32_t)((rng_next(&seed) % (uint64_t)ncols) * 11 % (uint64_t)n);
        C->val[k] = rng_sym(&seed);
    }
    return C;
}

/* The GPU COO -> CSR against the host one: the same arrays bit for bit (duplicates summed left
 * to right in input order on both), the same duplicate count. */
static void check_coo(spx_ctx *ctx, spx_coo *C, const char *label)
{
    CHECK_MSG(C != NULL, "%s: COO not built", label);
    if (!C) return;
    spx_csr *G = NULL, *H = NULL;
    int64_t dups = 0;
    double t = -1.0;
    spx_status sg = spx_cuda_coo_to_csr(ctx, C, &G, &t);
    CHECK_MSG(sg == SPX_OK, "%s: GPU COO->CSR: %s: %s", label, spx_status_str(sg), spx_ctx_last_error(ctx));
    CHECK_OK(ctx, spx_coo_to_csr(ctx, C, 0, &dups, &H));
    if (G && H) {
        CHECK_MSG(G->m == H->m && G->n == H->n && G->nnz == H->nnz, "%s: shape/nnz %dx%d/%lld vs %dx%d/%lld", label,
                  G->m, G->n, (long long)G->nnz, H->m, H->n, (long long)H->nnz);
        if (G->m == H->m && G->nnz == H->nnz) {
            CHECK_MSG(!memcmp(G->rowptr, H->rowptr, ((size_t)G->m + 1) * sizeof *G->rowptr), "%s: rowptr differs", label);
            CHECK_MSG(!G->nnz || !memcmp(G->colind, H->colind, (size_t)G->nnz * sizeof *G->colind),
                      "%s: colind differs", label);
            CHECK_MSG(!G->nnz || !memcmp(G->val, H->val, (size_t)G->nnz * sizeof *G->val),
                      "%s: values differ (duplicates are summed in input order on both)", label);
        }
        CHECK_MSG(G->meta.duplicates == dups, "%s: %lld duplicates, host %lld", label,
                  (long long)G->meta.duplicates, (long long)dups);
        CHECK_MSG(t >= 0.0, "%s: sort time %g", label, t);
        printf("  %-28s %9d x %-9d coo %-9lld -> nnz %-9lld dups %lld, device %.3f ms\n", label, C->m, C->n,
               (long long)C->nnz, (long long)G->nnz, (long long)dups, 1e3 * t);
    }
    spx_csr_destroy(&G);
    spx_csr_destroy(&H);
    spx_coo_destroy(&C);
}

static void test_coo_to_csr(spx_ctx *ctx)
{
    printf("COO -> CSR on the GPU:\n");
    check_coo(ctx, random_coo(ctx, 1000, 700, 30000, 60, 21), "random, many duplicates");
    check_coo(ctx, random_coo(ctx, 100000, 3000, 400000, 3000, 22), "random, few duplicates");
    check_coo(ctx, random_coo(ctx, 1, 1, 5, 1, 23), "1x1, 5 duplicates");
    check_coo(ctx, random_coo(ctx, 5, 1, 9, 1, 25), "5x1");
    check_coo(ctx, random_coo(ctx, 1, 100000, 5000, 100000, 26), "1 x 100000");
    spx_coo *E = NULL;
    CHECK_OK(ctx, spx_coo_alloc(ctx, 4, 3, 0, &E));
    check_coo(ctx, E, "4x3, no entries");
    E = NULL;
    CHECK_OK(ctx, spx_coo_alloc(ctx, 0, 0, 0, &E));
    check_coo(ctx, E, "0x0");
    spx_coo *B = random_coo(ctx, 10, 10, 20, 10, 24);
    if (B) {
        B->col[7] = 10; /* out of range: refused with a message, nothing returned */
        spx_csr *G = NULL;
        spx_status s = spx_cuda_coo_to_csr(ctx, B, &G, NULL);
        CHECK_MSG(s == SPX_ERR_ARG && G == NULL, "out-of-range COO gave %s", spx_status_str(s));
        spx_coo_destroy(&B);
    }
}

/* Device query, timer, L2 flush, copy bandwidth, zero-byte allocations and copies. */
static void test_runtime(spx_ctx *ctx)
{
    spx_device_info info;
    memset(&info, 0, sizeof info);
    CHECK_OK(ctx, spx_cuda_init(ctx));
    CHECK_OK(ctx, spx_cuda_init(ctx)); /* idempotent */
    CHECK_OK(ctx, spx_cuda_query(ctx, &info));
    CHECK(info.sm_count > 0 && info.name[0] && info.l2_bytes > 0 && info.global_bytes > 0);
    printf("device: %s, cc %d.%d, %d SMs, L2 %.1f MB, %.1f GB, runtime %d, driver %d\n", info.name, info.cc_major,
           info.cc_minor, info.sm_count, info.l2_bytes / 1e6, info.global_bytes / 1e9, info.runtime_version,
           info.driver_version);
    void *p = (void *)&info;
    CHECK_OK(ctx, spx_cuda_malloc(ctx, &p, 0));
    CHECK(p == NULL);
    CHECK_OK(ctx, spx_cuda_h2d(ctx, NULL, &info, 0));
    CHECK_OK(ctx, spx_cuda_d2h(ctx, &info, NULL, 0));
    spx_cuda_timer *t = NULL;
    double sec = -1.0, bw = 0.0;
    CHECK_OK(ctx, spx_cuda_timer_create(ctx, &t));
    CHECK_OK(ctx, spx_cuda_timer_start(ctx, t));
    CHECK_OK(ctx, spx_cuda_flush_l2(ctx));
    CHECK_OK(ctx, spx_cuda_flush_l2(ctx));
    CHECK_OK(ctx, spx_cuda_timer_stop(ctx, t, &sec));
    CHECK(sec >= 0.0);
    spx_cuda_timer_destroy(ctx, t);
    CHECK_OK(ctx, spx_cuda_copy_bandwidth(ctx, &bw));
    CHECK(bw > 1e9);
    printf("L2 flush x2: %.3f ms; device copy bandwidth %.0f GB/s (read + write)\n", 1e3 * sec, bw / 1e9);
}

/* The csr stream blocks cut on the device from rp (m + 1 host row pointers, uploaded) against
 * the host walk's, every budget: the same counts and the same blocks and splits, bit for bit. */
static void check_stream_walk(spx_ctx *ctx, const int32_t *rp, int32_t m, const char *label)
{
    const spx_csr_stream_limits lims[3] = {
        {SPX_CSR_CUDA_STREAM_NNZ, SPX_CSR_CUDA_STREAM_CHUNK, SPX_CSR_CUDA_STREAM_MAX_ROWS},
        {SPX_CSR_CUDA_STREAM_NNZ_SMALL, SPX_CSR_CUDA_STREAM_CHUNK, SPX_CSR_CUDA_STREAM_MAX_ROWS},
        {SPX_CSR_CUDA_STREAM_NNZ_SKEWED, SPX_CSR_CUDA_STREAM_CHUNK, SPX_CSR_CUDA_STREAM_MAX_ROWS}};
    int32_t *drp = NULL;
    CHECK_OK(ctx, spx_cuda_malloc(ctx, (void **)&drp, ((size_t)m + 1) * sizeof *drp));
    if (!drp) return;
    CHECK_OK(ctx, spx_cuda_h2d(ctx, drp, rp, ((size_t)m + 1) * sizeof *drp));
    for (int l = 0; l < 3; l++) {
        spx_csr_stream_plan H, D;
        CHECK_OK(ctx, spx_csr_stream_blocks(ctx, rp, m, &lims[l], &H));
        CHECK_OK(ctx, spx_csr_stream_blocks_device(ctx, drp, m, &lims[l], &D));
        int same = H.n_blocks == D.n_blocks && H.n_splits == D.n_splits && H.n_parts == D.n_parts;
        spx_csr_stream_block *b = calloc((size_t)D.n_blocks + 1, sizeof *b);
        spx_csr_stream_split *sp = calloc((size_t)D.n_splits + 1, sizeof *sp);
        if (same && b && sp) {
            CHECK_OK(ctx, spx_cuda_d2h(ctx, b, D.blocks, (size_t)D.n_blocks * sizeof *b));
            CHECK_OK(ctx, spx_cuda_d2h(ctx, sp, D.splits, (size_t)D.n_splits * sizeof *sp));
            same = !memcmp(b, H.blocks, (size_t)H.n_blocks * sizeof *b) &&
                   !memcmp(sp, H.splits, (size_t)H.n_splits * sizeof *sp);
        }
        CHECK_MSG(same, "%s (budget %d): device stream blocks %lld / splits %lld / parts %lld differ from the host's "
                  "%lld / %lld / %lld", label, lims[l].nnz, (long long)D.n_blocks, (long long)D.n_splits,
                  (long long)D.n_parts, (long long)H.n_blocks, (long long)H.n_splits, (long long)H.n_parts);
        free(b);
        free(sp);
        spx_cuda_free(ctx, D.blocks);
        spx_cuda_free(ctx, D.splits);
        spx_csr_stream_plan_free(ctx, &H);
    }
    spx_cuda_free(ctx, drp);
}

/* The device walk of the csr stream blocks on generated matrices (many pieces, long rows split
 * over blocks, empty rows) and on synthetic row pointers at the piece edges. */
static void test_stream_walk(spx_ctx *ctx)
{
    const char *specs[] = {"gen:poisson3d:n=40", "gen:powerlaw:m=200000,k=8", "gen:rmat:scale=17,ef=8",
                           "gen:wide:m=64,n=300000,k=40000"};
    for (size_t c = 0; c < sizeof specs / sizeof specs[0]; c++) {
        spx_csr *A = NULL;
        CHECK_OK(ctx, spx_gen(ctx, specs[c], &A));
        if (!A) continue;
        int32_t *rp = malloc(((size_t)A->m + 1) * sizeof *rp);
        if (rp) {
            for (int64_t i = 0; i <= A->m; i++) rp[i] = (int32_t)A->rowptr[i];
            check_stream_walk(ctx, rp, A->m, specs[c]);
        }
        free(rp);
        spx_csr_destroy(&A);
    }
    /* rows of 0..39 entries, empty ones and rows of 17000 (split over three chunks), repeating,
       one row, a whole piece, a piece and a row */
    const int32_t P = SPX_CSR_STREAM_PIECE_ROWS, M = 3 * P + 77;
    int32_t *rp = malloc(((size_t)M + 1) * sizeof *rp);
    if (!rp) return;
    rp[0] = 0;
    for (int32_t i = 0; i < M; i++) rp[i + 1] = rp[i] + (i % 97 == 0 ? 17000 : i % 7 == 0 ? 0 : (i * 13) % 40);
    const int32_t ms[] = {1, P, P + 1, M};
    for (int k = 0; k < 4; k++) {
        char label[64];
        snprintf(label, sizeof label, "synthetic rows, m = %d", ms[k]);
        check_stream_walk(ctx, rp, ms[k], label);
    }
    free(rp);
    printf("csr stream blocks cut on the device: the host walk's, on %zu matrices and 4 synthetic row sets\n",
           sizeof specs / sizeof specs[0]);
}

int main(void)
{
    spx_ctx *ctx = NULL;
    int rc = fc_gpu_ctx(&ctx);
    if (rc) return rc;
    collect_cfgs();
    printf("%d configurations from the registry:", N_CFGS);
    for (int k = 0; k < N_CFGS; k++) printf(" %s/%s%s", CFGS[k].format, CFGS[k].algo, CFGS[k].build == SPX_BUILD_DEVICE ? "@dev" : "");
    printf("\n");
    test_runtime(ctx);
    test_edge_cases(ctx);
    test_unsorted_rows(ctx);
    test_generated(ctx);
    test_coo_to_csr(ctx);
    test_stream_walk(ctx);
    /* SPX_GPU_TEST_QUICK (scripts/gpu-check.sh under compute-sanitizer) or _NO_SHARED: the
     * shared matrices are left out, everything else runs */
    if (!getenv("SPX_GPU_TEST_QUICK") && !getenv("SPX_GPU_TEST_NO_SHARED")) test_shared(ctx);
    spx_ctx_destroy(&ctx);
    return check_report();
}
