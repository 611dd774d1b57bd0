/* src/solve/steps_stub.c: the device half of a solve (solve_steps.h) for builds without CUDA:
 * each entry point reports SPX_ERR_NOT_COMPILED (no CUDA plan can exist in such a build, so
 * these only keep the link whole). */
#include "solve/solve_steps.h"

/* The error the entry points return. */
static spx_status not_compiled(spx_ctx *ctx)
{
    return ctx ? spx_fail(ctx, SPX_ERR_NOT_COMPILED, "the CUDA backend is not compiled into this build")
               : SPX_ERR_NOT_COMPILED;
}

spx_status spx_solve_cuda_open(spx_ctx *ctx, int64_t n, solve_cuda **out, solve_scalars **host)
{
    return not_compiled(ctx);
}

spx_status spx_solve_cuda_put(solve_cuda *c) { return SPX_ERR_NOT_COMPILED; }

spx_status spx_solve_cuda_get(solve_cuda *c) { return SPX_ERR_NOT_COMPILED; }

spx_status spx_solve_cuda_step(solve_cuda *c, solve_step step, spx_precision p, int64_t n,
                               void *const ptr[SOLVE_N_ROLES])
{
    return SPX_ERR_NOT_COMPILED;
}

spx_status spx_solve_cuda_capture(solve_cuda *c, spx_status (*body)(void *arg), void *arg, int *ok)
{
    return SPX_ERR_NOT_COMPILED;
}

spx_status spx_solve_cuda_replay(solve_cuda *c) { return SPX_ERR_NOT_COMPILED; }

solve_scalars *spx_solve_cuda_block(solve_cuda *c) { return NULL; }

void spx_solve_cuda_close(solve_cuda *c) {}
