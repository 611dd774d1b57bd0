/* include/spx/plan.h: SpMV plans (analyse, convert, upload once; run many times) and the
 * format registry. */
#ifndef SPX_PLAN_H
#define SPX_PLAN_H

#include "spx/matrix.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spx_plan_opts {
    const char *format;      /* registered format name; NULL or "auto" = chosen per matrix */
    const char *algo;        /* the format's algorithm; NULL or "auto" = the format's choice */
    spx_backend backend;     /* AUTO = the context's */
    spx_precision precision; /* FP64 (default) or FP32 */
} spx_plan_opts;

#define SPX_MAX_PHASES 8

typedef struct spx_phase_time {
    const char *name; /* e.g. "convert", "upload", "analyse" */
    double seconds;
} spx_phase_time;

/* What a plan is and what it cost to make. */
typedef struct spx_plan_info {
    char format[32];       /* resolved format name */
    char algo[32];         /* resolved algorithm name */
    char kernel[64];       /* the kernel (or CPU loop) that actually runs */
    spx_backend backend;   /* CPU or CUDA, never AUTO */
    spx_precision precision;
    double bytes_per_spmv; /* minimum bytes one SpMV with b = 0 moves on this layout */
    double plan_seconds;   /* wall time of spx_plan_create */
    int n_phases;
    spx_phase_time phases[SPX_MAX_PHASES];
} spx_plan_info;

typedef struct spx_plan spx_plan;

/* Analyses and converts A (and uploads it for CUDA); A may be freed afterwards. */
spx_status spx_plan_create(spx_ctx *ctx, const spx_csr *A, const spx_plan_opts *opts,
                           spx_plan **out);
/* y = a*A*x + b*y, host arrays, fp64 plans. b = 0: y is not read. x, y must not alias. */
spx_status spx_plan_spmv(spx_plan *p, double a, const double *x, double b, double *y);
/* y = a*A*x + b*y, host arrays, fp32 plans. */
spx_status spx_plan_spmv_f32(spx_plan *p, float a, const float *x, float b, float *y);
/* y = a*A*x + b*y on device arrays of the plan's precision (CUDA plans only); allocates
 * nothing, runs on the context's stream, does not synchronise. */
spx_status spx_plan_spmv_device(spx_plan *p, double a, const void *x, double b, void *y);
/* Fills *info (a self-contained copy: it outlives the plan). */
spx_status spx_plan_get_info(const spx_plan *p, spx_plan_info *info);
/* Converts the plan's layout back to CSR (the round-trip check of every format). */
spx_status spx_plan_to_csr(const spx_plan *p, spx_csr **out);
/* Frees *p (NULL accepted) and sets it to NULL. */
void spx_plan_destroy(spx_plan **p);

/* A registered format, as `spx formats` lists it. */
typedef struct spx_format_desc {
    const char *name;
    const char *summary;
    const char *const *algos; /* NULL-terminated; the first is the default */
    int has_cpu;  /* a CPU SpMV on the format's own layout exists */
    int has_cuda; /* a CUDA SpMV exists and is compiled into this build */
} spx_format_desc;

int spx_format_count(void);
/* Describes the i-th registered format, 0 <= i < spx_format_count(). */
spx_status spx_format_describe(int i, spx_format_desc *out);

#ifdef __cplusplus
}
#endif
#endif
