/* src/formats/hbp/hbp_bands.c: hbp's band layout on the host (hbp_bands.h): the band rule,
 * the host build (OpenMP over rows; the result does not depend on the thread count), the
 * bands back to CSR, the CPU SpMV, traffic and statistics. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "core/ctx.h"
#include "formats/csr/csr_tuning.h"
#include "formats/hbp/hbp_bands.h"
#include "formats/hbp/hbp_tuning.h"

int32_t spx_hbp_band_width(int64_t n, int value_bytes, const spx_features *feat)
{
    int64_t k = 2;
    if (!feat || feat->diag_distance > SPX_HBP_BAND_MIN_SPREAD) {
        const int64_t x_bytes = n * (int64_t)value_bytes;
        k = (x_bytes + SPX_HBP_BAND_SEGMENT_BYTES - 1) / SPX_HBP_BAND_SEGMENT_BYTES;
        k = k < 2 ? 2 : k;
    }
    int64_t w = (n + k - 1) / k;
    w = (w + SPX_HBP_BAND_ALIGN - 1) / SPX_HBP_BAND_ALIGN * SPX_HBP_BAND_ALIGN;
    if (w < SPX_HBP_BAND_ALIGN) w = SPX_HBP_BAND_ALIGN;
    return w > INT32_MAX ? INT32_MAX : (int32_t)w;
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

void spx_hbp_band_row_stats(spx_csr_fmt *band, int64_t row_max, int64_t sum_sq)
{
    const double m = band->m > 0 ? (double)band->m : 1.0;
    const double mean = (double)band->nnz / m, var = (double)sum_sq / m - mean * mean;
    band->row_max = row_max;
    band->row_mean = mean;
    band->row_cv = mean > 0.0 && var > 0.0 ? sqrt(var) / mean : 0.0;
    /* cols 0: a band is already one column block of the matrix, never csr's colblock */
    band->algo = SPX_HBP_BAND_CSR_ALGO != SPX_CSR_AUTO
                     ? (spx_csr_algo)SPX_HBP_BAND_CSR_ALGO
                     : spx_csr_auto_algo(band->nnz, 0, band->row_mean, band->row_max, band->row_cv);
}

void spx_hbp_bands_destroy(spx_ctx *ctx, spx_hbp_bands *B)
{
    if (!B) return;
    for (int32_t k = 0; B->band && k < B->count; k++) spx_csr_fmt_destroy(ctx, B->band[k]);
    spx_free(ctx, B->band);
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

/* Row pointers from the counts, the band's size and row statistics; SPX_ERR_OVERFLOW when a
 * band holds more than INT32_MAX entries. */
static spx_status finish_band(spx_ctx *ctx, spx_csr_fmt *F, int32_t k)
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
    spx_hbp_band_row_stats(F, row_max, sum_sq);
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

spx_status spx_hbp_bands_build(spx_ctx *ctx, const spx_csr *A, spx_precision prec, int32_t width,
                               spx_hbp_bands **out)
{
    if (width < 1) return spx_fail(ctx, SPX_ERR_ARG, "hbp: band width %d must be positive", width);
    spx_hbp_bands *B = NULL;
    spx_status s = bands_new(ctx, A, prec, width, &B);
    if (s) return s;
    count_rows(ctx, A, B);
    for (int32_t k = 0; k < B->count && !s; k++) s = finish_band(ctx, B->band[k], k);
    if (!s) s = alloc_entries(ctx, B);
    if (!s) s = place_rows(ctx, A, B);
    if (s) {
        spx_hbp_bands_destroy(ctx, B);
        return s;
    }
    *out = B;
    return SPX_OK;
}

spx_status spx_hbp_bands_merge(spx_ctx *ctx, spx_csr *const *parts, int32_t count, int32_t width, int32_t m,
                               int32_t n, spx_csr **out)
{
    int64_t nnz = 0;
    for (int32_t k = 0; k < count; k++) nnz += parts[k]->nnz;
    spx_csr *A = NULL;
    spx_status s = spx_csr_alloc(ctx, m, n, nnz, &A);
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
                A->colind[pos] = parts[k]->colind[e] + k * width;
                A->val[pos] = parts[k]->val[e];
            }
    }
    A->meta.stored_entries = nnz;
    *out = A;
    return SPX_OK;
}

spx_status spx_hbp_bands_to_csr(spx_ctx *ctx, const spx_hbp_bands *B, spx_csr **out)
{
    spx_csr **parts = spx_calloc_array(ctx, (size_t)B->count, sizeof *parts);
    if (!parts) return spx_fail_nomem(ctx, "hbp band parts");
    spx_status s = SPX_OK;
    for (int32_t k = 0; k < B->count && !s; k++) s = spx_csr_fmt_to_csr(ctx, B->band[k], &parts[k]);
    if (!s) s = spx_hbp_bands_merge(ctx, parts, B->count, B->width, B->m, B->n, out);
    for (int32_t k = 0; k < B->count; k++) spx_csr_destroy(&parts[k]);
    spx_free(ctx, parts);
    return s;
}

spx_status spx_hbp_bands_spmv_cpu(spx_ctx *ctx, const spx_hbp_bands *B, spx_precision prec, double a,
                                  const void *x, double b, void *y)
{
    const size_t vb = spx_precision_bytes(prec);
    spx_status s = SPX_OK;
    for (int32_t k = 0; k < B->count && !s; k++) {
        if (k > 0 && B->band[k]->nnz == 0) continue; /* adds nothing to y */
        const void *xk = x ? (const char *)x + (size_t)k * (size_t)B->width * vb : NULL;
        s = spx_csr_fmt_spmv_cpu(ctx, B->band[k], prec, a, xk, k == 0 ? b : 1.0, y);
    }
    return s;
}

double spx_hbp_bands_bytes(const spx_hbp_bands *B)
{
    const double y_again = (double)B->m * (double)spx_precision_bytes(B->precision);
    double bytes = spx_csr_fmt_bytes(B->band[0]);
    for (int32_t k = 1; k < B->count; k++)
        if (B->band[k]->nnz > 0) bytes += spx_csr_fmt_bytes(B->band[k]) + y_again;
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
    spx_stat_text(out, "layout", "column bands (L2-sized x segments), csr kernels per band");
    spx_stat_num(out, "bands", B->count);
    spx_stat_num(out, "band_cols_W", B->width);
    spx_stat_num(out, "x_segment_bytes", (double)B->width * (double)spx_precision_bytes(B->precision));
    spx_stat_num(out, "band_nnz_min", (double)lo);
    spx_stat_num(out, "band_nnz_max", (double)hi);
    spx_stat_text(out, "band_kernels", algos);
    spx_stat_num(out, "bytes_per_nnz", B->nnz ? spx_hbp_bands_bytes(B) / (double)B->nnz : 0.0);
}
