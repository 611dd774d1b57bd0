/* src/formats/csr/csr_ops.c: the csr format's entry in the registry. */
#include "spmv/format.h"
#include "spmv/spmm_row.h"
#include "formats/csr/csr.h"

static spx_status csr_build(spx_ctx *ctx, const spx_csr *A, const spx_features *feat, const spx_plan_opts *o,
                            spx_phase_log *log, void **impl)
{
    double t0 = spx_now();
    spx_csr_fmt *F = NULL;
    spx_status s = spx_csr_fmt_build(ctx, A, feat, o->precision, o->algo, &F);
    spx_phase_add(log, "convert", spx_now() - t0);
    if (!s) *impl = F;
    return s;
}

static spx_status csr_to_csr(spx_ctx *ctx, const void *impl, spx_csr **out)
{
    return spx_csr_fmt_to_csr(ctx, impl, out);
}

static spx_status csr_spmv_cpu(spx_ctx *ctx, const void *impl, const spx_spmv_args *a)
{
    return spx_csr_fmt_spmv_cpu(ctx, impl, a->precision, a->alpha, a->x, a->beta, a->y);
}

static void csr_destroy(spx_ctx *ctx, void *impl) { spx_csr_fmt_destroy(ctx, impl); }

static const char *csr_algo_name(const void *impl)
{
    return spx_csr_algo_names[((const spx_csr_fmt *)impl)->algo];
}

static const char *csr_cpu_kernel_name(const void *impl) { return "cpu_omp_nnz_balanced"; }

static double csr_bytes(const void *impl) { return spx_csr_fmt_bytes(impl); }

static spx_status csr_spmm_cpu(spx_ctx *ctx, const void *impl, const spx_spmm_args *a)
{
    return spx_csr_fmt_spmm_cpu(ctx, impl, a);
}

static const char *csr_cpu_spmm_name(const void *impl, spx_dense_layout layout)
{
    return SPX_SPMM_CPU_NAME("cpu_omp_nnz_balanced", layout);
}

const spx_format spx_csr_format = {
    .layout = {
        .name = "csr",
        .summary = "compressed sparse row; GPU kernel family (CSR report, Merrill & Garland)",
        .algos = spx_csr_algo_names,
        .kernel_prefix = "csr_",
        .build = csr_build,
        .to_csr = csr_to_csr,
        .destroy = csr_destroy,
        .algo_name = csr_algo_name,
        .bytes_per_spmv = csr_bytes,
    },
    .cpu = {
        .spmv = csr_spmv_cpu,
        .spmv_kernel = csr_cpu_kernel_name,
        .spmm = csr_spmm_cpu,
        .spmm_kernel = csr_cpu_spmm_name,
    },
    .cuda = spx_csr_cuda,
};

