/* src/bench/protocol.c: the operation-agnostic measuring protocol: warm-up, single calls each
 * between two clock readings, then batches of back-to-back calls; one loop for both clocks
 * (host wall clock, CUDA events on the context's stream). */
#include <math.h>
#include <stdlib.h>

#include "bench/protocol.h"
#include "cuda/gateway.h"

/* A clock: the host's wall clock (tm NULL) or a CUDA event pair on the context's stream. */
typedef struct bench_clock {
    spx_ctx *ctx;
    spx_cuda_timer *tm;
    double t0;
} bench_clock;

/* Starts a reading. */
static spx_status clock_start(bench_clock *c)
{
    if (c->tm) return spx_cuda_timer_start(c->ctx, c->tm);
    c->t0 = spx_now();
    return SPX_OK;
}

/* Ends a reading (for events: waits for the stop event); *seconds since clock_start. */
static spx_status clock_stop(bench_clock *c, double *seconds)
{
    if (c->tm) return spx_cuda_timer_stop(c->ctx, c->tm, seconds);
    *seconds = spx_now() - c->t0;
    return SPX_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double spx_bench_median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

int spx_bench_batch_calls(double t)
{
    if (!(t > 0)) return SPX_BENCH_BATCH_MAX_CALLS;
    double n = ceil(SPX_BENCH_BATCH_TARGET_S / t);
    if (n < SPX_BENCH_BATCH_MIN_CALLS) return SPX_BENCH_BATCH_MIN_CALLS;
    return n > SPX_BENCH_BATCH_MAX_CALLS ? SPX_BENCH_BATCH_MAX_CALLS : (int)n;
}

/* Batches to measure: none when cold (each call would follow a flush, or none would: the
 * batch is a warm figure by nature) or singles only, else SPX_BENCH_BATCHES, at most one
 * per timed call. */
static int batch_count(const spx_bench_timing *o)
{
    if (o->cold || o->singles_only) return 0;
    return o->reps < SPX_BENCH_BATCHES ? o->reps : SPX_BENCH_BATCHES;
}

/* The op's untimed preparation, if any. */
static spx_status prepare(const spx_bench_op *op) { return op->before_each ? op->before_each(op->op) : SPX_OK; }

/* n calls of op back to back. */
static spx_status run_calls(const spx_bench_op *op, int n)
{
    spx_status s = SPX_OK;
    for (int i = 0; !s && i < n; i++) s = op->run_once(op->op);
    return s;
}

/* Times reps single calls into t[0..reps). */
static spx_status time_singles(bench_clock *c, const spx_bench_op *op, const spx_bench_timing *o, double *t)
{
    spx_status s = SPX_OK;
    for (int i = 0; !s && i < o->reps; i++) {
        s = prepare(op);
        if (!s && o->cold) s = spx_cuda_flush_l2(c->ctx);
        if (!s) s = clock_start(c);
        if (!s) s = op->run_once(op->op);
        if (!s) s = clock_stop(c, &t[i]);
    }
    return s;
}

/* Times nb batches of n back-to-back calls into b[0..nb), as seconds per call. */
static spx_status time_batches(bench_clock *c, const spx_bench_op *op, int nb, int n, double *b)
{
    spx_status s = SPX_OK;
    for (int j = 0; !s && j < nb; j++) {
        s = prepare(op);
        if (!s) s = clock_start(c);
        if (!s) s = run_calls(op, n);
        if (!s) s = clock_stop(c, &b[j]);
        if (!s) b[j] /= n;
    }
    return s;
}

/* The protocol on clock c: warm-up, single calls, batches; fills *out. */
static spx_status measure(bench_clock *c, const spx_bench_op *op, const spx_bench_timing *o, spx_bench_times *out)
{
    spx_ctx *ctx = c->ctx;
    if (!op || !op->run_once || !o || !out || o->reps < 1 || o->warmup < 0 || o->batch_calls < 0)
        return spx_fail(ctx, SPX_ERR_ARG, "benchmark protocol: bad arguments");
    int nb = batch_count(o);
    double *t = spx_malloc_array(ctx, (size_t)o->reps, sizeof *t);
    double *b = spx_malloc_array(ctx, (size_t)(nb ? nb : 1), sizeof *b);
    spx_status s = t && b ? SPX_OK : spx_fail_nomem(ctx, "benchmark samples");
    if (!s) s = run_calls(op, o->warmup);
    if (!s && op->after_warmup) s = op->after_warmup(op->op);
    if (!s) s = time_singles(c, op, o, t);
    if (!s) {
        out->reps = o->reps;
        out->median = spx_bench_median(t, o->reps);
        out->min = t[0];
        out->max = t[o->reps - 1];
        out->batches = nb;
        out->batch_calls = nb ? (o->batch_calls ? o->batch_calls : spx_bench_batch_calls(out->median)) : 0;
        out->batch = NAN;
        s = time_batches(c, op, nb, out->batch_calls, b);
    }
    if (!s && nb) out->batch = spx_bench_median(b, nb);
    spx_free(ctx, t);
    spx_free(ctx, b);
    return s;
}

spx_status spx_bench_time_cpu(spx_ctx *ctx, const spx_bench_op *op, const spx_bench_timing *o,
                              spx_bench_times *out)
{
    if (!ctx || !o) return SPX_ERR_ARG;
    spx_bench_timing warm = *o;
    warm.cold = 0; /* no cache is flushed on the host */
    bench_clock c = {.ctx = ctx};
    return measure(&c, op, &warm, out);
}

spx_status spx_bench_time_cuda(spx_ctx *ctx, const spx_bench_op *op, const spx_bench_timing *o,
                               spx_bench_times *out)
{
    if (!ctx) return SPX_ERR_ARG;
    bench_clock c = {.ctx = ctx};
    spx_status s = spx_cuda_timer_create(ctx, &c.tm);
    if (!s) s = measure(&c, op, o, out);
    spx_cuda_timer_destroy(ctx, c.tm);
    return s;
}
