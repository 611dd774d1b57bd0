/* src/bench/spmv_cpu.c: verification and wall-clock timing of a CPU SpMV plan on host
 * vectors. */
#include <math.h>
#include <string.h>

#include "bench/spmv_bench.h"

/* One SpMV y = A*x of a plan on host vectors: the operation the protocol times. */
typedef struct host_spmv {
    spx_plan *p;
    spx_precision prec;
    const void *x;
    void *y;
    int64_t m;
    spx_plan *extra; /* the demonstration's second plan (NULL: none) and its y */
    void *y_extra;
} host_spmv;

/* One SpMV on host arrays in the plan's precision (a, b narrowed for fp32). */
static spx_status run_host(spx_plan *p, spx_precision prec, double a, const void *x, double b, void *y)
{
    if (prec == SPX_FP32) return spx_plan_spmv_f32(p, (float)a, x, (float)b, y);
    return spx_plan_spmv(p, a, x, b, y);
}

/* The protocol's run_once: y = A*x (then the demonstration's extra SpMV, if any). */
static spx_status host_run_once(void *op)
{
    host_spmv *h = op;
    spx_status s = run_host(h->p, h->prec, 1.0, h->x, 0.0, h->y);
    if (!s && h->extra) s = run_host(h->extra, h->prec, 1.0, h->x, 0.0, h->y_extra);
    return s;
}

/* The protocol's after_warmup: y poisoned, so the last timed output is checked whole. */
static spx_status host_poison(void *op)
{
    host_spmv *h = op;
    spx_bench_poison(h->y, h->prec, h->m);
    return SPX_OK;
}

/* Copies y0 (in the precision) into y. */
static void load_y0(const spx_bench_case *c, void *y, spx_precision prec, int64_t m)
{
    if (prec == SPX_FP32)
        memcpy(y, c->y032, (size_t)m * sizeof(float));
    else
        memcpy(y, c->y0, (size_t)m * sizeof(double));
}

spx_status spx_bench_run_cpu(spx_ctx *ctx, const spx_bench_case *c, spx_plan *p, spx_plan *extra,
                             const spx_bench_opts *o, spx_bench_result *r)
{
    spx_precision prec = r->plan.precision;
    int64_t m = c->A->m;
    double tol = o->tol > 0 ? o->tol : spx_bench_default_tol(c, prec);
    host_spmv h = {.p = p, .prec = prec, .m = m, .extra = extra};
    h.x = prec == SPX_FP32 ? (const void *)c->x32 : (const void *)c->x;
    h.y = spx_malloc_array(ctx, (size_t)m, spx_precision_bytes(prec));
    if (extra) h.y_extra = spx_malloc_array(ctx, (size_t)m, spx_precision_bytes(prec));
    if (!h.y || (extra && !h.y_extra)) {
        spx_free(ctx, h.y);
        return spx_fail_nomem(ctx, "benchmark buffers");
    }
    spx_bench_op op = {.op = &h, .run_once = host_run_once, .after_warmup = host_poison};
    spx_bench_timing timing = spx_bench_timing_of(o, r);
    spx_bench_times t;
    double e[3] = {INFINITY, INFINITY, INFINITY};
    spx_status s;
    spx_bench_poison(h.y, prec, m);
    if ((s = run_host(p, prec, 1.0, h.x, 0.0, h.y))) goto fail;
    e[0] = spx_rel_error(h.y, prec, c->yref, m);
    spx_bench_copy_out(o->y_out, h.y, prec, m);
    load_y0(c, h.y, prec, m);
    if ((s = run_host(p, prec, BENCH_ALPHA_B, h.x, BENCH_BETA_B, h.y))) goto fail;
    e[1] = spx_rel_error(h.y, prec, c->yrefb, m);
    if ((s = spx_bench_time_cpu(ctx, &op, &timing, &t))) goto fail;
    e[2] = spx_rel_error(h.y, prec, c->yref, m);
    spx_bench_finish(r, e, tol, &t, c->A);
    goto done;
fail:
    if (s != SPX_ERR_NOMEM) s = spx_bench_record_failure(ctx, r, s);
done:
    spx_free(ctx, h.y);
    spx_free(ctx, h.y_extra);
    return s;
}
