/* src/cuda/ctx_device.c: the context's device side, over the device runtime (gateway.h): which
 * backend a request runs on (AUTO resolved, CUDA checked usable), so that core/ctx.c, the
 * ground services, calls nothing above itself. */
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

/* AUTO resolves to CUDA when it is built and a device answers, else CPU. */
spx_backend spx_ctx_resolved_backend(spx_ctx *ctx)
{
    if (ctx->backend != SPX_BACKEND_AUTO) return ctx->backend;
    return (spx_cuda_built() && spx_cuda_device_count() > 0) ? SPX_BACKEND_CUDA : SPX_BACKEND_CPU;
}

int spx_cuda_compiled(void) { return spx_cuda_built(); }
