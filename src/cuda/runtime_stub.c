/* src/cuda/runtime_stub.c: the device runtime (gateway.h) for builds without CUDA: every entry
 * point reports SPX_ERR_NOT_COMPILED, so callers fail loudly instead of silently running on the
 * CPU. */
#include "cuda/gateway.h"

static spx_status not_compiled(spx_ctx *ctx)
{
    return spx_fail(ctx, SPX_ERR_NOT_COMPILED, "the CUDA backend is not compiled into this build");
}

int spx_cuda_built(void) { return 0; }
int spx_cuda_device_count(void) { return 0; }
spx_status spx_cuda_init(spx_ctx *ctx) { return not_compiled(ctx); }
spx_status spx_cuda_query(spx_ctx *ctx, spx_device_info *out) { return not_compiled(ctx); }
spx_status spx_cuda_malloc(spx_ctx *ctx, void **p, size_t bytes) { return not_compiled(ctx); }
spx_status spx_cuda_malloc_async(spx_ctx *ctx, void **p, size_t bytes) { return not_compiled(ctx); }
void spx_cuda_free_async(spx_ctx *ctx, void *p) { (void)ctx; (void)p; }
size_t spx_cuda_block_count(const spx_ctx *ctx) { (void)ctx; return 0; }
spx_status spx_cuda_pool_stats(spx_ctx *ctx, size_t *reserved, size_t *used) { return not_compiled(ctx); }
int spx_cuda_pool_room(spx_ctx *ctx, size_t bytes) { (void)ctx; (void)bytes; return 0; }
void spx_cuda_pool_drop(spx_ctx *ctx) { (void)ctx; }
spx_status spx_cuda_mem_info(spx_ctx *ctx, size_t *free_bytes, size_t *total_bytes) { return not_compiled(ctx); }
spx_status spx_cuda_stream_create(spx_ctx *ctx, void **stream) { return not_compiled(ctx); }
void spx_cuda_stream_destroy(void *stream) { (void)stream; }
spx_status spx_cuda_d2d_async(spx_ctx *ctx, void *dst, const void *src, size_t bytes) { return not_compiled(ctx); }
spx_status spx_cuda_h2d_async(spx_ctx *ctx, void *dst, const void *src, size_t bytes) { return not_compiled(ctx); }
spx_status spx_cuda_d2h_async(spx_ctx *ctx, void *dst, const void *src, size_t bytes) { return not_compiled(ctx); }
spx_status spx_cuda_d2d_2d_async(spx_ctx *ctx, void *d, size_t dp, const void *s, size_t sp, size_t w, size_t r)
{
    return not_compiled(ctx);
}
spx_status spx_cuda_pinned_alloc(spx_ctx *ctx, void **p, size_t bytes) { return not_compiled(ctx); }
int spx_cuda_host_register(spx_ctx *ctx, void *p, size_t bytes) { (void)ctx; (void)p; (void)bytes; return 0; }
void spx_cuda_host_unregister(void *p) { (void)p; }
size_t spx_cuda_stage_make(spx_ctx *ctx, const spx_ctx *budget) { (void)ctx; (void)budget; return 0; }
void spx_cuda_stage_drop(spx_ctx *ctx) { (void)ctx; }
void spx_cuda_pinned_free(spx_ctx *ctx, void *p, size_t bytes) { (void)ctx; (void)p; (void)bytes; }
int spx_cuda_pointer_device(const void *p) { (void)p; return -1; }
spx_status spx_cuda_spin(spx_ctx *ctx, double seconds) { return not_compiled(ctx); }
void spx_cuda_free(spx_ctx *ctx, void *p) { (void)ctx; (void)p; }
spx_status spx_cuda_h2d(spx_ctx *ctx, void *d, const void *s, size_t n) { return not_compiled(ctx); }
spx_status spx_cuda_d2h(spx_ctx *ctx, void *d, const void *s, size_t n) { return not_compiled(ctx); }
spx_status spx_cuda_h2d_2d(spx_ctx *ctx, void *d, size_t dp, const void *s, size_t sp, size_t w, size_t r)
{
    return not_compiled(ctx);
}
spx_status spx_cuda_d2h_2d(spx_ctx *ctx, void *d, size_t dp, const void *s, size_t sp, size_t w, size_t r)
{
    return not_compiled(ctx);
}
spx_status spx_cuda_sync(spx_ctx *ctx) { return not_compiled(ctx); }
spx_status spx_cuda_timer_create(spx_ctx *ctx, spx_cuda_timer **t) { return not_compiled(ctx); }
spx_status spx_cuda_timer_start(spx_ctx *ctx, spx_cuda_timer *t) { return not_compiled(ctx); }
spx_status spx_cuda_timer_stop(spx_ctx *ctx, spx_cuda_timer *t, double *s) { return not_compiled(ctx); }
void spx_cuda_timer_destroy(spx_ctx *ctx, spx_cuda_timer *t) { (void)ctx; (void)t; }
spx_status spx_cuda_flush_l2(spx_ctx *ctx) { return not_compiled(ctx); }
spx_status spx_cuda_copy_bandwidth(spx_ctx *ctx, double *b) { return not_compiled(ctx); }
spx_status spx_cuda_download_values(spx_ctx *ctx, double *dst, const void *src, spx_precision prec, int64_t n)
{
    return not_compiled(ctx);
}
