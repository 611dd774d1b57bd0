/* src/formats/csr/csr_stub.c: the csr device helpers (csr_cuda.h) for builds without CUDA:
 * each reports SPX_ERR_NOT_COMPILED. */
#include <string.h>

#include "formats/csr/csr_cuda.h"

spx_status spx_csr_fmt_upload(spx_ctx *ctx, const spx_csr_fmt *F, int32_t **rowptr, int32_t **colind, void **val)
{
    (void)F;
    (void)rowptr;
    (void)colind;
    (void)val;
    return spx_fail(ctx, SPX_ERR_NOT_COMPILED, "csr upload: the CUDA backend is not compiled into this build");
}

spx_status spx_csr_stream_blocks_device(spx_ctx *ctx, const int32_t *rp, int32_t m, const spx_csr_stream_limits *lim,
                                        spx_csr_stream_plan *out)
{
    (void)rp;
    (void)m;
    (void)lim;
    if (out) memset(out, 0, sizeof *out);
    return spx_fail(ctx, SPX_ERR_NOT_COMPILED, "csr stream blocks (device): the CUDA backend is not compiled into this build");
}

spx_status spx_csr_cuda_view(const void *dev, spx_dev_csr *out)
{
    (void)dev;
    if (out) memset(out, 0, sizeof *out);
    return SPX_ERR_NOT_COMPILED;
}
