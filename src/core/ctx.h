/* src/core/ctx.h: the context's layout and the helpers every source file uses: allocation
 * through the context's hooks, error reporting with messages, wall-clock time. */
#ifndef SPX_CORE_CTX_H
#define SPX_CORE_CTX_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "spx/spx.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SPX_ERRMSG_LEN 512

/* Memory accounting of one side (host or device). The counters are updated atomically (the
 * OpenMP threads of one call may allocate); refused_* describe the last failed allocation
 * when the budget refused it (refused_bytes 0: the allocator itself failed), so the caller's
 * "out of memory" message can say what was asked for and what the budget is. */
typedef struct spx_mem_account {
    size_t budget; /* SPX_BUDGET_NONE: no limit */
    size_t bytes, peak;
    size_t refused_bytes, refused_held; /* 0, 0: the last allocation was not refused */
} spx_mem_account;

struct spx_ctx {
    spx_backend backend;
    int threads;
    int device;
    spx_allocator alloc;
    spx_device_allocator device_alloc; /* alloc NULL: cudaMalloc/cudaFree */
    void *cuda;        /* the device runtime's per-context state (device props, stream); NULL on CPU */
    void (*cuda_release)(spx_ctx *ctx); /* frees `cuda`: set with it by the runtime (src/cuda),
                                           called by spx_ctx_destroy, so core calls nothing above it */
    void *cuda_stream; /* caller's stream, or NULL for the default stream */
    spx_mem_account host, dev;
    long dev_allocs;        /* device allocations made so far (for failure injection) */
    long dev_fail_at;       /* tests: the dev_fail_at-th device allocation fails; 0 = never */
    pthread_mutex_t error_lock; /* serialises last_error writes (a CPU plan may run on
                                   several threads at once) */
    char last_error[SPX_ERRMSG_LEN];
};

/* Reserves bytes against the account's budget; 0 (refusal recorded) when over it. */
int spx_mem_reserve(spx_mem_account *a, size_t bytes);
/* Returns bytes reserved earlier. */
void spx_mem_release(spx_mem_account *a, size_t bytes);
/* Room for spx_mem_refusal_str's text (three sizes of up to 31 characters and the words). */
#define SPX_REFUSAL_LEN 192
/* The account's last refusal as "<bytes> more would exceed the <side> budget <budget>
 * (<held> held)", written into buf. */
const char *spx_mem_refusal_str(const spx_mem_account *a, const char *side, char *buf, size_t len);
/* Fails with status s unless `bytes` more fit the host budget beside what the context holds:
 * the message is "<what> needs <bytes>; host budget <budget> (<held> held)". */
spx_status spx_host_budget_require(spx_ctx *ctx, size_t bytes, spx_status s, const char *what_fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* The bytes that still fit the host budget beside what the context holds now (SIZE_MAX-ish
 * without a budget): for choosing how much optional scratch (per-thread buffers) to take. */
size_t spx_host_budget_room(const spx_ctx *ctx);
/* The same beside the device budget (the device's own free memory not counted). */
size_t spx_device_budget_room(const spx_ctx *ctx);
/* Writes bytes as "16.0 GB" (decimal units, as free(1) -h and the issue tracker show them). */
const char *spx_bytes_str(double bytes, char *buf, size_t len);
/* Tests: makes the n-th device allocation from now fail (0: none). */
void spx_ctx_fail_device_alloc_at(spx_ctx *ctx, long n);

/* Host allocation through the context's hooks, within the host budget; NULL on failure (no
 * message set; spx_fail_nomem then names a budget refusal). */
void *spx_malloc(spx_ctx *ctx, size_t bytes);
void *spx_realloc(spx_ctx *ctx, void *p, size_t bytes);
void spx_free(spx_ctx *ctx, void *p);
/* count * size bytes, or NULL when that overflows or the allocation fails. */
void *spx_malloc_array(spx_ctx *ctx, size_t count, size_t size);
/* As spx_malloc_array, zero-filled. */
void *spx_calloc_array(spx_ctx *ctx, size_t count, size_t size);

/* Records a printf-style message as the context's last error and returns s. */
spx_status spx_fail(spx_ctx *ctx, spx_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Records "out of memory: <what>" (with the request and the budget when the budget refused
 * it) and returns SPX_ERR_NOMEM. */
spx_status spx_fail_nomem(spx_ctx *ctx, const char *what);

/* Monotonic wall-clock seconds. */
double spx_now(void);
/* OpenMP thread count the context asks for (>= 1). */
int spx_ctx_threads(const spx_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif
