/* tools/cmd_bench_spmm.c: `spx bench --op spmm --k 1,8,32 [--layout row|col]`: every selected
 * format on every matrix and k, Y = A*X for dense blocks of k columns, each result verified
 * column by column against the oracle (spx_bench_spmm), timed by the SpMV's protocol (per call
 * and back to back), GFLOPS = 2*nnz*k / t, bytes and the fraction of the bandwidth measured in
 * the same run, the speed-up over the fastest cuSPARSE SpMM algorithm on the same (matrix, k)
 * and over k separate SpMVs of the same plan options (their SpMV timed in the same run). A
 * format that fails or a layout cuSPARSE refuses is a row, never the end. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* The built-in suite (no SRC, no --suite): small generated matrices, seconds on 2 CPU cores. */
static const char *const default_suite[] = {"gen:poisson3d:n=40", "gen:stencil27:n=24", "gen:rmat:scale=13,ef=16",
                                            NULL};

#define MAX_KS 16
#define MAX_VARIANTS 32

/* A format/algorithm to measure. */
typedef struct mm_variant {
    char format[32], algo[32]; /* algo "auto": the format's default */
    int is_baseline;           /* the vendor library: the comparison's reference */
} mm_variant;

/* One measured (matrix, k, variant) and its comparisons. */
typedef struct mm_row {
    const char *matrix;
    int32_t m, n;
    int64_t nnz;
    char name[72]; /* format/algo as asked */
    int is_baseline;
    spx_bench_spmm_result r;
    double t_spmv, t_spmv_batch; /* the SpMV of the same plan options (NaN: none) */
    double x_spmv, x_spmv_batch; /* k * t_spmv / t: over k separate SpMVs */
    double x_best, x_best_batch; /* the fastest cuSPARSE SpMM's time / t (NaN: none) */
    char best[72];               /* which cuSPARSE algorithm that was (batch; else call) */
    double bw_fraction;          /* gbytes / the measured bandwidth (NaN: unmeasured) */
} mm_row;

typedef struct mm_run {
    cli_opts o;
    spx_backend backend;
    spx_dense_layout layout;
    int64_t ks[MAX_KS];
    int nk;
    mm_variant v[MAX_VARIANTS];
    int nv;
    double bw; /* bytes/s (0: unmeasured) */
    mm_row *rows;
    int nrows, cap;
    int failed, unverified;
} mm_run;

/* ---- options ------------------------------------------------------------------------------ */

/* Parses --k's comma list of counts (1 to CLI_MAX_K, each once) into run. */
static int parse_ks(mm_run *run, const char *spec)
{
    char buf[256];
    if (strlen(spec) >= sizeof buf) return cli_error("--k is longer than %zu characters", sizeof buf - 1);
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *end;
        errno = 0;
        const long long k = strtoll(tok, &end, 10);
        if (errno || *end || end == tok || k < 1 || k > CLI_MAX_K)
            return cli_error("--k needs counts from 1 to %d (the columns of X and Y), not '%s'", CLI_MAX_K, tok);
        for (int i = 0; i < run->nk; i++)
            if (run->ks[i] == k) return cli_error("--k lists %lld twice", k);
        if (run->nk >= MAX_KS) return cli_error("--k lists more than %d counts", MAX_KS);
        run->ks[run->nk++] = k;
    }
    return run->nk ? CLI_OK : cli_error("--k lists nothing");
}

/* Takes --k LIST out of argv into run->ks (cli_parse takes one count: the list is this
 * command's own); the rest is copied to args (*nargs entries). */
static int take_ks(mm_run *run, int argc, char **argv, char **args, int *nargs)
{
    const char *spec = NULL;
    *nargs = 0;
    for (int i = 0; i < argc; i++) {
        if (i >= 2 && !strcmp(argv[i], "--k")) {
            if (i + 1 >= argc) return cli_error("option '--k' needs a value");
            if (spec) return cli_error("--k given twice");
            spec = argv[++i];
            continue;
        }
        args[(*nargs)++] = argv[i];
    }
    if (!spec) return cli_error("spx bench --op spmm needs --k K[,K...]: the columns of X and Y (1 to %d)", CLI_MAX_K);
    return parse_ks(run, spec);
}

/* Adds format/algo (algo NULL: the default) after checking both exist and run on the backend. */
static int add_variant(mm_run *run, const char *format, const char *algo)
{
    if (run->nv >= MAX_VARIANTS) return cli_error("--formats lists more than %d", MAX_VARIANTS);
    for (int i = 0; i < spx_format_count(); i++) {
        spx_format_desc d;
        spx_format_describe(i, &d);
        if (strcmp(d.name, format)) continue;
        int ok = !algo || !strcmp(algo, "auto");
        for (int a = 0; !ok && d.algos && d.algos[a]; a++) ok = !strcmp(d.algos[a], algo);
        if (!ok) return cli_error("format '%s' has no algorithm '%s' (see `spx formats`)", format, algo);
        if (!d.available) return cli_error("format '%s' is not built here: %s", format, d.why_unavailable);
        if (!(run->backend == SPX_BACKEND_CUDA ? d.has_cuda : d.has_cpu))
            return cli_error("format '%s' has no %s path", format, spx_backend_str(run->backend));
        mm_variant *v = &run->v[run->nv++];
        snprintf(v->format, sizeof v->format, "%s", format);
        snprintf(v->algo, sizeof v->algo, "%s", algo ? algo : "auto");
        v->is_baseline = d.is_baseline;
        return CLI_OK;
    }
    return cli_error("unknown format '%s' (see `spx formats`)", format);
}

/* "all": every built format with a path on the backend at its default algorithm; on the GPU
 * every algorithm of the baseline (the fastest is the reference). */
static int all_variants(mm_run *run)
{
    int rc = CLI_OK;
    for (int i = 0; rc == CLI_OK && i < spx_format_count(); i++) {
        spx_format_desc d;
        spx_format_describe(i, &d);
        if (!d.available || !(run->backend == SPX_BACKEND_CUDA ? d.has_cuda : d.has_cpu)) continue;
        if (!d.is_baseline || !d.algos) rc = add_variant(run, d.name, NULL);
        for (int a = 0; rc == CLI_OK && d.is_baseline && d.algos && d.algos[a]; a++) rc = add_variant(run, d.name, d.algos[a]);
    }
    return rc == CLI_OK && !run->nv ? cli_error("no format runs on %s", spx_backend_str(run->backend)) : rc;
}

/* Parses --formats: "all", or a comma list of format or format/algo. */
static int parse_formats(mm_run *run, const char *spec)
{
    if (!spec || !strcmp(spec, "all")) return all_variants(run);
    char buf[1024];
    if (strlen(spec) >= sizeof buf) return cli_error("--formats is longer than %zu characters", sizeof buf - 1);
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *slash = strchr(tok, '/');
        if (slash) *slash++ = '\0';
        if (add_variant(run, tok, slash) != CLI_OK) return CLI_ERROR;
    }
    return run->nv ? CLI_OK : cli_error("--formats lists nothing");
}

/* ---- measuring ---------------------------------------------------------------------------- */

/* The plan options of variant v in this run. */
static spx_plan_opts plan_opts(const mm_run *run, const mm_variant *v)
{
    spx_plan_opts po = {.format = v->format, .algo = v->algo, .backend = run->backend, .precision = run->o.precision};
    return po;
}

/* The SpMV of v's plan options on case c, verified and timed as `spx bench` does (one plan):
 * *t and *tb its per-call and back-to-back times, NaN when it failed or did not verify. */
static int measure_spmv(spx_ctx *ctx, const mm_run *run, const mm_variant *v, const spx_bench_case *c, double *t,
                        double *tb)
{
    const spx_plan_opts po = plan_opts(run, v);
    const spx_bench_opts bo = {.reps = run->o.reps, .warmup = run->o.warmup, .cold = run->o.cold, .plan_reps = 1};
    spx_bench_result r;
    *t = *tb = NAN;
    spx_status s = spx_bench_spmv(ctx, c, &po, &bo, &r);
    if (s) return cli_fail(ctx, "spmv", s);
    if (!r.status && r.verified) {
        *t = r.t_median;
        *tb = r.t_batch;
    }
    return CLI_OK;
}

/* Measures variant v at k columns on A into a new row. */
static int measure(spx_ctx *ctx, mm_run *run, const char *src, const spx_csr *A, const mm_variant *v, int64_t k,
                   double t_spmv, double t_spmv_batch)
{
    mm_row *row = &run->rows[run->nrows];
    memset(row, 0, sizeof *row);
    row->matrix = src;
    row->m = A->m;
    row->n = A->n;
    row->nnz = A->nnz;
    row->is_baseline = v->is_baseline;
    snprintf(row->name, sizeof row->name, "%s/%s", v->format, v->algo);
    const spx_plan_opts po = plan_opts(run, v);
    const spx_bench_spmm_opts bo = {.k = k, .layout = run->layout, .reps = run->o.reps, .warmup = run->o.warmup,
                                    .cold = run->o.cold};
    spx_status s = spx_bench_spmm(ctx, A, &po, &bo, &row->r);
    if (s) return cli_fail(ctx, src, s);
    run->nrows++;
    const spx_bench_spmm_result *r = &row->r;
    const int ok = !r->status && r->verified;
    row->t_spmv = t_spmv;
    row->t_spmv_batch = t_spmv_batch;
    row->x_spmv = ok ? (double)k * t_spmv / r->t_median : NAN;
    row->x_spmv_batch = ok ? (double)k * t_spmv_batch / r->t_batch : NAN;
    row->bw_fraction = ok && run->bw > 0 ? r->gbytes * 1e9 / run->bw : NAN;
    row->x_best = row->x_best_batch = NAN;
    if (r->status && r->status != SPX_ERR_UNSUPPORTED) run->failed++;
    if (!r->status && !r->verified) run->unverified++;
    return CLI_OK;
}

/* Whether row holds a verified time. */
static int usable(const mm_row *row) { return !row->r.status && row->r.verified; }

/* The speed-ups of rows [first, end) (one matrix and k) over the fastest cuSPARSE SpMM there. */
static void compare(mm_run *run, int first, int end)
{
    const mm_row *best = NULL, *best_b = NULL;
    for (int i = first; i < end; i++) {
        const mm_row *row = &run->rows[i];
        if (!row->is_baseline || !usable(row)) continue;
        if (!best || row->r.t_median < best->r.t_median) best = row;
        if (isfinite(row->r.t_batch) && (!best_b || row->r.t_batch < best_b->r.t_batch)) best_b = row;
    }
    for (int i = first; i < end && best; i++) {
        mm_row *row = &run->rows[i];
        if (!usable(row)) continue;
        row->x_best = best->r.t_median / row->r.t_median;
        row->x_best_batch = best_b ? best_b->r.t_batch / row->r.t_batch : NAN;
        snprintf(row->best, sizeof row->best, "%s", (best_b ? best_b : best)->name);
    }
}

/* A table cell: a space and v in width characters with prec decimals, or "-" when not finite. */
static void cell(int width, int prec, double v)
{
    if (isfinite(v)) printf(" %*.*f", width, prec, v);
    else printf(" %*s", width, "-");
}

static void print_table_header(void)
{
    printf("%-26s %5s %-18s %-34s %10s %10s %8s %8s %6s %7s %7s  %s\n", "matrix", "k", "format/algo", "kernel", "call_ms",
           "batch_ms", "GFLOPS", "GF_batch", "%bw", "x_cusp", "x_spmv", "verified");
}

static void print_table_row(const mm_row *row)
{
    const spx_bench_spmm_result *r = &row->r;
    printf("%-26.26s %5lld %-18.18s %-34.34s", row->matrix, (long long)r->k, row->name,
           r->status ? "-" : r->spmm.kernel);
    if (r->status) {
        printf(" %s: %s\n", r->status == SPX_ERR_UNSUPPORTED ? "refused" : "failed", r->msg);
        return;
    }
    cell(10, 4, r->t_median * 1e3);
    cell(10, 4, r->t_batch * 1e3);
    cell(8, 1, r->gflops);
    cell(8, 1, r->gflops_batch);
    cell(6, 1, row->bw_fraction * 100);
    cell(7, 2, row->x_best_batch);
    cell(7, 2, row->x_spmv_batch);
    printf("  %s%s\n", r->verified ? "yes" : "NO", r->spmm.fallback ? " (fallback)" : "");
}

/* Every variant at every k on one matrix: their rows printed as each k finishes. */
static int bench_matrix(spx_ctx *ctx, mm_run *run, const char *src, int idx, int total)
{
    spx_csr *A = NULL;
    spx_bench_case *c = NULL;
    double t_spmv[MAX_VARIANTS], tb_spmv[MAX_VARIANTS];
    int rc = cli_load(ctx, src, &run->o, &A);
    if (rc) return rc;
    spx_status s = spx_bench_case_create(ctx, A, 1, &c);
    if (s) rc = cli_fail(ctx, "benchmark setup", s);
    for (int i = 0; rc == CLI_OK && i < run->nv; i++) rc = measure_spmv(ctx, run, &run->v[i], c, &t_spmv[i], &tb_spmv[i]);
    for (int j = 0; rc == CLI_OK && j < run->nk; j++) {
        const int first = run->nrows;
        for (int i = 0; rc == CLI_OK && i < run->nv; i++) {
            if (isatty(2))
                fprintf(stderr, "\r[%d/%d] %-32.32s k %lld %s/%s        ", idx + 1, total, src, (long long)run->ks[j],
                        run->v[i].format, run->v[i].algo);
            rc = measure(ctx, run, src, A, &run->v[i], run->ks[j], t_spmv[i], tb_spmv[i]);
        }
        if (isatty(2)) fprintf(stderr, "\r%80s\r", "");
        compare(run, first, run->nrows);
        for (int i = first; i < run->nrows; i++) print_table_row(&run->rows[i]);
        fflush(stdout);
    }
    spx_bench_case_destroy(&c);
    spx_csr_destroy(&A);
    return rc;
}

/* ---- output ------------------------------------------------------------------------------- */

/* The i-th row as a JSON object (cli_write_results_json's row writer). */
static void row_json(FILE *f, const void *rows, int i)
{
    const mm_row *row = &((const mm_row *)rows)[i];
    const spx_bench_spmm_result *r = &row->r;
    int first = 1;
    fputc('{', f);
    json_kv_str(f, &first, "op", "spmm");
    json_kv_str(f, &first, "name", row->name);
    json_kv_str(f, &first, "status", spx_status_str(r->status));
    if (r->status) json_kv_str(f, &first, "message", r->msg);
    cli_spmm_fields(f, &first, row->matrix, row->m, row->n, row->nnz, r);
    json_kv_num(f, &first, "bw_fraction", row->bw_fraction);
    json_kv_num(f, &first, "t_spmv_s", row->t_spmv);
    json_kv_num(f, &first, "t_spmv_batch_s", row->t_spmv_batch);
    json_kv_num(f, &first, "x_spmv", row->x_spmv);
    json_kv_num(f, &first, "x_spmv_batch", row->x_spmv_batch);
    json_kv_str(f, &first, "best_cusparse", row->best);
    json_kv_num(f, &first, "x_best_cusparse", row->x_best);
    json_kv_num(f, &first, "x_best_cusparse_batch", row->x_best_batch);
    fputc('}', f);
}

/* The lines above the table: what was measured and what the columns are. */
static void print_preamble(const mm_run *run)
{
    const int gpu = run->backend == SPX_BACKEND_CUDA;
    printf("backend %s, %s, %s-major blocks; measured %s bandwidth %.1f GB/s; %s\n", spx_backend_str(run->backend),
           spx_precision_str(run->o.precision), spx_dense_layout_str(run->layout),
           gpu ? "device copy" : "host STREAM triad", run->bw * 1e-9,
           run->o.cold && gpu ? "cold (L2 flushed before each run)" : "warm");
    printf("call = median of single SpMMs, each timed alone; batch = per SpMM of back-to-back batches; GFLOPS = "
           "2*nnz*k/t; %%bw = A once, X and Y once (spx_spmm_info.bytes) per call over the bandwidth; x_cusp = the "
           "fastest cuSPARSE SpMM algorithm's batch time / this one's; x_spmv = k times the same plan options' SpMV "
           "(batch) / this SpMM's\n");
}

/* Parses the command line into run (argv without --k into args). */
static int parse(mm_run *run, int argc, char **argv, char **args)
{
    int nargs = 0;
    if (take_ks(run, argc, argv, args, &nargs) ||
        cli_parse(nargs, args, 2,
                  "--op: --suite: --formats: --layout: --backend: --precision: --reps: --warmup: --threads: --cold "
                  "--json:",
                  &run->o) ||
        cli_check_outputs(&run->o))
        return CLI_ERROR;
    run->layout = run->o.layout_given ? run->o.layout : SPX_DENSE_ROW_MAJOR;
    return CLI_OK;
}

int cmd_bench_spmm(int argc, char **argv)
{
    mm_run run;
    memset(&run, 0, sizeof run);
    char **args = calloc((size_t)argc + 1, sizeof *args);
    char *srcs[CLI_MAX_SOURCES];
    int nsrc = 0;
    int rc = args ? parse(&run, argc, argv, args) : cli_error("out of memory");
    if (rc == CLI_OK) rc = cli_sources(&run.o, default_suite, srcs, &nsrc);
    if (rc == CLI_OK) rc = cli_check_sources(srcs, nsrc);
    spx_ctx *ctx = rc == CLI_OK ? cli_ctx(&run.o) : NULL;
    if (rc == CLI_OK && !ctx) rc = CLI_ERROR;
    if (rc == CLI_OK) {
        spx_status s = spx_ctx_resolve_backend(ctx, run.o.backend, &run.backend);
        if (s) rc = cli_fail(ctx, "backend", s);
    }
    if (rc == CLI_OK) rc = parse_formats(&run, run.o.formats);
    if (rc == CLI_OK) {
        run.cap = nsrc * run.nk * run.nv;
        run.rows = calloc((size_t)run.cap + 1, sizeof *run.rows);
        if (!run.rows) rc = cli_error("out of memory");
    }
    if (rc == CLI_OK) {
        run.bw = cli_measure_bandwidth(ctx, run.backend);
        print_preamble(&run);
        print_table_header();
    }
    for (int i = 0; rc == CLI_OK && i < nsrc; i++) rc = bench_matrix(ctx, &run, srcs[i], i, nsrc);
    const int gpu = run.backend == SPX_BACKEND_CUDA;
    if (rc == CLI_OK && run.o.json_path)
        rc = cli_write_results_json(ctx, run.o.json_path, run.backend, gpu ? 0 : run.bw, gpu ? run.bw : 0, "spmm", run.rows,
                                    run.nrows, row_json);
    if (rc == CLI_OK && run.failed) rc = cli_error("%d measurement(s) failed", run.failed);
    if (rc == CLI_OK && run.unverified) {
        fprintf(stderr, "error: %d result(s) failed verification\n", run.unverified);
        rc = CLI_VERIFY_FAILED;
    }
    free(run.rows);
    free(args);
    for (int i = 0; i < nsrc; i++) free(srcs[i]);
    spx_ctx_destroy(&ctx);
    return rc;
}
