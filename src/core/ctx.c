/* src/core/ctx.c: the context: allocator hooks with the host budget and accounting, last
 * error, thread count, backend asked for (its device side: src/cuda/ctx_device.c). */
#define _POSIX_C_SOURCE 200809L
#include "core/ctx.h"

#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/huge_pages.h"

/* Every host block carries its size in a header this long (16 keeps malloc's alignment), so
 * that frees can be accounted without a table. */
#define SPX_BLOCK_HEADER ((size_t)16)

/* The default allocator: malloc, with large blocks advised as huge pages unless user is NULL
 * (the environment's SPX_HUGE_PAGES=0 at context creation); else user is this constant's
 * address, only ever compared with NULL. */
static const int HUGE_PAGES_ON = 1;
static void *default_alloc(void *user, size_t bytes)
{
    void *p = malloc(bytes);
    if (user) (void)spx_advise_huge_pages(p, bytes);
    return p;
}
static void *default_realloc(void *user, void *p, size_t bytes)
{
    void *q = realloc(p, bytes);
    if (user) (void)spx_advise_huge_pages(q, bytes);
    return q;
}
static void default_free(void *user, void *p) { (void)user; free(p); }

/* Creates a context with the given options (NULL = defaults). */
spx_status spx_ctx_create(spx_ctx **out, const spx_ctx_opts *opts)
{
    if (!out) return SPX_ERR_ARG;
    spx_ctx_opts o = {0};
    if (opts) o = *opts;
    if (o.backend < SPX_BACKEND_AUTO || o.backend > SPX_BACKEND_CUDA || o.threads < 0) return SPX_ERR_ARG;
    const char *huge = getenv("SPX_HUGE_PAGES");
    spx_allocator a = {default_alloc, default_realloc, default_free,
                       huge && !strcmp(huge, "0") ? NULL : (void *)&HUGE_PAGES_ON};
    if (o.alloc) {
        if (!o.alloc->alloc || !o.alloc->realloc || !o.alloc->free) return SPX_ERR_ARG;
        a = *o.alloc;
    }
    spx_ctx *ctx = a.alloc(a.user, sizeof *ctx);
    if (!ctx) return SPX_ERR_NOMEM;
    memset(ctx, 0, sizeof *ctx);
    if (pthread_mutex_init(&ctx->error_lock, NULL) != 0) {
        a.free(a.user, ctx);
        return SPX_ERR_NOMEM;
    }
    ctx->backend = o.backend;
    ctx->threads = o.threads;
    ctx->device = o.device;
    ctx->alloc = a;
    if (o.device_alloc) {
        if (!o.device_alloc->alloc || !o.device_alloc->free) {
            pthread_mutex_destroy(&ctx->error_lock);
            a.free(a.user, ctx);
            return SPX_ERR_ARG;
        }
        ctx->device_alloc = *o.device_alloc;
    }
    ctx->host.budget = o.host_budget;
    if (ctx->host.budget == SPX_BUDGET_DEFAULT) ctx->host.budget = spx_host_available_bytes();
    if (ctx->host.budget == 0) ctx->host.budget = SPX_BUDGET_NONE; /* unknown: no limit */
    ctx->dev.budget = o.device_budget == SPX_BUDGET_DEFAULT ? SPX_BUDGET_NONE : o.device_budget;
    *out = ctx;
    return SPX_OK;
}

/* MemAvailable from /proc/meminfo (Linux), else the free physical pages; 0 when unknown. */
size_t spx_host_available_bytes(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[128];
        unsigned long long kb = 0;
        int found = 0;
        while (!found && fgets(line, sizeof line, f))
            found = sscanf(line, "MemAvailable: %llu kB", &kb) == 1;
        fclose(f);
        if (found) return (size_t)kb * 1024u;
    }
#if defined(_SC_AVPHYS_PAGES) && defined(_SC_PAGESIZE)
    long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) return (size_t)pages * (size_t)page;
#endif
    return 0;
}

spx_status spx_ctx_mem_stats(const spx_ctx *ctx, spx_mem_stats *out)
{
    if (!ctx || !out) return SPX_ERR_ARG;
    out->host_bytes = __atomic_load_n(&ctx->host.bytes, __ATOMIC_RELAXED);
    out->host_peak = __atomic_load_n(&ctx->host.peak, __ATOMIC_RELAXED);
    out->host_budget = ctx->host.budget;
    out->device_bytes = __atomic_load_n(&ctx->dev.bytes, __ATOMIC_RELAXED);
    out->device_peak = __atomic_load_n(&ctx->dev.peak, __ATOMIC_RELAXED);
    out->device_budget = ctx->dev.budget;
    return SPX_OK;
}

int spx_mem_reserve(spx_mem_account *a, size_t bytes)
{
    size_t held = __atomic_add_fetch(&a->bytes, bytes, __ATOMIC_RELAXED);
    if (bytes > SIZE_MAX - SPX_BLOCK_HEADER || held < bytes || held > a->budget) { /* wrapped, or over */
        held = __atomic_sub_fetch(&a->bytes, bytes, __ATOMIC_RELAXED);
        a->refused_bytes = bytes;
        a->refused_held = held;
        return 0;
    }
    size_t peak = __atomic_load_n(&a->peak, __ATOMIC_RELAXED);
    while (held > peak &&
           !__atomic_compare_exchange_n(&a->peak, &peak, held, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
    return 1;
}

void spx_mem_release(spx_mem_account *a, size_t bytes)
{
    __atomic_sub_fetch(&a->bytes, bytes, __ATOMIC_RELAXED);
}

const char *spx_mem_refusal_str(const spx_mem_account *a, const char *side, char *buf, size_t len)
{
    char need[32], budget[32], held[32];
    spx_bytes_str((double)a->refused_bytes, need, sizeof need);
    if (a->budget == SPX_BUDGET_NONE) { /* no budget: only a size past the address space fails */
        snprintf(buf, len, "%s cannot be addressed", need);
        return buf;
    }
    snprintf(buf, len, "%s more would exceed the %s budget %s (%s held)",
             need, side, spx_bytes_str((double)a->budget, budget, sizeof budget),
             spx_bytes_str((double)a->refused_held, held, sizeof held));
    return buf;
}

void spx_ctx_fail_device_alloc_at(spx_ctx *ctx, long n)
{
    ctx->dev_allocs = 0;
    ctx->dev_fail_at = n;
}

const char *spx_bytes_str(double bytes, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    int u = 0;
    while (bytes >= 1000.0 && u < 6) {
        bytes /= 1000.0;
        u++;
    }
    if (u == 0) snprintf(buf, len, "%.0f B", bytes);
    else snprintf(buf, len, "%.1f %s", bytes, unit[u]);
    return buf;
}

spx_status spx_host_budget_require(spx_ctx *ctx, size_t bytes, spx_status s, const char *what_fmt, ...)
{
    size_t held = __atomic_load_n(&ctx->host.bytes, __ATOMIC_RELAXED);
    if (bytes <= ctx->host.budget && held <= ctx->host.budget - bytes) return SPX_OK;
    char what[SPX_ERRMSG_LEN / 2], need[32], budget[32], have[32];
    va_list ap;
    va_start(ap, what_fmt);
    vsnprintf(what, sizeof what, what_fmt, ap);
    va_end(ap);
    return spx_fail(ctx, s, "%s needs %s; host budget %s (%s held)", what,
                    spx_bytes_str((double)bytes, need, sizeof need),
                    spx_bytes_str((double)ctx->host.budget, budget, sizeof budget),
                    spx_bytes_str((double)held, have, sizeof have));
}

/* The bytes an account's budget still has room for. */
static size_t budget_room(const spx_mem_account *a)
{
    size_t held = __atomic_load_n(&a->bytes, __ATOMIC_RELAXED);
    size_t budget = __atomic_load_n(&a->budget, __ATOMIC_RELAXED);
    return held >= budget ? 0 : budget - held;
}

size_t spx_host_budget_room(const spx_ctx *ctx) { return budget_room(&ctx->host); }

size_t spx_device_budget_room(const spx_ctx *ctx) { return budget_room(&ctx->dev); }

/* Releases the context and the device state the runtime hung on it; sets *pctx to NULL. */
void spx_ctx_destroy(spx_ctx **pctx)
{
    if (!pctx || !*pctx) return;
    spx_ctx *ctx = *pctx;
    if (ctx->cuda_release) ctx->cuda_release(ctx);
    pthread_mutex_destroy(&ctx->error_lock);
    spx_allocator a = ctx->alloc;
    a.free(a.user, ctx);
    *pctx = NULL;
}

const char *spx_ctx_last_error(const spx_ctx *ctx) { return ctx ? ctx->last_error : ""; }

spx_status spx_ctx_set_stream(spx_ctx *ctx, void *stream)
{
    if (!ctx) return SPX_ERR_ARG;
    ctx->cuda_stream = stream;
    return SPX_OK;
}

const char *spx_precision_str(spx_precision p) { return p == SPX_FP32 ? "fp32" : "fp64"; }

size_t spx_precision_bytes(spx_precision p) { return p == SPX_FP32 ? sizeof(float) : sizeof(double); }

const char *spx_backend_str(spx_backend b)
{
    switch (b) {
    case SPX_BACKEND_AUTO: return "auto";
    case SPX_BACKEND_CPU: return "cpu";
    case SPX_BACKEND_CUDA: return "cuda";
    }
    return "?";
}

/* The size recorded in the header of the block whose user part starts at p. */
static size_t block_size(const void *p)
{
    size_t n;
    memcpy(&n, (const unsigned char *)p - SPX_BLOCK_HEADER, sizeof n);
    return n;
}

void *spx_malloc(spx_ctx *ctx, size_t bytes)
{
    if (bytes == 0) bytes = 1;
    if (!spx_mem_reserve(&ctx->host, bytes)) return NULL;
    unsigned char *b = ctx->alloc.alloc(ctx->alloc.user, bytes + SPX_BLOCK_HEADER);
    if (!b) {
        spx_mem_release(&ctx->host, bytes);
        ctx->host.refused_bytes = 0; /* the last failure was the allocator's, not the budget's */
        return NULL;
    }
    memcpy(b, &bytes, sizeof bytes);
    return b + SPX_BLOCK_HEADER;
}

void *spx_realloc(spx_ctx *ctx, void *p, size_t bytes)
{
    if (!p) return spx_malloc(ctx, bytes);
    if (bytes == 0) bytes = 1;
    size_t old = block_size(p);
    if (bytes > old && !spx_mem_reserve(&ctx->host, bytes - old)) return NULL;
    unsigned char *b = ctx->alloc.realloc(ctx->alloc.user, (unsigned char *)p - SPX_BLOCK_HEADER,
                                          bytes + SPX_BLOCK_HEADER);
    if (!b) {
        if (bytes > old) spx_mem_release(&ctx->host, bytes - old);
        ctx->host.refused_bytes = 0;
        return NULL;
    }
    if (bytes < old) spx_mem_release(&ctx->host, old - bytes);
    memcpy(b, &bytes, sizeof bytes);
    return b + SPX_BLOCK_HEADER;
}

void spx_free(spx_ctx *ctx, void *p)
{
    if (!p) return;
    spx_mem_release(&ctx->host, block_size(p));
    ctx->alloc.free(ctx->alloc.user, (unsigned char *)p - SPX_BLOCK_HEADER);
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
    char msg[SPX_ERRMSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&ctx->error_lock);
    memcpy(ctx->last_error, msg, sizeof msg);
    pthread_mutex_unlock(&ctx->error_lock);
    return s;
}

spx_status spx_fail_nomem(spx_ctx *ctx, const char *what)
{
    if (!ctx->host.refused_bytes) return spx_fail(ctx, SPX_ERR_NOMEM, "out of memory: %s", what);
    char refusal[SPX_REFUSAL_LEN];
    spx_mem_refusal_str(&ctx->host, "host", refusal, sizeof refusal);
    ctx->host.refused_bytes = 0;
    return spx_fail(ctx, SPX_ERR_NOMEM, "out of memory: %s: %s", what, refusal);
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

int spx_ctx_get_threads(const spx_ctx *ctx) { return spx_ctx_threads(ctx); }
