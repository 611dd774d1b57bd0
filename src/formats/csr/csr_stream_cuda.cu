/* src/formats/csr/csr_stream_cuda.cu: the csr "stream" blocks cut on the device from the
 * uploaded row pointers: one warp a piece of SPX_CSR_STREAM_PIECE_ROWS rows, a count pass, a
 * prefix over the pieces, a fill pass. The warp takes its piece 32 rows a step: a prefix sum
 * of the step's row lengths and a ballot find where the host's greedy walk
 * (csr_stream_blocks.c) would close a block, so the blocks are the host walk's (tests/test_gpu.c
 * compares them); what it saves is the row pointers' trip to the host (4 bytes a row down,
 * then the walk: 6-13 ms of a 27M-row plan, H100, 2026-11-27). A thread a piece walking row by
 * row took 3-5 ms (one dependent load a row). */
#include <cub/device/device_scan.cuh>

#include "cuda/primitives.cuh"
#include "cuda/runtime.cuh"
#include "formats/csr/csr_cuda.h"

namespace {

/* Threads per block of the walk kernels (a warp a piece). */
constexpr int WALK_BLOCK = 128;
constexpr int WALK_WARPS = WALK_BLOCK / 32;

/* A walk's position: blocks, splits and partial slots before it (global offsets when filling). */
struct walk_pos {
    int64_t b, sp, part;
};

/* (a + b) field by field: the prefix over the pieces' counts. */
struct pos_add {
    __host__ __device__ walk_pos operator()(const walk_pos &a, const walk_pos &b) const
    {
        return walk_pos{a.b + b.b, a.sp + b.sp, a.part + b.part};
    }
};

/* Lane 0 writes block b (when the fill pass has an array). */
__device__ __forceinline__ void put_block(spx_csr_stream_block *hb, int64_t b, int32_t x, int32_t y, int32_t z,
                                          int32_t w)
{
    if (hb && (threadIdx.x & 31) == 0) hb[b] = spx_csr_stream_block{x, y, z, w};
}

/* Row `row` (first nonzero `first`, len > lim.nnz): one block per chunk, written by the lanes
 * in turn, and a split when several; advances pos (the same in every lane). */
__device__ __forceinline__ void put_long_row(int32_t row, int32_t first, int32_t len, const spx_csr_stream_limits &lim,
                                             spx_csr_stream_block *hb, spx_csr_stream_split *hs, walk_pos &pos)
{
    const int lane = threadIdx.x & 31;
    const int32_t chunks = (int32_t)(((int64_t)len + lim.chunk - 1) / lim.chunk);
    const int32_t kind = chunks > 1 ? (int32_t)pos.sp : SPX_CSR_STREAM_LONG;
    for (int32_t c = lane; hb && c < chunks; c += 32)
        hb[pos.b + c] = spx_csr_stream_block{row, row + 1, first + c * lim.chunk, kind};
    pos.b += chunks;
    if (chunks == 1) return;
    if (hs && lane == 0) hs[pos.sp] = spx_csr_stream_split{(int32_t)pos.part, chunks};
    pos.sp++;
    pos.part += chunks;
}

/* The host's greedy walk over rows [r0, r1) by one warp (every lane calls it; pos, the open
 * block's start, rows and nonzeros are the same in every lane): rows join a block while it
 * holds at most lim.nnz nonzeros and lim.max_rows rows; a longer row closes the open block and
 * gets its own. Each step loads 32 row lengths; the first lane where the walk closes a block
 * (or meets a long row) is found by a ballot over the prefix sums from the last such lane. */
__device__ void warp_walk(const int32_t *__restrict__ rp, int32_t r0, int32_t r1, const spx_csr_stream_limits &lim,
                          spx_csr_stream_block *hb, spx_csr_stream_split *hs, walk_pos &pos)
{
    const int lane = threadIdx.x & 31;
    int32_t start = r0, rows = 0, acc = 0;
    for (int32_t base = r0; base < r1; base += 32) {
        const int32_t i = base + lane, n = r1 - base < 32 ? r1 - base : 32;
        const bool valid = lane < n;
        const int32_t first = valid ? rp[i] : 0, len = valid ? rp[i + 1] - first : 0;
        const int32_t capped = len <= lim.nnz ? len : lim.nnz + 1; /* no overflow in the sums */
        for (int cur = 0; cur < n;) {
            int32_t x = lane >= cur && valid ? capped : 0; /* inclusive prefix over lanes [cur, lane] */
            for (int o = 1; o < 32; o <<= 1) {
                const int32_t y = __shfl_up_sync(SPX_FULL_MASK, x, o);
                if (lane >= o) x += y;
            }
            const int32_t open_rows = rows + (lane - cur); /* the block's rows before this lane's */
            const bool mine = lane >= cur && valid;
            const bool event = mine && (len > lim.nnz || (open_rows > 0 && (acc + x > lim.nnz || open_rows == lim.max_rows)));
            const unsigned ev = __ballot_sync(SPX_FULL_MASK, event);
            if (!ev) { /* every remaining row joins the open block */
                acc += __shfl_sync(SPX_FULL_MASK, x, n - 1);
                rows += n - cur;
                break;
            }
            const int e = __ffs((int)ev) - 1;
            const int32_t before = __shfl_sync(SPX_FULL_MASK, x, e > cur ? e - 1 : 0);
            const int32_t len_e = __shfl_sync(SPX_FULL_MASK, len, e), first_e = __shfl_sync(SPX_FULL_MASK, first, e);
            rows += e - cur; /* lanes cur..e-1 join */
            acc += e > cur ? before : 0;
            if (len_e > lim.nnz) { /* a long row: the open block closes, the row gets its own */
                if (rows) put_block(hb, pos.b++, start, base + e, 0, SPX_CSR_STREAM_ROWS);
                put_long_row(base + e, first_e, len_e, lim, hb, hs, pos);
                start = base + e + 1;
                rows = acc = 0;
            } else { /* the block is full: it closes, row e opens the next */
                put_block(hb, pos.b++, start, base + e, 0, SPX_CSR_STREAM_ROWS);
                start = base + e;
                rows = 1;
                acc = len_e;
            }
            cur = e + 1;
        }
    }
    if (rows) put_block(hb, pos.b++, start, r1, 0, SPX_CSR_STREAM_ROWS);
}

/* Rows [r0, r1) of piece p of an m-row matrix. */
__device__ __forceinline__ void piece_rows(int64_t p, int32_t m, int32_t *r0, int32_t *r1)
{
    const int64_t lo = p * SPX_CSR_STREAM_PIECE_ROWS, hi = lo + SPX_CSR_STREAM_PIECE_ROWS;
    *r0 = (int32_t)lo;
    *r1 = (int32_t)(hi < m ? hi : m);
}

/* The piece of this thread's warp (>= pieces: none). */
__device__ __forceinline__ int64_t warp_piece() { return blockIdx.x * (int64_t)WALK_WARPS + (threadIdx.x >> 5); }

/* counts[p] = the blocks, splits and partial slots of piece p. */
__global__ void __launch_bounds__(WALK_BLOCK) walk_count_kernel(const int32_t *rp, int32_t m, int64_t pieces,
                                                                spx_csr_stream_limits lim, walk_pos *counts)
{
    const int64_t p = warp_piece();
    if (p >= pieces) return;
    int32_t r0, r1;
    piece_rows(p, m, &r0, &r1);
    walk_pos pos = {0, 0, 0};
    warp_walk(rp, r0, r1, lim, NULL, NULL, pos);
    if ((threadIdx.x & 31) == 0) counts[p] = pos;
}

/* Piece p writes its blocks and splits from off[p] (the exclusive prefix of the counts). */
__global__ void __launch_bounds__(WALK_BLOCK) walk_fill_kernel(const int32_t *rp, int32_t m, int64_t pieces,
                                                               spx_csr_stream_limits lim, const walk_pos *off,
                                                               spx_csr_stream_block *blocks,
                                                               spx_csr_stream_split *splits)
{
    const int64_t p = warp_piece();
    if (p >= pieces) return;
    int32_t r0, r1;
    piece_rows(p, m, &r0, &r1);
    walk_pos pos = off[p];
    warp_walk(rp, r0, r1, lim, blocks, splits, pos);
}

/* One allocation for the walk's own arrays: the counts, their prefix (pieces + 1, the first
 * zero) and the scan's scratch. */
struct walk_scratch {
    void *base;
    walk_pos *counts, *off;
    void *temp;
    size_t temp_bytes;
};

/* Bytes rounded up to 256 (every part of the scratch aligned). */
size_t aligned(size_t bytes) { return (bytes + 255) / 256 * 256; }

spx_status scratch_alloc(spx_ctx *ctx, int64_t pieces, walk_scratch *w)
{
    SPX_CUDA_RET(ctx, cub::DeviceScan::InclusiveScan(NULL, w->temp_bytes, w->counts, w->off, pos_add(), (int)pieces,
                                                     spx_cuda_stream(ctx)));
    const size_t cb = aligned((size_t)pieces * sizeof(walk_pos)), ob = aligned(((size_t)pieces + 1) * sizeof(walk_pos));
    spx_status s = spx_cuda_malloc(ctx, &w->base, cb + ob + aligned(w->temp_bytes < 16 ? 16 : w->temp_bytes));
    if (s) return s;
    w->counts = (walk_pos *)w->base;
    w->off = (walk_pos *)((char *)w->base + cb);
    w->temp = (char *)w->base + cb + ob;
    return SPX_OK;
}

} /* namespace */

extern "C" spx_status spx_csr_stream_blocks_device(spx_ctx *ctx, const int32_t *rp, int32_t m,
                                                   const spx_csr_stream_limits *lim, spx_csr_stream_plan *out)
{
    memset(out, 0, sizeof *out);
    if (m < 1 || !rp || !lim || lim->nnz < 1 || lim->chunk < 1 || lim->max_rows < 1)
        return spx_fail(ctx, SPX_ERR_ARG, "csr stream blocks (device): bad arguments");
    const int64_t pieces = spx_csr_stream_pieces(m);
    if (pieces > INT32_MAX / WALK_WARPS) return spx_fail(ctx, SPX_ERR_OVERFLOW, "csr stream blocks: too many rows");
    const cudaStream_t st = spx_cuda_stream(ctx);
    const unsigned grid = (unsigned)((pieces + WALK_WARPS - 1) / WALK_WARPS);
    walk_scratch w;
    memset(&w, 0, sizeof w);
    walk_pos all;
    spx_status s = scratch_alloc(ctx, pieces, &w);
    if (s) return s;
    walk_count_kernel<<<grid, WALK_BLOCK, 0, st>>>(rp, m, pieces, *lim, w.counts);
    SPX_CUDA_LAUNCHED_GOTO(ctx, s, "walk_count_kernel");
    SPX_CUDA_GOTO(ctx, s, cudaMemsetAsync(w.off, 0, sizeof *w.off, st));
    SPX_CUDA_GOTO(ctx, s, cub::DeviceScan::InclusiveScan(w.temp, w.temp_bytes, w.counts, w.off + 1, pos_add(),
                                                         (int)pieces, st));
    if ((s = spx_cuda_d2h(ctx, &all, w.off + pieces, sizeof all))) goto done;
    if ((s = spx_cuda_malloc(ctx, (void **)&out->blocks, (size_t)all.b * sizeof *out->blocks)) ||
        (s = spx_cuda_malloc(ctx, (void **)&out->splits, (size_t)all.sp * sizeof *out->splits))) /* none: NULL */
        goto done;
    walk_fill_kernel<<<grid, WALK_BLOCK, 0, st>>>(rp, m, pieces, *lim, w.off, out->blocks, out->splits);
    SPX_CUDA_LAUNCHED_GOTO(ctx, s, "walk_fill_kernel");
    if ((s = spx_cuda_sync(ctx))) goto done; /* before the scratch goes back (a caller's allocator may reuse it) */
    out->n_blocks = all.b;
    out->n_splits = all.sp;
    out->n_parts = all.part;
done:
    spx_cuda_free(ctx, w.base);
    if (s) {
        spx_cuda_free(ctx, out->blocks);
        spx_cuda_free(ctx, out->splits);
        memset(out, 0, sizeof *out);
    }
    return s;
}
