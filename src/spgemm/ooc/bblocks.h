/* src/spgemm/ooc/bblocks.h: B split by columns, for out-of-core panels whose device budget B
 * does not fit resident (issue 11): B's columns cut into blocks of about equal nonzeros, and
 * the blocks as CSRs of their own (k rows, their columns renumbered from the block's first),
 * which the GPU side uploads one at a time for each of its panels. C's row i is the
 * concatenation of the blocks' row i in column order, so every block's piece of a row goes
 * after the pieces of the blocks before it. */
#ifndef SPX_SPGEMM_OOC_BBLOCKS_H
#define SPX_SPGEMM_OOC_BBLOCKS_H

#include "core/ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* B's column blocks: block j holds columns [cut[j], cut[j + 1]) and nnz[j] of B's entries.
 * Every block is a k-row CSR: host memory and each GPU panel's uploads carry k + 1 row
 * pointers a block. */
typedef struct spx_ooc_bcut {
    int blocks;       /* 1: B whole, resident on the device (cut and nnz NULL) */
    int32_t *cut;     /* blocks + 1 */
    int64_t *nnz;     /* blocks */
    size_t bytes_max; /* device bytes of the largest block (of B whole when 1) */
} spx_ooc_bcut;

/* colptr[0..n]: the prefix sums of B's column counts (B's entries before each column). */
spx_status spx_ooc_col_prefix(spx_ctx *ctx, const spx_csr *B, int64_t **colptr);
/* Cuts B's n columns (colptr from spx_ooc_col_prefix) into blocks of at most `per_block`
 * nonzeros, a column with more being a block of its own (with the empty columns around it:
 * no block is without entries unless B has none); the device bytes of each block are those
 * of a k-row CSR in precision p. Replaces *c's blocks. */
spx_status spx_ooc_bcut_make(spx_ctx *ctx, const int64_t *colptr, int32_t k, int32_t n, int64_t per_block,
                             spx_precision p, spx_ooc_bcut *c);
void spx_ooc_bcut_free(spx_ctx *ctx, spx_ooc_bcut *c);
/* parts[0..c->blocks): B's blocks as CSRs (B->m x block width, columns from 0), allocated from
 * ctx; on failure none is left. */
spx_status spx_ooc_bparts_make(spx_ctx *ctx, const spx_csr *B, const spx_ooc_bcut *c, spx_csr ***parts);
/* B's values changed (pattern unchanged): copies them into the blocks on `threads` threads. */
void spx_ooc_bparts_values(const spx_csr *B, const spx_ooc_bcut *c, spx_csr **parts, int threads);
void spx_ooc_bparts_free(spx_ctx *ctx, spx_csr **parts, int blocks);

#ifdef __cplusplus
}
#endif
#endif
