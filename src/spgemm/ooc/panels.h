/* src/spgemm/ooc/panels.h: the out-of-core SpGEMM's panels: the device bytes the spx GPU
 * SpGEMM needs (in-core, and per panel beside a resident B), A's rows split into panels that
 * fit a device budget, each panel's affinity (ApSpGEMM §5.2) and the panels' order by it. */
#ifndef SPX_SPGEMM_OOC_PANELS_H
#define SPX_SPGEMM_OOC_PANELS_H

#include "core/ctx.h"
#include "spgemm/ooc/bblocks.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A panel: A's rows [row0, row1), their share of A, C and the products. */
typedef struct spx_ooc_panel {
    int32_t row0, row1;
    int64_t nnz_a, nnz_c, products;
    double affinity; /* (sparsity of the A part + sparsity of the B part) / 2 */
} spx_ooc_panel;

/* What the split reads: the operands, C's row pointers (exact, from a symbolic phase), the
 * precision, the device budget (SPX_BUDGET_NONE: none) and the panels on the device at once
 * (the GPU lanes, >= 1: each panel fits its share of the budget beside B). */
typedef struct spx_ooc_split_in {
    const spx_csr *A, *B;
    const int64_t *crow;
    const int64_t *prod; /* the products of each of A's rows (spx_spgemm_row_products) */
    spx_precision precision;
    size_t budget;
    int lanes;
    int b_blocks; /* B's column blocks: 0 B resident when it fits, else split (the fewest
                     blocks taking at most a share of a lane's room); 1 resident; N >= 2
                     about N blocks of equal nonzeros */
} spx_ooc_split_in;

/* Device bytes of a CSR of `rows` rows and nnz entries as the GPU holds it (int32 row
 * pointers, values in p) with its upload staging. */
size_t spx_ooc_dev_csr_bytes(int64_t rows, int64_t nnz, spx_precision p);
/* Device bytes of nnz_c entries of C (columns and values in p). */
size_t spx_ooc_c_bytes(int64_t nnz_c, spx_precision p);
/* Device bytes of the in-core spx product of A and B with nnz_c entries in C (an upper
 * bound of its peak); long_rows: some row of C may exceed SPX_OOC_SHARED_ROW_MAX. */
size_t spx_ooc_incore_bytes(const spx_csr *A, const spx_csr *B, int64_t nnz_c, int long_rows, spx_precision p);
/* The device bytes of one lane: its share of the budget beside B when B is resident
 * (bcut->blocks 1), else of the whole budget (SPX_BUDGET_NONE: none). */
size_t spx_ooc_lane_budget(const spx_ooc_split_in *in, const spx_ooc_bcut *bcut);
/* Splits A's rows into panels in row order, each fitting a lane's budget with the fixed
 * workspace and B resident, or (in->b_blocks) beside one block of B's columns, and none over
 * 1/SPX_OOC_MIN_PANELS of the products (unless one row is): *out (n_out entries, the caller
 * frees it with spx_free), B's blocks into *bcut (blocks 1: resident). SPX_ERR_DEVICE_ALLOC
 * naming the sizes when B (or its smallest block) or one row's panel beside it does not fit. */
spx_status spx_ooc_split(spx_ctx *ctx, const spx_ooc_split_in *in, spx_ooc_panel **out, int *n_out,
                         spx_ooc_bcut *bcut);
/* order[0..n): the panels by affinity, highest (sparsest: the GPU's) first, ties by row. */
spx_status spx_ooc_order(spx_ctx *ctx, const spx_ooc_panel *panels, int n, int *order);
/* out[0..r1 - r0] = ptr[r0..r1] less ptr[r0]: row pointers of rows [r0, r1) from 0. */
void spx_ooc_rebase(const int64_t *ptr, int32_t r0, int32_t r1, int64_t *out);
/* view = A's rows [r0, r1) as a CSR sharing A's columns and values; rowptr (r1 - r0 + 1
 * entries, the caller's) receives the row pointers rebased to 0. */
void spx_ooc_panel_view(const spx_csr *A, int32_t r0, int32_t r1, int64_t *rowptr, spx_csr *view);
/* view = rows [r0, r1) of C (n columns) by its row pointers crow, into the slice colind/val
 * (crow[r1] - crow[r0] entries, the caller's); rowptr (r1 - r0 + 1, the caller's) receives
 * the row pointers rebased to 0. */
void spx_ooc_c_view(const int64_t *crow, int32_t r0, int32_t r1, int32_t n, int32_t *colind, double *val,
                    int64_t *rowptr, spx_ctx *ctx, spx_csr *view);

#ifdef __cplusplus
}
#endif
#endif
