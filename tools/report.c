/* tools/report.c: how spx prints measured results: the baseline they are compared with,
 * table rows, JSON records, CSV lines. */
#include <math.h>
#include <string.h>

#include "cli.h"

int cli_baseline(spx_format_desc *fmt, const char **algo)
{
    for (int i = 0; i < spx_format_count(); i++) {
        spx_format_desc d;
        if (spx_format_describe(i, &d) != SPX_OK || !d.is_baseline) continue;
        if (fmt) *fmt = d;
        if (algo) *algo = d.algos && d.algos[0] ? d.algos[0] : "auto";
        return 1;
    }
    return 0;
}

int cli_is_baseline(const spx_bench_result *r)
{
    spx_format_desc d;
    const char *algo;
    return cli_baseline(&d, &algo) && !strcmp(r->plan.format, d.name) && !strcmp(r->plan.algo, algo);
}

const char *cli_baseline_key(const char *prefix, char *buf, size_t len)
{
    spx_format_desc d;
    const char *algo;
    if (cli_baseline(&d, &algo))
        snprintf(buf, len, "%s%s_%s", prefix, d.name, algo);
    else
        snprintf(buf, len, "%sbaseline", prefix);
    return buf;
}

/* "name/algo" of the baseline, "" without one. */
static const char *baseline_name(char *buf, size_t len)
{
    spx_format_desc d;
    const char *algo;
    if (cli_baseline(&d, &algo)) snprintf(buf, len, "%s/%s", d.name, algo);
    else if (len) buf[0] = '\0';
    return buf;
}

/* The seconds of phase name in plan p (0 when it has none). */
static double phase_seconds(const spx_plan_info *p, const char *name)
{
    for (int i = 0; i < p->n_phases; i++)
        if (!strcmp(p->phases[i].name, name)) return p->phases[i].seconds;
    return 0.0;
}

/* res's plan time against the baseline's, with and without the baseline's host CSR check. */
static void compare_plans(cli_result *res, const spx_bench_result *base)
{
    res->base_plan = base->plan.plan_seconds;
    res->base_plan_nocheck = base->plan.plan_seconds - phase_seconds(&base->plan, "check");
    if (res->base_plan > 0) res->plan_x = res->r.plan.plan_seconds / res->base_plan;
    if (res->base_plan_nocheck > 0) res->plan_x_nocheck = res->r.plan.plan_seconds / res->base_plan_nocheck;
}

void cli_compare(cli_result *res, const spx_bench_result *base)
{
    res->speedup = 0;
    res->speedup_batch = NAN;
    res->repay = 0;
    res->plan_x = res->plan_x_nocheck = res->base_plan = res->base_plan_nocheck = 0;
    if (!base || base->status || res->r.status || res->skipped || base->t_median <= 0 || res->r.t_median <= 0)
        return;
    compare_plans(res, base);
    res->speedup = base->t_median / res->r.t_median;
    if (base->t_batch > 0 && res->r.t_batch > 0) res->speedup_batch = base->t_batch / res->r.t_batch;
    double extra_plan = res->r.plan.plan_seconds - base->plan.plan_seconds;
    double saved = base->t_median - res->r.t_median;
    if (extra_plan <= 0) res->repay = 0;
    else res->repay = saved > 0 ? ceil(extra_plan / saved) : -1;
}

const char *cli_result_name(const cli_result *res, char *buf, size_t len)
{
    const char *fmt = res->r.plan.format[0] ? res->r.plan.format : "?";
    const char *algo = res->r.plan.algo[0] ? res->r.plan.algo : "?";
    if (!strcmp(res->requested_format, "auto"))
        snprintf(buf, len, "auto:%s/%s", fmt, algo);
    else if (!strcmp(res->requested_algo, "auto") && strcmp(algo, "auto"))
        snprintf(buf, len, "%s/auto:%s", fmt, algo);
    else
        snprintf(buf, len, "%s/%s", fmt, algo);
    return buf;
}

double cli_measure_bandwidth(spx_ctx *ctx, spx_backend b)
{
    double bw = 0;
    spx_status s = b == SPX_BACKEND_CUDA ? spx_bench_device_bandwidth(ctx, &bw) : spx_bench_host_bandwidth(ctx, &bw);
    return s == SPX_OK ? bw : 0.0;
}

void cli_measure_launch_floor(spx_ctx *ctx, spx_backend b, double *call, double *batch)
{
    *call = *batch = NAN;
    if (b != SPX_BACKEND_CUDA || spx_bench_launch_floor(ctx, call, batch) == SPX_OK) return;
    *call = *batch = NAN;
}

/* The result's status as records name it: the library's, or "skipped". */
static const char *status_name(const cli_result *res)
{
    return res->skipped ? "skipped" : spx_status_str(res->r.status);
}

/* gbytes as a fraction of the measured bandwidth (0 when unmeasured; NaN stays NaN). */
static double bw_fraction(const cli_result *res, double gbytes) { return res->bw > 0 ? gbytes * 1e9 / res->bw : 0.0; }

/* The plan-phase times as a JSON object value. */
static void json_phases(FILE *f, const spx_plan_info *p)
{
    int pf = 1;
    fputc('{', f);
    for (int i = 0; i < p->n_phases; i++) json_kv_num(f, &pf, p->phases[i].name, p->phases[i].seconds);
    fputc('}', f);
}

void cli_layout_json(FILE *f, const spx_plan_info *p)
{
    int lf = 1;
    fputc('{', f);
    for (int i = 0; i < p->n_stats; i++) {
        const spx_layout_stat *st = &p->stats[i];
        if (st->text[0])
            json_kv_str(f, &lf, st->key, st->text);
        else
            json_kv_num(f, &lf, st->key, st->value);
    }
    fputc('}', f);
}

/* The plan-time comparison with the baseline as JSON members (null without one): the
 * baseline's plan with and without its host CSR check, and this plan's ratio to each. */
static void json_plans(FILE *f, int *first, const cli_result *res)
{
    char key[96];
    const int have = res->plan_x > 0;
    json_kv_num(f, first, cli_baseline_key("plan_s_", key, sizeof key), have ? res->base_plan : NAN);
    json_kv_num(f, first, cli_baseline_key("plan_s_no_check_", key, sizeof key), have ? res->base_plan_nocheck : NAN);
    json_kv_num(f, first, cli_baseline_key("plan_vs_", key, sizeof key), have ? res->plan_x : NAN);
    json_kv_num(f, first, cli_baseline_key("plan_vs_no_check_", key, sizeof key), have ? res->plan_x_nocheck : NAN);
}

void cli_result_json(FILE *f, const cli_result *res)
{
    const spx_bench_result *r = &res->r;
    char key[96], base[80];
    int first = 1;
    fputc('{', f);
    json_kv_str(f, &first, "matrix", res->matrix);
    json_kv_int(f, &first, "rows", res->m);
    json_kv_int(f, &first, "cols", res->n);
    json_kv_int(f, &first, "nnz", res->nnz);
    json_kv_num(f, &first, "row_mean", res->row_mean);
    json_kv_num(f, &first, "row_stddev", res->row_stddev);
    json_kv_num(f, &first, "diag_distance", res->diag_distance);
    json_kv_str(f, &first, "format", r->plan.format);
    json_kv_str(f, &first, "algo", r->plan.algo);
    json_kv_str(f, &first, "requested_algo", res->requested_algo[0] ? res->requested_algo : r->plan.algo);
    json_kv_str(f, &first, "requested_format", res->requested_format[0] ? res->requested_format : r->plan.format);
    json_kv_str(f, &first, "kernel", r->plan.kernel);
    json_kv_str(f, &first, "order", r->plan.plan_order ? "plan" : "caller");
    json_kv_str(f, &first, "backend", spx_backend_str(r->plan.backend));
    json_kv_str(f, &first, "precision", spx_precision_str(r->plan.precision));
    json_kv_str(f, &first, "status", status_name(res));
    if (r->status) json_kv_str(f, &first, "message", r->msg);
    json_kv_int(f, &first, "verified", r->verified);
    json_kv_num(f, &first, "rel_error", r->rel_error);
    json_kv_int(f, &first, "cold", r->cold);
    json_kv_int(f, &first, "reps", r->reps);
    json_kv_num(f, &first, "t_median_s", r->t_median);
    json_kv_num(f, &first, "t_min_s", r->t_min);
    json_kv_num(f, &first, "t_max_s", r->t_max);
    json_kv_num(f, &first, "t_batch_s", r->t_batch);
    json_kv_int(f, &first, "batch_calls", r->batch_calls);
    json_kv_int(f, &first, "batches", r->batches);
    json_kv_num(f, &first, "gflops", r->gflops);
    json_kv_num(f, &first, "gflops_batch", r->gflops_batch);
    json_kv_num(f, &first, "bytes_per_spmv", r->plan.bytes_per_spmv);
    json_kv_num(f, &first, "gbytes_per_s", r->gbytes);
    json_kv_num(f, &first, "gbytes_per_s_batch", r->gbytes_batch);
    json_kv_num(f, &first, "bandwidth_bytes_per_s", res->bw);
    json_kv_num(f, &first, "bandwidth_fraction", bw_fraction(res, r->gbytes));
    json_kv_num(f, &first, "bandwidth_fraction_batch", bw_fraction(res, r->gbytes_batch));
    json_kv_num(f, &first, "plan_s", r->plan.plan_seconds);
    json_kv_int(f, &first, "plan_reps", r->plan_reps);
    json_key(f, &first, "plan_phases_s");
    json_phases(f, &r->plan);
    if (r->plan.n_stats) {
        json_key(f, &first, "layout");
        cli_layout_json(f, &r->plan);
    }
    json_kv_str(f, &first, "baseline", baseline_name(base, sizeof base));
    json_kv_num(f, &first, cli_baseline_key("speedup_vs_", key, sizeof key), res->speedup);
    json_kv_num(f, &first, cli_baseline_key("speedup_batch_vs_", key, sizeof key), res->speedup_batch);
    json_kv_num(f, &first, cli_baseline_key("repay_spmvs_vs_", key, sizeof key), res->repay < 0 ? NAN : res->repay);
    json_plans(f, &first, res);
    json_kv_num(f, &first, "call_over_batch", r->t_batch > 0 ? r->t_median / r->t_batch : NAN);
    json_kv_num(f, &first, "launch_floor_call_s", res->launch_call);
    json_kv_num(f, &first, "launch_floor_batch_s", res->launch_batch);
    fputc('}', f);
}

void cli_result_csv_header(FILE *f)
{
    char key[96];
    fprintf(f, "matrix,rows,cols,nnz,format,algo,kernel,backend,precision,status,verified,rel_error,"
               "t_median_s,t_min_s,t_max_s,gflops,gbytes_per_s,bandwidth_fraction,plan_s,%s,repay_spmvs,",
            cli_baseline_key("speedup_vs_", key, sizeof key));
    fprintf(f, "t_batch_s,batch_calls,gflops_batch,gbytes_per_s_batch,%s,baseline,", cli_baseline_key("speedup_batch_vs_", key, sizeof key));
    fprintf(f, "%s,", cli_baseline_key("plan_vs_", key, sizeof key));
    fprintf(f, "%s\n", cli_baseline_key("plan_vs_no_check_", key, sizeof key));
}

void cli_csv_num(FILE *f, const char *fmt, double v)
{
    fputc(',', f);
    if (isfinite(v)) fprintf(f, fmt, v);
}

void cli_csv_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void cli_result_csv(FILE *f, const cli_result *res)
{
    const spx_bench_result *r = &res->r;
    char base[80];
    cli_csv_str(f, res->matrix); /* a path may hold quotes and commas */
    fprintf(f, ",%d,%d,%lld,%s,%s,%s,%s,%s,%s,%d,%.3e,%.6e,%.6e,%.6e,%.3f,%.3f,%.3f,%.6e,%.3f,%.0f",
            res->m, res->n, (long long)res->nnz, r->plan.format,
            r->plan.algo, r->plan.kernel,
            spx_backend_str(r->plan.backend), spx_precision_str(r->plan.precision),
            status_name(res), r->verified, r->rel_error, r->t_median, r->t_min, r->t_max, r->gflops,
            r->gbytes, bw_fraction(res, r->gbytes), r->plan.plan_seconds, res->speedup, res->repay);
    cli_csv_num(f, "%.6e", r->t_batch);
    fprintf(f, ",%d", r->batch_calls);
    cli_csv_num(f, "%.3f", r->gflops_batch);
    cli_csv_num(f, "%.3f", r->gbytes_batch);
    cli_csv_num(f, "%.3f", res->speedup_batch);
    fprintf(f, ",%s", baseline_name(base, sizeof base));
    cli_csv_num(f, "%.3f", res->plan_x > 0 ? res->plan_x : NAN);
    cli_csv_num(f, "%.3f", res->plan_x_nocheck > 0 ? res->plan_x_nocheck : NAN);
    fputc('\n', f);
}

/* The table's columns: per-call latency (median of single calls) and per-call time of the
 * back-to-back batches, GFLOPS of both, GB/s and fraction of the bandwidth (per call), the
 * speed-ups over the baseline on both times, the SpMVs that repay the extra plan time, the
 * plan time over the baseline's (both with their upload and spx's host CSR check). */
#define TABLE_HEAD "%-34s %8s %10s %-20s %-20s %9s %9s %7s %7s %7s %5s %6s %7s %6s %6s %9s %s\n"
#define TABLE_ROW "%-34.34s %8d %10lld %-20s %-20.20s %9.4f %9s %7.2f %7s %7.2f %4.0f%% %6s %7s %6s %6s %9.2e %s\n"

void cli_result_table_header(FILE *f)
{
    fprintf(f, TABLE_HEAD, "matrix", "rows", "nnz", "format/algo", "kernel", "call_ms", "batch_ms", "GFLOPS",
            "GF_bat", "GB/s", "%bw", "x_call", "x_batch", "repay", "plan_x", "rel_err", "verified");
}

/* v formatted with fmt into buf, or "-" when v is not finite or not positive. */
static const char *cell(char *buf, size_t len, const char *fmt, double v)
{
    if (isfinite(v) && v > 0) snprintf(buf, len, fmt, v);
    else snprintf(buf, len, "-");
    return buf;
}

void cli_result_table_row(FILE *f, const cli_result *res)
{
    const spx_bench_result *r = &res->r;
    char name[96], batch[16], gfb[16], speed[16], speedb[16], repay[16] = "-", plan[16];
    if (res->skipped) return;
    cli_result_name(res, name, sizeof name);
    if (r->status) {
        fprintf(f, "%-34.34s %8d %10lld %-20s %s: %s\n", res->matrix, res->m, (long long)res->nnz, name,
                r->status == SPX_ERR_UNSUPPORTED || r->status == SPX_ERR_OVERFLOW ? "n/a" : "FAILED", r->msg);
        return;
    }
    if (res->speedup > 0) {
        if (res->repay < 0) snprintf(repay, sizeof repay, "never");
        else snprintf(repay, sizeof repay, "%.0f", res->repay);
    }
    fprintf(f, TABLE_ROW, res->matrix, res->m, (long long)res->nnz, name, r->plan.kernel, r->t_median * 1e3,
            cell(batch, sizeof batch, "%.4f", r->t_batch * 1e3), r->gflops,
            cell(gfb, sizeof gfb, "%.2f", r->gflops_batch), r->gbytes,
            res->bw > 0 ? 100.0 * r->gbytes * 1e9 / res->bw : 0.0, cell(speed, sizeof speed, "%.2fx", res->speedup),
            cell(speedb, sizeof speedb, "%.2fx", res->speedup_batch), repay, cell(plan, sizeof plan, "%.2fx", res->plan_x),
            r->rel_error, r->verified ? "yes" : "NO");
}
