/* src/cuda/runtime.cuh: the per-context CUDA state (device properties read at run time) and the
 * small runtime helpers the .cu files share: the context's stream, grid sizing, y = b*y. */
#ifndef SPX_CUDA_RUNTIME_CUH
#define SPX_CUDA_RUNTIME_CUH

#include <stdint.h>

#include "cuda/check.cuh"

/* The ring of page-locked buffers large copies go through (staged_copy.cu). */
typedef struct spx_cuda_stage spx_cuda_stage;

/* The most side streams a context keeps (spx_cuda_side_streams). */
#define SPX_CUDA_SIDE_STREAMS 8

/* One live device allocation. */
typedef struct spx_cuda_block {
    void *ptr;
    size_t bytes;
    int pooled; /* from the context's pool (pool.cu), else from cudaMalloc or the caller's hooks */
} spx_cuda_block;

/* What spx_cuda_init reads from the device; hung on ctx->cuda, freed by spx_cuda_release. */
typedef struct spx_cuda_state {
    int device;
    int sm_count;
    long long l2_bytes;
    long long global_bytes;
    int smem_per_block_optin;
    int max_threads_per_sm;
    int cc_major, cc_minor;
    int runtime_version, driver_version;
    char name[256];
    void *flush_buf; /* lazily allocated by spx_cuda_flush_l2 */
    size_t flush_bytes;
    spx_cuda_block *blocks; /* the live device allocations, for accounting their frees */
    size_t n_blocks, cap_blocks;
    size_t n_pooled;        /* of which from the pool */
    cudaMemPool_t pool;     /* the stream-ordered allocations' pool (pool.cu), made on first use */
    int pool_refused;       /* making it failed once (no pools on this device): cudaMalloc instead */
    spx_cuda_stage *stage; /* made by the first staged copy, freed by spx_cuda_release */
    int stage_refused;     /* making it failed once, or it was dropped: copies stay direct */
    cudaStream_t side[SPX_CUDA_SIDE_STREAMS]; /* made by spx_cuda_side_streams, kept until release */
    int sides;
    struct spx_cuda_blas_lib *blas; /* cuBLAS loaded and a handle (src/cuda/blas.cu), made by
                                       spx_cuda_blas_open, kept until release; NULL: none yet */
} spx_cuda_state;

/* A synchronous copy of `bytes` between pageable host memory and the device (to_device: src
 * is the host's) through the context's staging ring, when it is large enough to gain and the
 * ring can be had: returns 1 with the copy's status in *s, else 0 (nothing done: the caller
 * copies directly). */
extern "C" int spx_cuda_staged_copy(spx_ctx *ctx, void *dst, const void *src, size_t bytes, int to_device,
                                    spx_status *s);
/* Frees a staging ring (NULL: nothing). */
extern "C" void spx_cuda_stage_free(spx_ctx *ctx, spx_cuda_stage *g);

/* The context's memory pool (src/cuda/pool.cu): the pool of spx_cuda_malloc_async, made on
 * first use on the context's device with its release threshold at the device budget (none: all
 * it holds is kept), so that memory freed by one call serves the next without cudaMalloc;
 * NULL when the device has no pools or making one failed (then never tried again). */
extern "C" cudaMemPool_t spx_cuda_pool(spx_ctx *ctx);
/* bytes from the pool on the context's stream into *p (NULL on failure); when the pool cannot
 * grow, what it caches is given back to the device (after a device-wide wait, so that every
 * queued free has happened) and the allocation tried once more. Leaves no CUDA error behind. */
extern "C" cudaError_t spx_cuda_pool_take(spx_ctx *ctx, cudaMemPool_t pool, void **p, size_t bytes);
/* Gives what the context's pool caches back to the device (after a device-wide wait); 1 when
 * it cached anything, 0 when not (or no pool). */
extern "C" int spx_cuda_pool_trim(spx_ctx *ctx);
/* The pool's bytes reserved from the device and handed out; zeros without a pool. */
extern "C" void spx_cuda_pool_usage(const spx_ctx *ctx, size_t *reserved, size_t *used);
/* Destroys the pool (at the context's release, or when dropped with no block out); CUDA gives
 * its memory back once every block from it is freed. */
extern "C" void spx_cuda_pool_destroy(spx_cuda_state *st);

/* Up to `want` (at most SPX_CUDA_SIDE_STREAMS) non-blocking streams of the context for work a
 * phase spreads beside the context's stream, copied into out: made on first use and kept until
 * the context is released, since a stream costs ~22 us to make (H100, CUDA 13) and plans are
 * often made per product. Returns how many there are (0: none could be made; no error left). */
extern "C" int spx_cuda_side_streams(spx_ctx *ctx, int want, cudaStream_t *out);

/* cuBLAS for the context (src/cuda/blas.cu): the library loaded (dlopen) and a handle made on
 * first use, kept until the context is released (milliseconds: cuBLAS loads its kernels);
 * SPX_ERR_CUDA when the library cannot be loaded or the handle made. Not for several host
 * threads at once on one context. cuBLAS's workspace is its own allocation, outside the
 * context's device accounting. */
typedef struct spx_cuda_blas_lib spx_cuda_blas_lib;
extern "C" spx_status spx_cuda_blas_open(spx_ctx *ctx);
/* C = A * B, column-major (m x k times k x n, leading dimensions lda, ldb, ldc), in precision p,
 * queued on the context's stream by cuBLAS (spx_cuda_blas_open first, if need be). */
extern "C" spx_status spx_cuda_gemm(spx_ctx *ctx, spx_precision p, int m, int n, int k, const void *A, int lda,
                                    const void *B, int ldb, void *C, int ldc);
/* Destroys b's handle and unloads the library (NULL: nothing). */
extern "C" void spx_cuda_blas_close(spx_ctx *ctx, spx_cuda_blas_lib *b);

/* The context's stream (NULL = the default stream). */
static inline cudaStream_t spx_cuda_stream(const spx_ctx *ctx)
{
    return (cudaStream_t)ctx->cuda_stream;
}

/* The context's device state, or NULL before spx_cuda_init. */
static inline const spx_cuda_state *spx_cuda_state_of(const spx_ctx *ctx)
{
    return (const spx_cuda_state *)ctx->cuda;
}

/* Blocks for a grid-stride kernel over `items` with `block` threads: enough to cover the items,
 * at most blocks_per_sm per SM of the context's device (1 <= result <= 2^31 - 1). */
static inline unsigned spx_cuda_grid_stride_blocks(const spx_ctx *ctx, long long items, int block,
                                                   int blocks_per_sm)
{
    const spx_cuda_state *st = spx_cuda_state_of(ctx);
    long long cap = (long long)(st && st->sm_count > 0 ? st->sm_count : 132) * blocks_per_sm;
    long long need = (items + block - 1) / block;
    if (need < 1) need = 1;
    return (unsigned)(need < cap ? need : cap);
}

/* Lets kernel launch with up to all the dynamic shared memory the device allows beside its
 * static part. The attribute is per function and process-wide: setting it to one launch's or
 * one plan's own size lowers it under another thread's launch or another live plan (the
 * out-of-core SpGEMM's GPU lanes raced on exactly that), so every caller sets this maximum. */
template <typename K>
static inline spx_status spx_cuda_allow_max_smem(spx_ctx *ctx, K kernel)
{
    const spx_cuda_state *st = spx_cuda_state_of(ctx);
    int optin = st ? st->smem_per_block_optin : 0;
    if (optin <= 0) {
        int dev = 0;
        SPX_CUDA_RET(ctx, cudaGetDevice(&dev));
        SPX_CUDA_RET(ctx, cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    }
    cudaFuncAttributes fa;
    SPX_CUDA_RET(ctx, cudaFuncGetAttributes(&fa, kernel));
    const int cap = optin > (int)fa.sharedSizeBytes ? optin - (int)fa.sharedSizeBytes : 0;
    SPX_CUDA_RET(ctx, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, cap));
    return SPX_OK;
}

/* y[0..m) = b*y, or 0 when b == 0 (y not read), in the given precision; on the context's stream,
 * not synchronised. Used for matrices with no entries. */
spx_status spx_cuda_scale_y(spx_ctx *ctx, spx_precision prec, int64_t m, double b, void *y);

#endif
