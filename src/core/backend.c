/* src/core/backend.c: which backend a request runs on: AUTO resolved, CUDA checked usable. */
#include "core/ctx.h"
#include "cuda/gateway.h"

spx_status spx_ctx_resolve_backend(spx_ctx *ctx, spx_backend asked, spx_backend *out)
{
    if (!ctx || !out) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_ctx_resolve_backend: NULL argument") : SPX_ERR_ARG;
    spx_backend b = asked != SPX_BACKEND_AUTO ? asked : ctx->backend;
    if (b == SPX_BACKEND_AUTO) b = spx_ctx_resolved_backend(ctx);
    if (b == SPX_BACKEND_CUDA) {
        if (!spx_cuda_built())
            return spx_fail(ctx, SPX_ERR_NOT_COMPILED, "backend cuda requested, but this build has no CUDA backend");
        if (spx_cuda_device_count() < 1)
            return spx_fail(ctx, SPX_ERR_NO_DEVICE, "backend cuda requested, but no CUDA device is present");
        spx_status s = spx_cuda_init(ctx);
        if (s) return s;
    }
    *out = b;
    return SPX_OK;
}
