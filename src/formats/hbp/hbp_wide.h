/* src/formats/hbp/hbp_wide.h: hbp's wide-tile layout (beyond the paper; docs/formats/hbp.md,
 * "Wide tiles"): row panels of H rows cut into column blocks sized to the L2 cache, each tile's
 * entries kept in the source's row order as packed (column, row) offsets; one CTA sums a panel's
 * tiles into shared memory, so the partial sums of a row's column blocks never leave the SM and
 * y is written once (issue 7's combine). Built on the host here, on the device in
 * hbp_wide_cuda.cu; both give the same arrays. */
#ifndef SPX_FORMATS_HBP_WIDE_H
#define SPX_FORMATS_HBP_WIDE_H

#include <stdint.h>
#include "spx/spx.h"
#include "spmv/format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Invariants: H a power of two, 32 <= H <= SPX_HBP_WIDE_MAX_H, row_bits = log2(H); W a power
 * of two <= 2^(32 - row_bits) (a packed entry is (column - block * W) << row_bits | (row -
 * panel * H)); n_panels = ceil(m / H), n_blocks = max(1, ceil(n / W)); tiles are the non-empty
 * (panel, block) pairs, panel by panel, blocks strictly ascending within a panel: panel p's
 * tiles are [panel_tile[p], panel_tile[p + 1]); tile t's entries are [tile_start[t],
 * tile_start[t + 1]) (tile_start[0] = 0, strictly increasing, tile_start[n_tiles] = nnz), in
 * the source's order (rows ascending, a row's entries of the block in its CSR order).
 * Work units: unit u is panel unit_panel[u]'s entries [unit_start[u], unit_start[u + 1]); every
 * panel has at least one unit, units of a panel are adjacent and cover its entries in order;
 * a panel with more than one unit is listed in split_panel (ascending). */
typedef struct spx_hbp_wide {
    int32_t m, n;
    int64_t nnz;
    spx_precision precision;
    int32_t H, W, row_bits;
    int32_t n_panels, n_blocks;
    int64_t n_tiles;
    int64_t unit_nnz; /* a panel of more entries is split into ceil(entries / unit_nnz) units */
    int64_t n_units;
    int32_t n_split;
    int64_t *panel_tile;  /* [n_panels + 1] */
    int32_t *tile_block;  /* [n_tiles] */
    int64_t *tile_start;  /* [n_tiles + 1] */
    uint32_t *idx;        /* [nnz] packed (column, row) offsets */
    void *val;            /* [nnz] double or float per precision */
    int32_t *unit_panel;  /* [n_units] */
    int64_t *unit_start;  /* [n_units + 1] */
    int32_t *split_panel; /* [n_split] */
} spx_hbp_wide;

/* The layout's arrays in one order (host build, free, upload, download): their addresses in
 * L, lengths and element sizes, from L's counts. */
#define SPX_HBP_WIDE_N_ARRAYS 8
void spx_hbp_wide_arrays(spx_hbp_wide *L, void **ptr[SPX_HBP_WIDE_N_ARRAYS], int64_t count[SPX_HBP_WIDE_N_ARRAYS],
                         size_t size[SPX_HBP_WIDE_N_ARRAYS]);

/* Sets L's header for an m x n matrix with nnz entries in prec: the shape rule's H (panels
 * enough for every SM, hbp_tuning.h) and W (an L2-sized x segment that the packed offsets
 * can address), the panel and block counts and the unit size; arrays and tile/unit counts
 * untouched. Shared by both builds. */
void spx_hbp_wide_header(spx_hbp_wide *L, int32_t m, int32_t n, int64_t nnz, spx_precision prec);

/* The units of the panels whose entries start at panel_nnz[p] (n_panels + 1 values,
 * non-decreasing, panel_nnz[n_panels] = nnz): L's unit counts and its three unit arrays,
 * allocated with the host allocator. Shared by both builds (the device build uploads them). */
spx_status spx_hbp_wide_units(spx_ctx *ctx, spx_hbp_wide *L, const int64_t *panel_nnz);

/* Builds the wide layout of A (values in prec) with the rule's shape. */
spx_status spx_hbp_wide_build(spx_ctx *ctx, const spx_csr *A, spx_precision prec, spx_hbp_wide **out);
/* Frees a host layout (NULL accepted). */
void spx_hbp_wide_destroy(spx_ctx *ctx, spx_hbp_wide *L);
/* The layout back to a library CSR (a row's entries block by block; fp32 values widened). */
spx_status spx_hbp_wide_to_csr(spx_ctx *ctx, const spx_hbp_wide *L, spx_csr **out);
/* y = a*A*x + b*y on the host layout: OpenMP over panels, each summed in fp64 in a row buffer. */
spx_status spx_hbp_wide_spmv_cpu(spx_ctx *ctx, const spx_hbp_wide *L, spx_precision prec, double a, const void *x,
                                 double b, void *y);
/* Minimum bytes of one SpMV with b = 0 (entries, tile and unit headers, x and y once);
 * needs only the header. */
double spx_hbp_wide_bytes(const spx_hbp_wide *L);
/* The stats slot's figures: shape, panels, blocks, tiles and their fill, units, split panels. */
void spx_hbp_wide_stats(const spx_hbp_wide *L, spx_stat_list *out);

#ifdef __cplusplus
}
#endif
#endif
