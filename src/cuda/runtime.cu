/* src/cuda/runtime.cu: the gateway's runtime half: device discovery and properties, device
 * memory and copies on the context's stream, event timers, L2 flush and copy bandwidth. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/runtime.cuh"

/* Copy-bandwidth protocol: largest buffer, timed runs (median), untimed warm-up runs. */
#define SPX_BW_MAX_BYTES (1ull << 30) /* 1 GiB: far above the 50-60 MB L2 of H100/H200 */
#define SPX_BW_MIN_BYTES (1ull << 20)
#define SPX_BW_REPS 11
#define SPX_BW_WARMUP 2
#define SPX_SCALE_BLOCK 256
#define SPX_SCALE_BLOCKS_PER_SM 8 /* grid-stride: enough resident warps to saturate HBM */

struct spx_cuda_timer {
    cudaEvent_t start, stop;
};

extern "C" int spx_cuda_built(void) { return 1; }

extern "C" int spx_cuda_device_count(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

/* Reads the properties of ctx->device into a new state. */
static spx_status read_device(spx_ctx *ctx, spx_cuda_state *st)
{
    cudaDeviceProp prop;
    SPX_CUDA_RET(ctx, cudaGetDeviceProperties(&prop, ctx->device));
    st->device = ctx->device;
    st->sm_count = prop.multiProcessorCount;
    st->l2_bytes = prop.l2CacheSize;
    st->global_bytes = (long long)prop.totalGlobalMem;
    st->smem_per_block_optin = (int)prop.sharedMemPerBlockOptin;
    st->max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
    st->cc_major = prop.major;
    st->cc_minor = prop.minor;
    snprintf(st->name, sizeof st->name, "%s", prop.name);
    SPX_CUDA_RET(ctx, cudaRuntimeGetVersion(&st->runtime_version));
    SPX_CUDA_RET(ctx, cudaDriverGetVersion(&st->driver_version));
    return SPX_OK;
}

/* Frees the context's CUDA state (the context's cuda_release hook). */
static void release_state(spx_ctx *ctx)
{
    if (!ctx || !ctx->cuda) return;
    spx_cuda_state *st = (spx_cuda_state *)ctx->cuda;
    (void)cudaSetDevice(st->device);
    spx_cuda_free(ctx, st->flush_buf);
    spx_cuda_stage_free(ctx, st->stage);
    for (int j = 0; j < st->sides; j++)
        if (cudaStreamDestroy(st->side[j]) != cudaSuccess) (void)cudaGetLastError();
    spx_cuda_blas_close(ctx, st->blas);
    spx_cuda_pool_destroy(st); /* its blocks are back by now (a device C the caller still holds
                                  keeps its memory until it is freed) */
    spx_free(ctx, st->blocks);
    spx_free(ctx, st);
    ctx->cuda = NULL;
}

extern "C" spx_status spx_cuda_init(spx_ctx *ctx)
{
    if (!ctx) return SPX_ERR_ARG;
    if (ctx->cuda) { /* idempotent: rebind this host thread to the context's device; every CUDA
                        plan call comes here, so a thread already on it only reads which it is */
        const int dev = ((spx_cuda_state *)ctx->cuda)->device;
        int cur = -1;
        if (cudaGetDevice(&cur) == cudaSuccess && cur == dev) return SPX_OK;
        (void)cudaGetLastError();
        SPX_CUDA_RET(ctx, cudaSetDevice(dev));
        return SPX_OK;
    }
    int count = spx_cuda_device_count();
    if (count < 1) return spx_fail(ctx, SPX_ERR_NO_DEVICE, "CUDA: no CUDA device is present");
    if (ctx->device < 0 || ctx->device >= count)
        return spx_fail(ctx, SPX_ERR_ARG, "CUDA: device %d does not exist (%d device%s present)",
                        ctx->device, count, count == 1 ? "" : "s");
    SPX_CUDA_RET(ctx, cudaSetDevice(ctx->device));
    spx_cuda_state *st = (spx_cuda_state *)spx_calloc_array(ctx, 1, sizeof *st);
    if (!st) return spx_fail_nomem(ctx, "CUDA context state");
    spx_status s = read_device(ctx, st);
    if (s) {
        spx_free(ctx, st);
        return s;
    }
    ctx->cuda = st;
    ctx->cuda_release = release_state;
    return SPX_OK;
}

extern "C" spx_status spx_cuda_query(spx_ctx *ctx, spx_device_info *out)
{
    if (!ctx || !out) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_cuda_query: NULL argument") : SPX_ERR_ARG;
    spx_status s = spx_cuda_init(ctx);
    if (s) return s;
    const spx_cuda_state *st = spx_cuda_state_of(ctx);
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%.127s", st->name);
    out->sm_count = st->sm_count;
    out->l2_bytes = st->l2_bytes;
    out->global_bytes = st->global_bytes;
    out->smem_per_block_optin = st->smem_per_block_optin;
    out->cc_major = st->cc_major;
    out->cc_minor = st->cc_minor;
    out->runtime_version = st->runtime_version;
    out->driver_version = st->driver_version;
    return SPX_OK;
}

/* Fails with SPX_ERR_DEVICE_ALLOC unless `bytes` more fit the device budget, or when a test
 * injected this allocation's failure; reserves them otherwise. The device's free memory is not
 * asked here (cudaMemGetInfo took ~5-8 us a block on an H100): CUDA's own refusal says it, and
 * device_refused names it then. */
static spx_status reserve_device(spx_ctx *ctx, size_t bytes)
{
    char need[32];
    long n = ++ctx->dev_allocs;
    if (ctx->dev_fail_at && n == ctx->dev_fail_at)
        return spx_fail(ctx, SPX_ERR_DEVICE_ALLOC, "device memory: allocation %ld of %s failed (injected by a test)",
                        n, spx_bytes_str((double)bytes, need, sizeof need));
    if (!spx_mem_reserve(&ctx->dev, bytes)) {
        char refusal[SPX_REFUSAL_LEN];
        return spx_fail(ctx, SPX_ERR_DEVICE_ALLOC, "device memory: %s",
                        spx_mem_refusal_str(&ctx->dev, "device", refusal, sizeof refusal));
    }
    return SPX_OK;
}

/* SPX_ERR_DEVICE_ALLOC for `bytes` that `how` refused with e: the device's free memory asked
 * now (on this path only) and named. Leaves no CUDA error behind. */
static spx_status device_refused(spx_ctx *ctx, size_t bytes, const char *how, cudaError_t e)
{
    char need[32], free_s[32], total_s[32];
    size_t free_b = 0, total_b = 0;
    (void)cudaGetLastError();
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) (void)cudaGetLastError();
    return spx_fail(ctx, SPX_ERR_DEVICE_ALLOC,
                    "device memory: %s of %s failed: %s (%s); %s free on device %d (%s total)", how,
                    spx_bytes_str((double)bytes, need, sizeof need), cudaGetErrorName(e), cudaGetErrorString(e),
                    spx_bytes_str((double)free_b, free_s, sizeof free_s), ctx->device,
                    spx_bytes_str((double)total_b, total_s, sizeof total_s));
}

/* Where a block comes from. */
typedef enum block_source { FROM_HOOKS, FROM_CUDA_MALLOC, FROM_POOL } block_source;

/* The source of a new block: the caller's hooks when installed, else the pool when the
 * allocation is stream-ordered and the device has one, else cudaMalloc. */
static block_source source_of(spx_ctx *ctx, int ordered)
{
    if (ctx->device_alloc.alloc) return FROM_HOOKS;
    return ordered && spx_cuda_pool(ctx) ? FROM_POOL : FROM_CUDA_MALLOC;
}

/* bytes from `from` into *p (NULL on failure, with the message); cudaMalloc short of memory is
 * tried once more after the pool gave back what it caches. */
static spx_status take_block(spx_ctx *ctx, block_source from, void **p, size_t bytes)
{
    char need[32];
    if (from == FROM_HOOKS) {
        if (ctx->device_alloc.alloc(ctx->device_alloc.user, p, bytes) == 0 && *p) return SPX_OK;
        *p = NULL;
        return spx_fail(ctx, SPX_ERR_DEVICE_ALLOC, "device memory: the caller's device allocator refused %s",
                        spx_bytes_str((double)bytes, need, sizeof need));
    }
    if (from == FROM_POOL) {
        cudaError_t e = spx_cuda_pool_take(ctx, spx_cuda_pool(ctx), p, bytes);
        return e == cudaSuccess ? SPX_OK : device_refused(ctx, bytes, "the context's pool", e);
    }
    cudaError_t e = cudaMalloc(p, bytes);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        if (spx_cuda_pool_trim(ctx)) e = cudaMalloc(p, bytes);
    }
    if (e == cudaSuccess) return SPX_OK;
    *p = NULL;
    return device_refused(ctx, bytes, "cudaMalloc", e);
}

/* Returns p to whichever allocator made it. A block from the pool goes back on the context's
 * stream; unless `ordered` (every use of it queued on that stream), after a device-wide wait,
 * as cudaFree waits. The caller's hooks get it after the stream's work when `ordered` (they
 * need not wait for the device), at once otherwise, as always. */
static void release_block(spx_ctx *ctx, void *p, int pooled, int ordered)
{
    if (ctx->device_alloc.free) {
        if (ordered && cudaStreamSynchronize(spx_cuda_stream(ctx)) != cudaSuccess) (void)cudaGetLastError();
        ctx->device_alloc.free(ctx->device_alloc.user, p);
        return;
    }
    if (pooled) {
        if (!ordered && cudaDeviceSynchronize() != cudaSuccess) (void)cudaGetLastError();
        if (cudaFreeAsync(p, spx_cuda_stream(ctx)) == cudaSuccess) return;
        (void)cudaGetLastError(); /* e.g. the context's stream is gone: cudaFree takes any block */
    }
    if (cudaFree(p) != cudaSuccess) (void)cudaGetLastError();
}

/* Records a live device block in the context's table; SPX_ERR_NOMEM if the table cannot grow. */
static spx_status track_block(spx_ctx *ctx, void *p, size_t bytes, int pooled)
{
    spx_cuda_state *st = (spx_cuda_state *)ctx->cuda;
    if (st->n_blocks == st->cap_blocks) {
        size_t cap = st->cap_blocks ? 2 * st->cap_blocks : 32;
        spx_cuda_block *nb = (spx_cuda_block *)spx_realloc(ctx, st->blocks, cap * sizeof *nb);
        if (!nb) return spx_fail_nomem(ctx, "device allocation table");
        st->blocks = nb;
        st->cap_blocks = cap;
    }
    st->blocks[st->n_blocks].ptr = p;
    st->blocks[st->n_blocks].bytes = bytes;
    st->blocks[st->n_blocks].pooled = pooled;
    st->n_blocks++;
    st->n_pooled += pooled != 0;
    return SPX_OK;
}

/* Removes p from the table; returns its entry (bytes 0, not pooled, when it is not there). */
static spx_cuda_block untrack_block(spx_ctx *ctx, void *p)
{
    spx_cuda_state *st = (spx_cuda_state *)ctx->cuda;
    spx_cuda_block b = {p, 0, 0};
    for (size_t i = st ? st->n_blocks : 0; i-- > 0;) {
        if (st->blocks[i].ptr != p) continue;
        b = st->blocks[i];
        st->blocks[i] = st->blocks[--st->n_blocks];
        st->n_pooled -= b.pooled != 0;
        break;
    }
    return b;
}

/* spx_cuda_malloc (ordered 0) and spx_cuda_malloc_async (ordered 1): budget, injection, the
 * block from its source, the table. */
static spx_status device_alloc(spx_ctx *ctx, void **p, size_t bytes, int ordered)
{
    *p = NULL;
    if (bytes == 0) return SPX_OK;
    spx_status s = spx_cuda_init(ctx);
    if (s) return s;
    if ((s = reserve_device(ctx, bytes))) return s;
    const block_source from = source_of(ctx, ordered);
    if ((s = take_block(ctx, from, p, bytes)) || (s = track_block(ctx, *p, bytes, from == FROM_POOL))) {
        if (*p) release_block(ctx, *p, from == FROM_POOL, 1);
        *p = NULL;
        spx_mem_release(&ctx->dev, bytes);
    }
    return s;
}

/* spx_cuda_free and spx_cuda_free_async: the block untracked, its bytes released, the block
 * returned (ordered: as spx_cuda_free_async promises). */
static void device_free(spx_ctx *ctx, void *p, int ordered)
{
    if (!p) return;
    if (!ctx) {
        if (cudaFree(p) != cudaSuccess) (void)cudaGetLastError();
        return;
    }
    const spx_cuda_block b = untrack_block(ctx, p);
    spx_mem_release(&ctx->dev, b.bytes);
    release_block(ctx, p, b.pooled, ordered);
}

extern "C" spx_status spx_cuda_malloc(spx_ctx *ctx, void **p, size_t bytes)
{
    if (!ctx || !p) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_cuda_malloc: NULL argument") : SPX_ERR_ARG;
    return device_alloc(ctx, p, bytes, 0);
}

extern "C" void spx_cuda_free(spx_ctx *ctx, void *p) { device_free(ctx, p, 0); }

extern "C" spx_status spx_cuda_malloc_async(spx_ctx *ctx, void **p, size_t bytes)
{
    if (!ctx || !p) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_cuda_malloc_async: NULL argument") : SPX_ERR_ARG;
    return device_alloc(ctx, p, bytes, 1);
}

extern "C" void spx_cuda_free_async(spx_ctx *ctx, void *p) { device_free(ctx, p, 1); }

extern "C" size_t spx_cuda_block_count(const spx_ctx *ctx)
{
    const spx_cuda_state *st = ctx ? spx_cuda_state_of(ctx) : NULL;
    return st ? st->n_blocks : 0;
}

extern "C" spx_status spx_cuda_mem_info(spx_ctx *ctx, size_t *free_bytes, size_t *total_bytes)
{
    if (!ctx || !free_bytes || !total_bytes) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_cuda_mem_info: NULL argument") : SPX_ERR_ARG;
    spx_status s = spx_cuda_init(ctx);
    if (s) return s;
    SPX_CUDA_RET(ctx, cudaMemGetInfo(free_bytes, total_bytes));
    size_t reserved = 0, used = 0; /* what the context's pool caches is the context's to use */
    spx_cuda_pool_usage(ctx, &reserved, &used);
    if (reserved > used) *free_bytes += reserved - used;
    if (*free_bytes > *total_bytes) *free_bytes = *total_bytes;
    return SPX_OK;
}

extern "C" spx_status spx_cuda_stream_create(spx_ctx *ctx, void **stream)
{
    if (!ctx || !stream) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_cuda_stream_create: NULL argument") : SPX_ERR_ARG;
    spx_status s = spx_cuda_init(ctx);
    if (s) return s;
    cudaStream_t st = NULL;
    SPX_CUDA_RET(ctx, cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    *stream = (void *)st;
    return SPX_OK;
}

extern "C" int spx_cuda_side_streams(spx_ctx *ctx, int want, cudaStream_t *out)
{
    spx_cuda_state *st = (spx_cuda_state *)ctx->cuda;
    if (!st) return 0;
    if (want > SPX_CUDA_SIDE_STREAMS) want = SPX_CUDA_SIDE_STREAMS;
    while (st->sides < want && cudaStreamCreateWithFlags(&st->side[st->sides], cudaStreamNonBlocking) == cudaSuccess)
        st->sides++;
    (void)cudaGetLastError(); /* a failed creation leaves no error behind */
    const int n = st->sides < want ? st->sides : want;
    for (int j = 0; j < n; j++) out[j] = st->side[j];
    return n;
}

extern "C" void spx_cuda_stream_destroy(void *stream)
{
    if (stream && cudaStreamDestroy((cudaStream_t)stream) != cudaSuccess) (void)cudaGetLastError();
}

extern "C" spx_status spx_cuda_h2d_async(spx_ctx *ctx, void *dst, const void *src, size_t bytes)
{
    if (!ctx) return SPX_ERR_ARG;
    if (bytes == 0) return SPX_OK;
    SPX_CUDA_RET(ctx, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, spx_cuda_stream(ctx)));
    return SPX_OK;
}

extern "C" spx_status spx_cuda_d2h_async(spx_ctx *ctx, void *dst, const void *src, size_t bytes)
{
    if (!ctx) return SPX_ERR_ARG;
    if (bytes == 0) return SPX_OK;
    SPX_CUDA_RET(ctx, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, spx_cuda_stream(ctx)));
    return SPX_OK;
}

extern "C" spx_status spx_cuda_pinned_alloc(spx_ctx *ctx, void **p, size_t bytes)
{
    if (!ctx || !p) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_cuda_pinned_alloc: NULL argument") : SPX_ERR_ARG;
    *p = NULL;
    spx_status s = spx_cuda_init(ctx);
    if (s) return s;
    if (!spx_mem_reserve(&ctx->host, bytes)) return spx_fail_nomem(ctx, "pinned host buffer");
    cudaError_t e = cudaMallocHost(p, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        *p = NULL;
        spx_mem_release(&ctx->host, bytes);
        return spx_cuda_fail_at(ctx, e, "cudaMallocHost", __FILE__, __LINE__);
    }
    return SPX_OK;
}

extern "C" void spx_cuda_pinned_free(spx_ctx *ctx, void *p, size_t bytes)
{
    if (!p) return;
    if (ctx) spx_mem_release(&ctx->host, bytes);
    if (cudaFreeHost(p) != cudaSuccess) (void)cudaGetLastError();
}

extern "C" int spx_cuda_host_register(spx_ctx *ctx, void *p, size_t bytes)
{
    if (!ctx || !p || bytes == 0 || spx_cuda_init(ctx) != SPX_OK) return 0;
    if (cudaHostRegister(p, bytes, cudaHostRegisterDefault) == cudaSuccess) return 1;
    (void)cudaGetLastError(); /* e.g. already registered: the range stays as it was */
    return 0;
}

extern "C" void spx_cuda_host_unregister(void *p)
{
    if (p && cudaHostUnregister(p) != cudaSuccess) (void)cudaGetLastError();
}

extern "C" spx_status spx_cuda_d2d_async(spx_ctx *ctx, void *dst, const void *src, size_t bytes)
{
    if (!ctx) return SPX_ERR_ARG;
    if (bytes == 0) return SPX_OK;
    SPX_CUDA_RET(ctx, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, spx_cuda_stream(ctx)));
    return SPX_OK;
}

extern "C" spx_status spx_cuda_d2d_2d_async(spx_ctx *ctx, void *dst, size_t dpitch, const void *src, size_t spitch,
                                            size_t width, size_t rows)
{
    if (!ctx) return SPX_ERR_ARG;
    if (width == 0 || rows == 0) return SPX_OK;
    SPX_CUDA_RET(ctx, cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows, cudaMemcpyDeviceToDevice,
                                        spx_cuda_stream(ctx)));
    return SPX_OK;
}

extern "C" int spx_cuda_pointer_device(const void *p)
{
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    return a.type == cudaMemoryTypeDevice ? a.device : -1;
}

/* One synchronised copy of the given kind on the context's stream (a large one between
 * pageable host memory and the device through the staging ring: staged_copy.cu). */
static spx_status copy_sync(spx_ctx *ctx, void *dst, const void *src, size_t bytes, cudaMemcpyKind kind)
{
    if (bytes == 0) return SPX_OK;
    if (!dst || !src) return spx_fail(ctx, SPX_ERR_ARG, "CUDA copy of %zu bytes with a NULL pointer", bytes);
    spx_status staged = SPX_OK;
    if (kind != cudaMemcpyDeviceToDevice &&
        spx_cuda_staged_copy(ctx, dst, src, bytes, kind == cudaMemcpyHostToDevice, &staged))
        return staged;
    cudaStream_t st = spx_cuda_stream(ctx);
    SPX_CUDA_RET(ctx, cudaMemcpyAsync(dst, src, bytes, kind, st));
    SPX_CUDA_RET(ctx, cudaStreamSynchronize(st));
    return SPX_OK;
}

extern "C" spx_status spx_cuda_h2d(spx_ctx *ctx, void *dst, const void *src, size_t bytes)
{
    if (!ctx) return SPX_ERR_ARG;
    return copy_sync(ctx, dst, src, bytes, cudaMemcpyHostToDevice);
}

extern "C" spx_status spx_cuda_d2h(spx_ctx *ctx, void *dst, const void *src, size_t bytes)
{
    if (!ctx) return SPX_ERR_ARG;
    return copy_sync(ctx, dst, src, bytes, cudaMemcpyDeviceToHost);
}

/* rows pieces of width bytes, spitch and dpitch bytes apart, copied on the context's stream by
 * one cudaMemcpy2DAsync, then waited for. */
static spx_status copy_2d_sync(spx_ctx *ctx, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                               size_t rows, cudaMemcpyKind kind)
{
    if (width == 0 || rows == 0) return SPX_OK;
    if (!dst || !src) return spx_fail(ctx, SPX_ERR_ARG, "CUDA 2D copy of %zu x %zu bytes with a NULL pointer", rows, width);
    if (dpitch < width || spitch < width)
        return spx_fail(ctx, SPX_ERR_ARG, "CUDA 2D copy: pitches %zu and %zu below the width %zu", dpitch, spitch, width);
    cudaStream_t st = spx_cuda_stream(ctx);
    SPX_CUDA_RET(ctx, cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows, kind, st));
    SPX_CUDA_RET(ctx, cudaStreamSynchronize(st));
    return SPX_OK;
}

extern "C" spx_status spx_cuda_h2d_2d(spx_ctx *ctx, void *dst, size_t dpitch, const void *src, size_t spitch,
                                      size_t width, size_t rows)
{
    if (!ctx) return SPX_ERR_ARG;
    return copy_2d_sync(ctx, dst, dpitch, src, spitch, width, rows, cudaMemcpyHostToDevice);
}

extern "C" spx_status spx_cuda_d2h_2d(spx_ctx *ctx, void *dst, size_t dpitch, const void *src, size_t spitch,
                                      size_t width, size_t rows)
{
    if (!ctx) return SPX_ERR_ARG;
    return copy_2d_sync(ctx, dst, dpitch, src, spitch, width, rows, cudaMemcpyDeviceToHost);
}

extern "C" spx_status spx_cuda_sync(spx_ctx *ctx)
{
    if (!ctx) return SPX_ERR_ARG;
    SPX_CUDA_RET(ctx, cudaStreamSynchronize(spx_cuda_stream(ctx)));
    return SPX_OK;
}

extern "C" spx_status spx_cuda_timer_create(spx_ctx *ctx, spx_cuda_timer **t)
{
    if (!ctx || !t) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_cuda_timer_create: NULL argument") : SPX_ERR_ARG;
    spx_status s = spx_cuda_init(ctx);
    if (s) return s;
    spx_cuda_timer *tm = (spx_cuda_timer *)spx_calloc_array(ctx, 1, sizeof *tm);
    if (!tm) return spx_fail_nomem(ctx, "CUDA timer");
    cudaError_t e = cudaEventCreate(&tm->start);
    if (e == cudaSuccess) {
        e = cudaEventCreate(&tm->stop);
        if (e != cudaSuccess) (void)cudaEventDestroy(tm->start);
    }
    if (e != cudaSuccess) {
        spx_free(ctx, tm);
        return spx_cuda_fail_at(ctx, e, "cudaEventCreate", __FILE__, __LINE__);
    }
    *t = tm;
    return SPX_OK;
}

extern "C" spx_status spx_cuda_timer_start(spx_ctx *ctx, spx_cuda_timer *t)
{
    if (!ctx || !t) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_cuda_timer_start: NULL timer") : SPX_ERR_ARG;
    SPX_CUDA_RET(ctx, cudaEventRecord(t->start, spx_cuda_stream(ctx)));
    return SPX_OK;
}

extern "C" spx_status spx_cuda_timer_stop(spx_ctx *ctx, spx_cuda_timer *t, double *seconds)
{
    if (!ctx || !t || !seconds)
        return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_cuda_timer_stop: NULL argument") : SPX_ERR_ARG;
    float ms = 0.0f;
    SPX_CUDA_RET(ctx, cudaEventRecord(t->stop, spx_cuda_stream(ctx)));
    SPX_CUDA_RET(ctx, cudaEventSynchronize(t->stop));
    SPX_CUDA_RET(ctx, cudaEventElapsedTime(&ms, t->start, t->stop));
    *seconds = 1e-3 * (double)ms;
    return SPX_OK;
}

extern "C" void spx_cuda_timer_destroy(spx_ctx *ctx, spx_cuda_timer *t)
{
    if (!t) return;
    (void)cudaEventDestroy(t->start);
    (void)cudaEventDestroy(t->stop);
    (void)cudaGetLastError();
    if (ctx) spx_free(ctx, t);
}

extern "C" spx_status spx_cuda_flush_l2(spx_ctx *ctx)
{
    if (!ctx) return SPX_ERR_ARG;
    spx_status s = spx_cuda_init(ctx);
    if (s) return s;
    spx_cuda_state *st = (spx_cuda_state *)ctx->cuda;
    if (!st->flush_buf) {
        size_t l2 = st->l2_bytes > 0 ? (size_t)st->l2_bytes : ((size_t)64 << 20);
        void *p = NULL;
        s = spx_cuda_malloc(ctx, &p, 2 * l2);
        if (s) return s;
        st->flush_buf = p;
        st->flush_bytes = 2 * l2;
    }
    /* Writing twice the L2's size evicts every line the SpMV could find there. */
    SPX_CUDA_RET(ctx, cudaMemsetAsync(st->flush_buf, 0x5a, st->flush_bytes, spx_cuda_stream(ctx)));
    return SPX_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

extern "C" spx_status spx_cuda_copy_bandwidth(spx_ctx *ctx, double *bytes_per_s)
{
    if (!ctx || !bytes_per_s)
        return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_cuda_copy_bandwidth: NULL argument") : SPX_ERR_ARG;
    spx_status s = spx_cuda_init(ctx);
    if (s) return s;
    cudaStream_t stream = spx_cuda_stream(ctx);
    void *src = NULL, *dst = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    double t[SPX_BW_REPS];
    size_t free_b = 0, total_b = 0, bytes = SPX_BW_MAX_BYTES;
    SPX_CUDA_GOTO(ctx, s, cudaMemGetInfo(&free_b, &total_b));
    while (bytes > SPX_BW_MIN_BYTES && 2 * bytes > free_b / 2) bytes /= 2; /* use at most half */
    if ((s = spx_cuda_malloc(ctx, &src, bytes))) goto done;
    if ((s = spx_cuda_malloc(ctx, &dst, bytes))) goto done;
    SPX_CUDA_GOTO(ctx, s, cudaEventCreate(&e0));
    SPX_CUDA_GOTO(ctx, s, cudaEventCreate(&e1));
    SPX_CUDA_GOTO(ctx, s, cudaMemsetAsync(src, 0x3c, bytes, stream));
    for (int r = 0; r < SPX_BW_WARMUP; r++)
        SPX_CUDA_GOTO(ctx, s, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
    for (int r = 0; r < SPX_BW_REPS; r++) {
        float ms = 0.0f;
        SPX_CUDA_GOTO(ctx, s, cudaEventRecord(e0, stream));
        SPX_CUDA_GOTO(ctx, s, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
        SPX_CUDA_GOTO(ctx, s, cudaEventRecord(e1, stream));
        SPX_CUDA_GOTO(ctx, s, cudaEventSynchronize(e1));
        SPX_CUDA_GOTO(ctx, s, cudaEventElapsedTime(&ms, e0, e1));
        t[r] = 1e-3 * (double)ms;
    }
    qsort(t, SPX_BW_REPS, sizeof t[0], cmp_double);
    if (!(t[SPX_BW_REPS / 2] > 0.0)) {
        s = spx_fail(ctx, SPX_ERR_CUDA, "CUDA: copy bandwidth: the timed copy took no measurable time");
        goto done;
    }
    *bytes_per_s = 2.0 * (double)bytes / t[SPX_BW_REPS / 2]; /* bytes read + bytes written */
done:
    if (e0) (void)cudaEventDestroy(e0);
    if (e1) (void)cudaEventDestroy(e1);
    spx_cuda_free(ctx, src);
    spx_cuda_free(ctx, dst);
    return s;
}

namespace {

/* Keeps one thread busy for at least `cycles` clock cycles (tests: holds a stream). */
__global__ void spx_spin_kernel(long long cycles)
{
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

/* y[i] = b*y[i], or 0 when read_y is false (b == 0: y is never read). */
template <typename VT>
__global__ void __launch_bounds__(SPX_SCALE_BLOCK) spx_scale_y_kernel(int64_t m, VT *__restrict__ y, double b,
                                                                     bool read_y)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += (int64_t)gridDim.x * blockDim.x)
        y[i] = read_y ? (VT)(b * (double)y[i]) : VT(0);
}

} /* namespace */

extern "C" spx_status spx_cuda_spin(spx_ctx *ctx, double seconds)
{
    if (!ctx) return SPX_ERR_ARG;
    spx_status s = spx_cuda_init(ctx);
    if (s) return s;
    int khz = 0;
    SPX_CUDA_RET(ctx, cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, ctx->device));
    spx_spin_kernel<<<1, 1, 0, spx_cuda_stream(ctx)>>>((long long)(seconds * 1e3 * (double)(khz > 0 ? khz : 2000000)));
    SPX_CUDA_LAUNCHED(ctx, "spx_spin_kernel");
    return SPX_OK;
}

spx_status spx_cuda_scale_y(spx_ctx *ctx, spx_precision prec, int64_t m, double b, void *y)
{
    if (m <= 0) return SPX_OK;
    if (!y) return spx_fail(ctx, SPX_ERR_ARG, "spmv: NULL y");
    unsigned grid = spx_cuda_grid_stride_blocks(ctx, m, SPX_SCALE_BLOCK, SPX_SCALE_BLOCKS_PER_SM);
    cudaStream_t st = spx_cuda_stream(ctx);
    if (prec == SPX_FP32)
        spx_scale_y_kernel<float><<<grid, SPX_SCALE_BLOCK, 0, st>>>(m, (float *)y, b, b != 0.0);
    else
        spx_scale_y_kernel<double><<<grid, SPX_SCALE_BLOCK, 0, st>>>(m, (double *)y, b, b != 0.0);
    SPX_CUDA_LAUNCHED(ctx, "spx_scale_y_kernel");
    return SPX_OK;
}
