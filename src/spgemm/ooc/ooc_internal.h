/* src/spgemm/ooc/ooc_internal.h: the out-of-core plan's state, shared by its creation
 * (ooc.c) and its runs (ooc_run.c). */
#ifndef SPX_SPGEMM_OOC_INTERNAL_H
#define SPX_SPGEMM_OOC_INTERNAL_H

#include "spgemm/ooc/gpu_side.h"
#include "spgemm/ooc/lanes.h"
#include "spgemm/ooc/ooc_tuning.h"
#include "spgemm/ooc/ooc.h"
#include "spgemm/ooc/panels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one side did in the last run. */
typedef struct spx_ooc_side_stats {
    int panels, stolen;
    int64_t products;
    double transfer, compute, wall; /* wall: from the run's start to the side's last panel */
    double pin;                     /* GPU: page-locking and unlocking, within transfer */
} spx_ooc_side_stats;

struct spx_ooc {
    spx_spgemm_panels split;
    spx_precision precision;
    const spx_csr *A, *B;
    const spx_spgemm_impl *cpu_impl; /* gustavson: the symbolic phase and the CPU's panels */
    void *cpu_state;
    int cpu_threads;                 /* the CPU side's OpenMP team */
    spx_ooc_bcut bcut;               /* B's column blocks (blocks 1: B resident) */
    spx_ooc_gpu gpu;                 /* B resident or its blocks; gpu.impl NULL for SPX_PANELS_CPU */
    spx_ooc_lane lane[SPX_OOC_GPU_LANES]; /* the GPU side's contexts (none for SPX_PANELS_CPU) */
    int n_lanes;
    int64_t *crow;                   /* C's row pointers, m + 1 */
    int64_t *prod;                   /* A's rows' products, counted once (the split, K's sample) */
    spx_ooc_panel *panel;
    int n_panels;
    int32_t rows_max;                /* rows of the largest panel */
    int64_t products;
    int *order;                      /* panels by affinity, the GPU's end first */
    int split_at;                    /* order positions [0, split_at) planned for the GPU */
    size_t budget;
    double k_ratio, gpu_share;
    double gpu_cost, cpu_cost;       /* hetero with K measured: seconds per product of a GPU
                                        panel and of the CPU side's team (0: not known) */
    int64_t *work;                   /* by panel: its products (the queue's cost check) */
    char kernel[96];
    /* the last run */
    spx_spgemm_panel_event *event;   /* by panel */
    int *done;                       /* panels in finishing order */
    int n_done;
    spx_ooc_side_stats gpu_stats, cpu_stats; /* the GPU's summed over its lanes */
    double gpu_busy, gpu_span;       /* the union of the GPU panels' compute intervals; from the
                                        first GPU panel's start to the last one's end */
    size_t b_held;                   /* device bytes of B resident (the plan's context; 0 in blocks) */
    size_t lanes_peak;               /* the lanes' device peaks in the last run, summed */
};

#ifdef __cplusplus
}
#endif
#endif
