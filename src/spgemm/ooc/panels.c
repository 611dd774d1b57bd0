/* src/spgemm/ooc/panels.c: the out-of-core SpGEMM's panels (panels.h): device bytes of the
 * spx GPU SpGEMM, A's rows split to fit a budget, affinity and the order by it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spgemm/ooc/bblocks.h"
#include "spgemm/ooc/ooc_tuning.h"
#include "spgemm/ooc/panels.h"
#include "matrix/csr_dev.h"

size_t spx_ooc_dev_csr_bytes(int64_t rows, int64_t nnz, spx_precision p)
{
    const size_t vb = spx_precision_bytes(p);
    const size_t stage = p == SPX_FP32 ? (size_t)nnz * sizeof(double) : 0; /* fp64 values narrowed on the device */
    return ((size_t)rows + 1) * (sizeof(int32_t) + sizeof(int64_t)) + SPX_DEV_CSR_SCRATCH_BYTES + 256 +
           (size_t)nnz * (sizeof(int32_t) + vb) + stage; /* + the upload's scratch and its alignment */
}

size_t spx_ooc_c_bytes(int64_t nnz_c, spx_precision p) { return (size_t)nnz_c * (sizeof(int32_t) + spx_precision_bytes(p)); }

/* Device bytes a product needs beside A's rows and C: the fixed workspace, A's column counts
 * (the pre-analysis, k of them) and, when some row of C may exceed a shared-memory table, one
 * n-wide accumulator (an upper bound: only the global fallback, past the dense fallback's
 * width, allocates it). */
static size_t fixed_bytes(const spx_csr *A, const spx_csr *B, int long_rows, spx_precision p)
{
    size_t b = SPX_OOC_DEV_FIXED_BYTES + (size_t)A->n * sizeof(int32_t);
    if (long_rows) b += (size_t)B->n * (sizeof(int32_t) + spx_precision_bytes(p));
    return b;
}

/* Device bytes of a panel of `rows` rows, nnz_a entries of A and nnz_c of C, beside B and the
 * fixed workspace. */
static size_t panel_bytes(int64_t rows, int64_t nnz_a, int64_t nnz_c, spx_precision p)
{
    return spx_ooc_dev_csr_bytes(rows, nnz_a, p) + spx_ooc_c_bytes(nnz_c, p) + (size_t)rows * SPX_OOC_DEV_BYTES_PER_ROW;
}

size_t spx_ooc_incore_bytes(const spx_csr *A, const spx_csr *B, int64_t nnz_c, int long_rows, spx_precision p)
{
    return spx_ooc_dev_csr_bytes(B->m, B->nnz, p) + fixed_bytes(A, B, long_rows, p) +
           panel_bytes(A->m, A->nnz, nnz_c, p);
}

/* Sparsity of the panel's A part and of its B part (B's rows it reads, weighted by use: the
 * products over its A entries, over n), averaged: ApSpGEMM §5.2's affinity. */
static double affinity(const spx_ooc_panel *pn, int32_t k, int32_t n)
{
    const double rows = pn->row1 - pn->row0;
    const double dA = rows > 0 && k > 0 ? (double)pn->nnz_a / (rows * k) : 0.0;
    const double dB = pn->nnz_a > 0 && n > 0 ? (double)pn->products / ((double)pn->nnz_a * n) : 0.0;
    return ((1.0 - dA) + (1.0 - dB)) / 2.0;
}

/* The budget error: what did not fit, its bytes, and the bytes held beside it (`beside`
 * names them). */
static spx_status too_small(spx_ctx *ctx, const spx_ooc_split_in *in, const char *what, size_t need,
                            const char *beside, size_t held)
{
    char nb[32], bb[32], hb[32];
    spx_bytes_str((double)need, nb, sizeof nb);
    spx_bytes_str((double)in->budget, bb, sizeof bb);
    spx_bytes_str((double)held, hb, sizeof hb);
    return spx_fail(ctx, SPX_ERR_DEVICE_ALLOC, "spgemm: device budget %s too small for out-of-core panels: %s needs %s beside %s (%s)",
                    bb, what, nb, beside, hb);
}

/* Whether some row of A*B has more than SPX_OOC_SHARED_ROW_MAX products (prod: m of them). */
static int has_long_row(const int64_t *prod, int32_t m)
{
    for (int32_t i = 0; i < m; i++)
        if (prod[i] > SPX_OOC_SHARED_ROW_MAX) return 1;
    return 0;
}

/* With B in column blocks a GPU panel holds one block's piece of C at a time: its device C is
 * the largest block's piece, bounded per row i and block j by min(products of row i in block
 * j, row i's length in C, block j's width) (exact counts would need a symbolic pass per
 * block). The bound's state while the panels grow. */
typedef struct piece_bound {
    const spx_csr *A;
    const int32_t *cut;
    int64_t *brow;                /* B->m + 1: B row k's blocks are pairs [brow[k], brow[k + 1]) */
    int32_t *bblk;                /* a block B row k reaches */
    int64_t *bcnt;                /* its entries in that block */
    int64_t *rowp, *sums;         /* per block: the current row's products, the panel's bound */
    int32_t *row_blk, *panel_blk; /* blocks the current row and the panel reach */
    int n_row, n_panel;
    int64_t max;                  /* the largest of sums */
} piece_bound;

static void bound_free(spx_ctx *ctx, piece_bound *pb)
{
    spx_free(ctx, pb->brow);
    spx_free(ctx, pb->bblk);
    spx_free(ctx, pb->bcnt);
    spx_free(ctx, pb->rowp);
    spx_free(ctx, pb->sums);
    spx_free(ctx, pb->row_blk);
    spx_free(ctx, pb->panel_blk);
}

/* The blocks each row of B reaches, with its entries in each (counted, then listed). */
static void bound_list_b(const spx_csr *B, const int32_t *cut, piece_bound *pb, int fill)
{
    for (int32_t k = 0; k < B->m; k++) {
        int64_t at = pb->brow[k];
        int j = -1;
        for (int64_t q = B->rowptr[k]; q < B->rowptr[k + 1]; q++) {
            if (j < 0 || B->colind[q] >= cut[j + 1]) { /* a new block */
                if (j < 0) j = 0;
                while (B->colind[q] >= cut[j + 1]) j++;
                if (fill) pb->bblk[at] = j, pb->bcnt[at] = 0;
                at++;
            }
            if (fill) pb->bcnt[at - 1]++;
        }
        if (!fill) pb->brow[k + 1] = at - pb->brow[k];
    }
    if (!fill)
        for (int32_t k = 0; k < B->m; k++) pb->brow[k + 1] += pb->brow[k];
}

/* The bound's state for B's blocks bcut. */
static spx_status bound_make(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, const spx_ooc_bcut *bcut,
                             piece_bound *pb)
{
    memset(pb, 0, sizeof *pb);
    pb->A = A, pb->cut = bcut->cut;
    const size_t q = (size_t)bcut->blocks;
    pb->brow = spx_calloc_array(ctx, (size_t)B->m + 1, sizeof *pb->brow);
    if (pb->brow) bound_list_b(B, bcut->cut, pb, 0);
    const size_t pairs = pb->brow ? (size_t)pb->brow[B->m] + 1 : 1;
    pb->bblk = spx_malloc_array(ctx, pairs, sizeof *pb->bblk);
    pb->bcnt = spx_malloc_array(ctx, pairs, sizeof *pb->bcnt);
    pb->rowp = spx_calloc_array(ctx, q, sizeof *pb->rowp);
    pb->sums = spx_calloc_array(ctx, q, sizeof *pb->sums);
    pb->row_blk = spx_malloc_array(ctx, q, sizeof *pb->row_blk);
    pb->panel_blk = spx_malloc_array(ctx, q, sizeof *pb->panel_blk);
    if (!pb->brow || !pb->bblk || !pb->bcnt || !pb->rowp || !pb->sums || !pb->row_blk || !pb->panel_blk) {
        bound_free(ctx, pb);
        return spx_fail_nomem(ctx, "spgemm panels: B's blocks per row");
    }
    bound_list_b(B, bcut->cut, pb, 1);
    return SPX_OK;
}

/* Row i's products per block (into rowp, the blocks into row_blk). */
static void bound_row(piece_bound *pb, int32_t i)
{
    const spx_csr *A = pb->A;
    pb->n_row = 0;
    for (int64_t qa = A->rowptr[i]; qa < A->rowptr[i + 1]; qa++) {
        const int32_t k = A->colind[qa];
        for (int64_t t = pb->brow[k]; t < pb->brow[k + 1]; t++) {
            const int32_t j = pb->bblk[t];
            if (!pb->rowp[j]) pb->row_blk[pb->n_row++] = j;
            pb->rowp[j] += pb->bcnt[t];
        }
    }
}

/* Row i's bound in block j, given its length in C. */
static int64_t bound_of(const piece_bound *pb, int32_t j, int64_t row_c)
{
    const int64_t w = pb->cut[j + 1] - pb->cut[j], p = pb->rowp[j];
    return p < row_c ? (p < w ? p : w) : (row_c < w ? row_c : w);
}

/* The panel's device C entries with the current row added (row_c: its length in C); the
 * row is added when `take`, else only forgotten. */
static int64_t bound_add(piece_bound *pb, int64_t row_c, int take)
{
    int64_t max = pb->max;
    for (int r = 0; r < pb->n_row; r++) {
        const int32_t j = pb->row_blk[r];
        const int64_t v = pb->sums[j] + bound_of(pb, j, row_c);
        if (v > max) max = v;
        if (take && v > 0) {
            if (!pb->sums[j]) pb->panel_blk[pb->n_panel++] = j; /* listed once: sums[j] > 0 from now */
            pb->sums[j] = v;
        }
    }
    if (take) pb->max = max;
    return max;
}

/* Forgets the current row (its products per block). */
static void bound_row_done(piece_bound *pb)
{
    for (int r = 0; r < pb->n_row; r++) pb->rowp[pb->row_blk[r]] = 0;
    pb->n_row = 0;
}

/* A new panel: no block's piece yet. */
static void bound_panel(piece_bound *pb)
{
    for (int r = 0; r < pb->n_panel; r++) pb->sums[pb->panel_blk[r]] = 0;
    pb->n_panel = 0;
    pb->max = 0;
}

/* The panels, greedily in row order, into pn (room for m entries); returns their count or -1
 * (error set) when a row does not fit `room` bytes. A panel's device C is all of its rows' C
 * (pb NULL: B resident) or its largest block's piece, by pb's bound. */
static int split_rows(spx_ctx *ctx, const spx_ooc_split_in *in, const int64_t *prod, int64_t cap, size_t room,
                      size_t fixed, const char *beside, piece_bound *pb, spx_ooc_panel *pn)
{
    const spx_csr *A = in->A;
    int n = 0;
    for (int32_t r0 = 0; r0 < A->m;) {
        spx_ooc_panel c = {r0, r0, 0, 0, 0, 0.0};
        if (pb) bound_panel(pb);
        while (c.row1 < A->m) {
            const int32_t i = c.row1;
            const int64_t row_c = in->crow[i + 1] - in->crow[i];
            const int64_t na = c.nnz_a + (A->rowptr[i + 1] - A->rowptr[i]), nc = in->crow[i + 1] - in->crow[c.row0];
            const int64_t pr = c.products + prod[i];
            if (pb) bound_row(pb, i);
            const int64_t dev_c = pb ? bound_add(pb, row_c, 0) : nc;
            const int fits = panel_bytes(i + 1 - c.row0, na, dev_c, in->precision) <= room;
            if (c.row1 > c.row0 && (!fits || pr > cap)) {
                if (pb) bound_row_done(pb);
                break;
            }
            if (!fits) {
                char what[96];
                snprintf(what, sizeof what, "row %d of A (%lld nonzeros of C)", i, (long long)row_c);
                too_small(ctx, in, what, panel_bytes(1, na, dev_c, in->precision) * (size_t)in->lanes, beside, fixed);
                if (pb) bound_row_done(pb);
                return -1;
            }
            if (pb) {
                bound_add(pb, row_c, 1);
                bound_row_done(pb);
            }
            c.row1 = i + 1, c.nnz_a = na, c.nnz_c = nc, c.products = pr;
        }
        c.affinity = affinity(&c, A->n, in->B->n);
        pn[n++] = c;
        r0 = c.row1;
    }
    return n;
}

size_t spx_ooc_lane_budget(const spx_ooc_split_in *in, const spx_ooc_bcut *bcut)
{
    if (in->budget == SPX_BUDGET_NONE) return SPX_BUDGET_NONE;
    const size_t resident = bcut->blocks == 1 ? spx_ooc_dev_csr_bytes(in->B->m, in->B->nnz, in->precision) : 0;
    return in->budget > resident ? (in->budget - resident) / (size_t)in->lanes : 0;
}

/* Panels with B resident: *n of them into pn; SPX_ERR_DEVICE_ALLOC (message set) when B with
 * the lanes' workspace, or one row's panel beside them, does not fit. */
static spx_status split_resident(spx_ctx *ctx, const spx_ooc_split_in *in, int long_rows, int64_t cap,
                                 spx_ooc_panel *pn, int *n)
{
    const spx_csr *A = in->A, *B = in->B;
    const spx_ooc_bcut whole = {1, NULL, NULL, spx_ooc_dev_csr_bytes(B->m, B->nnz, in->precision)};
    const size_t ws = fixed_bytes(A, B, long_rows, in->precision), lane = spx_ooc_lane_budget(in, &whole);
    const size_t fixed = whole.bytes_max + ws * (size_t)in->lanes;
    const size_t room = in->budget == SPX_BUDGET_NONE ? SIZE_MAX : lane > ws ? lane - ws : 0;
    if (in->budget != SPX_BUDGET_NONE && (whole.bytes_max > in->budget || lane < ws)) {
        char what[96];
        snprintf(what, sizeof what, "B (%d x %d, %lld nonzeros) resident", B->m, B->n, (long long)B->nnz);
        return too_small(ctx, in, what, whole.bytes_max, "the fixed workspace of each GPU lane", ws * (size_t)in->lanes);
    }
    *n = split_rows(ctx, in, in->prod, cap, room, fixed, "B resident and the GPU lanes' fixed workspace", NULL, pn);
    return *n < 0 ? SPX_ERR_DEVICE_ALLOC : SPX_OK;
}

/* B's column blocks for a lane's room `room` (beside its fixed workspace): in->b_blocks of
 * them when asked, else the fewest (halving their nonzeros) whose largest takes at most
 * 1/SPX_OOC_B_BLOCK_SHARE of the room; *reserve: the lane bytes kept for a block. */
static spx_status cut_columns(spx_ctx *ctx, const spx_ooc_split_in *in, size_t room, spx_ooc_bcut *bcut,
                              size_t *reserve)
{
    const spx_csr *B = in->B;
    int64_t *colptr = NULL;
    spx_status s = spx_ooc_col_prefix(ctx, B, &colptr);
    const int64_t nnz = B->nnz > 0 ? B->nnz : 1;
    int64_t per_block = in->b_blocks > 1 ? (nnz + in->b_blocks - 1) / in->b_blocks : (nnz + 1) / 2;
    while (!s) {
        s = spx_ooc_bcut_make(ctx, colptr, B->m, B->n, per_block, in->precision, bcut);
        if (s || in->b_blocks > 1 || bcut->bytes_max <= room / SPX_OOC_B_BLOCK_SHARE || per_block == 1) break;
        per_block = (per_block + 1) / 2;
    }
    spx_free(ctx, colptr);
    /* asked for: the largest block's bytes; else a fixed share, so that a larger budget
     * never leaves less room for the panels */
    *reserve = in->b_blocks > 1 ? bcut->bytes_max : room / SPX_OOC_B_BLOCK_SHARE;
    return s;
}

/* Panels with B split by columns, one block on each lane at a time: *n of them into pn, B's
 * blocks into *bcut; SPX_ERR_DEVICE_ALLOC (message set) when a block, or one row's panel
 * beside it, does not fit. */
static spx_status split_columns(spx_ctx *ctx, const spx_ooc_split_in *in, int long_rows, int64_t cap,
                                spx_ooc_panel *pn, int *n, spx_ooc_bcut *bcut)
{
    const spx_csr *A = in->A, *B = in->B;
    const size_t ws = fixed_bytes(A, B, long_rows, in->precision);
    const size_t lane = in->budget == SPX_BUDGET_NONE ? SPX_BUDGET_NONE : in->budget / (size_t)in->lanes;
    const size_t room = lane > ws ? lane - ws : 0;
    size_t reserve = 0;
    spx_status s = cut_columns(ctx, in, room, bcut, &reserve);
    if (s) return s;
    if (bcut->bytes_max > reserve || reserve >= room) { /* need: the lanes' room its largest block asks for */
        char what[128];
        snprintf(what, sizeof what, "a block of B's columns (B %d x %d, %lld nonzeros)", B->m, B->n, (long long)B->nnz);
        const size_t need = in->b_blocks > 1 ? bcut->bytes_max + 1 : bcut->bytes_max * SPX_OOC_B_BLOCK_SHARE;
        return too_small(ctx, in, what, need * (size_t)in->lanes, "the fixed workspace of each GPU lane",
                         ws * (size_t)in->lanes);
    }
    piece_bound pb;
    if ((s = bound_make(ctx, A, B, bcut, &pb))) return s;
    *n = split_rows(ctx, in, in->prod, cap, room - reserve, (ws + reserve) * (size_t)in->lanes,
                    "a block of B's columns and the GPU lanes' fixed workspace", &pb, pn);
    bound_free(ctx, &pb);
    return *n < 0 ? SPX_ERR_DEVICE_ALLOC : SPX_OK;
}

spx_status spx_ooc_split(spx_ctx *ctx, const spx_ooc_split_in *in, spx_ooc_panel **out, int *n_out,
                         spx_ooc_bcut *bcut)
{
    const spx_csr *A = in->A;
    const int64_t *prod = in->prod;
    spx_ooc_bcut_free(ctx, bcut);
    spx_ooc_panel *pn = spx_malloc_array(ctx, (size_t)A->m + 1, sizeof *pn);
    spx_status s = pn ? SPX_OK : spx_fail_nomem(ctx, "spgemm panels");
    int n = 0;
    if (!s) {
        int64_t total = 0;
        for (int32_t i = 0; i < A->m; i++) total += prod[i];
        const int64_t cap = total > 0 ? (total + SPX_OOC_MIN_PANELS - 1) / SPX_OOC_MIN_PANELS : 1;
        const int long_rows = has_long_row(prod, A->m);
        const int columns = in->b_blocks > 1 && in->B->n > 1;
        s = columns ? split_columns(ctx, in, long_rows, cap, pn, &n, bcut)
                    : split_resident(ctx, in, long_rows, cap, pn, &n);
        if (s == SPX_ERR_DEVICE_ALLOC && !columns && in->b_blocks == 0 && in->B->n > 1) /* B in blocks instead */
            s = split_columns(ctx, in, long_rows, cap, pn, &n, bcut);
        if (!s && bcut->blocks < 2) spx_ooc_bcut_free(ctx, bcut); /* B in one block: resident (its room fits) */
    }
    if (s) {
        spx_ooc_bcut_free(ctx, bcut);
        spx_free(ctx, pn);
        return s;
    }
    *out = pn;
    *n_out = n;
    return SPX_OK;
}

/* A panel's sort key. */
typedef struct order_key {
    double affinity;
    int32_t row0;
    int index;
} order_key;

/* qsort's comparison: affinity descending, then row. */
static int by_affinity(const void *x, const void *y)
{
    const order_key *a = x, *b = y;
    if (a->affinity != b->affinity) return a->affinity > b->affinity ? -1 : 1;
    return (a->row0 > b->row0) - (a->row0 < b->row0);
}

spx_status spx_ooc_order(spx_ctx *ctx, const spx_ooc_panel *panels, int n, int *order)
{
    order_key *key = spx_malloc_array(ctx, (size_t)n + 1, sizeof *key);
    if (!key) return spx_fail_nomem(ctx, "spgemm panel order");
    for (int i = 0; i < n; i++) key[i] = (order_key){panels[i].affinity, panels[i].row0, i};
    qsort(key, (size_t)n, sizeof *key, by_affinity);
    for (int i = 0; i < n; i++) order[i] = key[i].index;
    spx_free(ctx, key);
    return SPX_OK;
}

void spx_ooc_rebase(const int64_t *ptr, int32_t r0, int32_t r1, int64_t *out)
{
    const int64_t base = ptr[r0];
    for (int32_t i = r0; i <= r1; i++) out[i - r0] = ptr[i] - base;
}

void spx_ooc_panel_view(const spx_csr *A, int32_t r0, int32_t r1, int64_t *rowptr, spx_csr *view)
{
    const int64_t base = A->rowptr[r0];
    spx_ooc_rebase(A->rowptr, r0, r1, rowptr);
    memset(view, 0, sizeof *view);
    view->m = r1 - r0;
    view->n = A->n;
    view->nnz = A->rowptr[r1] - base;
    view->rowptr = rowptr;
    view->colind = A->colind + base;
    view->val = A->val + base;
    view->ctx = A->ctx;
    view->owns = 0;
}

void spx_ooc_c_view(const int64_t *crow, int32_t r0, int32_t r1, int32_t n, int32_t *colind, double *val,
                    int64_t *rowptr, spx_ctx *ctx, spx_csr *view)
{
    spx_ooc_rebase(crow, r0, r1, rowptr);
    memset(view, 0, sizeof *view);
    view->m = r1 - r0;
    view->n = n;
    view->nnz = crow[r1] - crow[r0];
    view->rowptr = rowptr;
    view->colind = colind;
    view->val = val;
    view->ctx = ctx;
}
