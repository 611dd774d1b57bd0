/* src/bench/bench_internal.h: what the CPU and GPU halves of the protocol share. */
#ifndef SPX_BENCH_INTERNAL_H
#define SPX_BENCH_INTERNAL_H

#include "core/ctx.h"

#define BENCH_ALPHA_B 0.75 /* alpha and beta of the b != 0 check: neither 0 nor 1 */
#define BENCH_BETA_B (-0.5)
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

/* ||y - ref||_2 / ||ref||_2 (absolute when ref = 0); +inf if anything is not finite. */
double spx_bench_rel_error(const void *y, spx_precision p, const double *ref, int64_t m);
/* The default tolerance: fp64 1e-12; fp32 grows with the longest row (sum error ~ sqrt(len)). */
double spx_bench_default_tol(const spx_bench_case *c, spx_precision p);
/* Sorts t[0..n) and fills r's median, min, max, GFLOPS and GB/s. */
void spx_bench_summarise(spx_bench_result *r, double *t, int n, const spx_csr *A);
/* Records the context's last error as r's failure; returns SPX_OK. */
spx_status spx_bench_record_failure(spx_ctx *ctx, spx_bench_result *r, spx_status s);

/* Verifies and times plan p on the CPU / on the GPU; failures are recorded in r. */
spx_status spx_bench_run_cpu(spx_ctx *ctx, const spx_bench_case *c, spx_plan *p, const spx_bench_opts *o,
                             spx_bench_result *r);
spx_status spx_bench_run_cuda(spx_ctx *ctx, const spx_bench_case *c, spx_plan *p, const spx_bench_opts *o,
                              spx_bench_result *r);

#endif
