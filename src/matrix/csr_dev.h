/* src/matrix/csr_dev.h: what the library shares about the device CSR (spx_csr_dev) beyond
 * its public API: the header check every entry point that takes one runs, and the host struct
 * made around fields the gateway filled. */
#ifndef SPX_MATRIX_CSR_DEV_H
#define SPX_MATRIX_CSR_DEV_H

#include "core/ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* SPX_ERR_ARG (or SPX_ERR_OVERFLOW) with a message unless A's sizes and types are valid and
 * its arrays present (rowptr always, colind and val when nnz > 0). Host-side only. */
spx_status spx_csr_dev_check_header(spx_ctx *ctx, const spx_csr_dev *A);
/* *out: a new host struct holding *fields, on ctx; when that fails, an owned block is freed
 * (nothing is left behind) and SPX_ERR_NOMEM returned. */
spx_status spx_csr_dev_adopt(spx_ctx *ctx, const spx_csr_dev *fields, spx_csr_dev **out);

#ifdef __cplusplus
}
#endif
#endif
