/* src/solve/persist_stub.c: the persistent kernels' entry points (solve_persist.h) for builds
 * without CUDA: each reports SPX_ERR_NOT_COMPILED (no CUDA plan can exist in such a build, so
 * the path rule never asks for them; these keep the link whole). */
#include <string.h>

#include "solve/solve_persist.h"

spx_status spx_solve_persist_shape(spx_ctx *ctx, solve_persist_method m, spx_precision p, int jacobi, int64_t n,
                                   int64_t nnz, solve_persist_shape *out)
{
    memset(out, 0, sizeof *out);
    return ctx ? spx_fail(ctx, SPX_ERR_NOT_COMPILED, "the CUDA backend is not compiled into this build")
               : SPX_ERR_NOT_COMPILED;
}

spx_status spx_solve_persist_run(solve_cuda *c, const solve_scalars *host, const solve_persist_job *job, double *seconds)
{
    return SPX_ERR_NOT_COMPILED;
}
