/* src/bench/spmm_bench.c: the SpMM measurement: one plan, X and Y0 random (fp32-representable)
 * in the blocks' layout, the oracle's Y column by column (spx_csr_spmm_ref), verified with Y
 * poisoned and b = 0, with b != 0, and on the last timed output, timed by the protocol
 * (src/bench/protocol.c) on the plan's backend: latency and back-to-back throughput. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/spmv_bench.h"

/* The host side of one measurement: X and Y0 in the blocks' layout (lines hld apart), the
 * oracle's two results column-major (m x k), and a buffer for what Y holds. */
typedef struct spmm_host {
    int64_t m, n, k, xld, yld; /* xld, yld: the host arrays' leading dimensions (a line) */
    spx_dense_layout layout;
    double *x, *xcm;       /* X in the layout, and column-major for the oracle */
    double *y0, *ycm;      /* Y0 in the layout, and column-major */
    double *nan;           /* m x k NaN in the layout: Y poisoned */
    double *ref, *refb;    /* A*X and ALPHA_B*A*X + BETA_B*Y0, column-major */
    double *out, *col;     /* Y read back (layout), one column of it */
} spmm_host;

/* The operation the protocol times, and its poison. */
typedef struct spmm_op {
    spx_plan *p;
    spx_dense *X, *Y;
    const spmm_host *h;
} spmm_op;

static spx_status op_run(void *op)
{
    spmm_op *o = op;
    return spx_plan_spmm(o->p, 1.0, o->X, 0.0, o->Y);
}

static spx_status op_poison(void *op)
{
    spmm_op *o = op;
    return spx_dense_set(o->Y, o->h->nan, o->h->yld);
}

static void host_free(spx_ctx *ctx, spmm_host *h)
{
    double *all[] = {h->x, h->xcm, h->y0, h->ycm, h->nan, h->ref, h->refb, h->out, h->col};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) spx_free(ctx, all[i]);
}

/* Index of (i, j) in a host array of the layout with leading dimension ld. */
static int64_t at(spx_dense_layout l, int64_t ld, int64_t i, int64_t j)
{
    return l == SPX_DENSE_ROW_MAJOR ? i * ld + j : i + j * ld;
}

/* cm (rows x k, column-major) into out in the layout (leading dimension ld). */
static void to_layout(const double *cm, int64_t rows, int64_t k, spx_dense_layout l, int64_t ld, double *out)
{
    for (int64_t j = 0; j < k; j++)
        for (int64_t i = 0; i < rows; i++) out[at(l, ld, i, j)] = cm[i + j * rows];
}

/* Allocates and fills h for A (random X and Y0, NaN, the oracle's results). */
static spx_status host_make(spx_ctx *ctx, const spx_csr *A, const spx_bench_spmm_opts *o, spmm_host *h)
{
    const int row = o->layout == SPX_DENSE_ROW_MAJOR;
    h->m = A->m;
    h->n = A->n;
    h->k = o->k;
    h->layout = o->layout;
    h->xld = row ? h->k : (h->n > 0 ? h->n : 1);
    h->yld = row ? h->k : (h->m > 0 ? h->m : 1);
    const size_t nx = (size_t)(h->n * h->k) + 1, ny = (size_t)(h->m * h->k) + 1;
    h->x = spx_malloc_array(ctx, nx, sizeof(double));
    h->xcm = spx_malloc_array(ctx, nx, sizeof(double));
    double **ys[] = {&h->y0, &h->ycm, &h->nan, &h->ref, &h->refb, &h->out};
    int ok = h->x && h->xcm;
    for (size_t i = 0; i < sizeof ys / sizeof ys[0]; i++) ok &= (*ys[i] = spx_malloc_array(ctx, ny, sizeof(double))) != NULL;
    ok &= (h->col = spx_malloc_array(ctx, (size_t)h->m + 1, sizeof(double))) != NULL;
    if (!ok) return spx_fail_nomem(ctx, "spmm benchmark blocks");
    spx_bench_fill_random(h->xcm, NULL, h->n * h->k, 0x5158ull);
    spx_bench_fill_random(h->ycm, NULL, h->m * h->k, 0xB0B0ull);
    to_layout(h->xcm, h->n, h->k, h->layout, h->xld, h->x);
    to_layout(h->ycm, h->m, h->k, h->layout, h->yld, h->y0);
    for (int64_t t = 0; t < h->m * h->k; t++) h->nan[t] = NAN;
    spx_csr_spmm_ref(A, 1.0, h->xcm, h->n, h->k, 0.0, h->ref, h->m);
    memcpy(h->refb, h->ycm, (size_t)(h->m * h->k) * sizeof(double));
    spx_csr_spmm_ref(A, BENCH_ALPHA_B, h->xcm, h->n, h->k, BENCH_BETA_B, h->refb, h->m);
    return SPX_OK;
}

/* *err = the worst column's relative error of Y (read back) against ref (column-major). */
static spx_status check_y(const spmm_op *o, const double *ref, double *err)
{
    const spmm_host *h = o->h;
    spx_status s = spx_dense_get(o->Y, h->out, h->yld);
    if (s) return s;
    double worst = 0.0;
    for (int64_t j = 0; j < h->k; j++) {
        for (int64_t i = 0; i < h->m; i++) h->col[i] = h->out[at(h->layout, h->yld, i, j)];
        const double e = spx_rel_error(h->col, SPX_FP64, ref + j * h->m, h->m);
        if (!(e <= worst)) worst = e;
    }
    *err = worst;
    return SPX_OK;
}

/* Runs Y = a*A*X + b*Y from y_init and checks it against ref. */
static spx_status check_run(spmm_op *o, double a, double b, const double *y_init, const double *ref, double *err)
{
    spx_status s = spx_dense_set(o->Y, y_init, o->h->yld);
    if (!s) s = spx_plan_spmm(o->p, a, o->X, b, o->Y);
    return s ? s : check_y(o, ref, err);
}

/* Fills r's times and rates from t, and its verdict from the three errors. */
static void finish(spx_bench_spmm_result *r, const double e[3], double tol, const spx_bench_times *t, int64_t nnz)
{
    r->rel_error = spx_bench_verdict(e, tol, &r->verified);
    r->reps = t->reps;
    r->t_median = t->median;
    r->t_min = t->min;
    r->t_max = t->max;
    r->batches = t->batches;
    r->batch_calls = t->batch_calls;
    r->t_batch = t->batches ? t->batch : NAN;
    const double flops = 2.0 * (double)nnz * (double)r->k;
    r->gflops = spx_bench_giga_rate(flops, r->t_median);
    r->gflops_batch = spx_bench_giga_rate(flops, r->t_batch);
    r->gbytes = spx_bench_giga_rate(r->spmm.bytes, r->t_median);
    r->gbytes_batch = spx_bench_giga_rate(r->spmm.bytes, r->t_batch);
}

/* Verifies and times plan p on blocks of its backend; failures of the plan's calls are recorded
 * in r (out of memory is returned). */
static spx_status measure(spx_ctx *ctx, const spx_csr *A, spx_plan *p, const spx_bench_spmm_opts *o,
                          spx_bench_spmm_result *r)
{
    spmm_host h;
    memset(&h, 0, sizeof h);
    spmm_op op = {p, NULL, NULL, &h};
    const spx_backend b = r->plan.backend;
    const spx_precision prec = r->plan.precision;
    const int gpu = b == SPX_BACKEND_CUDA;
    const spx_bench_timing timing = {.warmup = o->warmup ? o->warmup : BENCH_WARMUP,
                                     .reps = o->reps ? o->reps : gpu ? BENCH_GPU_REPS : BENCH_CPU_REPS,
                                     .cold = o->cold && gpu};
    spx_features feat;
    double e[3] = {INFINITY, INFINITY, INFINITY};
    spx_bench_times t;
    spx_status s = spx_features_compute(A, &feat);
    if (!s) s = host_make(ctx, A, o, &h);
    if (!s) s = spx_dense_create(ctx, b, prec, h.n, h.k, o->layout, &op.X);
    if (!s) s = spx_dense_create(ctx, b, prec, h.m, h.k, o->layout, &op.Y);
    if (!s) s = spx_dense_set(op.X, h.x, h.xld);
    if (!s) s = check_run(&op, 1.0, 0.0, h.nan, h.ref, &e[0]);
    if (!s) s = check_run(&op, BENCH_ALPHA_B, BENCH_BETA_B, h.y0, h.refb, &e[1]);
    const spx_bench_op bop = {.op = &op, .run_once = op_run, .after_warmup = op_poison};
    if (!s) s = gpu ? spx_bench_time_cuda(ctx, &bop, &timing, &t) : spx_bench_time_cpu(ctx, &bop, &timing, &t);
    if (!s) s = check_y(&op, h.ref, &e[2]);
    if (!s) finish(r, e, o->tol > 0 ? o->tol : spx_bench_tol_for(feat.row_max, prec), &t, A->nnz);
    if (s && s != SPX_ERR_NOMEM) {
        r->status = s;
        snprintf(r->msg, sizeof r->msg, "%s", spx_ctx_last_error(ctx));
        s = SPX_OK;
    }
    spx_dense_destroy(&op.X);
    spx_dense_destroy(&op.Y);
    host_free(ctx, &h);
    return s;
}

spx_status spx_bench_spmm(spx_ctx *ctx, const spx_csr *A, const spx_plan_opts *popts, const spx_bench_spmm_opts *bopts,
                          spx_bench_spmm_result *r)
{
    if (!ctx || !A || !popts || !bopts || !r)
        return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_bench_spmm: NULL argument") : SPX_ERR_ARG;
    if (bopts->k < 1) return spx_fail(ctx, SPX_ERR_ARG, "spx_bench_spmm: k = %lld (at least 1)", (long long)bopts->k);
    if (bopts->layout != SPX_DENSE_COL_MAJOR && bopts->layout != SPX_DENSE_ROW_MAJOR)
        return spx_fail(ctx, SPX_ERR_ARG, "spx_bench_spmm: unknown layout %d", (int)bopts->layout);
    memset(r, 0, sizeof *r);
    r->k = bopts->k;
    r->layout = bopts->layout;
    r->t_batch = r->gflops_batch = r->gbytes_batch = NAN;
    spx_plan *p = NULL;
    spx_status s = spx_plan_create(ctx, A, popts, &p);
    if (!s) s = spx_plan_get_info(p, &r->plan);
    if (!s) s = spx_plan_spmm_info(p, bopts->k, bopts->layout, &r->spmm);
    if (!s) s = measure(ctx, A, p, bopts, r);
    else if (s != SPX_ERR_NOMEM) {
        r->status = s;
        snprintf(r->msg, sizeof r->msg, "%s", spx_ctx_last_error(ctx));
        s = SPX_OK;
    }
    spx_plan_destroy(&p);
    return s;
}
