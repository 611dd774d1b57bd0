/* src/formats/csr/csr_stream_blocks.c: the csr "stream" algorithm's row blocks, cut on the host.
 * The rows are cut into pieces of SPX_CSR_STREAM_PIECE_ROWS; each piece runs the same greedy
 * walk on its own (count pass), an exclusive prefix over the pieces places each piece's blocks,
 * splits and partial slots, and each piece writes its part (fill pass). The pieces do not
 * depend on the thread count, so neither do the blocks; a matrix of one piece gets exactly the
 * blocks of a serial walk. */
#include "formats/csr/csr_stream_blocks.h"

#include <string.h>

/* A walk's position: blocks, splits and partial slots before it (global offsets when filling). */
typedef struct walk_pos {
    int64_t b, sp, part;
} walk_pos;

/* Writes block b (when the fill pass has an array). */
static void put_block(spx_csr_stream_block *hb, int64_t b, int32_t x, int32_t y, int32_t z, int32_t w)
{
    if (hb) hb[b] = (spx_csr_stream_block){x, y, z, w};
}

/* Row i of len > lim->nnz nonzeros: one block per chunk, and a split when several; advances
 * *pos past them. */
static void put_long_row(const int32_t *rp, int32_t i, int32_t len, const spx_csr_stream_limits *lim,
                         spx_csr_stream_block *hb, spx_csr_stream_split *hs, walk_pos *pos)
{
    const int32_t chunks = (int32_t)(((int64_t)len + lim->chunk - 1) / lim->chunk);
    const int32_t kind = chunks > 1 ? (int32_t)pos->sp : SPX_CSR_STREAM_LONG;
    for (int32_t c = 0; c < chunks; c++) put_block(hb, pos->b++, i, i + 1, rp[i] + c * lim->chunk, kind);
    if (chunks == 1) return;
    if (hs) hs[pos->sp] = (spx_csr_stream_split){(int32_t)pos->part, chunks};
    pos->sp++;
    pos->part += chunks;
}

/* The greedy walk over rows [r0, r1): rows join a block while it holds at most lim->nnz
 * nonzeros and lim->max_rows rows; a longer row closes the open block and gets its own
 * (put_long_row). Advances *pos; writes at its offsets when hb and hs are set. */
static void walk_piece(const int32_t *rp, int32_t r0, int32_t r1, const spx_csr_stream_limits *lim,
                       spx_csr_stream_block *hb, spx_csr_stream_split *hs, walk_pos *pos)
{
    int32_t start = r0, rows = 0, acc = 0;
    for (int32_t i = r0; i < r1; i++) {
        const int32_t len = rp[i + 1] - rp[i];
        if (len > lim->nnz) {
            if (rows) put_block(hb, pos->b++, start, i, 0, SPX_CSR_STREAM_ROWS);
            put_long_row(rp, i, len, lim, hb, hs, pos);
            start = i + 1;
            rows = acc = 0;
            continue;
        }
        if (rows && (acc + len > lim->nnz || rows == lim->max_rows)) {
            put_block(hb, pos->b++, start, i, 0, SPX_CSR_STREAM_ROWS);
            start = i;
            rows = acc = 0;
        }
        rows++;
        acc += len;
    }
    if (rows) put_block(hb, pos->b++, start, r1, 0, SPX_CSR_STREAM_ROWS);
}

/* Pieces below which one thread walks them all: waking the team costs more than 8 pieces'
 * walk (~65k rows; bcsstk29's 2 pieces took 0.14 ms of analysis on two threads against 0.07 ms
 * as one piece, H100 host, 2026-11-27). */
#define PARALLEL_MIN_PIECES 8

/* Walks every piece on up to threads threads. Count pass (hb NULL): off[p + 1] = piece p's
 * counts. Fill pass: piece p writes from off[p]. */
static void walk_pieces(const int32_t *rp, int32_t m, const spx_csr_stream_limits *lim, int threads,
                        spx_csr_stream_block *hb, spx_csr_stream_split *hs, walk_pos *off)
{
    const int64_t pieces = spx_csr_stream_pieces(m);
    const int nt = pieces < PARALLEL_MIN_PIECES ? 1 : (int64_t)threads < pieces ? threads : (int)pieces;
#pragma omp parallel for schedule(dynamic) num_threads(nt) if (nt > 1)
    for (int64_t p = 0; p < pieces; p++) {
        const int64_t r0 = p * SPX_CSR_STREAM_PIECE_ROWS, r1 = r0 + SPX_CSR_STREAM_PIECE_ROWS;
        walk_pos pos = {0, 0, 0};
        if (hb) pos = off[p];
        walk_piece(rp, (int32_t)r0, (int32_t)(r1 < m ? r1 : m), lim, hb, hs, &pos);
        if (!hb) off[p + 1] = pos;
    }
}

/* off[1..pieces] from counts to the exclusive prefix's ends: off[p] is where piece p starts. */
static void prefix_pieces(walk_pos *off, int64_t pieces)
{
    for (int64_t p = 0; p < pieces; p++) {
        off[p + 1].b += off[p].b;
        off[p + 1].sp += off[p].sp;
        off[p + 1].part += off[p].part;
    }
}

spx_status spx_csr_stream_blocks(spx_ctx *ctx, const int32_t *rp, int32_t m, const spx_csr_stream_limits *lim,
                                 spx_csr_stream_plan *out)
{
    memset(out, 0, sizeof *out);
    if (m < 0 || (m > 0 && !rp) || !lim || lim->nnz < 1 || lim->chunk < 1 || lim->max_rows < 1)
        return spx_fail(ctx, SPX_ERR_ARG, "csr stream blocks: bad arguments");
    const int threads = spx_ctx_threads(ctx);
    const int64_t pieces = spx_csr_stream_pieces(m);
    walk_pos *off = (walk_pos *)spx_calloc_array(ctx, (size_t)pieces + 1, sizeof *off);
    if (!off) return spx_fail_nomem(ctx, "csr stream: piece offsets");
    walk_pieces(rp, m, lim, threads, NULL, NULL, off); /* count, place, then fill */
    prefix_pieces(off, pieces);
    const walk_pos all = off[pieces];
    out->blocks = (spx_csr_stream_block *)spx_malloc_array(ctx, (size_t)all.b + 1, sizeof *out->blocks);
    out->splits = (spx_csr_stream_split *)spx_malloc_array(ctx, (size_t)all.sp + 1, sizeof *out->splits);
    if (!out->blocks || !out->splits) {
        spx_free(ctx, off);
        spx_csr_stream_plan_free(ctx, out);
        return spx_fail_nomem(ctx, "csr stream: row blocks");
    }
    walk_pieces(rp, m, lim, threads, out->blocks, out->splits, off);
    out->n_blocks = all.b;
    out->n_splits = all.sp;
    out->n_parts = all.part;
    spx_free(ctx, off);
    return SPX_OK;
}

void spx_csr_stream_plan_free(spx_ctx *ctx, spx_csr_stream_plan *p)
{
    if (!p) return;
    spx_free(ctx, p->blocks);
    spx_free(ctx, p->splits);
    memset(p, 0, sizeof *p);
}
