/* src/cuda/check.cuh: error checks for CUDA runtime calls and kernel launches: a failure becomes
 * an spx_status (SPX_ERR_CUDA; DEVICE_ALLOC for out-of-memory, NO_DEVICE for no device or driver)
 * with the call, the CUDA error name and message, and file:line in the context's last error. */
#ifndef SPX_CUDA_CHECK_CUH
#define SPX_CUDA_CHECK_CUH

#include <cuda_runtime.h>
#include <string.h>

#include "core/ctx.h"
#include "cuda/gateway.h"

/* The spx status a CUDA runtime error maps to. */
static inline spx_status spx_cuda_status_of(cudaError_t e)
{
    switch (e) {
    case cudaErrorMemoryAllocation: return SPX_ERR_DEVICE_ALLOC;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice: return SPX_ERR_NO_DEVICE;
    default: return SPX_ERR_CUDA;
    }
}

/* The path from "src/" on (compilers pass absolute paths), for shorter messages. */
static inline const char *spx_cuda_short_path(const char *file)
{
    const char *p = strstr(file, "/src/");
    return p ? p + 1 : file;
}

/* Records "what: cudaErrorX (message) at file:line" in ctx and returns the mapped status. The
 * runtime's last-error slot is cleared so that a later launch check does not see this error. */
static inline spx_status spx_cuda_fail_at(spx_ctx *ctx, cudaError_t e, const char *what,
                                          const char *file, int line)
{
    (void)cudaGetLastError();
    return spx_fail(ctx, spx_cuda_status_of(e), "CUDA: %s failed: %s (%s) at %s:%d", what,
                    cudaGetErrorName(e), cudaGetErrorString(e), spx_cuda_short_path(file), line);
}

/* Returns from the enclosing function when a CUDA call fails. */
#define SPX_CUDA_RET(ctx, call)                                                                \
    do {                                                                                       \
        cudaError_t spx_e_ = (call);                                                           \
        if (spx_e_ != cudaSuccess) return spx_cuda_fail_at((ctx), spx_e_, #call, __FILE__, __LINE__); \
    } while (0)

/* Sets s and jumps to the enclosing function's `done:` label when a CUDA call fails. */
#define SPX_CUDA_GOTO(ctx, s, call)                                                            \
    do {                                                                                       \
        cudaError_t spx_e_ = (call);                                                           \
        if (spx_e_ != cudaSuccess) {                                                           \
            (s) = spx_cuda_fail_at((ctx), spx_e_, #call, __FILE__, __LINE__);                  \
            goto done;                                                                         \
        }                                                                                      \
    } while (0)

/* Checks the launch just made (configuration errors; asynchronous faults surface at the next
 * synchronising call) and returns on failure, naming the kernel. */
#define SPX_CUDA_LAUNCHED(ctx, kernel_name)                                                    \
    do {                                                                                       \
        cudaError_t spx_e_ = cudaGetLastError();                                               \
        if (spx_e_ != cudaSuccess)                                                             \
            return spx_cuda_fail_at((ctx), spx_e_, "launch of " kernel_name, __FILE__, __LINE__); \
    } while (0)

/* As SPX_CUDA_LAUNCHED, jumping to `done:` with s set. */
#define SPX_CUDA_LAUNCHED_GOTO(ctx, s, kernel_name)                                            \
    do {                                                                                       \
        cudaError_t spx_e_ = cudaGetLastError();                                               \
        if (spx_e_ != cudaSuccess) {                                                           \
            (s) = spx_cuda_fail_at((ctx), spx_e_, "launch of " kernel_name, __FILE__, __LINE__); \
            goto done;                                                                         \
        }                                                                                      \
    } while (0)

#endif
