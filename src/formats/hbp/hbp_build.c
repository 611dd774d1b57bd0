/* src/formats/hbp/hbp_build.c: CSR -> the hbp layout on the host (HBP §III-A/B, Algorithm 2's
 * counting and the conversion per tile), the tile-shape rule, the layout back to CSR, its
 * traffic and its statistics. Parallel over row panels (OpenMP); the result does not depend
 * on the thread count. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "core/ctx.h"
#include "formats/csr/csr_tuning.h"
#include "formats/hbp/hbp.h"
#include "formats/hbp/hbp_hash.h"
#include "formats/hbp/hbp_tuning.h"

const char *const spx_hbp_algo_names[] = {"auto", "hash", "hash_atomic", "sort", "band", "wide", "hot", NULL};

int spx_hbp_algo_from_name(const char *name)
{
    if (!name) return SPX_HBP_AUTO;
    for (int i = 0; spx_hbp_algo_names[i]; i++)
        if (!strcmp(spx_hbp_algo_names[i], name)) return i;
    return -1;
}

void spx_hbp_tile_shape(const spx_features *feat, int value_bytes, long long smem_bytes, int32_t *H, int32_t *W)
{
    int32_t h = SPX_HBP_DEFAULT_H, w = 256;
    long long xseg = smem_bytes - (long long)h * SPX_HBP_ACC_BYTES;
    if (xseg > SPX_HBP_XSEG_BYTES) xseg = SPX_HBP_XSEG_BYTES;
    while (w < SPX_HBP_MAX_W && (long long)(2 * w) * value_bytes <= xseg) w *= 2;
    double mean = feat ? feat->row_mean : 0.0, n = feat && feat->n > 0 ? (double)feat->n : 1.0;
    /* the columns a row's entries spread over: n for a uniform matrix, far fewer near the
     * diagonal (stencils, banded); all n when the features do not tell (diag_distance 0) */
    if (feat && feat->diag_distance > 0.0 && feat->n > 0) n = spx_features_spread_cols(feat);
    if (feat && feat->n > w && mean > 0.0 && mean * w / n < SPX_HBP_SPARSE_ROW_FILL) {
        while (w < SPX_HBP_MAX_W && mean * w / n < SPX_HBP_SPARSE_ROW_FILL) w *= 2;
        while (h < SPX_HBP_SPARSE_MAX_H && mean * w / n * h < SPX_HBP_SPARSE_TILE_NNZ &&
               (long long)(2 * h) * SPX_HBP_ACC_BYTES <= smem_bytes)
            h *= 2;
    }
    while (feat && h > SPX_HBP_GROUP && ((int64_t)feat->m + h - 1) / h < SPX_HBP_MIN_PANELS) h /= 2;
    *H = h;
    *W = w;
}

spx_status spx_hbp_check_shape(spx_ctx *ctx, int64_t H, int64_t W)
{
    if (H > SPX_HBP_MAX_H || W > SPX_HBP_MAX_W)
        return spx_fail(ctx, SPX_ERR_OVERFLOW,
                        "hbp: tile %lld x %lld exceeds the layout's 16-bit indices (H <= %d rows, W <= %d columns)",
                        (long long)H, (long long)W, SPX_HBP_MAX_H, SPX_HBP_MAX_W);
    if (H < SPX_HBP_GROUP || H % SPX_HBP_GROUP || W < 1 || (W & (W - 1)))
        return spx_fail(ctx, SPX_ERR_ARG, "hbp: tile %lld x %lld: H must be a multiple of %d, W a power of two",
                        (long long)H, (long long)W, SPX_HBP_GROUP);
    return SPX_OK;
}

/* Build scratch: per-panel counts and the segments of every panel. */
typedef struct build_ws {
    int64_t *panel_seg;  /* [n_panels + 1] segments (= slots) before each panel */
    int64_t *panel_grp;  /* [n_panels + 1] groups before each panel */
    spx_hbp_seg *seg;    /* [n_slots] */
    spx_hbp_seg *scratch;
} build_ws;

/* Adds a run of len entries' pieces to *count and their lengths' floor(log2) to h. */
static void count_pieces(int64_t len, int64_t *count, int64_t h[32])
{
    const int64_t k = SPX_HBP_PIECES(len);
    for (int64_t j = 0; j < k; j++) h[spx_hbp_bits(SPX_HBP_PIECE_LEN(len, k, j) + 1) - 1]++; /* floor(log2) */
    *count += k;
}

/* Pass 1: slots per panel (pieces of row runs within one column block) and the histogram of
 * floor(log2 len) over the pieces, which the aggregation shift is sampled from. */
static void count_segments(const spx_csr *A, const spx_hbp_fmt *F, int lw, int64_t *panel_seg, int64_t *hist,
                           int nt)
{
    int64_t h[32] = {0};
#pragma omp parallel for num_threads(nt) schedule(dynamic, SPX_HBP_CPU_PANEL_CHUNK) reduction(+ : h[:32])
    for (int32_t p = 0; p < F->n_panels; p++) {
        int64_t c = 0;
        int64_t r1 = (int64_t)(p + 1) * F->H < A->m ? (int64_t)(p + 1) * F->H : A->m;
        for (int64_t i = (int64_t)p * F->H; i < r1; i++)
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1];) {
                int32_t cb = A->colind[k] >> lw;
                int64_t e = k;
                while (e < A->rowptr[i + 1] && (A->colind[e] >> lw) == cb) e++;
                count_pieces(e - k, &c, h);
                k = e;
            }
        panel_seg[p + 1] = c;
    }
    memcpy(hist, h, sizeof h);
}

/* Cuts the k whole runs at s[0..k) into their pieces, in place, filling s[0..total) (total >=
 * k: written from the end, so no run is overwritten before it is read). */
static void cut_pieces(spx_hbp_seg *s, int64_t k, int64_t total)
{
    int64_t w = total;
    for (int64_t i = k - 1; i >= 0; i--) {
        const spx_hbp_seg run = s[i];
        const int64_t n = SPX_HBP_PIECES(run.len);
        for (int64_t j = n - 1; j >= 0; j--)
            s[--w] = (spx_hbp_seg){run.cb, run.row, (uint16_t)SPX_HBP_PIECE_LEN(run.len, n, j),
                                   run.start + SPX_HBP_PIECE_OFF(run.len, n, j)};
    }
}

/* Adds the Fig. 6 balance of the panel's k runs (sorted by block) as they stand, tile by tile,
 * to bal[0..1] and their group count to *groups. */
static void balance_tiles(const spx_hbp_seg *s, int64_t k, double bal[2], int64_t *groups)
{
    for (int64_t t0 = 0; t0 < k;) {
        int64_t t1 = t0;
        while (t1 < k && s[t1].cb == s[t0].cb) t1++;
        spx_hbp_balance_add(s + t0, t1 - t0, &bal[0], &bal[1], groups);
        t0 = t1;
    }
}

/* Pass 2 for one panel: its row runs, sorted by (block, row), their balance "before" (whole
 * runs in row order, the paper's figure), cut into pieces, then each tile reordered and its
 * balance "after" added; returns the panel's tile and group counts. */
static void panel_segments(const spx_csr *A, const spx_hbp_fmt *F, int lw, int32_t p, build_ws *ws, double bal[4],
                           int64_t gcount[2], int64_t *tiles, int64_t *groups)
{
    spx_hbp_seg *s = ws->seg + ws->panel_seg[p];
    int64_t k = 0, r0 = (int64_t)p * F->H, r1 = r0 + F->H < A->m ? r0 + F->H : A->m;
    for (int64_t i = r0; i < r1; i++)
        for (int64_t q = A->rowptr[i]; q < A->rowptr[i + 1];) {
            int32_t cb = A->colind[q] >> lw;
            int64_t e = q;
            while (e < A->rowptr[i + 1] && (A->colind[e] >> lw) == cb) e++;
            s[k++] = (spx_hbp_seg){cb, (uint16_t)(i - r0), (uint16_t)(e - q), q};
            q = e;
        }
    spx_hbp_sort_by_block(s, k);
    balance_tiles(s, k, bal, &gcount[0]);
    const int64_t runs = k;
    k = ws->panel_seg[p + 1] - ws->panel_seg[p];
    cut_pieces(s, runs, k);
    int64_t nt = 0, ng = 0;
    for (int64_t t0 = 0; t0 < k;) {
        int64_t t1 = t0;
        while (t1 < k && s[t1].cb == s[t0].cb) t1++;
        spx_hbp_order_tile(s + t0, t1 - t0, F->algo, F->agg_shift, ws->scratch + ws->panel_seg[p] + t0);
        spx_hbp_balance_add(s + t0, t1 - t0, &bal[2], &bal[3], &gcount[1]);
        nt++;
        ng += (t1 - t0 + SPX_HBP_GROUP - 1) / SPX_HBP_GROUP;
        t0 = t1;
    }
    *tiles = nt;
    *groups = ng;
}

/* Writes one group's entries step-major: step s holds entry s of every slot longer than s. */
static void write_group(const spx_csr *A, const spx_hbp_fmt *F, const spx_hbp_seg *s, int64_t k, int64_t pos,
                        int32_t colbase)
{
    int maxlen = 0;
    for (int64_t j = 0; j < k; j++)
        if (s[j].len > maxlen) maxlen = s[j].len;
    for (int st = 0; st < maxlen; st++)
        for (int64_t j = 0; j < k; j++)
            if (s[j].len > st) {
                int64_t q = s[j].start + st;
                F->col[pos] = (uint16_t)(A->colind[q] - colbase);
                if (F->val64)
                    F->val64[pos] = A->val[q];
                else
                    F->val32[pos] = (float)A->val[q];
                pos++;
            }
}

/* Pass 3 for one panel: its tiles, groups, slots and entries into F. */
static void panel_fill(const spx_csr *A, spx_hbp_fmt *F, const build_ws *ws, int32_t p)
{
    const spx_hbp_seg *s = ws->seg + ws->panel_seg[p];
    int64_t k = ws->panel_seg[p + 1] - ws->panel_seg[p], slot = ws->panel_seg[p];
    int64_t t = F->panel_tile[p], g = ws->panel_grp[p];
    int64_t pos = A->rowptr[(int64_t)p * F->H];
    for (int64_t j = 0; j < k; j++) {
        F->slot_row[slot + j] = s[j].row;
        F->slot_len[slot + j] = s[j].len;
    }
    for (int64_t t0 = 0; t0 < k; t++) {
        int64_t t1 = t0;
        while (t1 < k && s[t1].cb == s[t0].cb) t1++;
        F->tile_colblock[t] = s[t0].cb;
        F->tile_slot[t] = slot + t0;
        F->tile_group[t] = g;
        for (int64_t g0 = t0; g0 < t1; g0 += SPX_HBP_GROUP, g++) {
            int64_t gk = t1 - g0 < SPX_HBP_GROUP ? t1 - g0 : SPX_HBP_GROUP;
            F->group_nnz[g] = pos;
            write_group(A, F, s + g0, gk, pos, (int32_t)((int64_t)s[t0].cb * F->W));
            for (int64_t j = 0; j < gk; j++) pos += s[g0 + j].len;
        }
        t0 = t1;
    }
}

/* Allocates the layout's arrays once the counts are known. */
static spx_status alloc_arrays(spx_ctx *ctx, spx_hbp_fmt *F)
{
    F->tile_colblock = spx_malloc_array(ctx, (size_t)F->n_tiles, sizeof *F->tile_colblock);
    F->tile_slot = spx_malloc_array(ctx, (size_t)F->n_tiles + 1, sizeof *F->tile_slot);
    F->tile_group = spx_malloc_array(ctx, (size_t)F->n_tiles + 1, sizeof *F->tile_group);
    F->group_nnz = spx_malloc_array(ctx, (size_t)F->n_groups + 1, sizeof *F->group_nnz);
    F->slot_row = spx_malloc_array(ctx, (size_t)F->n_slots, sizeof *F->slot_row);
    F->slot_len = spx_malloc_array(ctx, (size_t)F->n_slots, sizeof *F->slot_len);
    F->col = spx_malloc_array(ctx, (size_t)F->nnz, sizeof *F->col);
    if (F->precision == SPX_FP32)
        F->val32 = spx_malloc_array(ctx, (size_t)F->nnz, sizeof *F->val32);
    else
        F->val64 = spx_malloc_array(ctx, (size_t)F->nnz, sizeof *F->val64);
    if (!F->tile_colblock || !F->tile_slot || !F->tile_group || !F->group_nnz || !F->slot_row || !F->slot_len ||
        !F->col || (!F->val32 && !F->val64))
        return spx_fail_nomem(ctx, "hbp layout arrays");
    return SPX_OK;
}

/* Prefix sums in place: a[0] = 0, a[i] = sum of the counts a[1..i]. */
static void prefix(int64_t *a, int64_t n)
{
    a[0] = 0;
    for (int64_t i = 0; i < n; i++) a[i + 1] += a[i];
}

/* Passes 2 and 3 over every panel, with the counts' prefix sums between. */
static spx_status convert(spx_ctx *ctx, const spx_csr *A, spx_hbp_fmt *F, int lw, build_ws *ws)
{
    const int nt = spx_ctx_threads(ctx);
    double b0 = 0, b1 = 0, b2 = 0, b3 = 0;
    int64_t gb = 0, ga = 0;
    F->panel_tile[0] = 0;
    ws->panel_grp[0] = 0;
#pragma omp parallel for num_threads(nt) schedule(dynamic, SPX_HBP_CPU_PANEL_CHUNK) reduction(+ : b0, b1, b2, b3, gb, ga)
    for (int32_t p = 0; p < F->n_panels; p++) {
        double bal[4] = {0, 0, 0, 0};
        int64_t gc[2] = {0, 0};
        panel_segments(A, F, lw, p, ws, bal, gc, &F->panel_tile[p + 1], &ws->panel_grp[p + 1]);
        b0 += bal[0];
        b1 += bal[1];
        b2 += bal[2];
        b3 += bal[3];
        gb += gc[0];
        ga += gc[1];
    }
    prefix(F->panel_tile, F->n_panels);
    prefix(ws->panel_grp, F->n_panels);
    F->n_tiles = F->panel_tile[F->n_panels];
    F->n_groups = ws->panel_grp[F->n_panels];
    F->balance_before = gb > 0 ? b0 / (double)gb : 0.0;
    F->balance_after = ga > 0 ? b2 / (double)ga : 0.0;
    F->lane_util_before = b1 > 0 ? (double)F->nnz / (SPX_HBP_GROUP * b1) : 1.0;
    F->lane_util_after = b3 > 0 ? (double)F->nnz / (SPX_HBP_GROUP * b3) : 1.0;
    spx_status s = alloc_arrays(ctx, F);
    if (s) return s;
#pragma omp parallel for num_threads(nt) schedule(dynamic, SPX_HBP_CPU_PANEL_CHUNK)
    for (int32_t p = 0; p < F->n_panels; p++) panel_fill(A, F, ws, p);
    F->tile_slot[F->n_tiles] = F->n_slots;
    F->tile_group[F->n_tiles] = F->n_groups;
    F->group_nnz[F->n_groups] = F->nnz;
    return SPX_OK;
}

void spx_hbp_fmt_header(spx_hbp_fmt *F, int32_t m, int32_t n, int64_t nnz, spx_precision prec, spx_hbp_algo algo,
                        int32_t H, int32_t W)
{
    F->m = m;
    F->n = n;
    F->nnz = nnz;
    F->precision = prec;
    F->algo = algo;
    F->H = H;
    F->W = W;
    F->n_panels = (int32_t)(((int64_t)m + H - 1) / H);
    F->n_colblocks = (int32_t)(((int64_t)n + W - 1) / W);
}

void spx_hbp_fmt_band_header(spx_hbp_fmt *F, const spx_hbp_bands *B)
{
    F->m = B->m;
    F->n = B->n;
    F->nnz = B->nnz;
    F->precision = B->precision;
    F->algo = B->hot ? SPX_HBP_HOT : SPX_HBP_BAND;
    F->W = B->width;
    F->n_colblocks = B->count;
}

void spx_hbp_fmt_wide_header(spx_hbp_fmt *F, const spx_hbp_wide *L)
{
    F->m = L->m;
    F->n = L->n;
    F->nnz = L->nnz;
    F->precision = L->precision;
    F->algo = SPX_HBP_WIDE;
    F->H = L->H;
    F->W = L->W;
    F->n_panels = L->n_panels;
    F->n_colblocks = L->n_blocks;
}

spx_hbp_algo spx_hbp_algo_resolve(int a, int32_t n, int value_bytes, const spx_features *feat)
{
    if (a != SPX_HBP_AUTO) return (spx_hbp_algo)a;
    const int32_t bands = spx_hbp_band_count(n, spx_hbp_band_width(n, value_bytes, feat));
    const int even = feat && !spx_csr_rows_skewed(feat->row_mean, feat->row_max, feat->row_cv);
    return bands >= (even ? SPX_HBP_WIDE_MIN_BANDS_EVEN : SPX_HBP_WIDE_MIN_BANDS) ? SPX_HBP_WIDE : SPX_HBP_BAND;
}

spx_hbp_hot_mode spx_hbp_hot_mode_of(int a)
{
    return a == SPX_HBP_HOT ? SPX_HBP_HOT_ALWAYS : a == SPX_HBP_AUTO ? SPX_HBP_HOT_RULE : SPX_HBP_HOT_NEVER;
}

/* The band layout of A (width W, 0: the rule's for feat; columns numbered per mode) under an
 * hbp header. */
static spx_status build_bands(spx_ctx *ctx, const spx_csr *A, const spx_features *feat, spx_precision prec,
                              int32_t W, spx_hbp_hot_mode mode, spx_hbp_fmt **out)
{
    spx_hbp_fmt *F = spx_calloc_array(ctx, 1, sizeof *F);
    if (!F) return spx_fail_nomem(ctx, "hbp layout");
    spx_status s = spx_hbp_bands_build(ctx, A, prec, W, feat, mode, &F->bands);
    if (s) {
        spx_free(ctx, F);
        return s;
    }
    spx_hbp_fmt_band_header(F, F->bands);
    *out = F;
    return SPX_OK;
}

/* The wide tiles of A under an hbp header. */
static spx_status build_wide(spx_ctx *ctx, const spx_csr *A, spx_precision prec, spx_hbp_fmt **out)
{
    spx_hbp_fmt *F = spx_calloc_array(ctx, 1, sizeof *F);
    if (!F) return spx_fail_nomem(ctx, "hbp layout");
    spx_status s = spx_hbp_wide_build(ctx, A, prec, &F->wide);
    if (s) {
        spx_free(ctx, F);
        return s;
    }
    spx_hbp_fmt_wide_header(F, F->wide);
    *out = F;
    return SPX_OK;
}

spx_status spx_hbp_fmt_build(spx_ctx *ctx, const spx_csr *A, const spx_features *feat, spx_precision prec,
                             const char *algo, int32_t H, int32_t W, spx_hbp_fmt **out)
{
    int a = spx_hbp_algo_from_name(algo);
    if (a < 0) return spx_fail(ctx, SPX_ERR_ARG, "hbp: unknown algorithm '%s'", algo);
    if (!A || !out) return spx_fail(ctx, SPX_ERR_ARG, "hbp build: NULL argument");
    const spx_hbp_hot_mode hot = spx_hbp_hot_mode_of(a);
    a = spx_hbp_algo_resolve(a, A->n, (int)spx_precision_bytes(prec), feat);
    if (a == SPX_HBP_BAND || a == SPX_HBP_HOT) return build_bands(ctx, A, feat, prec, W, hot, out);
    if (a == SPX_HBP_WIDE) return build_wide(ctx, A, prec, out);
    if (H == 0 && W == 0)
        spx_hbp_tile_shape(feat, (int)spx_precision_bytes(prec), SPX_HBP_SMEM_BUDGET, &H, &W);
    spx_status s = spx_hbp_check_shape(ctx, H, W);
    if (s) return s;
    build_ws ws = {0};
    spx_hbp_fmt *F = spx_calloc_array(ctx, 1, sizeof *F);
    if (!F) return spx_fail_nomem(ctx, "hbp layout");
    spx_hbp_fmt_header(F, A->m, A->n, A->nnz, prec, (spx_hbp_algo)a, H, W);
    const int lw = spx_hbp_bits(W);
    int64_t hist[32];
    F->panel_tile = spx_calloc_array(ctx, (size_t)F->n_panels + 1, sizeof *F->panel_tile);
    ws.panel_seg = spx_calloc_array(ctx, (size_t)F->n_panels + 1, sizeof *ws.panel_seg);
    ws.panel_grp = spx_calloc_array(ctx, (size_t)F->n_panels + 1, sizeof *ws.panel_grp);
    if (!F->panel_tile || !ws.panel_seg || !ws.panel_grp) {
        s = spx_fail_nomem(ctx, "hbp panel counts");
        goto done;
    }
    count_segments(A, F, lw, ws.panel_seg, hist, spx_ctx_threads(ctx));
    prefix(ws.panel_seg, F->n_panels);
    F->n_slots = ws.panel_seg[F->n_panels];
    F->agg_shift = spx_hbp_agg_shift(hist);
    ws.seg = spx_malloc_array(ctx, (size_t)F->n_slots, sizeof *ws.seg);
    ws.scratch = spx_malloc_array(ctx, (size_t)F->n_slots, sizeof *ws.scratch);
    if (!ws.seg || !ws.scratch) {
        s = spx_fail_nomem(ctx, "hbp build segments");
        goto done;
    }
    if ((s = convert(ctx, A, F, lw, &ws))) goto done;
    *out = F;
    F = NULL;
done:
    spx_free(ctx, ws.panel_seg);
    spx_free(ctx, ws.panel_grp);
    spx_free(ctx, ws.seg);
    spx_free(ctx, ws.scratch);
    spx_hbp_fmt_destroy(ctx, F);
    return s;
}

void spx_hbp_arrays(spx_hbp_fmt *F, void **ptr[SPX_HBP_N_ARRAYS], int64_t count[SPX_HBP_N_ARRAYS],
                    size_t size[SPX_HBP_N_ARRAYS])
{
    const int f32 = F->precision == SPX_FP32;
    void **p[SPX_HBP_N_ARRAYS] = {(void **)&F->panel_tile, (void **)&F->tile_colblock, (void **)&F->tile_slot,
                                  (void **)&F->tile_group, (void **)&F->group_nnz,     (void **)&F->slot_row,
                                  (void **)&F->slot_len,   (void **)&F->col,
                                  f32 ? (void **)&F->val32 : (void **)&F->val64};
    const int64_t c[SPX_HBP_N_ARRAYS] = {(int64_t)F->n_panels + 1, F->n_tiles, F->n_tiles + 1, F->n_tiles + 1,
                                         F->n_groups + 1, F->n_slots, F->n_slots, F->nnz, F->nnz};
    const size_t z[SPX_HBP_N_ARRAYS] = {8, 4, 8, 8, 8, 2, 2, 2, f32 ? 4u : 8u};
    memcpy(ptr, p, sizeof p);
    memcpy(count, c, sizeof c);
    memcpy(size, z, sizeof z);
}

void spx_hbp_fmt_destroy(spx_ctx *ctx, spx_hbp_fmt *F)
{
    if (!F) return;
    void **ptr[SPX_HBP_N_ARRAYS];
    int64_t count[SPX_HBP_N_ARRAYS];
    size_t size[SPX_HBP_N_ARRAYS];
    spx_hbp_arrays(F, ptr, count, size);
    for (int i = 0; i < SPX_HBP_N_ARRAYS; i++) spx_free(ctx, *ptr[i]);
    spx_hbp_bands_destroy(ctx, F->bands);
    spx_hbp_wide_destroy(ctx, F->wide);
    spx_free(ctx, F);
}

/* Decodes panel p's entries into A (rowptr already set), using cursor (each row's next slot). */
static void panel_decode(const spx_hbp_fmt *F, int32_t p, spx_csr *A, int64_t *cursor)
{
    for (int64_t t = F->panel_tile[p]; t < F->panel_tile[p + 1]; t++) {
        const int32_t colbase = (int32_t)((int64_t)F->tile_colblock[t] * F->W);
        for (int64_t g = F->tile_group[t]; g < F->tile_group[t + 1]; g++) {
            int64_t s0 = F->tile_slot[t] + (g - F->tile_group[t]) * SPX_HBP_GROUP;
            int64_t k = F->tile_slot[t + 1] - s0 < SPX_HBP_GROUP ? F->tile_slot[t + 1] - s0 : SPX_HBP_GROUP;
            int maxlen = 0;
            for (int64_t j = 0; j < k; j++)
                if (F->slot_len[s0 + j] > maxlen) maxlen = F->slot_len[s0 + j];
            int64_t pos = F->group_nnz[g], first[SPX_HBP_GROUP]; /* each slot's first CSR position */
            for (int64_t j = 0; j < k; j++) { /* a row's pieces take its next places in slot order */
                int64_t *c = &cursor[(int64_t)p * F->H + F->slot_row[s0 + j]];
                first[j] = *c;
                *c += F->slot_len[s0 + j];
            }
            for (int st = 0; st < maxlen; st++)
                for (int64_t j = 0; j < k; j++)
                    if (F->slot_len[s0 + j] > st) {
                        A->colind[first[j] + st] = colbase + F->col[pos];
                        A->val[first[j] + st] = F->val64 ? F->val64[pos] : (double)F->val32[pos];
                        pos++;
                    }
        }
    }
}

spx_status spx_hbp_fmt_to_csr(spx_ctx *ctx, const spx_hbp_fmt *F, spx_csr **out)
{
    if (F->bands) return spx_hbp_bands_to_csr(ctx, F->bands, out);
    if (F->wide) return spx_hbp_wide_to_csr(ctx, F->wide, out);
    spx_csr *A = NULL;
    spx_status s = spx_csr_alloc(ctx, F->m, F->n, F->nnz, &A);
    if (s) return s;
    int64_t *cursor = spx_calloc_array(ctx, (size_t)F->m + 1, sizeof *cursor);
    if (!cursor) {
        spx_csr_destroy(&A);
        return spx_fail_nomem(ctx, "hbp to_csr cursors");
    }
    for (int32_t p = 0; p < F->n_panels; p++)
        for (int64_t sl = F->tile_slot[F->panel_tile[p]]; sl < F->tile_slot[F->panel_tile[p + 1]]; sl++)
            A->rowptr[(int64_t)p * F->H + F->slot_row[sl] + 1] += F->slot_len[sl];
    for (int32_t i = 0; i < F->m; i++) A->rowptr[i + 1] += A->rowptr[i];
    memcpy(cursor, A->rowptr, (size_t)F->m * sizeof *cursor);
#pragma omp parallel for num_threads(spx_ctx_threads(ctx)) schedule(dynamic, SPX_HBP_CPU_PANEL_CHUNK)
    for (int32_t p = 0; p < F->n_panels; p++) panel_decode(F, p, A, cursor);
    spx_free(ctx, cursor);
    A->meta.stored_entries = F->nnz;
    *out = A;
    return SPX_OK;
}

/* Minimum bytes of one SpMV with b = 0: entries (uint16 column + value), slot rows and
 * lengths, group starts, tile headers, x and y once. */
double spx_hbp_fmt_bytes(const spx_hbp_fmt *F)
{
    if (F->bands) return spx_hbp_bands_bytes(F->bands);
    if (F->wide) return spx_hbp_wide_bytes(F->wide);
    double vb = (double)spx_precision_bytes(F->precision);
    return (double)F->nnz * (2.0 + vb) + (double)F->n_slots * 4.0 + (double)F->n_groups * 8.0 +
           (double)F->n_tiles * 20.0 + (double)F->n_panels * 8.0 + ((double)F->n + (double)F->m) * vb;
}

void spx_hbp_tile_stats(spx_stat_list *out, int32_t H, int32_t W, int32_t panels, int32_t blocks, int64_t tiles,
                        int64_t nnz)
{
    char shape[48];
    snprintf(shape, sizeof shape, "%d x %d", H, W);
    spx_stat_text(out, "tile_shape", shape);
    spx_stat_num(out, "tile_rows_H", H);
    spx_stat_num(out, "tile_cols_W", W);
    spx_stat_num(out, "row_panels", panels);
    spx_stat_num(out, "col_blocks", blocks);
    spx_stat_num(out, "tiles", (double)tiles);
    spx_stat_num(out, "tile_fill_nnz", tiles ? (double)nnz / (double)tiles : 0.0);
}

void spx_hbp_fmt_stats(const spx_hbp_fmt *F, spx_stat_list *out)
{
    if (F->bands) {
        spx_hbp_bands_stats(F->bands, out);
        return;
    }
    if (F->wide) {
        spx_hbp_wide_stats(F->wide, out);
        return;
    }
    spx_hbp_tile_stats(out, F->H, F->W, F->n_panels, F->n_colblocks, F->n_tiles, F->nnz);
    spx_stat_num(out, "groups", (double)F->n_groups);
    spx_stat_num(out, "slots", (double)F->n_slots);
    spx_stat_num(out, "agg_shift_a", F->agg_shift);
    if (isnan(F->balance_before))
        spx_stat_text(out, "group_stddev_before", "n/a: built on the device (after only)");
    else
        spx_stat_num(out, "group_stddev_before", F->balance_before);
    spx_stat_num(out, "group_stddev_after", F->balance_after);
    if (isnan(F->lane_util_before))
        spx_stat_text(out, "lane_util_before", "n/a: built on the device (after only)");
    else
        spx_stat_num(out, "lane_util_before", F->lane_util_before);
    spx_stat_num(out, "lane_util_after", F->lane_util_after);
    spx_stat_num(out, "bytes_per_nnz", F->nnz ? spx_hbp_fmt_bytes(F) / (double)F->nnz : 0.0);
}
