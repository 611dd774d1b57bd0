/* src/bench/bench_cpu.c: verification and wall-clock timing of a CPU plan. */
#include <math.h>
#include <string.h>

#include "bench/bench_internal.h"

/* One SpMV on host arrays in the plan's precision (a, b narrowed for fp32). */
static spx_status run_host(spx_plan *p, spx_precision prec, double a, const void *x, double b, void *y)
{
    if (prec == SPX_FP32) return spx_plan_spmv_f32(p, (float)a, x, (float)b, y);
    return spx_plan_spmv(p, a, x, b, y);
}

/* Fills y (m values of the precision) with NaN, so unwritten entries fail verification. */
static void poison(void *y, spx_precision prec, int64_t m)
{
    for (int64_t i = 0; i < m; i++) {
        if (prec == SPX_FP32)
            ((float *)y)[i] = NAN;
        else
            ((double *)y)[i] = NAN;
    }
}

/* Copies y0 (in the precision) into y. */
static void load_y0(const spx_bench_case *c, void *y, spx_precision prec, int64_t m)
{
    if (prec == SPX_FP32)
        memcpy(y, c->y032, (size_t)m * sizeof(float));
    else
        memcpy(y, c->y0, (size_t)m * sizeof(double));
}

spx_status spx_bench_run_cpu(spx_ctx *ctx, const spx_bench_case *c, spx_plan *p, const spx_bench_opts *o,
                             spx_bench_result *r)
{
    spx_precision prec = r->plan.precision;
    int64_t m = c->A->m;
    int reps = o->reps ? o->reps : BENCH_CPU_REPS, warm = o->warmup ? o->warmup : BENCH_WARMUP;
    double tol = o->tol > 0 ? o->tol : spx_bench_default_tol(c, prec);
    const void *x = prec == SPX_FP32 ? (const void *)c->x32 : (const void *)c->x;
    void *y = spx_malloc_array(ctx, (size_t)m, prec == SPX_FP32 ? sizeof(float) : sizeof(double));
    double *t = spx_malloc_array(ctx, (size_t)reps, sizeof *t);
    spx_status s = SPX_OK;
    if (!y || !t) {
        s = spx_fail_nomem(ctx, "benchmark buffers");
        goto done;
    }
    poison(y, prec, m);
    if ((s = run_host(p, prec, 1.0, x, 0.0, y))) goto fail;
    double e0 = spx_bench_rel_error(y, prec, c->yref, m);
    load_y0(c, y, prec, m);
    if ((s = run_host(p, prec, BENCH_ALPHA_B, x, BENCH_BETA_B, y))) goto fail;
    double e1 = spx_bench_rel_error(y, prec, c->yrefb, m);
    for (int i = 0; i < warm; i++)
        if ((s = run_host(p, prec, 1.0, x, 0.0, y))) goto fail;
    poison(y, prec, m);
    for (int i = 0; i < reps; i++) {
        double t0 = spx_now();
        if ((s = run_host(p, prec, 1.0, x, 0.0, y))) goto fail;
        t[i] = spx_now() - t0;
    }
    double e2 = spx_bench_rel_error(y, prec, c->yref, m);
    r->rel_error = fmax(e0, fmax(e1, e2));
    if (isnan(r->rel_error)) r->rel_error = INFINITY;
    r->verified = r->rel_error <= tol;
    spx_bench_summarise(r, t, reps, c->A);
    goto done;
fail:
    s = spx_bench_record_failure(ctx, r, s);
done:
    spx_free(ctx, y);
    spx_free(ctx, t);
    return s;
}
