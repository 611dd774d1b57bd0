/* src/cuda/gateway.h: the device runtime, the ground floor of the CUDA code, as C functions:
 * devices and their properties, allocation through the context, copies, streams, events, pinned
 * buffers. It includes nothing above core: what lives on the device above it is declared where
 * it belongs (the device CSR and features: src/matrix/csr_dev.h, features.h; each operation's
 * GPU half: its own registry, src/spmv/format.h, src/spgemm/impl.h). Built from the .cu files
 * when CUDA is found, else from src/cuda/runtime_stub.c (SPX_ERR_NOT_COMPILED). Device pointers
 * cross this line as void*. */
#ifndef SPX_CUDA_GATEWAY_H
#define SPX_CUDA_GATEWAY_H

#include <stddef.h>

#include "core/ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when this build contains the CUDA backend. */
int spx_cuda_built(void);
/* Number of usable devices (0 when none or no driver); never fails. */
int spx_cuda_device_count(void);
/* Binds ctx to its device and reads its properties (idempotent); the state hangs on the context
 * with its release (ctx->cuda, ctx->cuda_release: spx_ctx_destroy frees it). */
spx_status spx_cuda_init(spx_ctx *ctx);
spx_status spx_cuda_query(spx_ctx *ctx, spx_device_info *out);

/* Device memory, accounted in the context: an allocation over the device budget, one the
 * device cannot meet (the message names its free memory) or one a test injected a failure
 * into fails with SPX_ERR_DEVICE_ALLOC and a message, leaving no CUDA error behind. Made by the
 * caller's hooks when installed, else by cudaMalloc. spx_cuda_free returns any block of the
 * context (one of spx_cuda_malloc_async's too) once the device is done with it, as cudaFree
 * does (the caller's hooks: at once). */
spx_status spx_cuda_malloc(spx_ctx *ctx, void **p, size_t bytes);
void spx_cuda_free(spx_ctx *ctx, void *p);
/* The same contract, stream-ordered, for the work of one call (SpGEMM's device path): the
 * block comes from the context's memory pool (src/cuda/pool.cu) on the context's stream, usable
 * by work queued there after this call (and on streams that wait for it), with no cudaMalloc
 * and no wait once the pool holds the memory from an earlier call. spx_cuda_free_async gives it
 * back on the context's stream: work queued there before may still use it, work on any other
 * stream must be done or joined into it first (a block the caller holds goes back with
 * spx_cuda_free instead). With the caller's hooks installed the pool is not used: their alloc
 * and free (after a wait for the context's stream). Without pools on the device: cudaMalloc
 * and cudaFree. */
spx_status spx_cuda_malloc_async(spx_ctx *ctx, void **p, size_t bytes);
void spx_cuda_free_async(spx_ctx *ctx, void *p);
/* The context's live device blocks (its table; tests: 0 once everything is back). */
size_t spx_cuda_block_count(const spx_ctx *ctx);
/* The context's pool: bytes it holds from the device and bytes handed out (0, 0 before it is
 * made or without one), after a wait for the context's stream (its queued frees done). */
spx_status spx_cuda_pool_stats(spx_ctx *ctx, size_t *reserved, size_t *used);
/* 1 when `bytes` more fit the device budget and the pool serves them now (taken from it and
 * given back at once on the context's stream: they stay cached for what follows); 0 when not,
 * or when the caller's hooks replace the pool or the device has none. Not an allocation: not
 * counted, never injected. */
int spx_cuda_pool_room(spx_ctx *ctx, size_t bytes);
/* Gives the pool's memory back to the device and destroys it when no block of it is out (else
 * gives back only what it caches); the next stream-ordered allocation makes a new one. For
 * measuring a cold first call; a context's pool otherwise lives as long as the context. */
void spx_cuda_pool_drop(spx_ctx *ctx);
/* The device's free memory, with what the context's pool caches unused counted as free (the
 * context's to take), and its total (cudaMemGetInfo). */
spx_status spx_cuda_mem_info(spx_ctx *ctx, size_t *free_bytes, size_t *total_bytes);
/* A new non-blocking stream (a cudaStream_t) on the context's device, and its release. */
spx_status spx_cuda_stream_create(spx_ctx *ctx, void **stream);
void spx_cuda_stream_destroy(void *stream);
/* Copies on the context's stream, not synchronised (host memory must stay valid until the
 * stream reaches them; pinned buffers make host copies truly asynchronous). */
spx_status spx_cuda_d2d_async(spx_ctx *ctx, void *dst, const void *src, size_t bytes);
spx_status spx_cuda_h2d_async(spx_ctx *ctx, void *dst, const void *src, size_t bytes);
spx_status spx_cuda_d2h_async(spx_ctx *ctx, void *dst, const void *src, size_t bytes);
/* rows pieces of width bytes, spitch and dpitch bytes apart, device to device (a strided column
 * of a row-major block gathered into a vector, or scattered back), queued. */
spx_status spx_cuda_d2d_2d_async(spx_ctx *ctx, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                 size_t rows);
/* Pinned (page-locked) host memory, counted against the host budget; free with its size. */
spx_status spx_cuda_pinned_alloc(spx_ctx *ctx, void **p, size_t bytes);
void spx_cuda_pinned_free(spx_ctx *ctx, void *p, size_t bytes);
/* Page-locks the caller's host range [p, p + bytes) in place (cudaHostRegister), so copies to
 * and from it run at the link's speed (H100: 53 GB/s against 8-13 GB/s pageable, for ~38 GB/s
 * of registration); 1 when done, 0 when not (no CUDA, nothing to lock, or the driver refused:
 * the range stays pageable and still works). Undo with spx_cuda_host_unregister. */
int spx_cuda_host_register(spx_ctx *ctx, void *p, size_t bytes);
void spx_cuda_host_unregister(void *p);
/* The device ordinal a device pointer belongs to; -1 for other pointers. */
int spx_cuda_pointer_device(const void *p);
/* Tests: occupies the context's stream for about `seconds` (one spinning thread). */
spx_status spx_cuda_spin(spx_ctx *ctx, double seconds);

/* Copies on the context's stream (these synchronise). Between pageable host memory and the
 * device, large ones go through the context's staging ring (src/cuda/staged_copy.cu). */
spx_status spx_cuda_h2d(spx_ctx *ctx, void *dst, const void *src, size_t bytes);
spx_status spx_cuda_d2h(spx_ctx *ctx, void *dst, const void *src, size_t bytes);
/* 2D copies (these synchronise too): `rows` pieces of `width` bytes, the source's spitch and
 * the destination's dpitch bytes apart (each >= width): a dense block with a leading
 * dimension, in one call. */
spx_status spx_cuda_h2d_2d(spx_ctx *ctx, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                           size_t rows);
spx_status spx_cuda_d2h_2d(spx_ctx *ctx, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                           size_t rows);
/* Makes the context's staging ring now (as its first large copy would) when the host budget
 * of `budget` (NULL: the context's own) has room; returns the host bytes the ring holds, 0
 * when there is none. */
size_t spx_cuda_stage_make(spx_ctx *ctx, const spx_ctx *budget);
/* Frees the context's staging ring, if any; its copies stay direct from then on. */
void spx_cuda_stage_drop(spx_ctx *ctx);
spx_status spx_cuda_sync(spx_ctx *ctx);

/* Event timer on the context's stream. */
typedef struct spx_cuda_timer spx_cuda_timer;
spx_status spx_cuda_timer_create(spx_ctx *ctx, spx_cuda_timer **t);
spx_status spx_cuda_timer_start(spx_ctx *ctx, spx_cuda_timer *t);
/* Records the stop event, waits for it, returns the elapsed seconds. */
spx_status spx_cuda_timer_stop(spx_ctx *ctx, spx_cuda_timer *t, double *seconds);
void spx_cuda_timer_destroy(spx_ctx *ctx, spx_cuda_timer *t);

/* Evicts the L2 by writing a buffer twice its size (for cold measurements). */
spx_status spx_cuda_flush_l2(spx_ctx *ctx);
/* Device-to-device copy bandwidth, bytes read + written per second, median of runs. */
spx_status spx_cuda_copy_bandwidth(spx_ctx *ctx, double *bytes_per_s);

/* Copies n values of precision prec from the device into dst (fp64; fp32 widened on the
 * host). */
spx_status spx_cuda_download_values(spx_ctx *ctx, double *dst, const void *src, spx_precision prec, int64_t n);

#ifdef __cplusplus
}
#endif
#endif
