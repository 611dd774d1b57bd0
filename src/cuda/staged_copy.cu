/* src/cuda/staged_copy.cu: large synchronous copies between pageable host memory and the
 * device through the context's ring of page-locked buffers: the device side of one chunk
 * moves (DMA) while the host threads copy the chunk before it between the ring and the
 * caller's memory. The CUDA driver stages a pageable copy itself, but with one host thread,
 * and into fresh memory it faults the pages in one after the other.
 *
 * Measured on the H200 machine (16 cores), 2026-11-26, 2 GiB (xfer_cost.cu in
 * bench/results/2026-11-26-nvidia-h200-172325e-staged/; bench/NOTES.md): pageable D2H 12 GB/s into touched memory, 1.6 GB/s into fresh
 * memory, H2D 8-9 GB/s; page-locked memory 55 GB/s both ways; through a ring of 4 x 16 MiB
 * with 16 host threads 54 GB/s D2H (17 GB/s into fresh memory) and 53 GB/s H2D, with 8
 * threads 48 / 52 GB/s, with 4 threads 26-31 GB/s. Locking the caller's range instead
 * (cudaHostRegister) took 88 ms for 2 GiB and unlocking 35 ms: as slow as the pageable copy.
 *
 * The ring is made on the first copy of 32 MiB or more (or by spx_cuda_stage_make) and kept
 * until the context goes (then copies of 4 MiB or more take it): 64 MiB of the context's host
 * memory, made only while its host budget has room for 4 rings (else copies stay direct). A
 * context's copies share its ring: one thread at a time per context, as for every call. */
#include <string.h>

#include "core/host_copy.h"
#include "cuda/runtime.cuh"

/* A copy of at least this many bytes makes the ring: at 32 MiB the direct copy costs ~3 ms
 * and the staged one ~0.7 ms; the ring's set-up (~6 ms: touch and lock 64 MiB) is paid once
 * per context. */
#ifndef SPX_CUDA_STAGED_MIN_BYTES
#define SPX_CUDA_STAGED_MIN_BYTES (32ull << 20)
#endif
/* Once the ring is made, copies of at least this many bytes take it too: 4 MiB move and are
 * copied in ~0.3 ms (estimated from the rates above) against ~0.35 ms pageable into touched
 * memory and ~2.5 ms into fresh memory (the out-of-core panels' C slices of 20 MB went through the direct path
 * at 1.6 GB/s: poisson3d n=150 in 512 MiB, GPU panels 0.13 -> 0.33 s without C pre-touched). */
#define SPX_CUDA_STAGED_RING_MIN_BYTES ((size_t)4 << 20)
/* The ring: buffers of this many bytes (16 MiB x 4 was the fastest of 4-64 MiB x 2-4 in the
 * measurement above). */
#define SPX_CUDA_STAGE_CHUNK ((size_t)16 << 20)
#define SPX_CUDA_STAGE_BUFFERS 4
/* Host threads that copy a chunk: the context's, at most this many (16 were the fastest;
 * more cores only contend for the memory bus). */
#define SPX_CUDA_STAGE_MAX_THREADS 16
/* The ring is made only while the host budget has room for this many rings beside what the
 * context holds: a tight budget keeps its room for the caller's data (copies stay direct). */
#define SPX_CUDA_STAGE_ROOM_FACTOR 4
#define SPX_CUDA_STAGE_BYTES (SPX_CUDA_STAGE_BUFFERS * SPX_CUDA_STAGE_CHUNK)

struct spx_cuda_stage {
    char *host; /* SPX_CUDA_STAGE_BUFFERS x SPX_CUDA_STAGE_CHUNK bytes, page-locked */
    cudaEvent_t done[SPX_CUDA_STAGE_BUFFERS]; /* buffer b's device side finished */
    int events;                               /* how many of done[] exist */
};

/* The host threads that copy a chunk for ctx. */
static int stage_threads(const spx_ctx *ctx)
{
    const int t = spx_ctx_threads(ctx);
    return t < SPX_CUDA_STAGE_MAX_THREADS ? t : SPX_CUDA_STAGE_MAX_THREADS;
}

extern "C" void spx_cuda_stage_free(spx_ctx *ctx, spx_cuda_stage *g)
{
    if (!g) return;
    for (int b = 0; b < g->events; b++) (void)cudaEventDestroy(g->done[b]);
    if (g->host) {
        spx_cuda_host_unregister(g->host);
        spx_free(ctx, g->host);
    }
    spx_free(ctx, g);
}

/* A new ring, its pages touched by the copying threads and locked; NULL when the allocation
 * or the driver refuses (the caller then copies directly). */
static spx_cuda_stage *stage_new(spx_ctx *ctx)
{
    const size_t bytes = SPX_CUDA_STAGE_BYTES;
    spx_cuda_stage *g = (spx_cuda_stage *)spx_calloc_array(ctx, 1, sizeof *g);
    if (!g) return NULL;
    if ((g->host = (char *)spx_malloc(ctx, bytes)) != NULL) {
        spx_host_touch(g->host, bytes, stage_threads(ctx));
        if (!spx_cuda_host_register(ctx, g->host, bytes)) {
            spx_free(ctx, g->host);
            g->host = NULL;
        }
    }
    for (; g->host && g->events < SPX_CUDA_STAGE_BUFFERS; g->events++)
        if (cudaEventCreateWithFlags(&g->done[g->events], cudaEventDisableTiming) != cudaSuccess) break;
    if (g->host && g->events == SPX_CUDA_STAGE_BUFFERS) return g;
    (void)cudaGetLastError();
    spx_cuda_stage_free(ctx, g);
    return NULL;
}

/* Whether p is host memory the driver does not know (pageable: not page-locked, not managed). */
static int pageable(const void *p)
{
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeUnregistered;
}

/* The ring's buffer b. */
static char *buffer(const spx_cuda_stage *g, size_t b) { return g->host + b * SPX_CUDA_STAGE_CHUNK; }

/* Chunks of a copy of `bytes`. */
static size_t chunk_count(size_t bytes) { return (bytes + SPX_CUDA_STAGE_CHUNK - 1) / SPX_CUDA_STAGE_CHUNK; }

/* Bytes of chunk c of a copy of `bytes`. */
static size_t chunk_len(size_t bytes, size_t c)
{
    const size_t at = c * SPX_CUDA_STAGE_CHUNK;
    return bytes - at < SPX_CUDA_STAGE_CHUNK ? bytes - at : SPX_CUDA_STAGE_CHUNK;
}

/* Host to device: chunk c is copied into buffer c % B once that buffer's previous upload is
 * done, then queued; the host fills the next buffer while the device reads this one. */
static spx_status staged_h2d(spx_ctx *ctx, const spx_cuda_stage *g, char *dst, const char *src, size_t bytes)
{
    cudaStream_t st = spx_cuda_stream(ctx);
    const size_t chunks = chunk_count(bytes);
    const int threads = stage_threads(ctx);
    for (size_t c = 0; c < chunks; c++) {
        const size_t b = c % SPX_CUDA_STAGE_BUFFERS, at = c * SPX_CUDA_STAGE_CHUNK, len = chunk_len(bytes, c);
        if (c >= SPX_CUDA_STAGE_BUFFERS) SPX_CUDA_RET(ctx, cudaEventSynchronize(g->done[b]));
        spx_host_copy(buffer(g, b), src + at, len, threads);
        SPX_CUDA_RET(ctx, cudaMemcpyAsync(dst + at, buffer(g, b), len, cudaMemcpyHostToDevice, st));
        SPX_CUDA_RET(ctx, cudaEventRecord(g->done[b], st));
    }
    SPX_CUDA_RET(ctx, cudaStreamSynchronize(st));
    return SPX_OK;
}

/* Device to host: up to B chunks are queued ahead; chunk c is copied out of buffer c % B once
 * its download is done, while the later ones download. */
static spx_status staged_d2h(spx_ctx *ctx, const spx_cuda_stage *g, char *dst, const char *src, size_t bytes)
{
    cudaStream_t st = spx_cuda_stream(ctx);
    const size_t chunks = chunk_count(bytes);
    const int threads = stage_threads(ctx);
    size_t queued = 0;
    for (size_t c = 0; c < chunks; c++) {
        for (; queued < chunks && queued < c + SPX_CUDA_STAGE_BUFFERS; queued++) {
            const size_t b = queued % SPX_CUDA_STAGE_BUFFERS;
            SPX_CUDA_RET(ctx, cudaMemcpyAsync(buffer(g, b), src + queued * SPX_CUDA_STAGE_CHUNK,
                                              chunk_len(bytes, queued), cudaMemcpyDeviceToHost, st));
            SPX_CUDA_RET(ctx, cudaEventRecord(g->done[b], st));
        }
        const size_t b = c % SPX_CUDA_STAGE_BUFFERS;
        SPX_CUDA_RET(ctx, cudaEventSynchronize(g->done[b]));
        spx_host_copy(dst + c * SPX_CUDA_STAGE_CHUNK, buffer(g, b), chunk_len(bytes, c), threads);
    }
    return SPX_OK;
}

/* Whether ctx's ring exists, making it when budget's host budget has room for it (a failure
 * to allocate or lock it is remembered: copies then stay direct). */
static int stage_ready(spx_ctx *ctx, spx_cuda_state *st, const spx_ctx *budget)
{
    if (st->stage) return 1;
    if (st->stage_refused || spx_host_budget_room(budget) / SPX_CUDA_STAGE_ROOM_FACTOR < SPX_CUDA_STAGE_BYTES)
        return 0;
    st->stage = stage_new(ctx);
    st->stage_refused = st->stage == NULL;
    return st->stage != NULL;
}

extern "C" int spx_cuda_staged_copy(spx_ctx *ctx, void *dst, const void *src, size_t bytes, int to_device,
                                    spx_status *s)
{
    spx_cuda_state *st = (spx_cuda_state *)ctx->cuda;
    if (!st || bytes < (st->stage ? SPX_CUDA_STAGED_RING_MIN_BYTES : SPX_CUDA_STAGED_MIN_BYTES) ||
        !pageable(to_device ? src : dst) || !stage_ready(ctx, st, ctx))
        return 0;
    *s = to_device ? staged_h2d(ctx, st->stage, (char *)dst, (const char *)src, bytes)
                   : staged_d2h(ctx, st->stage, (char *)dst, (const char *)src, bytes);
    if (*s) (void)cudaStreamSynchronize(spx_cuda_stream(ctx)); /* no copy may still use the ring */
    return 1;
}

extern "C" size_t spx_cuda_stage_make(spx_ctx *ctx, const spx_ctx *budget)
{
    if (!ctx || spx_cuda_init(ctx) != SPX_OK) return 0;
    return stage_ready(ctx, (spx_cuda_state *)ctx->cuda, budget ? budget : ctx) ? SPX_CUDA_STAGE_BYTES : 0;
}

extern "C" void spx_cuda_stage_drop(spx_ctx *ctx)
{
    spx_cuda_state *st = ctx ? (spx_cuda_state *)ctx->cuda : NULL;
    if (!st) return;
    spx_cuda_stage_free(ctx, st->stage);
    st->stage = NULL;
    st->stage_refused = 1;
}
