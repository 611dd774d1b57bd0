/* src/formats/cusparse/cusparse_ops.c: the vendor library registered as a format, so every
 * benchmark compares against it in the same run, on the same data, with the same timer. Its
 * host layout is the csr format's (int32 row pointers); it has no CPU path. */
#include <string.h>

#include "spmv/format.h"
#include "formats/cusparse/cusparse.h"

/* alg1 and alg2: cusparseSpMV's and cusparseSpMM's CSR_ALG1, CSR_ALG2; alg3: cusparseSpMM's
 * CSR_ALG3, its SpMV ALG1 (cuSPARSE has no third SpMV algorithm; the SpMV kernel is named so). */
static const char *const cusparse_algos[] = {"alg1", "alg2", "alg3", NULL};

static spx_status cusparse_build(spx_ctx *ctx, const spx_csr *A, const spx_features *feat, const spx_plan_opts *o,
                                 spx_phase_log *log, void **impl)
{
    double t0 = spx_now();
    spx_cusparse_host *H = spx_calloc_array(ctx, 1, sizeof *H);
    if (!H) return spx_fail_nomem(ctx, "cusparse plan");
    H->alg = spx_cusparse_alg_number(o->algo);
    spx_status s = spx_csr_fmt_build(ctx, A, feat, o->precision, "scalar", &H->csr);
    if (s) {
        spx_free(ctx, H);
        return s;
    }
    spx_phase_add(log, "convert", spx_now() - t0);
    *impl = H;
    return SPX_OK;
}

static spx_status cusparse_to_csr(spx_ctx *ctx, const void *impl, spx_csr **out)
{
    return spx_csr_fmt_to_csr(ctx, ((const spx_cusparse_host *)impl)->csr, out);
}

static void cusparse_destroy(spx_ctx *ctx, void *impl)
{
    spx_cusparse_host *H = impl;
    spx_csr_fmt_destroy(ctx, H->csr);
    spx_free(ctx, H);
}

static const char *cusparse_algo_name(const void *impl)
{
    return cusparse_algos[((const spx_cusparse_host *)impl)->alg - 1];
}

static double cusparse_bytes(const void *impl) { return spx_csr_fmt_bytes(((const spx_cusparse_host *)impl)->csr); }

const spx_format spx_cusparse_format = {
    .layout = {
        .name = "cusparse",
        .summary = "vendor baseline: cusparseSpMV on CSR (CUSPARSE_SPMV_CSR_ALG1/ALG2), cusparseSpMM (CSR_ALG1/ALG2/ALG3)",
        .algos = cusparse_algos,
        .flags = SPX_FORMAT_BASELINE,
        .kernel_prefix = "cusparse_",
        .build = cusparse_build,
        .to_csr = cusparse_to_csr,
        .destroy = cusparse_destroy,
        .algo_name = cusparse_algo_name,
        .bytes_per_spmv = cusparse_bytes,
    },
    .cpu = {.spmv = NULL}, /* no CPU path */
    .cuda = spx_cusparse_cuda,
};

