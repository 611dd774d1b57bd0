/* src/formats/hbp/hbp_units.h: the work units of the hbp unit kernel (`hash`, `sort`), made on
 * the device at plan time from the device layout: ranges of one panel's groups of about U
 * entries each, and the row buffer and arrival counters through which the units of a split
 * panel combine their partial sums (the last to arrive writes y). */
#ifndef SPX_FORMATS_HBP_UNITS_H
#define SPX_FORMATS_HBP_UNITS_H

#include <stdint.h>
#include "formats/hbp/hbp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device arrays (plan-owned). Unit u covers groups [unit_group[u], unit_group[u + 1]) of panel
 * unit_panel[u]; panel p's units are [panel_unit[p], panel_unit[p + 1]) (at least one, so its
 * y rows are written even when it has no entry). panel_ybuf[p] is the offset of p's rows in
 * ybuf, or -1 when p's only unit writes y itself; ybuf and arrivals are zero between calls
 * (the last unit of a panel clears them). */
typedef struct spx_hbp_units {
    int64_t n_units, target_nnz, ybuf_len;
    int64_t *unit_group;  /* [n_units + 1] */
    int32_t *unit_panel;  /* [n_units] */
    int64_t *panel_unit;  /* [n_panels + 1] */
    int64_t *panel_ybuf;  /* [n_panels] */
    double *ybuf;         /* [ybuf_len] fp64 partial sums of split panels' rows */
    unsigned *arrivals;   /* [n_panels] units of the panel done in this call */
} spx_hbp_units;

/* Makes the units of device layout L for target_nnz entries a unit (>= 1). On failure nothing
 * is held. */
spx_status spx_hbp_units_make(spx_ctx *ctx, const spx_hbp_fmt *L, int64_t target_nnz, spx_hbp_units *out);
void spx_hbp_units_free(spx_ctx *ctx, spx_hbp_units *u);

/* *count = the tiles of device layout L holding at least min_nnz entries (the ones whose x
 * segment the unit kernel stages: none, and it reserves no shared memory for it). */
spx_status spx_hbp_dense_tiles(spx_ctx *ctx, const spx_hbp_fmt *L, int64_t min_nnz, int64_t *count);

#ifdef __cplusplus
}
#endif
#endif
