/* src/formats/hbp/hbp_hash.h: the host build's row segments and the reorder inside a tile
 * (HBP §III-B: the nonlinear hash, and the sort it replaces), plus the Fig. 6 balance metric. */
#ifndef SPX_FORMATS_HBP_HASH_H
#define SPX_FORMATS_HBP_HASH_H

#include <stdint.h>
#include "formats/hbp/hbp.h"

/* One row's entries inside one tile: column block, row within the panel, length, and where
 * the entries start in the CSR. A tile's slots are its segments in execution order. */
typedef struct spx_hbp_seg {
    int32_t cb;
    uint16_t row;
    uint16_t len;
    int64_t start;
} spx_hbp_seg;

/* Sorts a panel's segments by (column block, row): the 2D partition, common to both reorders. */
void spx_hbp_sort_by_block(spx_hbp_seg *s, int64_t k);

/* Reorders one tile's k segments (given by row) into execution order: SPX_HBP_SORT by (len,
 * row); otherwise the hash: a counting sort by bucket = SPX_HBP_BUCKET(len, a), stable in row
 * order, through scratch[k]. */
void spx_hbp_order_tile(spx_hbp_seg *s, int64_t k, spx_hbp_algo algo, int a, spx_hbp_seg *scratch);

/* The balance of one tile's slots cut into groups of 32 in their current order: adds the sum
 * over groups of the stddev of len, the sum of each group's longest len, and the group count. */
void spx_hbp_balance_add(const spx_hbp_seg *s, int64_t k, double *sum_std, double *sum_max, int64_t *groups);

#endif
