/* src/matrix/features.c: a matrix's features (row-length statistics, empty rows, bandwidth,
 * distance from the diagonal, column locality), one pass, no allocation. */
#include <math.h>
#include <string.h>

#include "core/ctx.h"

/* Adds row i's entries to the column measures: bandwidth, summed |j - i|, near neighbours. */
static void row_columns(const spx_csr *A, int32_t i, int64_t *bandwidth, double *dist_sum, int64_t *near)
{
    int64_t b = A->rowptr[i], e = A->rowptr[i + 1];
    for (int64_t k = b; k < e; k++) {
        int64_t d = (int64_t)A->colind[k] - i;
        if (d < 0) d = -d;
        if (d > *bandwidth) *bandwidth = d;
        *dist_sum += (double)d;
        if (k > b && (int64_t)A->colind[k] - A->colind[k - 1] <= SPX_FEATURES_NEAR_COLS) (*near)++;
    }
}

spx_status spx_features_compute(const spx_csr *A, spx_features *out)
{
    if (!A || !out) return SPX_ERR_ARG;
    spx_features f;
    memset(&f, 0, sizeof f);
    f.m = A->m;
    f.n = A->n;
    f.nnz = A->nnz;
    f.row_min = A->m ? INT64_MAX : 0;
    double sum = 0, sumsq = 0, dist = 0;
    int64_t near = 0, pairs = 0;
    for (int32_t i = 0; i < A->m; i++) {
        int64_t len = A->rowptr[i + 1] - A->rowptr[i];
        if (len < f.row_min) f.row_min = len;
        if (len > f.row_max) f.row_max = len;
        f.empty_rows += len == 0;
        sum += (double)len;
        sumsq += (double)len * (double)len;
        pairs += len > 1 ? len - 1 : 0;
        row_columns(A, i, &f.bandwidth, &dist, &near);
    }
    if (A->m) {
        f.row_mean = sum / A->m;
        double var = sumsq / A->m - f.row_mean * f.row_mean;
        f.row_stddev = var > 0 ? sqrt(var) : 0.0;
        f.row_cv = f.row_mean > 0 ? f.row_stddev / f.row_mean : 0.0;
    }
    int32_t dim = A->m > A->n ? A->m : A->n;
    f.diag_distance = A->nnz && dim ? dist / (double)A->nnz / dim : 0.0;
    f.col_near = pairs ? (double)near / (double)pairs : 1.0;
    *out = f;
    return SPX_OK;
}
