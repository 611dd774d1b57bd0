/* src/spmv/plan_internal.h: the plan object as the operations over its layout see it (SpMV in
 * plan.c, SpMM in spmm.c): its layout on the host or the device, the format's tables, its
 * shape and numbering, the device work vectors, the one-call-at-a-time guard of CUDA plans. */
#ifndef SPX_SPMV_PLAN_INTERNAL_H
#define SPX_SPMV_PLAN_INTERNAL_H

#include "spmv/format.h"

#ifdef __cplusplus
extern "C" {
#endif

struct spx_plan {
    spx_ctx *ctx;
    const spx_format *fmt;
    const spx_format_cuda *cuda; /* the format's GPU half (CUDA plans) */
    void *impl;                  /* the format's host layout (NULL when built on the device) */
    void *dev;                   /* the format's GPU state (CUDA plans) */
    spx_backend backend;         /* CPU or CUDA */
    spx_precision precision;
    int32_t m, n;
    const int32_t *perm; /* the layout's numbering of x and y (SPX_ORDER_PLAN), NULL: the caller's */
    void *dx, *dy; /* device staging for the host-array entry points, made on first use */
    int busy;      /* a CUDA call is running (atomic): one call at a time */
    spx_phase_log log;
    double plan_seconds;
    size_t device_bytes;
};

/* Makes the device work vectors dx (n) and dy (m) of a CUDA plan (first use only): the host
 * entry points stage through them, the SpMM fallback gathers row-major columns into them. */
spx_status spx_plan_staging(spx_plan *p);
/* Takes the CUDA plan for one call (SPX_ERR_ARG when another call holds it) and binds the
 * calling thread to the context's device (a context may be used from another thread than the
 * one that made the plan); spx_plan_leave gives it back. */
spx_status spx_plan_enter(spx_plan *p);
void spx_plan_leave(spx_plan *p);

#ifdef __cplusplus
}
#endif
#endif
