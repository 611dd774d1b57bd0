/* tools/cmd_spmm.c: `spx spmm SRC --k K`: plan one format, Y = A*X for dense blocks of K columns
 * (row- or column-major), verify column by column against the oracle, time it (latency and
 * back-to-back throughput, the SpMV's protocol); the report names the kernel, or the fallback of
 * K SpMVs when the format has no SpMM kernel on the backend. GFLOPS = 2*nnz*K / t. */
#include <math.h>
#include <string.h>

#include "cli.h"

/* Prints the result as the readable block of `spx spmm`. */
static void print_text(const char *src, const spx_csr *A, const spx_bench_spmm_result *r, double bw)
{
    const spx_plan_info *p = &r->plan;
    printf("matrix      %s (%d x %d, %lld nnz)\n", src, A->m, A->n, (long long)A->nnz);
    printf("format      %s/%s  backend %s  precision %s\n", p->format, p->algo, spx_backend_str(p->backend),
           spx_precision_str(p->precision));
    printf("spmm        k %lld, %s-major blocks  kernel %s\n", (long long)r->k, spx_dense_layout_str(r->layout),
           r->spmm.kernel);
    if (r->spmm.fallback)
        printf("fallback    %s has no SpMM kernel on %s: %lld SpMVs, one a column (%s)\n", p->format,
               spx_backend_str(p->backend), (long long)r->k, p->kernel);
    printf("plan        %.3f ms\n", p->plan_seconds * 1e3);
    printf("time        median %.6f ms  min %.6f ms  max %.6f ms  (%d runs, each timed alone)\n", r->t_median * 1e3,
           r->t_min * 1e3, r->t_max * 1e3, r->reps);
    if (r->batches)
        printf("batch       %.6f ms per SpMM  (median of %d batches of %d back-to-back SpMMs)\n", r->t_batch * 1e3,
               r->batches, r->batch_calls);
    else
        printf("batch       not measured (cold)\n");
    printf("GFLOPS      %.3f per call", r->gflops);
    if (r->batches) printf(", %.3f batch", r->gflops_batch);
    printf(" (2*nnz*k/t)\n");
    printf("GB/s        %.3f (%.0f bytes/SpMM; %.2f of the measured %s bandwidth %.1f GB/s)\n", r->gbytes, r->spmm.bytes,
           bw > 0 ? r->gbytes * 1e9 / bw : 0.0, p->backend == SPX_BACKEND_CUDA ? "device copy" : "host STREAM triad",
           bw * 1e-9);
    printf("rel error   %.3e (worst column)\n", r->rel_error);
    printf("verified: %s\n", r->verified ? "yes" : "no");
}

void cli_spmm_fields(FILE *f, int *first, const char *src, int32_t m, int32_t n, int64_t nnz,
                     const spx_bench_spmm_result *r)
{
    const spx_plan_info *p = &r->plan;
    json_kv_str(f, first, "matrix", src);
    json_kv_int(f, first, "m", m);
    json_kv_int(f, first, "n", n);
    json_kv_int(f, first, "nnz", nnz);
    json_kv_int(f, first, "k", r->k);
    json_kv_str(f, first, "layout", spx_dense_layout_str(r->layout));
    json_kv_str(f, first, "format", p->format);
    json_kv_str(f, first, "algo", p->algo);
    json_kv_str(f, first, "kernel", r->spmm.kernel);
    json_kv_int(f, first, "fallback", r->spmm.fallback);
    json_kv_str(f, first, "spmv_kernel", p->kernel);
    json_kv_str(f, first, "backend", spx_backend_str(p->backend));
    json_kv_str(f, first, "precision", spx_precision_str(p->precision));
    json_kv_num(f, first, "plan_s", p->plan_seconds);
    json_kv_int(f, first, "reps", r->reps);
    json_kv_num(f, first, "t_median_s", r->t_median);
    json_kv_num(f, first, "t_min_s", r->t_min);
    json_kv_num(f, first, "t_max_s", r->t_max);
    json_kv_num(f, first, "t_batch_s", r->t_batch); /* null (NaN) when not measured */
    json_kv_int(f, first, "batch_calls", r->batch_calls);
    json_kv_num(f, first, "gflops", r->gflops);
    json_kv_num(f, first, "gflops_batch", r->gflops_batch);
    json_kv_num(f, first, "gbytes", r->gbytes);
    json_kv_num(f, first, "gbytes_batch", r->gbytes_batch);
    json_kv_num(f, first, "bytes_per_spmm", r->spmm.bytes);
    json_kv_num(f, first, "rel_error", r->rel_error);
    json_kv_int(f, first, "verified", r->verified);
}

/* The result as one JSON object. */
static void print_json(spx_ctx *ctx, const char *src, const spx_csr *A, const spx_bench_spmm_result *r, double bw)
{
    const spx_backend b = r->plan.backend;
    int first = 1;
    printf("{\"env\":");
    json_env(stdout, ctx, b, b == SPX_BACKEND_CPU ? bw : 0, b == SPX_BACKEND_CUDA ? bw : 0);
    printf(",\"op\":\"spmm\",\"result\":{");
    cli_spmm_fields(stdout, &first, src, A->m, A->n, A->nnz, r);
    printf("}}\n");
}

/* --format F/A names the format and its algorithm at once (as `spx bench --formats` does): split
 * into o's format and algo, the text kept in buf; with --algo as well, an error. */
static int split_format(cli_opts *o, char *buf, size_t cap)
{
    const char *slash = o->format ? strchr(o->format, '/') : NULL;
    if (!slash) return CLI_OK;
    if (o->algo) return cli_error("--format %s names an algorithm: --algo %s as well is one too many", o->format, o->algo);
    if (strlen(o->format) >= cap) return cli_error("--format is longer than %zu characters", cap - 1);
    const size_t at = (size_t)(slash - o->format);
    snprintf(buf, cap, "%s", o->format);
    buf[at] = '\0';
    o->format = buf;
    o->algo = buf + at + 1;
    return CLI_OK;
}

int cmd_spmm(int argc, char **argv)
{
    cli_opts o = {0};
    char fmt_buf[96];
    if (cli_parse(argc, argv, 2,
                  "--k: --layout: --format: --algo: --backend: --precision: --reps: --warmup: --threads: --cold --json "
                  "--strict --order: --build:",
                  &o) ||
        split_format(&o, fmt_buf, sizeof fmt_buf))
        return CLI_ERROR;
    if (o.n_positional != 1) return cli_error("usage: spx spmm SRC --k K [options] (see `spx --help`)");
    if (o.k == 0) return cli_error("spx spmm needs --k K: the columns of X and Y (1 to %d)", CLI_MAX_K);
    spx_ctx *ctx = cli_ctx(&o);
    if (!ctx) return CLI_ERROR;
    spx_csr *A = NULL;
    int rc = cli_load(ctx, o.positional[0], &o, &A);
    if (rc) goto done;
    spx_plan_opts po = {.format = o.format, .algo = o.algo, .backend = o.backend, .precision = o.precision,
                        .order = o.order, .build = o.build};
    spx_bench_spmm_opts bo = {.k = o.k, .layout = o.layout_given ? o.layout : SPX_DENSE_ROW_MAJOR, .reps = o.reps,
                              .warmup = o.warmup, .cold = o.cold};
    spx_bench_spmm_result r;
    spx_status s = spx_bench_spmm(ctx, A, &po, &bo, &r);
    if (s) {
        rc = cli_fail(ctx, "spmm", s);
        goto done;
    }
    if (r.status) {
        rc = cli_error("spmm: %s", r.msg);
        goto done;
    }
    const double bw = cli_measure_bandwidth(ctx, r.plan.backend);
    if (o.json) print_json(ctx, o.positional[0], A, &r, bw);
    else print_text(o.positional[0], A, &r, bw);
    rc = r.verified ? CLI_OK : CLI_VERIFY_FAILED;
done:
    spx_csr_destroy(&A);
    spx_ctx_destroy(&ctx);
    return rc;
}
