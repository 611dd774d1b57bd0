/* src/bench/spmv_cuda.c: verification and CUDA-event timing of a GPU SpMV plan on device
 * vectors (transfers are not timed; the protocol flushes the L2 before each run when cold),
 * and the same protocol's times of an empty kernel: the floor under every call time. */
#include <math.h>

#include "bench/bench_cuda.h"
#include "bench/spmv_bench.h"
#include "cuda/gateway.h"

/* The device and host buffers of one GPU measurement, and the operation the protocol times. */
typedef struct gpu_spmv {
    spx_ctx *ctx;
    spx_plan *p;
    spx_precision prec;
    void *dx, *dy; /* device vectors */
    void *hy;      /* host copy of y */
    void *nan;     /* m NaNs in the precision, for poisoning */
    size_t yb;     /* bytes of y */
    spx_plan *extra; /* the demonstration's second plan (NULL: none) and its device y */
    void *dy_extra;
} gpu_spmv;

/* Allocates the buffers of one GPU measurement and uploads x. */
static spx_status bufs_alloc(spx_ctx *ctx, const spx_bench_case *c, gpu_spmv *g)
{
    size_t vb = spx_precision_bytes(g->prec);
    int64_t m = c->A->m;
    g->yb = (size_t)m * vb;
    g->hy = spx_malloc_array(ctx, (size_t)m, vb);
    g->nan = spx_malloc_array(ctx, (size_t)m, vb);
    if (!g->hy || !g->nan) return spx_fail_nomem(ctx, "benchmark buffers");
    spx_bench_poison(g->nan, g->prec, m);
    spx_status s = spx_cuda_malloc(ctx, &g->dx, (size_t)c->A->n * vb);
    if (!s) s = spx_cuda_malloc(ctx, &g->dy, g->yb);
    if (!s && g->extra) s = spx_cuda_malloc(ctx, &g->dy_extra, g->yb);
    if (!s) s = spx_cuda_h2d(ctx, g->dx, g->prec == SPX_FP32 ? (const void *)c->x32 : (const void *)c->x,
                             (size_t)c->A->n * vb);
    return s;
}

static void bufs_free(spx_ctx *ctx, gpu_spmv *g)
{
    spx_cuda_free(ctx, g->dx);
    spx_cuda_free(ctx, g->dy);
    spx_cuda_free(ctx, g->dy_extra);
    spx_free(ctx, g->hy);
    spx_free(ctx, g->nan);
}

/* Runs one SpMV from y_init (device y set to it first) and returns the error against ref. */
static spx_status check_run(gpu_spmv *g, double a, double beta, const void *y_init, const double *ref,
                            int64_t m, double *err)
{
    spx_status s = spx_cuda_h2d(g->ctx, g->dy, y_init, g->yb);
    if (!s) s = spx_plan_spmv_device(g->p, a, g->dx, beta, g->dy);
    if (!s) s = spx_cuda_d2h(g->ctx, g->hy, g->dy, g->yb);
    if (!s) *err = spx_rel_error(g->hy, g->prec, ref, m);
    return s;
}

/* The protocol's run_once: y = A*x on the context's stream, not synchronised (then the
 * demonstration's extra SpMV, if any, on the same stream). */
static spx_status gpu_run_once(void *op)
{
    gpu_spmv *g = op;
    spx_status s = spx_plan_spmv_device(g->p, 1.0, g->dx, 0.0, g->dy);
    if (!s && g->extra) s = spx_plan_spmv_device(g->extra, 1.0, g->dx, 0.0, g->dy_extra);
    return s;
}

/* The protocol's after_warmup: device y poisoned, so the last timed output is checked whole. */
static spx_status gpu_poison(void *op)
{
    gpu_spmv *g = op;
    return spx_cuda_h2d(g->ctx, g->dy, g->nan, g->yb);
}

spx_status spx_bench_run_cuda(spx_ctx *ctx, const spx_bench_case *c, spx_plan *p, spx_plan *extra,
                              const spx_bench_opts *o, spx_bench_result *r)
{
    int64_t m = c->A->m;
    gpu_spmv g = {.ctx = ctx, .p = p, .prec = r->plan.precision, .extra = extra};
    double tol = o->tol > 0 ? o->tol : spx_bench_default_tol(c, g.prec);
    double e[3] = {INFINITY, INFINITY, INFINITY};
    const void *y0 = g.prec == SPX_FP32 ? (const void *)c->y032 : (const void *)c->y0;
    spx_bench_op op = {.op = &g, .run_once = gpu_run_once, .after_warmup = gpu_poison};
    spx_bench_timing timing = spx_bench_timing_of(o, r);
    spx_bench_times t;
    spx_status s = bufs_alloc(ctx, c, &g);
    if (!s) s = check_run(&g, 1.0, 0.0, g.nan, c->yref, m, &e[0]);
    if (!s) spx_bench_copy_out(o->y_out, g.hy, g.prec, m);
    if (!s) s = check_run(&g, BENCH_ALPHA_B, BENCH_BETA_B, y0, c->yrefb, m, &e[1]);
    if (!s) s = spx_bench_time_cuda(ctx, &op, &timing, &t);
    if (!s) s = spx_cuda_d2h(ctx, g.hy, g.dy, g.yb);
    if (!s) e[2] = spx_rel_error(g.hy, g.prec, c->yref, m);
    if (!s) spx_bench_finish(r, e, tol, &t, c->A);
    else if (s != SPX_ERR_NOMEM) s = spx_bench_record_failure(ctx, r, s);
    bufs_free(ctx, &g);
    return s;
}

/* The protocol's run_once for the empty kernel; op is the context. */
static spx_status empty_once(void *op) { return spx_bench_cuda_empty(op); }

spx_status spx_bench_launch_floor(spx_ctx *ctx, double *call_s, double *batch_s)
{
    if (!ctx || !call_s || !batch_s) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_bench_launch_floor: NULL argument") : SPX_ERR_ARG;
    spx_bench_op op = {.op = ctx, .run_once = empty_once};
    const spx_bench_timing timing = {.warmup = BENCH_WARMUP, .reps = BENCH_GPU_REPS};
    spx_bench_times t;
    spx_status s = spx_bench_time_cuda(ctx, &op, &timing, &t);
    if (s) return s;
    *call_s = t.median;
    *batch_s = t.batch;
    return SPX_OK;
}
