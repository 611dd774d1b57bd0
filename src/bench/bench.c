/* src/bench/bench.c: the measuring protocol. A case holds x, y0 and extended-precision
 * references; each format is planned, verified (y poisoned with NaN, b = 0 and b != 0),
 * warmed up and timed (wall clock on the CPU, CUDA events on the GPU), median reported. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ctx.h"
#include "bench/bench_internal.h"

/* splitmix64 step: the benchmark's deterministic inputs. */
static uint64_t mix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Fills v with values uniform in [-1, 1], rounded to fp32 (never all equal, never zero data). */
static void fill_random(double *v, float *v32, int64_t n, uint64_t seed)
{
    for (int64_t i = 0; i < n; i++) {
        float f = (float)((double)(mix64(&seed) >> 11) * 0x1.0p-53 * 2.0 - 1.0);
        v32[i] = f;
        v[i] = f;
    }
}

void spx_bench_case_destroy(spx_bench_case **pc)
{
    if (!pc || !*pc) return;
    spx_bench_case *c = *pc;
    spx_free(c->ctx, c->x);
    spx_free(c->ctx, c->y0);
    spx_free(c->ctx, c->yref);
    spx_free(c->ctx, c->yrefb);
    spx_free(c->ctx, c->x32);
    spx_free(c->ctx, c->y032);
    spx_free(c->ctx, c);
    *pc = NULL;
}

spx_status spx_bench_case_create(spx_ctx *ctx, const spx_csr *A, unsigned seed, spx_bench_case **out)
{
    if (!ctx || !A || !out) return SPX_ERR_ARG;
    spx_bench_case *c = spx_calloc_array(ctx, 1, sizeof *c);
    if (!c) return spx_fail_nomem(ctx, "benchmark case");
    c->ctx = ctx;
    c->A = A;
    size_t m = (size_t)A->m, n = (size_t)A->n;
    c->x = spx_malloc_array(ctx, n, sizeof *c->x);
    c->x32 = spx_malloc_array(ctx, n, sizeof *c->x32);
    c->y0 = spx_malloc_array(ctx, m, sizeof *c->y0);
    c->y032 = spx_malloc_array(ctx, m, sizeof *c->y032);
    c->yref = spx_malloc_array(ctx, m, sizeof *c->yref);
    c->yrefb = spx_malloc_array(ctx, m, sizeof *c->yrefb);
    if (!c->x || !c->x32 || !c->y0 || !c->y032 || !c->yref || !c->yrefb) {
        spx_bench_case_destroy(&c);
        return spx_fail_nomem(ctx, "benchmark vectors");
    }
    fill_random(c->x, c->x32, A->n, 0x5158ull + seed);
    fill_random(c->y0, c->y032, A->m, 0xB0B0ull + seed);
    spx_csr_spmv_ref(A, 1.0, c->x, 0.0, c->yref);
    memcpy(c->yrefb, c->y0, m * sizeof *c->yrefb);
    spx_csr_spmv_ref(A, BENCH_ALPHA_B, c->x, BENCH_BETA_B, c->yrefb);
    for (int32_t i = 0; i < A->m; i++) {
        int64_t len = A->rowptr[i + 1] - A->rowptr[i];
        if (len > c->row_max) c->row_max = len;
    }
    *out = c;
    return SPX_OK;
}

/* ||y - ref||_2 / ||ref||_2 (absolute when ref = 0); +inf if anything is not finite. */
double spx_bench_rel_error(const void *y, spx_precision p, const double *ref, int64_t m)
{
    long double num = 0, den = 0;
    for (int64_t i = 0; i < m; i++) {
        double yi = p == SPX_FP32 ? (double)((const float *)y)[i] : ((const double *)y)[i];
        if (!isfinite(yi)) return INFINITY;
        long double d = (long double)yi - ref[i];
        num += d * d;
        den += (long double)ref[i] * ref[i];
    }
    return den > 0 ? (double)sqrtl(num / den) : (double)sqrtl(num);
}

/* The default tolerance: fp64 1e-12; fp32 grows with the longest row (sum error ~ sqrt(len)). */
double spx_bench_default_tol(const spx_bench_case *c, spx_precision p)
{
    if (p == SPX_FP64) return 1e-12;
    double len = c->row_max > 100 ? (double)c->row_max : 100.0;
    return 1e-6 * sqrt(len);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median, min and max of the run times into r; gflops and GB/s from the median. */
void spx_bench_summarise(spx_bench_result *r, double *t, int n, const spx_csr *A)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    r->reps = n;
    r->t_min = t[0];
    r->t_max = t[n - 1];
    r->t_median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    if (r->t_median > 0) {
        r->gflops = 2.0 * (double)A->nnz / r->t_median * 1e-9;
        r->gbytes = r->plan.bytes_per_spmv / r->t_median * 1e-9;
    }
}

/* Sets r's status and message from the context's last error; returns SPX_OK. */
spx_status spx_bench_record_failure(spx_ctx *ctx, spx_bench_result *r, spx_status s)
{
    r->status = s;
    snprintf(r->msg, sizeof r->msg, "%s", spx_ctx_last_error(ctx));
    return SPX_OK;
}

spx_status spx_bench_spmv(spx_ctx *ctx, const spx_bench_case *c, const spx_plan_opts *popts,
                          const spx_bench_opts *bopts, spx_bench_result *r)
{
    if (!ctx || !c || !r) return SPX_ERR_ARG;
    memset(r, 0, sizeof *r);
    r->rel_error = INFINITY;
    spx_bench_opts o = {0};
    if (bopts) o = *bopts;
    if (o.reps < 0 || o.warmup < 0 || o.tol < 0) return spx_fail(ctx, SPX_ERR_ARG, "bad benchmark options");
    spx_plan *p = NULL;
    spx_status s = spx_plan_create(ctx, c->A, popts, &p);
    if (s == SPX_ERR_NOMEM && !p) return s;
    if (s) return spx_bench_record_failure(ctx, r, s);
    spx_plan_get_info(p, &r->plan);
    r->cold = o.cold && r->plan.backend == SPX_BACKEND_CUDA;
    if (r->plan.backend == SPX_BACKEND_CUDA)
        s = spx_bench_run_cuda(ctx, c, p, &o, r);
    else
        s = spx_bench_run_cpu(ctx, c, p, &o, r);
    spx_plan_destroy(&p);
    return s;
}
