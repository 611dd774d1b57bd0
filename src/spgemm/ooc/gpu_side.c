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

/* Frees B resident. */
static void drop_b(spx_ctx *ctx, spx_ooc_gpu *g)
{
    if (g->has_b) spx_cuda_dev_csr_free(ctx, &g->B);
    g->has_b = 0;
}

spx_status spx_ooc_gpu_open(spx_ctx *ctx, const spx_spgemm_impl *impl, const spx_csr *B, const spx_ooc_bcut *bcut,
                            spx_precision p, size_t pin_min, int take_rows, spx_ooc_gpu *g)
{
    memset(g, 0, sizeof *g);
    g->impl = impl;
    g->precision = p;
    g->bcut = bcut;
    const int blocks = bcut->blocks > 1;
    g->pin_min = impl->backend == SPX_BACKEND_CUDA && !blocks ? pin_min : SIZE_MAX;
    g->take_rows = impl->analyse_rows && take_rows && !blocks;
    return blocks ? spx_ooc_bparts_make(ctx, B, bcut, &g->parts) : upload_b(ctx, g, B);
}

spx_status spx_ooc_gpu_reload(spx_ctx *ctx, spx_ooc_gpu *g, const spx_csr *B)
{
    if (g->parts) {
        spx_ooc_bparts_values(B, g->bcut, g->parts, spx_ctx_threads(ctx));
        return SPX_OK;
    }
    drop_b(ctx, g);
    return upload_b(ctx, g, B);
}

void spx_ooc_gpu_close(spx_ctx *ctx, spx_ooc_gpu *g)
{
    drop_b(ctx, g);
    if (g->parts) spx_ooc_bparts_free(ctx, g->parts, g->bcut->blocks);
    g->parts = NULL;
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

/* A panel by B's column blocks: what one block's piece needs on the host (the piece's row
 * pointers, columns and values, and how much of each of C's rows is placed). */
typedef struct block_scratch {
    int64_t *prow, *fill;
    int32_t *pc;
    double *pv;
} block_scratch;

/* Frees a block scratch (any of its arrays may be NULL). */
static void scratch_free(spx_ctx *ctx, block_scratch *w)
{
    spx_free(ctx, w->prow);
    spx_free(ctx, w->fill);
    spx_free(ctx, w->pc);
    spx_free(ctx, w->pv);
}

/* Places block j's piece (w->prow, w->pc, w->pv, columns from the block's first) into Cv's
 * rows after what earlier blocks placed; SPX_ERR_VERIFY when a row would overflow. */
static spx_status place_piece(spx_ctx *ctx, const spx_ooc_gpu *g, int j, block_scratch *w, spx_csr *Cv)
{
    const int32_t c0 = g->bcut->cut[j];
    for (int32_t r = 0; r < Cv->m; r++) {
        const int64_t p0 = w->prow[r], len = w->prow[r + 1] - p0, at = Cv->rowptr[r] + w->fill[r];
        if (at + len > Cv->rowptr[r + 1])
            return spx_fail(ctx, SPX_ERR_VERIFY, "spgemm panel: block %d of B's columns gives row %d more entries "
                            "than the CPU counted (%lld)", j, r, (long long)(Cv->rowptr[r + 1] - Cv->rowptr[r]));
        for (int64_t q = 0; q < len; q++) Cv->colind[at + q] = w->pc[p0 + q] + c0;
        memcpy(Cv->val + at, w->pv + p0, (size_t)len * sizeof *Cv->val);
        w->fill[r] += len;
    }
    return SPX_OK;
}

/* Block j's piece of the panel (Ap times B's block j) into w: the block uploaded (a CUDA impl)
 * and freed, the impl's analysis, symbolic phase and numeric phase; their log into *log. */
static spx_status block_piece(spx_ctx *ctx, const spx_ooc_gpu *g, int j, const spx_csr *Ap, int64_t cap,
                              block_scratch *w, spx_phase_log *log)
{
    const spx_csr *Bj = g->parts[j];
    spx_dev_csr dB;
    int has = 0;
    const double t0 = spx_now();
    spx_status s = SPX_OK;
    if (g->impl->backend == SPX_BACKEND_CUDA) has = (s = spx_cuda_dev_csr_upload(ctx, Bj, g->precision, &dB)) == SPX_OK;
    spx_phase_add(log, "upload", spx_now() - t0);
    spx_spgemm_input in = {.A = Ap, .B = Bj, .precision = g->precision, .dev_b = has ? &dB : NULL};
    void *state = NULL;
    int64_t products = 0, nnz = 0;
    if (!s) s = g->impl->analyse(ctx, &in, log, &state, &products);
    if (!s) s = g->impl->symbolic(ctx, state, log, &nnz);
    if (!s && nnz > cap)
        s = spx_fail(ctx, SPX_ERR_VERIFY, "spgemm panel: block %d of B's columns gives %lld nonzeros, the panel %lld", j,
                     (long long)nnz, (long long)cap);
    spx_csr piece = {Ap->m, Bj->n, nnz, w->prow, w->pc, w->pv, {0}, ctx, 0};
    if (!s) s = g->impl->numeric(ctx, state, log, &piece);
    if (state) g->impl->destroy(ctx, state);
    if (has) spx_cuda_dev_csr_free(ctx, &dB);
    return s;
}

/* spx_ooc_gpu_panel when B is in column blocks: block by block in column order, each piece
 * placed after the earlier ones; every row of Cv must come out full. Times as the resident
 * path's (the placing counted as download). */
static spx_status panel_by_blocks(spx_ctx *ctx, const spx_ooc_gpu *g, const spx_csr *Ap, spx_csr *Cv,
                                  spx_ooc_times *t)
{
    const double t0 = spx_now();
    block_scratch w = {spx_malloc_array(ctx, (size_t)Cv->m + 1, sizeof *w.prow),
                       spx_calloc_array(ctx, (size_t)Cv->m + 1, sizeof *w.fill),
                       spx_malloc_array(ctx, (size_t)Cv->nnz + 1, sizeof *w.pc),
                       spx_malloc_array(ctx, (size_t)Cv->nnz + 1, sizeof *w.pv)};
    spx_status s = w.prow && w.fill && w.pc && w.pv ? SPX_OK : spx_fail_nomem(ctx, "spgemm panel: a block's piece");
    spx_phase_log log;
    memset(&log, 0, sizeof log);
    double place = 0;
    for (int j = 0; !s && j < g->bcut->blocks; j++) {
        s = block_piece(ctx, g, j, Ap, Cv->nnz, &w, &log);
        const double p0 = spx_now();
        if (!s) s = place_piece(ctx, g, j, &w, Cv);
        place += spx_now() - p0;
    }
    for (int32_t r = 0; !s && r < Cv->m; r++)
        if (w.fill[r] != Cv->rowptr[r + 1] - Cv->rowptr[r])
            s = spx_fail(ctx, SPX_ERR_VERIFY, "spgemm panel: B's column blocks give row %d %lld entries, the CPU %lld", r,
                         (long long)w.fill[r], (long long)(Cv->rowptr[r + 1] - Cv->rowptr[r]));
    scratch_free(ctx, &w);
    const double wall = spx_now() - t0;
    t->pin = 0;
    t->upload = phase_seconds(&log, "upload");
    t->download = phase_seconds(&log, "download") + place;
    t->compute = wall - t->upload - t->download;
    return s;
}

spx_status spx_ooc_gpu_panel(spx_ctx *ctx, const spx_ooc_gpu *g, const spx_csr *Ap, const spx_csr *B, spx_csr *Cv,
                             spx_ooc_times *t)
{
    if (g->parts) return panel_by_blocks(ctx, g, Ap, Cv, t);
    spx_spgemm_input in = {.A = Ap, .B = B, .precision = g->precision, .dev_b = g->has_b ? &g->B : NULL};
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
