/* src/formats/hbp/hbp.h: the `hbp` format's layout (hash-based 2D partition, HBP paper §III-A),
 * shared by its host build, CPU SpMV and CUDA kernels, with its invariants. */
#ifndef SPX_FORMATS_HBP_H
#define SPX_FORMATS_HBP_H

#include <stdint.h>
#include "spx/spx.h"
#include "spmv/format.h"
#include "formats/hbp/hbp_bands.h"
#include "formats/hbp/hbp_wide.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The algorithms: how rows are reordered inside a tile, and how the GPU combines the partial
 * sums of one row from different column blocks. On the CPU the combine choice is moot (one
 * thread owns a row panel); the reorder changes the layout. */
typedef enum spx_hbp_algo {
    SPX_HBP_AUTO = 0,
    SPX_HBP_HASH,        /* hash reorder; CTAs take work units (ranges of one panel's groups of
                            about U entries), sums in shared memory; a panel split over several
                            units combines in a row buffer, the last unit writes y */
    SPX_HBP_HASH_ATOMIC, /* hash reorder; combine: one warp per tile, atomicAdd into y */
    SPX_HBP_SORT,        /* sort reorder (the paper's sort2D baseline); work units as HASH */
    SPX_HBP_BAND,        /* beyond the paper: column bands sized to L2, each a csr layout run by
                            the csr kernels, one band after the other (hbp_bands.h); what
                            `auto` takes below the wide rule's bands, as one band where
                            the rule cuts two or fewer (faster than HASH
                            on 77 of the 82 matrices measured, H100 2026-11-26, bench/NOTES.md) */
    SPX_HBP_WIDE,        /* beyond the paper: row panels over column blocks sized to L2, one
                            CTA per panel summing its blocks in shared memory, y written once
                            (hbp_wide.h); what `auto` takes where x needs many bands */
    SPX_HBP_HOT,         /* beyond the paper: the bands over columns renumbered hot first, the
                            top ones by descending entry count (hbp_bands.h, "hot columns");
                            what `auto`'s bands become where a few columns hold most entries */
    SPX_HBP_ALGO_COUNT
} spx_hbp_algo;

/* Names of the algorithms, indexed by spx_hbp_algo; NULL-terminated. */
extern const char *const spx_hbp_algo_names[];

/* The lanes of one group (a warp). */
#define SPX_HBP_GROUP 32
/* Index-type limits of the layout: local rows and column offsets are uint16, a row's length in
 * a tile (at most W) is uint16 too, so W <= 32768 and H <= 65536. */
#define SPX_HBP_MAX_H 65536
#define SPX_HBP_MAX_W 32768

/* Layout. The matrix is cut into row panels of H rows and column blocks of W columns; a tile
 * is one (panel, block) pair with at least one entry, and only tiles are stored, panel by
 * panel, blocks ascending. Inside a tile, a slot is one piece of a row's entries in the tile
 * (a run longer than SPX_HBP_PIECE_MAX is cut into SPX_HBP_PIECES(len) pieces of near-equal
 * length, hbp_tuning.h; shorter runs are one piece); the tile's slots are in execution order (SPX_HBP_HASH: by (bucket, row), bucket = min(len >>
 * agg_shift, SPX_HBP_BUCKETS - 1); SPX_HBP_SORT: by (len, row)), cut into groups of 32 slots
 * (the last one partial). A group's entries are stored step-major: step s holds the s-th entry
 * of every slot with len > s, in slot order, so 32 lanes read consecutive addresses; lane l's
 * entry at step s sits at (entries of steps < s) + (slots before l with len > s).
 *
 * Invariants: 1 <= H <= SPX_HBP_MAX_H, H % 32 == 0; W a power of two <= SPX_HBP_MAX_W;
 * panel_tile[0] = 0, non-decreasing, panel_tile[n_panels] = n_tiles; tile_colblock strictly
 * increasing within a panel; tile_slot[0] = 0, strictly increasing (a tile has a slot),
 * tile_slot[n_tiles] = n_slots; tile_group[t+1] - tile_group[t] = ceil(slots of t / 32);
 * group_nnz[0] = 0, group_nnz[n_groups] = nnz; the entries of each row of a tile are in the
 * tile's slots of that row (slot_row < min(H, m - panel*H)), pieces of one row adjacent in row
 * order and in column order along the slot order, with lengths SPX_HBP_PIECE_LEN (1 <=
 * slot_len <= SPX_HBP_PIECE_MAX); col < W; entries of a slot appear in ascending column order
 * along the steps. */
typedef struct spx_hbp_fmt {
    int32_t m, n;
    int64_t nnz;
    spx_precision precision;
    spx_hbp_algo algo; /* never AUTO after build */
    int32_t H, W;      /* tile rows, tile columns */
    int32_t n_panels, n_colblocks;
    int64_t n_tiles, n_groups, n_slots;
    int agg_shift; /* the hash's aggregation parameter a, sampled from the matrix */
    int64_t *panel_tile;    /* [n_panels + 1] */
    int32_t *tile_colblock; /* [n_tiles] */
    int64_t *tile_slot;     /* [n_tiles + 1] */
    int64_t *tile_group;    /* [n_tiles + 1] */
    int64_t *group_nnz;     /* [n_groups + 1] begin_nnz of each group */
    uint16_t *slot_row;     /* [n_slots] output_hash: slot -> row within the panel */
    uint16_t *slot_len;     /* [n_slots] the row's entries in the tile */
    uint16_t *col;          /* [nnz] column offset inside the tile's W columns */
    double *val64;          /* [nnz], or */
    float *val32;           /* [nnz] */
    /* Fig. 6 balance: mean over groups of the stddev of row lengths within a group, with
     * the tile's non-empty rows in original order (before) and in slot order (after); lane
     * utilisation = nnz / (32 * sum of the groups' longest row), before and after. A device
     * build computes the "after" pair only and sets the "before" pair to NaN. */
    double balance_before, balance_after, lane_util_before, lane_util_after;
    /* SPX_HBP_BAND, SPX_HBP_HOT: the bands (the tile arrays above stay empty, H = 0, W = the band
     * width). */
    spx_hbp_bands *bands;
    /* SPX_HBP_WIDE: the wide tiles (the tile arrays above stay empty; H, W, n_panels and
     * n_colblocks copied from it). */
    spx_hbp_wide *wide;
} spx_hbp_fmt;

/* The layout's arrays, in one order shared by the host build, free, upload, download and
 * device free: their addresses in F (the value array of F's precision), lengths and element
 * sizes. F's header fields must be set. */
#define SPX_HBP_N_ARRAYS 9
void spx_hbp_arrays(spx_hbp_fmt *F, void **ptr[SPX_HBP_N_ARRAYS], int64_t count[SPX_HBP_N_ARRAYS],
                    size_t size[SPX_HBP_N_ARRAYS]);

/* The tile shape for a matrix: H and W from the shape rule (hbp_tuning.h) for these
 * features and value size, within smem_bytes of shared memory per block. */
void spx_hbp_tile_shape(const spx_features *feat, int value_bytes, long long smem_bytes, int32_t *H, int32_t *W);

/* Bits to number count values: ceil(log2(count)), so a power of two's log2 (0 for count <= 1).
 * The layouts' shifts (tile columns, packed offsets, sort keys). */
static inline int spx_hbp_bits(int64_t count)
{
    int b = 0;
    while (((int64_t)1 << b) < count) b++;
    return b;
}

/* The algorithm of that name (NULL: SPX_HBP_AUTO), or -1 when there is none. */
int spx_hbp_algo_from_name(const char *name);

/* The algorithm a build runs for the name's algorithm a (never AUTO) on an n-column matrix
 * with value_bytes values and features feat (NULL: spread columns and skewed rows assumed):
 * AUTO is WIDE where the band rule cuts at least SPX_HBP_WIDE_MIN_BANDS bands, or
 * SPX_HBP_WIDE_MIN_BANDS_EVEN where the row lengths are not skewed, else BAND. Shared by the
 * host and device builds. */
spx_hbp_algo spx_hbp_algo_resolve(int a, int32_t n, int value_bytes, const spx_features *feat);

/* Sets F's header for an m x n matrix with nnz entries: sizes, precision, algo (already
 * resolved), shape, panel and block counts; leaves the arrays and the figures alone. Shared by
 * the host and device builds. */
void spx_hbp_fmt_header(spx_hbp_fmt *F, int32_t m, int32_t n, int64_t nnz, spx_precision prec, spx_hbp_algo algo,
                        int32_t H, int32_t W);

/* How the band build of the name's algorithm a numbers columns: HOT always hot first, AUTO by
 * the rule, BAND never. Shared by both builds. */
spx_hbp_hot_mode spx_hbp_hot_mode_of(int a);

/* Sets F's header for the bands B (whose arrays F does not take): sizes, precision, algo
 * BAND or HOT, W the band width, n_colblocks the band count, no tiles. Shared by both builds. */
void spx_hbp_fmt_band_header(spx_hbp_fmt *F, const spx_hbp_bands *B);

/* Sets F's header for the wide tiles L (whose arrays F does not take). Shared by both builds. */
void spx_hbp_fmt_wide_header(spx_hbp_fmt *F, const spx_hbp_wide *L);

/* Checks a tile shape against the layout's index types: SPX_ERR_OVERFLOW (H, W too large) or
 * SPX_ERR_ARG (not a multiple of 32 / not a power of two), with a message. */
spx_status spx_hbp_check_shape(spx_ctx *ctx, int64_t H, int64_t W);

/* Builds the layout from A with tile shape H x W (0, 0: the shape rule's, for a device with
 * the default shared-memory budget), values in prec, rows reordered per algo; for the band
 * and hot algorithms W is the band width (0: the rules') and H is ignored; the wide tiles always
 * take their own shape rule (H and W ignored). */
spx_status spx_hbp_fmt_build(spx_ctx *ctx, const spx_csr *A, const spx_features *feat, spx_precision prec,
                             const char *algo, int32_t H, int32_t W, spx_hbp_fmt **out);
void spx_hbp_fmt_destroy(spx_ctx *ctx, spx_hbp_fmt *F);
/* The layout back to a library CSR (fp32 values widened to fp64). */
spx_status spx_hbp_fmt_to_csr(spx_ctx *ctx, const spx_hbp_fmt *F, spx_csr **out);
/* Minimum bytes of one SpMV with b = 0 on this layout. */
double spx_hbp_fmt_bytes(const spx_hbp_fmt *F);
/* y = a*A*x + b*y on the host layout, OpenMP over row panels. */
spx_status spx_hbp_fmt_spmv_cpu(spx_ctx *ctx, const spx_hbp_fmt *F, spx_precision prec, double a, const void *x,
                                double b, void *y);
/* The aggregation shift a from a histogram of floor(log2(len)) over all (tile, row) pairs
 * (hist[k], k < 32): the smallest a that puts SPX_HBP_AGG_QUANTILE of them below the last
 * bucket. Shared by the host and device builds. */
int spx_hbp_agg_shift(const int64_t *hist);

/* The figures every tiled layout reports (the paper's tiles and the wide tiles): shape, panels,
 * blocks, tiles and their mean entries. */
void spx_hbp_tile_stats(spx_stat_list *out, int32_t H, int32_t W, int32_t panels, int32_t blocks, int64_t tiles,
                        int64_t nnz);

/* The stats slot's figures of a layout (shape, tiles, fill, groups, balance; a NaN "before"
 * figure, as a device build leaves it, is shown as text saying it was not computed). */
void spx_hbp_fmt_stats(const spx_hbp_fmt *F, spx_stat_list *out);

#ifdef __cplusplus
}
#endif
#endif
