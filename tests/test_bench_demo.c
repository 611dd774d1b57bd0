/* tests/test_bench_demo.c: the performance gate's demonstration switch in the measuring protocol
 * (spx_bench_opts.demo_extra_work): with it, every format still verifies (the extra SpMV writes
 * its own y), in the caller's and the plan's order, on one-row and empty matrices, in both
 * precisions, on the CPU and (where a device answers) the GPU; values outside [0, 1] are refused
 * before anything is planned. Times are not compared: the gate measures them on the GPU. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "spx/spx.h"

/* Measures fmt on A with the switch at frac and checks the result verified. */
static void check_verified(spx_ctx *ctx, const spx_bench_case *c, const char *fmt, spx_backend b,
                           spx_precision p, spx_vector_order order, double frac, const char *what)
{
    spx_plan_opts po = {.format = fmt, .backend = b, .precision = p, .order = order};
    spx_bench_opts bo = {.reps = 3, .warmup = 1, .plan_reps = 1, .demo_extra_work = frac};
    spx_bench_result r;
    CHECK_OK(ctx, spx_bench_spmv(ctx, c, &po, &bo, &r));
    CHECK_MSG(r.status == SPX_OK && r.verified, "%s %s %s: status %s, %s", what, fmt,
              p == SPX_FP32 ? "fp32" : "fp64", spx_status_str(r.status), r.msg);
    CHECK_MSG(r.t_median > 0, "%s %s: no time", what, fmt);
}

/* Every format this build runs on backend b, at a few fractions, on A. */
static void check_formats(spx_ctx *ctx, const spx_csr *A, spx_backend b, const char *what)
{
    spx_bench_case *c = NULL;
    CHECK_OK(ctx, spx_bench_case_create(ctx, A, 7, &c));
    if (!c) return;
    const double fracs[] = {0.2, 1.0, 1e-9};
    for (int i = 0; i < spx_format_count(); i++) {
        spx_format_desc d;
        if (spx_format_describe(i, &d) || !d.available || !(b == SPX_BACKEND_CUDA ? d.has_cuda : d.has_cpu)) continue;
        for (int f = 0; f < 3; f++) check_verified(ctx, c, d.name, b, SPX_FP64, SPX_ORDER_CALLER, fracs[f], what);
        check_verified(ctx, c, d.name, b, SPX_FP32, SPX_ORDER_CALLER, 0.2, what);
        if (d.has_plan_order && A->m == A->n)
            check_verified(ctx, c, d.name, b, SPX_FP64, SPX_ORDER_PLAN, 0.2, what);
    }
    spx_bench_case_destroy(&c);
}

/* Values outside [0, 1] (and NaN) are bad options: SPX_ERR_ARG, nothing planned. */
static void check_refused(spx_ctx *ctx, const spx_csr *A)
{
    spx_bench_case *c = NULL;
    CHECK_OK(ctx, spx_bench_case_create(ctx, A, 7, &c));
    if (!c) return;
    const double bad[] = {-0.1, 1.5, NAN, INFINITY};
    spx_plan_opts po = {.format = "csr", .backend = SPX_BACKEND_CPU};
    for (int i = 0; i < 4; i++) {
        spx_bench_opts bo = {.reps = 2, .demo_extra_work = bad[i]};
        spx_bench_result r;
        CHECK_MSG(spx_bench_spmv(ctx, c, &po, &bo, &r) == SPX_ERR_ARG, "demo_extra_work %g accepted", bad[i]);
    }
    spx_bench_case_destroy(&c);
}

int main(void)
{
    spx_ctx *ctx = NULL;
    CHECK_OK(ctx, spx_ctx_create(&ctx, NULL));
    if (!ctx) return check_report();
    spx_csr *grid = NULL, *graph = NULL, *one = NULL, *empty = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:poisson2d:n=30", &grid));
    CHECK_OK(ctx, spx_gen(ctx, "gen:rmat:scale=9,ef=8", &graph));
    CHECK_OK(ctx, spx_gen(ctx, "gen:poisson2d:n=1", &one));
    CHECK_OK(ctx, spx_csr_alloc(ctx, 5, 4, 0, &empty)); /* no entries: nothing extra to run */
    spx_backend cuda = SPX_BACKEND_CPU;
    int gpu = spx_ctx_resolve_backend(ctx, SPX_BACKEND_CUDA, &cuda) == SPX_OK;
    const spx_csr *mats[] = {grid, graph, one, empty};
    const char *names[] = {"poisson2d n=30", "rmat 9", "one row", "empty"};
    for (int i = 0; i < 4; i++) {
        if (!mats[i]) continue;
        check_formats(ctx, mats[i], SPX_BACKEND_CPU, names[i]);
        if (gpu) check_formats(ctx, mats[i], SPX_BACKEND_CUDA, names[i]);
    }
    if (grid) check_refused(ctx, grid);
    spx_csr_destroy(&grid);
    spx_csr_destroy(&graph);
    spx_csr_destroy(&one);
    spx_csr_destroy(&empty);
    spx_ctx_destroy(&ctx);
    return check_report();
}
