/* src/formats/hbp/hbp_bands.c: hbp's band layout on the host (hbp_bands.h): the band and hot
 * rules, the host build (the hot-first numbering and renumbered copy where hot; OpenMP over
 * rows; the result does not depend on the thread count), the bands back to CSR, the CPU SpMV
 * (x gathered first where hot), traffic and statistics. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ctx.h"
#include "formats/csr/csr_tuning.h"
#include "formats/hbp/hbp_bands.h"
#include "formats/hbp/hbp_tuning.h"

/* w rounded up to SPX_HBP_BAND_ALIGN columns (at least that many), capped at INT32_MAX. */
static int32_t align_width(int64_t w)
{
    w = (w + SPX_HBP_BAND_ALIGN - 1) / SPX_HBP_BAND_ALIGN * SPX_HBP_BAND_ALIGN;
    if (w < SPX_HBP_BAND_ALIGN) w = SPX_HBP_BAND_ALIGN;
    return w > INT32_MAX ? INT32_MAX : (int32_t)w;
}

/* Whether the entries spread over the columns (feat NULL: assumed). */
static int spread(const spx_features *feat)
{
    return !feat || feat->diag_distance > SPX_HBP_BAND_MIN_SPREAD;
}

int32_t spx_hbp_band_width(int64_t n, int value_bytes, const spx_features *feat)
{
    int64_t k = 2;
    if (spread(feat)) {
        const int64_t x_bytes = n * (int64_t)value_bytes;
        k = (x_bytes + SPX_HBP_BAND_SEGMENT_BYTES - 1) / SPX_HBP_BAND_SEGMENT_BYTES;
        k = k < 2 ? 2 : k;
    }
    return align_width((n + k - 1) / k);
}

int32_t spx_hbp_auto_width(int64_t n, int value_bytes, const spx_features *feat)
{
    const int32_t w = spx_hbp_band_width(n, value_bytes, feat);
    if (n > INT32_MAX || spx_hbp_band_count((int32_t)n, w) > SPX_HBP_AUTO_ONE_BAND_MAX) return w;
    return align_width(n > 0 ? n : 1);
}

int32_t spx_hbp_plain_width(int64_t n, int value_bytes, const spx_features *feat, spx_hbp_hot_mode mode)
{
    return mode == SPX_HBP_HOT_RULE ? spx_hbp_auto_width(n, value_bytes, feat)
                                    : spx_hbp_band_width(n, value_bytes, feat);
}

int spx_hbp_hot_considered(int64_t n, int value_bytes, const spx_features *feat)
{
    return spread(feat) && n * (int64_t)value_bytes > SPX_HBP_BAND_SEGMENT_BYTES;
}

int64_t spx_hbp_hot_top_cols(int64_t used)
{
    const int64_t t = used / SPX_HBP_HOT_TOP_DEN;
    return t < 1 ? 1 : t;
}

int32_t spx_hbp_hot_top_count(int32_t used)
{
    const int64_t t = spx_hbp_hot_top_cols(used);
    return t < used ? (int32_t)t : used;
}

int spx_hbp_hot_wanted(int64_t nnz, int64_t top_nnz)
{
    return nnz > 0 && (double)top_nnz >= SPX_HBP_HOT_MIN_SHARE * (double)nnz;
}

int32_t spx_hbp_hot_width(int32_t cols, int value_bytes)
{
    const int64_t segment = SPX_HBP_HOT_SEGMENT_BYTES / value_bytes, half = ((int64_t)cols + 1) / 2;
    return align_width(half > segment ? half : segment);
}

int32_t spx_hbp_band_count(int32_t n, int32_t width)
{
    const int64_t k = ((int64_t)n + width - 1) / width;
    return k < 1 ? 1 : (int32_t)k;
}

int32_t spx_hbp_band_cols(int32_t n, int32_t width, int32_t k)
{
    const int64_t lo = (int64_t)k * width, hi = lo + width < n ? lo + width : n;
    return (int32_t)(hi > lo ? hi - lo : 0);
}

void spx_hbp_band_row_stats(spx_csr_fmt *band, int64_t row_max, int64_t sum_sq, int whole)
{
    const double m = band->m > 0 ? (double)band->m : 1.0;
    const double mean = (double)band->nnz / m, var = (double)sum_sq / m - mean * mean;
    band->row_max = row_max;
    band->row_mean = mean;
    band->row_cv = mean > 0.0 && var > 0.0 ? sqrt(var) / mean : 0.0;
    /* one of several bands is already one column block of the matrix, never csr's colblock
       (cols 0); the only band is the matrix, where csr's auto may take it */
    band->algo = SPX_HBP_BAND_CSR_ALGO != SPX_CSR_AUTO
                     ? (spx_csr_algo)SPX_HBP_BAND_CSR_ALGO
                     : spx_csr_auto_algo(band->nnz, whole ? band->n : 0, band->row_mean, band->row_max, band->row_cv);
}

void spx_hbp_bands_destroy(spx_ctx *ctx, spx_hbp_bands *B)
{
    if (!B) return;
    for (int32_t k = 0; B->band && k < B->count; k++) spx_csr_fmt_destroy(ctx, B->band[k]);
    spx_free(ctx, B->band);
    spx_free(ctx, B->col_of);
    spx_free(ctx, B);
}

/* B with count empty bands (headers set, row pointers zeroed, no entries yet). */
static spx_status bands_new(spx_ctx *ctx, const spx_csr *A, spx_precision prec, int32_t width, spx_hbp_bands **out)
{
    spx_hbp_bands *B = spx_calloc_array(ctx, 1, sizeof *B);
    if (!B) return spx_fail_nomem(ctx, "hbp bands");
    B->m = A->m;
    B->n = A->n;
    B->nnz = A->nnz;
    B->precision = prec;
    B->width = width;
    B->cols = A->n;
    B->count = spx_hbp_band_count(A->n, width);
    B->band = spx_calloc_array(ctx, (size_t)B->count, sizeof *B->band);
    spx_status s = B->band ? SPX_OK : spx_fail_nomem(ctx, "hbp band table");
    for (int32_t k = 0; k < B->count && !s; k++) {
        spx_csr_fmt *F = B->band[k] = spx_calloc_array(ctx, 1, sizeof *F);
        if (!F || !(F->rowptr = spx_calloc_array(ctx, (size_t)A->m + 1, sizeof *F->rowptr))) {
            s = spx_fail_nomem(ctx, "hbp band row pointers");
            break;
        }
        F->m = A->m;
        F->n = spx_hbp_band_cols(A->n, width, k);
        F->precision = prec;
    }
    if (s) {
        spx_hbp_bands_destroy(ctx, B);
        return s;
    }
    *out = B;
    return SPX_OK;
}

/* Counts each row's entries per band into the bands' rowptr[i + 1]. */
static void count_rows(spx_ctx *ctx, const spx_csr *A, spx_hbp_bands *B)
{
#pragma omp parallel for num_threads(spx_ctx_threads(ctx)) schedule(static)
    for (int32_t i = 0; i < A->m; i++)
        for (int64_t e = A->rowptr[i]; e < A->rowptr[i + 1]; e++) B->band[A->colind[e] / B->width]->rowptr[i + 1]++;
}

/* Row pointers from the counts, the band's size and row statistics (band k of count);
 * SPX_ERR_OVERFLOW when a band holds more than INT32_MAX entries. */
static spx_status finish_band(spx_ctx *ctx, spx_csr_fmt *F, int32_t k, int32_t count)
{
    int64_t sum = 0, row_max = 0, sum_sq = 0;
    for (int32_t i = 0; i < F->m; i++) {
        const int64_t len = F->rowptr[i + 1];
        row_max = len > row_max ? len : row_max;
        sum_sq += len * len;
        sum += len;
        if (sum > INT32_MAX)
            return spx_fail(ctx, SPX_ERR_OVERFLOW, "hbp: band %d holds more than %d entries (int32 csr bands)", k,
                            INT32_MAX);
        F->rowptr[i + 1] = (int32_t)sum;
    }
    F->nnz = sum;
    spx_hbp_band_row_stats(F, row_max, sum_sq, count == 1);
    return SPX_OK;
}

/* The bands' column and value arrays. */
static spx_status alloc_entries(spx_ctx *ctx, spx_hbp_bands *B)
{
    for (int32_t k = 0; k < B->count; k++) {
        spx_csr_fmt *F = B->band[k];
        F->colind = spx_malloc_array(ctx, (size_t)F->nnz, sizeof *F->colind);
        if (B->precision == SPX_FP32)
            F->val32 = spx_malloc_array(ctx, (size_t)F->nnz, sizeof *F->val32);
        else
            F->val64 = spx_malloc_array(ctx, (size_t)F->nnz, sizeof *F->val64);
        if (F->nnz && (!F->colind || (!F->val32 && !F->val64))) return spx_fail_nomem(ctx, "hbp band entries");
    }
    return SPX_OK;
}

/* Copies row i's entries into its bands (any column order: the row is walked twice, once to
 * place, once to clear the per-band cursors in `next`). */
static void place_row(const spx_csr *A, spx_hbp_bands *B, int32_t i, int32_t *next)
{
    for (int64_t e = A->rowptr[i]; e < A->rowptr[i + 1]; e++) {
        const int32_t k = A->colind[e] / B->width;
        spx_csr_fmt *F = B->band[k];
        const int64_t pos = F->rowptr[i] + next[k]++;
        F->colind[pos] = A->colind[e] - k * B->width;
        if (F->val32)
            F->val32[pos] = (float)A->val[e];
        else
            F->val64[pos] = A->val[e];
    }
    for (int64_t e = A->rowptr[i]; e < A->rowptr[i + 1]; e++) next[A->colind[e] / B->width] = 0;
}

/* Places every row (OpenMP over rows, a cursor array per thread). */
static spx_status place_rows(spx_ctx *ctx, const spx_csr *A, spx_hbp_bands *B)
{
    const int nt = spx_ctx_threads(ctx);
    int32_t *next = spx_calloc_array(ctx, (size_t)nt * (size_t)B->count, sizeof *next);
    if (!next) return spx_fail_nomem(ctx, "hbp band cursors");
#pragma omp parallel num_threads(nt)
    {
        int32_t *mine = next + (size_t)omp_get_thread_num() * (size_t)B->count;
#pragma omp for schedule(static)
        for (int32_t i = 0; i < A->m; i++) place_row(A, B, i, mine);
    }
    spx_free(ctx, next);
    return SPX_OK;
}

/* The bands of A with that width (> 0) in A's column numbers. */
static spx_status build_plain(spx_ctx *ctx, const spx_csr *A, spx_precision prec, int32_t width, spx_hbp_bands **out)
{
    spx_hbp_bands *B = NULL;
    spx_status s = bands_new(ctx, A, prec, width, &B);
    if (s) return s;
    count_rows(ctx, A, B);
    for (int32_t k = 0; k < B->count && !s; k++) s = finish_band(ctx, B->band[k], k, B->count);
    if (!s) s = alloc_entries(ctx, B);
    if (!s) s = place_rows(ctx, A, B);
    if (s) {
        spx_hbp_bands_destroy(ctx, B);
        return s;
    }
    *out = B;
    return SPX_OK;
}

/* One entry of a row being sorted: its column, its place in the row (ties keep it), value. */
typedef struct row_entry {
    int32_t col, pos;
    double val;
} row_entry;

static int cmp_row_entry(const void *a, const void *b)
{
    const row_entry *p = a, *q = b;
    if (p->col != q->col) return p->col < q->col ? -1 : 1;
    return (p->pos > q->pos) - (p->pos < q->pos);
}

/* Sorts row i of A by column, equal columns in their order, through tmp (room for the row). */
static void sort_row(spx_csr *A, int32_t i, row_entry *tmp)
{
    const int64_t e0 = A->rowptr[i], len = A->rowptr[i + 1] - e0;
    for (int64_t t = 0; t < len; t++) tmp[t] = (row_entry){A->colind[e0 + t], (int32_t)t, A->val[e0 + t]};
    qsort(tmp, (size_t)len, sizeof *tmp, cmp_row_entry);
    for (int64_t t = 0; t < len; t++) {
        A->colind[e0 + t] = tmp[t].col;
        A->val[e0 + t] = tmp[t].val;
    }
}

/* Rows of at most this many entries are sorted in parallel, each thread with room for one;
 * longer ones after, one at a time, in one buffer of the longest row's size (so the scratch is
 * threads x this + the longest row, not threads x the longest row). */
#define SORT_ROW_SHARED_MAX 65536

/* Sorts every row of A by column, equal columns in their order. */
static spx_status sort_rows(spx_ctx *ctx, spx_csr *A)
{
    int64_t row_max = 0;
    for (int32_t i = 0; i < A->m; i++)
        row_max = A->rowptr[i + 1] - A->rowptr[i] > row_max ? A->rowptr[i + 1] - A->rowptr[i] : row_max;
    const int nt = spx_ctx_threads(ctx);
    const int64_t room = row_max < SORT_ROW_SHARED_MAX ? (row_max ? row_max : 1) : SORT_ROW_SHARED_MAX;
    row_entry *tmp = spx_malloc_array(ctx, (size_t)nt * (size_t)room, sizeof *tmp);
    if (!tmp) return spx_fail_nomem(ctx, "hbp row sort");
#pragma omp parallel num_threads(nt)
    {
        row_entry *mine = tmp + (size_t)omp_get_thread_num() * (size_t)room;
#pragma omp for schedule(dynamic, 256)
        for (int32_t i = 0; i < A->m; i++)
            if (A->rowptr[i + 1] - A->rowptr[i] <= room) sort_row(A, i, mine);
    }
    spx_free(ctx, tmp);
    if (row_max <= room) return SPX_OK;
    row_entry *big = spx_malloc_array(ctx, (size_t)row_max, sizeof *big);
    if (!big) return spx_fail_nomem(ctx, "hbp row sort (a long row)");
    for (int32_t i = 0; i < A->m; i++)
        if (A->rowptr[i + 1] - A->rowptr[i] > room) sort_row(A, i, big);
    spx_free(ctx, big);
    return SPX_OK;
}

/* A column and its entry count, ordered hot first: count descending, then column. */
typedef struct col_count {
    int64_t count;
    int32_t col;
} col_count;

static int cmp_col(const void *a, const void *b)
{
    const col_count *p = a, *q = b;
    return (p->col > q->col) - (p->col < q->col);
}

static int cmp_hot(const void *a, const void *b)
{
    const col_count *p = a, *q = b;
    if (p->count != q->count) return p->count > q->count ? -1 : 1;
    return cmp_col(a, b);
}

/* A's columns hot first: *col_of [*cols] the non-empty columns, the top spx_hbp_hot_top_cols
 * of them by descending entry count (ties by column), then the others by column;
 * *top_nnz the entries of the top ones. */
static spx_status hot_order(spx_ctx *ctx, const spx_csr *A, int32_t **col_of, int32_t *cols, int64_t *top_nnz)
{
    col_count *c = spx_calloc_array(ctx, (size_t)A->n, sizeof *c);
    if (!c && A->n) return spx_fail_nomem(ctx, "hbp column counts");
    for (int32_t j = 0; j < A->n; j++) c[j].col = j;
#pragma omp parallel for num_threads(spx_ctx_threads(ctx)) schedule(static)
    for (int64_t e = 0; e < A->nnz; e++) {
#pragma omp atomic
        c[A->colind[e]].count++;
    }
    qsort(c, (size_t)A->n, sizeof *c, cmp_hot);
    int32_t used = 0;
    while (used < A->n && c[used].count > 0) used++;
    const int32_t t = spx_hbp_hot_top_count(used);
    int64_t top = 0;
    for (int32_t j = 0; j < t; j++) top += c[j].count;
    qsort(c + t, (size_t)(used - t), sizeof *c, cmp_col);
    *col_of = spx_malloc_array(ctx, (size_t)(used ? used : 1), sizeof **col_of);
    if (!*col_of) {
        spx_free(ctx, c);
        return spx_fail_nomem(ctx, "hbp hot column order");
    }
    for (int32_t j = 0; j < used; j++) (*col_of)[j] = c[j].col;
    spx_free(ctx, c);
    *cols = used;
    *top_nnz = top;
    return SPX_OK;
}

/* A with its columns renumbered: column col_of[j] becomes j (cols columns), rows sorted. */
static spx_status renumber(spx_ctx *ctx, const spx_csr *A, const int32_t *col_of, int32_t cols, spx_csr **out)
{
    int32_t *new_of = spx_malloc_array(ctx, (size_t)(A->n ? A->n : 1), sizeof *new_of);
    if (!new_of) return spx_fail_nomem(ctx, "hbp column renumbering");
    for (int32_t j = 0; j < cols; j++) new_of[col_of[j]] = j;
    spx_csr *R = NULL;
    spx_status s = spx_csr_alloc(ctx, A->m, cols, A->nnz, &R);
    if (!s) {
        memcpy(R->rowptr, A->rowptr, ((size_t)A->m + 1) * sizeof *R->rowptr);
#pragma omp parallel for num_threads(spx_ctx_threads(ctx)) schedule(static)
        for (int64_t e = 0; e < A->nnz; e++) {
            R->colind[e] = new_of[A->colind[e]];
            R->val[e] = A->val[e];
        }
        R->meta.stored_entries = A->nnz;
        s = sort_rows(ctx, R);
    }
    spx_free(ctx, new_of);
    if (s) {
        spx_csr_destroy(&R);
        return s;
    }
    *out = R;
    return SPX_OK;
}

spx_status spx_hbp_bands_build(spx_ctx *ctx, const spx_csr *A, spx_precision prec, int32_t W,
                               const spx_features *feat, spx_hbp_hot_mode mode, spx_hbp_bands **out)
{
    if (W < 0) return spx_fail(ctx, SPX_ERR_ARG, "hbp: band width %d must not be negative (0: the rule's)", W);
    const int vb = (int)spx_precision_bytes(prec);
    int32_t *col_of = NULL, cols = 0;
    int64_t top = 0;
    int hot = 0;
    spx_status s = SPX_OK;
    if (mode == SPX_HBP_HOT_ALWAYS || (mode == SPX_HBP_HOT_RULE && spx_hbp_hot_considered(A->n, vb, feat))) {
        s = hot_order(ctx, A, &col_of, &cols, &top);
        if (s) return s;
        hot = mode == SPX_HBP_HOT_ALWAYS || spx_hbp_hot_wanted(A->nnz, top);
    }
    if (!hot) {
        spx_free(ctx, col_of);
        return build_plain(ctx, A, prec, W ? W : spx_hbp_plain_width(A->n, vb, feat, mode), out);
    }
    spx_csr *R = NULL;
    spx_hbp_bands *B = NULL;
    s = renumber(ctx, A, col_of, cols, &R);
    if (!s) s = build_plain(ctx, R, prec, W ? W : spx_hbp_hot_width(cols, vb), &B);
    spx_csr_destroy(&R);
    if (s) {
        spx_free(ctx, col_of);
        return s;
    }
    B->n = A->n;
    B->hot = 1;
    B->col_of = col_of;
    *out = B;
    return SPX_OK;
}

spx_status spx_hbp_bands_merge(spx_ctx *ctx, spx_csr *const *parts, int32_t count, int32_t width, int32_t m,
                               int32_t cols, const int32_t *col_of, int32_t n, spx_csr **out)
{
    int64_t nnz = 0;
    for (int32_t k = 0; k < count; k++) nnz += parts[k]->nnz;
    spx_csr *A = NULL;
    spx_status s = spx_csr_alloc(ctx, m, col_of ? n : cols, nnz, &A);
    if (s) return s;
    for (int32_t i = 0; i < m; i++) {
        int64_t len = 0;
        for (int32_t k = 0; k < count; k++) len += parts[k]->rowptr[i + 1] - parts[k]->rowptr[i];
        A->rowptr[i + 1] = A->rowptr[i] + len;
    }
#pragma omp parallel for num_threads(spx_ctx_threads(ctx)) schedule(static)
    for (int32_t i = 0; i < m; i++) {
        int64_t pos = A->rowptr[i];
        for (int32_t k = 0; k < count; k++)
            for (int64_t e = parts[k]->rowptr[i]; e < parts[k]->rowptr[i + 1]; e++, pos++) {
                const int32_t c = parts[k]->colind[e] + k * width;
                A->colind[pos] = col_of ? col_of[c] : c;
                A->val[pos] = parts[k]->val[e];
            }
    }
    A->meta.stored_entries = nnz;
    if (col_of) s = sort_rows(ctx, A);
    if (s) {
        spx_csr_destroy(&A);
        return s;
    }
    *out = A;
    return SPX_OK;
}

spx_status spx_hbp_bands_to_csr(spx_ctx *ctx, const spx_hbp_bands *B, spx_csr **out)
{
    spx_csr **parts = spx_calloc_array(ctx, (size_t)B->count, sizeof *parts);
    if (!parts) return spx_fail_nomem(ctx, "hbp band parts");
    spx_status s = SPX_OK;
    for (int32_t k = 0; k < B->count && !s; k++) s = spx_csr_fmt_to_csr(ctx, B->band[k], &parts[k]);
    if (!s) s = spx_hbp_bands_merge(ctx, parts, B->count, B->width, B->m, B->cols, B->col_of, B->n, out);
    for (int32_t k = 0; k < B->count; k++) spx_csr_destroy(&parts[k]);
    spx_free(ctx, parts);
    return s;
}

/* xh[j] = x[col_of[j]] for j < cols, in the bands' precision. */
static void gather_hot(spx_ctx *ctx, const spx_hbp_bands *B, const void *x, void *xh)
{
    const int32_t *col_of = B->col_of;
    if (B->precision == SPX_FP32) {
        const float *xs = x;
        float *xd = xh;
#pragma omp parallel for num_threads(spx_ctx_threads(ctx)) schedule(static)
        for (int32_t j = 0; j < B->cols; j++) xd[j] = xs[col_of[j]];
    } else {
        const double *xs = x;
        double *xd = xh;
#pragma omp parallel for num_threads(spx_ctx_threads(ctx)) schedule(static)
        for (int32_t j = 0; j < B->cols; j++) xd[j] = xs[col_of[j]];
    }
}

spx_status spx_hbp_bands_spmv_cpu(spx_ctx *ctx, const spx_hbp_bands *B, spx_precision prec, double a,
                                  const void *x, double b, void *y)
{
    const size_t vb = spx_precision_bytes(prec);
    void *xh = NULL;
    if (B->hot && x) {
        if (prec != B->precision) return spx_fail(ctx, SPX_ERR_ARG, "hbp: precision differs from the plan's");
        xh = spx_malloc_array(ctx, (size_t)(B->cols ? B->cols : 1), vb);
        if (!xh) return spx_fail_nomem(ctx, "hbp hot x");
        gather_hot(ctx, B, x, xh);
        x = xh;
    }
    spx_status s = SPX_OK;
    for (int32_t k = 0; k < B->count && !s; k++) {
        if (k > 0 && B->band[k]->nnz == 0) continue; /* adds nothing to y */
        const void *xk = x ? (const char *)x + (size_t)k * (size_t)B->width * vb : NULL;
        s = spx_csr_fmt_spmv_cpu(ctx, B->band[k], prec, a, xk, k == 0 ? b : 1.0, y);
    }
    spx_free(ctx, xh);
    return s;
}

double spx_hbp_bands_bytes(const spx_hbp_bands *B)
{
    const double y_again = (double)B->m * (double)spx_precision_bytes(B->precision);
    double bytes = spx_csr_fmt_bytes(B->band[0]);
    for (int32_t k = 1; k < B->count; k++)
        if (B->band[k]->nnz > 0) bytes += spx_csr_fmt_bytes(B->band[k]) + y_again;
    if (B->hot) /* the gather: col_of and x read, the hot x written */
        bytes += (double)B->cols * (double)(sizeof(int32_t) + 2 * spx_precision_bytes(B->precision));
    return bytes;
}

void spx_hbp_bands_stats(const spx_hbp_bands *B, spx_stat_list *out)
{
    int64_t lo = INT64_MAX, hi = 0;
    int kinds = 0; /* bit per csr algorithm the bands run */
    for (int32_t k = 0; k < B->count; k++) {
        lo = B->band[k]->nnz < lo ? B->band[k]->nnz : lo;
        hi = B->band[k]->nnz > hi ? B->band[k]->nnz : hi;
        kinds |= 1 << B->band[k]->algo;
    }
    char algos[96] = "";
    for (int a = 1; a < SPX_CSR_ALGO_COUNT; a++)
        if (kinds & (1 << a))
            snprintf(algos + strlen(algos), sizeof algos - strlen(algos), "%s%s", algos[0] ? "," : "",
                     spx_csr_algo_names[a]);
    spx_stat_text(out, "layout", B->hot ? "column bands over hot-first columns, csr kernels per band"
                                        : "column bands (L2-sized x segments), csr kernels per band");
    spx_stat_num(out, "bands", B->count);
    spx_stat_num(out, "band_cols_W", B->width);
    spx_stat_num(out, "x_segment_bytes", (double)B->width * (double)spx_precision_bytes(B->precision));
    spx_stat_num(out, "band_nnz_min", (double)lo);
    spx_stat_num(out, "band_nnz_max", (double)hi);
    spx_stat_text(out, "band_kernels", algos);
    spx_stat_num(out, "hot_columns", B->hot);
    spx_stat_num(out, "band_columns", B->cols);
    spx_stat_num(out, "bytes_per_nnz", B->nnz ? spx_hbp_bands_bytes(B) / (double)B->nnz : 0.0);
}
