/* src/bench/spmv_bench.c: the SpMV measurement: a case holds x, y0 and extended-precision
 * references; each format is planned, verified (y poisoned with NaN, b = 0 and b != 0; in
 * the plan's numbering when it keeps vectors in its own order), and timed by the protocol
 * (src/bench/protocol.c): latency and back-to-back throughput. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/spmv_bench.h"
#include "core/rng.h"

void spx_bench_fill_random(double *v, float *v32, int64_t n, uint64_t seed)
{
    for (int64_t i = 0; i < n; i++) {
        float f = (float)(spx_splitmix64_unit(&seed) * 2.0 - 1.0);
        if (v32) v32[i] = f;
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
    return spx_bench_case_create_x(ctx, A, seed, NULL, out);
}

spx_status spx_bench_case_create_x(spx_ctx *ctx, const spx_csr *A, unsigned seed, const double *x,
                                   spx_bench_case **out)
{
    if (!ctx || !A || !out) return SPX_ERR_ARG;
    spx_features feat;
    spx_status s = spx_features_compute(A, &feat);
    if (s) return spx_fail(ctx, s, "benchmark case: cannot read the matrix's features");
    spx_bench_case *c = spx_calloc_array(ctx, 1, sizeof *c);
    if (!c) return spx_fail_nomem(ctx, "benchmark case");
    c->ctx = ctx;
    c->A = A;
    c->row_max = feat.row_max;
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
    if (x) {
        for (int64_t j = 0; j < A->n; j++) {
            c->x[j] = x[j];
            c->x32[j] = (float)x[j];
        }
    } else {
        spx_bench_fill_random(c->x, c->x32, A->n, 0x5158ull + seed);
    }
    spx_bench_fill_random(c->y0, c->y032, A->m, 0xB0B0ull + seed);
    spx_csr_spmv_ref(A, 1.0, c->x, 0.0, c->yref);
    memcpy(c->yrefb, c->y0, m * sizeof *c->yrefb);
    spx_csr_spmv_ref(A, BENCH_ALPHA_B, c->x, BENCH_BETA_B, c->yrefb);
    *out = c;
    return SPX_OK;
}

double spx_bench_tol_for(int64_t row_max, spx_precision p)
{
    if (p == SPX_FP64) return 1e-12;
    double len = row_max > 100 ? (double)row_max : 100.0;
    return 1e-6 * sqrt(len);
}

double spx_bench_default_tol(const spx_bench_case *c, spx_precision p) { return spx_bench_tol_for(c->row_max, p); }

void spx_bench_copy_out(double *y_out, const void *y, spx_precision p, int64_t m)
{
    if (!y_out) return;
    for (int64_t i = 0; i < m; i++) y_out[i] = p == SPX_FP32 ? (double)((const float *)y)[i] : ((const double *)y)[i];
}

void spx_bench_poison(void *y, spx_precision p, int64_t m)
{
    for (int64_t i = 0; i < m; i++) {
        if (p == SPX_FP32)
            ((float *)y)[i] = NAN;
        else
            ((double *)y)[i] = NAN;
    }
}

spx_bench_timing spx_bench_timing_of(const spx_bench_opts *o, const spx_bench_result *r)
{
    int gpu = r->plan.backend == SPX_BACKEND_CUDA;
    spx_bench_timing t = {
        .warmup = o->warmup ? o->warmup : BENCH_WARMUP,
        .reps = o->reps ? o->reps : gpu ? BENCH_GPU_REPS : BENCH_CPU_REPS,
        .cold = r->cold,
        .batch_calls = o->batch_calls,
    };
    return t;
}

double spx_bench_giga_rate(double amount, double t) { return t > 0 ? amount / t * 1e-9 : NAN; }

double spx_bench_verdict(const double e[3], double tol, int *verified)
{
    double worst = fmax(e[0], fmax(e[1], e[2]));
    if (isnan(worst)) worst = INFINITY;
    *verified = worst <= tol;
    return worst;
}

void spx_bench_finish(spx_bench_result *r, const double e[3], double tol, const spx_bench_times *t,
                      const spx_csr *A)
{
    r->rel_error = spx_bench_verdict(e, tol, &r->verified);
    r->reps = t->reps;
    r->t_median = t->median;
    r->t_min = t->min;
    r->t_max = t->max;
    if (r->t_median > 0) {
        r->gflops = spx_bench_giga_rate(2.0 * (double)A->nnz, r->t_median);
        r->gbytes = spx_bench_giga_rate(r->plan.bytes_per_spmv, r->t_median);
    }
    r->batches = t->batches;
    r->batch_calls = t->batch_calls;
    r->t_batch = t->batches ? t->batch : NAN;
    r->gflops_batch = spx_bench_giga_rate(2.0 * (double)A->nnz, r->t_batch);
    r->gbytes_batch = spx_bench_giga_rate(r->plan.bytes_per_spmv, r->t_batch);
}

spx_status spx_bench_record_failure(spx_ctx *ctx, spx_bench_result *r, spx_status s)
{
    r->status = s;
    snprintf(r->msg, sizeof r->msg, "%s", spx_ctx_last_error(ctx));
    return SPX_OK;
}

/* Makes n plans of A one after another (each destroyed before the next), keeps the last in *out
 * and the info of the one of median plan time in *info. */
static spx_status make_plans(spx_ctx *ctx, const spx_csr *A, const spx_plan_opts *popts, int n, spx_plan **out,
                             spx_plan_info *info)
{
    spx_plan_info infos[SPX_BENCH_MAX_PLAN_REPS];
    spx_status s = SPX_OK;
    for (int k = 0; k < n && !s; k++) {
        spx_plan_destroy(out);
        if (!(s = spx_plan_create(ctx, A, popts, out))) spx_plan_get_info(*out, &infos[k]);
    }
    if (s) return s;
    for (int k = 1; k < n; k++) /* insertion sort by plan time: n is small */
        for (int j = k; j > 0 && infos[j].plan_seconds < infos[j - 1].plan_seconds; j--) {
            spx_plan_info t = infos[j];
            infos[j] = infos[j - 1];
            infos[j - 1] = t;
        }
    *info = infos[n / 2];
    return SPX_OK;
}

/* out[i] = v[perm[i]], i < len, for a vector of precision p (double or float). */
static void permute_into(const int32_t *perm, const void *v, void *out, int64_t len, spx_precision p)
{
    for (int64_t i = 0; i < len; i++) {
        if (p == SPX_FP32)
            ((float *)out)[i] = ((const float *)v)[perm[i]];
        else
            ((double *)out)[i] = ((const double *)v)[perm[i]];
    }
}

/* A case with c's vectors and references in the numbering perm (new -> original; the matrix
 * square), for a plan whose x and y are in its own order: verified and timed as any other. */
static spx_status permuted_case(spx_ctx *ctx, const spx_bench_case *c, const int32_t *perm, spx_bench_case **out)
{
    const size_t m = (size_t)c->A->m;
    spx_bench_case *q = spx_calloc_array(ctx, 1, sizeof *q);
    if (!q) return spx_fail_nomem(ctx, "benchmark case in plan order");
    *q = (spx_bench_case){.ctx = ctx, .A = c->A, .row_max = c->row_max};
    double **d[] = {&q->x, &q->y0, &q->yref, &q->yrefb};
    const double *dsrc[] = {c->x, c->y0, c->yref, c->yrefb};
    float **f[] = {&q->x32, &q->y032};
    const float *fsrc[] = {c->x32, c->y032};
    int ok = 1;
    for (int k = 0; k < 4; k++) ok &= (*d[k] = spx_malloc_array(ctx, m, sizeof(double))) != NULL;
    for (int k = 0; k < 2; k++) ok &= (*f[k] = spx_malloc_array(ctx, m, sizeof(float))) != NULL;
    if (!ok) {
        spx_bench_case_destroy(&q);
        return spx_fail_nomem(ctx, "benchmark vectors in plan order");
    }
    for (int k = 0; k < 4; k++) permute_into(perm, dsrc[k], *d[k], (int64_t)m, SPX_FP64);
    for (int k = 0; k < 2; k++) permute_into(perm, fsrc[k], *f[k], (int64_t)m, SPX_FP32);
    *out = q;
    return SPX_OK;
}

/* Verifies and times plan p on its backend with case c, in the plan's numbering when it has
 * one (o->y_out then receives y in the caller's order); extra (NULL: none) runs after p in
 * every timed call. */
static spx_status run_plan(spx_ctx *ctx, const spx_bench_case *c, spx_plan *p, spx_plan *extra,
                           const spx_bench_opts *o, spx_bench_result *r)
{
    const int32_t *perm = NULL;
    spx_status s = spx_plan_permutation(p, &perm);
    if (s) return s;
    const spx_bench_case *use = c;
    spx_bench_case *q = NULL;
    spx_bench_opts oq = *o;
    double *y_plan = NULL;
    if (perm) {
        if ((s = permuted_case(ctx, c, perm, &q))) return s;
        use = q;
        if (o->y_out && !(oq.y_out = y_plan = spx_malloc_array(ctx, (size_t)c->A->m, sizeof *y_plan))) {
            spx_bench_case_destroy(&q);
            return spx_fail_nomem(ctx, "benchmark y in plan order");
        }
        if (y_plan) permute_into(perm, o->y_out, y_plan, c->A->m, SPX_FP64); /* unwritten: unchanged */
    }
    s = r->plan.backend == SPX_BACKEND_CUDA ? spx_bench_run_cuda(ctx, use, p, extra, &oq, r)
                                            : spx_bench_run_cpu(ctx, use, p, extra, &oq, r);
    if (y_plan)
        for (int32_t i = 0; i < c->A->m; i++) o->y_out[perm[i]] = y_plan[i];
    spx_free(ctx, y_plan);
    spx_bench_case_destroy(&q);
    return s;
}

/* The demonstration's second plan (spx_bench_opts.demo_extra_work = frac): popts, in the
 * caller's order, over a view of A's leading rows holding frac of its nonzeros (at least one
 * row); *view (A's arrays, not copied) must outlive *out. Nothing when A has no nonzeros. */
static spx_status demo_plan(spx_ctx *ctx, const spx_csr *A, const spx_plan_opts *popts, double frac,
                            spx_csr **view, spx_plan **out)
{
    if (A->m == 0 || A->nnz == 0) return SPX_OK;
    int32_t lo = 1, hi = A->m; /* the fewest leading rows holding frac of the nonzeros */
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if ((double)A->rowptr[mid] >= frac * (double)A->nnz) hi = mid;
        else lo = mid + 1;
    }
    spx_plan_opts o = popts ? *popts : (spx_plan_opts){0};
    o.order = SPX_ORDER_CALLER;
    spx_status s = spx_csr_wrap(ctx, lo, A->n, A->rowptr[lo], A->rowptr, A->colind, A->val, view);
    if (!s) s = spx_plan_create(ctx, *view, &o, out);
    return s;
}

spx_status spx_bench_spmv(spx_ctx *ctx, const spx_bench_case *c, const spx_plan_opts *popts,
                          const spx_bench_opts *bopts, spx_bench_result *r)
{
    if (!ctx || !c || !r) return SPX_ERR_ARG;
    memset(r, 0, sizeof *r);
    r->rel_error = INFINITY;
    r->t_batch = r->gflops_batch = r->gbytes_batch = NAN;
    spx_bench_opts o = {0};
    if (bopts) o = *bopts;
    if (o.reps < 0 || o.warmup < 0 || o.tol < 0 || o.batch_calls < 0 || o.plan_reps < 0 || o.plan_reps > SPX_BENCH_MAX_PLAN_REPS ||
        !(o.demo_extra_work >= 0 && o.demo_extra_work <= 1))
        return spx_fail(ctx, SPX_ERR_ARG, "bad benchmark options");
    spx_plan *p = NULL, *extra = NULL;
    spx_csr *view = NULL;
    spx_status s = make_plans(ctx, c->A, popts, o.plan_reps ? o.plan_reps : SPX_BENCH_PLAN_REPS, &p, &r->plan);
    if (!s && o.demo_extra_work > 0) s = demo_plan(ctx, c->A, popts, o.demo_extra_work, &view, &extra);
    if (s && s != SPX_ERR_NOMEM) s = spx_bench_record_failure(ctx, r, s); /* out of memory is returned */
    if (s || r->status) goto done;
    r->plan_reps = o.plan_reps ? o.plan_reps : SPX_BENCH_PLAN_REPS;
    r->cold = o.cold && r->plan.backend == SPX_BACKEND_CUDA;
    s = run_plan(ctx, c, p, extra, &o, r);
done:
    spx_plan_destroy(&extra);
    spx_csr_destroy(&view);
    spx_plan_destroy(&p);
    return s;
}
