/* src/bench/spgemm_bench.c: the SpGEMM measurement: plan (timed by phase), a first run that
 * allocates C, then the protocol's warm-up and timed single runs refilling C in place, with
 * C poisoned after the warm-up so the caller verifies what the last timed run wrote. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/protocol.h"

#define SPGEMM_BENCH_REPS 5
#define SPGEMM_BENCH_WARMUP 1

/* One numeric run into the same C: the operation the protocol times. */
typedef struct spgemm_run_op {
    spx_spgemm_plan *p;
    spx_csr *C;
} spgemm_run_op;

/* The protocol's run_once: C refilled in place. */
static spx_status run_once(void *op)
{
    spgemm_run_op *g = op;
    return spx_spgemm_run(g->p, &g->C);
}

/* The protocol's after_warmup: every array of C poisoned, so a run that leaves part of it
 * unwritten fails verification. */
static spx_status poison_result(void *op)
{
    spx_csr *C = ((spgemm_run_op *)op)->C;
    for (int32_t i = 0; i <= C->m; i++) C->rowptr[i] = -1;
    for (int64_t q = 0; q < C->nnz; q++) {
        C->colind[q] = -1;
        C->val[q] = NAN;
    }
    return SPX_OK;
}

/* Records the context's last error as r's failure. */
static void record_failure(spx_ctx *ctx, spx_bench_spgemm_result *r, spx_status s)
{
    r->status = s;
    snprintf(r->msg, sizeof r->msg, "%s", spx_ctx_last_error(ctx));
    if (!r->msg[0]) snprintf(r->msg, sizeof r->msg, "%s", spx_status_str(s));
}

/* Rate of `amount` per second over t seconds, in units of 1e9; 0 unless t > 0. */
static double giga_rate(double amount, double t) { return t > 0 ? amount / t * 1e-9 : 0.0; }

/* Fills r's times and rates from the plan's info and the protocol's times. */
static void finish(spx_bench_spgemm_result *r, const spx_bench_times *t)
{
    const double flops = 2.0 * (double)r->info.products;
    r->reps = t->reps;
    r->t_median = t->median;
    r->t_min = t->min;
    r->t_max = t->max;
    r->total_s = r->info.plan_seconds + r->first_run_s;
    r->gflops_numeric = giga_rate(flops, r->t_median);
    r->gflops_total = giga_rate(flops, r->total_s);
}

spx_status spx_bench_spgemm(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, const spx_spgemm_opts *gopts,
                            const spx_bench_spgemm_opts *bopts, spx_bench_spgemm_result *r, spx_csr **C)
{
    if (!ctx || !A || !B || !r || !C || *C) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_bench_spgemm: bad arguments") : SPX_ERR_ARG;
    spx_bench_spgemm_opts o = {0};
    if (bopts) o = *bopts;
    if (o.reps < 0 || o.warmup < 0) return spx_fail(ctx, SPX_ERR_ARG, "spx_bench_spgemm: negative reps or warmup");
    memset(r, 0, sizeof *r);
    r->threads = spx_ctx_threads(ctx);
    spgemm_run_op g = {0};
    spx_bench_op op = {.op = &g, .run_once = run_once, .after_warmup = poison_result};
    spx_bench_timing timing = {.warmup = o.warmup ? o.warmup : SPGEMM_BENCH_WARMUP,
                               .reps = o.reps ? o.reps : SPGEMM_BENCH_REPS,
                               .singles_only = 1};
    spx_bench_times t;
    spx_status s = spx_spgemm_plan_create(ctx, A, B, gopts, &g.p);
    if (!s) {
        const double t0 = spx_now();
        s = spx_spgemm_run(g.p, &g.C);
        r->first_run_s = spx_now() - t0;
    }
    if (!s) s = spx_bench_time_cpu(ctx, &op, &timing, &t);
    if (g.p) spx_spgemm_plan_get_info(g.p, &r->info);
    if (s) {
        record_failure(ctx, r, s);
        spx_csr_destroy(&g.C);
    } else {
        finish(r, &t);
    }
    spx_spgemm_plan_destroy(&g.p);
    *C = g.C;
    return SPX_OK;
}
