/* src/matrix/features.c: a matrix's features (row-length statistics, empty rows, bandwidth,
 * distance from the diagonal, column locality), one pass, no allocation; in parallel over
 * fixed blocks of equal nonzeros whose partial sums are added in block order, so the result
 * is the same bit for bit whatever the thread count. */
#include <math.h>
#include <omp.h>
#include <string.h>

#include "core/ctx.h"
#include "matrix/features.h"
#include "matrix/features_sample.h"

/* Blocks of the pass (each ~nnz / FEATURE_BLOCKS entries; their sums are kept on the stack)
 * and the size below which one thread does it all (a parallel region costs ~10 us). */
#define FEATURE_BLOCKS 256
#define FEATURE_PARALLEL_MIN_NNZ 200000

/* Adds entry k of row i (whose first entry is row_start) to the column measures of *p: |j - i|
 * to the bandwidth and the summed distance and, when it follows an entry of its row, a pair,
 * near when within SPX_FEATURES_NEAR_COLS of that entry. */
static void add_entry(const spx_csr *A, int32_t i, int64_t row_start, int64_t k, spx_feature_sums *p)
{
    int64_t d = (int64_t)A->colind[k] - i;
    if (d < 0) d = -d;
    if (d > p->bandwidth) p->bandwidth = d;
    p->dist += (double)d;
    if (k > row_start) {
        p->pairs++;
        if ((int64_t)A->colind[k] - A->colind[k - 1] <= SPX_FEATURES_NEAR_COLS) p->near++;
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

/* Zeroes *p for a part about to be summed (row_min INT64_MAX: no row yet). */
static void part_init(spx_feature_sums *p)
{
    memset(p, 0, sizeof *p);
    p->row_min = INT64_MAX;
}

/* Adds one row of len entries to the row-length sums of *p. */
static void add_row_length(spx_feature_sums *p, int64_t len)
{
    if (len < p->row_min) p->row_min = len;
    if (len > p->row_max) p->row_max = len;
    p->empty += len == 0;
    p->sumsq += (double)len * (double)len;
}

/* Sums the row lengths of rows [r0, r1) into *p (the column sums left 0). */
static void part_row_lengths(const spx_csr *A, int32_t r0, int32_t r1, spx_feature_sums *p)
{
    part_init(p);
    for (int32_t i = r0; i < r1; i++) add_row_length(p, A->rowptr[i + 1] - A->rowptr[i]);
}

/* Sums rows [r0, r1) into *p in one pass: their lengths and every entry's columns. */
static void part_rows(const spx_csr *A, int32_t r0, int32_t r1, spx_feature_sums *p)
{
    part_init(p);
    for (int32_t i = r0; i < r1; i++) {
        const int64_t b = A->rowptr[i], e = A->rowptr[i + 1];
        add_row_length(p, e - b);
        for (int64_t k = b; k < e; k++) add_entry(A, i, b, k, p);
    }
}

/* Adds the column measures of samples [t0, t1) of S (features_sample.h) to *p, as the device
 * takes them: the entry's |j - i|, and whether it follows an entry of its row (a pair) within
 * SPX_FEATURES_NEAR_COLS. */
static void part_samples(const spx_csr *A, int64_t t0, int64_t t1, int64_t S, spx_feature_sums *p)
{
    for (int64_t t = t0; t < t1; t++) {
        const int64_t k = spx_features_sample_entry(t, S, A->nnz);
        const int32_t i = row_at(A, k + 1) - 1; /* the row holding entry k */
        add_entry(A, i, A->rowptr[i], k, p);
    }
    if (S < A->nnz) p->dist *= (double)A->nnz / (double)S; /* a mean of S, as over nnz */
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

spx_status spx_features_compute_sampled_threads(const spx_csr *A, int threads, spx_features *out)
{
    if (!A || !out) return SPX_ERR_ARG;
    if (A->nnz <= SPX_FEATURES_COL_SAMPLES) return spx_features_compute_threads(A, threads, out);
    spx_feature_sums parts[FEATURE_BLOCKS];
    const int nb = A->m < FEATURE_BLOCKS ? (A->m > 0 ? A->m : 1) : FEATURE_BLOCKS;
    const int64_t S = SPX_FEATURES_COL_SAMPLES;
    const int nt = threads > 1 ? threads : 1;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
    for (int b = 0; b < nb; b++) {
        part_row_lengths(A, (int32_t)((int64_t)A->m * b / nb), (int32_t)((int64_t)A->m * (b + 1) / nb), &parts[b]);
        part_samples(A, S * b / nb, S * (b + 1) / nb, S, &parts[b]);
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
