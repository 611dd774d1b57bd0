/* src/formats/ehyb/ehyb_check.c: the ehyb layout back to CSR in the caller's numbering (the
 * round trip; the GPU's copy goes through it after download) and the check of the layout's
 * invariants (ehyb.h) that tests/test_ehyb.c runs on every layout it builds. */
#include <stdlib.h>
#include <string.h>

#include "core/ctx.h"
#include "formats/ehyb/ehyb.h"
#include "formats/ehyb/ehyb_tuning.h"

/* Reads index k of a value array of precision prec as a double. */
static inline double get_val(const void *arr, spx_precision prec, int64_t k)
{
    return prec == SPX_FP32 ? (double)((const float *)arr)[k] : ((const double *)arr)[k];
}

/* One entry on its way back to CSR. */
typedef struct ehyb_entry {
    int32_t col;
    double val;
} ehyb_entry;

static int cmp_entry(const void *a, const void *b)
{
    int32_t x = ((const ehyb_entry *)a)->col, y = ((const ehyb_entry *)b)->col;
    return (x > y) - (x < y);
}

/* Entries per original row (ELL lanes stop at padding; ER padding is -1) into cnt[i + 1]. */
static void count_rows(const spx_ehyb_fmt *F, int64_t *cnt)
{
    for (int32_t p = 0; p < F->nparts; p++) {
        const uint16_t pad = (uint16_t)(F->col_start[p + 1] - F->col_start[p]);
        for (int32_t r = F->row_start[p]; r < F->row_start[p + 1]; r++) {
            const int32_t s = F->part_slice[p] + (r - F->row_start[p]) / SPX_EHYB_SLICE;
            for (int64_t k = F->ell_ptr[s] + (r - F->row_start[p]) % SPX_EHYB_SLICE;
                 k < F->ell_ptr[s + 1] && F->ell_col[k] != pad; k += SPX_EHYB_SLICE)
                cnt[F->row_perm[r] + 1]++;
        }
    }
    for (int32_t s = 0; s < F->n_er_slices; s++)
        for (int l = 0; l < SPX_EHYB_SLICE; l++) {
            const int32_t i = F->er_row[(int64_t)s * SPX_EHYB_SLICE + l];
            for (int64_t k = F->er_ptr[s] + l; i >= 0 && k < F->er_ptr[s + 1]; k += SPX_EHYB_SLICE)
                cnt[i + 1] += F->er_col[k] >= 0;
        }
    for (int32_t li = 0; li < F->n_long; li++) cnt[F->long_row[li] + 1] += F->long_ptr[li + 1] - F->long_ptr[li];
}

/* Places every entry at pos[row]++ of e (original columns). */
static void gather_entries(const spx_ehyb_fmt *F, int64_t *pos, ehyb_entry *e)
{
    for (int32_t p = 0; p < F->nparts; p++) {
        const int32_t c0 = F->col_start[p];
        const uint16_t pad = (uint16_t)(F->col_start[p + 1] - c0);
        for (int32_t r = F->row_start[p]; r < F->row_start[p + 1]; r++) {
            const int32_t s = F->part_slice[p] + (r - F->row_start[p]) / SPX_EHYB_SLICE, i = F->row_perm[r];
            for (int64_t k = F->ell_ptr[s] + (r - F->row_start[p]) % SPX_EHYB_SLICE;
                 k < F->ell_ptr[s + 1] && F->ell_col[k] != pad; k += SPX_EHYB_SLICE)
                e[pos[i]++] = (ehyb_entry){F->col_perm[c0 + F->ell_col[k]], get_val(F->ell_val, F->precision, k)};
        }
    }
    for (int32_t s = 0; s < F->n_er_slices; s++)
        for (int l = 0; l < SPX_EHYB_SLICE; l++) {
            const int32_t i = F->er_row[(int64_t)s * SPX_EHYB_SLICE + l];
            for (int64_t k = F->er_ptr[s] + l; i >= 0 && k < F->er_ptr[s + 1]; k += SPX_EHYB_SLICE)
                if (F->er_col[k] >= 0) e[pos[i]++] = (ehyb_entry){F->er_col[k], get_val(F->er_val, F->precision, k)};
        }
    for (int32_t li = 0; li < F->n_long; li++)
        for (int64_t k = F->long_ptr[li]; k < F->long_ptr[li + 1]; k++)
            e[pos[F->long_row[li]]++] = (ehyb_entry){F->long_col[k], get_val(F->long_val, F->precision, k)};
}

spx_status spx_ehyb_fmt_to_csr(spx_ctx *ctx, const spx_ehyb_fmt *F, spx_csr **out)
{
    spx_csr *A = NULL;
    spx_status s = spx_csr_alloc(ctx, F->m, F->n, F->nnz, &A);
    if (s) return s;
    ehyb_entry *e = spx_malloc_array(ctx, (size_t)F->nnz, sizeof *e);
    int64_t *pos = spx_malloc_array(ctx, (size_t)F->m + 1, sizeof *pos);
    if (!e || !pos) {
        s = spx_fail_nomem(ctx, "ehyb: round-trip entries");
        goto done;
    }
    memset(A->rowptr, 0, ((size_t)F->m + 1) * sizeof *A->rowptr);
    count_rows(F, A->rowptr);
    for (int32_t i = 0; i < F->m; i++) A->rowptr[i + 1] += A->rowptr[i];
    if (A->rowptr[F->m] != F->nnz) {
        s = spx_fail(ctx, SPX_ERR_VERIFY, "ehyb: the layout holds %lld entries, the matrix %lld",
                     (long long)A->rowptr[F->m], (long long)F->nnz);
        goto done;
    }
    memcpy(pos, A->rowptr, ((size_t)F->m + 1) * sizeof *pos);
    gather_entries(F, pos, e);
    const int nt = spx_ctx_threads(ctx);
#pragma omp parallel for schedule(dynamic, 256) num_threads(nt) if (F->m > SPX_EHYB_PARALLEL_MIN)
    for (int32_t i = 0; i < F->m; i++) {
        qsort(e + A->rowptr[i], (size_t)(A->rowptr[i + 1] - A->rowptr[i]), sizeof *e, cmp_entry);
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            A->colind[k] = e[k].col;
            A->val[k] = e[k].val;
        }
    }
    A->meta.stored_entries = F->nnz;
    *out = A;
    A = NULL;
done:
    spx_free(ctx, e);
    spx_free(ctx, pos);
    spx_csr_destroy(&A);
    return s;
}

/* Whether perm (count) is a bijection onto 0..count-1 (seen: count bytes of scratch). */
static int is_bijection(const int32_t *perm, int32_t count, unsigned char *seen)
{
    memset(seen, 0, (size_t)count);
    for (int32_t i = 0; i < count; i++) {
        if (perm[i] < 0 || perm[i] >= count || seen[perm[i]]) return 0;
        seen[perm[i]] = 1;
    }
    return 1;
}

/* Whether start (nparts + 1) runs from 0 to end without decreasing. */
static int is_ranges(const int32_t *start, int32_t nparts, int32_t end)
{
    if (start[0] != 0 || start[nparts] != end) return 0;
    for (int32_t p = 0; p < nparts; p++)
        if (start[p + 1] < start[p]) return 0;
    return 1;
}

/* The part tables, segment bounds and permutations; NULL or the breach. */
static const char *check_parts(const spx_ehyb_fmt *F, unsigned char *seen)
{
    if (F->nparts < 1) return "no parts";
    if (!is_ranges(F->row_start, F->nparts, F->m) || !is_ranges(F->col_start, F->nparts, F->n))
        return "part ranges not contiguous";
    if (F->seg_max > F->seg_cap || F->seg_cap > SPX_EHYB_SEG_LIMIT) return "segment bound exceeds the 16-bit limit";
    for (int32_t p = 0; p < F->nparts; p++)
        if (F->col_start[p + 1] - F->col_start[p] > F->seg_max) return "a segment exceeds seg_max";
    if (!is_bijection(F->row_perm, F->m, seen)) return "row_perm is not a bijection";
    if (!is_bijection(F->col_perm, F->n, seen)) return "col_perm is not a bijection";
    return NULL;
}

/* Length of lane l's real entries in ELL slice s (pad = the segment length). */
static int64_t ell_lane_len(const spx_ehyb_fmt *F, int32_t s, int l, uint16_t pad, const char **why)
{
    int64_t len = 0, k = F->ell_ptr[s] + l;
    for (; k < F->ell_ptr[s + 1] && F->ell_col[k] != pad; k += SPX_EHYB_SLICE) {
        if (F->ell_col[k] > pad) *why = "an ELL offset lies outside its segment";
        len++;
    }
    for (; k < F->ell_ptr[s + 1]; k += SPX_EHYB_SLICE)
        if (F->ell_col[k] != pad || get_val(F->ell_val, F->precision, k) != 0.0) *why = "ELL padding not (L, 0)";
    return len;
}

/* The ELL slices: widths, offsets in range, padding, descending row order; NULL or the breach. */
static const char *check_ell(const spx_ehyb_fmt *F)
{
    const char *why = NULL;
    if (F->part_slice[0] != 0 || F->part_slice[F->nparts] != F->n_ell_slices || F->ell_ptr[0] != 0 ||
        F->ell_ptr[F->n_ell_slices] != F->ell_slots)
        return "ELL slice tables inconsistent";
    for (int32_t p = 0; p < F->nparts && !why; p++) {
        const int32_t rows = F->row_start[p + 1] - F->row_start[p];
        const uint16_t pad = (uint16_t)(F->col_start[p + 1] - F->col_start[p]);
        if (F->part_slice[p + 1] - F->part_slice[p] != (rows + SPX_EHYB_SLICE - 1) / SPX_EHYB_SLICE)
            return "a part's slice count does not match its rows";
        int64_t prev = INT64_MAX;
        for (int32_t s = F->part_slice[p]; s < F->part_slice[p + 1] && !why; s++) {
            const int64_t slots = F->ell_ptr[s + 1] - F->ell_ptr[s];
            int64_t widest = 0;
            if (slots < 0 || slots % SPX_EHYB_SLICE) return "an ELL slice is not 32 x width";
            for (int l = 0; l < SPX_EHYB_SLICE; l++) {
                const int64_t len = ell_lane_len(F, s, l, pad, &why);
                const int real = (s - F->part_slice[p]) * SPX_EHYB_SLICE + l < rows;
                if (!real && len) return "a lane past the part's rows has entries";
                if (real && len > prev) return "rows of a part are not in descending in-part order";
                if (real) prev = len;
                if (len > widest) widest = len;
            }
            if (widest * SPX_EHYB_SLICE != slots) return "an ELL slice is wider than its longest row";
        }
    }
    return why;
}

/* The ER slices and long rows: order, bounds, padding; NULL or the breach. */
static const char *check_er(const spx_ehyb_fmt *F)
{
    int64_t prev = INT64_MAX;
    for (int32_t s = 0; s < F->n_er_slices; s++) {
        int64_t widest = 0;
        for (int l = 0; l < SPX_EHYB_SLICE; l++) {
            const int64_t t = (int64_t)s * SPX_EHYB_SLICE + l;
            const int32_t i = F->er_row[t];
            int64_t len = 0, k = F->er_ptr[s] + l;
            for (; k < F->er_ptr[s + 1] && F->er_col[k] >= 0; k += SPX_EHYB_SLICE) {
                if (F->er_col[k] >= F->n) return "an ER column is out of range";
                len++;
            }
            for (; k < F->er_ptr[s + 1]; k += SPX_EHYB_SLICE)
                if (F->er_col[k] != -1) return "ER padding is not -1";
            if ((t < F->n_er_rows) != (i >= 0) || i >= F->m) return "ER row ids inconsistent";
            if (i >= 0 && (len < 1 || len >= SPX_EHYB_ER_LONG_ROW || len > prev)) return "ER rows out of order";
            if (i >= 0) prev = len;
            if (len > widest) widest = len;
        }
        if (widest * SPX_EHYB_SLICE != F->er_ptr[s + 1] - F->er_ptr[s]) return "an ER slice is wider than its rows";
    }
    for (int32_t li = 0; li < F->n_long; li++) {
        if (F->long_ptr[li + 1] - F->long_ptr[li] < SPX_EHYB_ER_LONG_ROW) return "a short row in the long list";
        if (li > 0 && F->long_row[li] <= F->long_row[li - 1]) return "long rows not ascending";
    }
    return NULL;
}

spx_status spx_ehyb_fmt_check(spx_ctx *ctx, const spx_ehyb_fmt *F)
{
    const int32_t big = F->m > F->n ? F->m : F->n;
    unsigned char *seen = spx_malloc_array(ctx, (size_t)big + 1, 1);
    if (!seen) return spx_fail_nomem(ctx, "ehyb: check scratch");
    const char *why = check_parts(F, seen);
    if (!why) why = check_ell(F);
    if (!why) why = check_er(F);
    spx_free(ctx, seen);
    return why ? spx_fail(ctx, SPX_ERR_VERIFY, "ehyb layout: %s", why) : SPX_OK;
}
