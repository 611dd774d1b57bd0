/* tools/cmd_spgemm.c: `spx spgemm SRC_A [SRC_B]`: C = A*B (A*A, A*B^T) by one method: plan
 * (analysis and symbolic) and one numeric run, time split by phase, GFLOPS over the products
 * formed, nnz(C) and the compression ratio, memory held and at peak, the out-of-core panels
 * (device budget, sides, transfers; --timeline FILE); a GPU or panel result verified against
 * the CPU oracle (structure exact, values within rounding); -o writes C. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_signal.h"
#include "spgemm_common.h"
#include "spgemm_timeline.h"

/* One product as run and checked. */
typedef struct spgemm_result {
    const char *a_src, *b_src;
    spx_spgemm_info info;
    double rel_error; /* vs the oracle; 0 when this run is the oracle */
    const char *verified; /* "yes", "no: <why>", "oracle", "not checked" (--no-verify) */
    char why[160];
    spx_spgemm_panel_event *ev; /* the panels of the run (malloc'ed), n_ev of them */
    int n_ev;
} spgemm_result;

/* Help: the usage and the registered methods. */
static int print_help(void)
{
    printf("usage: spx spgemm SRC_A [SRC_B] [--transpose-b] [--method M] [--algo A] [--backend cpu|cuda|auto]\n"
           "       [--precision fp64|fp32] [-o C.mtx[.gz]] [--json] [--threads N]\n" SPGEMM_PANEL_USAGE
           " [--timeline FILE[.svg]] [--no-verify]\n"
           "C = A*B; A*A without SRC_B; A*B^T (A*A^T) with --transpose-b.\n"
           "--device-mem-limit: the device memory the plan may hold; past it the product runs in panels of A's\n"
           "rows (--panels auto), or always with --panels hetero (GPU and CPU), gpu or cpu (docs/spgemm.md);\n"
           "--gpu-share R fixes the GPU's share instead of measuring it; --b-col-blocks N splits B into about N\n"
           "blocks of columns for the GPU's panels (1: B resident; by default only when B does not fit);\n"
           "--timeline writes the panels' times\n"
           "(JSON, or an SVG picture for a .svg name); --no-verify skips the CPU oracle (a second C on the host).\n"
           "\nmethods:\n");
    for (int i = 0; i < spx_spgemm_method_count(); i++) {
        spx_spgemm_method_desc d;
        if (spx_spgemm_method_describe(i, &d)) continue;
        printf("  %-10s %-4s %s%s", d.name, spx_backend_str(d.backend), d.is_baseline ? "[baseline] " : "", d.summary);
        for (int a = 0; d.algos && d.algos[a]; a++) printf("%s%s", a ? ", " : " (algorithms: ", d.algos[a]);
        printf("%s\n", d.algos && d.algos[0] ? ")" : "");
    }
    return CLI_OK;
}

/* Checks C against the CPU oracle run on the same operands and precision. */
static void verify(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, const cli_opts *o, const spx_csr *C,
                   spgemm_result *res)
{
    spx_csr *R = NULL;
    spx_status s = spgemm_oracle(ctx, A, B, o->precision, o->transpose_b, &R);
    if (s) snprintf(res->why, sizeof res->why, "no: the oracle failed: %.120s", spx_ctx_last_error(ctx));
    else spgemm_check(C, R, o->precision, &res->rel_error, res->why, sizeof res->why);
    res->verified = res->why;
    spx_csr_destroy(&R);
}

/* GFLOPS of the product's 2 flops per product over t seconds; 0 unless t > 0. */
static double product_gflops(const spx_spgemm_info *in, double t)
{
    return t > 0 ? 2.0 * (double)in->products / t * 1e-9 : 0.0;
}

/* The out-of-core figures: the device budget, the panels and what each side did. */
static void print_panels(const spx_spgemm_info *in)
{
    char lim[32];
    if (in->device_mem_limit != SPX_BUDGET_NONE) snprintf(lim, sizeof lim, "%.3f MB", (double)in->device_mem_limit * 1e-6);
    else snprintf(lim, sizeof lim, "none");
    if (!in->panels) {
        printf("panels      in-core (device budget %s)\n", lim);
        return;
    }
    char bcols[48];
    if (in->b_col_blocks > 1) snprintf(bcols, sizeof bcols, "B in %d column blocks", in->b_col_blocks);
    else snprintf(bcols, sizeof bcols, "B whole");
    printf("panels      %d of at most %d rows, split %s, device budget %s, %s; GPU %d, CPU %d, %d stolen\n",
           in->panels, in->panel_rows_max, in->panel_split, lim, bcols, in->panels_gpu, in->panels_cpu,
           in->panels_stolen);
    printf("sides       K %.3f, GPU share planned %.3f, run %.3f; GPU (%d lanes) transfer %.3f ms, compute %.3f ms, "
           "idle %.3f ms; CPU compute %.3f ms\n",
           in->k_ratio, in->gpu_share, in->gpu_share_run, in->gpu_lanes, in->gpu_transfer_s * 1e3,
           in->gpu_compute_s * 1e3, in->gpu_idle_s * 1e3, in->cpu_compute_s * 1e3);
}

/* The result as text, one figure per line. */
static void print_text(const spgemm_result *res)
{
    const spx_spgemm_info *in = &res->info;
    const double total = in->plan_seconds + in->run_seconds;
    printf("A           %s (%d x %d, %lld nnz)\n", res->a_src, in->m, in->k, (long long)in->nnz_a);
    printf("B           %s (%lld nnz)%s\n", res->b_src, (long long)in->nnz_b, in->transpose_b ? ", transposed: C = A*B^T" : "");
    printf("method      %s/%s  kernel %s  backend %s  precision %s\n", in->method, in->algo, in->kernel,
           spx_backend_str(in->backend), spx_precision_str(in->precision));
    printf("C           %d x %d, %lld nonzeros; %lld products; compression %.2f\n", in->m, in->n,
           (long long)in->nnz_c, (long long)in->products, in->compression);
    printf("time        %.3f ms = plan %.3f ms + numeric run %.3f ms\n", total * 1e3, in->plan_seconds * 1e3,
           in->run_seconds * 1e3);
    printf("phases     ");
    for (int i = 0; i < in->n_phases; i++) printf(" %s %.3f ms%s", in->phases[i].name, in->phases[i].seconds * 1e3,
                                                   i + 1 < in->n_phases ? "," : "");
    printf("\n");
    printf("GFLOPS      %.3f whole call, %.3f numeric run (2 flops per product)\n", product_gflops(in, total),
           product_gflops(in, in->run_seconds));
    printf("memory      host %.3f MB held by the plan, %.3f MB peak; device %.3f MB held, %.3f MB peak\n",
           (double)in->host_bytes * 1e-6, (double)in->host_peak_bytes * 1e-6, (double)in->device_bytes * 1e-6,
           (double)in->device_peak_bytes * 1e-6);
    print_panels(in);
    if (strcmp(res->verified, "oracle") && strcmp(res->verified, "not checked"))
        printf("rel error   %.3e (vs the CPU oracle)\n", res->rel_error);
    printf("verified: %s\n", res->verified);
}

/* The result as one JSON record {"env": ..., "result": {...}} on stdout. */
static void print_json(spx_ctx *ctx, const spgemm_result *res)
{
    const spx_spgemm_info *in = &res->info;
    const double total = in->plan_seconds + in->run_seconds;
    int f = 1;
    printf("{\"env\":");
    json_env(stdout, ctx, in->backend, 0, 0);
    printf(",\"result\":{");
    json_kv_str(stdout, &f, "op", "spgemm");
    json_kv_str(stdout, &f, "a", res->a_src);
    json_kv_str(stdout, &f, "b", res->b_src);
    spgemm_info_json(stdout, &f, in);
    json_kv_num(stdout, &f, "numeric_s", in->run_seconds);
    json_kv_num(stdout, &f, "total_s", total);
    json_kv_num(stdout, &f, "gflops", product_gflops(in, total));
    json_kv_num(stdout, &f, "gflops_numeric", product_gflops(in, in->run_seconds));
    json_kv_num(stdout, &f, "rel_error", res->rel_error);
    json_kv_str(stdout, &f, "verified", res->verified);
    printf("}}\n");
}

/* Writes C through a temporary name renamed when complete (removed if a signal kills us). */
static int write_result(spx_ctx *ctx, const char *path, const spx_csr *C)
{
    spx_write_opts wo = {.on_temp = cli_signal_on_temp};
    spx_status s = spx_mtx_write_opts(ctx, path, C, &wo);
    return s ? cli_fail(ctx, path, s) : CLI_OK;
}

/* Plans and runs the product; a failure (e.g. cuSPARSE's insufficient resources) is one
 * error line naming the method. */
static int run_product(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, const cli_opts *o, spx_csr **C,
                       spgemm_result *res)
{
    spx_spgemm_opts so = {.method = o->method, .algo = o->algo, .backend = o->backend, .precision = o->precision,
                          .transpose_b = o->transpose_b};
    if (spgemm_panel_opts(o, &so)) return CLI_ERROR;
    spx_spgemm_plan *p = NULL;
    spx_status s = spx_spgemm_plan_create(ctx, A, B, &so, &p);
    if (!s) s = spx_spgemm_run(p, C);
    if (!s) s = spx_spgemm_plan_get_info(p, &res->info);
    if (!s) res->n_ev = spgemm_timeline_take(p, &res->ev);
    spx_spgemm_plan_destroy(&p);
    if (res->n_ev < 0) return cli_error("spgemm: out of memory for the timeline");
    return s ? cli_fail(ctx, "spgemm", s) : CLI_OK;
}

int cmd_spgemm(int argc, char **argv)
{
    if (argc == 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) return print_help();
    cli_opts o = {0};
    if (cli_parse(argc, argv, 2,
                  "--method: --algo: --backend: --precision: --threads: --transpose-b --json --strict -o: "
                  "--device-mem-limit: --panels: --gpu-share: --b-col-blocks: --timeline: --no-verify",
                  &o))
        return CLI_ERROR;
    if (o.n_positional < 1 || o.n_positional > 2)
        return cli_error("usage: spx spgemm SRC_A [SRC_B] [options] (see `spx spgemm --help`)");
    if (cli_check_outputs(&o)) return CLI_ERROR;
    spx_ctx *ctx = cli_ctx(&o);
    if (!ctx) return CLI_ERROR;
    spx_csr *A = NULL, *Bown = NULL, *C = NULL;
    spgemm_result res = {.a_src = o.positional[0], .b_src = o.positional[o.n_positional - 1], .verified = "oracle"};
    int rc = cli_load(ctx, o.positional[0], &o, &A);
    if (!rc && o.n_positional == 2) rc = cli_load(ctx, o.positional[1], &o, &Bown);
    const spx_csr *B = Bown ? Bown : A;
    if (!rc) rc = run_product(ctx, A, B, &o, &C, &res);
    const int check = res.info.backend != SPX_BACKEND_CPU || res.info.panels;
    if (!rc && check && o.no_verify) res.verified = "not checked";
    else if (!rc && check) verify(ctx, A, B, &o, C, &res);
    if (!rc) {
        if (o.json) print_json(ctx, &res);
        else print_text(&res);
    }
    if (!rc && o.out_path) {
        rc = write_result(ctx, o.out_path, C);
        if (!rc && !o.json) printf("wrote %s: %d x %d, %lld nonzeros\n", o.out_path, C->m, C->n, (long long)C->nnz);
    }
    if (!rc && o.timeline_path) {
        const spgemm_timeline t = {res.a_src, res.b_src, &res.info, res.ev, res.n_ev};
        rc = spgemm_timeline_write(o.timeline_path, &t);
        if (!rc && !o.json) printf("wrote %s: %d panels\n", o.timeline_path, res.n_ev);
    }
    if (!rc && strcmp(res.verified, "oracle") && strcmp(res.verified, "yes") && strcmp(res.verified, "not checked"))
        rc = CLI_VERIFY_FAILED;
    free(res.ev);
    spx_csr_destroy(&C);
    spx_csr_destroy(&Bown);
    spx_csr_destroy(&A);
    spx_ctx_destroy(&ctx);
    return rc;
}
