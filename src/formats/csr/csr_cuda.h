/* src/formats/csr/csr_cuda.h: device-side helpers of the csr layout, for the .cu files of the
 * formats that run on it (csr, cusparse). */
#ifndef SPX_FORMATS_CSR_CUDA_H
#define SPX_FORMATS_CSR_CUDA_H

#include "core/ctx.h"
#include "formats/csr/csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Allocates the device arrays of F and copies them up; on failure the caller frees what was
 * allocated (the pointers are set as soon as each allocation succeeds). */
spx_status spx_csr_fmt_upload(spx_ctx *ctx, const spx_csr_fmt *F, int32_t **rowptr, int32_t **colind, void **val);

#ifdef __cplusplus
}
#endif
#endif
