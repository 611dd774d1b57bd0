/* src/formats/csr/csr_cuda.h: device-side helpers of the csr layout, for the .cu files of the
 * formats that run on it (csr, cusparse). */
#ifndef SPX_FORMATS_CSR_CUDA_H
#define SPX_FORMATS_CSR_CUDA_H

#include "core/ctx.h"
#include "formats/csr/csr.h"
#include "formats/csr/csr_stream_blocks.h"
#include "matrix/csr_dev.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Allocates the device arrays of F and copies them up; on failure the caller frees what was
 * allocated (the pointers are set as soon as each allocation succeeds). */
spx_status spx_csr_fmt_upload(spx_ctx *ctx, const spx_csr_fmt *F, int32_t **rowptr, int32_t **colind, void **val);
/* spx_csr_stream_blocks on the device (csr_stream_cuda.cu): the same blocks from the m + 1
 * device row pointers rp (m >= 1), into device arrays *out owns (freed with spx_cuda_free). */
spx_status spx_csr_stream_blocks_device(spx_ctx *ctx, const int32_t *rp, int32_t m, const spx_csr_stream_limits *lim,
                                        spx_csr_stream_plan *out);
/* The device arrays of a csr plan's GPU state dev (the plan's spx_plan.dev; its shape,
 * precision, row pointers, columns and values, in the caller's numbering: csr never renumbers)
 * as a view into *out (scratch NULL), for a kernel outside the format that runs over them (the
 * persistent solvers); the plan keeps owning them. SPX_ERR_ARG on NULL. */
spx_status spx_csr_cuda_view(const void *dev, spx_dev_csr *out);

#ifdef __cplusplus
}
#endif
#endif
