/* src/bench/spgemm_bench.c: the SpGEMM measurement: plan (timed by phase), a first run that
 * allocates C, then the protocol's warm-up and timed single runs refilling C in place, with
 * C poisoned after the warm-up so the caller verifies what the last timed run wrote; and the
 * whole call from device operands (wrap, plan, run, C on the device, the plan destroyed),
 * repeated from nothing: first with the context's memory pool dropped, then warm. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/protocol.h"
#include "cuda/gateway.h"
#include "spgemm/spgemm_internal.h"

#define SPGEMM_BENCH_REPS 5
#define SPGEMM_BENCH_WARMUP 1
/* Timed device calls at most (their times are kept in arrays on the stack). */
#define SPX_BENCH_SPGEMM_MAX_REPS 1000

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

/* The operands of the device call, uploaded once (int32 row pointers, values in the plan's
 * precision): A, and B unless it is A (B^T, made here, for transpose_b). */
static spx_status device_operands(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, const spx_spgemm_opts *o,
                                  spx_csr_dev **dA, spx_csr_dev **dB)
{
    spx_csr *Bt = NULL;
    int64_t *perm = NULL;
    spx_status s = spx_csr_dev_upload(ctx, A, SPX_INDEX_INT32, o->precision, dA);
    if (!s && o->transpose_b) s = spx_spgemm_transpose(ctx, B, &Bt, &perm);
    if (!s && (Bt || B != A)) s = spx_csr_dev_upload(ctx, Bt ? Bt : B, SPX_INDEX_INT32, o->precision, dB);
    spx_csr_destroy(&Bt);
    spx_free(ctx, perm);
    return s;
}

/* Seconds of the phases of info named `a` and `b`. */
static double phases_seconds(const spx_spgemm_info *info, const char *a, const char *b)
{
    double t = 0;
    for (int i = 0; i < info->n_phases; i++)
        if (!strcmp(info->phases[i].name, a) || !strcmp(info->phases[i].name, b)) t += info->phases[i].seconds;
    return t;
}

/* One whole call: the operands wrapped (checked), then spx_spgemm_dev; *t the call's seconds,
 * *t_wrap the wraps', *C its result. */
static spx_status device_call(spx_ctx *ctx, const spx_csr_dev *dA, const spx_csr_dev *dB, const spx_spgemm_opts *o,
                              double *t, double *t_wrap, spx_csr_dev **C, spx_spgemm_info *info)
{
    spx_csr_dev *wA = NULL, *wB = NULL;
    const double t0 = spx_now();
    spx_status s = spx_csr_dev_wrap(ctx, dA->m, dA->n, dA->nnz, dA->rowptr_type, dA->rowptr, dA->colind,
                                    dA->precision, dA->val, &wA);
    if (!s && dB)
        s = spx_csr_dev_wrap(ctx, dB->m, dB->n, dB->nnz, dB->rowptr_type, dB->rowptr, dB->colind, dB->precision,
                             dB->val, &wB);
    const double t1 = spx_now();
    if (!s) s = spx_spgemm_dev(ctx, wA, wB ? wB : wA, o, C, info);
    *t = spx_now() - t0;
    *t_wrap = t1 - t0;
    spx_csr_dev_destroy(&wB);
    spx_csr_dev_destroy(&wA);
    return s;
}

/* The whole call's phases in info: "wrap" (wrap seconds) put first, "other" (call seconds less
 * every phase's, 0 at least) last, as far as there is room. */
static void whole_call_phases(spx_spgemm_info *info, double call, double wrap)
{
    if (info->n_phases < SPX_SPGEMM_MAX_PHASES) {
        memmove(&info->phases[1], &info->phases[0], (size_t)info->n_phases * sizeof info->phases[0]);
        info->phases[0] = (spx_phase_time){"wrap", wrap};
        info->n_phases++;
    }
    double named = 0;
    for (int i = 0; i < info->n_phases; i++) named += info->phases[i].seconds;
    if (info->n_phases < SPX_SPGEMM_MAX_PHASES)
        info->phases[info->n_phases++] = (spx_phase_time){"other", call > named ? call - named : 0.0};
}

/* The first call (i = 0: the pool dropped before it, kernels already loaded by the host-operand
 * measurement) into r's *_first fields, then each whole call timed alone, its C freed untimed;
 * the last one's C downloaded into *C. */
static spx_status device_runs(spx_ctx *ctx, const spx_csr_dev *dA, const spx_csr_dev *dB, const spx_spgemm_opts *o,
                              int reps, spx_bench_spgemm_result *r, spx_csr **C)
{
    double t[SPX_BENCH_SPGEMM_MAX_REPS], tw[SPX_BENCH_SPGEMM_MAX_REPS], tv[SPX_BENCH_SPGEMM_MAX_REPS];
    spx_status s = SPX_OK;
    spx_cuda_pool_drop(ctx); /* the first call makes the pool and fills it */
    for (int i = 0; !s && i <= reps; i++) {
        spx_csr_dev *Cd = NULL;
        double call = 0, wrap = 0;
        spx_spgemm_info *info = i ? &r->device_info : &r->device_info_first;
        s = device_call(ctx, dA, dB, o, &call, &wrap, &Cd, info);
        if (!s) whole_call_phases(info, call, wrap);
        if (!s && i == 0) r->t_device_call_first_s = call;
        if (!s && i > 0) {
            t[i - 1] = call, tw[i - 1] = wrap;
            tv[i - 1] = phases_seconds(info, "symbolic", "numeric");
        }
        if (!s && i == reps) s = spx_csr_dev_download(Cd, C);
        spx_csr_dev_destroy(&Cd);
    }
    if (s) return s;
    r->t_device_call_s = spx_bench_median(t, reps);
    r->t_device_wrap_s = spx_bench_median(tw, reps);
    if (!strcmp(r->device_info.method, "cusparse")) r->t_device_we_copy_s = spx_bench_median(tv, reps);
    return SPX_OK;
}

spx_status spx_bench_spgemm_device(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, const spx_spgemm_opts *gopts,
                                   const spx_bench_spgemm_opts *bopts, spx_bench_spgemm_result *r, spx_csr **C)
{
    if (!ctx || !A || !B || !r || !C || *C)
        return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_bench_spgemm_device: bad arguments") : SPX_ERR_ARG;
    spx_spgemm_opts o = {0};
    if (gopts) o = *gopts;
    const int reps = bopts && bopts->reps ? bopts->reps : SPGEMM_BENCH_REPS;
    if (reps < 0 || reps > SPX_BENCH_SPGEMM_MAX_REPS)
        return spx_fail(ctx, SPX_ERR_ARG, "spx_bench_spgemm_device: reps must be 1..%d", SPX_BENCH_SPGEMM_MAX_REPS);
    spx_csr_dev *dA = NULL, *dB = NULL;
    spx_status s = device_operands(ctx, A, B, &o, &dA, &dB);
    o.transpose_b = 0; /* B^T is given */
    if (!s) s = device_runs(ctx, dA, dB, &o, reps, r, C);
    if (s) {
        record_failure(ctx, r, s);
        spx_csr_destroy(C);
    }
    spx_csr_dev_destroy(&dB);
    spx_csr_dev_destroy(&dA);
    return SPX_OK;
}
