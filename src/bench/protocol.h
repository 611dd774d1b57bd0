/* src/bench/protocol.h: the operation-agnostic measuring protocol: warm-up, per-call latency
 * (median, min, max of timed single calls) and back-to-back batch throughput, on the CPU
 * (wall clock) and the GPU (CUDA events), driven by an operation's callbacks. */
#ifndef SPX_BENCH_PROTOCOL_H
#define SPX_BENCH_PROTOCOL_H

#include "core/ctx.h"

/* A batch lasts at least this long, so the timer's resolution (CUDA events: ~0.5 us) and the
 * start of the first call are below 1 % of it. */
#define SPX_BENCH_BATCH_TARGET_S 1e-3
/* Calls per batch at least: even a slow call is followed by others, so the overlap of one
 * call's tail with the next call's launch is part of the figure. */
#define SPX_BENCH_BATCH_MIN_CALLS 4
/* Calls per batch at most: bounds a batch of the tiniest calls (~1 us) to ~10 ms. */
#define SPX_BENCH_BATCH_MAX_CALLS 10000
/* Batches per measurement (the median is reported); fewer when fewer runs are asked for. */
#define SPX_BENCH_BATCHES 5

/* An operation to time: run_once makes one call (on the GPU it enqueues the work on the
 * context's stream and need not synchronise). The optional hooks (NULL: none) are untimed:
 * after_warmup runs once between the warm-up and the first timed call (e.g. poisoning the
 * output, so that what the timed calls wrote can be checked afterwards); before_each runs
 * before every timed single call and before every batch, never between a batch's calls. */
typedef struct spx_bench_op {
    void *op;
    spx_status (*run_once)(void *op);
    spx_status (*after_warmup)(void *op);
    spx_status (*before_each)(void *op);
} spx_bench_op;

/* How to time it. */
typedef struct spx_bench_timing {
    int warmup;      /* untimed calls first (>= 0) */
    int reps;        /* timed single calls (>= 1) */
    int cold;        /* GPU: flush the L2 before each timed call; no batches (see design.md) */
    int batch_calls; /* calls per batch; 0 = chosen by spx_bench_batch_calls */
    int singles_only; /* 1 = no batches: each call is long and ends synchronised (SpGEMM
                         returns C on the host), so a batch would only repeat the singles */
} spx_bench_timing;

/* What was measured; seconds per call. */
typedef struct spx_bench_times {
    int reps;
    double median, min, max; /* of the single calls, each timed on its own */
    int batches, batch_calls;
    double batch;            /* median over batches of (batch time / batch_calls); NaN when
                                no batch was measured (cold) */
} spx_bench_times;

/* Sorts t[0..n) (n >= 1) and returns its median; min and max are then t[0] and t[n-1]. */
double spx_bench_median(double *t, int n);
/* Calls per batch for a call of median time t: a batch of >= SPX_BENCH_BATCH_TARGET_S,
 * within [SPX_BENCH_BATCH_MIN_CALLS, SPX_BENCH_BATCH_MAX_CALLS]. */
int spx_bench_batch_calls(double t);

/* Times op on the host with the wall clock: warm-up, single calls, batches. */
spx_status spx_bench_time_cpu(spx_ctx *ctx, const spx_bench_op *op, const spx_bench_timing *o,
                              spx_bench_times *out);
/* Times op on the context's stream with CUDA events around each single call (L2 flushed
 * first when cold) and around each batch. */
spx_status spx_bench_time_cuda(spx_ctx *ctx, const spx_bench_op *op, const spx_bench_timing *o,
                               spx_bench_times *out);

#endif
