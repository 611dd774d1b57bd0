/* src/formats/teb/teb_ops.c: the teb format's entry in the registry, and its layout figures
 * for `spx info --format teb` (the chosen bLN, k, Threshold and block balance, next to a plain
 * split of the rows into bLN equal parts). */
#include <math.h>

#include "spmv/format.h"
#include "spmv/spmm_row.h"
#include "formats/teb/teb.h"

static spx_status teb_build(spx_ctx *ctx, const spx_csr *A, const spx_features *feat, const spx_plan_opts *o,
                            spx_phase_log *log, void **impl)
{
    (void)feat; /* the build reads the row lengths itself (it sorts them) */
    spx_teb_fmt *F = NULL;
    spx_status s = spx_teb_fmt_build(ctx, A, o->precision, o->algo, NULL, log, &F);
    if (!s) *impl = F;
    return s;
}

static spx_status teb_to_csr(spx_ctx *ctx, const void *impl, spx_csr **out)
{
    const spx_teb_fmt *F = impl;
    return spx_teb_arrays_to_csr(ctx, F->m, F->n, F->nnz, F->row_off, F->row_orig, F->colind, F->val64, F->val32,
                                 out);
}

static spx_status teb_spmv_cpu(spx_ctx *ctx, const void *impl, const spx_spmv_args *a)
{
    return spx_teb_fmt_spmv_cpu(ctx, impl, a->precision, a->alpha, a->x, a->beta, a->y);
}

static void teb_destroy(spx_ctx *ctx, void *impl) { spx_teb_fmt_destroy(ctx, impl); }

static const char *teb_algo_name(const void *impl) { return spx_teb_algo_names[((const spx_teb_fmt *)impl)->algo]; }

static const char *teb_cpu_kernel_name(const void *impl)
{
    (void)impl;
    return "cpu_omp_teb_blocks";
}

static double teb_bytes(const void *impl)
{
    const spx_teb_fmt *F = impl;
    return spx_teb_bytes(F->m, F->n, F->nnz, F->n_blocks, F->precision);
}

/* bLN, k, Threshold, the blocks made (bLN and the overflow), the balance of the blocks and of an equal-rows split, the selection. */
static void teb_stats(const void *impl, spx_stat_list *out)
{
    const spx_teb_fmt *F = impl;
    const spx_teb_choice *c = &F->choice;
    spx_stat_num(out, "bLN", (double)c->bln);
    spx_stat_num(out, "blocks", (double)F->n_blocks);
    spx_stat_num(out, "overflow_blocks", (double)F->overflow_blocks);
    spx_stat_num(out, "k", c->k);
    spx_stat_num(out, "threshold", c->threshold);
    spx_stat_num(out, "block_nnz_var", F->block_var);
    spx_stat_num(out, "block_nnz_stddev", sqrt(F->block_var));
    spx_stat_num(out, "block_nnz_max", (double)F->block_max);
    spx_stat_num(out, "eqrows_nnz_var", F->eq_var);
    spx_stat_num(out, "eqrows_nnz_stddev", sqrt(F->eq_var));
    spx_stat_num(out, "eqrows_nnz_max", (double)F->eq_max);
    spx_stat_num(out, "max_row", (double)F->max_row);
    spx_stat_num(out, "long_rows", (double)F->long_rows);
    spx_stat_num(out, "empty_rows", (double)F->empty_rows);
    spx_stat_num(out, "bLN_critical", (double)c->bln_critical);
    spx_stat_num(out, "bLN_lo", (double)c->bln_lo);
    spx_stat_num(out, "bLN_hi", (double)c->bln_hi);
    spx_stat_num(out, "candidates", (double)c->n_candidates);
    spx_stat_num(out, "select_steps", (double)c->steps);
}

static spx_status teb_spmm_cpu(spx_ctx *ctx, const void *impl, const spx_spmm_args *a)
{
    return spx_teb_fmt_spmm_cpu(ctx, impl, a);
}

static const char *teb_cpu_spmm_name(const void *impl, spx_dense_layout layout)
{
    return SPX_SPMM_CPU_NAME("cpu_omp_teb_blocks", layout);
}

const spx_format spx_teb_format = {
    .layout = {
        .name = "teb",
        .summary = "threshold-exchange-order blocks: rows merged into ~equal-nonzero blocks, a CUDA block each "
                   "(Wang et al. 2023)",
        .algos = spx_teb_algo_names,
        .kernel_prefix = "teb_",
        .build = teb_build,
        .to_csr = teb_to_csr,
        .destroy = teb_destroy,
        .algo_name = teb_algo_name,
        .bytes_per_spmv = teb_bytes,
        .stats = teb_stats,
    },
    .cpu = {
        .spmv = teb_spmv_cpu,
        .spmv_kernel = teb_cpu_kernel_name,
        .spmm = teb_spmm_cpu,
        .spmm_kernel = teb_cpu_spmm_name,
    },
    .cuda = spx_teb_cuda,
};

