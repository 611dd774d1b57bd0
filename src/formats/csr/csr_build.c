/* src/formats/csr/csr_build.c: CSR (int64 rowptr, fp64) -> the csr format's layout (int32
 * rowptr, values in the plan's precision), and back. */
#include <math.h>
#include <string.h>

#include "core/ctx.h"
#include "formats/csr/csr.h"
#include "formats/csr/csr_tuning.h"

const char *const spx_csr_algo_names[] = {"auto", "scalar", "vector", "adaptive", "merge", "nzsplit", "stream", "colblock", "sliced", NULL};

int spx_csr_algo_resolve(const char *name, int64_t nnz, const spx_features *feat)
{
    if (name && strcmp(name, "auto")) {
        for (int i = 0; spx_csr_algo_names[i]; i++)
            if (!strcmp(spx_csr_algo_names[i], name)) return i;
        return -1;
    }
    return (int)spx_csr_auto_algo(nnz, feat->n, feat->row_mean, feat->row_max, feat->row_cv);
}

spx_status spx_csr_fmt_build(spx_ctx *ctx, const spx_csr *A, const spx_features *feat, spx_precision prec,
                             const char *algo, spx_csr_fmt **out)
{
    const int a = spx_csr_algo_resolve(algo, A->nnz, feat);
    if (a < 0) return spx_fail(ctx, SPX_ERR_ARG, "csr: unknown algorithm '%s'", algo);
    if (A->nnz > INT32_MAX)
        return spx_fail(ctx, SPX_ERR_OVERFLOW, "csr: %lld nonzeros exceed the int32 row-pointer range",
                        (long long)A->nnz);
    spx_status s = SPX_OK;
    spx_csr_fmt *F = spx_calloc_array(ctx, 1, sizeof *F);
    if (!F) return spx_fail_nomem(ctx, "csr layout");
    F->m = A->m;
    F->n = A->n;
    F->nnz = A->nnz;
    F->precision = prec;
    F->rowptr = spx_malloc_array(ctx, (size_t)A->m + 1, sizeof *F->rowptr);
    F->colind = spx_malloc_array(ctx, (size_t)A->nnz, sizeof *F->colind);
    if (prec == SPX_FP32)
        F->val32 = spx_malloc_array(ctx, (size_t)A->nnz, sizeof *F->val32);
    else
        F->val64 = spx_malloc_array(ctx, (size_t)A->nnz, sizeof *F->val64);
    if (!F->rowptr || !F->colind || (!F->val32 && !F->val64)) {
        s = spx_fail_nomem(ctx, "csr layout arrays");
        goto done;
    }
    for (int32_t i = 0; i <= A->m; i++) F->rowptr[i] = (int32_t)A->rowptr[i];
    if (A->nnz) memcpy(F->colind, A->colind, (size_t)A->nnz * sizeof *F->colind);
    if (prec == SPX_FP32)
        for (int64_t k = 0; k < A->nnz; k++) F->val32[k] = (float)A->val[k];
    else if (A->nnz)
        memcpy(F->val64, A->val, (size_t)A->nnz * sizeof *F->val64);
    F->row_max = feat->row_max;
    F->row_mean = feat->row_mean;
    F->row_cv = feat->row_cv;
    F->algo = (spx_csr_algo)a;
    *out = F;
    F = NULL;
done:
    spx_csr_fmt_destroy(ctx, F);
    return s;
}

void spx_csr_fmt_destroy(spx_ctx *ctx, spx_csr_fmt *F)
{
    if (!F) return;
    spx_free(ctx, F->rowptr);
    spx_free(ctx, F->colind);
    spx_free(ctx, F->val64);
    spx_free(ctx, F->val32);
    spx_free(ctx, F);
}

/* The layout back to a library CSR (fp32 values widened). */
spx_status spx_csr_fmt_to_csr(spx_ctx *ctx, const spx_csr_fmt *F, spx_csr **out)
{
    spx_csr *A = NULL;
    spx_status s = spx_csr_alloc(ctx, F->m, F->n, F->nnz, &A);
    if (s) return s;
    for (int32_t i = 0; i <= F->m; i++) A->rowptr[i] = F->rowptr[i];
    if (F->nnz) memcpy(A->colind, F->colind, (size_t)F->nnz * sizeof *A->colind);
    for (int64_t k = 0; k < F->nnz; k++) A->val[k] = F->val64 ? F->val64[k] : (double)F->val32[k];
    A->meta.stored_entries = F->nnz;
    *out = A;
    return SPX_OK;
}

/* Minimum bytes of one SpMV with b = 0: values, columns, int32 row pointers, x, y. */
double spx_csr_fmt_bytes(const spx_csr_fmt *F)
{
    return spx_csr_traffic_bytes(F->m, F->n, F->nnz, (int)spx_precision_bytes(F->precision), 4, 0);
}
