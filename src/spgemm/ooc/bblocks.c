/* src/spgemm/ooc/bblocks.c: B split by columns (bblocks.h). */
#include <string.h>

#include "spgemm/ooc/bblocks.h"
#include "spgemm/ooc/panels.h"

spx_status spx_ooc_col_prefix(spx_ctx *ctx, const spx_csr *B, int64_t **colptr)
{
    int64_t *cp = spx_calloc_array(ctx, (size_t)B->n + 1, sizeof *cp);
    if (!cp) return spx_fail_nomem(ctx, "spgemm panels: B's column counts");
    for (int64_t q = 0; q < B->nnz; q++) cp[B->colind[q] + 1]++;
    for (int32_t j = 0; j < B->n; j++) cp[j + 1] += cp[j];
    *colptr = cp;
    return SPX_OK;
}

/* The end of the block that starts at column c0: the last e with colptr[e] - colptr[c0] <=
 * per_block, but never a block without entries: its first column with entries is in it
 * whatever its count (with the empty columns before and after it), and only the last block
 * may be all empty columns (when B has no entry at all). */
static int32_t block_end(const int64_t *colptr, int32_t c0, int32_t n, int64_t per_block)
{
    int32_t first = c0; /* the block's first column with entries */
    while (first < n && colptr[first + 1] == colptr[c0]) first++;
    if (first == n) return n;
    const int64_t head = colptr[first + 1] - colptr[c0], most = head > per_block ? head : per_block;
    int32_t lo = first + 1, hi = n;
    while (lo < hi) { /* the largest e in [lo, hi] within the block's nonzeros */
        const int32_t mid = lo + (hi - lo + 1) / 2;
        if (colptr[mid] - colptr[c0] <= most) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

spx_status spx_ooc_bcut_make(spx_ctx *ctx, const int64_t *colptr, int32_t k, int32_t n, int64_t per_block,
                             spx_precision p, spx_ooc_bcut *c)
{
    int blocks = 0;
    for (int32_t c0 = 0; c0 < n; c0 = block_end(colptr, c0, n, per_block)) blocks++;
    spx_ooc_bcut_free(ctx, c);
    c->cut = spx_malloc_array(ctx, (size_t)blocks + 1, sizeof *c->cut);
    c->nnz = spx_malloc_array(ctx, (size_t)blocks + 1, sizeof *c->nnz);
    if (!c->cut || !c->nnz) {
        spx_ooc_bcut_free(ctx, c);
        return spx_fail_nomem(ctx, "spgemm panels: B's column blocks");
    }
    c->blocks = blocks;
    c->cut[0] = 0;
    for (int j = 0; j < blocks; j++) {
        c->cut[j + 1] = block_end(colptr, c->cut[j], n, per_block);
        c->nnz[j] = colptr[c->cut[j + 1]] - colptr[c->cut[j]];
        const size_t bytes = spx_ooc_dev_csr_bytes(k, c->nnz[j], p);
        if (bytes > c->bytes_max) c->bytes_max = bytes;
    }
    return SPX_OK;
}

void spx_ooc_bcut_free(spx_ctx *ctx, spx_ooc_bcut *c)
{
    spx_free(ctx, c->cut);
    spx_free(ctx, c->nnz);
    memset(c, 0, sizeof *c);
    c->blocks = 1;
}

/* Fills the blocks' columns (renumbered) and values from B on `threads` threads, their row
 * pointers already set; values only when cols is 0. Within a row of B each block's entries
 * are contiguous. */
static void fill_parts(const spx_csr *B, const spx_ooc_bcut *c, spx_csr **parts, int cols, int threads)
{
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int32_t r = 0; r < B->m; r++) {
        int j = 0;
        int64_t at = parts[0]->rowptr[r];
        for (int64_t q = B->rowptr[r]; q < B->rowptr[r + 1]; q++) {
            const int32_t col = B->colind[q];
            if (col >= c->cut[j + 1]) { /* the next block holding col */
                while (col >= c->cut[j + 1]) j++;
                at = parts[j]->rowptr[r];
            }
            if (cols) parts[j]->colind[at] = col - c->cut[j];
            parts[j]->val[at++] = B->val[q];
        }
    }
}

/* Sets each block's row pointers from B's rows (their entries counted per block, on `threads`
 * threads). */
static void count_parts(const spx_csr *B, const spx_ooc_bcut *c, spx_csr **parts, int threads)
{
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int32_t r = 0; r < B->m; r++) {
        int j = 0;
        for (int64_t q = B->rowptr[r]; q < B->rowptr[r + 1]; q++) {
            while (B->colind[q] >= c->cut[j + 1]) j++;
            parts[j]->rowptr[r + 1]++;
        }
    }
    for (int j = 0; j < c->blocks; j++)
        for (int32_t r = 0; r < B->m; r++) parts[j]->rowptr[r + 1] += parts[j]->rowptr[r];
}

spx_status spx_ooc_bparts_make(spx_ctx *ctx, const spx_csr *B, const spx_ooc_bcut *c, spx_csr ***parts)
{
    spx_csr **pt = spx_calloc_array(ctx, (size_t)c->blocks, sizeof *pt);
    spx_status s = pt ? SPX_OK : spx_fail_nomem(ctx, "spgemm panels: B's column blocks");
    for (int j = 0; !s && j < c->blocks; j++) s = spx_csr_alloc(ctx, B->m, c->cut[j + 1] - c->cut[j], c->nnz[j], &pt[j]);
    if (s) {
        spx_ooc_bparts_free(ctx, pt, c->blocks);
        return s;
    }
    count_parts(B, c, pt, spx_ctx_threads(ctx));
    fill_parts(B, c, pt, 1, spx_ctx_threads(ctx));
    *parts = pt;
    return SPX_OK;
}

void spx_ooc_bparts_values(const spx_csr *B, const spx_ooc_bcut *c, spx_csr **parts, int threads)
{
    fill_parts(B, c, parts, 0, threads);
}

void spx_ooc_bparts_free(spx_ctx *ctx, spx_csr **parts, int blocks)
{
    for (int j = 0; parts && j < blocks; j++) spx_csr_destroy(&parts[j]);
    spx_free(ctx, parts);
}
