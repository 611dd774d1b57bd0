/* src/formats/ehyb/ehyb_build.c: the ehyb layout from a matrix and its parts (paper
 * Algorithms 1-2): renumbering so each part is contiguous, rows of a part sorted by
 * descending in-part count (in parallel, one part per task), slices of 32 / G rows (G lanes
 * a row) holding each row's 16-bit ELL and its ER entries, the long rows, and for plan order
 * one numbering for rows and columns; the layout's array table, its release and its byte
 * count. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/ctx.h"
#include "formats/ehyb/ehyb.h"
#include "formats/ehyb/ehyb_cuda_tuning.h"
#include "formats/ehyb/ehyb_tuning.h"

const char *const spx_ehyb_algo_names[] = {"metis", "bfs", "grow", "voronoi", NULL};

void spx_ehyb_fmt_arrays(spx_ehyb_fmt *F, spx_ehyb_array out[SPX_EHYB_N_ARRAYS])
{
    const size_t vb = spx_ehyb_vbytes(F), np1 = (size_t)F->nparts + 1;
    const spx_ehyb_array a[SPX_EHYB_N_ARRAYS] = {
        {(void **)&F->row_start, np1 * sizeof(int32_t)},
        {(void **)&F->col_start, np1 * sizeof(int32_t)},
        {(void **)&F->row_perm, (size_t)F->m * sizeof(int32_t)},
        {(void **)&F->col_perm, (size_t)F->n * sizeof(int32_t)},
        {(void **)&F->part_slice, np1 * sizeof(int32_t)},
        {(void **)&F->ell_ptr, ((size_t)F->n_ell_slices + 1) * sizeof(int64_t)},
        {(void **)&F->ell_col, (size_t)F->ell_slots * sizeof(uint16_t)},
        {&F->ell_val, (size_t)F->ell_slots * vb},
        {(void **)&F->er_ptr, ((size_t)F->n_ell_slices + 1) * sizeof(int64_t)},
        {(void **)&F->er_col, (size_t)F->er_slots * sizeof(int32_t)},
        {&F->er_val, (size_t)F->er_slots * vb},
        {(void **)&F->long_row, (size_t)F->n_long * sizeof(int32_t)},
        {(void **)&F->long_ptr, ((size_t)F->n_long + 1) * sizeof(int64_t)},
        {(void **)&F->long_col, (size_t)F->long_nnz * sizeof(int32_t)},
        {&F->long_val, (size_t)F->long_nnz * vb},
    };
    memcpy(out, a, sizeof a);
}

void spx_ehyb_fmt_destroy(spx_ctx *ctx, spx_ehyb_fmt *F)
{
    if (!F) return;
    spx_ehyb_array arr[SPX_EHYB_N_ARRAYS];
    spx_ehyb_fmt_arrays(F, arr);
    for (int i = 0; i < SPX_EHYB_N_ARRAYS; i++) spx_free(ctx, *arr[i].ptr);
    spx_free(ctx, F);
}

/* Stores v at index k of a value array of precision prec. */
static inline void put_val(void *arr, spx_precision prec, int64_t k, double v)
{
    if (prec == SPX_FP32)
        ((float *)arr)[k] = (float)v;
    else
        ((double *)arr)[k] = v;
}

/* A row's place in its part's order. */
typedef struct row_key {
    int32_t ell_len, er_len, row;
} row_key;

/* One entry of a row on its way into the slices in plan order: its new column, value, and
 * whether its column is in the row's part. */
typedef struct new_entry {
    int32_t col, in_part;
    double val;
} new_entry;

/* Work arrays of the build (per original row / column). */
typedef struct ehyb_work {
    int32_t *in_cnt;  /* m: entries of the row inside its part (ell_len) */
    int32_t *col_new; /* n: new number of each original column */
    row_key *keys;    /* m: sort keys of the in-part row order */
    new_entry *rows;  /* plan order: threads x row_cap entries, a row's at a time per thread */
    int64_t row_cap;  /* the longest row */
} ehyb_work;

/* The row's out-of-part entries. */
static inline int64_t out_cnt(const spx_csr *A, const int32_t *in_cnt, int32_t i)
{
    return A->rowptr[i + 1] - A->rowptr[i] - in_cnt[i];
}

/* Whether the row is long: SPX_EHYB_ER_LONG_ROW or more out-of-part entries. */
static inline int is_long(const spx_csr *A, const int32_t *in_cnt, int32_t i)
{
    return out_cnt(A, in_cnt, i) >= SPX_EHYB_ER_LONG_ROW;
}

/* in_cnt[i] for every row, in parallel; F's entry counts: ell_nnz and er_nnz (rows in
 * slices), long_nnz (long rows, whole), out_nnz (all entries outside their row's part). */
static void count_in_part(spx_ehyb_fmt *F, const spx_csr *A, const spx_ehyb_parts *P, int32_t *in_cnt, int nt)
{
    int64_t in_all = 0, in_long = 0, long_all = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : in_all, in_long, long_all) num_threads(nt) \
    if (A->m > SPX_EHYB_PARALLEL_MIN)
    for (int32_t i = 0; i < A->m; i++) {
        int32_t c = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) c += P->col_part[A->colind[k]] == P->row_part[i];
        in_cnt[i] = c;
        in_all += c;
        if (is_long(A, in_cnt, i)) {
            in_long += c;
            long_all += A->rowptr[i + 1] - A->rowptr[i];
        }
    }
    F->ell_nnz = in_all - in_long;
    F->long_nnz = long_all;
    F->er_nnz = A->nnz - F->ell_nnz - long_all;
    F->out_nnz = A->nnz - in_all;
}

int32_t spx_ehyb_lanes_per_row(int32_t m, double mean, int32_t P, int32_t threads)
{
    const double lanes_held = (double)P * threads * SPX_EHYB_LANE_WAVES;
    int32_t g = 1;
    while (g < SPX_EHYB_MAX_LANES && g * SPX_EHYB_NZ_PER_LANE < mean && (double)m * 2 * g <= lanes_held)
        g *= 2;
    return g;
}

/* Stable counting sort of count items by part: start[p] (nparts + 1) and order[new] = old;
 * newpos[old] = new when newpos is not NULL. */
static void sort_by_part(int32_t count, const int32_t *part, int32_t nparts, int32_t *start, int32_t *order,
                         int32_t *newpos)
{
    memset(start, 0, ((size_t)nparts + 1) * sizeof *start);
    for (int32_t i = 0; i < count; i++) start[part[i] + 1]++;
    for (int32_t p = 0; p < nparts; p++) start[p + 1] += start[p];
    for (int32_t i = 0; i < count; i++) {
        /* start[p] runs ahead while filling and is restored below */
        int32_t pos = start[part[i]]++;
        order[pos] = i;
        if (newpos) newpos[i] = pos;
    }
    for (int32_t p = nparts; p > 0; p--) start[p] = start[p - 1];
    start[0] = 0;
}

/* Descending ell_len, then descending er_len, then ascending row. */
static int cmp_row_key(const void *a, const void *b)
{
    const row_key *x = a, *y = b;
    if (x->ell_len != y->ell_len) return x->ell_len > y->ell_len ? -1 : 1;
    if (x->er_len != y->er_len) return x->er_len > y->er_len ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* Within each part, rows by descending in-part count (Algorithm 1 line 17-18), ties by
 * descending er_len (so a slice's ER width is its rows' own), then original row; one part
 * per task. */
static void sort_rows_in_parts(spx_ehyb_fmt *F, const spx_csr *A, const int32_t *in_cnt, row_key *keys, int nt)
{
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (F->m > SPX_EHYB_PARALLEL_MIN)
    for (int32_t p = 0; p < F->nparts; p++) {
        const int32_t r0 = F->row_start[p], r1 = F->row_start[p + 1];
        for (int32_t r = r0; r < r1; r++) {
            const int32_t i = F->row_perm[r];
            keys[r] = (row_key){in_cnt[i], (int32_t)out_cnt(A, in_cnt, i), i};
        }
        qsort(keys + r0, (size_t)(r1 - r0), sizeof *keys, cmp_row_key);
        for (int32_t r = r0; r < r1; r++) F->row_perm[r] = keys[r].row;
    }
}

/* Slices per part and each slice's ELL and ER slot offsets (serial prefix sums). */
static spx_status plan_slices(spx_ctx *ctx, spx_ehyb_fmt *F, const spx_csr *A, const int32_t *in_cnt)
{
    const int32_t R = spx_ehyb_slice_rows(F);
    int64_t ns = 0;
    F->part_slice[0] = 0;
    for (int32_t p = 0; p < F->nparts; p++) {
        ns += (F->row_start[p + 1] - F->row_start[p] + R - 1) / R;
        F->part_slice[p + 1] = (int32_t)ns;
        const int32_t seg = F->col_start[p + 1] - F->col_start[p];
        if (seg > F->seg_max) F->seg_max = seg;
    }
    F->n_ell_slices = (int32_t)ns;
    F->ell_ptr = spx_malloc_array(ctx, (size_t)ns + 1, sizeof *F->ell_ptr);
    F->er_ptr = spx_malloc_array(ctx, (size_t)ns + 1, sizeof *F->er_ptr);
    if (!F->ell_ptr || !F->er_ptr) return spx_fail_nomem(ctx, "ehyb: slice offsets");
    F->ell_ptr[0] = F->er_ptr[0] = 0;
    for (int32_t p = 0; p < F->nparts; p++)
        for (int32_t s = F->part_slice[p]; s < F->part_slice[p + 1]; s++) {
            const int32_t first = F->row_start[p] + (s - F->part_slice[p]) * R;
            const int32_t last = first + R < F->row_start[p + 1] ? first + R : F->row_start[p + 1];
            int64_t er_max = 0;
            for (int32_t r = first; r < last; r++) {
                const int64_t e = out_cnt(A, in_cnt, F->row_perm[r]);
                if (e > er_max) er_max = e;
                F->n_er_rows += e > 0;
            }
            /* the first row has the slice's longest ell_len */
            F->ell_ptr[s + 1] = F->ell_ptr[s] + spx_ehyb_slice_slots(F, in_cnt[F->row_perm[first]]);
            F->er_ptr[s + 1] = F->er_ptr[s] + spx_ehyb_slice_slots(F, er_max);
        }
    F->ell_slots = F->ell_ptr[ns];
    F->er_slots = F->er_ptr[ns];
    F->ell_col = spx_malloc_array(ctx, (size_t)F->ell_slots, sizeof *F->ell_col);
    F->ell_val = spx_malloc_array(ctx, (size_t)F->ell_slots, spx_ehyb_vbytes(F));
    F->er_col = spx_malloc_array(ctx, (size_t)F->er_slots, sizeof *F->er_col);
    F->er_val = spx_malloc_array(ctx, (size_t)F->er_slots, spx_ehyb_vbytes(F));
    if (!F->ell_col || !F->ell_val || !F->er_col || !F->er_val) return spx_fail_nomem(ctx, "ehyb: slice slots");
    return SPX_OK;
}

static int cmp_new_entry(const void *a, const void *b)
{
    const int32_t x = ((const new_entry *)a)->col, y = ((const new_entry *)b)->col;
    return (x > y) - (x < y);
}

/* Places the next entry of row q of slice s, value v: in its part into ELL at segment offset
 * off (*ke entries placed there so far), else into ER with column col (*kr so far). */
static inline void put_entry(spx_ehyb_fmt *F, int32_t s, int32_t q, int in_part, int32_t off, int32_t col, double v,
                             int64_t *ke, int64_t *kr)
{
    if (in_part) {
        const int64_t slot = spx_ehyb_slot(F, F->ell_ptr[s], q, (*ke)++);
        F->ell_col[slot] = (uint16_t)off;
        put_val(F->ell_val, F->precision, slot, v);
    } else {
        const int64_t slot = spx_ehyb_slot(F, F->er_ptr[s], q, (*kr)++);
        F->er_col[slot] = col;
        put_val(F->er_val, F->precision, slot, v);
    }
}

/* Puts row q of slice s (original row i, part p) in plan order: its entries by ascending new
 * column (the ELL and ER rules of ehyb.h in the new numbering) through the scratch e. */
static void fill_row_plan_order(spx_ehyb_fmt *F, const spx_csr *A, const spx_ehyb_parts *P, const int32_t *col_new,
                                int32_t p, int32_t s, int32_t q, int32_t i, new_entry *e)
{
    const int64_t len = A->rowptr[i + 1] - A->rowptr[i];
    for (int64_t t = 0; t < len; t++) {
        const int32_t j = A->colind[A->rowptr[i] + t];
        e[t] = (new_entry){col_new[j], P->col_part[j] == p, A->val[A->rowptr[i] + t]};
    }
    qsort(e, (size_t)len, sizeof *e, cmp_new_entry);
    int64_t ke = 0, kr = 0;
    for (int64_t t = 0; t < len; t++)
        put_entry(F, s, q, e[t].in_part, e[t].col - F->col_start[p], e[t].col, e[t].val, &ke, &kr);
}

/* Fills the slices of part p: every slot padding first (ELL: offset = the segment length,
 * value 0; ER: -1, 0), then each row's in-part entries into ELL and its others into ER, by
 * the slot rule of ehyb.h (a part holds no long row); in plan order through the thread's
 * scratch row e. */
static void fill_part(spx_ehyb_fmt *F, const spx_csr *A, const spx_ehyb_parts *P, const int32_t *col_new,
                      const int32_t *in_cnt, int32_t p, new_entry *e)
{
    const int32_t r0 = F->row_start[p], r1 = F->row_start[p + 1], c0 = F->col_start[p], R = spx_ehyb_slice_rows(F);
    const uint16_t pad = (uint16_t)(F->col_start[p + 1] - c0);
    for (int32_t s = F->part_slice[p]; s < F->part_slice[p + 1]; s++) {
        for (int64_t k = F->ell_ptr[s]; k < F->ell_ptr[s + 1]; k++) {
            F->ell_col[k] = pad;
            put_val(F->ell_val, F->precision, k, 0.0);
        }
        for (int64_t k = F->er_ptr[s]; k < F->er_ptr[s + 1]; k++) {
            F->er_col[k] = -1;
            put_val(F->er_val, F->precision, k, 0.0);
        }
        for (int32_t q = 0; q < R; q++) {
            const int32_t r = r0 + (s - F->part_slice[p]) * R + q;
            if (r >= r1) break;
            const int32_t i = F->row_perm[r];
            if (F->plan_order) {
                fill_row_plan_order(F, A, P, col_new, p, s, q, i, e);
                continue;
            }
            int64_t ke = 0, kr = 0;
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
                const int32_t j = A->colind[k];
                put_entry(F, s, q, P->col_part[j] == p, col_new[j] - c0, j, A->val[k], &ke, &kr);
            }
        }
    }
}

/* The long rows: new rows row_start[nparts] .. m - 1 (original order, ascending), whole
 * rows in CSR order. */
static spx_status plan_long(spx_ctx *ctx, spx_ehyb_fmt *F, const spx_csr *A)
{
    const int32_t n_long = F->m - F->row_start[F->nparts];
    F->n_long = n_long;
    F->long_row = spx_malloc_array(ctx, (size_t)n_long, sizeof *F->long_row);
    F->long_ptr = spx_malloc_array(ctx, (size_t)n_long + 1, sizeof *F->long_ptr);
    F->long_col = spx_malloc_array(ctx, (size_t)F->long_nnz, sizeof *F->long_col);
    F->long_val = spx_malloc_array(ctx, (size_t)F->long_nnz, spx_ehyb_vbytes(F));
    if (!F->long_row || !F->long_ptr || !F->long_col || !F->long_val) return spx_fail_nomem(ctx, "ehyb: long rows");
    F->long_ptr[0] = 0;
    for (int32_t li = 0; li < n_long; li++) {
        const int32_t i = F->row_perm[F->row_start[F->nparts] + li];
        F->long_row[li] = i;
        F->long_ptr[li + 1] = F->long_ptr[li] + (A->rowptr[i + 1] - A->rowptr[i]);
    }
    return SPX_OK;
}

/* Fills long row li's entries, all of them, in CSR order. */
static void fill_long_row(spx_ehyb_fmt *F, const spx_csr *A, int32_t li)
{
    const int32_t i = F->long_row[li];
    int64_t k = F->long_ptr[li];
    for (int64_t e = A->rowptr[i]; e < A->rowptr[i + 1]; e++) {
        F->long_col[k] = A->colind[e];
        put_val(F->long_val, F->precision, k++, A->val[e]);
    }
}

/* The renumbering: column and row orders by part, then the in-part row sort. */
static spx_status renumber(spx_ctx *ctx, spx_ehyb_fmt *F, const spx_csr *A, const spx_ehyb_parts *P, ehyb_work *w,
                           int nt)
{
    F->row_start = spx_malloc_array(ctx, (size_t)F->nparts + 1, sizeof *F->row_start);
    F->col_start = spx_malloc_array(ctx, (size_t)F->nparts + 1, sizeof *F->col_start);
    F->part_slice = spx_malloc_array(ctx, (size_t)F->nparts + 1, sizeof *F->part_slice);
    F->row_perm = spx_malloc_array(ctx, (size_t)F->m, sizeof *F->row_perm);
    F->col_perm = spx_malloc_array(ctx, (size_t)F->n, sizeof *F->col_perm);
    if (!F->row_start || !F->col_start || !F->part_slice || !F->row_perm || !F->col_perm)
        return spx_fail_nomem(ctx, "ehyb: permutations");
    sort_by_part(F->n, P->col_part, F->nparts, F->col_start, F->col_perm, w->col_new);
    /* rows by part, the long rows (bucket nparts) after the last part, ascending */
    int32_t *bucket = spx_malloc_array(ctx, (size_t)F->m + 1, sizeof *bucket);
    int32_t *start = spx_malloc_array(ctx, (size_t)F->nparts + 2, sizeof *start);
    if (!bucket || !start) {
        spx_free(ctx, bucket);
        spx_free(ctx, start);
        return spx_fail_nomem(ctx, "ehyb: row buckets");
    }
    for (int32_t i = 0; i < F->m; i++) bucket[i] = is_long(A, w->in_cnt, i) ? F->nparts : P->row_part[i];
    sort_by_part(F->m, bucket, F->nparts + 1, start, F->row_perm, NULL);
    memcpy(F->row_start, start, ((size_t)F->nparts + 1) * sizeof *start);
    spx_free(ctx, bucket);
    spx_free(ctx, start);
    sort_rows_in_parts(F, A, w->in_cnt, w->keys, nt);
    if (F->plan_order) { /* columns numbered as the rows: one order for x and y */
        memcpy(F->col_perm, F->row_perm, (size_t)F->n * sizeof *F->col_perm);
        for (int32_t c = 0; c < F->n; c++) w->col_new[F->col_perm[c]] = c;
    }
    return SPX_OK;
}

int spx_ehyb_plan_order_fits(int32_t m, int32_t n, int64_t long_nnz) { return m == n && long_nnz == 0; }

/* Plan order's scratch: a row's entries per thread (the longest row's worth). */
static spx_status plan_order_scratch(spx_ctx *ctx, const spx_csr *A, ehyb_work *w, int nt)
{
    for (int32_t i = 0; i < A->m; i++)
        if (A->rowptr[i + 1] - A->rowptr[i] > w->row_cap) w->row_cap = A->rowptr[i + 1] - A->rowptr[i];
    w->rows = spx_malloc_array(ctx, (size_t)nt * (size_t)(w->row_cap + 1), sizeof *w->rows);
    return w->rows ? SPX_OK : spx_fail_nomem(ctx, "ehyb: plan order's row scratch");
}

/* Renumbering, the lanes per row, and the slices' and long rows' contents. */
static spx_status fill_layout(spx_ctx *ctx, spx_ehyb_fmt *F, const spx_csr *A, const spx_ehyb_parts *P,
                              ehyb_work *w, int want_plan_order)
{
    const int nt = spx_ctx_threads(ctx);
    count_in_part(F, A, P, w->in_cnt, nt);
    F->lanes = spx_ehyb_lanes_per_row(A->m, A->m > 0 ? (double)A->nnz / A->m : 0.0, F->P,
                             spx_ehyb_block_threads(F->blocks_per_sm));
    F->plan_order = want_plan_order && spx_ehyb_plan_order_fits(A->m, A->n, F->long_nnz);
    spx_status s;
    if ((F->plan_order && (s = plan_order_scratch(ctx, A, w, nt))) || (s = renumber(ctx, F, A, P, w, nt)) ||
        (s = plan_slices(ctx, F, A, w->in_cnt)) || (s = plan_long(ctx, F, A)))
        return s;
#pragma omp parallel num_threads(nt) if (A->nnz + A->m > SPX_EHYB_PARALLEL_MIN)
    {
        new_entry *mine = w->rows ? w->rows + (size_t)omp_get_thread_num() * (size_t)(w->row_cap + 1) : NULL;
#pragma omp for schedule(dynamic, 1) nowait
        for (int32_t p = 0; p < F->nparts; p++) fill_part(F, A, P, w->col_new, w->in_cnt, p, mine);
#pragma omp for schedule(dynamic, 1)
        for (int32_t li = 0; li < F->n_long; li++) fill_long_row(F, A, li);
    }
    return SPX_OK;
}

spx_status spx_ehyb_fmt_build(spx_ctx *ctx, const spx_csr *A, const spx_ehyb_parts *parts, spx_precision prec,
                              spx_ehyb_algo algo, int want_plan_order, spx_ehyb_fmt **out)
{
    spx_ehyb_fmt *F = spx_calloc_array(ctx, 1, sizeof *F);
    if (!F) return spx_fail_nomem(ctx, "ehyb layout");
    *F = (spx_ehyb_fmt){.m = A->m, .n = A->n, .nnz = A->nnz, .precision = prec, .algo = algo, .split = parts->split,
                        .K = parts->K, .P = parts->P, .nparts = parts->nparts, .seg_cap = parts->seg_cap,
                        .blocks_per_sm = parts->blocks_per_sm, .edge_cut = parts->edge_cut};
    ehyb_work w = {0};
    w.in_cnt = spx_malloc_array(ctx, (size_t)A->m + 1, sizeof *w.in_cnt);
    w.col_new = spx_malloc_array(ctx, (size_t)A->n + 1, sizeof *w.col_new);
    w.keys = spx_malloc_array(ctx, (size_t)A->m + 1, sizeof *w.keys);
    spx_status s = !w.in_cnt || !w.col_new || !w.keys ? spx_fail_nomem(ctx, "ehyb: build work arrays")
                                                       : fill_layout(ctx, F, A, parts, &w, want_plan_order);
    spx_free(ctx, w.rows);
    spx_free(ctx, w.in_cnt);
    spx_free(ctx, w.col_new);
    spx_free(ctx, w.keys);
    if (s) {
        spx_ehyb_fmt_destroy(ctx, F);
        return s;
    }
    *out = F;
    return SPX_OK;
}

/* Minimum bytes of one SpMV with b = 0, as the CUDA kernels move them: every ELL and ER slot
 * (padding included), the long rows' entries, the slice offsets, the part tables; x once
 * (through col_perm unless in plan order) for the segments plus one read per ER and long
 * entry; y once (through row_perm unless in plan order). */
double spx_ehyb_fmt_bytes(const spx_ehyb_fmt *F)
{
    const double vb = (double)spx_ehyb_vbytes(F), perm = F->plan_order ? 0.0 : 4.0;
    double b = (double)F->ell_slots * (2.0 + vb) + (double)F->er_slots * (4.0 + vb) + (double)F->long_nnz * (4.0 + vb);
    b += 8.0 * (2.0 * ((double)F->n_ell_slices + 1) + F->n_long + 1);
    b += 4.0 * (double)F->n_long + 12.0 * ((double)F->nparts + 1);
    b += (vb + perm) * (double)F->n + vb * (double)(F->er_nnz + F->long_nnz);
    b += (vb + perm) * (double)F->m;
    return b;
}
