/* src/core/format.h: the format plug-in table. A format fills one spx_format_ops; a NULL
 * slot means "not supported" and the caller gets SPX_ERR_UNSUPPORTED. */
#ifndef SPX_CORE_FORMAT_H
#define SPX_CORE_FORMAT_H

#include "core/ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One SpMV call as the formats see it: x and y are float* or double* per precision, host
 * arrays for spmv_cpu and device arrays for spmv_cuda. */
typedef struct spx_spmv_args {
    spx_precision precision;
    double alpha, beta;
    const void *x;
    void *y;
} spx_spmv_args;

/* Plan-creation phases, recorded as they happen. */
typedef struct spx_phase_log {
    int n;
    spx_phase_time phases[SPX_MAX_PHASES];
} spx_phase_log;

/* Adds seconds to the named phase (created on first use; names must be literals). */
void spx_phase_add(spx_phase_log *log, const char *name, double seconds);

typedef struct spx_format_ops {
    const char *name;
    const char *summary;
    const char *const *algos; /* NULL-terminated; algos[0] is the default ("auto" if any) */

    /* Converts A into the format's host layout (preprocessing); opts->algo already valid. */
    spx_status (*build)(spx_ctx *ctx, const spx_csr *A, const spx_plan_opts *opts,
                        spx_phase_log *log, void **impl);
    /* The layout back to CSR (for the round-trip check). */
    spx_status (*to_csr)(spx_ctx *ctx, const void *impl, spx_csr **out);
    /* y = a*A*x + b*y on the host layout, OpenMP. */
    spx_status (*spmv_cpu)(spx_ctx *ctx, const void *impl, const spx_spmv_args *args);
    /* Uploads the layout (and runs any GPU preprocessing); *dev is the format's GPU state. */
    spx_status (*upload)(spx_ctx *ctx, const void *impl, spx_phase_log *log, void **dev);
    /* y = a*A*x + b*y on device arrays, on the context's stream, no allocation. */
    spx_status (*spmv_cuda)(spx_ctx *ctx, void *dev, const spx_spmv_args *args);
    void (*free_dev)(spx_ctx *ctx, void *dev);
    void (*destroy)(spx_ctx *ctx, void *impl);

    /* Resolved algorithm name and the kernel that runs on backend b (dev may be NULL). */
    const char *(*algo_name)(const void *impl);
    const char *(*kernel_name)(const void *impl, const void *dev, spx_backend b);
    /* Minimum bytes of one SpMV (b = 0) on this layout. */
    double (*bytes_per_spmv)(const void *impl);
} spx_format_ops;

/* The registry: every format, in listing order. */
const spx_format_ops *spx_format_at(int i);
/* The format of that name, or NULL. */
const spx_format_ops *spx_format_find(const char *name);
/* Whether name is one of ops' algorithms. */
int spx_format_has_algo(const spx_format_ops *ops, const char *name);

#ifdef __cplusplus
}
#endif

#endif
