/* src/core/ctx.c: the context: allocator hooks, last error, thread count, backend. */
#define _POSIX_C_SOURCE 200809L
#include "core/ctx.h"

#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda/gateway.h"

static void *default_alloc(void *user, size_t bytes) { (void)user; return malloc(bytes); }
static void *default_realloc(void *user, void *p, size_t bytes) { (void)user; return realloc(p, bytes); }
static void default_free(void *user, void *p) { (void)user; free(p); }

/* Creates a context with the given options (NULL = defaults). */
spx_status spx_ctx_create(spx_ctx **out, const spx_ctx_opts *opts)
{
    if (!out) return SPX_ERR_ARG;
    spx_ctx_opts o = {0};
    if (opts) o = *opts;
    if (o.backend < SPX_BACKEND_AUTO || o.backend > SPX_BACKEND_CUDA || o.threads < 0) return SPX_ERR_ARG;
    spx_allocator a = {default_alloc, default_realloc, default_free, NULL};
    if (o.alloc) {
        if (!o.alloc->alloc || !o.alloc->realloc || !o.alloc->free) return SPX_ERR_ARG;
        a = *o.alloc;
    }
    spx_ctx *ctx = a.alloc(a.user, sizeof *ctx);
    if (!ctx) return SPX_ERR_NOMEM;
    memset(ctx, 0, sizeof *ctx);
    ctx->backend = o.backend;
    ctx->threads = o.threads;
    ctx->device = o.device;
    ctx->alloc = a;
    *out = ctx;
    return SPX_OK;
}

/* Releases the context and its CUDA state; sets *pctx to NULL. */
void spx_ctx_destroy(spx_ctx **pctx)
{
    if (!pctx || !*pctx) return;
    spx_ctx *ctx = *pctx;
    spx_cuda_release(ctx);
    spx_allocator a = ctx->alloc;
    a.free(a.user, ctx);
    *pctx = NULL;
}

const char *spx_ctx_last_error(const spx_ctx *ctx) { return ctx ? ctx->last_error : ""; }

/* AUTO resolves to CUDA when it is built and a device answers, else CPU. */
spx_backend spx_ctx_resolved_backend(spx_ctx *ctx)
{
    if (ctx->backend != SPX_BACKEND_AUTO) return ctx->backend;
    return (spx_cuda_built() && spx_cuda_device_count() > 0) ? SPX_BACKEND_CUDA : SPX_BACKEND_CPU;
}

spx_status spx_ctx_set_stream(spx_ctx *ctx, void *stream)
{
    if (!ctx) return SPX_ERR_ARG;
    ctx->cuda_stream = stream;
    return SPX_OK;
}

int spx_cuda_compiled(void) { return spx_cuda_built(); }

const char *spx_backend_str(spx_backend b)
{
    switch (b) {
    case SPX_BACKEND_AUTO: return "auto";
    case SPX_BACKEND_CPU: return "cpu";
    case SPX_BACKEND_CUDA: return "cuda";
    }
    return "?";
}

void *spx_malloc(spx_ctx *ctx, size_t bytes)
{
    return ctx->alloc.alloc(ctx->alloc.user, bytes ? bytes : 1);
}

void *spx_realloc(spx_ctx *ctx, void *p, size_t bytes)
{
    return ctx->alloc.realloc(ctx->alloc.user, p, bytes ? bytes : 1);
}

void spx_free(spx_ctx *ctx, void *p)
{
    if (p) ctx->alloc.free(ctx->alloc.user, p);
}

void *spx_malloc_array(spx_ctx *ctx, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size) return NULL;
    return spx_malloc(ctx, count * size);
}

void *spx_calloc_array(spx_ctx *ctx, size_t count, size_t size)
{
    void *p = spx_malloc_array(ctx, count, size);
    if (p) memset(p, 0, count * size);
    return p;
}

spx_status spx_fail(spx_ctx *ctx, spx_status s, const char *fmt, ...)
{
    if (!ctx) return s;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->last_error, sizeof ctx->last_error, fmt, ap);
    va_end(ap);
    return s;
}

spx_status spx_fail_nomem(spx_ctx *ctx, const char *what)
{
    return spx_fail(ctx, SPX_ERR_NOMEM, "out of memory: %s", what);
}

double spx_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double spx_wtime(void) { return spx_now(); }

int spx_ctx_threads(const spx_ctx *ctx)
{
    int t = ctx && ctx->threads > 0 ? ctx->threads : omp_get_max_threads();
    return t > 0 ? t : 1;
}
