/* src/cuda/pool.cu: the context's device memory pool, behind spx_cuda_malloc_async: made on
 * first use on the context's device, the memory its blocks return kept for the next call (no
 * cudaMalloc, cudaFree or cudaMemGetInfo once warm), given back to the device when an
 * allocation of the context cannot otherwise be met, dropped with the context. */
#include <stdint.h>
#include <string.h>

#include "cuda/runtime.cuh"

/* The release threshold: what the pool may keep across synchronisations. The device budget
 * when there is one (the pool then never caches more than the context may hold), else all of
 * it: CUDA's default (0) gives everything back at each synchronisation, and the next call
 * pays cudaMalloc's price again. */
static uint64_t keep_threshold(const spx_ctx *ctx)
{
    return ctx->dev.budget == SPX_BUDGET_NONE ? UINT64_MAX : (uint64_t)ctx->dev.budget;
}

extern "C" cudaMemPool_t spx_cuda_pool(spx_ctx *ctx)
{
    spx_cuda_state *st = (spx_cuda_state *)ctx->cuda;
    if (!st || st->pool || st->pool_refused) return st ? st->pool : NULL;
    int supported = 0;
    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = st->device;
    cudaMemPool_t pool = NULL;
    if (cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, st->device) != cudaSuccess || !supported ||
        cudaMemPoolCreate(&pool, &props) != cudaSuccess) {
        (void)cudaGetLastError();
        st->pool_refused = 1;
        return NULL;
    }
    uint64_t keep = keep_threshold(ctx);
    if (cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess)
        (void)cudaGetLastError(); /* the pool still works: it only gives back more often */
    st->pool = pool;
    return pool;
}

extern "C" int spx_cuda_pool_trim(spx_ctx *ctx)
{
    const spx_cuda_state *st = spx_cuda_state_of(ctx);
    size_t reserved = 0, used = 0;
    spx_cuda_pool_usage(ctx, &reserved, &used);
    if (!st || !st->pool || reserved <= used) return 0;
    /* a block's memory can go back once its stream-ordered free has run: wait for every stream */
    if (cudaDeviceSynchronize() != cudaSuccess) (void)cudaGetLastError();
    if (cudaMemPoolTrimTo(st->pool, 0) != cudaSuccess) (void)cudaGetLastError();
    return 1;
}

extern "C" cudaError_t spx_cuda_pool_take(spx_ctx *ctx, cudaMemPool_t pool, void **p, size_t bytes)
{
    const cudaStream_t stream = spx_cuda_stream(ctx);
    cudaError_t e = cudaMallocFromPoolAsync(p, bytes, pool, stream);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        if (spx_cuda_pool_trim(ctx)) e = cudaMallocFromPoolAsync(p, bytes, pool, stream);
    }
    if (e != cudaSuccess) {
        *p = NULL;
        (void)cudaGetLastError();
    }
    return e;
}

extern "C" void spx_cuda_pool_usage(const spx_ctx *ctx, size_t *reserved, size_t *used)
{
    const spx_cuda_state *st = spx_cuda_state_of(ctx);
    uint64_t r = 0, u = 0;
    if (st && st->pool &&
        (cudaMemPoolGetAttribute(st->pool, cudaMemPoolAttrReservedMemCurrent, &r) != cudaSuccess ||
         cudaMemPoolGetAttribute(st->pool, cudaMemPoolAttrUsedMemCurrent, &u) != cudaSuccess)) {
        (void)cudaGetLastError();
        r = u = 0;
    }
    *reserved = (size_t)r;
    *used = (size_t)u;
}

extern "C" void spx_cuda_pool_destroy(spx_cuda_state *st)
{
    if (!st || !st->pool) return;
    if (cudaMemPoolDestroy(st->pool) != cudaSuccess) (void)cudaGetLastError();
    st->pool = NULL;
}

extern "C" spx_status spx_cuda_pool_stats(spx_ctx *ctx, size_t *reserved, size_t *used)
{
    if (!ctx || !reserved || !used)
        return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_cuda_pool_stats: NULL argument") : SPX_ERR_ARG;
    spx_status s = spx_cuda_init(ctx);
    if (s) return s;
    /* frees queued on the context's stream count as handed out until the stream runs them */
    SPX_CUDA_RET(ctx, cudaStreamSynchronize(spx_cuda_stream(ctx)));
    spx_cuda_pool_usage(ctx, reserved, used);
    return SPX_OK;
}

extern "C" int spx_cuda_pool_room(spx_ctx *ctx, size_t bytes)
{
    if (!ctx || ctx->device_alloc.alloc || spx_cuda_init(ctx) != SPX_OK) return 0;
    if (bytes > spx_device_budget_room(ctx)) return 0;
    cudaMemPool_t pool = spx_cuda_pool(ctx);
    void *p = NULL;
    if (!pool || spx_cuda_pool_take(ctx, pool, &p, bytes ? bytes : 1) != cudaSuccess) return 0;
    if (cudaFreeAsync(p, spx_cuda_stream(ctx)) != cudaSuccess) (void)cudaGetLastError();
    return 1;
}

extern "C" void spx_cuda_pool_drop(spx_ctx *ctx)
{
    spx_cuda_state *st = ctx ? (spx_cuda_state *)ctx->cuda : NULL;
    if (!st || !st->pool) return;
    if (st->n_pooled) { /* blocks are out: only what the pool caches goes back */
        (void)spx_cuda_pool_trim(ctx);
        return;
    }
    if (cudaDeviceSynchronize() != cudaSuccess) (void)cudaGetLastError(); /* the queued frees run first */
    spx_cuda_pool_destroy(st);
}
