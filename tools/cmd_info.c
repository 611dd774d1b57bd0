/* tools/cmd_info.c: `spx info SRC`: sizes, symmetry, row-length statistics, bytes per SpMV,
 * how long the load took by stage (read, inflate, parse, convert; generate); with --format, the plan that format builds (algorithm, kernel, plan phases, the layout's own
 * figures such as tile shape or block balance); with --select, what format "auto" picks (the
 * features it reads, the choice, the runner-up and why). */
#include <string.h>

#include "cli.h"

static const char *symmetry_name(spx_symmetry s)
{
    switch (s) {
    case SPX_SYM_GENERAL: return "general";
    case SPX_SYM_SYMMETRIC: return "symmetric";
    case SPX_SYM_SKEW: return "skew-symmetric";
    case SPX_SYM_HERMITIAN: return "hermitian";
    }
    return "?";
}

static const char *field_name(spx_field f)
{
    switch (f) {
    case SPX_FIELD_REAL: return "real";
    case SPX_FIELD_INTEGER: return "integer";
    case SPX_FIELD_PATTERN: return "pattern";
    }
    return "?";
}

static void print_plan_json(const spx_plan_info *pi);

/* Prints the load's time and its stages' as the JSON object value of "load_s". */
static void print_load_json(const cli_progress *pg)
{
    int f = 1;
    putchar('{');
    json_kv_num(stdout, &f, "total", pg->end - pg->start);
    for (int i = 0; i < pg->n_stages; i++) json_kv_num(stdout, &f, pg->stage[i].name, pg->stage[i].last - pg->stage[i].first);
    putchar('}');
}

/* Prints the statistics (and the plan, when pi is set) as one JSON object. */
static void print_json(const char *src, const spx_csr *A, const spx_csr_stats *st, double bytes,
                       const spx_plan_info *pi, const cli_progress *pg, int threads)
{
    int f = 1;
    putchar('{');
    json_kv_str(stdout, &f, "source", src);
    json_key(stdout, &f, "load_s");
    print_load_json(pg);
    json_kv_int(stdout, &f, "threads", threads);
    json_kv_int(stdout, &f, "rows", st->m);
    json_kv_int(stdout, &f, "cols", st->n);
    json_kv_int(stdout, &f, "nnz", st->nnz);
    json_kv_int(stdout, &f, "stored_entries", A->meta.stored_entries);
    json_kv_int(stdout, &f, "duplicates_summed", A->meta.duplicates);
    json_kv_str(stdout, &f, "declared_symmetry", symmetry_name(A->meta.symmetry));
    json_kv_str(stdout, &f, "field", field_name(A->meta.field));
    json_kv_int(stdout, &f, "structurally_symmetric", st->structurally_symmetric);
    json_kv_int(stdout, &f, "numerically_symmetric", st->numerically_symmetric);
    json_kv_int(stdout, &f, "row_min", st->row_min);
    json_kv_num(stdout, &f, "row_mean", st->row_mean);
    json_kv_int(stdout, &f, "row_max", st->row_max);
    json_kv_num(stdout, &f, "row_stddev", st->row_stddev);
    json_kv_int(stdout, &f, "empty_rows", st->empty_rows);
    json_kv_int(stdout, &f, "empty_cols", st->empty_cols);
    json_kv_int(stdout, &f, "bandwidth", st->bandwidth);
    json_kv_int(stdout, &f, "nan_values", st->nan_values);
    json_kv_int(stdout, &f, "inf_values", st->inf_values);
    json_kv_num(stdout, &f, "csr_fp64_bytes_per_spmv", bytes);
    if (pi) {
        json_key(stdout, &f, "plan");
        print_plan_json(pi);
    }
    printf("}\n");
}

/* Prints the statistics as a readable block. */
static void print_text(const char *src, const spx_csr *A, const spx_csr_stats *st, double bytes,
                       const cli_progress *pg, int threads)
{
    char times[256];
    printf("source           %s\n", src);
    printf("load             %s, %d threads\n", cli_progress_times(pg, times, sizeof times), threads);
    printf("rows             %d\n", st->m);
    printf("cols             %d\n", st->n);
    printf("nnz              %lld\n", (long long)st->nnz);
    printf("stored entries   %lld (%s %s%s)\n", (long long)A->meta.stored_entries, field_name(A->meta.field),
           symmetry_name(A->meta.symmetry),
           A->meta.symmetry != SPX_SYM_GENERAL ? ", expanded to both triangles" : "");
    if (A->meta.duplicates) printf("duplicates       %lld summed\n", (long long)A->meta.duplicates);
    printf("symmetry         %s\n", st->numerically_symmetric ? "symmetric"
                                    : st->structurally_symmetric ? "structurally symmetric"
                                                                 : "unsymmetric");
    printf("row length       min %lld  mean %.3f  max %lld  stddev %.3f\n", (long long)st->row_min,
           st->row_mean, (long long)st->row_max, st->row_stddev);
    printf("empty rows       %lld\n", (long long)st->empty_rows);
    printf("empty cols       %lld\n", (long long)st->empty_cols);
    printf("bandwidth        %lld\n", (long long)st->bandwidth);
    printf("non-finite       %lld NaN, %lld inf%s\n", (long long)st->nan_values, (long long)st->inf_values,
           st->nan_values + st->inf_values ? " (every product through them is non-finite)" : "");
    printf("bytes per SpMV   %.0f (CSR fp64, int32 row pointers, x and y once)\n", bytes);
}

/* Prints a plan's summary and layout statistics as text. */
static void print_plan_text(const spx_plan_info *pi)
{
    printf("plan             %s/%s on %s, %s, kernel %s%s\n", pi->format, pi->algo, spx_backend_str(pi->backend),
           spx_precision_str(pi->precision), pi->kernel, pi->built_on_device ? ", built on the device" : "");
    if (pi->plan_order) printf("vector order     the plan's (x and y renumbered)\n");
    printf("plan time        %.3f ms (", pi->plan_seconds * 1e3);
    for (int i = 0; i < pi->n_phases; i++)
        printf("%s%s %.3f ms", i ? ", " : "", pi->phases[i].name, pi->phases[i].seconds * 1e3);
    printf(")\n");
    printf("layout bytes     %.0f per SpMV\n", pi->bytes_per_spmv);
    for (int i = 0; i < pi->n_stats; i++) {
        const spx_layout_stat *st = &pi->stats[i];
        if (st->text[0])
            printf("  %-22s %s\n", st->key, st->text);
        else
            printf("  %-22s %.6g\n", st->key, st->value);
    }
}

/* Prints a plan's summary and layout statistics as one JSON object. */
static void print_plan_json(const spx_plan_info *pi)
{
    int f = 1;
    putchar('{');
    json_kv_str(stdout, &f, "format", pi->format);
    json_kv_str(stdout, &f, "algo", pi->algo);
    json_kv_str(stdout, &f, "kernel", pi->kernel);
    json_kv_str(stdout, &f, "backend", spx_backend_str(pi->backend));
    json_kv_str(stdout, &f, "precision", spx_precision_str(pi->precision));
    json_kv_int(stdout, &f, "built_on_device", pi->built_on_device);
    json_kv_str(stdout, &f, "order", pi->plan_order ? "plan" : "caller");
    json_kv_num(stdout, &f, "plan_s", pi->plan_seconds);
    json_kv_num(stdout, &f, "bytes_per_spmv", pi->bytes_per_spmv);
    json_key(stdout, &f, "layout");
    cli_layout_json(stdout, pi);
    putchar('}');
}

/* Builds the plan --format asks for and fills *pi; returns a CLI exit code. */
static int info_plan(spx_ctx *ctx, const spx_csr *A, const cli_opts *o, spx_plan_info *pi)
{
    spx_plan_opts po = {.format = o->format, .algo = o->algo, .backend = o->backend, .precision = o->precision,
                        .order = o->order, .build = o->build};
    spx_plan *p = NULL;
    spx_status s = spx_plan_create(ctx, A, &po, &p);
    if (s) return cli_fail(ctx, "plan", s);
    spx_plan_get_info(p, pi);
    spx_plan_destroy(&p);
    return CLI_OK;
}

/* Prints the features "auto" reads and its choice for A (o's backend, precision and
 * --expected-spmvs); returns a CLI exit code. */
static int info_select(spx_ctx *ctx, const spx_csr *A, const cli_opts *o)
{
    spx_plan_opts po = {.backend = o->backend, .precision = o->precision, .expected_spmvs = o->expected_spmvs};
    spx_features f;
    spx_selection sel;
    spx_status s = spx_features_compute(A, &f);
    if (!s) s = spx_plan_select(ctx, A, &po, &sel);
    if (s) return cli_fail(ctx, "select", s);
    printf("select features  rows %d  cols %d  nnz %lld  row_mean %.4g  row_cv %.4g  spread_cols %.4g\n", f.m, f.n,
           (long long)f.nnz, f.row_mean, f.row_cv, spx_features_spread_cols(&f));
    printf("select for       %s, %s, %lld SpMVs\n", spx_backend_str(sel.backend), spx_precision_str(o->precision),
           (long long)sel.expected_spmvs);
    printf("select choice    %s/%s\n", sel.format, sel.algo);
    printf("select runner-up %s%s%s\n", sel.runner_format[0] ? sel.runner_format : "none",
           sel.runner_format[0] ? "/" : "", sel.runner_algo);
    printf("select why       %s\n", sel.why);
    return CLI_OK;
}

int cmd_info(int argc, char **argv)
{
    cli_opts o = {0};
    if (cli_parse(argc, argv, 2, "--json --strict --threads: --format: --algo: --backend: --precision: --order: --build: --select --expected-spmvs:", &o))
        return CLI_ERROR;
    if (o.n_positional != 1)
        return cli_error("usage: spx info SRC [--json] [--strict] [--format F [--algo A] [--backend B] [--precision P] [--order O]]"
                         " [--select [--expected-spmvs N]]");
    if (o.select && o.json) return cli_error("--select prints text: not with --json (yet)");
    spx_ctx *ctx = cli_ctx(&o);
    if (!ctx) return CLI_ERROR;
    spx_csr *A = NULL;
    cli_progress pg;
    int rc = cli_load_timed(ctx, o.positional[0], &o, &pg, &A);
    spx_csr_stats st;
    if (rc == CLI_OK) {
        spx_status s = spx_csr_compute_stats(ctx, A, &st);
        if (s) rc = cli_fail(ctx, o.positional[0], s);
    }
    spx_plan_info pi;
    if (rc == CLI_OK && o.format) rc = info_plan(ctx, A, &o, &pi);
    if (rc == CLI_OK) {
        double bytes = spx_csr_spmv_bytes(A, 8, 4, 0);
        int threads = spx_ctx_get_threads(ctx);
        if (o.json)
            print_json(o.positional[0], A, &st, bytes, o.format ? &pi : NULL, &pg, threads);
        else
            print_text(o.positional[0], A, &st, bytes, &pg, threads);
        if (!o.json && o.format) print_plan_text(&pi);
        if (o.select) rc = info_select(ctx, A, &o);
    }
    spx_csr_destroy(&A);
    spx_ctx_destroy(&ctx);
    return rc;
}
