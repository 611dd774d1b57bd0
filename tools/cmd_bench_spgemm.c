/* tools/cmd_bench_spgemm.c: `spx bench --op spgemm`: every selected SpGEMM method on every
 * matrix (C = A*A, or A*A^T with --transpose-b): plan time by phase, the first run, the median
 * numeric run, GFLOPS, nnz(C), compression, memory peaks, each result verified against the
 * CPU oracle (run once per matrix), speed-ups over cuSPARSE ALG1 and over its fastest
 * algorithm measured in the same run; on CUDA also the whole call from device operands (C on
 * the device, verified too) against cuSPARSE's fastest work estimation to copy; a method that
 * fails is a row, never the end. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "spgemm_common.h"

/* The built-in suite (no SRC, no --suite): small generated products, a few seconds each on
 * 2 CPU cores; bench/suites/spgemm.txt adds shared matrices to them. */
static const char *const default_suite[] = {
    "gen:poisson3d:n=60",
    "gen:stencil27:n=40",
    "gen:rmat:scale=14,ef=16",
    "gen:uniform:m=100000,k=8",
    "gen:powerlaw:m=50000,k=8",
    "gen:banded:m=100000,bw=8",
    "gen:blockdiag:m=20000,b=32",
    NULL,
};

/* Products every method makes once, untimed, before a CUDA run's first matrix: CUDA loads a
 * kernel on its first launch (~1 ms over a plan's kernels on an H100), which would otherwise
 * land in whichever matrix comes first, for spx and cuSPARSE alike. A stencil (span tables) and
 * a power-law matrix (hash tables of several sizes, long rows) reach most kernels; not spx's
 * split rows (rows of more than 32768 entries of A), whose few kernels still load in the first
 * product that has one. A power-law matrix of exponent 1.5 (hubs linked to hubs) takes spx's
 * dense x dense panels by their cost rule: cuBLAS's handle is made there (milliseconds, once
 * a context), not in the first timed product with panels. */
static const char *const warm_up_products[] = {"gen:poisson3d:n=12", "gen:powerlaw:m=4000,k=8",
                                               "gen:powerlaw:m=4000,k=8,alpha=1.5", NULL};

#define MAX_METHODS 16
#define ONE_THREAD_SUFFIX "/1thread"

/* A method to measure, as asked. */
typedef struct method_choice {
    char method[32], algo[32]; /* algo "auto": the method's default */
    char resolved[32];         /* algo with "auto" resolved: what tells two choices apart */
    int is_baseline;           /* the vendor library every result is compared with */
} method_choice;

/* One measured (matrix, method) pair, its check and its comparisons. */
typedef struct sg_row {
    const char *matrix;
    char name[80]; /* method/algo as measured ("/1thread" for the CPU scaling row) */
    int is_baseline, one_thread;
    int skipped; /* A*A of a rectangular A: nothing measured (check says why) */
    spx_bench_spgemm_result r;
    int64_t oracle_nnz_c; /* -1: the oracle failed */
    double rel_error;     /* vs the oracle; NaN when not compared */
    int verified;
    char check[200]; /* "yes", "no: <why>", "failed: <message>" */
    /* speed-ups (baseline time / this time; NaN: no baseline result): numeric median, and
     * plan + first run; over the baseline's default algorithm and over its fastest */
    double x_alg1, x_best, xt_alg1, xt_best;
    double x_1thread; /* the same method on 1 thread / this (NaN: not measured) */
    /* the whole call from device operands (CUDA): its check against the oracle ("" when not
     * measured) and its speed-up over cuSPARSE's fastest work estimation to copy (NaN: none) */
    char dcheck[200];
    double xd_best;
} sg_row;

typedef struct sg_run {
    cli_opts o;
    spx_backend backend;
    method_choice m[MAX_METHODS];
    int nm;
    sg_row *rows;
    int nrows, cap;
    int unverified, failed;
} sg_run;

/* The registry's index of a method, -1 when unknown; *d its description. */
static int find_method(const char *name, spx_spgemm_method_desc *d)
{
    for (int i = 0; i < spx_spgemm_method_count(); i++)
        if (!spx_spgemm_method_describe(i, d) && !strcmp(d->name, name)) return i;
    return -1;
}

/* The algorithm algo names for method d: its default (the first listed; "auto" for a method
 * without algorithms) when algo is NULL or "auto", else algo itself. */
static const char *default_algo(const spx_spgemm_method_desc *d, const char *algo)
{
    if (algo && strcmp(algo, "auto")) return algo;
    return d->algos && d->algos[0] ? d->algos[0] : "auto";
}

/* Adds method/algo (algo NULL: the default) after checking it exists and runs on the bench's
 * backend. */
static int add_method(sg_run *run, const char *name, const char *algo)
{
    spx_spgemm_method_desc d;
    if (run->nm >= MAX_METHODS) return cli_error("--methods lists more than %d methods", MAX_METHODS);
    if (find_method(name, &d) < 0) return cli_error("unknown SpGEMM method '%s' (see `spx spgemm --help`)", name);
    if (d.backend != run->backend)
        return cli_error("SpGEMM method '%s' runs on %s, the bench on %s (pass --backend %s)", name,
                         spx_backend_str(d.backend), spx_backend_str(run->backend), spx_backend_str(d.backend));
    int ok = !algo || !strcmp(algo, "auto");
    for (int a = 0; !ok && d.algos && d.algos[a]; a++) ok = !strcmp(d.algos[a], algo);
    if (!ok) return cli_error("SpGEMM method '%s' has no algorithm '%s' (see `spx spgemm --help`)", name, algo);
    const char *resolved = default_algo(&d, algo);
    for (int i = 0; i < run->nm; i++)
        if (!strcmp(run->m[i].method, name) && !strcmp(run->m[i].resolved, resolved))
            return cli_error("--methods lists %s%s%s twice", name, strcmp(resolved, "auto") ? "/" : "",
                             strcmp(resolved, "auto") ? resolved : "");
    method_choice *m = &run->m[run->nm++];
    snprintf(m->method, sizeof m->method, "%s", name);
    snprintf(m->algo, sizeof m->algo, "%s", algo ? algo : "auto");
    snprintf(m->resolved, sizeof m->resolved, "%s", resolved);
    m->is_baseline = d.is_baseline;
    return CLI_OK;
}

/* Every built method of the backend, every algorithm of each. */
static int default_methods(sg_run *run)
{
    int rc = CLI_OK;
    for (int i = 0; rc == CLI_OK && i < spx_spgemm_method_count(); i++) {
        spx_spgemm_method_desc d;
        if (spx_spgemm_method_describe(i, &d) || !d.available || d.backend != run->backend) continue;
        if (!d.algos || !d.algos[0]) rc = add_method(run, d.name, NULL);
        for (int a = 0; rc == CLI_OK && d.algos && d.algos[a]; a++) rc = add_method(run, d.name, d.algos[a]);
    }
    return rc == CLI_OK && !run->nm ? cli_error("no SpGEMM method runs on %s", spx_backend_str(run->backend)) : rc;
}

/* Parses --methods: "all", or a comma list of method or method/algo. */
static int parse_methods(sg_run *run, const char *spec)
{
    if (!spec || !strcmp(spec, "all")) return default_methods(run);
    char buf[1024];
    if (strlen(spec) >= sizeof buf) return cli_error("--methods is longer than %zu characters", sizeof buf - 1);
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *slash = strchr(tok, '/');
        if (slash) *slash++ = '\0';
        if (add_method(run, tok, slash) != CLI_OK) return CLI_ERROR;
    }
    return run->nm ? CLI_OK : cli_error("--methods lists nothing");
}

/* The baseline's name and default algorithm ("cusparse", "alg1"); 0 when there is none. */
static int baseline_of(const char **name, const char **algo)
{
    for (int i = 0; i < spx_spgemm_method_count(); i++) {
        spx_spgemm_method_desc d;
        if (spx_spgemm_method_describe(i, &d) || !d.is_baseline) continue;
        *name = d.name;
        *algo = d.algos && d.algos[0] ? d.algos[0] : "default";
        return 1;
    }
    return 0;
}

/* A failed plan has no info: name it as asked, with the run's shape and options. */
static void name_failed(spx_spgemm_info *in, const method_choice *m, const sg_run *run, const spx_csr *A)
{
    if (in->method[0]) return;
    snprintf(in->method, sizeof in->method, "%s", m->method);
    snprintf(in->algo, sizeof in->algo, "%s", m->algo);
    snprintf(in->kernel, sizeof in->kernel, "none");
    in->backend = run->backend;
    in->precision = run->o.precision;
    in->transpose_b = run->o.transpose_b;
    in->m = A->m;
    in->k = A->n;
    in->n = run->o.transpose_b ? A->m : A->n;
    in->nnz_a = in->nnz_b = A->nnz;
}

/* Checks a measured result against the oracle R (NULL: the oracle failed, why in oracle_msg). */
static void check_row(sg_row *row, const spx_csr *C, const spx_csr *R, const char *oracle_msg, spx_precision p)
{
    row->rel_error = NAN;
    if (row->r.status) {
        snprintf(row->check, sizeof row->check, "failed: %.180s", row->r.msg);
        return;
    }
    if (!R) {
        snprintf(row->check, sizeof row->check, "no: the oracle failed: %.150s", oracle_msg);
        return;
    }
    row->verified = spgemm_check(C, R, p, &row->rel_error, row->check, sizeof row->check);
}

/* The plan options of method m in this run (--panels checked when parsed). */
static spx_spgemm_opts method_opts(const sg_run *run, const method_choice *m)
{
    spx_spgemm_opts go = {.method = m->method, .algo = m->algo, .backend = run->backend,
                          .precision = run->o.precision, .transpose_b = run->o.transpose_b};
    spgemm_panel_opts(&run->o, &go);
    return go;
}

/* The whole call from device operands for row's method (spx_bench_spgemm_device), its C checked
 * against the oracle R into row->dcheck; a failure or a wrong C counts as one. */
static void measure_device(spx_ctx *ctx, sg_run *run, sg_row *row, const spx_csr *A, const spx_spgemm_opts *go,
                           const spx_bench_spgemm_opts *bo, const spx_csr *R, const char *oracle_msg)
{
    spx_bench_spgemm_result d;
    memset(&d, 0, sizeof d);
    spx_csr *C = NULL;
    double rel = NAN;
    if (spx_bench_spgemm_device(ctx, A, A, go, bo, &d, &C) || d.status) {
        snprintf(row->dcheck, sizeof row->dcheck, "failed: %.180s", d.msg[0] ? d.msg : spx_ctx_last_error(ctx));
        run->failed++;
    } else if (!R) {
        snprintf(row->dcheck, sizeof row->dcheck, "no: the oracle failed: %.150s", oracle_msg);
    } else if (!spgemm_check(C, R, run->o.precision, &rel, row->dcheck, sizeof row->dcheck)) {
        run->unverified++;
    }
    spx_csr_destroy(&C);
    row->r.t_device_call_s = d.t_device_call_s;
    row->r.t_device_wrap_s = d.t_device_wrap_s;
    row->r.t_device_we_copy_s = d.t_device_we_copy_s;
    row->r.device_info = d.device_info;
    row->r.t_device_call_first_s = d.t_device_call_first_s;
    row->r.device_info_first = d.device_info_first;
}

/* Measures method m on A (ctx: the bench's context, or the 1-thread one) into a new row. */
static int measure(spx_ctx *ctx, sg_run *run, const char *src, const spx_csr *A, const method_choice *m,
                   int one_thread, const spx_csr *R, const char *oracle_msg)
{
    if (run->nrows >= run->cap) return cli_error("internal: too many results");
    sg_row *row = &run->rows[run->nrows++];
    memset(row, 0, sizeof *row);
    row->matrix = src;
    row->is_baseline = m->is_baseline;
    row->one_thread = one_thread;
    row->oracle_nnz_c = R ? R->nnz : -1;
    const spx_spgemm_opts go = method_opts(run, m);
    spx_bench_spgemm_opts bo = {.reps = run->o.reps, .warmup = run->o.warmup};
    spx_csr *C = NULL;
    spx_status s = spx_bench_spgemm(ctx, A, A, &go, &bo, &row->r, &C);
    if (s) return cli_fail(ctx, src, s); /* bad arguments: ours, not the method's */
    name_failed(&row->r.info, m, run, A);
    const int has_algo = strcmp(row->r.info.algo, "default") != 0;
    const int panels = row->r.info.panels > 0;
    snprintf(row->name, sizeof row->name, "%s%s%s%s%s%s%s", row->r.info.method, has_algo ? "/" : "",
             has_algo ? row->r.info.algo : "", panels ? "[panels " : "", panels ? row->r.info.panel_split : "",
             panels ? "]" : "", one_thread ? ONE_THREAD_SUFFIX : "");
    check_row(row, C, R, oracle_msg, run->o.precision);
    spx_csr_destroy(&C);
    if (row->r.status) run->failed++;
    else if (!row->verified) run->unverified++;
    if (!row->r.status && row->r.info.backend == SPX_BACKEND_CUDA) measure_device(ctx, run, row, A, &go, &bo, R, oracle_msg);
    return CLI_OK;
}

/* Each method's warm_up_products, untimed and unchecked (a method that fails here fails again,
 * measured and reported, on the suite). */
static void warm_up(spx_ctx *ctx, const sg_run *run)
{
    for (int w = 0; warm_up_products[w]; w++) {
        spx_csr *A = NULL;
        if (spx_gen(ctx, warm_up_products[w], &A)) continue;
        for (int i = 0; i < run->nm; i++) {
            const spx_spgemm_opts go = method_opts(run, &run->m[i]);
            spx_spgemm_plan *plan = NULL;
            spx_csr *C = NULL;
            if (!spx_spgemm_plan_create(ctx, A, A, &go, &plan)) (void)spx_spgemm_run(plan, &C);
            spx_csr_destroy(&C);
            spx_spgemm_plan_destroy(&plan);
        }
        spx_csr_destroy(&A);
    }
}

/* base / t, NaN unless both are positive. */
static double ratio(double base, double t) { return base > 0 && t > 0 ? base / t : NAN; }

/* Fills the speed-ups of rows[first..last) from the baseline's rows and the 1-thread rows. */
static void compare_rows(sg_run *run, int first, int last)
{
    const char *bname = "", *balgo = "";
    int have = baseline_of(&bname, &balgo);
    double alg1 = 0, alg1_t = 0, best = 0, best_t = 0, best_d = 0;
    for (int i = first; have && i < last; i++) {
        const sg_row *b = &run->rows[i];
        if (!b->is_baseline || b->r.status || !b->verified) continue;
        if (!strcmp(b->r.info.algo, balgo)) alg1 = b->r.t_median, alg1_t = b->r.total_s;
        if (!best || b->r.t_median < best) best = b->r.t_median;
        if (!best_t || b->r.total_s < best_t) best_t = b->r.total_s;
        const double d = b->r.t_device_we_copy_s;
        if (d > 0 && !strcmp(b->dcheck, "yes") && (!best_d || d < best_d)) best_d = d;
    }
    for (int i = first; i < last; i++) {
        sg_row *row = &run->rows[i];
        const int ok = !row->r.status;
        row->x_alg1 = ok ? ratio(alg1, row->r.t_median) : NAN;
        row->x_best = ok ? ratio(best, row->r.t_median) : NAN;
        row->xt_alg1 = ok ? ratio(alg1_t, row->r.total_s) : NAN;
        row->xt_best = ok ? ratio(best_t, row->r.total_s) : NAN;
        row->xd_best = ok && !strcmp(row->dcheck, "yes") ? ratio(best_d, row->r.t_device_call_s) : NAN;
        row->x_1thread = NAN;
        for (int j = first; ok && !row->one_thread && j < last; j++) {
            const sg_row *one = &run->rows[j];
            if (one->one_thread && !one->r.status && !strcmp(one->r.info.method, row->r.info.method) &&
                !strcmp(one->r.info.algo, row->r.info.algo))
                row->x_1thread = ratio(one->r.t_median, row->r.t_median);
        }
    }
}

/* The table's columns (times in ms, memory in MB, speed-ups as "1.23x"). */
#define TABLE_HEAD "%-30s %-24s %3s %11s %6s %9s %9s %9s %9s %7s %7s %8s %8s %7s %7s %7s %7s %7s %7s %s\n"
#define TABLE_ROW                                                                                                      \
    "%-30.30s %-24.24s %3s %11lld %6.2f %9.3f %9.3f %9.3f %9s %7.2f %7.2f %8.1f %8.1f %7s %7s %7s %7s %7s %7s %s%s%s\n"

/* Prints the table's header line. */
static void print_table_header(void)
{
    printf(TABLE_HEAD, "matrix", "method/algo", "thr", "nnz_C", "compr", "plan_ms", "first_ms", "num_ms", "dcall_ms",
           "GF_num", "GF_tot", "hpeak_MB", "dpeak_MB", "x_alg1", "x_best", "xt_alg1", "xt_best", "xd_best", "x_1thr",
           "verified");
}

/* v as "1.23x" into buf, or "-" when it is not a number. */
static const char *speedup_cell(char *buf, size_t len, double v)
{
    if (isfinite(v)) snprintf(buf, len, "%.2fx", v);
    else snprintf(buf, len, "-");
    return buf;
}

/* A matrix as the table names it: a file's name without its folder; a spec as it is. */
static const char *table_name(const char *src)
{
    const char *slash = strncmp(src, "gen:", 4) ? strrchr(src, '/') : NULL;
    return slash ? slash + 1 : src;
}

/* Prints one result as a table line (a failed or skipped one as its check after the name). */
static void print_table_row(const sg_row *row)
{
    const spx_bench_spgemm_result *r = &row->r;
    const spx_spgemm_info *in = &r->info;
    char c[6][16], thr[16] = "-", dcall[16] = "-";
    if (in->backend == SPX_BACKEND_CPU && r->threads > 0) snprintf(thr, sizeof thr, "%d", r->threads);
    if (r->status) {
        printf("%-30.30s %-24.24s %3s %s\n", table_name(row->matrix), row->name, thr, row->check);
        return;
    }
    if (r->t_device_call_s > 0) snprintf(dcall, sizeof dcall, "%.3f", r->t_device_call_s * 1e3);
    const int dbad = row->dcheck[0] && strcmp(row->dcheck, "yes");
    printf(TABLE_ROW, table_name(row->matrix), row->name, thr, (long long)in->nnz_c, in->compression,
           in->plan_seconds * 1e3, r->first_run_s * 1e3, r->t_median * 1e3, dcall, r->gflops_numeric, r->gflops_total,
           (double)in->host_peak_bytes * 1e-6, (double)in->device_peak_bytes * 1e-6,
           speedup_cell(c[0], sizeof c[0], row->x_alg1), speedup_cell(c[1], sizeof c[1], row->x_best),
           speedup_cell(c[2], sizeof c[2], row->xt_alg1), speedup_cell(c[3], sizeof c[3], row->xt_best),
           speedup_cell(c[5], sizeof c[5], row->xd_best), speedup_cell(c[4], sizeof c[4], row->x_1thread), row->check,
           dbad ? "; device call: " : "", dbad ? row->dcheck : "");
}

/* Prints the lines above the table: what runs, what the columns are. */
static void print_preamble(const sg_run *run, int threads)
{
    const char *bname = "the vendor baseline (not in this build)", *balgo = "";
    int have = baseline_of(&bname, &balgo);
    printf("spgemm C = %s, backend %s, %s, %d host thread(s); runs: first (C allocated), %d warm-up, %d timed "
           "into the same C\n",
           run->o.transpose_b ? "A*A^T" : "A*A", spx_backend_str(run->backend), spx_precision_str(run->o.precision),
           threads, run->o.warmup ? run->o.warmup : 1, run->o.reps ? run->o.reps : 5);
    printf("plan = analysis + symbolic; first = first run; num = median numeric run; GF_num = 2*products/num, "
           "GF_tot = 2*products/(plan+first); peaks: host, device\n");
    printf("x_alg1, x_best = speed-up in num over %s%s%s and over its fastest algorithm; xt_* the same on "
           "plan+first; x_1thr over the same method on 1 thread; verified vs the CPU oracle (gustavson)\n",
           bname, have ? "/" : "", balgo);
    if (run->backend == SPX_BACKEND_CUDA)
        printf("dcall = the whole call from device operands (int32 row pointers; wrap and check, plan, run, C complete "
               "on the device, plan destroyed; median%s); xd_best = cuSPARSE's fastest work estimation to copy of the "
               "same call / dcall\n",
               run->o.transpose_b ? "; B^T given explicitly" : "");
}

/* Records (and prints) a rectangular A of an A*A run as one skipped row: nothing to measure. */
static int skip_matrix(sg_run *run, const char *src, const spx_csr *A)
{
    if (run->nrows >= run->cap) return cli_error("internal: too many results");
    sg_row *row = &run->rows[run->nrows++];
    memset(row, 0, sizeof *row);
    row->matrix = src;
    row->skipped = 1;
    row->oracle_nnz_c = -1;
    row->rel_error = row->x_alg1 = row->x_best = row->xt_alg1 = row->xt_best = row->x_1thread = row->xd_best = NAN;
    snprintf(row->name, sizeof row->name, "-");
    row->r.status = SPX_ERR_ARG;
    snprintf(row->r.msg, sizeof row->r.msg, "A is %d x %d: A*A needs a square matrix (--transpose-b measures A*A^T)",
             A->m, A->n);
    snprintf(row->check, sizeof row->check, "skipped: %.180s", row->r.msg);
    name_failed(&row->r.info, &(method_choice){.method = "-", .algo = "-"}, run, A);
    print_table_row(row);
    return CLI_OK;
}

/* Measures every method on one matrix: the oracle once, then each method (and its 1-thread
 * twin with --cpu-scaling); prints the rows. */
static int bench_matrix(spx_ctx *ctx, spx_ctx *ctx1, sg_run *run, const char *src, int idx, int total)
{
    spx_csr *A = NULL, *R = NULL;
    int rc = cli_load(ctx, src, &run->o, &A);
    if (rc) return rc;
    if (!run->o.transpose_b && A->m != A->n) {
        rc = skip_matrix(run, src, A);
        spx_csr_destroy(&A);
        return rc;
    }
    char oracle_msg[200] = "";
    if (isatty(2)) fprintf(stderr, "\r[%d/%d] %-40.40s oracle        ", idx + 1, total, src);
    if (spgemm_oracle(ctx, A, A, run->o.precision, run->o.transpose_b, &R))
        snprintf(oracle_msg, sizeof oracle_msg, "%s", spx_ctx_last_error(ctx));
    const int first = run->nrows;
    for (int i = 0; rc == CLI_OK && i < run->nm; i++) {
        if (isatty(2)) fprintf(stderr, "\r[%d/%d] %-40.40s %s/%s        ", idx + 1, total, src, run->m[i].method, run->m[i].algo);
        rc = measure(ctx, run, src, A, &run->m[i], 0, R, oracle_msg);
        if (rc == CLI_OK && ctx1) rc = measure(ctx1, run, src, A, &run->m[i], 1, R, oracle_msg);
    }
    if (isatty(2)) fprintf(stderr, "\r%80s\r", "");
    compare_rows(run, first, run->nrows);
    for (int i = first; i < run->nrows; i++) print_table_row(&run->rows[i]);
    fflush(stdout);
    spx_csr_destroy(&R);
    spx_csr_destroy(&A);
    return rc;
}

/* The i-th result as a JSON object (cli_write_results_json's row writer). */
static void row_json(FILE *f, const void *rows, int i)
{
    const sg_row *row = &((const sg_row *)rows)[i];
    const spx_bench_spgemm_result *r = &row->r;
    const char *bname = "", *balgo = "";
    char base[80] = "";
    if (baseline_of(&bname, &balgo)) snprintf(base, sizeof base, "%s/%s", bname, balgo);
    int first = 1;
    fputc('{', f);
    json_kv_str(f, &first, "op", "spgemm");
    json_kv_str(f, &first, "matrix", row->matrix);
    json_kv_str(f, &first, "name", row->name);
    json_kv_str(f, &first, "status", row->skipped ? "skipped" : spx_status_str(r->status));
    if (r->status) json_kv_str(f, &first, "message", r->msg);
    json_kv_int(f, &first, "threads", r->threads);
    spgemm_info_json(f, &first, &r->info);
    json_kv_int(f, &first, "reps", r->reps);
    json_kv_num(f, &first, "first_run_s", r->status ? NAN : r->first_run_s);
    json_kv_num(f, &first, "numeric_s", r->status ? NAN : r->t_median);
    json_kv_num(f, &first, "numeric_min_s", r->status ? NAN : r->t_min);
    json_kv_num(f, &first, "numeric_max_s", r->status ? NAN : r->t_max);
    json_kv_num(f, &first, "total_s", r->status ? NAN : r->total_s);
    json_kv_num(f, &first, "gflops_numeric", r->status ? NAN : r->gflops_numeric);
    json_kv_num(f, &first, "gflops_total", r->status ? NAN : r->gflops_total);
    json_kv_int(f, &first, "oracle_nnz_c", row->oracle_nnz_c);
    json_kv_num(f, &first, "rel_error", row->rel_error);
    json_kv_str(f, &first, "verified", row->check);
    json_kv_str(f, &first, "baseline", base);
    json_kv_num(f, &first, "x_alg1", row->x_alg1);
    json_kv_num(f, &first, "x_best_cusparse", row->x_best);
    json_kv_num(f, &first, "x_alg1_total", row->xt_alg1);
    json_kv_num(f, &first, "x_best_cusparse_total", row->xt_best);
    json_kv_num(f, &first, "x_1thread", row->x_1thread);
    if (row->dcheck[0]) {
        json_kv_num(f, &first, "t_device_call_s", r->t_device_call_s > 0 ? r->t_device_call_s : NAN);
        json_kv_num(f, &first, "t_device_wrap_s", r->t_device_wrap_s > 0 ? r->t_device_wrap_s : NAN);
        if (r->t_device_we_copy_s > 0) json_kv_num(f, &first, "t_device_we_copy_s", r->t_device_we_copy_s);
        spgemm_phases_json(f, &first, "device_call_phases", &r->device_info);
        json_kv_num(f, &first, "t_device_call_first_s", r->t_device_call_first_s > 0 ? r->t_device_call_first_s : NAN);
        spgemm_phases_json(f, &first, "device_call_first_phases", &r->device_info_first);
        json_kv_str(f, &first, "device_call_verified", row->dcheck);
        json_kv_num(f, &first, "x_best_cusparse_device", row->xd_best);
    }
    fputc('}', f);
}

/* Writes one CSV line per result to path. */
static int write_csv(const sg_run *run, const char *path)
{
    char tmp[4096];
    FILE *f = cli_open_out(path, tmp, sizeof tmp);
    if (!f) return CLI_ERROR;
    fprintf(f, "matrix,name,method,algo,kernel,backend,precision,transpose_b,threads,status,m,n,nnz_a,nnz_c,products,"
               "compression,plan_s,first_run_s,numeric_s,total_s,gflops_numeric,gflops_total,host_peak_bytes,"
               "device_peak_bytes,rel_error,verified,x_alg1,x_best_cusparse,x_alg1_total,x_best_cusparse_total,"
               "x_1thread,t_device_call_s,x_best_cusparse_device\n");
    for (int i = 0; i < run->nrows; i++) {
        const sg_row *row = &run->rows[i];
        const spx_bench_spgemm_result *r = &row->r;
        const spx_spgemm_info *in = &r->info;
        cli_csv_str(f, row->matrix);
        fprintf(f, ",%s,%s,%s,%s,%s,%s,%d,%d,%s,%d,%d,%lld,%lld,%lld,%.4f,%.6e", row->name,
                in->method, in->algo, in->kernel, spx_backend_str(in->backend), spx_precision_str(in->precision),
                in->transpose_b, r->threads, row->skipped ? "skipped" : spx_status_str(r->status), in->m, in->n, (long long)in->nnz_a,
                (long long)in->nnz_c, (long long)in->products, in->compression, in->plan_seconds);
        const double times[] = {r->first_run_s, r->t_median, r->total_s, r->gflops_numeric, r->gflops_total};
        for (int t = 0; t < 5; t++) cli_csv_num(f, t < 3 ? "%.6e" : "%.3f", r->status ? NAN : times[t]);
        fprintf(f, ",%zu,%zu", in->host_peak_bytes, in->device_peak_bytes);
        cli_csv_num(f, "%.3e", row->rel_error);
        fputc(',', f);
        cli_csv_str(f, row->check);
        const double x[] = {row->x_alg1, row->x_best, row->xt_alg1, row->xt_best, row->x_1thread};
        for (int t = 0; t < 5; t++) cli_csv_num(f, "%.3f", x[t]);
        cli_csv_num(f, "%.6e", r->t_device_call_s > 0 ? r->t_device_call_s : NAN);
        cli_csv_num(f, "%.3f", row->xd_best);
        fputc('\n', f);
    }
    return cli_commit_out(f, tmp, path);
}

/* Refuses the SpMV bench's options with a pointer to the right one. */
static int refuse_spmv_options(int argc, char **argv)
{
    static const char *const spmv_only[] = {"--formats", "--cold", NULL};
    for (int i = 2; i < argc; i++)
        for (int k = 0; spmv_only[k]; k++)
            if (!strcmp(argv[i], spmv_only[k]))
                return cli_error("%s is an option of the SpMV bench; `spx bench --op spgemm` takes --methods", argv[i]);
    return CLI_OK;
}

/* The 1-thread context of --cpu-scaling (NULL without it); rc set on an error. */
static spx_ctx *one_thread_ctx(const sg_run *run, int *rc)
{
    if (!run->o.cpu_scaling || *rc) return NULL;
    if (run->backend != SPX_BACKEND_CPU) {
        *rc = cli_error("--cpu-scaling measures the CPU method on 1 thread: pass --backend cpu");
        return NULL;
    }
    cli_opts one = run->o;
    one.threads = 1;
    spx_ctx *ctx1 = cli_ctx(&one);
    if (!ctx1) *rc = CLI_ERROR;
    return ctx1;
}

int cmd_bench_spgemm(int argc, char **argv)
{
    sg_run run;
    memset(&run, 0, sizeof run);
    if (refuse_spmv_options(argc, argv) ||
        cli_parse(argc, argv, 2,
                  "--op: --suite: --methods: --backend: --precision: --reps: --warmup: --threads: --transpose-b "
                  "--cpu-scaling --strict --json: --csv: --device-mem-limit: --panels: --gpu-share: --b-col-blocks:",
                  &run.o) ||
        cli_check_outputs(&run.o))
        return CLI_ERROR;
    char *srcs[CLI_MAX_SOURCES];
    int nsrc = 0;
    int rc = cli_sources(&run.o, default_suite, srcs, &nsrc);
    if (rc == CLI_OK) rc = cli_check_sources(srcs, nsrc);
    spx_ctx *ctx = rc == CLI_OK ? cli_ctx(&run.o) : NULL, *ctx1 = NULL;
    if (rc == CLI_OK && !ctx) rc = CLI_ERROR;
    if (rc == CLI_OK) {
        spx_status s = spx_ctx_resolve_backend(ctx, run.o.backend, &run.backend);
        if (s) rc = cli_fail(ctx, "backend", s);
    }
    spx_spgemm_opts panel_check;
    if (rc == CLI_OK) rc = spgemm_panel_opts(&run.o, &panel_check);
    if (rc == CLI_OK) rc = parse_methods(&run, run.o.methods);
    ctx1 = one_thread_ctx(&run, &rc);
    if (rc == CLI_OK) {
        run.cap = nsrc * run.nm * 2;
        run.rows = calloc((size_t)run.cap + 1, sizeof *run.rows);
        if (!run.rows) rc = cli_error("out of memory");
    }
    if (rc == CLI_OK) {
        print_preamble(&run, spx_ctx_get_threads(ctx));
        if (run.backend == SPX_BACKEND_CUDA) {
            printf("each method first makes %s", warm_up_products[0]);
            for (int w = 1; warm_up_products[w]; w++) printf(" and %s", warm_up_products[w]);
            printf(" untimed (CUDA loads kernels on their first launch)\n");
            warm_up(ctx, &run);
        }
        print_table_header();
    }
    for (int i = 0; rc == CLI_OK && i < nsrc; i++) rc = bench_matrix(ctx, ctx1, &run, srcs[i], i, nsrc);
    if (rc == CLI_OK && run.o.json_path)
        rc = cli_write_results_json(ctx, run.o.json_path, run.backend, 0, 0, "spgemm", run.rows, run.nrows, row_json);
    if (rc == CLI_OK && run.o.csv_path) rc = write_csv(&run, run.o.csv_path);
    if (rc == CLI_OK && run.failed) fprintf(stderr, "note: %d measurement(s) failed (rows marked failed)\n", run.failed);
    if (rc == CLI_OK && run.unverified) {
        fprintf(stderr, "error: %d result(s) failed verification\n", run.unverified);
        rc = CLI_VERIFY_FAILED;
    }
    free(run.rows);
    for (int i = 0; i < nsrc; i++) free(srcs[i]);
    spx_ctx_destroy(&ctx1);
    spx_ctx_destroy(&ctx);
    return rc;
}
