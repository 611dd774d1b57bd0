/* src/formats/hbp/hbp_bands.h: hbp's band layout (beyond the paper; docs/formats/hbp.md,
 * "Bands"): the 2D partition with one row panel of all rows and column blocks sized to the L2
 * cache instead of shared memory. Each band is a csr layout of the band's columns (indices
 * local to the band), run by the csr kernels one band after the other: band 0 writes
 * y = a*A_0*x_0 + b*y, every later band adds a*A_k*x_k into y, so x is gathered from one
 * L2-sized segment at a time and y partials stream through memory. Built on the host here, on
 * the device in hbp_bands_cuda.cu; both cut the same bands and resolve the same csr kernels. */
#ifndef SPX_FORMATS_HBP_BANDS_H
#define SPX_FORMATS_HBP_BANDS_H

#include <stdint.h>
#include "formats/csr/csr.h"
#include "spmv/format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Invariants: count >= 1; width >= 1, a multiple of SPX_HBP_BAND_ALIGN (hbp_tuning.h) unless
 * chosen by a test; band k holds the entries with columns in [k*width, min(n, (k+1)*width)),
 * columns stored minus k*width, in the row order and column order of the source; every band
 * is an m-row csr layout (csr.h's invariants) in the bands' precision, its algorithm the one
 * csr's `auto` picks for its own row statistics (spx_hbp_band_row_stats). */
typedef struct spx_hbp_bands {
    int32_t m, n;
    int64_t nnz;
    spx_precision precision;
    int32_t count, width;
    spx_csr_fmt **band; /* [count] */
} spx_hbp_bands;

/* The band width the rule gives an n-column matrix with value_bytes values: x cut into
 * segments of SPX_HBP_BAND_SEGMENT_BYTES where the rows' entries spread beyond
 * SPX_HBP_BAND_MIN_SPREAD of the columns (feat NULL: assumed), else two bands (x is reused
 * near the diagonal: more bands only add y traffic); at least two bands where n allows;
 * widths rounded up to SPX_HBP_BAND_ALIGN columns. */
int32_t spx_hbp_band_width(int64_t n, int value_bytes, const spx_features *feat);
/* Bands of width columns over n columns (1 for n = 0). */
int32_t spx_hbp_band_count(int32_t n, int32_t width);
/* The columns of band k: width, or what is left of n for the last band (0 for n = 0). */
int32_t spx_hbp_band_cols(int32_t n, int32_t width, int32_t k);

/* A band's csr row statistics (max, mean, cv) from its m row lengths' maximum and sum of
 * squares, and the csr algorithm `auto` resolves to for them; shared by both builds so they
 * pick the same kernel. */
void spx_hbp_band_row_stats(spx_csr_fmt *band, int64_t row_max, int64_t sum_sq);

/* Builds the bands of A (values in prec) with that width (> 0). */
spx_status spx_hbp_bands_build(spx_ctx *ctx, const spx_csr *A, spx_precision prec, int32_t width,
                               spx_hbp_bands **out);
void spx_hbp_bands_destroy(spx_ctx *ctx, spx_hbp_bands *B);
/* The bands back to one library CSR (fp32 values widened). */
spx_status spx_hbp_bands_to_csr(spx_ctx *ctx, const spx_hbp_bands *B, spx_csr **out);
/* Concatenates count library CSRs of m rows, part k holding columns [k*width, ...) with local
 * indices, into one m x n CSR; shared by the host and device round trips. */
spx_status spx_hbp_bands_merge(spx_ctx *ctx, spx_csr *const *parts, int32_t count, int32_t width, int32_t m,
                               int32_t n, spx_csr **out);
/* y = a*A*x + b*y on the host, band after band (csr's OpenMP loop on each; later bands with
 * no entries are skipped). In fp32 y is rounded to fp32 between bands. */
spx_status spx_hbp_bands_spmv_cpu(spx_ctx *ctx, const spx_hbp_bands *B, spx_precision prec, double a,
                                  const void *x, double b, void *y);
/* Minimum bytes of one SpMV with b = 0: each band's csr traffic, plus y read again by every
 * later band that has entries. Needs only the bands' headers. */
double spx_hbp_bands_bytes(const spx_hbp_bands *B);
/* The stats slot's figures: band count and width, entries per band, the bands' csr kernels. */
void spx_hbp_bands_stats(const spx_hbp_bands *B, spx_stat_list *out);

#ifdef __cplusplus
}
#endif
#endif
