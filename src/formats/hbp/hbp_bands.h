/* src/formats/hbp/hbp_bands.h: hbp's band layout (beyond the paper; docs/formats/hbp.md,
 * "Bands"): the 2D partition with one row panel of all rows and column blocks sized to the L2
 * cache instead of shared memory. Each band is a csr layout of the band's columns (indices
 * local to the band), run by the csr kernels one band after the other: band 0 writes
 * y = a*A_0*x_0 + b*y, every later band adds a*A_k*x_k into y, so x is gathered from one
 * L2-sized segment at a time and y partials stream through memory. Built on the host here, on
 * the device in hbp_bands_cuda.cu; both cut the same bands and resolve the same csr kernels.
 * Hot columns (beyond the paper, docs/formats/hbp.md "Hot columns"): the columns may first be
 * renumbered hot first (the top columns by descending entry count, then the others in their
 * order), empty ones dropped, so the x values most gathered sit together in a few cache lines
 * and one band; each SpMV then gathers x into that order. */
#ifndef SPX_FORMATS_HBP_BANDS_H
#define SPX_FORMATS_HBP_BANDS_H

#include <stdint.h>
#include "formats/csr/csr.h"
#include "spmv/format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the build numbers the columns the bands cut. */
typedef enum spx_hbp_hot_mode {
    SPX_HBP_HOT_NEVER,  /* the source's numbers (algorithm band) */
    SPX_HBP_HOT_ALWAYS, /* hot first: the top spx_hbp_hot_top_cols by descending entry count,
                           ties by column, then the others by column, empty columns dropped
                           (algorithm hot) */
    SPX_HBP_HOT_RULE    /* hot first where spx_hbp_hot_considered and spx_hbp_hot_wanted say
                           so (algorithm auto) */
} spx_hbp_hot_mode;

/* Invariants: count >= 1; width >= 1, a multiple of SPX_HBP_BAND_ALIGN (hbp_tuning.h) unless
 * chosen by a test; cols = n, or (hot) the source's non-empty columns, renumbered 0..cols-1
 * with col_of[j] the source column of column j (for j below spx_hbp_hot_top_cols(cols) entry
 * counts non-increasing in j, ties by source column; from there source columns ascending, none
 * with more entries than the last top one); band k holds the entries with (renumbered) columns in [k*width,
 * min(cols, (k+1)*width)), columns stored minus k*width, in the row order of the source and
 * each row's columns ascending (the source's column order where not hot); every band is an
 * m-row csr layout (csr.h's invariants) in the bands' precision, its algorithm the one csr's
 * `auto` picks for its own row statistics (and its columns where it is the only band:
 * spx_hbp_band_row_stats). */
typedef struct spx_hbp_bands {
    int32_t m, n;
    int64_t nnz;
    spx_precision precision;
    int32_t count, width;
    int32_t hot;        /* 1: columns renumbered hot first */
    int32_t cols;       /* the columns the bands cut */
    int32_t *col_of;    /* [cols] where hot (host layouts; NULL in a device layout's header) */
    spx_csr_fmt **band; /* [count] */
} spx_hbp_bands;

/* The band width the rule gives an n-column matrix with value_bytes values: x cut into
 * segments of SPX_HBP_BAND_SEGMENT_BYTES where the rows' entries spread beyond
 * SPX_HBP_BAND_MIN_SPREAD of the columns (feat NULL: assumed), else two bands (x is reused
 * near the diagonal: more bands only add y traffic); at least two bands where n allows;
 * widths rounded up to SPX_HBP_BAND_ALIGN columns. */
int32_t spx_hbp_band_width(int64_t n, int value_bytes, const spx_features *feat);
/* The width `auto`'s plain bands take: spx_hbp_band_width's, or one band (all n columns,
 * aligned) where that would cut at most SPX_HBP_AUTO_ONE_BAND_MAX bands (x fits the L2, or rows
 * stay near the diagonal: a second band only reads y again). */
int32_t spx_hbp_auto_width(int64_t n, int value_bytes, const spx_features *feat);
/* The width of bands over unrenumbered columns built in mode: spx_hbp_auto_width's for the
 * rule's mode (`auto`), spx_hbp_band_width's otherwise. Shared by the host and device builds. */
int32_t spx_hbp_plain_width(int64_t n, int value_bytes, const spx_features *feat, spx_hbp_hot_mode mode);
/* Bands of width columns over n columns (1 for n = 0). */
int32_t spx_hbp_band_count(int32_t n, int32_t width);
/* The columns of band k: width, or what is left of n for the last band (0 for n = 0). */
int32_t spx_hbp_band_cols(int32_t n, int32_t width, int32_t k);

/* A band's csr row statistics (max, mean, cv) from its m row lengths' maximum and sum of
 * squares, and the csr algorithm `auto` resolves to for them (whole: the only band, all of
 * the columns, where csr's colblock may be chosen as on the matrix; else never); shared by
 * both builds so they pick the same kernel. */
void spx_hbp_band_row_stats(spx_csr_fmt *band, int64_t row_max, int64_t sum_sq, int whole);

/* Whether the rule looks at the column counts at all: x beyond one L2 segment
 * (SPX_HBP_BAND_SEGMENT_BYTES) and entries spread over the columns (as spx_hbp_band_width). */
int spx_hbp_hot_considered(int64_t n, int value_bytes, const spx_features *feat);
/* The columns whose entries the rule sums: the top 1/SPX_HBP_HOT_TOP_DEN of the used (non-empty)
 * ones, at least 1. */
int64_t spx_hbp_hot_top_cols(int64_t used);
/* How many of used columns are the top ones: spx_hbp_hot_top_cols(used), at most used. */
int32_t spx_hbp_hot_top_count(int32_t used);
/* Whether the rule renumbers: the top columns hold at least SPX_HBP_HOT_MIN_SHARE of nnz. */
int spx_hbp_hot_wanted(int64_t nnz, int64_t top_nnz);
/* The band width over cols hot-first columns: one L2 segment of x, or half the columns where
 * that is more (two bands at most: the cold columns' gathers reuse little anyway). */
int32_t spx_hbp_hot_width(int32_t cols, int value_bytes);

/* Builds the bands of A (values in prec): columns numbered per mode (feat for the rule, may be
 * NULL), width W (0: spx_hbp_hot_width's where hot, else spx_hbp_plain_width's). */
spx_status spx_hbp_bands_build(spx_ctx *ctx, const spx_csr *A, spx_precision prec, int32_t W,
                               const spx_features *feat, spx_hbp_hot_mode mode, spx_hbp_bands **out);
void spx_hbp_bands_destroy(spx_ctx *ctx, spx_hbp_bands *B);
/* The bands back to one library CSR (fp32 values widened). */
spx_status spx_hbp_bands_to_csr(spx_ctx *ctx, const spx_hbp_bands *B, spx_csr **out);
/* Concatenates count library CSRs of m rows, part k holding columns [k*width, ...) with local
 * indices, into one m x n CSR, n the source's columns: where col_of is not NULL the parts'
 * columns are hot-first numbers (cols of them) mapped back through it, each row sorted again;
 * shared by the host and device round trips. */
spx_status spx_hbp_bands_merge(spx_ctx *ctx, spx_csr *const *parts, int32_t count, int32_t width, int32_t m,
                               int32_t cols, const int32_t *col_of, int32_t n, spx_csr **out);
/* y = a*A*x + b*y on the host, band after band (csr's OpenMP loop on each; later bands with
 * no entries are skipped), x first gathered into hot-first order where hot (a buffer per
 * call: a plan may run on several threads at once). In fp32 y is rounded to fp32 between
 * bands. */
spx_status spx_hbp_bands_spmv_cpu(spx_ctx *ctx, const spx_hbp_bands *B, spx_precision prec, double a,
                                  const void *x, double b, void *y);
/* Minimum bytes of one SpMV with b = 0: each band's csr traffic, plus y read again by every
 * later band that has entries, plus the gather of x where hot. Needs only the headers. */
double spx_hbp_bands_bytes(const spx_hbp_bands *B);
/* The stats slot's figures: band count and width, entries per band, the bands' csr kernels. */
void spx_hbp_bands_stats(const spx_hbp_bands *B, spx_stat_list *out);

#ifdef __cplusplus
}
#endif
#endif
