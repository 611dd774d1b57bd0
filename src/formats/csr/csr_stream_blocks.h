/* src/formats/csr/csr_stream_blocks.h: the csr "stream" algorithm's plan-time row blocks, cut
 * on the host from the row pointers (OpenMP over fixed pieces of rows, the same blocks for any
 * thread count). Plain C, shared by csr_cuda.cu (which uploads them), the device walk
 * (csr_stream_cuda.cu) and the tests. */
#ifndef SPX_FORMATS_CSR_STREAM_BLOCKS_H
#define SPX_FORMATS_CSR_STREAM_BLOCKS_H

#include <stdint.h>
#include "core/ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Block kinds (a block's w): rows staged together, or one chunk of a long row (LONG: the
 * whole row in one block; >= 0: the index of the row's split, the row spans several blocks). */
enum { SPX_CSR_STREAM_ROWS = -2, SPX_CSR_STREAM_LONG = -1 };

/* Rows a piece of the walk covers; a block never spans two pieces. Fixed (not per thread) so
 * the blocks depend neither on the thread count nor on where they are cut: the host walks the
 * pieces on its threads, the device (csr_stream_cuda.cu) one warp a piece, and both give the
 * same blocks. 2^13 rows (32 KB of row pointers): 3296 pieces on a 27M-row matrix, enough
 * warps for the device walk, at one more block a piece (poisson3d: +3.5 % blocks against the
 * uncut walk's ~28 a piece; 2^18 before the device walk, and the same SpMV times within 1 %
 * on the large suite, H100, 2026-11-27). */
#define SPX_CSR_STREAM_PIECE_ROWS (1 << 13)

/* Pieces of an m-row matrix. */
static inline int64_t spx_csr_stream_pieces(int32_t m)
{
    return ((int64_t)m + SPX_CSR_STREAM_PIECE_ROWS - 1) / SPX_CSR_STREAM_PIECE_ROWS;
}

/* One block, laid out as CUDA's int4 {x, y, z, w}: first row, end row (exclusive), first
 * nonzero of a long row's chunk (0 for a block of rows), kind (ROWS, LONG or a split index). */
typedef struct spx_csr_stream_block {
    int32_t x, y, z, w;
} spx_csr_stream_block;

/* One row split over several blocks, laid out as CUDA's int2 {x, y}: its first partial-sum
 * slot, its chunks (one slot each, consecutive). */
typedef struct spx_csr_stream_split {
    int32_t x, y;
} spx_csr_stream_split;

/* The walk's limits: a block of rows holds at most nnz nonzeros and max_rows rows; a row of
 * more than nnz nonzeros gets blocks of its own, one per chunk nonzeros. Passed in (the values
 * are csr_cuda_tuning.h's, which a CUDA build may override in the CUDA flags only). */
typedef struct spx_csr_stream_limits {
    int32_t nnz, chunk, max_rows;
} spx_csr_stream_limits;

/* The blocks of a matrix: n_blocks blocks, n_splits splits, n_parts partial-sum slots. */
typedef struct spx_csr_stream_plan {
    spx_csr_stream_block *blocks;
    spx_csr_stream_split *splits;
    int64_t n_blocks, n_splits, n_parts;
} spx_csr_stream_plan;

/* Cuts rows 0..m-1 of the row pointers rp (m + 1, host) into blocks within lim, on
 * spx_ctx_threads(ctx) threads; *out owns its arrays (spx_csr_stream_plan_free). */
spx_status spx_csr_stream_blocks(spx_ctx *ctx, const int32_t *rp, int32_t m, const spx_csr_stream_limits *lim,
                                 spx_csr_stream_plan *out);
/* Frees the arrays of p and zeroes it. */
void spx_csr_stream_plan_free(spx_ctx *ctx, spx_csr_stream_plan *p);

#ifdef __cplusplus
}
#endif
#endif
