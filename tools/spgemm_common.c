/* tools/spgemm_common.c: the SpGEMM commands' shared parts: the CPU oracle, the comparison
 * with it, the output paths' check, the plan's JSON members. */
#include <math.h>
#include <string.h>

#include "cli.h"
#include "spgemm_common.h"

double spgemm_verify_tol(spx_precision p) { return p == SPX_FP32 ? SPGEMM_VERIFY_TOL_FP32 : SPGEMM_VERIFY_TOL_FP64; }

double spgemm_compare(const spx_csr *C, const spx_csr *R)
{
    if (C->m != R->m || C->n != R->n || C->nnz != R->nnz) return -1;
    for (int32_t i = 0; i <= C->m; i++)
        if (C->rowptr[i] != R->rowptr[i]) return -1;
    long double d = 0, r = 0;
    for (int64_t q = 0; q < C->nnz; q++) {
        if (C->colind[q] != R->colind[q]) return -1;
        long double e = (long double)C->val[q] - R->val[q];
        d += e * e;
        r += (long double)R->val[q] * R->val[q];
    }
    if (isnan((double)d)) return INFINITY;
    return r > 0 ? (double)sqrtl(d / r) : (double)sqrtl(d);
}

spx_status spgemm_oracle(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, spx_precision p, int transpose_b,
                         spx_csr **R)
{
    spx_spgemm_opts oo = {.method = "gustavson", .backend = SPX_BACKEND_CPU, .precision = p, .transpose_b = transpose_b};
    spx_spgemm_plan *plan = NULL;
    spx_status s = spx_spgemm_plan_create(ctx, A, B, &oo, &plan);
    if (!s) s = spx_spgemm_run(plan, R);
    spx_spgemm_plan_destroy(&plan);
    return s;
}

int spgemm_check(const spx_csr *C, const spx_csr *R, spx_precision p, double *rel_error, char *why, size_t len)
{
    const double tol = spgemm_verify_tol(p);
    *rel_error = spgemm_compare(C, R);
    if (*rel_error < 0) snprintf(why, len, "no: structure differs from the oracle");
    else if (!(*rel_error <= tol)) snprintf(why, len, "no: rel error %.3e > %.0e", *rel_error, tol);
    else snprintf(why, len, "yes");
    return *rel_error >= 0 && *rel_error <= tol;
}

int spgemm_panel_opts(const cli_opts *o, spx_spgemm_opts *so)
{
    static const char *const modes[] = {"auto", "off", "hetero", "gpu", "cpu"};
    so->device_mem_limit = o->device_mem_limit;
    so->gpu_share = o->gpu_share;
    so->b_col_blocks = o->b_col_blocks;
    so->panels = SPX_PANELS_AUTO;
    for (int i = 0; o->panels && i < (int)(sizeof modes / sizeof modes[0]); i++)
        if (!strcmp(o->panels, modes[i])) {
            so->panels = (spx_spgemm_panels)i;
            return CLI_OK;
        }
    return o->panels ? cli_error("--panels must be auto, off, hetero, gpu or cpu, not '%s'", o->panels) : CLI_OK;
}

/* The panel figures (the out-of-core path) as JSON members. */
static void panels_json(FILE *f, int *first, const spx_spgemm_info *in)
{
    json_kv_str(f, first, "panel_mode", in->panel_mode);
    if (in->device_mem_limit != SPX_BUDGET_NONE) json_kv_int(f, first, "device_mem_limit", (long long)in->device_mem_limit);
    if (!in->panels) return;
    json_kv_str(f, first, "panel_split", in->panel_split);
    json_kv_int(f, first, "panels", in->panels);
    json_kv_int(f, first, "panel_rows_max", in->panel_rows_max);
    json_kv_int(f, first, "b_col_blocks", in->b_col_blocks);
    json_kv_num(f, first, "k_ratio", in->k_ratio);
    json_kv_num(f, first, "gpu_share", in->gpu_share);
    json_kv_int(f, first, "panels_gpu", in->panels_gpu);
    json_kv_int(f, first, "panels_cpu", in->panels_cpu);
    json_kv_int(f, first, "panels_stolen", in->panels_stolen);
    json_kv_num(f, first, "gpu_share_run", in->gpu_share_run);
    json_kv_int(f, first, "gpu_lanes", in->gpu_lanes);
    json_kv_num(f, first, "gpu_transfer_s", in->gpu_transfer_s);
    json_kv_num(f, first, "gpu_compute_s", in->gpu_compute_s);
    json_kv_num(f, first, "gpu_idle_s", in->gpu_idle_s);
    json_kv_num(f, first, "cpu_compute_s", in->cpu_compute_s);
}

void spgemm_phases_json(FILE *f, int *first, const char *key, const spx_spgemm_info *in)
{
    json_key(f, first, key);
    int pf = 1;
    fputc('{', f);
    for (int i = 0; i < in->n_phases; i++) json_kv_num(f, &pf, in->phases[i].name, in->phases[i].seconds);
    fputc('}', f);
}

void spgemm_info_json(FILE *f, int *first, const spx_spgemm_info *in)
{
    json_kv_str(f, first, "method", in->method);
    json_kv_str(f, first, "algo", in->algo);
    json_kv_str(f, first, "kernel", in->kernel);
    json_kv_str(f, first, "backend", spx_backend_str(in->backend));
    json_kv_str(f, first, "precision", spx_precision_str(in->precision));
    json_kv_int(f, first, "transpose_b", in->transpose_b);
    json_kv_int(f, first, "m", in->m);
    json_kv_int(f, first, "k", in->k);
    json_kv_int(f, first, "n", in->n);
    json_kv_int(f, first, "nnz_a", in->nnz_a);
    json_kv_int(f, first, "nnz_b", in->nnz_b);
    json_kv_int(f, first, "nnz_c", in->nnz_c);
    json_kv_int(f, first, "products", in->products);
    json_kv_num(f, first, "compression", in->compression);
    json_kv_num(f, first, "plan_s", in->plan_seconds);
    spgemm_phases_json(f, first, "phases", in);
    json_kv_int(f, first, "host_bytes", (long long)in->host_bytes);
    json_kv_int(f, first, "host_peak_bytes", (long long)in->host_peak_bytes);
    json_kv_int(f, first, "device_bytes", (long long)in->device_bytes);
    json_kv_int(f, first, "device_peak_bytes", (long long)in->device_peak_bytes);
    panels_json(f, first, in);
}
