/* src/spgemm/ooc/lanes.c: the GPU side's lanes (lanes.h): contexts of their own, each with
 * its stream and its share of the device budget. */
#include <string.h>

#include "cuda/gateway.h"
#include "spgemm/ooc/lanes.h"

/* Makes the lane's staging ring when ctx's host budget has room for it (the gateway's rule)
 * and counts it in ctx's host account; drops it when that account refuses (the lane's copies
 * then stay direct). */
static void count_ring(spx_ctx *ctx, spx_ooc_lane *l)
{
    const size_t bytes = spx_cuda_stage_make(l->ctx, ctx);
    if (bytes && spx_mem_reserve(&ctx->host, bytes)) {
        l->owner = &ctx->host;
        l->ring_bytes = bytes;
    } else if (bytes) {
        spx_cuda_stage_drop(l->ctx);
    }
}

/* One lane like ctx, with `threads` host threads. */
static spx_status lane_open(spx_ctx *ctx, int cuda, int threads, size_t budget, spx_ooc_lane *l)
{
    const spx_ctx_opts co = {cuda ? SPX_BACKEND_CUDA : SPX_BACKEND_CPU,
                             threads,
                             ctx->device,
                             &ctx->alloc,
                             ctx->device_alloc.alloc ? &ctx->device_alloc : NULL,
                             ctx->host.budget,
                             budget ? budget : 1};
    memset(l, 0, sizeof *l);
    spx_status s = spx_ctx_create(&l->ctx, &co);
    if (s) return spx_fail(ctx, s, "spgemm panels: cannot make a GPU lane's context");
    if (!cuda) return SPX_OK;
    if (!(s = spx_cuda_stream_create(l->ctx, &l->stream))) s = spx_ctx_set_stream(l->ctx, l->stream);
    if (!s) count_ring(ctx, l);
    return spx_ooc_lane_error(ctx, l, s);
}

spx_status spx_ooc_lanes_open(spx_ctx *ctx, int cuda, int n, int threads, size_t budget, spx_ooc_lane *lanes)
{
    spx_status s = SPX_OK;
    int i = 0;
    for (; !s && i < n; i++) s = lane_open(ctx, cuda, threads, budget, &lanes[i]);
    if (s) spx_ooc_lanes_close(lanes, i);
    return s;
}

void spx_ooc_lanes_close(spx_ooc_lane *lanes, int n)
{
    for (int i = 0; i < n; i++) {
        if (lanes[i].ring_bytes) spx_mem_release(lanes[i].owner, lanes[i].ring_bytes);
        lanes[i].ring_bytes = 0;
        spx_ctx_destroy(&lanes[i].ctx);
        if (lanes[i].stream) spx_cuda_stream_destroy(lanes[i].stream);
        lanes[i].stream = NULL;
    }
}

void spx_ooc_lanes_reset_peaks(spx_ooc_lane *lanes, int n)
{
    for (int i = 0; i < n; i++)
        __atomic_store_n(&lanes[i].ctx->dev.peak, __atomic_load_n(&lanes[i].ctx->dev.bytes, __ATOMIC_RELAXED),
                         __ATOMIC_RELAXED);
}

size_t spx_ooc_lanes_peak(const spx_ooc_lane *lanes, int n)
{
    size_t sum = 0;
    for (int i = 0; i < n; i++) sum += __atomic_load_n(&lanes[i].ctx->dev.peak, __ATOMIC_RELAXED);
    return sum;
}

spx_status spx_ooc_lane_error(spx_ctx *ctx, const spx_ooc_lane *lane, spx_status s)
{
    return s ? spx_fail(ctx, s, "%s", spx_ctx_last_error(lane->ctx)) : SPX_OK;
}
