/* include/spx/context.h: the library context: backend choice, allocator, threads, last error. */
#ifndef SPX_CONTEXT_H
#define SPX_CONTEXT_H

#include <stddef.h>
#include "spx/status.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API: exported by libspx.so */

typedef enum spx_backend {
    SPX_BACKEND_AUTO = 0, /* the GPU when CUDA is built and a device is present, else CPU */
    SPX_BACKEND_CPU = 1,
    SPX_BACKEND_CUDA = 2
} spx_backend;

typedef enum spx_precision { SPX_FP64 = 0, SPX_FP32 = 1 } spx_precision;

/* Host allocator hooks; every host allocation of the library goes through them. */
typedef struct spx_allocator {
    void *(*alloc)(void *user, size_t bytes);
    void *(*realloc)(void *user, void *ptr, size_t bytes);
    void (*free)(void *user, void *ptr);
    void *user;
} spx_allocator;

/* Budgets: SPX_BUDGET_DEFAULT (0) takes the default named at each field; SPX_BUDGET_NONE lifts
 * the limit. Every allocation whose size comes from the input is checked against its budget
 * before it is made, counting everything the context holds at that moment. */
#define SPX_BUDGET_DEFAULT ((size_t)0)
#define SPX_BUDGET_NONE ((size_t)-1)

/* Device allocator hooks: every device allocation of the library goes through them when set
 * (budget and accounting still apply). alloc returns 0 and sets *ptr on success; non-zero
 * (any value) on failure. */
typedef struct spx_device_allocator {
    int (*alloc)(void *user, void **ptr, size_t bytes);
    void (*free)(void *user, void *ptr);
    void *user;
} spx_device_allocator;

typedef struct spx_ctx_opts {
    spx_backend backend;         /* default backend for plans (AUTO) */
    int threads;                 /* OpenMP threads; 0 = the OpenMP default */
    int device;                  /* CUDA device ordinal */
    const spx_allocator *alloc;  /* NULL = malloc/realloc/free */
    const spx_device_allocator *device_alloc; /* NULL = cudaMalloc/cudaFree */
    size_t host_budget;          /* bytes of host memory the context may hold at once;
                                    default: the memory the system reports available
                                    (MemAvailable) when the context is created */
    size_t device_budget;        /* bytes of device memory the context may hold at once;
                                    default: no limit beyond the device's free memory (an
                                    allocation the device refuses is an error naming it);
                                    also the most the context's memory pool keeps cached
                                    between calls (default: all it took) */
} spx_ctx_opts;

/* What a context holds now and at most, and its budgets (bytes). */
typedef struct spx_mem_stats {
    size_t host_bytes, host_peak, host_budget;
    size_t device_bytes, device_peak, device_budget; /* device_budget SPX_BUDGET_NONE: none */
} spx_mem_stats;

typedef struct spx_ctx spx_ctx;

/* Creates a context; opts may be NULL for defaults. */
spx_status spx_ctx_create(spx_ctx **out, const spx_ctx_opts *opts);
/* Destroys *ctx (NULL accepted) and sets it to NULL; its device memory pool goes back to the
 * device with it. Destroy the device CSRs the library made on it first. */
void spx_ctx_destroy(spx_ctx **ctx);
/* The message of the last error, with context (file:line, names); "" if none. */
const char *spx_ctx_last_error(const spx_ctx *ctx);
/* The backend a request for `asked` runs on: AUTO takes the context's, then resolves; CUDA is
 * checked usable (built, a device present, the context's device valid), else an error. */
spx_status spx_ctx_resolve_backend(spx_ctx *ctx, spx_backend asked, spx_backend *out);
/* The backend that AUTO resolves to in this process (CPU or CUDA). */
spx_backend spx_ctx_resolved_backend(spx_ctx *ctx);
/* Sets the CUDA stream (a cudaStream_t) the context's GPU work runs on; NULL = default. */
spx_status spx_ctx_set_stream(spx_ctx *ctx, void *cuda_stream);
/* The OpenMP threads the context's CPU work runs on (>= 1): opts.threads, else OpenMP's
 * default. */
int spx_ctx_get_threads(const spx_ctx *ctx);
/* Frees a host block the library allocated for the caller on ctx (such as the array of
 * spx_vec_read_mtx), returning its bytes to ctx's budget; NULL is accepted. */
void spx_free(spx_ctx *ctx, void *p);
/* Fills *out with the context's memory accounting. */
spx_status spx_ctx_mem_stats(const spx_ctx *ctx, spx_mem_stats *out);
/* The memory the system reports available now (MemAvailable), in bytes; 0 if unknown. */
size_t spx_host_available_bytes(void);
/* Whether this build contains the CUDA backend. */
int spx_cuda_compiled(void);
/* Monotonic wall-clock time in seconds (for callers timing host work). */
double spx_wtime(void);
/* Name of a backend ("auto", "cpu", "cuda"). */
const char *spx_backend_str(spx_backend b);
/* Name of a precision ("fp64", "fp32") and the bytes of one of its values (8, 4). */
const char *spx_precision_str(spx_precision p);
size_t spx_precision_bytes(spx_precision p);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
