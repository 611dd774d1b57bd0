/* src/spgemm/ooc/gpu_side.h: the out-of-core SpGEMM's GPU side: B resident on the device for
 * the whole plan, and one panel's product by a GPU implementation (spx) with that B, from C's
 * row pointers as the CPU counted them, written straight into C's host slice, the host ranges
 * it copies page-locked for the panel, its transfer and compute times measured. When B does
 * not fit resident, B's column blocks are kept on the host and a panel is computed block by
 * block (each uploaded for it, the piece counted by the GPU, downloaded, and placed into C's
 * rows after the pieces of the blocks before it). */
#ifndef SPX_SPGEMM_OOC_GPU_SIDE_H
#define SPX_SPGEMM_OOC_GPU_SIDE_H

#include "spgemm/impl.h"
#include "spgemm/ooc/bblocks.h"
#include "matrix/csr_dev.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spx_ooc_gpu {
    const spx_spgemm_impl *impl;
    spx_precision precision;
    spx_dev_csr B; /* resident */
    int has_b;
    const spx_ooc_bcut *bcut; /* B's column blocks (blocks 1: B resident), the caller's */
    spx_csr **parts;   /* blocks > 1: the blocks on the host, uploaded per panel */
    size_t pin_min; /* a panel's host ranges of this many bytes and more are page-locked for
                       its copies; SIZE_MAX: none (a CPU impl, or pin_min_bytes 0) */
    int take_rows;  /* the impl takes C's row pointers (analyse_rows) instead of counting */
} spx_ooc_gpu;

/* One panel's seconds on the GPU side: A's panel uploaded, computed, C's panel downloaded;
 * the upload holds the page-locking of the panel's host ranges, the download their unlocking,
 * and pin the two. */
typedef struct spx_ooc_times {
    double upload, compute, download, pin;
} spx_ooc_times;

/* Uploads B (in precision p) for impl's panels; nothing for an impl on the CPU (the tests'
 * stand-in for the GPU side, so that CI runs the two-sided schedule). With bcut's blocks > 1
 * (bcut is kept, not copied), B's column blocks are made on the host instead. The panels
 * page-lock their host ranges of pin_min bytes and more (SIZE_MAX: none; never by blocks)
 * and, with take_rows, hand the CPU's row pointers of C to an impl that takes them
 * (analyse_rows; B resident only: a block's piece of a row has no count of its own). */
spx_status spx_ooc_gpu_open(spx_ctx *ctx, const spx_spgemm_impl *impl, const spx_csr *B, const spx_ooc_bcut *bcut,
                            spx_precision p, size_t pin_min, int take_rows, spx_ooc_gpu *g);
/* B's values changed: uploads B again (or copies them into its blocks). */
spx_status spx_ooc_gpu_reload(spx_ctx *ctx, spx_ooc_gpu *g, const spx_csr *B);
void spx_ooc_gpu_close(spx_ctx *ctx, spx_ooc_gpu *g);
/* C's panel = Ap * B (Ap: a view of A's rows) into Cv, whose rowptr is the caller's scratch
 * holding the panel's row pointers from 0 as the CPU counted them (Cv->m + 1; an impl with
 * analyse_rows takes them instead of counting) and on return the GPU's, and whose colind and
 * val are C's slice of Cv->nnz entries: a GPU count other than Cv->nnz (by blocks: a row
 * whose pieces do not add up to its length) is SPX_ERR_VERIFY. The host ranges the panel
 * copies (g->pin_min bytes and more) are page-locked for the call and unlocked on every
 * return. */
spx_status spx_ooc_gpu_panel(spx_ctx *ctx, const spx_ooc_gpu *g, const spx_csr *Ap, const spx_csr *B, spx_csr *Cv,
                             spx_ooc_times *t);

#ifdef __cplusplus
}
#endif
#endif
