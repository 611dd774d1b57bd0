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

/* Where an entry goes on its way back: counted (e == NULL) or placed at pos[row]++ of e. */
typedef struct entry_sink {
    int64_t *pos;
    ehyb_entry *e;
} entry_sink;

/* Sends one entry of original row i to the sink. */
static inline void sink_put(entry_sink *k, int32_t i, int32_t col, double val)
{
    if (k->e)
        k->e[k->pos[i]++] = (ehyb_entry){col, val};
    else
        k->pos[i + 1]++;
}

/* Sends the ELL (stopping at padding) and ER (skipping -1) entries of new row r of part p. */
static void row_entries(const spx_ehyb_fmt *F, int32_t p, int32_t r, entry_sink *k)
{
    const int32_t R = spx_ehyb_slice_rows(F), G = F->lanes, c0 = F->col_start[p];
    const int32_t s = F->part_slice[p] + (r - F->row_start[p]) / R, q = (r - F->row_start[p]) % R;
    const int32_t i = F->row_perm[r];
    const uint16_t pad = (uint16_t)(F->col_start[p + 1] - c0);
    for (int32_t g = 0; g < G; g++) {
        for (int64_t t = F->ell_ptr[s] + (int64_t)q * G + g; t < F->ell_ptr[s + 1] && F->ell_col[t] != pad;
             t += SPX_EHYB_WARP)
            sink_put(k, i, F->col_perm[c0 + F->ell_col[t]], get_val(F->ell_val, F->precision, t));
        for (int64_t t = F->er_ptr[s] + (int64_t)q * G + g; t < F->er_ptr[s + 1]; t += SPX_EHYB_WARP)
            if (F->er_col[t] >= 0)
                sink_put(k, i, F->plan_order ? F->col_perm[F->er_col[t]] : F->er_col[t],
                         get_val(F->er_val, F->precision, t));
    }
}

/* Every entry of the layout (slices, then long rows) to the sink. */
static void all_entries(const spx_ehyb_fmt *F, entry_sink *k)
{
    for (int32_t p = 0; p < F->nparts; p++)
        for (int32_t r = F->row_start[p]; r < F->row_start[p + 1]; r++) row_entries(F, p, r, k);
    for (int32_t li = 0; li < F->n_long; li++)
        for (int64_t t = F->long_ptr[li]; t < F->long_ptr[li + 1]; t++)
            sink_put(k, F->long_row[li], F->long_col[t], get_val(F->long_val, F->precision, t));
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
    entry_sink counter = {A->rowptr, NULL};
    all_entries(F, &counter);
    for (int32_t i = 0; i < F->m; i++) A->rowptr[i + 1] += A->rowptr[i];
    if (A->rowptr[F->m] != F->nnz) {
        s = spx_fail(ctx, SPX_ERR_VERIFY, "ehyb: the layout holds %lld entries, the matrix %lld",
                     (long long)A->rowptr[F->m], (long long)F->nnz);
        goto done;
    }
    memcpy(pos, A->rowptr, ((size_t)F->m + 1) * sizeof *pos);
    entry_sink placer = {pos, e};
    all_entries(F, &placer);
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
    if (F->n_long < 0 || !is_ranges(F->row_start, F->nparts, F->m - F->n_long) ||
        !is_ranges(F->col_start, F->nparts, F->n))
        return "part ranges not contiguous";
    if (F->seg_max > F->seg_cap || F->seg_cap > SPX_EHYB_SEG_LIMIT) return "segment bound exceeds the 16-bit limit";
    if (F->blocks_per_sm != SPX_EHYB_BLOCKS_PER_SM && F->blocks_per_sm != SPX_EHYB_WIDE_BLOCKS_PER_SM)
        return "blocks_per_sm is neither kernel shape";
    for (int32_t p = 0; p < F->nparts; p++)
        if (F->col_start[p + 1] - F->col_start[p] > F->seg_max) return "a segment exceeds seg_max";
    if (!is_bijection(F->row_perm, F->m, seen)) return "row_perm is not a bijection";
    if (!is_bijection(F->col_perm, F->n, seen)) return "col_perm is not a bijection";
    if (F->plan_order &&
        (F->m != F->n || F->n_long ||
         memcmp(F->row_perm, F->col_perm, (size_t)F->m * sizeof *F->row_perm) ||
         memcmp(F->row_start, F->col_start, ((size_t)F->nparts + 1) * sizeof *F->row_start)))
        return "plan order without one numbering for rows and columns";
    return NULL;
}

/* Real entries of the lane whose first slot is t in slots [t, end) of stride 32: they stop at
 * the first padding slot (ELL: offset pad; ER, pad < 0: column -1), after which every slot
 * must be padding with value 0; offsets must lie in the segment, ER columns in [0, n). */
static int64_t lane_len(const spx_ehyb_fmt *F, int64_t t, int64_t end, int32_t pad, const char **why)
{
    const int er = pad < 0;
    int64_t len = 0;
    for (; t < end; t += SPX_EHYB_WARP, len++) {
        const int32_t c = er ? F->er_col[t] : F->ell_col[t];
        if (c == (er ? -1 : pad)) break;
        if (er ? c < 0 || c >= F->n : c > pad) *why = "an entry's column is out of range";
    }
    for (; t < end; t += SPX_EHYB_WARP) {
        const int32_t c = er ? F->er_col[t] : F->ell_col[t];
        if (c != (er ? -1 : pad) || get_val(er ? F->er_val : F->ell_val, F->precision, t) != 0.0)
            *why = "padding is not (pad, 0) after a lane's entries";
    }
    return len;
}

/* Length of the row at position q of a slice's slots [base, end), its G lanes holding its
 * k-th entry (in column order) on lane k % G, step k / G (ehyb.h); -1 (and *why) when the
 * lanes do not follow that rule. */
static int64_t row_len(const spx_ehyb_fmt *F, int64_t base, int64_t end, int32_t q, int32_t pad, const char **why)
{
    const int32_t G = F->lanes;
    int64_t c[SPX_EHYB_WARP], len = 0;
    for (int32_t g = 0; g < G; g++) len += c[g] = lane_len(F, base + (int64_t)q * G + g, end, pad, why);
    for (int32_t g = 0; g < G; g++)
        if (c[g] != (len > g ? (len - g + G - 1) / G : 0)) {
            *why = "a row's entries are not spread over its lanes in order";
            return -1;
        }
    /* entry k at the slot rule's place, columns (ELL: offsets) strictly ascending in k */
    for (int64_t k = 1; k < len; k++) {
        const int64_t a = spx_ehyb_slot(F, base, q, k - 1), b = spx_ehyb_slot(F, base, q, k);
        if (pad < 0 ? F->er_col[a] >= F->er_col[b] : F->ell_col[a] >= F->ell_col[b]) {
            *why = "a row's entries are not in column order along the slot rule";
            return -1;
        }
    }
    return len;
}

/* One slice s of part p (rows row_start[p] + R*j ..): each width = ceil(longest row / G),
 * rows past the part empty, ELL lengths not increasing from prev (updated), ER lengths below
 * SPX_EHYB_ER_LONG_ROW; NULL or the breach. */
static const char *check_slice(const spx_ehyb_fmt *F, int32_t p, int32_t s, int64_t *prev)
{
    const int32_t R = spx_ehyb_slice_rows(F);
    const int32_t rows = F->row_start[p + 1] - F->row_start[p], first = (s - F->part_slice[p]) * R;
    const int32_t pad = F->col_start[p + 1] - F->col_start[p];
    const int64_t ell_slots = F->ell_ptr[s + 1] - F->ell_ptr[s], er_slots = F->er_ptr[s + 1] - F->er_ptr[s];
    if (ell_slots < 0 || ell_slots % SPX_EHYB_WARP || er_slots < 0 || er_slots % SPX_EHYB_WARP)
        return "a slice is not 32 x width";
    const char *why = NULL;
    int64_t ell_max = 0, er_max = 0;
    for (int32_t q = 0; q < R && !why; q++) {
        const int64_t le = row_len(F, F->ell_ptr[s], F->ell_ptr[s + 1], q, pad, &why);
        const int64_t lr = row_len(F, F->er_ptr[s], F->er_ptr[s + 1], q, -1, &why);
        if (why) break;
        if (first + q >= rows) {
            if (le || lr) return "a lane past the part's rows has entries";
            continue;
        }
        if (le > *prev) return "rows of a part are not in descending in-part order";
        if (lr >= SPX_EHYB_ER_LONG_ROW) return "a long row's entries in a slice's ER";
        *prev = le;
        if (le > ell_max) ell_max = le;
        if (lr > er_max) er_max = lr;
    }
    if (!why && (spx_ehyb_slice_slots(F, ell_max) != ell_slots || spx_ehyb_slice_slots(F, er_max) != er_slots))
        return "a slice is wider than its longest row";
    return why;
}

/* The lanes, the slice tables and every slice; NULL or the breach. */
static const char *check_slices(const spx_ehyb_fmt *F)
{
    if (F->lanes < 1 || F->lanes > SPX_EHYB_WARP || (F->lanes & (F->lanes - 1)))
        return "lanes not a power of two <= 32";
    if (F->part_slice[0] != 0 || F->part_slice[F->nparts] != F->n_ell_slices || F->ell_ptr[0] != 0 ||
        F->ell_ptr[F->n_ell_slices] != F->ell_slots || F->er_ptr[0] != 0 || F->er_ptr[F->n_ell_slices] != F->er_slots)
        return "slice tables inconsistent";
    const int32_t R = spx_ehyb_slice_rows(F);
    for (int32_t p = 0; p < F->nparts; p++) {
        const int32_t rows = F->row_start[p + 1] - F->row_start[p];
        if (F->part_slice[p + 1] - F->part_slice[p] != (rows + R - 1) / R)
            return "a part's slice count does not match its rows";
        int64_t prev = INT64_MAX;
        for (int32_t s = F->part_slice[p]; s < F->part_slice[p + 1]; s++) {
            const char *why = check_slice(F, p, s, &prev);
            if (why) return why;
        }
    }
    return NULL;
}

/* The long rows: the new rows after the parts, at least SPX_EHYB_ER_LONG_ROW entries each,
 * ascending, their offsets running from 0 to long_nnz, columns in range; NULL or the breach. */
static const char *check_long(const spx_ehyb_fmt *F)
{
    if (F->long_ptr[0] != 0 || F->long_ptr[F->n_long] != F->long_nnz) return "long-row offsets inconsistent";
    for (int32_t li = 0; li < F->n_long; li++) {
        if (F->long_row[li] != F->row_perm[F->row_start[F->nparts] + li])
            return "long rows are not the rows after the parts";
        if (F->long_ptr[li + 1] - F->long_ptr[li] < SPX_EHYB_ER_LONG_ROW) return "a short row in the long list";
        if (li > 0 && F->long_row[li] <= F->long_row[li - 1]) return "long rows not ascending";
        for (int64_t k = F->long_ptr[li]; k < F->long_ptr[li + 1]; k++)
            if (F->long_col[k] < 0 || F->long_col[k] >= F->n) return "a long row's column is out of range";
    }
    return NULL;
}

spx_status spx_ehyb_fmt_check(spx_ctx *ctx, const spx_ehyb_fmt *F)
{
    const int32_t big = F->m > F->n ? F->m : F->n;
    unsigned char *seen = spx_malloc_array(ctx, (size_t)big + 1, 1);
    if (!seen) return spx_fail_nomem(ctx, "ehyb: check scratch");
    const char *why = check_parts(F, seen);
    if (!why) why = check_slices(F);
    if (!why) why = check_long(F);
    spx_free(ctx, seen);
    return why ? spx_fail(ctx, SPX_ERR_VERIFY, "ehyb layout: %s", why) : SPX_OK;
}
