/* tests/test_gpu_memory.c: the GPU paths of device memory and streams: every device
 * allocation along plan creation and SpMV made to fail in turn (SPX_ERR_DEVICE_ALLOC, a
 * message, the context usable, nothing leaked), the device budget, a caller-supplied
 * stream, a CUDA plan refusing a second concurrent call, the caller's device allocator
 * hooks (stream-ordered blocks too), stream-ordered blocks from the context's pool (the same
 * contract, the pool's reuse and drop), and device != 0 where the machine has one. Skips
 * without a GPU. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <time.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/ctx.h"
#include "cuda/gateway.h"
#include "spx/spx.h"

static const double ALPHA = 1.5, BETA = -0.75; /* exact in fp32 too */
/* Allocations tried per configuration before giving up: far more than any plan makes. */
#define MAX_INJECTED 64
/* How long the caller's stream is held busy before the data the SpMV needs arrives. */
#define STREAM_HOLD_SECONDS 0.05

/* Device bytes the context holds now. */
static size_t device_held(const spx_ctx *ctx)
{
    spx_mem_stats m;
    return spx_ctx_mem_stats(ctx, &m) == SPX_OK ? m.device_bytes : (size_t)-1;
}

/* The device's free memory now (0 on failure). */
static size_t device_free(spx_ctx *ctx)
{
    size_t f = 0, t = 0;
    return spx_cuda_mem_info(ctx, &f, &t) == SPX_OK ? f : 0;
}

/* max |y - ref| / max |ref| (inf for NaN). */
static double max_rel(const double *y, const double *ref, int32_t m)
{
    double d = 0, r = 0;
    for (int32_t i = 0; i < m; i++) {
        if (!isfinite(y[i])) return INFINITY;
        d = fmax(d, fabs(y[i] - ref[i]));
        r = fmax(r, fabs(ref[i]));
    }
    return r > 0 ? d / r : d;
}

/* Plan A with (format, algo) on the GPU, then one host SpMV (b != 0) and one device SpMV;
 * returns the first failure's status, SPX_OK when everything ran and verified. */
static spx_status plan_and_run(spx_ctx *ctx, const spx_csr *A, const char *format, const char *algo,
                               const double *x, const double *y0, const double *ref)
{
    spx_plan_opts o = {.format = format, .algo = algo, .backend = SPX_BACKEND_CUDA};
    spx_plan *p = NULL;
    void *dx = NULL, *dy = NULL;
    double *y = malloc(((size_t)A->m + 1) * sizeof *y);
    spx_status s = y ? spx_plan_create(ctx, A, &o, &p) : SPX_ERR_NOMEM;
    if (s) goto done;
    memcpy(y, y0, (size_t)A->m * sizeof *y);
    if ((s = spx_plan_spmv(p, ALPHA, x, BETA, y))) goto done;
    CHECK_MSG(max_rel(y, ref, A->m) <= 1e-12, "%s/%s host SpMV after injected failures: rel err %.3g", format,
              algo, max_rel(y, ref, A->m));
    size_t xb = (size_t)A->n * sizeof(double), yb = (size_t)A->m * sizeof(double);
    if ((s = spx_cuda_malloc(ctx, &dx, xb)) || (s = spx_cuda_malloc(ctx, &dy, yb)) ||
        (s = spx_cuda_h2d(ctx, dx, x, xb)) || (s = spx_cuda_h2d(ctx, dy, y0, yb)) ||
        (s = spx_plan_spmv_device(p, ALPHA, dx, BETA, dy)) || (s = spx_cuda_sync(ctx)) ||
        (s = spx_cuda_d2h(ctx, y, dy, yb)))
        goto done;
    CHECK_MSG(max_rel(y, ref, A->m) <= 1e-12, "%s/%s device SpMV: rel err %.3g", format, algo,
              max_rel(y, ref, A->m));
done:
    spx_cuda_free(ctx, dx);
    spx_cuda_free(ctx, dy);
    spx_plan_destroy(&p);
    free(y);
    return s;
}

/* Fails the n-th device allocation for n = 1, 2, ... until a run makes fewer allocations
 * than n: every failure must be SPX_ERR_DEVICE_ALLOC with a message, hold no device bytes
 * afterwards, and leave the context able to plan and run again. */
static void inject_all(spx_ctx *ctx, const spx_csr *A, const char *format, const char *algo, const double *x,
                       const double *y0, const double *ref)
{
    int n = 1, failures = 0;
    for (; n <= MAX_INJECTED; n++) {
        spx_ctx_fail_device_alloc_at(ctx, n);
        spx_status s = plan_and_run(ctx, A, format, algo, x, y0, ref);
        spx_ctx_fail_device_alloc_at(ctx, 0);
        CHECK_MSG(device_held(ctx) == 0, "%s/%s: %zu device bytes held after failing allocation %d", format, algo,
                  device_held(ctx), n);
        if (s == SPX_OK) break; /* fewer than n allocations: all failure points covered */
        failures++;
        CHECK_MSG(s == SPX_ERR_DEVICE_ALLOC && strstr(spx_ctx_last_error(ctx), "device memory"),
                  "%s/%s: failing device allocation %d gave %s: '%s'", format, algo, n, spx_status_str(s),
                  spx_ctx_last_error(ctx));
        spx_status again = plan_and_run(ctx, A, format, algo, x, y0, ref);
        CHECK_MSG(again == SPX_OK, "%s/%s: context unusable after failing allocation %d: %s", format, algo, n,
                  spx_ctx_last_error(ctx));
    }
    CHECK_MSG(n <= MAX_INJECTED, "%s/%s: still failing after %d injected failures", format, algo, MAX_INJECTED);
    printf("  %-10s %-9s %2d device allocations, each failed in turn: clean\n", format, algo, failures);
}

/* A small matrix with long and short rows, its inputs and its reference. */
typedef struct mem_case {
    spx_csr *A;
    double *x, *y0, *ref;
} mem_case;

/* Builds the case from a generator spec; 0 on failure. */
static int case_make(spx_ctx *ctx, const char *spec, mem_case *c)
{
    memset(c, 0, sizeof *c);
    if (spx_gen(ctx, spec, &c->A) != SPX_OK) return 0;
    c->x = malloc(((size_t)c->A->n + 1) * sizeof(double));
    c->y0 = malloc(((size_t)c->A->m + 1) * sizeof(double));
    c->ref = malloc(((size_t)c->A->m + 1) * sizeof(double));
    if (!c->x || !c->y0 || !c->ref) return 0;
    for (int32_t j = 0; j < c->A->n; j++) c->x[j] = (double)((j * 37) % 101 - 50) / 64.0;
    for (int32_t i = 0; i < c->A->m; i++) c->y0[i] = (double)((i * 53) % 89 - 44) / 32.0;
    memcpy(c->ref, c->y0, (size_t)c->A->m * sizeof *c->ref);
    spx_csr_spmv_ref(c->A, ALPHA, c->x, BETA, c->ref);
    return 1;
}

static void case_free(mem_case *c)
{
    spx_csr_destroy(&c->A);
    free(c->x);
    free(c->y0);
    free(c->ref);
}

/* Every algorithm of every format with a CUDA path, from the registry. */
static void test_injected_failures(spx_ctx *ctx, const mem_case *c)
{
    printf("device allocation failures (every allocation of plan creation and SpMV, in turn):\n");
    size_t free_before = device_free(ctx);
    for (int i = 0; i < spx_format_count(); i++) {
        spx_format_desc d;
        if (spx_format_describe(i, &d) != SPX_OK || !d.has_cuda) continue;
        for (int a = 0; d.algos[a]; a++) inject_all(ctx, c->A, d.name, d.algos[a], c->x, c->y0, c->ref);
    }
    size_t free_after = device_free(ctx);
    /* a leak lowers the free memory; other processes on the GPU can only be kept out by running
       this test alone (RUN_SERIAL in tests/CMakeLists.txt), and CUDA may return cached blocks */
    CHECK_MSG(free_after >= free_before, "device free memory %zu before, %zu after the injected failures",
              free_before, free_after);
    printf("  device free memory: %zu bytes before, %zu after\n", free_before, free_after);
}

/* A device budget below what the plan needs is refused with a message naming the budget. */
static void test_device_budget(const mem_case *c)
{
    spx_ctx *ctx = NULL;
    spx_ctx_opts o = {.backend = SPX_BACKEND_CUDA, .device_budget = 4096};
    CHECK(spx_ctx_create(&ctx, &o) == SPX_OK);
    if (!ctx) return;
    spx_plan *p = NULL;
    spx_plan_opts po = {.format = "csr", .backend = SPX_BACKEND_CUDA};
    spx_status s = spx_plan_create(ctx, c->A, &po, &p);
    CHECK_MSG(s == SPX_ERR_DEVICE_ALLOC && p == NULL && strstr(spx_ctx_last_error(ctx), "device budget"),
              "4 kB device budget: %s '%s'", spx_status_str(s), spx_ctx_last_error(ctx));
    CHECK(device_held(ctx) == 0);
    printf("device budget 4 kB: %s\n", spx_ctx_last_error(ctx));
    spx_mem_stats m;
    CHECK(spx_ctx_mem_stats(ctx, &m) == SPX_OK && m.device_budget == 4096);
    spx_ctx_destroy(&ctx);
}

/* spx_cuda_malloc_async keeps spx_cuda_malloc's contract (the device budget named in its
 * refusal, an injected failure, the block table, the context's bytes), and its memory stays
 * with the context's pool after the free: reused by the next block, counted as free by
 * spx_cuda_mem_info, given back when the pool is dropped; a pooled block freed by
 * spx_cuda_free (a result the caller holds) goes back as well. */
static void test_async_blocks(void)
{
    spx_ctx *ctx = NULL;
    CHECK(spx_ctx_create(&ctx, &(spx_ctx_opts){.backend = SPX_BACKEND_CUDA, .device_budget = 1u << 20}) == SPX_OK);
    if (!ctx) return;
    void *a = NULL, *b = NULL;
    spx_status s = spx_cuda_malloc_async(ctx, &a, 2u << 20);
    CHECK_MSG(s == SPX_ERR_DEVICE_ALLOC && !a && strstr(spx_ctx_last_error(ctx), "device budget"),
              "stream-ordered, 2 MiB past a 1 MiB budget: %s '%s'", spx_status_str(s), spx_ctx_last_error(ctx));
    spx_ctx_fail_device_alloc_at(ctx, 2);
    CHECK_OK(ctx, spx_cuda_malloc_async(ctx, &a, 4096));
    s = spx_cuda_malloc_async(ctx, &b, 4096);
    spx_ctx_fail_device_alloc_at(ctx, 0);
    CHECK_MSG(s == SPX_ERR_DEVICE_ALLOC && !b && strstr(spx_ctx_last_error(ctx), "injected"),
              "stream-ordered, injected failure: %s '%s'", spx_status_str(s), spx_ctx_last_error(ctx));
    CHECK(a && device_held(ctx) == 4096 && spx_cuda_block_count(ctx) == 1);
    spx_cuda_free_async(ctx, a);
    CHECK(device_held(ctx) == 0 && spx_cuda_block_count(ctx) == 0);
    spx_ctx_destroy(&ctx);

    CHECK(spx_ctx_create(&ctx, &(spx_ctx_opts){.backend = SPX_BACKEND_CUDA}) == SPX_OK);
    if (!ctx) return;
    size_t reserved = 0, used = 0, again = 0;
    a = b = NULL;
    CHECK_OK(ctx, spx_cuda_malloc_async(ctx, &a, 3u << 20));
    CHECK_OK(ctx, spx_cuda_pool_stats(ctx, &reserved, &used));
    CHECK_MSG(used >= (3u << 20) && reserved >= used, "pool: %zu bytes out, %zu reserved", used, reserved);
    spx_cuda_free_async(ctx, a);
    CHECK_OK(ctx, spx_cuda_pool_stats(ctx, &reserved, &used));
    CHECK_MSG(used == 0 && reserved >= (3u << 20), "pool after the free: %zu out, %zu kept", used, reserved);
    const size_t free_cached = device_free(ctx);
    CHECK_OK(ctx, spx_cuda_malloc_async(ctx, &b, 3u << 20)); /* served by what the pool kept */
    CHECK_OK(ctx, spx_cuda_pool_stats(ctx, &again, &used));
    CHECK_MSG(again == reserved, "pool grew from %zu to %zu bytes for a block it held", reserved, again);
    spx_cuda_free(ctx, b); /* a pooled block through the synchronous free */
    CHECK(device_held(ctx) == 0 && spx_cuda_block_count(ctx) == 0);
    spx_cuda_pool_drop(ctx);
    CHECK_OK(ctx, spx_cuda_pool_stats(ctx, &reserved, &used));
    CHECK_MSG(reserved == 0 && used == 0, "pool dropped: %zu bytes still reserved", reserved);
    CHECK_OK(ctx, spx_cuda_malloc_async(ctx, &a, 4096)); /* a new pool */
    spx_cuda_free_async(ctx, a);
    printf("stream-ordered blocks: budget, injection, table, pool reuse and drop (free memory with the pool's "
           "%zu bytes counted: %zu)\n", again, free_cached);
    spx_ctx_destroy(&ctx);
}

/* Work runs on the caller's stream: the stream is held busy, then x arrives on it; an SpMV
 * that ran on any other stream would read the NaN x and fail the check. */
static void test_caller_stream(const mem_case *c)
{
    spx_ctx *ctx = NULL;
    spx_ctx_opts o = {.backend = SPX_BACKEND_CUDA};
    CHECK(spx_ctx_create(&ctx, &o) == SPX_OK);
    if (!ctx) return;
    void *stream = NULL, *dx = NULL, *dx_ok = NULL, *dy = NULL;
    spx_plan *p = NULL;
    const spx_csr *A = c->A;
    size_t xb = (size_t)A->n * sizeof(double), yb = (size_t)A->m * sizeof(double);
    double *nan_x = malloc(xb + 8), *y = malloc(yb + 8);
    CHECK_OK(ctx, spx_cuda_stream_create(ctx, &stream));
    CHECK_OK(ctx, spx_ctx_set_stream(ctx, stream));
    for (const char *const *algo = (const char *const[]){"auto", "merge", "stream", NULL}; *algo && nan_x && y; algo++) {
        spx_plan_opts po = {.format = "csr", .algo = *algo, .backend = SPX_BACKEND_CUDA};
        for (int32_t j = 0; j < A->n; j++) nan_x[j] = NAN;
        spx_status s;
        if ((s = spx_plan_create(ctx, A, &po, &p)) || (s = spx_cuda_malloc(ctx, &dx, xb)) ||
            (s = spx_cuda_malloc(ctx, &dx_ok, xb)) || (s = spx_cuda_malloc(ctx, &dy, yb)) ||
            (s = spx_cuda_h2d(ctx, dx_ok, c->x, xb)) || (s = spx_cuda_h2d(ctx, dx, nan_x, xb)) ||
            (s = spx_cuda_h2d(ctx, dy, c->y0, yb)) || (s = spx_cuda_spin(ctx, STREAM_HOLD_SECONDS)) ||
            (s = spx_cuda_d2d_async(ctx, dx, dx_ok, xb)) || (s = spx_plan_spmv_device(p, ALPHA, dx, BETA, dy)) ||
            (s = spx_cuda_sync(ctx)) || (s = spx_cuda_d2h(ctx, y, dy, yb)))
            CHECK_MSG(0, "caller stream, csr/%s: %s: %s", *algo, spx_status_str(s), spx_ctx_last_error(ctx));
        else
            CHECK_MSG(max_rel(y, c->ref, A->m) <= 1e-12, "caller stream, csr/%s: rel err %.3g (ran on another stream?)",
                      *algo, max_rel(y, c->ref, A->m));
        /* the host entry point on the caller's stream too */
        memcpy(y, c->y0, yb);
        if (p) CHECK_OK(ctx, spx_plan_spmv(p, ALPHA, c->x, BETA, y));
        CHECK_MSG(max_rel(y, c->ref, A->m) <= 1e-12, "caller stream, csr/%s host: rel err %.3g", *algo,
                  max_rel(y, c->ref, A->m));
        spx_cuda_free(ctx, dx);
        spx_cuda_free(ctx, dx_ok);
        spx_cuda_free(ctx, dy);
        dx = dx_ok = dy = NULL;
        spx_plan_destroy(&p);
    }
    printf("caller-supplied stream: csr auto, merge, stream verified behind a %.0f ms hold\n",
           1e3 * STREAM_HOLD_SECONDS);
    CHECK_OK(ctx, spx_ctx_set_stream(ctx, NULL));
    spx_cuda_stream_destroy(stream);
    free(nan_x);
    free(y);
    spx_ctx_destroy(&ctx);
}

/* The caller's device allocator for the hook test: blocks come from a second context's
 * accounted allocator, so the test can count them and see them all returned. */
typedef struct hook_pool {
    spx_ctx *owner;
    long allocs, frees, refuse_at; /* refuse_at: the n-th request fails (0: never) */
} hook_pool;

static int hook_alloc(void *user, void **ptr, size_t bytes)
{
    hook_pool *h = user;
    if (++h->allocs == h->refuse_at) return 1;
    return spx_cuda_malloc(h->owner, ptr, bytes) == SPX_OK ? 0 : 1;
}

static void hook_free(void *user, void *ptr)
{
    hook_pool *h = user;
    h->frees++;
    spx_cuda_free(h->owner, ptr);
}

/* spx_ctx_opts.device_alloc: every device block of a plan and its SpMV comes from the caller's
 * hooks and goes back to them; a refusal by the hooks is SPX_ERR_DEVICE_ALLOC with a message. */
static void test_device_allocator_hooks(const mem_case *c)
{
    hook_pool pool = {0};
    CHECK(spx_ctx_create(&pool.owner, &(spx_ctx_opts){.backend = SPX_BACKEND_CUDA}) == SPX_OK);
    spx_device_allocator da = {hook_alloc, hook_free, &pool};
    spx_ctx *ctx = NULL;
    CHECK(spx_ctx_create(&ctx, &(spx_ctx_opts){.backend = SPX_BACKEND_CUDA, .device_alloc = &da}) == SPX_OK);
    if (!ctx || !pool.owner) return;
    CHECK_OK(ctx, plan_and_run(ctx, c->A, "csr", "auto", c->x, c->y0, c->ref));
    CHECK_OK(ctx, plan_and_run(ctx, c->A, "cusparse", "alg1", c->x, c->y0, c->ref));
    spx_mem_stats hooked, owner;
    spx_ctx_mem_stats(ctx, &hooked);
    spx_ctx_mem_stats(pool.owner, &owner);
    CHECK_MSG(pool.allocs > 0 && pool.allocs == pool.frees && owner.device_bytes == 0 && hooked.device_bytes == 0 &&
                  owner.device_peak > 0,
              "hooks: %ld allocations, %ld frees, %zu bytes left with the owner", pool.allocs, pool.frees,
              owner.device_bytes);
    /* the stream-ordered allocations take the hooks too (no pool is made) */
    const long allocs0 = pool.allocs, frees0 = pool.frees;
    void *q = NULL;
    size_t reserved = 1, used = 1;
    CHECK_OK(ctx, spx_cuda_malloc_async(ctx, &q, 4096));
    spx_cuda_free_async(ctx, q);
    CHECK_OK(ctx, spx_cuda_pool_stats(ctx, &reserved, &used));
    CHECK_MSG(q && pool.allocs == allocs0 + 1 && pool.frees == frees0 + 1 && reserved == 0 && used == 0,
              "hooks, stream-ordered: %ld allocations, %ld frees, pool %zu bytes", pool.allocs - allocs0,
              pool.frees - frees0, reserved);
    pool.refuse_at = pool.allocs + 2; /* the second allocation of the next plan */
    spx_status s = plan_and_run(ctx, c->A, "csr", "auto", c->x, c->y0, c->ref);
    CHECK_MSG(s == SPX_ERR_DEVICE_ALLOC && strstr(spx_ctx_last_error(ctx), "device allocator"),
              "refusing hook: %s '%s'", spx_status_str(s), spx_ctx_last_error(ctx));
    spx_ctx_mem_stats(pool.owner, &owner);
    CHECK(pool.allocs - 1 == pool.frees && owner.device_bytes == 0);
    printf("caller's device allocator: %ld blocks through the hooks, all returned; a refusal reported\n",
           pool.allocs - 1);
    spx_ctx_destroy(&ctx);
    spx_ctx_destroy(&pool.owner);
}

/* How long the stream is held while one thread's call waits on it, and how often the other
 * thread tries to enter the same plan meanwhile. */
#define BUSY_HOLD_SECONDS 1.0
#define BUSY_POLL_NS 5000000L

/* The call that holds the plan: a host-array SpMV waiting behind the held stream. */
typedef struct busy_call {
    spx_plan *p;
    const mem_case *c;
    double *y;
    spx_status status;
    int done; /* atomic */
} busy_call;

static void *busy_thread(void *arg)
{
    busy_call *b = arg;
    b->status = spx_plan_spmv(b->p, ALPHA, b->c->x, 0.0, b->y);
    __atomic_store_n(&b->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* A CUDA plan takes one call at a time: while one thread's call waits on the held stream, a
 * second call on the plan is refused with SPX_ERR_ARG and a message; both leave it usable. */
static void test_one_call_at_a_time(const mem_case *c)
{
    spx_ctx *ctx = NULL;
    CHECK(spx_ctx_create(&ctx, &(spx_ctx_opts){.backend = SPX_BACKEND_CUDA}) == SPX_OK);
    spx_plan *p = NULL;
    void *dx = NULL, *dy = NULL;
    double *y = malloc(((size_t)c->A->m + 1) * sizeof *y);
    CHECK_OK(ctx, spx_plan_create(ctx, c->A, &(spx_plan_opts){.format = "csr", .backend = SPX_BACKEND_CUDA}, &p));
    CHECK_OK(ctx, spx_cuda_malloc(ctx, &dx, (size_t)c->A->n * sizeof(double)));
    CHECK_OK(ctx, spx_cuda_malloc(ctx, &dy, (size_t)c->A->m * sizeof(double)));
    if (!p || !dx || !dy || !y) goto done;
    CHECK_OK(ctx, spx_cuda_spin(ctx, BUSY_HOLD_SECONDS));
    busy_call b = {p, c, y, SPX_OK, 0};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, busy_thread, &b) == 0);
    int refused = 0;
    while (!refused && !__atomic_load_n(&b.done, __ATOMIC_ACQUIRE)) {
        struct timespec ts = {0, BUSY_POLL_NS};
        nanosleep(&ts, NULL);
        spx_status s = spx_plan_spmv_device(p, ALPHA, dx, 0.0, dy);
        refused = s == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "one call at a time");
        CHECK_MSG(s == SPX_OK || refused, "second call: %s '%s'", spx_status_str(s), spx_ctx_last_error(ctx));
    }
    pthread_join(t, NULL);
    CHECK_MSG(refused, "a second call on a busy CUDA plan was never refused");
    CHECK_MSG(b.status == SPX_OK, "the first call: %s", spx_status_str(b.status));
    CHECK_OK(ctx, spx_plan_spmv_device(p, ALPHA, dx, 0.0, dy)); /* usable again */
    CHECK_OK(ctx, spx_cuda_sync(ctx));
    printf("one call at a time: a second call during a held call was refused: %s\n", refused ? "yes" : "no");
done:
    spx_cuda_free(ctx, dx);
    spx_cuda_free(ctx, dy);
    spx_plan_destroy(&p);
    free(y);
    spx_ctx_destroy(&ctx);
}

/* A context on the last device: its plan's memory lives there and its SpMV verifies. With one
 * device this checks only that a device past the last one is refused. */
static void test_other_device(const mem_case *c)
{
    int count = spx_cuda_device_count();
    spx_ctx *ctx = NULL;
    spx_ctx_opts bad = {.backend = SPX_BACKEND_CUDA, .device = count};
    CHECK(spx_ctx_create(&ctx, &bad) == SPX_OK);
    spx_plan *p = NULL;
    spx_status s = spx_plan_create(ctx, c->A, &(spx_plan_opts){.format = "csr", .backend = SPX_BACKEND_CUDA}, &p);
    CHECK_MSG(s == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "does not exist"), "device %d: %s '%s'", count,
              spx_status_str(s), spx_ctx_last_error(ctx));
    spx_ctx_destroy(&ctx);
    if (count < 2) {
        printf("device != 0: skipped (%d device on this machine); device %d refused: ok\n", count, count);
        return;
    }
    spx_ctx_opts o = {.backend = SPX_BACKEND_CUDA, .device = count - 1};
    CHECK(spx_ctx_create(&ctx, &o) == SPX_OK);
    void *probe = NULL;
    CHECK_OK(ctx, spx_cuda_malloc(ctx, &probe, 256));
    CHECK_MSG(spx_cuda_pointer_device(probe) == count - 1, "allocation on device %d, wanted %d",
              spx_cuda_pointer_device(probe), count - 1);
    spx_cuda_free(ctx, probe);
    CHECK_OK(ctx, plan_and_run(ctx, c->A, "csr", "auto", c->x, c->y0, c->ref));
    CHECK_OK(ctx, plan_and_run(ctx, c->A, "cusparse", "alg1", c->x, c->y0, c->ref));
    printf("device %d: csr auto and cusparse alg1 verified\n", count - 1);
    spx_ctx_destroy(&ctx);
}

int main(void)
{
    if (!spx_cuda_compiled() || spx_cuda_device_count() == 0) {
        printf("0 passed, 0 failed (no GPU: skipped)\n");
        return 77;
    }
    spx_ctx *ctx = NULL;
    if (spx_ctx_create(&ctx, &(spx_ctx_opts){.backend = SPX_BACKEND_CUDA}) != SPX_OK) return 1;
    mem_case c;
    /* rows of 1..~200 entries: every csr algorithm takes its long- and short-row paths */
    if (!case_make(ctx, "gen:powerlaw:m=3000,k=6,seed=7", &c)) {
        fprintf(stderr, "cannot build the test matrix: %s\n", spx_ctx_last_error(ctx));
        return 1;
    }
    /* warm-up: CUDA's and cuSPARSE's own lazily made state (modules loaded on a kernel's first
     * launch, in 2 MiB steps) is not a leak of ours: every algorithm runs once first */
    for (int i = 0; i < spx_format_count(); i++) {
        spx_format_desc d;
        if (spx_format_describe(i, &d) != SPX_OK || !d.has_cuda || !d.available) continue;
        for (int a = 0; d.algos[a]; a++) CHECK_OK(ctx, plan_and_run(ctx, c.A, d.name, d.algos[a], c.x, c.y0, c.ref));
    }
    test_injected_failures(ctx, &c);
    test_device_budget(&c);
    test_async_blocks();
    test_caller_stream(&c);
    test_one_call_at_a_time(&c);
    test_device_allocator_hooks(&c);
    test_other_device(&c);
    case_free(&c);
    spx_ctx_destroy(&ctx);
    return check_report();
}
