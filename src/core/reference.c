/* src/core/reference.c: the oracle SpMV (serial, extended precision) and matrix statistics. */
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

double spx_csr_spmv_bytes(const spx_csr *A, int value_bytes, int rowptr_bytes, int reads_y)
{
    double nnz = (double)A->nnz;
    return nnz * (value_bytes + 4.0) + ((double)A->m + 1) * rowptr_bytes + (double)A->n * value_bytes +
           (double)A->m * value_bytes * (reads_y ? 2.0 : 1.0);
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
    spx_csr_stats st;
    memset(&st, 0, sizeof st);
    st.m = A->m;
    st.n = A->n;
    st.nnz = A->nnz;
    st.row_min = A->m ? INT64_MAX : 0;
    double sum = 0, sumsq = 0;
    for (int32_t i = 0; i < A->m; i++) {
        int64_t len = A->rowptr[i + 1] - A->rowptr[i];
        if (len < st.row_min) st.row_min = len;
        if (len > st.row_max) st.row_max = len;
        if (len == 0) st.empty_rows++;
        sum += (double)len;
        sumsq += (double)len * (double)len;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int64_t d = (int64_t)A->colind[k] - i;
            if (d < 0) d = -d;
            if (d > st.bandwidth) st.bandwidth = d;
        }
    }
    if (A->m) {
        st.row_mean = sum / A->m;
        double var = sumsq / A->m - st.row_mean * st.row_mean;
        st.row_stddev = var > 0 ? sqrt(var) : 0.0;
    }
    unsigned char *seen = spx_calloc_array(ctx, (size_t)A->n + 1, 1);
    if (!seen) return spx_fail_nomem(ctx, "column statistics");
    for (int64_t k = 0; k < A->nnz; k++) seen[A->colind[k]] = 1;
    for (int32_t j = 0; j < A->n; j++) st.empty_cols += !seen[j];
    spx_free(ctx, seen);
    spx_status s = symmetry_check(ctx, A, &st.structurally_symmetric, &st.numerically_symmetric);
    if (s) return s;
    *out = st;
    return SPX_OK;
}
