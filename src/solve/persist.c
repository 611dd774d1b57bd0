/* src/solve/persist.c: the persistent path's host side (issue 49): the rule that picks it or the
 * graph for a solve (pure: the CPU tests run it on made-up facts), its launch shape's
 * arithmetic, the facts of a run (is the plan csr on the device, what the device holds), and
 * the one launch with the plan held. The kernels are src/solve/persist_cuda.cu. */
#include <stdio.h>
#include <string.h>

#include "formats/csr/csr_cuda.h"
#include "solve/solve_common.h"
#include "solve/solve_persist.h"
#include "solve/solve_tuning.h"
#include "spmv/plan_internal.h"

const char *spx_solve_path_str(spx_solve_path p)
{
    switch (p) {
    case SPX_SOLVE_PATH_AUTO: return "auto";
    case SPX_SOLVE_PATH_GRAPH: return "graph";
    case SPX_SOLVE_PATH_PERSISTENT: return "persistent";
    case SPX_SOLVE_PATH_HOST: return "host";
    }
    return "unknown solve path";
}

int solve_persist_group(int64_t n, int64_t nnz)
{
    int g = 1;
    while (g < 32 && (double)g * SOLVE_PERSIST_NZ_PER_LANE * (double)n < (double)nnz) g *= 2;
    return g;
}

int solve_persist_grid(int resident, int64_t n, int group)
{
    const int64_t need = (n * group + SOLVE_PERSIST_BLOCK - 1) / SOLVE_PERSIST_BLOCK;
    const int64_t g = need < resident ? need : resident;
    return g < 1 ? 1 : (int)g;
}

/* What keeps the persistent kernel from running for facts f, as a phrase into why; 0 when
 * nothing does. */
static int persist_blocked(const solve_path_facts *f, char *why, size_t len)
{
    if (!f->method)
        snprintf(why, len, "the method has no persistent kernel");
    else if (f->not_csr)
        snprintf(why, len, "%s", f->not_csr);
    else if (f->callback)
        snprintf(why, len, "a callback sees every iteration, so the host reads each one");
    else if (!f->shape.coop)
        snprintf(why, len, "the device cannot launch cooperative kernels (cudaDevAttrCooperativeLaunch = 0)");
    else if (f->shape.resident < 1)
        snprintf(why, len, "no block of the kernel fits on an SM (occupancy 0)");
    else
        return 0;
    return 1;
}

spx_solve_path solve_path_choose(const solve_path_facts *f, char *why, size_t len)
{
    char blocked[128];
    if (!f->device) {
        snprintf(why, len, "not a CUDA plan's solve: the host's steps");
        return SPX_SOLVE_PATH_HOST;
    }
    if (f->asked == SPX_SOLVE_PATH_GRAPH) {
        snprintf(why, len, "asked");
        return SPX_SOLVE_PATH_GRAPH;
    }
    if (persist_blocked(f, blocked, sizeof blocked)) {
        snprintf(why, len, "%s %s", f->asked == SPX_SOLVE_PATH_PERSISTENT ? "persistent asked, but" : "auto:", blocked);
        return SPX_SOLVE_PATH_GRAPH;
    }
    if (f->asked == SPX_SOLVE_PATH_PERSISTENT) {
        snprintf(why, len, "asked (%d blocks of %d threads, %d lanes a row)", f->shape.grid, SOLVE_PERSIST_BLOCK,
                 f->shape.group);
        return SPX_SOLVE_PATH_PERSISTENT;
    }
    if (f->check_every > 0) {
        snprintf(why, len, "auto: check_every %d asks for the host's reads every %d iterations", f->check_every,
                 f->check_every);
        return SPX_SOLVE_PATH_GRAPH;
    }
    if (f->nnz > SOLVE_PERSIST_MAX_NNZ) {
        snprintf(why, len, "auto: %lld nonzeros > %lld, past the sizes where the kernel was measured faster",
                 (long long)f->nnz, (long long)SOLVE_PERSIST_MAX_NNZ);
        return SPX_SOLVE_PATH_GRAPH;
    }
    snprintf(why, len, "auto: csr, %lld nonzeros <= %lld (%d blocks of %d threads, %d lanes a row)", (long long)f->nnz,
             (long long)SOLVE_PERSIST_MAX_NNZ, f->shape.grid, SOLVE_PERSIST_BLOCK, f->shape.group);
    return SPX_SOLVE_PATH_PERSISTENT;
}

/* The plan's device CSR into *A when the kernel can run over it: a csr layout on the device, in
 * the caller's numbering, on the vectors' context; else why not into why (returns 0). */
static int plan_csr(const spx_plan *p, const spx_ctx *ctx, spx_dev_csr *A, char *why, size_t len)
{
    if (!p || p->backend != SPX_BACKEND_CUDA || !p->dev)
        snprintf(why, len, "the plan has no layout on the device");
    else if (p->cuda != spx_csr_cuda())
        snprintf(why, len, "the plan's format is %s, not csr", p->fmt ? p->fmt->layout.name : "?");
    else if (p->perm)
        snprintf(why, len, "the plan renumbers its vectors");
    else if (p->ctx != ctx)
        snprintf(why, len, "the plan belongs to another context than the vectors");
    else if (spx_csr_cuda_view(p->dev, A) != SPX_OK)
        snprintf(why, len, "the plan's csr arrays cannot be read");
    else
        return 1;
    return 0;
}

spx_status solve_path_pick(solve_iter *it, solve_persist_job *job, int *persistent)
{
    solve_run *s = it->s;
    char not_csr[128];
    solve_path_facts f = {.asked = s->o.path, .device = s->backend == SPX_BACKEND_CUDA && s->sp->fused,
                          .method = it->m->persistent, .callback = s->o.callback != NULL,
                          .check_every = s->o.check_every};
    memset(job, 0, sizeof *job);
    *persistent = 0;
    if (f.device && f.method && !plan_csr(s->sp->plan, s->ctx, &job->A, not_csr, sizeof not_csr)) f.not_csr = not_csr;
    f.nnz = job->A.nnz;
    if (f.device && f.method && !f.not_csr && !f.callback && f.asked != SPX_SOLVE_PATH_GRAPH) {
        spx_status st = spx_solve_persist_shape(s->ctx, (solve_persist_method)it->m->persistent, s->precision,
                                                it->v[SOLVE_V_D] != NULL, s->n, f.nnz, &f.shape);
        if (st) return st;
    }
    s->res->path = solve_path_choose(&f, s->res->path_reason, sizeof s->res->path_reason);
    if (s->res->path != SPX_SOLVE_PATH_PERSISTENT) return SPX_OK;
    job->method = (solve_persist_method)it->m->persistent;
    job->ctx = s->ctx;
    job->precision = s->precision;
    job->shape = f.shape;
    job->n = s->n;
    for (int r = 0; r < SOLVE_N_ROLES; r++) job->v[r] = it->data[r];
    job->history = s->o.history;
    job->history_len = (int64_t)s->o.history_cap <= s->o.max_iter ? s->o.history_cap : s->o.max_iter + 1; /* records 0..max_iter */
    *persistent = 1;
    return SPX_OK;
}

spx_status solve_persist_launch(solve_iter *it, const solve_persist_job *job, double *seconds)
{
    spx_plan *p = it->s->sp->plan;
    spx_status st = spx_plan_enter(p); /* the plan's arrays in use: no other call on it meanwhile */
    if (st) return st;
    st = spx_solve_persist_run(it->dev, it->sc, job, seconds);
    spx_plan_leave(p);
    return st;
}
