/* tools/report.c: how spx prints measured results: table rows, JSON records, CSV lines. */
#include <math.h>
#include <string.h>

#include "cli.h"

void cli_compare(cli_result *res, const spx_bench_result *base)
{
    res->speedup = 0;
    res->repay = 0;
    if (!base || base->status || res->r.status || base->t_median <= 0 || res->r.t_median <= 0) return;
    res->speedup = base->t_median / res->r.t_median;
    double extra_plan = res->r.plan.plan_seconds - base->plan.plan_seconds;
    double saved = base->t_median - res->r.t_median;
    if (extra_plan <= 0) res->repay = 0;
    else res->repay = saved > 0 ? ceil(extra_plan / saved) : -1;
}

const char *cli_result_name(const cli_result *res, char *buf, size_t len)
{
    const char *fmt = res->r.plan.format[0] ? res->r.plan.format : "?";
    const char *algo = res->r.plan.algo[0] ? res->r.plan.algo : "?";
    if (!strcmp(res->requested_algo, "auto") && strcmp(algo, "auto"))
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

void cli_result_json(FILE *f, const cli_result *res)
{
    const spx_bench_result *r = &res->r;
    int first = 1;
    fputc('{', f);
    json_kv_str(f, &first, "matrix", res->matrix);
    json_kv_int(f, &first, "rows", res->m);
    json_kv_int(f, &first, "cols", res->n);
    json_kv_int(f, &first, "nnz", res->nnz);
    json_kv_str(f, &first, "format", r->plan.format);
    json_kv_str(f, &first, "algo", r->plan.algo);
    json_kv_str(f, &first, "requested_algo", res->requested_algo[0] ? res->requested_algo : r->plan.algo);
    json_kv_str(f, &first, "kernel", r->plan.kernel);
    json_kv_str(f, &first, "backend", spx_backend_str(r->plan.backend));
    json_kv_str(f, &first, "precision", r->plan.precision == SPX_FP32 ? "fp32" : "fp64");
    json_kv_str(f, &first, "status", spx_status_str(r->status));
    if (r->status) json_kv_str(f, &first, "message", r->msg);
    json_kv_int(f, &first, "verified", r->verified);
    json_kv_num(f, &first, "rel_error", r->rel_error);
    json_kv_int(f, &first, "cold", r->cold);
    json_kv_int(f, &first, "reps", r->reps);
    json_kv_num(f, &first, "t_median_s", r->t_median);
    json_kv_num(f, &first, "t_min_s", r->t_min);
    json_kv_num(f, &first, "t_max_s", r->t_max);
    json_kv_num(f, &first, "gflops", r->gflops);
    json_kv_num(f, &first, "bytes_per_spmv", r->plan.bytes_per_spmv);
    json_kv_num(f, &first, "gbytes_per_s", r->gbytes);
    json_kv_num(f, &first, "bandwidth_bytes_per_s", res->bw);
    json_kv_num(f, &first, "bandwidth_fraction", res->bw > 0 ? r->gbytes * 1e9 / res->bw : 0.0);
    json_kv_num(f, &first, "plan_s", r->plan.plan_seconds);
    json_key(f, &first, "plan_phases_s");
    fputc('{', f);
    int pf = 1;
    for (int i = 0; i < r->plan.n_phases; i++) json_kv_num(f, &pf, r->plan.phases[i].name, r->plan.phases[i].seconds);
    fputc('}', f);
    json_kv_num(f, &first, "speedup_vs_cusparse_alg1", res->speedup);
    json_kv_num(f, &first, "repay_spmvs_vs_cusparse_alg1", res->repay < 0 ? NAN : res->repay);
    fputc('}', f);
}

void cli_result_csv_header(FILE *f)
{
    fprintf(f, "matrix,rows,cols,nnz,format,algo,kernel,backend,precision,status,verified,rel_error,"
               "t_median_s,t_min_s,t_max_s,gflops,gbytes_per_s,bandwidth_fraction,plan_s,"
               "speedup_vs_cusparse_alg1,repay_spmvs\n");
}

void cli_result_csv(FILE *f, const cli_result *res)
{
    const spx_bench_result *r = &res->r;
    fprintf(f, "\"%s\",%d,%d,%lld,%s,%s,%s,%s,%s,%s,%d,%.3e,%.6e,%.6e,%.6e,%.3f,%.3f,%.3f,%.6e,%.3f,%.0f\n",
            res->matrix, res->m, res->n, (long long)res->nnz, r->plan.format,
            r->plan.algo, r->plan.kernel,
            spx_backend_str(r->plan.backend), r->plan.precision == SPX_FP32 ? "fp32" : "fp64",
            spx_status_str(r->status), r->verified, r->rel_error, r->t_median, r->t_min, r->t_max, r->gflops,
            r->gbytes, res->bw > 0 ? r->gbytes * 1e9 / res->bw : 0.0, r->plan.plan_seconds, res->speedup,
            res->repay);
}

void cli_result_table_header(FILE *f)
{
    fprintf(f, "%-34s %9s %10s %-20s %-22s %9s %8s %8s %6s %7s %7s %9s %s\n", "matrix", "rows", "nnz",
            "format/algo", "kernel", "median_ms", "GFLOPS", "GB/s", "%bw", "vs_cusp", "repay", "rel_err",
            "verified");
}

void cli_result_table_row(FILE *f, const cli_result *res)
{
    const spx_bench_result *r = &res->r;
    char name[96], speed[16] = "-", repay[16] = "-";
    cli_result_name(res, name, sizeof name);
    if (r->status) {
        fprintf(f, "%-34.34s %9d %10lld %-20s %s: %s\n", res->matrix, res->m, (long long)res->nnz, name,
                r->status == SPX_ERR_UNSUPPORTED || r->status == SPX_ERR_OVERFLOW ? "n/a" : "FAILED", r->msg);
        return;
    }
    if (res->speedup > 0) snprintf(speed, sizeof speed, "%.2fx", res->speedup);
    if (res->speedup > 0) {
        if (res->repay < 0) snprintf(repay, sizeof repay, "never");
        else snprintf(repay, sizeof repay, "%.0f", res->repay);
    }
    fprintf(f, "%-34.34s %9d %10lld %-20s %-22.22s %9.4f %8.2f %8.2f %5.0f%% %7s %7s %9.2e %s\n", res->matrix,
            res->m, (long long)res->nnz, name, r->plan.kernel, r->t_median * 1e3, r->gflops,
            r->gbytes, res->bw > 0 ? 100.0 * r->gbytes * 1e9 / res->bw : 0.0, speed, repay, r->rel_error,
            r->verified ? "yes" : "NO");
}
