/* src/core/ctx.h: the context's layout and the helpers every source file uses: allocation
 * through the context's hooks, error reporting with messages, wall-clock time. */
#ifndef SPX_CORE_CTX_H
#define SPX_CORE_CTX_H

#include <stddef.h>
#include <stdint.h>
#include "spx/spx.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SPX_ERRMSG_LEN 512

struct spx_ctx {
    spx_backend backend;
    int threads;
    int device;
    spx_allocator alloc;
    void *cuda;        /* the gateway's per-context state (device props, stream); NULL on CPU */
    void *cuda_stream; /* caller's stream, or NULL for the default stream */
    char last_error[SPX_ERRMSG_LEN];
};

/* Host allocation through the context's hooks; NULL on failure (no message set). */
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
/* Records "out of memory: <what>" and returns SPX_ERR_NOMEM. */
spx_status spx_fail_nomem(spx_ctx *ctx, const char *what);

/* Monotonic wall-clock seconds. */
double spx_now(void);
/* OpenMP thread count the context asks for (>= 1). */
int spx_ctx_threads(const spx_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif
