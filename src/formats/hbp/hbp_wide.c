/* src/formats/hbp/hbp_wide.c: hbp's wide-tile layout on the host (hbp_wide.h): the shape rule,
 * the units, the host build (OpenMP over panels: a stable counting sort of each panel's entries
 * by column block; the result does not depend on the thread count), the CPU SpMV, the round
 * trip, traffic and statistics. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/ctx.h"
#include "formats/hbp/hbp.h"
#include "formats/hbp/hbp_tuning.h"

void spx_hbp_wide_arrays(spx_hbp_wide *L, void **ptr[SPX_HBP_WIDE_N_ARRAYS], int64_t count[SPX_HBP_WIDE_N_ARRAYS],
                         size_t size[SPX_HBP_WIDE_N_ARRAYS])
{
    void **p[SPX_HBP_WIDE_N_ARRAYS] = {(void **)&L->panel_tile, (void **)&L->tile_block, (void **)&L->tile_start,
                                       (void **)&L->idx,        &L->val,                   (void **)&L->unit_panel,
                                       (void **)&L->unit_start, (void **)&L->split_panel};
    const int64_t c[SPX_HBP_WIDE_N_ARRAYS] = {(int64_t)L->n_panels + 1, L->n_tiles, L->n_tiles + 1, L->nnz, L->nnz,
                                              L->n_units, L->n_units + 1, L->n_split};
    const size_t z[SPX_HBP_WIDE_N_ARRAYS] = {8, 4, 8, 4, spx_precision_bytes(L->precision), 4, 8, 4};
    memcpy(ptr, p, sizeof p);
    memcpy(count, c, sizeof c);
    memcpy(size, z, sizeof z);
}

void spx_hbp_wide_header(spx_hbp_wide *L, int32_t m, int32_t n, int64_t nnz, spx_precision prec)
{
    L->m = m;
    L->n = n;
    L->nnz = nnz;
    L->precision = prec;
    int32_t H = SPX_HBP_WIDE_MAX_H;
    while (H > 32 && ((int64_t)m + H - 1) / H < SPX_HBP_WIDE_MIN_PANELS) H >>= 1;
    const int bits = spx_hbp_bits(H);
    const int64_t vb = (int64_t)spx_precision_bytes(prec), addressable = 1LL << (32 - bits);
    int64_t W = 1;
    while (2 * W * vb <= SPX_HBP_WIDE_SEGMENT_BYTES && 2 * W <= addressable) W *= 2;
    L->H = H;
    L->row_bits = bits;
    L->W = (int32_t)W;
    L->n_panels = (int32_t)(((int64_t)m + H - 1) / H);
    const int64_t blocks = ((int64_t)n + W - 1) / W;
    L->n_blocks = blocks < 1 ? 1 : (int32_t)blocks;
    const int64_t mean = L->n_panels ? (nnz + L->n_panels - 1) / L->n_panels : 0;
    const int64_t by_mean = SPX_HBP_WIDE_UNIT_MEANS * mean;
    const int64_t by_ctas = (nnz + SPX_HBP_WIDE_MIN_PANELS - 1) / SPX_HBP_WIDE_MIN_PANELS;
    const int64_t u = by_mean < by_ctas ? by_mean : by_ctas;
    L->unit_nnz = u > SPX_HBP_WIDE_UNIT_MIN_NNZ ? u : SPX_HBP_WIDE_UNIT_MIN_NNZ;
}

/* The units panel p's entries are cut into (at least one). */
static int64_t panel_units(const spx_hbp_wide *L, const int64_t *panel_nnz, int32_t p)
{
    const int64_t N = panel_nnz[p + 1] - panel_nnz[p];
    return N > L->unit_nnz ? (N + L->unit_nnz - 1) / L->unit_nnz : 1;
}

spx_status spx_hbp_wide_units(spx_ctx *ctx, spx_hbp_wide *L, const int64_t *panel_nnz)
{
    L->n_units = 0;
    L->n_split = 0;
    for (int32_t p = 0; p < L->n_panels; p++) {
        const int64_t k = panel_units(L, panel_nnz, p);
        L->n_units += k;
        L->n_split += k > 1;
    }
    L->unit_panel = spx_malloc_array(ctx, (size_t)L->n_units, sizeof *L->unit_panel);
    L->unit_start = spx_malloc_array(ctx, (size_t)L->n_units + 1, sizeof *L->unit_start);
    L->split_panel = spx_malloc_array(ctx, (size_t)L->n_split, sizeof *L->split_panel);
    if ((L->n_units && !L->unit_panel) || !L->unit_start || (L->n_split && !L->split_panel))
        return spx_fail_nomem(ctx, "hbp wide units");
    int64_t u = 0, sp = 0;
    for (int32_t p = 0; p < L->n_panels; p++) {
        const int64_t k = panel_units(L, panel_nnz, p), N = panel_nnz[p + 1] - panel_nnz[p];
        for (int64_t j = 0; j < k; j++, u++) {
            L->unit_panel[u] = p;
            L->unit_start[u] = panel_nnz[p] + N * j / k;
        }
        if (k > 1) L->split_panel[sp++] = p;
    }
    L->unit_start[L->n_units] = L->nnz;
    return SPX_OK;
}

/* Per-thread scratch of the host build: entries per column block, and the blocks a panel
 * touches (in first-seen order, then sorted). */
typedef struct wide_scratch {
    int64_t *count; /* [n_blocks], zero between panels */
    int32_t *touched;
} wide_scratch;

/* The calling thread's share of the scratch arrays count and touched (n_blocks each). */
static wide_scratch thread_scratch(int64_t *count, int32_t *touched, int32_t n_blocks)
{
    const size_t at = (size_t)omp_get_thread_num() * (size_t)n_blocks;
    return (wide_scratch){count + at, touched + at};
}

static int cmp_i32(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Counts panel p's entries per column block into w->count; returns the blocks touched, listed
 * ascending in w->touched. */
static int32_t panel_count(const spx_hbp_wide *L, const spx_csr *A, int32_t p, int lw, wide_scratch *w)
{
    const int64_t r0 = (int64_t)p * L->H, r1 = r0 + L->H < L->m ? r0 + L->H : L->m;
    int32_t k = 0;
    for (int64_t e = A->rowptr[r0]; e < A->rowptr[r1]; e++) {
        const int32_t b = A->colind[e] >> lw;
        if (w->count[b]++ == 0) w->touched[k++] = b;
    }
    qsort(w->touched, (size_t)k, sizeof *w->touched, cmp_i32);
    return k;
}

/* Clears the counts of the k touched blocks. */
static void panel_clear(int32_t k, wide_scratch *w)
{
    for (int32_t i = 0; i < k; i++) w->count[w->touched[i]] = 0;
}

/* Panel p's tiles and entries into L (panel_tile set): tile headers, then a stable scatter of
 * its entries by block (w->count becomes each block's next position). */
static void panel_fill(spx_hbp_wide *L, const spx_csr *A, int32_t p, int lw, wide_scratch *w)
{
    const int32_t k = panel_count(L, A, p, lw, w);
    const int64_t r0 = (int64_t)p * L->H, r1 = r0 + L->H < L->m ? r0 + L->H : L->m;
    int64_t pos = A->rowptr[r0];
    for (int32_t i = 0; i < k; i++) {
        const int64_t t = L->panel_tile[p] + i, len = w->count[w->touched[i]];
        L->tile_block[t] = w->touched[i];
        L->tile_start[t] = pos;
        w->count[w->touched[i]] = pos;
        pos += len;
    }
    const int32_t cmask = (1 << lw) - 1;
    double *v64 = L->precision == SPX_FP32 ? NULL : L->val;
    float *v32 = L->precision == SPX_FP32 ? L->val : NULL;
    for (int64_t r = r0; r < r1; r++)
        for (int64_t e = A->rowptr[r]; e < A->rowptr[r + 1]; e++) {
            const int32_t c = A->colind[e];
            const int64_t q = w->count[c >> lw]++;
            L->idx[q] = (uint32_t)(c & cmask) << L->row_bits | (uint32_t)(r - r0);
            if (v64)
                v64[q] = A->val[e];
            else
                v32[q] = (float)A->val[e];
        }
    panel_clear(k, w);
}

/* The build's two passes: tiles per panel (into panel_tile[p + 1]), then, once the headers are
 * placed, every panel's tiles and entries. */
static spx_status build_passes(spx_ctx *ctx, const spx_csr *A, spx_hbp_wide *L)
{
    const int nt = spx_ctx_threads(ctx), lw = spx_hbp_bits(L->W);
    int64_t *count = spx_calloc_array(ctx, (size_t)nt * (size_t)L->n_blocks, sizeof *count);
    int32_t *touched = spx_malloc_array(ctx, (size_t)nt * (size_t)L->n_blocks, sizeof *touched);
    spx_status s = SPX_OK;
    if (!count || !touched) {
        s = spx_fail_nomem(ctx, "hbp wide build scratch");
        goto done;
    }
#pragma omp parallel for num_threads(nt) schedule(dynamic, SPX_HBP_CPU_PANEL_CHUNK)
    for (int32_t p = 0; p < L->n_panels; p++) {
        wide_scratch w = thread_scratch(count, touched, L->n_blocks);
        const int32_t k = panel_count(L, A, p, lw, &w);
        panel_clear(k, &w);
        L->panel_tile[p + 1] = k;
    }
    for (int32_t p = 0; p < L->n_panels; p++) L->panel_tile[p + 1] += L->panel_tile[p];
    L->n_tiles = L->panel_tile[L->n_panels];
    L->tile_block = spx_malloc_array(ctx, (size_t)L->n_tiles, sizeof *L->tile_block);
    L->tile_start = spx_malloc_array(ctx, (size_t)L->n_tiles + 1, sizeof *L->tile_start);
    L->idx = spx_malloc_array(ctx, (size_t)L->nnz, sizeof *L->idx);
    L->val = spx_malloc_array(ctx, (size_t)L->nnz, spx_precision_bytes(L->precision));
    if ((L->n_tiles && !L->tile_block) || !L->tile_start || (L->nnz && (!L->idx || !L->val))) {
        s = spx_fail_nomem(ctx, "hbp wide layout");
        goto done;
    }
#pragma omp parallel for num_threads(nt) schedule(dynamic, SPX_HBP_CPU_PANEL_CHUNK)
    for (int32_t p = 0; p < L->n_panels; p++) {
        wide_scratch w = thread_scratch(count, touched, L->n_blocks);
        panel_fill(L, A, p, lw, &w);
    }
    L->tile_start[L->n_tiles] = L->nnz;
done:
    spx_free(ctx, count);
    spx_free(ctx, touched);
    return s;
}

spx_status spx_hbp_wide_build(spx_ctx *ctx, const spx_csr *A, spx_precision prec, spx_hbp_wide **out)
{
    spx_hbp_wide *L = spx_calloc_array(ctx, 1, sizeof *L);
    if (!L) return spx_fail_nomem(ctx, "hbp wide layout");
    spx_hbp_wide_header(L, A->m, A->n, A->nnz, prec);
    spx_status s = SPX_OK;
    int64_t *panel_nnz = spx_malloc_array(ctx, (size_t)L->n_panels + 1, sizeof *panel_nnz);
    L->panel_tile = spx_calloc_array(ctx, (size_t)L->n_panels + 1, sizeof *L->panel_tile);
    if (!panel_nnz || !L->panel_tile) {
        s = spx_fail_nomem(ctx, "hbp wide panels");
        goto done;
    }
    for (int32_t p = 0; p <= L->n_panels; p++) {
        const int64_t r = (int64_t)p * L->H;
        panel_nnz[p] = A->rowptr[r < A->m ? r : A->m];
    }
    if ((s = build_passes(ctx, A, L))) goto done;
    if ((s = spx_hbp_wide_units(ctx, L, panel_nnz))) goto done;
    *out = L;
    L = NULL;
done:
    spx_free(ctx, panel_nnz);
    spx_hbp_wide_destroy(ctx, L);
    return s;
}

void spx_hbp_wide_destroy(spx_ctx *ctx, spx_hbp_wide *L)
{
    if (!L) return;
    void **ptr[SPX_HBP_WIDE_N_ARRAYS];
    int64_t count[SPX_HBP_WIDE_N_ARRAYS];
    size_t size[SPX_HBP_WIDE_N_ARRAYS];
    spx_hbp_wide_arrays(L, ptr, count, size);
    for (int i = 0; i < SPX_HBP_WIDE_N_ARRAYS; i++) spx_free(ctx, *ptr[i]);
    spx_free(ctx, L);
}

/* Entry q's value widened to fp64. */
static double wide_val(const spx_hbp_wide *L, int64_t q)
{
    return L->precision == SPX_FP32 ? (double)((const float *)L->val)[q] : ((const double *)L->val)[q];
}

spx_status spx_hbp_wide_to_csr(spx_ctx *ctx, const spx_hbp_wide *L, spx_csr **out)
{
    spx_csr *A = NULL;
    spx_status s = spx_csr_alloc(ctx, L->m, L->n, L->nnz, &A);
    if (s) return s;
    const uint32_t rmask = (1u << L->row_bits) - 1u;
    for (int32_t p = 0; p < L->n_panels; p++)
        for (int64_t q = L->tile_start[L->panel_tile[p]]; q < L->tile_start[L->panel_tile[p + 1]]; q++)
            A->rowptr[(int64_t)p * L->H + (L->idx[q] & rmask) + 1]++;
    for (int32_t i = 0; i < L->m; i++) A->rowptr[i + 1] += A->rowptr[i];
    int64_t *cursor = spx_malloc_array(ctx, (size_t)L->m + 1, sizeof *cursor);
    if (!cursor) {
        spx_csr_destroy(&A);
        return spx_fail_nomem(ctx, "hbp wide to_csr cursors");
    }
    memcpy(cursor, A->rowptr, ((size_t)L->m + 1) * sizeof *cursor);
    for (int32_t p = 0; p < L->n_panels; p++)
        for (int64_t t = L->panel_tile[p]; t < L->panel_tile[p + 1]; t++)
            for (int64_t q = L->tile_start[t]; q < L->tile_start[t + 1]; q++) {
                const int64_t r = (int64_t)p * L->H + (L->idx[q] & rmask), at = cursor[r]++;
                A->colind[at] = (int32_t)((int64_t)L->tile_block[t] * L->W + (L->idx[q] >> L->row_bits));
                A->val[at] = wide_val(L, q);
            }
    spx_free(ctx, cursor);
    A->meta.stored_entries = L->nnz;
    *out = A;
    return SPX_OK;
}

/* One panel per value type: its tiles summed in fp64 into acc (H zeroed entries), then y. */
#define SPX_HBP_WIDE_CPU_PANEL(NAME, VT)                                                                     \
    static void NAME(const spx_hbp_wide *L, int32_t p, double a, const VT *x, double b, VT *y, double *acc) \
    {                                                                                                        \
        const VT *val = L->val;                                                                              \
        const uint32_t rmask = (1u << L->row_bits) - 1u;                                                     \
        const int64_t r0 = (int64_t)p * L->H, rows = r0 + L->H < L->m ? L->H : L->m - r0;                   \
        memset(acc, 0, (size_t)rows * sizeof *acc);                                                          \
        for (int64_t t = L->panel_tile[p]; t < L->panel_tile[p + 1]; t++) {                                  \
            const VT *xs = x + (int64_t)L->tile_block[t] * L->W;                                             \
            for (int64_t q = L->tile_start[t]; q < L->tile_start[t + 1]; q++)                                \
                acc[L->idx[q] & rmask] += (double)val[q] * (double)xs[L->idx[q] >> L->row_bits];             \
        }                                                                                                    \
        for (int64_t i = 0; i < rows; i++)                                                                   \
            y[r0 + i] = (VT)(b == 0.0 ? a * acc[i] : a * acc[i] + b * (double)y[r0 + i]);                    \
    }

SPX_HBP_WIDE_CPU_PANEL(wide_panel_f64, double)
SPX_HBP_WIDE_CPU_PANEL(wide_panel_f32, float)

spx_status spx_hbp_wide_spmv_cpu(spx_ctx *ctx, const spx_hbp_wide *L, spx_precision prec, double a, const void *x,
                                 double b, void *y)
{
    if (prec != L->precision) return spx_fail(ctx, SPX_ERR_ARG, "hbp: precision differs from the plan's");
    const int nt = spx_ctx_threads(ctx);
    double *acc = spx_malloc_array(ctx, (size_t)nt * (size_t)L->H, sizeof *acc);
    if (!acc) return spx_fail_nomem(ctx, "hbp wide row sums");
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
    for (int32_t p = 0; p < L->n_panels; p++) {
        double *mine = acc + (size_t)omp_get_thread_num() * L->H;
        if (prec == SPX_FP32)
            wide_panel_f32(L, p, a, (const float *)x, b, (float *)y, mine);
        else
            wide_panel_f64(L, p, a, (const double *)x, b, (double *)y, mine);
    }
    spx_free(ctx, acc);
    return SPX_OK;
}

double spx_hbp_wide_bytes(const spx_hbp_wide *L)
{
    const double vb = (double)spx_precision_bytes(L->precision);
    return (double)L->nnz * (4.0 + vb) + (double)L->n_tiles * 12.0 + (double)L->n_panels * 8.0 +
           (double)L->n_units * 12.0 + ((double)L->n + (double)L->m) * vb;
}

void spx_hbp_wide_stats(const spx_hbp_wide *L, spx_stat_list *out)
{
    spx_hbp_tile_stats(out, L->H, L->W, L->n_panels, L->n_blocks, L->n_tiles, L->nnz);
    spx_stat_num(out, "units", (double)L->n_units);
    spx_stat_num(out, "split_panels", L->n_split);
    spx_stat_num(out, "bytes_per_nnz", L->nnz ? spx_hbp_wide_bytes(L) / (double)L->nnz : 0.0);
}
