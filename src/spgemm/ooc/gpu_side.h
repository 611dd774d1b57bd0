/* src/spgemm/ooc/gpu_side.h: the out-of-core SpGEMM's GPU side: B resident on the device for
 * the whole plan, and one panel's product by a GPU implementation (spx) with that B, written
 * straight into C's host slice, its transfer and compute times measured. */
#ifndef SPX_SPGEMM_OOC_GPU_SIDE_H
#define SPX_SPGEMM_OOC_GPU_SIDE_H

#include "spgemm/impl.h"
#include "spmv/format.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spx_ooc_gpu {
    const spx_spgemm_impl *impl;
    spx_precision precision;
    spx_dev_csr B; /* resident */
    int has_b;
} spx_ooc_gpu;

/* One panel's seconds on the GPU side: A's panel uploaded, computed, C's panel downloaded. */
typedef struct spx_ooc_times {
    double upload, compute, download;
} spx_ooc_times;

/* Uploads B (in precision p) for impl's panels; nothing for an impl on the CPU (the tests'
 * stand-in for the GPU side, so that CI runs the two-sided schedule). */
spx_status spx_ooc_gpu_open(spx_ctx *ctx, const spx_spgemm_impl *impl, const spx_csr *B, spx_precision p,
                            spx_ooc_gpu *g);
/* B's values changed: uploads B again. */
spx_status spx_ooc_gpu_reload(spx_ctx *ctx, spx_ooc_gpu *g, const spx_csr *B);
void spx_ooc_gpu_close(spx_ctx *ctx, spx_ooc_gpu *g);
/* C's panel = Ap * B (Ap: a view of A's rows) into Cv, whose rowptr is the caller's scratch
 * and whose colind and val are C's slice of Cv->nnz entries: a symbolic count other than
 * Cv->nnz is SPX_ERR_VERIFY. */
spx_status spx_ooc_gpu_panel(spx_ctx *ctx, const spx_ooc_gpu *g, const spx_csr *Ap, const spx_csr *B, spx_csr *Cv,
                             spx_ooc_times *t);

#ifdef __cplusplus
}
#endif
#endif
