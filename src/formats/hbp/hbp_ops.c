/* src/formats/hbp/hbp_ops.c: the hbp format's entry in the registry (hash-based 2D partition,
 * docs/formats/hbp.md). */
#include "spmv/format.h"
#include "formats/hbp/hbp.h"

static spx_status hbp_build(spx_ctx *ctx, const spx_csr *A, const spx_features *feat, const spx_plan_opts *o,
                            spx_phase_log *log, void **impl)
{
    double t0 = spx_now();
    spx_hbp_fmt *F = NULL;
    spx_status s = spx_hbp_fmt_build(ctx, A, feat, o->precision, o->algo, 0, 0, &F);
    spx_phase_add(log, "convert", spx_now() - t0);
    if (!s) *impl = F;
    return s;
}

static spx_status hbp_to_csr(spx_ctx *ctx, const void *impl, spx_csr **out) { return spx_hbp_fmt_to_csr(ctx, impl, out); }

static spx_status hbp_spmv_cpu(spx_ctx *ctx, const void *impl, const spx_spmv_args *a)
{
    return spx_hbp_fmt_spmv_cpu(ctx, impl, a->precision, a->alpha, a->x, a->beta, a->y);
}

static void hbp_destroy(spx_ctx *ctx, void *impl) { spx_hbp_fmt_destroy(ctx, impl); }

static const char *hbp_algo_name(const void *impl) { return spx_hbp_algo_names[((const spx_hbp_fmt *)impl)->algo]; }

static const char *hbp_cpu_kernel_name(const void *impl)
{
    const spx_hbp_fmt *F = impl;
    if (F->bands) return F->bands->hot ? "cpu_omp_hbp_hot" : "cpu_omp_hbp_bands";
    return F->wide ? "cpu_omp_hbp_wide" : "cpu_omp_hbp_panels";
}

static double hbp_bytes(const void *impl) { return spx_hbp_fmt_bytes(impl); }

static void hbp_stats(const void *impl, spx_stat_list *out) { spx_hbp_fmt_stats(impl, out); }

const spx_format spx_hbp_format = {
    .layout = {
        .name = "hbp",
        .summary = "2D partition (HBP paper): auto = column bands sized to L2, csr kernels per band; hash/sort = "
                   "tiles of H x W, rows hashed by length into warps; wide = a CTA per row panel over L2-sized column "
                   "blocks, sums in shared memory; hot = the bands over columns renumbered by entry count",
        .algos = spx_hbp_algo_names,
        .kernel_prefix = "hbp_",
        .build = hbp_build,
        .to_csr = hbp_to_csr,
        .destroy = hbp_destroy,
        .algo_name = hbp_algo_name,
        .bytes_per_spmv = hbp_bytes,
        .stats = hbp_stats,
    },
    .cpu = {.spmv = hbp_spmv_cpu, .spmv_kernel = hbp_cpu_kernel_name},
    .cuda = spx_hbp_cuda,
};

