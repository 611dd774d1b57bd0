/* src/matrix/reference.c: the oracle SpMV and SpMM (serial, extended precision), the error
 * measure, and the statistics `spx info` prints. */
#include <math.h>
#include <string.h>

#include "core/ctx.h"

/* y = a*A*x + b*y with each row's sum in long double; b = 0 never reads y. */
void spx_csr_spmv_ref(const spx_csr *A, double a, const double *x, double b, double *y)
{
    for (int32_t i = 0; i < A->m; i++) {
        long double sum = 0.0L;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            sum += (long double)A->val[k] * (long double)x[A->colind[k]];
        long double r = (long double)a * sum;
        if (b != 0.0) r += (long double)b * (long double)y[i];
        y[i] = (double)r;
    }
}

void spx_csr_spmm_ref(const spx_csr *A, double a, const double *X, int64_t ldx, int64_t k, double b, double *Y,
                      int64_t ldy)
{
    for (int64_t j = 0; j < k; j++) spx_csr_spmv_ref(A, a, X + j * ldx, b, Y + j * ldy);
}

double spx_rel_error(const void *y, spx_precision p, const double *ref, int64_t m)
{
    long double num = 0, den = 0;
    for (int64_t i = 0; i < m; i++) {
        double yi = p == SPX_FP32 ? (double)((const float *)y)[i] : ((const double *)y)[i];
        if (!isfinite(yi)) return INFINITY;
        long double d = (long double)yi - ref[i];
        num += d * d;
        den += (long double)ref[i] * ref[i];
    }
    return den > 0 ? (double)sqrtl(num / den) : (double)sqrtl(num);
}

double spx_csr_traffic_bytes(int64_t m, int64_t n, int64_t nnz, int value_bytes, int rowptr_bytes, int reads_y)
{
    return (double)nnz * (value_bytes + 4.0) + ((double)m + 1) * rowptr_bytes + (double)n * value_bytes +
           (double)m * value_bytes * (reads_y ? 2.0 : 1.0);
}

double spx_csr_spmv_bytes(const spx_csr *A, int value_bytes, int rowptr_bytes, int reads_y)
{
    return spx_csr_traffic_bytes(A->m, A->n, A->nnz, value_bytes, rowptr_bytes, reads_y);
}

/* Whether the pattern (and, in *num_sym, the values) equals its transpose. Uses a transpose
 * built with a counting sort; returns SPX_ERR_NOMEM if that cannot be allocated. */
static spx_status symmetry_check(spx_ctx *ctx, const spx_csr *A, int *struct_sym, int *num_sym)
{
    *struct_sym = *num_sym = 0;
    if (A->m != A->n) return SPX_OK;
    spx_status s = SPX_OK;
    int64_t *tptr = spx_calloc_array(ctx, (size_t)A->n + 2, sizeof *tptr);
    int32_t *tcol = spx_malloc_array(ctx, (size_t)A->nnz, sizeof *tcol);
    double *tval = spx_malloc_array(ctx, (size_t)A->nnz, sizeof *tval);
    if (!tptr || !tcol || !tval) {
        s = spx_fail_nomem(ctx, "symmetry check");
        goto done;
    }
    for (int64_t k = 0; k < A->nnz; k++) tptr[A->colind[k] + 2]++;
    for (int32_t j = 0; j < A->n; j++) tptr[j + 2] += tptr[j + 1];
    for (int32_t i = 0; i < A->m; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int64_t d = tptr[A->colind[k] + 1]++;
            tcol[d] = i; /* rows visited in order: transpose rows come out sorted */
            tval[d] = A->val[k];
        }
    int ss = 1, ns = 1;
    for (int32_t i = 0; i < A->m && ss; i++) {
        if (A->rowptr[i + 1] - A->rowptr[i] != tptr[i + 1] - tptr[i]) {
            ss = 0;
            break;
        }
        for (int64_t k = A->rowptr[i], t = tptr[i]; k < A->rowptr[i + 1]; k++, t++) {
            if (A->colind[k] != tcol[t]) {
                ss = 0;
                break;
            }
            if (A->val[k] != tval[t]) ns = 0;
        }
    }
    *struct_sym = ss;
    *num_sym = ss && ns;
done:
    spx_free(ctx, tptr);
    spx_free(ctx, tcol);
    spx_free(ctx, tval);
    return s;
}

spx_status spx_csr_compute_stats(spx_ctx *ctx, const spx_csr *A, spx_csr_stats *out)
{
    if (!ctx || !A || !out) return SPX_ERR_ARG;
    spx_features f;
    spx_status s = spx_features_compute(A, &f);
    if (s) return s;
    spx_csr_stats st;
    memset(&st, 0, sizeof st);
    st.m = f.m;
    st.n = f.n;
    st.nnz = f.nnz;
    st.row_min = f.row_min;
    st.row_max = f.row_max;
    st.row_mean = f.row_mean;
    st.row_stddev = f.row_stddev;
    st.empty_rows = f.empty_rows;
    st.bandwidth = f.bandwidth;
    unsigned char *seen = spx_calloc_array(ctx, (size_t)A->n + 1, 1);
    if (!seen) return spx_fail_nomem(ctx, "column statistics");
    for (int64_t k = 0; k < A->nnz; k++) seen[A->colind[k]] = 1;
    for (int32_t j = 0; j < A->n; j++) st.empty_cols += !seen[j];
    spx_free(ctx, seen);
    s = symmetry_check(ctx, A, &st.structurally_symmetric, &st.numerically_symmetric);
    if (s) return s;
    (void)spx_csr_count_nonfinite(A, &st.nan_values, &st.inf_values);
    *out = st;
    return SPX_OK;
}
