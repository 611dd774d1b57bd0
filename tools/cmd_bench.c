/* tools/cmd_bench.c: `spx bench`: every selected format on every matrix, one table, with
 * the backend's bandwidth measured in the same run and the registry's baseline (the format
 * flagged is_baseline, default algorithm) as the GPU reference. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "svg.h"

/* The built-in default suite: a few matrices of each generator, sized so that the whole CPU
 * run (references included) takes well under a minute on a 2-core machine. The first is the
 * largest (its matrix and vectors, ~100 MB, are far beyond any CPU cache). */
static const char *const default_suite[] = {
    "gen:poisson3d:n=100",
    "gen:poisson2d:n=700",
    "gen:stencil27:n=40",
    "gen:rmat:scale=16,ef=16",
    "gen:rmat:scale=15,ef=8,sym=1",
    "gen:uniform:m=200000,k=8",
    "gen:powerlaw:m=200000,k=8",
    "gen:banded:m=200000,bw=4",
    "gen:blockdiag:m=40000,b=32",
    "gen:tall:m=1000000,n=1000,k=2",
    "gen:wide:m=512,n=394792",
    NULL,
};

#define MAX_VARIANTS 64

typedef struct variant {
    char format[32], algo[32];
    const char *why; /* the format is not built here: why (it is skipped); else NULL */
} variant;

/* Adds fmt/algo to the list, checking both exist; "auto" is the selection's choice per matrix
 * (no algorithm of its own). */
static int add_variant(variant *v, int *n, const char *fmt, const char *algo)
{
    if (*n >= MAX_VARIANTS) return cli_error("too many formats");
    if (!strcmp(fmt, "auto")) {
        if (algo && strcmp(algo, "auto")) return cli_error("format 'auto' takes no algorithm ('%s' given)", algo);
        snprintf(v[*n].format, sizeof v[*n].format, "auto");
        snprintf(v[*n].algo, sizeof v[*n].algo, "auto");
        v[*n].why = NULL;
        (*n)++;
        return CLI_OK;
    }
    int found = 0;
    for (int i = 0; i < spx_format_count(); i++) {
        spx_format_desc d;
        spx_format_describe(i, &d);
        if (strcmp(d.name, fmt)) continue;
        found = 1;
        int ok = !algo || !strcmp(algo, "auto");
        for (int a = 0; !ok && d.algos && d.algos[a]; a++) ok = !strcmp(d.algos[a], algo);
        if (!ok) return cli_error("format '%s' has no algorithm '%s' (see `spx formats`)", fmt, algo);
        v[*n].why = d.available ? NULL : d.why_unavailable ? d.why_unavailable : "a dependency is missing";
    }
    if (!found) return cli_error("unknown format '%s' (see `spx formats`)", fmt);
    snprintf(v[*n].format, sizeof v[*n].format, "%s", fmt);
    snprintf(v[*n].algo, sizeof v[*n].algo, "%s", algo ? algo : "auto");
    (*n)++;
    return CLI_OK;
}

/* "all": on the GPU every algorithm of every format with a CUDA path (the baseline's default
 * algorithm first); on the CPU every format with a CPU path, once (its algorithms share the
 * CPU loop). A format not built here is listed once whatever its paths, to be reported as
 * skipped with the reason. */
static int expand_all(spx_backend b, variant *v, int *n)
{
    int rc = CLI_OK, cpu = b == SPX_BACKEND_CPU;
    spx_format_desc base;
    const char *base_algo = NULL;
    int base_first = !cpu && cli_baseline(&base, &base_algo) && (base.has_cuda || !base.available);
    if (base_first) rc = add_variant(v, n, base.name, base_algo);
    for (int i = 0; rc == CLI_OK && i < spx_format_count(); i++) {
        spx_format_desc d;
        spx_format_describe(i, &d);
        int is_base = base_first && !strcmp(d.name, base.name);
        if (!d.available || cpu) {
            if (!is_base && (!d.available || d.has_cpu)) rc = add_variant(v, n, d.name, d.algos ? d.algos[0] : NULL);
            continue;
        }
        for (int a = 0; rc == CLI_OK && d.has_cuda && d.algos && d.algos[a]; a++)
            if (!is_base || strcmp(d.algos[a], base_algo)) rc = add_variant(v, n, d.name, d.algos[a]);
    }
    if (rc == CLI_OK && !cpu) rc = add_variant(v, n, "auto", NULL); /* what auto picks, beside them all */
    return rc;
}

/* Parses --formats (all, or a comma list of fmt or fmt/algo). */
static int parse_formats(const char *spec, spx_backend b, variant *v, int *n)
{
    if (!spec || !strcmp(spec, "all")) return expand_all(b, v, n);
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *slash = strchr(tok, '/');
        if (slash) *slash++ = '\0';
        if (add_variant(v, n, tok, slash) != CLI_OK) return CLI_ERROR;
    }
    return *n ? CLI_OK : cli_error("--formats lists nothing");
}

typedef struct bench_run {
    cli_opts o;
    spx_backend backend;
    double bw;
    double demo; /* SPX_BENCH_DEMO_SLOWDOWN: spx_bench_opts.demo_extra_work of every non-baseline variant */
    double launch_call, launch_batch; /* GPU: the empty kernel's times (cli_measure_launch_floor) */
    variant v[MAX_VARIANTS];
    int nv;
    cli_result *res;
    int nres, cap;
    int failures, unverified;
} bench_run;

/* Whether v is the registry's baseline format (its measurement is never slowed by the demo). */
static int is_baseline_variant(const variant *v)
{
    spx_format_desc d;
    const char *algo;
    return cli_baseline(&d, &algo) && !strcmp(v->format, d.name);
}

/* The demonstration switch SPX_BENCH_DEMO_SLOWDOWN (unset or empty: 0), a fraction in (0, 1]
 * of extra work for every measured format but the baseline (spx_bench_opts.demo_extra_work;
 * scripts/perf_gate.py shows with it that the gate fails on a slower kernel). */
static int demo_slowdown(double *out)
{
    const char *e = getenv("SPX_BENCH_DEMO_SLOWDOWN");
    *out = 0;
    if (!e || !*e) return CLI_OK;
    char *end;
    double f = strtod(e, &end);
    if (*end || !(f > 0 && f <= 1))
        return cli_error("SPX_BENCH_DEMO_SLOWDOWN must be a fraction in (0, 1], not '%s'", e);
    *out = f;
    return CLI_OK;
}

/* Fills r as the record of a variant whose format is not built here (nothing is planned). */
static void skip_result(cli_result *r, const bench_run *br, const variant *v)
{
    static const char prefix[] = "not built: ";
    r->skipped = v->why;
    r->r.status = SPX_ERR_UNSUPPORTED;
    snprintf(r->r.msg, sizeof r->r.msg, "%s%s", prefix, v->why);
    r->r.rel_error = INFINITY;
    r->r.t_batch = r->r.gflops_batch = r->r.gbytes_batch = NAN;
    r->r.plan.backend = br->backend;
    r->r.plan.precision = br->o.precision;
}

/* Measures every variant on one matrix, prints its rows, keeps the results. */
static int bench_matrix(spx_ctx *ctx, bench_run *br, const char *src, int idx, int total)
{
    spx_csr *A = NULL;
    spx_bench_case *c = NULL;
    int rc = cli_load(ctx, src, &br->o, &A);
    if (rc) return rc;
    spx_features feat;
    spx_status s = spx_features_compute(A, &feat);
    if (!s) s = spx_bench_case_create(ctx, A, 1, &c);
    if (s) {
        spx_csr_destroy(&A);
        return cli_fail(ctx, "benchmark setup", s);
    }
    int first = br->nres;
    for (int i = 0; i < br->nv && rc == CLI_OK; i++) {
        if (isatty(2)) fprintf(stderr, "\r[%d/%d] %-40.40s %s/%s        ", idx + 1, total, src, br->v[i].format, br->v[i].algo);
        cli_result *r = &br->res[br->nres];
        memset(r, 0, sizeof *r);
        r->matrix = src;
        r->m = A->m;
        r->n = A->n;
        r->nnz = A->nnz;
        r->row_mean = feat.row_mean;
        r->row_stddev = feat.row_stddev;
        r->diag_distance = feat.diag_distance;
        r->bw = br->bw;
        r->launch_call = br->launch_call;
        r->launch_batch = br->launch_batch;
        snprintf(r->requested_algo, sizeof r->requested_algo, "%s", br->v[i].algo);
        snprintf(r->requested_format, sizeof r->requested_format, "%s", br->v[i].format);
        /* auto follows the selection table, for --expected-spmvs N or its default count */
        const int64_t n_spmvs = br->o.expected_spmvs > 0 ? br->o.expected_spmvs : SPX_SELECT_DEFAULT_SPMVS;
        spx_plan_opts po = {.format = br->v[i].format, .algo = br->v[i].algo, .backend = br->backend,
                            .precision = br->o.precision,
                            .expected_spmvs = strcmp(br->v[i].format, "auto") ? 0 : n_spmvs,
                            .order = br->o.order, .build = br->o.build};
        spx_bench_opts bo = {.reps = br->o.reps, .warmup = br->o.warmup, .cold = br->o.cold, .plan_reps = br->o.plan_reps,
                             .demo_extra_work = is_baseline_variant(&br->v[i]) ? 0 : br->demo};
        if (br->v[i].why) skip_result(r, br, &br->v[i]);
        else if ((s = spx_bench_spmv(ctx, c, &po, &bo, &r->r))) rc = cli_fail(ctx, src, s);
        if (!r->r.plan.format[0]) { /* refused before a plan existed: name it as asked */
            snprintf(r->r.plan.format, sizeof r->r.plan.format, "%s", br->v[i].format);
            snprintf(r->r.plan.algo, sizeof r->r.plan.algo, "%s", br->v[i].algo);
        }
        br->nres++;
    }
    if (isatty(2)) fprintf(stderr, "\r%80s\r", "");
    const spx_bench_result *base = NULL;
    for (int i = first; i < br->nres; i++)
        if (!br->res[i].skipped && strcmp(br->res[i].requested_format, "auto") && cli_is_baseline(&br->res[i].r))
            base = &br->res[i].r; /* (an auto row that chose the baseline is not the baseline's row) */
    for (int i = first; i < br->nres; i++) {
        cli_result *r = &br->res[i];
        cli_compare(r, base == &r->r ? NULL : base);
        if (r->skipped) continue; /* not built here: a note above the table, not a failure */
        if (r->r.status && r->r.status != SPX_ERR_UNSUPPORTED && r->r.status != SPX_ERR_OVERFLOW) br->failures++;
        if (!r->r.status && !r->r.verified) br->unverified++;
        cli_result_table_row(stdout, r);
    }
    fflush(stdout);
    spx_bench_case_destroy(&c);
    spx_csr_destroy(&A);
    return rc;
}

/* Prints the lines above the table: backend, bandwidth, what the columns are, skipped formats. */
static void print_preamble(const bench_run *br)
{
    int cold = br->o.cold && br->backend == SPX_BACKEND_CUDA;
    char base[80] = "";
    spx_format_desc d;
    const char *algo;
    if (cli_baseline(&d, &algo)) snprintf(base, sizeof base, "%s/%s", d.name, algo);
    printf("backend %s, %s; measured %s bandwidth %.1f GB/s; %s; times per SpMV, GFLOPS = 2*nnz/t\n",
           spx_backend_str(br->backend), spx_precision_str(br->o.precision),
           br->backend == SPX_BACKEND_CUDA ? "device copy" : "host STREAM triad", br->bw * 1e-9,
           cold ? "cold (L2 flushed before each run)" : "warm");
    printf("call = median of single SpMVs, each timed alone; batch = per SpMV of back-to-back batches "
           "(median of batches)%s; GB/s and %%bw per call; x_call, x_batch = speed-up over %s\n",
           cold ? ", not measured cold" : "", base[0] ? base : "the baseline");
    if (isfinite(br->launch_call))
        printf("launch floor: an empty kernel called as a one-kernel SpMV is, same protocol: %.4f ms per call, "
               "%.4f ms back to back\n",
               br->launch_call * 1e3, br->launch_batch * 1e3);
    printf("plan_x = plan time / %s's (both with their upload and spx's host CSR check; the JSON has the baseline "
           "without the check too)\n",
           base[0] ? base : "the baseline");
    for (int i = 0; i < br->nv; i++)
        if (br->v[i].why) printf("skipped %s: not built: %s\n", br->v[i].format, br->v[i].why);
    if (br->demo > 0)
        printf("DEMONSTRATION (SPX_BENCH_DEMO_SLOWDOWN=%g): every format but the baseline also runs the leading rows "
               "holding %.0f %% of the nonzeros in each timed call; these times are not measurements\n",
               br->demo, br->demo * 100);
}

/* The i-th SpMV result as a JSON object (cli_write_results_json's row writer). */
static void result_json(FILE *f, const void *rows, int i) { cli_result_json(f, &((const cli_result *)rows)[i]); }

/* Writes the JSON record of the run (environment + every result) to path. */
static int write_json(spx_ctx *ctx, const bench_run *br, const char *path)
{
    return cli_write_results_json(ctx, path, br->backend, br->backend == SPX_BACKEND_CPU ? br->bw : 0,
                                  br->backend == SPX_BACKEND_CUDA ? br->bw : 0, NULL, br->res, br->nres, result_json);
}

/* Writes the CSV lines of the run to path. */
static int write_csv(const bench_run *br, const char *path)
{
    char tmp[4096];
    FILE *f = cli_open_out(path, tmp, sizeof tmp);
    if (!f) return CLI_ERROR;
    cli_result_csv_header(f);
    for (int i = 0; i < br->nres; i++) cli_result_csv(f, &br->res[i]);
    return cli_commit_out(f, tmp, path);
}

/* The copy-bandwidth roofline of result r's matrix in GFLOPS: 2*nnz in the time the measured
 * bandwidth moves the minimum bytes of a CSR SpMV at the run's precision (int32 row pointers,
 * x read and y written once: the csr format's bytes_per_spmv, `spx info`'s at fp64), i.e.
 * where that result's bandwidth_fraction would be 1. NaN when the bandwidth is unmeasured. */
static double roofline_gflops(const bench_run *br, const cli_result *r)
{
    double bytes = spx_csr_traffic_bytes(r->m, r->n, r->nnz, (int)spx_precision_bytes(br->o.precision), 4, 0);
    return br->bw > 0 && bytes > 0 ? 2.0 * (double)r->nnz * br->bw / bytes * 1e-9 : NAN;
}

/* The part of a source after its last '/' (a gen: spec or a file name). */
static const char *base_name(const char *src)
{
    const char *slash = strrchr(src, '/');
    return slash && slash[1] ? slash + 1 : src;
}

/* Whether the bars and marks in v[0..n) span more than a factor of 30: a log axis then. */
static int wide_range(const double *v, int n)
{
    double mn = INFINITY, mx = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(v[i]) && v[i] > 0) mn = fmin(mn, v[i]), mx = fmax(mx, v[i]);
    return mx > 30 * mn;
}

/* Writes the run's picture to path: per matrix (group) the GFLOPS per call of every variant
 * measured here (a bar; none where it failed or was not verified) and the roofline mark. */
static int write_plot(const bench_run *br, int nsrc, const char *path)
{
    const char *names[MAX_VARIANTS], *groups[CLI_MAX_SOURCES];
    char name_buf[MAX_VARIANTS][72], sub[256], ref[192];
    int col[MAX_VARIANTS], ns = 0; /* the variants drawn: those built here */
    for (int i = 0; i < br->nv; i++) {
        if (br->v[i].why) continue;
        snprintf(name_buf[ns], sizeof name_buf[ns], "%s/%s", br->v[i].format, br->v[i].algo);
        names[ns] = name_buf[ns];
        col[ns++] = i;
    }
    double *vals = calloc((size_t)nsrc * (size_t)(ns + 1) + 1, sizeof *vals), *refs = vals + (size_t)nsrc * ns;
    if (!vals) return cli_error("out of memory");
    for (int g = 0; g < nsrc; g++) {
        const cli_result *row = &br->res[g * br->nv];
        groups[g] = base_name(row->matrix);
        refs[g] = roofline_gflops(br, row);
        for (int k = 0; k < ns; k++) {
            const cli_result *r = &row[col[k]];
            vals[g * ns + k] = !r->r.status && r->r.verified ? r->r.gflops : NAN;
        }
    }
    const char *bw_name = br->backend == SPX_BACKEND_CUDA ? "device copy" : "host STREAM triad";
    snprintf(sub, sizeof sub, "backend %s, %s%s; GFLOPS = 2*nnz / call time (median of single SpMVs)",
             spx_backend_str(br->backend), spx_precision_str(br->o.precision),
             br->o.cold && br->backend == SPX_BACKEND_CUDA ? ", cold" : "");
    if (br->bw > 0)
        snprintf(ref, sizeof ref, "roofline: 2*nnz at the measured %s bandwidth %.1f GB/s over the CSR bytes per SpMV",
                 bw_name, br->bw * 1e-9);
    else
        snprintf(ref, sizeof ref, "no roofline: the %s bandwidth was not measured", bw_name);
    svg_bars b = {.title = "spx bench: SpMV GFLOPS per format", .subtitle = sub, .ylabel = "GFLOPS",
                  .groups = groups, .n_groups = nsrc, .series = names, .n_series = ns, .values = vals,
                  .refs = br->bw > 0 ? refs : NULL, .ref_label = ref};
    b.log_y = wide_range(vals, nsrc * (ns + 1));
    int rc = svg_bar_chart(path, &b);
    free(vals);
    return rc;
}

/* The value of `--op` in argv (NULL: not given, the SpMV bench). */
static const char *op_of(int argc, char **argv)
{
    for (int i = 2; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--op")) return argv[i + 1];
    return NULL;
}

int cmd_bench(int argc, char **argv)
{
    const char *op = op_of(argc, argv);
    if (op && !strcmp(op, "spgemm")) return cmd_bench_spgemm(argc, argv);
    if (op && !strcmp(op, "spmm")) return cmd_bench_spmm(argc, argv);
    if (op && strcmp(op, "spmv")) return cli_error("--op must be spmv, spmm or spgemm, not '%s'", op);
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--methods") || !strcmp(argv[i], "--transpose-b") || !strcmp(argv[i], "--cpu-scaling") ||
            !strcmp(argv[i], "--device-mem-limit") || !strcmp(argv[i], "--panels") || !strcmp(argv[i], "--gpu-share") ||
            !strcmp(argv[i], "--b-col-blocks"))
            return cli_error("%s is an option of `spx bench --op spgemm`, not of the SpMV bench", argv[i]);
    bench_run br;
    memset(&br, 0, sizeof br);
    if (cli_parse(argc, argv, 2,
                  "--op: --suite: --formats: --backend: --precision: --reps: --plan-reps: --warmup: --threads: --expected-spmvs: --order: --build: --cold --strict "
                  "--json: --csv: --plot:",
                  &br.o) ||
        cli_check_outputs(&br.o)) /* a bad --json or --csv path is an error before any work */
        return CLI_ERROR;
    char *srcs[CLI_MAX_SOURCES];
    int nsrc = 0;
    int rc = cli_sources(&br.o, default_suite, srcs, &nsrc);
    spx_ctx *ctx = rc == CLI_OK ? cli_ctx(&br.o) : NULL;
    if (rc == CLI_OK && !ctx) rc = CLI_ERROR;
    if (rc == CLI_OK) {
        spx_status s = spx_ctx_resolve_backend(ctx, br.o.backend, &br.backend);
        if (s) rc = cli_fail(ctx, "backend", s);
    }
    if (rc == CLI_OK) rc = parse_formats(br.o.formats, br.backend, br.v, &br.nv);
    if (rc == CLI_OK) rc = demo_slowdown(&br.demo);
    if (rc == CLI_OK) {
        br.cap = nsrc * br.nv;
        br.res = calloc((size_t)br.cap + 1, sizeof *br.res);
        if (!br.res) rc = cli_error("out of memory");
    }
    if (rc == CLI_OK) {
        br.bw = cli_measure_bandwidth(ctx, br.backend);
        cli_measure_launch_floor(ctx, br.backend, &br.launch_call, &br.launch_batch);
        print_preamble(&br);
        cli_result_table_header(stdout);
    }
    for (int i = 0; rc == CLI_OK && i < nsrc; i++) rc = bench_matrix(ctx, &br, srcs[i], i, nsrc);
    if (rc == CLI_OK && br.o.json_path) rc = write_json(ctx, &br, br.o.json_path);
    if (rc == CLI_OK && br.o.csv_path) rc = write_csv(&br, br.o.csv_path);
    if (rc == CLI_OK && br.o.plot_path) rc = write_plot(&br, nsrc, br.o.plot_path);
    if (rc == CLI_OK && br.failures) rc = cli_error("%d measurement(s) failed", br.failures);
    if (rc == CLI_OK && br.unverified) {
        fprintf(stderr, "error: %d result(s) failed verification\n", br.unverified);
        rc = CLI_VERIFY_FAILED;
    }
    free(br.res);
    for (int i = 0; i < nsrc; i++) free(srcs[i]);
    spx_ctx_destroy(&ctx);
    return rc;
}
