/* tools/cmd_spmv.c: `spx spmv SRC`: plan one format, verify against the reference, time it
 * (latency and back-to-back throughput); on the GPU also the registry's baseline in the same
 * run, for the speed-ups and the repay count. x is random, or read with --x FILE; --y-out FILE
 * writes the verified y = A*x. */
#include <math.h>
#include <string.h>

#include "cli.h"
#include "cli_signal.h"
#include "dist/cli_dist.h"

/* Prints one result as the readable block of `spx spmv`. */
static void print_text(const cli_result *res, const cli_result *base)
{
    const spx_bench_result *r = &res->r;
    printf("matrix      %s (%d x %d, %lld nnz)\n", res->matrix, res->m, res->n, (long long)res->nnz);
    printf("format      %s/%s  kernel %s  backend %s  precision %s\n", r->plan.format, r->plan.algo, r->plan.kernel,
           spx_backend_str(r->plan.backend), spx_precision_str(r->plan.precision));
    printf("plan        %.3f ms (", r->plan.plan_seconds * 1e3);
    for (int i = 0; i < r->plan.n_phases; i++)
        printf("%s%s %.3f ms", i ? ", " : "", r->plan.phases[i].name, r->plan.phases[i].seconds * 1e3);
    printf(")\n");
    printf("time        median %.6f ms  min %.6f ms  max %.6f ms  (%d runs, each timed alone, %s)\n",
           r->t_median * 1e3, r->t_min * 1e3, r->t_max * 1e3, r->reps, r->cold ? "cold: L2 flushed" : "warm");
    if (r->batches)
        printf("batch       %.6f ms per SpMV  (median of %d batches of %d back-to-back SpMVs)\n", r->t_batch * 1e3,
               r->batches, r->batch_calls);
    else
        printf("batch       not measured (cold: the L2 is flushed before each run; a warm run gives it)\n");
    if (isfinite(res->launch_call))
        printf("floor       an empty kernel called the same way: %.6f ms alone, %.6f ms back to back%s\n",
               res->launch_call * 1e3, res->launch_batch * 1e3, r->batches ? "" : " (batch not measured cold)");
    printf("GFLOPS      %.3f per call", r->gflops);
    if (r->batches) printf(", %.3f batch", r->gflops_batch);
    printf(" (2*nnz/t)\n");
    printf("GB/s        %.3f (%.0f bytes/SpMV; %.2f of the measured %s bandwidth %.1f GB/s)\n", r->gbytes,
           r->plan.bytes_per_spmv, res->bw > 0 ? r->gbytes * 1e9 / res->bw : 0.0,
           r->plan.backend == SPX_BACKEND_CUDA ? "device copy" : "host STREAM triad", res->bw * 1e-9);
    if (base) {
        printf("baseline    %s/%s median %.6f ms", base->r.plan.format, base->r.plan.algo, base->r.t_median * 1e3);
        if (base->r.batches) printf(", batch %.6f ms", base->r.t_batch * 1e3);
        printf(", plan %.3f ms; speed-up %.2fx per call", base->r.plan.plan_seconds * 1e3, res->speedup);
        if (isfinite(res->speedup_batch)) printf(", %.2fx batch", res->speedup_batch);
        if (res->repay < 0) printf("; plan never repaid\n");
        else printf("; plan repaid after %.0f SpMVs\n", res->repay);
    }
    printf("rel error   %.3e\n", r->rel_error);
    printf("verified: %s\n", r->verified ? "yes" : "no");
}

/* Measures the baseline (the registry's, at its default algorithm) into base on the GPU when
 * res is not the baseline itself and the baseline is built; returns 1 if it ran. */
static int measure_baseline(spx_ctx *ctx, const spx_bench_case *c, const cli_opts *o, const cli_result *res,
                            cli_result *base)
{
    spx_format_desc d;
    const char *algo;
    if (!cli_baseline(&d, &algo) || !d.available || !d.has_cuda || !strcmp(res->r.plan.format, d.name)) return 0;
    spx_plan_opts po = {.format = d.name, .algo = algo, .backend = SPX_BACKEND_CUDA, .precision = o->precision};
    spx_bench_opts bo = {.reps = o->reps, .warmup = o->warmup, .cold = o->cold, .plan_reps = 1};
    if (spx_bench_spmv(ctx, c, &po, &bo, &base->r) != SPX_OK || base->r.status) {
        fprintf(stderr, "warning: baseline %s/%s failed: %s\n", d.name, algo,
                base->r.status ? base->r.msg : spx_ctx_last_error(ctx));
        return 0;
    }
    return 1;
}

/* Reads x from path into *x, which must hold A's column count; prints the error. */
static int read_x(spx_ctx *ctx, const char *path, const spx_csr *A, double **x)
{
    int64_t n = 0;
    spx_status s = spx_vec_read_mtx(ctx, path, &n, x);
    if (s) return cli_fail(ctx, path, s);
    if (n == A->n) return CLI_OK;
    spx_free(ctx, *x);
    *x = NULL;
    return cli_error("%s: x has %lld entries, but the matrix has %d columns", path, (long long)n, A->n);
}

int cmd_spmv(int argc, char **argv)
{
    if (cli_has_flag(argc, argv, 2, "--distributed")) return cli_dist_spmv(argc, argv);
    cli_opts o = {0};
    if (cli_parse(argc, argv, 2,
                  "--format: --algo: --backend: --precision: --reps: --warmup: --threads: --cold --json --strict "
                  "--no-baseline --x: --y-out: --expected-spmvs: --order: --build:",
                  &o))
        return CLI_ERROR;
    if (o.n_positional != 1) return cli_error("usage: spx spmv SRC [options] (see `spx --help`)");
    if (cli_check_outputs(&o)) return CLI_ERROR;
    spx_ctx *ctx = cli_ctx(&o);
    if (!ctx) return CLI_ERROR;
    spx_csr *A = NULL;
    spx_bench_case *c = NULL;
    double *x = NULL, *y = NULL;
    spx_vec *yv = NULL; /* y's storage, within the context's budget */
    cli_result res = {.matrix = o.positional[0]}, base = {.matrix = o.positional[0]};
    int have_base = 0;
    int rc = cli_load(ctx, o.positional[0], &o, &A);
    if (!rc && o.x_path) rc = read_x(ctx, o.x_path, A, &x);
    if (rc) goto done;
    snprintf(res.requested_algo, sizeof res.requested_algo, "%s", o.algo ? o.algo : "auto");
    res.m = A->m;
    res.n = A->n;
    res.nnz = A->nnz;
    spx_status s = spx_bench_case_create_x(ctx, A, 1, x, &c);
    if (!s && o.y_out_path && !(s = spx_vec_create(ctx, SPX_BACKEND_CPU, SPX_FP64, A->m, &yv))) y = spx_vec_data(yv);
    if (s) {
        rc = cli_fail(ctx, "benchmark setup", s);
        goto done;
    }
    spx_plan_opts po = {.format = o.format, .algo = o.algo, .backend = o.backend, .precision = o.precision,
                        .expected_spmvs = o.expected_spmvs, .order = o.order, .build = o.build}; /* y_out: the caller's order */
    spx_bench_opts bo = {.reps = o.reps, .warmup = o.warmup, .cold = o.cold, .y_out = y, .plan_reps = 1}; /* one plan: `spx bench` repeats them */
    if ((s = spx_bench_spmv(ctx, c, &po, &bo, &res.r))) {
        rc = cli_fail(ctx, "spmv", s);
        goto done;
    }
    if (res.r.status) {
        rc = cli_error("spmv: %s", res.r.msg);
        goto done;
    }
    spx_backend b = res.r.plan.backend;
    res.bw = cli_measure_bandwidth(ctx, b);
    cli_measure_launch_floor(ctx, b, &res.launch_call, &res.launch_batch);
    if (b == SPX_BACKEND_CUDA && !o.no_baseline) have_base = measure_baseline(ctx, c, &o, &res, &base);
    cli_compare(&res, have_base ? &base.r : NULL);
    int wrote_y = o.y_out_path && res.r.verified;
    if (wrote_y && (rc = cli_write_vector(ctx, o.y_out_path, A->m, y))) goto done;
    if (o.json) {
        printf("{\"env\":");
        json_env(stdout, ctx, b, b == SPX_BACKEND_CPU ? res.bw : 0, b == SPX_BACKEND_CUDA ? res.bw : 0);
        printf(",\"result\":");
        cli_result_json(stdout, &res);
        int first = 0;
        json_key(stdout, &first, "x");
        if (o.x_path) json_str(stdout, o.x_path);
        else fputs("null", stdout);
        json_key(stdout, &first, "matrix_nonfinite");
        printf("%lld", (long long)A->meta.nonfinite);
        json_key(stdout, &first, "y_out");
        if (wrote_y) json_str(stdout, o.y_out_path);
        else fputs("null", stdout);
        printf("}\n");
    } else {
        print_text(&res, have_base ? &base : NULL);
        if (o.x_path) printf("x           %s (%d entries)\n", o.x_path, A->n);
        if (wrote_y) printf("wrote %s: y = A*x, %d entries\n", o.y_out_path, A->m);
        if (!res.r.verified && A->meta.nonfinite)
            printf("why         the matrix holds %lld non-finite values: y and the oracle are non-finite there\n",
                   (long long)A->meta.nonfinite);
    }
    if (o.y_out_path && !wrote_y) fprintf(stderr, "note: %s not written: y did not verify\n", o.y_out_path);
    rc = res.r.verified ? CLI_OK : CLI_VERIFY_FAILED;
done:
    spx_vec_destroy(&yv);
    spx_free(ctx, x);
    spx_bench_case_destroy(&c);
    spx_csr_destroy(&A);
    spx_ctx_destroy(&ctx);
    return rc;
}
