/* src/spgemm/ooc/gpu_side.c: the out-of-core SpGEMM's GPU side (gpu_side.h), through the
 * implementation table and the CUDA gateway (SPX_ERR_NOT_COMPILED in builds without CUDA). */
#include <string.h>

#include "cuda/gateway.h"
#include "spgemm/ooc/gpu_side.h"

spx_status spx_ooc_gpu_open(spx_ctx *ctx, const spx_spgemm_impl *impl, const spx_csr *B, spx_precision p,
                            spx_ooc_gpu *g)
{
    memset(g, 0, sizeof *g);
    g->impl = impl;
    g->precision = p;
    if (impl->backend != SPX_BACKEND_CUDA) return SPX_OK; /* a CPU stand-in (tests) reads B on the host */
    spx_status s = spx_cuda_dev_csr_upload(ctx, B, p, &g->B);
    g->has_b = s == SPX_OK;
    return s;
}

spx_status spx_ooc_gpu_reload(spx_ctx *ctx, spx_ooc_gpu *g, const spx_csr *B)
{
    spx_ooc_gpu_close(ctx, g);
    return spx_ooc_gpu_open(ctx, g->impl, B, g->precision, g);
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

spx_status spx_ooc_gpu_panel(spx_ctx *ctx, const spx_ooc_gpu *g, const spx_csr *Ap, const spx_csr *B, spx_csr *Cv,
                             spx_ooc_times *t)
{
    spx_spgemm_input in = {Ap, B, g->precision, NULL, g->has_b ? &g->B : NULL};
    spx_phase_log log;
    memset(&log, 0, sizeof log);
    void *state = NULL;
    int64_t products = 0, nnz = 0;
    const double t0 = spx_now();
    spx_status s = g->impl->analyse(ctx, &in, &log, &state, &products);
    if (!s) s = g->impl->symbolic(ctx, state, &log, &nnz);
    if (!s && nnz != Cv->nnz)
        s = spx_fail(ctx, SPX_ERR_VERIFY, "spgemm panel: the GPU counts %lld nonzeros in rows of %d, the CPU %lld",
                     (long long)nnz, Ap->m, (long long)Cv->nnz);
    if (!s) s = g->impl->numeric(ctx, state, &log, Cv);
    if (state) g->impl->destroy(ctx, state);
    const double wall = spx_now() - t0;
    t->upload = phase_seconds(&log, "upload");
    t->download = phase_seconds(&log, "download");
    t->compute = wall - t->upload - t->download;
    return s;
}
