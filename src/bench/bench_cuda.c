/* src/bench/bench_cuda.c: verification and CUDA-event timing of a GPU plan, on device
 * vectors (transfers are not timed; the L2 is flushed before each run when cold). */
#include <math.h>
#include <string.h>

#include "bench/bench_internal.h"
#include "cuda/gateway.h"

typedef struct gpu_bufs {
    void *dx, *dy;  /* device vectors */
    void *hy;       /* host copy of y */
    void *nan;      /* m NaNs in the precision, for poisoning */
    double *t;      /* run times */
    size_t vb;      /* value bytes */
} gpu_bufs;

/* Allocates the device and host buffers of one GPU measurement. */
static spx_status bufs_alloc(spx_ctx *ctx, const spx_bench_case *c, spx_precision prec, int reps, gpu_bufs *b)
{
    int64_t m = c->A->m;
    b->vb = prec == SPX_FP32 ? sizeof(float) : sizeof(double);
    b->hy = spx_malloc_array(ctx, (size_t)m, b->vb);
    b->nan = spx_malloc_array(ctx, (size_t)m, b->vb);
    b->t = spx_malloc_array(ctx, (size_t)reps, sizeof *b->t);
    if (!b->hy || !b->nan || !b->t) return spx_fail_nomem(ctx, "benchmark buffers");
    for (int64_t i = 0; i < m; i++) {
        if (prec == SPX_FP32)
            ((float *)b->nan)[i] = NAN;
        else
            ((double *)b->nan)[i] = NAN;
    }
    spx_status s = spx_cuda_malloc(ctx, &b->dx, (size_t)c->A->n * b->vb);
    if (!s) s = spx_cuda_malloc(ctx, &b->dy, (size_t)m * b->vb);
    if (!s) s = spx_cuda_h2d(ctx, b->dx, prec == SPX_FP32 ? (const void *)c->x32 : (const void *)c->x,
                             (size_t)c->A->n * b->vb);
    return s;
}

static void bufs_free(spx_ctx *ctx, gpu_bufs *b)
{
    spx_cuda_free(ctx, b->dx);
    spx_cuda_free(ctx, b->dy);
    spx_free(ctx, b->hy);
    spx_free(ctx, b->nan);
    spx_free(ctx, b->t);
}

/* Runs one SpMV from y_init (device y set to it first) and returns the error against ref. */
static spx_status check_run(spx_ctx *ctx, spx_plan *p, const spx_bench_case *c, gpu_bufs *b, double a,
                            double beta, const void *y_init, const double *ref, double *err)
{
    int64_t m = c->A->m;
    spx_precision prec = b->vb == sizeof(float) ? SPX_FP32 : SPX_FP64;
    spx_status s = spx_cuda_h2d(ctx, b->dy, y_init, (size_t)m * b->vb);
    if (!s) s = spx_plan_spmv_device(p, a, b->dx, beta, b->dy);
    if (!s) s = spx_cuda_d2h(ctx, b->hy, b->dy, (size_t)m * b->vb);
    if (!s) *err = spx_bench_rel_error(b->hy, prec, ref, m);
    return s;
}

/* Times reps SpMVs (b = 0), each between two events, L2 flushed before each when cold. */
static spx_status timed_runs(spx_ctx *ctx, spx_plan *p, gpu_bufs *b, int warm, int reps, int cold)
{
    spx_cuda_timer *tm = NULL;
    spx_status s = spx_cuda_timer_create(ctx, &tm);
    for (int i = 0; !s && i < warm; i++) s = spx_plan_spmv_device(p, 1.0, b->dx, 0.0, b->dy);
    for (int i = 0; !s && i < reps; i++) {
        if (cold) s = spx_cuda_flush_l2(ctx);
        if (!s) s = spx_cuda_timer_start(ctx, tm);
        if (!s) s = spx_plan_spmv_device(p, 1.0, b->dx, 0.0, b->dy);
        if (!s) s = spx_cuda_timer_stop(ctx, tm, &b->t[i]);
    }
    spx_cuda_timer_destroy(ctx, tm);
    return s;
}

spx_status spx_bench_run_cuda(spx_ctx *ctx, const spx_bench_case *c, spx_plan *p, const spx_bench_opts *o,
                              spx_bench_result *r)
{
    spx_precision prec = r->plan.precision;
    int reps = o->reps ? o->reps : BENCH_GPU_REPS, warm = o->warmup ? o->warmup : BENCH_WARMUP;
    double tol = o->tol > 0 ? o->tol : spx_bench_default_tol(c, prec);
    gpu_bufs b = {0};
    double e0 = INFINITY, e1 = INFINITY, e2 = INFINITY;
    const void *y0 = prec == SPX_FP32 ? (const void *)c->y032 : (const void *)c->y0;
    spx_status s = bufs_alloc(ctx, c, prec, reps, &b);
    if (!s) s = check_run(ctx, p, c, &b, 1.0, 0.0, b.nan, c->yref, &e0);
    if (!s) s = check_run(ctx, p, c, &b, BENCH_ALPHA_B, BENCH_BETA_B, y0, c->yrefb, &e1);
    if (!s) s = spx_cuda_h2d(ctx, b.dy, b.nan, (size_t)c->A->m * b.vb);
    if (!s) s = timed_runs(ctx, p, &b, warm, reps, r->cold);
    if (!s) s = spx_cuda_d2h(ctx, b.hy, b.dy, (size_t)c->A->m * b.vb);
    if (!s) e2 = spx_bench_rel_error(b.hy, prec, c->yref, c->A->m);
    if (s == SPX_ERR_NOMEM) goto done;
    if (s) {
        s = spx_bench_record_failure(ctx, r, s);
        goto done;
    }
    r->rel_error = fmax(e0, fmax(e1, e2));
    if (isnan(r->rel_error)) r->rel_error = INFINITY;
    r->verified = r->rel_error <= tol;
    spx_bench_summarise(r, b.t, reps, c->A);
done:
    bufs_free(ctx, &b);
    return s;
}
