/* src/spgemm/ooc/gpu_side.c: the out-of-core SpGEMM's GPU side (gpu_side.h), through the
 * implementation table and the CUDA gateway (SPX_ERR_NOT_COMPILED in builds without CUDA).
 * Page-locking is per GPU panel rather than per run: only the panels the GPU takes pay for it
 * (a hetero run never copies the CPU's share of C), one lane locks its panel's ranges while
 * the other lane computes, a C the caller passes back needs nothing from the plan, and every
 * lock is undone before the panel's call returns, whatever happened. The ranges are the exact
 * slices a panel copies, disjoint between panels (the driver is reported to track
 * registrations by byte range, two that share a page locking and unlocking independently; a
 * refusal would only leave a slice pageable). */
#include <stdint.h>
#include <string.h>

#include "cuda/gateway.h"
#include "spgemm/ooc/gpu_side.h"
#include "spgemm/ooc/ooc_tuning.h"

/* Uploads B for a CUDA impl (a CPU stand-in, in the tests, reads B on the host). */
static spx_status upload_b(spx_ctx *ctx, spx_ooc_gpu *g, const spx_csr *B)
{
    if (g->impl->backend != SPX_BACKEND_CUDA) return SPX_OK;
    spx_status s = spx_cuda_dev_csr_upload(ctx, B, g->precision, &g->B);
    g->has_b = s == SPX_OK;
    return s;
}

spx_status spx_ooc_gpu_open(spx_ctx *ctx, const spx_spgemm_impl *impl, const spx_csr *B, spx_precision p,
                            size_t pin_min, int take_rows, spx_ooc_gpu *g)
{
    memset(g, 0, sizeof *g);
    g->impl = impl;
    g->precision = p;
    g->pin_min = impl->backend == SPX_BACKEND_CUDA ? pin_min : SIZE_MAX;
    g->take_rows = impl->analyse_rows && take_rows;
    return upload_b(ctx, g, B);
}

spx_status spx_ooc_gpu_reload(spx_ctx *ctx, spx_ooc_gpu *g, const spx_csr *B)
{
    spx_ooc_gpu_close(ctx, g);
    return upload_b(ctx, g, B);
}

void spx_ooc_gpu_close(spx_ctx *ctx, spx_ooc_gpu *g)
{
    if (g->has_b) spx_cuda_dev_csr_free(ctx, &g->B);
    g->has_b = 0;
}

/* The seconds of the log's phases named `name`. */
static double phase_seconds(const spx_phase_log *log, const char *name)
{
    double t = 0;
    for (int i = 0; i < log->n; i++)
        if (!strcmp(log->phases[i].name, name)) t += log->phases[i].seconds;
    return t;
}

/* The host ranges one panel's copies have page-locked (A's three arrays and C's three). */
typedef struct pin_set {
    void *p[6];
    int n;
} pin_set;

/* Page-locks [p, p + bytes) into ps when it is min bytes or more and the driver agrees (a
 * refusal, e.g. a range the caller registered, leaves it as it was: its copies still work). */
static void pin_range(spx_ctx *ctx, pin_set *ps, void *p, size_t bytes, size_t min)
{
    if (bytes >= min && ps->n < (int)(sizeof ps->p / sizeof ps->p[0]) && spx_cuda_host_register(ctx, p, bytes))
        ps->p[ps->n++] = p;
}

/* Page-locks the ranges of at least g->pin_min bytes that the panel's copies read and write:
 * A's rows (row pointers, columns, values: uploaded in fp64 whatever the precision) and C's
 * (row pointers, columns, and values in fp64: fp32 values come back through a staging
 * buffer). Returns its seconds. */
static double pin_panel(spx_ctx *ctx, const spx_ooc_gpu *g, const spx_csr *Ap, const spx_csr *Cv, pin_set *ps)
{
    const double t0 = spx_now();
    const size_t min = g->pin_min;
    memset(ps, 0, sizeof *ps);
    if (min == SIZE_MAX) return 0;
    pin_range(ctx, ps, Ap->rowptr, ((size_t)Ap->m + 1) * sizeof *Ap->rowptr, min);
    pin_range(ctx, ps, Ap->colind, (size_t)Ap->nnz * sizeof *Ap->colind, min);
    pin_range(ctx, ps, Ap->val, (size_t)Ap->nnz * sizeof *Ap->val, min);
    pin_range(ctx, ps, Cv->rowptr, ((size_t)Cv->m + 1) * sizeof *Cv->rowptr, min);
    pin_range(ctx, ps, Cv->colind, (size_t)Cv->nnz * sizeof *Cv->colind, min);
    if (g->precision == SPX_FP64) pin_range(ctx, ps, Cv->val, (size_t)Cv->nnz * sizeof *Cv->val, min);
    return spx_now() - t0;
}

/* Undoes pin_panel; returns its seconds. */
static double unpin_panel(pin_set *ps)
{
    const double t0 = spx_now();
    for (int i = 0; i < ps->n; i++) spx_cuda_host_unregister(ps->p[i]);
    ps->n = 0;
    return spx_now() - t0;
}

/* The panel's state for numeric: from the CPU's row pointers (Cv->rowptr) when g takes them,
 * else the impl's analysis and symbolic phase; a count other than Cv->nnz is SPX_ERR_VERIFY.
 * *state may be set on failure (the caller destroys it). */
static spx_status prepare(spx_ctx *ctx, const spx_ooc_gpu *g, const spx_spgemm_input *in, const spx_csr *Cv,
                          spx_phase_log *log, void **state)
{
    int64_t products = 0, nnz = Cv->rowptr[Cv->m];
    spx_status s = g->take_rows ? g->impl->analyse_rows(ctx, in, Cv->rowptr, log, state)
                                : g->impl->analyse(ctx, in, log, state, &products);
    if (!s && !g->take_rows) s = g->impl->symbolic(ctx, *state, log, &nnz);
    if (!s && nnz != Cv->nnz)
        s = spx_fail(ctx, SPX_ERR_VERIFY, "spgemm panel: %s %lld nonzeros in rows of %d, the CPU %lld",
                     g->take_rows ? "the row pointers given hold" : "the GPU counts", (long long)nnz, Cv->m,
                     (long long)Cv->nnz);
    return s;
}

spx_status spx_ooc_gpu_panel(spx_ctx *ctx, const spx_ooc_gpu *g, const spx_csr *Ap, const spx_csr *B, spx_csr *Cv,
                             spx_ooc_times *t)
{
    spx_spgemm_input in = {Ap, B, g->precision, NULL, g->has_b ? &g->B : NULL};
    spx_phase_log log;
    memset(&log, 0, sizeof log);
    void *state = NULL;
    pin_set ps;
    const double t0 = spx_now();
    const double lock = pin_panel(ctx, g, Ap, Cv, &ps);
    spx_status s = prepare(ctx, g, &in, Cv, &log, &state);
    if (!s) s = g->impl->numeric(ctx, state, &log, Cv);
    if (state) g->impl->destroy(ctx, state);
    const double unlock = unpin_panel(&ps);
    const double wall = spx_now() - t0;
    t->pin = lock + unlock;
    t->upload = lock + phase_seconds(&log, "upload");
    t->download = phase_seconds(&log, "download") + unlock;
    t->compute = wall - t->upload - t->download;
    return s;
}
