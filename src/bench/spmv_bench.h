/* src/bench/spmv_bench.h: what the SpMV measurement's parts share: the case (inputs and
 * references), verification helpers, and the CPU and GPU halves. */
#ifndef SPX_BENCH_SPMV_BENCH_H
#define SPX_BENCH_SPMV_BENCH_H

#include "bench/protocol.h"

#define BENCH_ALPHA_B 0.75 /* alpha and beta of the b != 0 check: neither 0 nor 1 */
#define BENCH_BETA_B (-0.5)
/* Default timed single runs: the CPU's calls are long and noisy neighbours move them, the
 * GPU's short and steady. */
#define BENCH_CPU_REPS 20
#define BENCH_GPU_REPS 100
#define BENCH_WARMUP 3

struct spx_bench_case {
    spx_ctx *ctx;
    const spx_csr *A;
    int64_t row_max;
    double *x, *y0;       /* fp32-representable, so both precisions see the same inputs */
    double *yref, *yrefb; /* A*x and ALPHA_B*A*x + BETA_B*y0 in extended precision */
    float *x32, *y032;
};

/* The default tolerance: fp64 1e-12; fp32 grows with the longest row (sum error ~ sqrt(len)). */
double spx_bench_default_tol(const spx_bench_case *c, spx_precision p);
/* The same for a matrix whose longest row holds row_max entries. */
double spx_bench_tol_for(int64_t row_max, spx_precision p);
/* Fills v with values uniform in [-1, 1], rounded to fp32 (never all equal, never zero data);
 * v32 (NULL: none) receives them as floats. */
void spx_bench_fill_random(double *v, float *v32, int64_t n, uint64_t seed);
/* Copies y (m values of precision p) into y_out as doubles; nothing when y_out is NULL. */
void spx_bench_copy_out(double *y_out, const void *y, spx_precision p, int64_t m);
/* Fills y (m values of precision p) with NaN, so entries a run leaves unwritten fail. */
void spx_bench_poison(void *y, spx_precision p, int64_t m);
/* Rate of `amount` per second over t seconds, in units of 1e9; NaN unless t > 0. */
double spx_bench_giga_rate(double amount, double t);
/* The protocol's settings for r's measurement from the caller's options. */
spx_bench_timing spx_bench_timing_of(const spx_bench_opts *o, const spx_bench_result *r);
/* The worst of the checks' errors e[0..3) (NaN counted as +inf), and *verified: within tol. */
double spx_bench_verdict(const double e[3], double tol, int *verified);
/* Fills r from the checks' errors e[0..3) (b = 0, b != 0, last timed output) and the times:
 * rel_error, verified against tol, latency and batch figures. */
void spx_bench_finish(spx_bench_result *r, const double e[3], double tol, const spx_bench_times *t,
                      const spx_csr *A);
/* Records the context's last error as r's failure; returns SPX_OK. */
spx_status spx_bench_record_failure(spx_ctx *ctx, spx_bench_result *r, spx_status s);

/* Verifies and times plan p on the CPU / on the GPU; failures are recorded in r (out of
 * memory is returned). extra (NULL but for spx_bench_opts.demo_extra_work) runs after p in
 * every timed call, into a y of its own, on the same x. */
spx_status spx_bench_run_cpu(spx_ctx *ctx, const spx_bench_case *c, spx_plan *p, spx_plan *extra,
                             const spx_bench_opts *o, spx_bench_result *r);
spx_status spx_bench_run_cuda(spx_ctx *ctx, const spx_bench_case *c, spx_plan *p, spx_plan *extra,
                              const spx_bench_opts *o, spx_bench_result *r);

#endif
