/* src/spgemm/ooc/lanes.h: the GPU side's lanes: each a context of its own on the plan's
 * device (its own stream, its own device budget: a share of the plan's) driven by a host
 * thread of its own, so that one lane's transfers run while another's kernels do (Fig. 9's
 * overlap, by panels in flight). */
#ifndef SPX_SPGEMM_OOC_LANES_H
#define SPX_SPGEMM_OOC_LANES_H

#include "core/ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spx_ooc_lane {
    spx_ctx *ctx;
    void *stream;           /* CUDA lanes: a non-blocking stream of their own; NULL on the CPU */
    spx_mem_account *owner; /* the plan's host account, which counts the lane's staging ring */
    size_t ring_bytes;      /* the ring's bytes counted there (0: none) */
} spx_ooc_lane;

/* Makes n lanes like ctx (device, allocators, host budget) with `threads` host threads (their
 * copies' chunks: src/cuda/staged_copy.cu) and `budget` device bytes each (SPX_BUDGET_NONE:
 * none), on a stream of their own when cuda. A CUDA lane makes its staging ring at once (its
 * panels' copies may all be under the size that would make it, and C's pages are not touched
 * before them), counted in ctx's host account, without one when ctx's budget has no room. On
 * failure none is left and ctx holds the message. */
spx_status spx_ooc_lanes_open(spx_ctx *ctx, int cuda, int n, int threads, size_t budget, spx_ooc_lane *lanes);
void spx_ooc_lanes_close(spx_ooc_lane *lanes, int n);
/* Restarts every lane's device peak (a run's start). */
void spx_ooc_lanes_reset_peaks(spx_ooc_lane *lanes, int n);
/* The sum of the lanes' device peaks since the last reset. */
size_t spx_ooc_lanes_peak(const spx_ooc_lane *lanes, int n);
/* Returns s with the lane's last error copied into ctx (s == SPX_OK: nothing). */
spx_status spx_ooc_lane_error(spx_ctx *ctx, const spx_ooc_lane *lane, spx_status s);

#ifdef __cplusplus
}
#endif
#endif
