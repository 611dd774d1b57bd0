/* src/matrix/features.c: a matrix's features (row-length statistics, empty rows, bandwidth,
 * distance from the diagonal, column locality), one pass, no allocation; in parallel over
 * fixed blocks of equal nonzeros whose partial sums are added in block order, so the result
 * is the same bit for bit whatever the thread count. */
#include <math.h>
#include <omp.h>
#include <string.h>

#include "core/ctx.h"
#include "matrix/features.h"

/* Blocks of the pass (each ~nnz / FEATURE_BLOCKS entries; their sums are kept on the stack)
 * and the size below which one thread does it all (a parallel region costs ~10 us). */
#define FEATURE_BLOCKS 256
#define FEATURE_PARALLEL_MIN_NNZ 200000

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

/* The first row whose entries start at or after nonzero k (rowptr non-decreasing). */
static int32_t row_at(const spx_csr *A, int64_t k)
{
    int32_t lo = 0, hi = A->m;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (A->rowptr[mid] < k) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Sums rows [r0, r1) into *p. */
static void part_rows(const spx_csr *A, int32_t r0, int32_t r1, spx_feature_sums *p)
{
    memset(p, 0, sizeof *p);
    p->row_min = INT64_MAX;
    for (int32_t i = r0; i < r1; i++) {
        int64_t len = A->rowptr[i + 1] - A->rowptr[i];
        if (len < p->row_min) p->row_min = len;
        if (len > p->row_max) p->row_max = len;
        p->empty += len == 0;
        p->sumsq += (double)len * (double)len;
        p->pairs += len > 1 ? len - 1 : 0;
        row_columns(A, i, &p->bandwidth, &p->dist, &p->near);
    }
}

void spx_features_finish(int32_t m, int32_t n, int64_t nnz, const spx_feature_sums *parts, int nparts,
                         spx_features *out)
{
    spx_features f;
    memset(&f, 0, sizeof f);
    f.m = m;
    f.n = n;
    f.nnz = nnz;
    f.row_min = m ? INT64_MAX : 0;
    double sumsq = 0, dist = 0;
    int64_t near = 0, pairs = 0;
    for (int b = 0; m > 0 && b < nparts; b++) { /* in order: the same sums for every thread count */
        const spx_feature_sums *p = &parts[b];
        if (p->row_min < f.row_min) f.row_min = p->row_min;
        if (p->row_max > f.row_max) f.row_max = p->row_max;
        if (p->bandwidth > f.bandwidth) f.bandwidth = p->bandwidth;
        f.empty_rows += p->empty;
        sumsq += p->sumsq;
        dist += p->dist;
        near += p->near;
        pairs += p->pairs;
    }
    if (m) {
        f.row_mean = (double)nnz / m;
        double var = sumsq / m - f.row_mean * f.row_mean;
        f.row_stddev = var > 0 ? sqrt(var) : 0.0;
        f.row_cv = f.row_mean > 0 ? f.row_stddev / f.row_mean : 0.0;
    }
    int32_t dim = m > n ? m : n;
    f.diag_distance = nnz && dim ? dist / (double)nnz / dim : 0.0;
    f.col_near = pairs ? (double)near / (double)pairs : 1.0;
    *out = f;
}

spx_status spx_features_compute_threads(const spx_csr *A, int threads, spx_features *out)
{
    if (!A || !out) return SPX_ERR_ARG;
    spx_feature_sums parts[FEATURE_BLOCKS];
    const int nb = A->m < FEATURE_BLOCKS ? (A->m > 0 ? A->m : 1) : FEATURE_BLOCKS;
    const int nt = A->nnz >= FEATURE_PARALLEL_MIN_NNZ && threads > 1 ? threads : 1;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
    for (int b = 0; b < nb; b++) {
        const int32_t r0 = b == 0 ? 0 : row_at(A, A->nnz * b / nb);
        const int32_t r1 = b == nb - 1 ? A->m : row_at(A, A->nnz * (b + 1) / nb);
        part_rows(A, r0, r1 > r0 ? r1 : r0, &parts[b]);
    }
    spx_features_finish(A->m, A->n, A->nnz, parts, nb, out);
    return SPX_OK;
}

spx_status spx_features_compute(const spx_csr *A, spx_features *out)
{
    return spx_features_compute_threads(A, omp_get_max_threads(), out);
}

double spx_features_spread_cols(const spx_features *f)
{
    const double s = 3.0 * f->diag_distance;
    return (double)f->n * (s < 1.0 ? s : 1.0);
}
