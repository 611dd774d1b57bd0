/* src/formats/teb/teb_build.c: CSR -> the teb layout: rows sorted by length (counting sort),
 * the selection (teb_select.c), the row merge of Algorithm 2 on the sorted rows, the blocks'
 * rows placed (long rows first, empty rows shared out), the nonzeros copied in that order;
 * and the layout back to CSR. */
#include <omp.h>
#include <string.h>

#include "core/ctx.h"
#include "formats/teb/teb.h"
#include "formats/teb/teb_tuning.h"

const char *const spx_teb_algo_names[] = {"auto", "thread", "warp-long", NULL};

/* Nonzeros of row i. */
#define ROW_LEN(rowptr, i) ((rowptr)[(i) + 1] - (rowptr)[(i)])

/* The algorithm of that name (NULL: auto), or -1. */
static int algo_from_name(const char *name)
{
    if (!name) return SPX_TEB_AUTO;
    for (int i = 0; spx_teb_algo_names[i]; i++)
        if (!strcmp(spx_teb_algo_names[i], name)) return i;
    return -1;
}

void spx_teb_hist_free(spx_ctx *ctx, spx_teb_hist *h)
{
    spx_free(ctx, h->len);
    spx_free(ctx, h->cnt);
    memset(h, 0, sizeof *h);
}

/* The histogram from the per-length row counts cnt[0..max_row] (empty rows not counted). */
static spx_status hist_from_counts(spx_ctx *ctx, const int64_t *cnt, int64_t max_row, spx_teb_hist *h)
{
    for (int64_t l = max_row; l >= 1; l--) h->d += cnt[l] > 0;
    h->len = spx_malloc_array(ctx, (size_t)h->d, sizeof *h->len);
    h->cnt = spx_malloc_array(ctx, (size_t)h->d, sizeof *h->cnt);
    if (!h->len || !h->cnt) return spx_fail_nomem(ctx, "teb row-length histogram");
    int64_t j = 0;
    for (int64_t l = max_row; l >= 1; l--)
        if (cnt[l] > 0) {
            h->len[j] = l;
            h->cnt[j++] = cnt[l];
            h->rows += cnt[l];
            h->nnz += l * cnt[l];
        }
    return SPX_OK;
}

spx_status spx_teb_sort_rows(spx_ctx *ctx, const int64_t *rowptr, int32_t m, int32_t *ord, spx_teb_hist *h)
{
    memset(h, 0, sizeof *h);
    int64_t max_row = 0;
    for (int32_t i = 0; i < m; i++)
        if (ROW_LEN(rowptr, i) > max_row) max_row = ROW_LEN(rowptr, i);
    int64_t *pos = spx_calloc_array(ctx, (size_t)max_row + 1, sizeof *pos);
    if (!pos) return spx_fail_nomem(ctx, "teb row-length counts");
    for (int32_t i = 0; i < m; i++) pos[ROW_LEN(rowptr, i)]++;
    spx_status s = hist_from_counts(ctx, pos, max_row, h);
    if (!s) {
        int64_t at = 0; /* each length's first slot: the rows longer than it come first */
        for (int64_t l = max_row; l >= 0; l--) {
            const int64_t c = pos[l];
            pos[l] = at;
            at += c;
        }
        for (int32_t i = 0; i < m; i++) ord[pos[ROW_LEN(rowptr, i)]++] = i;
    } else {
        spx_teb_hist_free(ctx, h);
    }
    spx_free(ctx, pos);
    return s;
}

/* One block of Algorithm 2 from the sorted rows ord[*b..*e]: the longest row left, then the
 * shortest ones while the sum stays <= T; written to mrg[*p...] (mrg NULL: only counted). */
static void take_block(const int64_t *rowptr, const int32_t *ord, int64_t *b, int64_t *e, int64_t T, int32_t *mrg,
                       int64_t *p)
{
    int64_t s = ROW_LEN(rowptr, ord[*b]);
    if (mrg) mrg[*p] = ord[*b];
    (*p)++, (*b)++;
    while (*b <= *e && s + ROW_LEN(rowptr, ord[*e]) <= T) {
        s += ROW_LEN(rowptr, ord[*e]);
        if (mrg) mrg[*p] = ord[*e];
        (*p)++, (*e)--;
    }
}

/* Blocks the rows ord[b..e] still left make when each takes at most T (a row longer alone
 * excepted); at least 1 (an empty last block when none is left). */
static int64_t count_overflow_blocks(const int64_t *rowptr, const int32_t *ord, int64_t b, int64_t e, int64_t T)
{
    int64_t n = 0, p = 0;
    while (b <= e) take_block(rowptr, ord, &b, &e, T, NULL, &p), n++;
    return n > 0 ? n : 1;
}

/* Algorithm 2 on the rows sorted by length (ord[0..rows), non-empty), its first bln - 1
 * blocks; sets *b, *e to the rows left (ord[*b..*e]) and *p to the rows placed. */
static void merge_first_blocks(const int64_t *rowptr, const int32_t *ord, int64_t rows, int64_t bln, int64_t T,
                               int32_t *mrg, int64_t *mstart, int64_t *b, int64_t *e, int64_t *p)
{
    *b = 0, *e = rows - 1, *p = 0;
    for (int64_t i = 0; i < bln - 1; i++) {
        mstart[i] = *p;
        if (*b <= *e) take_block(rowptr, ord, b, e, T, mrg, p);
    }
}

/* The rows left after the first bln - 1 blocks: Algorithm 2 (line 13) gives them all to the
 * last block; beyond the paper they continue in blocks of at most T each (n_over of them,
 * from count_overflow_blocks), so no block holds a multiple of the others' work (bcsstk33:
 * 3969 nonzeros against a threshold of 577 at bLN 1056). mstart[bln - 1 .. bln - 1 + n_over]. */
static void merge_overflow(const int64_t *rowptr, const int32_t *ord, int64_t bln, int64_t n_over, int64_t T,
                           int32_t *mrg, int64_t *mstart, int64_t b, int64_t e, int64_t p)
{
    for (int64_t i = bln - 1; i < bln - 1 + n_over; i++) {
        mstart[i] = p;
        if (b <= e) take_block(rowptr, ord, &b, &e, T, mrg, &p);
    }
    mstart[bln - 1 + n_over] = p;
}

/* Block by block: its long rows, its short rows (each in merge order), then its share of the
 * empty rows ord[rows..m); sets blk_row, blk_long, row_orig and long_rows. */
static void place_rows(spx_teb_fmt *F, const int64_t *rowptr, const int32_t *ord, int64_t rows, const int32_t *mrg,
                       const int64_t *mstart)
{
    const int64_t nb = F->n_blocks, empty = (int64_t)F->m - rows;
    int64_t r = 0;
    for (int64_t i = 0; i < nb; i++) {
        F->blk_row[i] = (int32_t)r;
        for (int64_t p = mstart[i]; p < mstart[i + 1]; p++)
            if (ROW_LEN(rowptr, mrg[p]) >= SPX_TEB_LONG_ROW) F->row_orig[r++] = mrg[p];
        F->blk_long[i] = (int32_t)r;
        F->long_rows += r - F->blk_row[i];
        for (int64_t p = mstart[i]; p < mstart[i + 1]; p++)
            if (ROW_LEN(rowptr, mrg[p]) < SPX_TEB_LONG_ROW) F->row_orig[r++] = mrg[p];
        for (int64_t q = rows + i * empty / nb; q < rows + (i + 1) * empty / nb; q++) F->row_orig[r++] = ord[q];
    }
    F->blk_row[nb] = (int32_t)r;
}

/* row_off from the placed rows, then every row's nonzeros copied (in parallel). */
static void copy_rows(spx_teb_fmt *F, const spx_csr *A, int threads)
{
    F->row_off[0] = 0;
    for (int32_t r = 0; r < F->m; r++) F->row_off[r + 1] = F->row_off[r] + (int32_t)ROW_LEN(A->rowptr, F->row_orig[r]);
#pragma omp parallel for schedule(dynamic, 1024) num_threads(threads)
    for (int32_t r = 0; r < F->m; r++) {
        const int64_t src = A->rowptr[F->row_orig[r]], dst = F->row_off[r], len = F->row_off[r + 1] - dst;
        if (len == 0) continue;
        memcpy(F->colind + dst, A->colind + src, (size_t)len * sizeof *F->colind);
        if (F->val32)
            for (int64_t k = 0; k < len; k++) F->val32[dst + k] = (float)A->val[src + k];
        else
            memcpy(F->val64 + dst, A->val + src, (size_t)len * sizeof *F->val64);
    }
}

/* S^2 and the largest block of the layout's blocks and of a plain split into equal rows. */
static void block_stats(spx_teb_fmt *F, const spx_csr *A)
{
    const int64_t nb = F->n_blocks;
    if (nb == 0) return;
    const double avg = (double)F->nnz / (double)nb;
    double v = 0.0, ve = 0.0;
    for (int64_t b = 0; b < nb; b++) {
        const int64_t s = (int64_t)F->row_off[F->blk_row[b + 1]] - F->row_off[F->blk_row[b]];
        const int64_t r0 = b * F->m / nb, r1 = (b + 1) * F->m / nb;
        const int64_t se = A->rowptr[r1] - A->rowptr[r0];
        v += ((double)s - avg) * ((double)s - avg);
        ve += ((double)se - avg) * ((double)se - avg);
        if (s > F->block_max) F->block_max = s;
        if (se > F->eq_max) F->eq_max = se;
    }
    F->block_var = v / (double)nb;
    F->eq_var = ve / (double)nb;
}

/* The block count and k: none for m = 0, the caller's when forced, else the selection's. */
static spx_status choose(spx_ctx *ctx, const spx_teb_fmt *F, const spx_teb_hist *h, const spx_teb_choice *force,
                         spx_teb_choice *c)
{
    memset(c, 0, sizeof *c);
    if (F->m == 0) return SPX_OK;
    if (!force) return spx_teb_select(ctx, h, spx_ctx_threads(ctx), c);
    const int64_t most = h->rows > 0 ? h->rows : 1;
    if (force->bln < 1 || force->bln > most || !(force->k > 0.0))
        return spx_fail(ctx, SPX_ERR_ARG, "teb: forced bLN %lld (1..%lld) or k %g (> 0) out of range",
                        (long long)force->bln, (long long)most, force->k);
    c->bln = c->bln_lo = c->bln_hi = force->bln;
    c->k = force->k;
    c->threshold = spx_teb_threshold(h->nnz, c->bln, c->k);
    return SPX_OK;
}

/* Allocates the layout's arrays for F->n_blocks blocks. */
static spx_status alloc_layout(spx_ctx *ctx, spx_teb_fmt *F)
{
    const size_t nb = (size_t)F->n_blocks, m = (size_t)F->m, nnz = (size_t)F->nnz;
    F->blk_row = spx_malloc_array(ctx, nb + 1, sizeof *F->blk_row);
    F->blk_long = spx_malloc_array(ctx, nb, sizeof *F->blk_long);
    F->row_off = spx_malloc_array(ctx, m + 1, sizeof *F->row_off);
    F->row_orig = spx_malloc_array(ctx, m, sizeof *F->row_orig);
    F->colind = spx_malloc_array(ctx, nnz, sizeof *F->colind);
    if (F->precision == SPX_FP32)
        F->val32 = spx_malloc_array(ctx, nnz, sizeof *F->val32);
    else
        F->val64 = spx_malloc_array(ctx, nnz, sizeof *F->val64);
    if (!F->blk_row || !F->blk_long || !F->row_off || !F->row_orig || !F->colind || (!F->val32 && !F->val64))
        return spx_fail_nomem(ctx, "teb layout arrays");
    return SPX_OK;
}

/* Merge for F->choice (sorted rows ord, histogram h), which sets F->n_blocks, the layout's
 * allocation, then the placement. */
static spx_status merge_and_place(spx_ctx *ctx, spx_teb_fmt *F, const spx_csr *A, const int32_t *ord,
                                  const spx_teb_hist *h)
{
    const int64_t bln = F->choice.bln, T = (int64_t)F->choice.threshold; /* floor: threshold >= 0 */
    int32_t *mrg = spx_malloc_array(ctx, (size_t)h->rows, sizeof *mrg);
    int64_t *mstart = spx_malloc_array(ctx, (size_t)bln + 1, sizeof *mstart);
    int64_t b, e, p, n_over = 1;
    spx_status s = SPX_OK;
    if (!mrg || !mstart) {
        s = spx_fail_nomem(ctx, "teb merge");
        goto done;
    }
    merge_first_blocks(A->rowptr, ord, h->rows, bln, T, mrg, mstart, &b, &e, &p);
    n_over = count_overflow_blocks(A->rowptr, ord, b, e, T);
    if (bln - 1 + n_over > INT32_MAX) {
        s = spx_fail(ctx, SPX_ERR_OVERFLOW, "teb: %lld blocks exceed the int32 range", (long long)(bln - 1 + n_over));
        goto done;
    }
    if (n_over > 1) {
        int64_t *grown = spx_realloc(ctx, mstart, ((size_t)bln + (size_t)n_over) * sizeof *mstart);
        if (!grown) {
            s = spx_fail_nomem(ctx, "teb merge: overflow blocks");
            goto done;
        }
        mstart = grown;
    }
    merge_overflow(A->rowptr, ord, bln, n_over, T, mrg, mstart, b, e, p);
    F->n_blocks = (int32_t)(bln - 1 + n_over);
    F->overflow_blocks = n_over - 1;
    if (!(s = alloc_layout(ctx, F))) place_rows(F, A->rowptr, ord, h->rows, mrg, mstart);
done:
    spx_free(ctx, mrg);
    spx_free(ctx, mstart);
    return s;
}

spx_status spx_teb_fmt_build(spx_ctx *ctx, const spx_csr *A, spx_precision prec, const char *algo,
                             const spx_teb_choice *force, spx_phase_log *log, spx_teb_fmt **out)
{
    const int a = algo_from_name(algo);
    if (a < 0) return spx_fail(ctx, SPX_ERR_ARG, "teb: unknown algorithm '%s'", algo);
    if (A->nnz > INT32_MAX)
        return spx_fail(ctx, SPX_ERR_OVERFLOW, "teb: %lld nonzeros exceed the int32 offset range", (long long)A->nnz);
    spx_teb_hist h = {0};
    spx_teb_fmt *F = spx_calloc_array(ctx, 1, sizeof *F);
    int32_t *ord = spx_malloc_array(ctx, (size_t)A->m, sizeof *ord);
    spx_status s = SPX_OK;
    if (!F || !ord) {
        s = spx_fail_nomem(ctx, "teb layout");
        goto done;
    }
    F->m = A->m;
    F->n = A->n;
    F->nnz = A->nnz;
    F->precision = prec;
    double t0 = spx_now();
    if ((s = spx_teb_sort_rows(ctx, A->rowptr, A->m, ord, &h)) || (s = choose(ctx, F, &h, force, &F->choice))) goto done;
    spx_phase_add(log, "select", spx_now() - t0);
    F->max_row = h.d > 0 ? h.len[0] : 0;
    F->empty_rows = (int64_t)A->m - h.rows;
    t0 = spx_now();
    if ((s = merge_and_place(ctx, F, A, ord, &h))) goto done;
    spx_phase_add(log, "merge", spx_now() - t0);
    t0 = spx_now();
    copy_rows(F, A, F->nnz < SPX_TEB_PARALLEL_MIN_NNZ ? 1 : spx_ctx_threads(ctx));
    spx_phase_add(log, "convert", spx_now() - t0);
    block_stats(F, A);
    if (force) F->choice.var = F->block_var;
    F->algo = a != SPX_TEB_AUTO ? (spx_teb_algo)a : SPX_TEB_AUTO_ALGO;
    *out = F;
    F = NULL;
done:
    spx_teb_hist_free(ctx, &h);
    spx_free(ctx, ord);
    spx_teb_fmt_destroy(ctx, F);
    return s;
}

void spx_teb_fmt_destroy(spx_ctx *ctx, spx_teb_fmt *F)
{
    if (!F) return;
    void *arrays[] = {F->blk_row, F->blk_long, F->row_off, F->row_orig, F->colind, F->val64, F->val32, F};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) spx_free(ctx, arrays[i]);
}

spx_status spx_teb_arrays_to_csr(spx_ctx *ctx, int32_t m, int32_t n, int64_t nnz, const int32_t *row_off,
                                 const int32_t *row_orig, const int32_t *colind, const double *val64,
                                 const float *val32, spx_csr **out)
{
    spx_csr *A = NULL;
    spx_status s = spx_csr_alloc(ctx, m, n, nnz, &A);
    if (s) return s;
    A->rowptr[0] = 0;
    for (int32_t r = 0; r < m; r++) A->rowptr[row_orig[r] + 1] = row_off[r + 1] - row_off[r];
    for (int32_t i = 0; i < m; i++) A->rowptr[i + 1] += A->rowptr[i];
#pragma omp parallel for schedule(dynamic, 1024) num_threads(nnz < SPX_TEB_PARALLEL_MIN_NNZ ? 1 : spx_ctx_threads(ctx))
    for (int32_t r = 0; r < m; r++) {
        const int64_t src = row_off[r], dst = A->rowptr[row_orig[r]], len = row_off[r + 1] - src;
        if (len == 0) continue;
        memcpy(A->colind + dst, colind + src, (size_t)len * sizeof *A->colind);
        for (int64_t k = 0; k < len; k++) A->val[dst + k] = val64 ? val64[src + k] : (double)val32[src + k];
    }
    A->meta.stored_entries = nnz;
    *out = A;
    return SPX_OK;
}

double spx_teb_bytes(int64_t m, int64_t n, int64_t nnz, int64_t n_blocks, spx_precision prec)
{
    /* CSR's traffic with int32 offsets, plus each row's original index and the block arrays */
    return spx_csr_traffic_bytes(m, n, nnz, (int)spx_precision_bytes(prec), 4, 0) + 4.0 * (double)m +
           8.0 * (double)n_blocks + 4.0;
}
