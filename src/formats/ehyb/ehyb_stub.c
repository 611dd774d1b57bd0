/* src/formats/ehyb/ehyb_stub.c: the ehyb device-layout entry point (ehyb.h) for builds without
 * CUDA: it reports SPX_ERR_NOT_COMPILED. */
#include "formats/ehyb/ehyb.h"

spx_status spx_ehyb_dev_download(spx_ctx *ctx, const spx_ehyb_fmt *L, spx_ehyb_fmt **out)
{
    (void)L;
    (void)out;
    return spx_fail(ctx, SPX_ERR_NOT_COMPILED, "ehyb download: the CUDA backend is not compiled into this build");
}
