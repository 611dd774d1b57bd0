/* src/formats/hbp/hbp_stub.c: the hbp device-layout entry points (hbp_cuda.h) for builds
 * without CUDA: each reports SPX_ERR_NOT_COMPILED. */
#include "formats/hbp/hbp_cuda.h"

spx_status spx_hbp_dev_build(spx_ctx *ctx, const spx_dev_csr *A, const spx_features *feat, const char *algo,
                             int32_t H, int32_t W, spx_phase_log *log, spx_hbp_fmt *L)
{
    return spx_fail(ctx, SPX_ERR_NOT_COMPILED, "hbp device build: the CUDA backend is not compiled into this build");
}

spx_status spx_hbp_dev_download(spx_ctx *ctx, const spx_hbp_fmt *L, spx_hbp_fmt **out)
{
    return spx_fail(ctx, SPX_ERR_NOT_COMPILED, "hbp download: the CUDA backend is not compiled into this build");
}

void spx_hbp_dev_free(spx_ctx *ctx, spx_hbp_fmt *L)
{
    (void)ctx;
    (void)L;
}

spx_status spx_hbp_bands_upload(spx_ctx *ctx, const spx_hbp_bands *B, spx_phase_log *log, spx_hbp_bands_dev **out)
{
    return spx_fail(ctx, SPX_ERR_NOT_COMPILED, "hbp bands upload: the CUDA backend is not compiled into this build");
}

spx_status spx_hbp_bands_dev_build(spx_ctx *ctx, const spx_dev_csr *A, int32_t W, const spx_features *feat,
                                   spx_hbp_hot_mode mode, spx_phase_log *log, spx_hbp_bands_dev **out)
{
    return spx_fail(ctx, SPX_ERR_NOT_COMPILED, "hbp bands build: the CUDA backend is not compiled into this build");
}

spx_status spx_hbp_bands_dev_spmv(spx_ctx *ctx, spx_hbp_bands_dev *D, const spx_spmv_args *args)
{
    return spx_fail(ctx, SPX_ERR_NOT_COMPILED, "hbp bands spmv: the CUDA backend is not compiled into this build");
}

spx_status spx_hbp_bands_dev_download(spx_ctx *ctx, const spx_hbp_bands_dev *D, spx_csr **parts, int32_t **col_of)
{
    return spx_fail(ctx, SPX_ERR_NOT_COMPILED, "hbp bands download: the CUDA backend is not compiled into this build");
}

spx_status spx_hbp_bands_dev_to_csr(spx_ctx *ctx, const spx_hbp_bands_dev *D, spx_csr **out)
{
    return spx_fail(ctx, SPX_ERR_NOT_COMPILED, "hbp bands download: the CUDA backend is not compiled into this build");
}

const spx_hbp_bands *spx_hbp_bands_dev_header(const spx_hbp_bands_dev *D)
{
    (void)D;
    return NULL;
}

const char *spx_hbp_bands_dev_kernel(const spx_hbp_bands_dev *D)
{
    (void)D;
    return "none";
}

void spx_hbp_bands_dev_free(spx_ctx *ctx, spx_hbp_bands_dev *D)
{
    (void)ctx;
    (void)D;
}

spx_status spx_hbp_wide_upload(spx_ctx *ctx, const spx_hbp_wide *L, spx_phase_log *log, spx_hbp_wide_dev **out)
{
    return spx_fail(ctx, SPX_ERR_NOT_COMPILED, "hbp wide upload: the CUDA backend is not compiled into this build");
}

spx_status spx_hbp_wide_dev_build(spx_ctx *ctx, const spx_dev_csr *A, spx_phase_log *log, spx_hbp_wide_dev **out)
{
    return spx_fail(ctx, SPX_ERR_NOT_COMPILED, "hbp wide build: the CUDA backend is not compiled into this build");
}

spx_status spx_hbp_wide_dev_spmv(spx_ctx *ctx, spx_hbp_wide_dev *D, const spx_spmv_args *args)
{
    return spx_fail(ctx, SPX_ERR_NOT_COMPILED, "hbp wide spmv: the CUDA backend is not compiled into this build");
}

spx_status spx_hbp_wide_dev_download(spx_ctx *ctx, const spx_hbp_wide_dev *D, spx_hbp_wide **out)
{
    return spx_fail(ctx, SPX_ERR_NOT_COMPILED, "hbp wide download: the CUDA backend is not compiled into this build");
}

spx_status spx_hbp_wide_dev_to_csr(spx_ctx *ctx, const spx_hbp_wide_dev *D, spx_csr **out)
{
    return spx_fail(ctx, SPX_ERR_NOT_COMPILED, "hbp wide download: the CUDA backend is not compiled into this build");
}

const spx_hbp_wide *spx_hbp_wide_dev_header(const spx_hbp_wide_dev *D)
{
    (void)D;
    return NULL;
}

const char *spx_hbp_wide_dev_kernel(const spx_hbp_wide_dev *D)
{
    (void)D;
    return "none";
}

void spx_hbp_wide_dev_free(spx_ctx *ctx, spx_hbp_wide_dev *D)
{
    (void)ctx;
    (void)D;
}
