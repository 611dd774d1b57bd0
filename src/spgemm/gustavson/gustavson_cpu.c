/* src/spgemm/gustavson/gustavson_cpu.c: the CPU SpGEMM and the oracle of every other path:
 * Gustavson row by row with OpenMP. Analysis counts each row's products and splits the rows
 * between threads by products; the symbolic phase counts each C row's distinct columns with
 * a dense or hash accumulator chosen by the row's upper bound, giving C's row pointers
 * exactly; the numeric phase writes each row straight into its slice of C: a k-way merge of
 * the B rows for short A rows, else the accumulator, then sorted.
 * Every allocation goes through the context, made before the parallel regions. */
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "spgemm/gustavson/gustavson_tuning.h"
#include "spgemm/impl.h"
#include "spgemm/spgemm_internal.h"

/* How a row of C is accumulated. */
enum { ROW_EMPTY, ROW_SINGLE, ROW_HASH, ROW_DENSE };

/* Per-chunk workspace sizes: hash slots and whether the dense accumulator is needed. */
typedef struct gus_chunk {
    int64_t hash_sym, hash_num; /* slots for the symbolic (from bounds) and numeric (exact) */
    int dense;
} gus_chunk;

typedef struct gus_state {
    const spx_csr *A, *B;
    int fp32;
    float *a32, *b32; /* fp32: A's and B's values rounded once */
    int chunks;
    int64_t *prod;   /* m + 1: prefix sums of the rows' products */
    int32_t *bounds; /* chunks + 1: chunk t holds rows [bounds[t], bounds[t + 1]) */
    gus_chunk *chunk;
    int64_t *crow;   /* m + 1: C's row pointers (symbolic) */
    int64_t rows_dense, rows_hash;
    char kernel[64];
} gus_state;

/* One chunk's accumulators for a pass. */
typedef struct gus_ws {
    int32_t *keys;   /* hash keys, -1 empty */
    double *hvals;   /* hash values (numeric) */
    int32_t *marker; /* dense: the row that last touched each column, -1 none */
    double *dense;   /* dense values (numeric) */
} gus_ws;

/* Smallest power of two >= x (x >= 1). */
static int64_t pow2_at_least(int64_t x)
{
    int64_t c = 1;
    while (c < x) c <<= 1;
    return c;
}

static inline uint32_t hash_col(int32_t j) { return (uint32_t)j * 2654435761u; }

/* The accumulator row i uses, from its A length and products. */
static int row_kind(const gus_state *S, int32_t i)
{
    const int64_t p = S->prod[i + 1] - S->prod[i];
    const int32_t n = S->B->n;
    if (p == 0) return ROW_EMPTY;
    if (S->A->rowptr[i + 1] - S->A->rowptr[i] == 1) return ROW_SINGLE;
    const int64_t ub = p < n ? p : n;
    return n <= SPX_GUS_DENSE_MAX_COLS && ub * SPX_GUS_DENSE_DIV >= n ? ROW_DENSE : ROW_HASH;
}

/* Hash slots for a row that may receive `keys` distinct columns. */
static int64_t hash_slots(int64_t keys) { return pow2_at_least(keys * SPX_GUS_HASH_SLOTS_PER_KEY); }

/* Rows [r0, r1) split into `parts` ranges of about equal work (products + A entries + 1 per
 * row): part t holds rows [bounds[t], bounds[t + 1]). */
static void split_range(const gus_state *S, int32_t r0, int32_t r1, int parts, int32_t *bounds)
{
    const int64_t *rp = S->A->rowptr, *pr = S->prod;
    const int64_t w0 = pr[r0] + rp[r0] + r0, total = pr[r1] + rp[r1] + r1 - w0;
    bounds[0] = r0;
    for (int t = 1; t < parts; t++) {
        const int64_t target = w0 + (int64_t)((double)total * t / parts);
        int32_t lo = bounds[t - 1], hi = r1;
        while (lo < hi) { /* first row whose work prefix reaches the target */
            int32_t mid = lo + (hi - lo) / 2;
            if (pr[mid] + rp[mid] + mid < target) lo = mid + 1;
            else hi = mid;
        }
        bounds[t] = lo;
    }
    bounds[parts] = r1;
}

/* All rows split into the state's chunks. */
static void split_rows(gus_state *S) { split_range(S, 0, S->A->m, S->chunks, S->bounds); }

/* A value of A or B in the plan's precision. */
static inline double a_val(const gus_state *S, int64_t q) { return S->fp32 ? (double)S->a32[q] : S->A->val[q]; }
static inline double b_val(const gus_state *S, int64_t q) { return S->fp32 ? (double)S->b32[q] : S->B->val[q]; }
/* x rounded to the plan's precision (double arithmetic rounded to float after each
 * operation is float arithmetic: double carries more than 2 * 24 + 2 bits). */
static inline double rnd(int fp32, double x) { return fp32 ? (double)(float)x : x; }

/* Runs the block (the variadic part) for every product of C's row i: j its column, pr its value a*b (rounded to the
 * plan's precision), A's entries in order and B's row for each. */
#define FOR_EACH_PRODUCT(S, i, j, pr, ...)                                                     \
    for (int64_t qa_ = (S)->A->rowptr[i]; qa_ < (S)->A->rowptr[(i) + 1]; qa_++) {             \
        const int32_t k_ = (S)->A->colind[qa_];                                                \
        const double a_ = a_val((S), qa_);                                                     \
        for (int64_t qb_ = (S)->B->rowptr[k_]; qb_ < (S)->B->rowptr[k_ + 1]; qb_++) {         \
            const int32_t j = (S)->B->colind[qb_];                                             \
            const double pr = rnd((S)->fp32, a_ * b_val((S), qb_));                            \
            __VA_ARGS__                                                                        \
        }                                                                                      \
    }

/* Rounds A's and B's values to float copies (fp32 plans). */
static void round_values(gus_state *S)
{
    for (int64_t q = 0; q < S->A->nnz; q++) S->a32[q] = (float)S->A->val[q];
    for (int64_t q = 0; q < S->B->nnz; q++) S->b32[q] = (float)S->B->val[q];
}

/* Per-row products and their prefix, the chunks, and each chunk's symbolic workspace. */
static void count_products(gus_state *S)
{
    const int32_t m = S->A->m;
    spx_spgemm_row_products(S->A, S->B, S->prod + 1, S->chunks);
    S->prod[0] = 0;
    for (int32_t i = 0; i < m; i++) S->prod[i + 1] += S->prod[i];
    split_rows(S);
    int64_t dense = 0, hash = 0;
#pragma omp parallel for schedule(static, 1) num_threads(S->chunks) reduction(+ : dense, hash)
    for (int t = 0; t < S->chunks; t++) {
        gus_chunk c = {0, 0, 0};
        for (int32_t i = S->bounds[t]; i < S->bounds[t + 1]; i++) {
            const int kind = row_kind(S, i);
            const int64_t p = S->prod[i + 1] - S->prod[i];
            const int64_t ub = p < S->B->n ? p : S->B->n;
            if (kind == ROW_DENSE) c.dense = 1, dense++;
            if (kind == ROW_HASH && hash_slots(ub) > c.hash_sym) c.hash_sym = hash_slots(ub);
            hash += kind == ROW_HASH;
        }
        S->chunk[t] = c;
    }
    S->rows_dense = dense;
    S->rows_hash = hash;
}

static void gus_destroy(spx_ctx *ctx, void *state);

static spx_status gus_analyse(spx_ctx *ctx, const spx_spgemm_input *in, spx_phase_log *log, void **state,
                              int64_t *products)
{
    const double t0 = spx_now();
    gus_state *S = spx_calloc_array(ctx, 1, sizeof *S);
    if (!S) return spx_fail_nomem(ctx, "spgemm gustavson state");
    S->A = in->A;
    S->B = in->B;
    S->fp32 = in->precision == SPX_FP32;
    S->chunks = spx_ctx_threads(ctx);
    S->prod = spx_malloc_array(ctx, (size_t)in->A->m + 1, sizeof *S->prod);
    S->crow = spx_calloc_array(ctx, (size_t)in->A->m + 1, sizeof *S->crow);
    S->bounds = spx_malloc_array(ctx, (size_t)S->chunks + 1, sizeof *S->bounds);
    S->chunk = spx_calloc_array(ctx, (size_t)S->chunks, sizeof *S->chunk);
    if (S->fp32) {
        S->a32 = spx_malloc_array(ctx, (size_t)in->A->nnz, sizeof *S->a32);
        S->b32 = spx_malloc_array(ctx, (size_t)in->B->nnz, sizeof *S->b32);
    }
    if (!S->prod || !S->crow || !S->bounds || !S->chunk || (S->fp32 && (!S->a32 || !S->b32))) {
        gus_destroy(ctx, S);
        return spx_fail_nomem(ctx, "spgemm gustavson analysis");
    }
    if (S->fp32) round_values(S);
    count_products(S);
    snprintf(S->kernel, sizeof S->kernel, "gustavson_cpu_%s", S->fp32 ? "fp32" : "fp64");
    spx_phase_add(log, "analyse", spx_now() - t0);
    *products = S->prod[in->A->m];
    *state = S;
    return SPX_OK;
}

/* Frees the chunks' workspaces. */
static void ws_free(spx_ctx *ctx, gus_ws *ws, int chunks)
{
    for (int t = 0; ws && t < chunks; t++) {
        spx_free(ctx, ws[t].keys);
        spx_free(ctx, ws[t].hvals);
        spx_free(ctx, ws[t].marker);
        spx_free(ctx, ws[t].dense);
    }
    spx_free(ctx, ws);
}

/* Allocates `count` accumulators (serially, before the parallel region), the t-th sized by
 * size[t * stride] (stride 0: all by size[0]), keys and markers set to -1; values only for
 * the numeric pass. */
static spx_status ws_alloc(spx_ctx *ctx, const gus_state *S, int numeric, int count, const gus_chunk *size, int stride,
                           gus_ws **out)
{
    const int32_t n = S->B->n;
    gus_ws *ws = spx_calloc_array(ctx, (size_t)count, sizeof *ws);
    int ok = ws != NULL;
    for (int t = 0; ok && t < count; t++) {
        const gus_chunk *c = &size[t * stride];
        const int64_t slots = numeric ? c->hash_num : c->hash_sym;
        if (slots) {
            ok = (ws[t].keys = spx_malloc_array(ctx, (size_t)slots, sizeof(int32_t))) != NULL &&
                 (!numeric || (ws[t].hvals = spx_malloc_array(ctx, (size_t)slots, sizeof(double))) != NULL);
            if (ok) memset(ws[t].keys, 0xff, (size_t)slots * sizeof(int32_t));
        }
        if (ok && c->dense) {
            ok = (ws[t].marker = spx_malloc_array(ctx, (size_t)n, sizeof(int32_t))) != NULL &&
                 (!numeric || (ws[t].dense = spx_malloc_array(ctx, (size_t)n, sizeof(double))) != NULL);
            if (ok) memset(ws[t].marker, 0xff, (size_t)n * sizeof(int32_t));
        }
    }
    if (!ok) {
        ws_free(ctx, ws, count);
        return spx_fail_nomem(ctx, numeric ? "spgemm numeric accumulators" : "spgemm symbolic accumulators");
    }
    *out = ws;
    return SPX_OK;
}

/* Distinct columns of C's row i through a hash table of `slots` slots (left all -1). */
static int64_t count_hash(const gus_state *S, int32_t i, int32_t *keys, int64_t slots)
{
    const spx_csr *A = S->A, *B = S->B;
    const uint32_t mask = (uint32_t)(slots - 1);
    int64_t count = 0;
    for (int64_t qa = A->rowptr[i]; qa < A->rowptr[i + 1]; qa++) {
        const int32_t k = A->colind[qa];
        for (int64_t qb = B->rowptr[k]; qb < B->rowptr[k + 1]; qb++) {
            const int32_t j = B->colind[qb];
            uint32_t h = hash_col(j) & mask;
            while (keys[h] != -1 && keys[h] != j) h = (h + 1) & mask;
            if (keys[h] == -1) keys[h] = j, count++;
        }
    }
    for (int64_t h = 0; h < slots; h++) keys[h] = -1;
    return count;
}

/* Distinct columns of C's row i through the dense marker (stamped with i). */
static int64_t count_dense(const gus_state *S, int32_t i, int32_t *marker)
{
    const spx_csr *A = S->A, *B = S->B;
    int64_t count = 0;
    for (int64_t qa = A->rowptr[i]; qa < A->rowptr[i + 1]; qa++) {
        const int32_t k = A->colind[qa];
        for (int64_t qb = B->rowptr[k]; qb < B->rowptr[k + 1]; qb++) {
            const int32_t j = B->colind[qb];
            if (marker[j] != i) marker[j] = i, count++;
        }
    }
    return count;
}

/* Row i's length in C. */
static int64_t count_row(const gus_state *S, int32_t i, const gus_ws *w)
{
    const int64_t p = S->prod[i + 1] - S->prod[i];
    const int64_t ub = p < S->B->n ? p : S->B->n;
    switch (row_kind(S, i)) {
    case ROW_SINGLE: return p;
    case ROW_HASH: return count_hash(S, i, w->keys, hash_slots(ub));
    case ROW_DENSE: return count_dense(S, i, w->marker);
    default: return 0;
    }
}

/* Counts chunk t's rows into crow[i + 1] and sizes its numeric hash table. */
static void count_chunk(gus_state *S, int t, const gus_ws *w)
{
    int64_t longest = 0;
    for (int32_t i = S->bounds[t]; i < S->bounds[t + 1]; i++) {
        const int64_t c = count_row(S, i, w);
        S->crow[i + 1] = c;
        if (row_kind(S, i) == ROW_HASH && c > longest) longest = c;
    }
    S->chunk[t].hash_num = longest ? hash_slots(longest) : 0;
}

static void fill_row(const gus_state *S, int32_t i, const gus_ws *w, int32_t *colind, double *val, int64_t base);

/* One pass over the chunks in parallel, with their accumulators: symbolic (C NULL: the row
 * counts) or numeric (C's rows). */
static spx_status chunk_pass(spx_ctx *ctx, gus_state *S, spx_csr *C)
{
    gus_ws *ws = NULL;
    spx_status s = ws_alloc(ctx, S, C != NULL, S->chunks, S->chunk, 1, &ws);
    if (s) return s;
#pragma omp parallel for schedule(static, 1) num_threads(S->chunks)
    for (int t = 0; t < S->chunks; t++) {
        if (!C) count_chunk(S, t, &ws[t]);
        else
            for (int32_t i = S->bounds[t]; i < S->bounds[t + 1]; i++) fill_row(S, i, &ws[t], C->colind, C->val, 0);
    }
    ws_free(ctx, ws, S->chunks);
    return SPX_OK;
}

static spx_status gus_symbolic(spx_ctx *ctx, void *state, spx_phase_log *log, int64_t *nnz_c)
{
    gus_state *S = state;
    const double t0 = spx_now();
    spx_status s = chunk_pass(ctx, S, NULL);
    if (s) return s;
    S->crow[0] = 0;
    for (int32_t i = 0; i < S->A->m; i++) S->crow[i + 1] += S->crow[i];
    *nnz_c = S->crow[S->A->m];
    spx_phase_add(log, "symbolic", spx_now() - t0);
    return SPX_OK;
}

static spx_status gus_update_values(spx_ctx *ctx, void *state, const spx_spgemm_input *in, spx_phase_log *log)
{
    gus_state *S = state;
    if (S->fp32) round_values(S);
    return SPX_OK;
}

/* Sorts keys[0..n) ascending (distinct keys), moving vals (NULL: none) along. */
static void sort_pairs(int32_t *keys, double *vals, int64_t n)
{
    while (n > SPX_GUS_INSERTION_SORT) {
        const int32_t a = keys[0], b = keys[n / 2], c = keys[n - 1];
        const int32_t pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        int64_t lo = 0, hi = n - 1;
        while (lo <= hi) { /* Hoare partition around the median of three */
            while (keys[lo] < pivot) lo++;
            while (keys[hi] > pivot) hi--;
            if (lo <= hi) {
                int32_t tk = keys[lo];
                keys[lo] = keys[hi], keys[hi] = tk;
                if (vals) {
                    double tv = vals[lo];
                    vals[lo] = vals[hi], vals[hi] = tv;
                }
                lo++, hi--;
            }
        }
        /* [0, hi] and [lo, n): recurse on the smaller, loop on the larger */
        if (hi + 1 < n - lo) {
            sort_pairs(keys, vals, hi + 1);
            keys += lo, vals = vals ? vals + lo : NULL, n -= lo;
        } else {
            sort_pairs(keys + lo, vals ? vals + lo : NULL, n - lo);
            n = hi + 1;
        }
    }
    for (int64_t x = 1; x < n; x++) {
        const int32_t k = keys[x];
        const double v = vals ? vals[x] : 0.0;
        int64_t y = x;
        for (; y > 0 && keys[y - 1] > k; y--) {
            keys[y] = keys[y - 1];
            if (vals) vals[y] = vals[y - 1];
        }
        keys[y] = k;
        if (vals) vals[y] = v;
    }
}

/* C's row i when A's row has one entry: B's row scaled (already sorted). */
static void fill_single(const gus_state *S, int32_t i, int32_t *oc, double *ov)
{
    const int64_t qa = S->A->rowptr[i];
    const int32_t k = S->A->colind[qa];
    const double a = a_val(S, qa);
    const spx_csr *B = S->B;
    for (int64_t qb = B->rowptr[k], t = 0; qb < B->rowptr[k + 1]; qb++, t++) {
        oc[t] = B->colind[qb];
        ov[t] = rnd(S->fp32, a * b_val(S, qb));
    }
}

/* C's row i through a hash table of `slots` slots (left all -1), then sorted. */
static void fill_hash(const gus_state *S, int32_t i, const gus_ws *w, int64_t slots, int32_t *oc, double *ov)
{
    const uint32_t mask = (uint32_t)(slots - 1);
    int32_t *keys = w->keys;
    double *hv = w->hvals;
    FOR_EACH_PRODUCT(S, i, j, pr, {
        uint32_t h = hash_col(j) & mask;
        while (keys[h] != -1 && keys[h] != j) h = (h + 1) & mask;
        if (keys[h] == -1) keys[h] = j, hv[h] = pr;
        else hv[h] = rnd(S->fp32, hv[h] + pr);
    });
    int64_t c = 0;
    for (int64_t h = 0; h < slots; h++)
        if (keys[h] != -1) {
            oc[c] = keys[h], ov[c] = hv[h], c++;
            keys[h] = -1;
        }
    sort_pairs(oc, ov, c);
}

/* A k-way merge's heap of B-row cursors, ordered by (current column, A position). */
typedef struct gus_merge {
    int64_t pos[SPX_GUS_MERGE_MAX_K], end[SPX_GUS_MERGE_MAX_K];
    double a[SPX_GUS_MERGE_MAX_K];
    int heap[SPX_GUS_MERGE_MAX_K], n;
} gus_merge;

/* Whether cursor x goes before cursor y: smaller column, then earlier in A's row. */
static inline int merge_before(const gus_merge *M, const int32_t *bcol, int x, int y)
{
    const int32_t cx = bcol[M->pos[x]], cy = bcol[M->pos[y]];
    return cx < cy || (cx == cy && x < y);
}

/* Restores the heap order from slot h down. */
static void merge_sift(gus_merge *M, const int32_t *bcol, int h)
{
    for (;;) {
        int m = h, l = 2 * h + 1, r = l + 1;
        if (l < M->n && merge_before(M, bcol, M->heap[l], M->heap[m])) m = l;
        if (r < M->n && merge_before(M, bcol, M->heap[r], M->heap[m])) m = r;
        if (m == h) return;
        const int t = M->heap[h];
        M->heap[h] = M->heap[m], M->heap[m] = t;
        h = m;
    }
}

/* C's row i by merging its B rows (sorted): columns in order, a column's products summed in
 * A's row order, exactly as fill_hash sums them. A's row has at most SPX_GUS_MERGE_MAX_K
 * entries. */
static void fill_merge(const gus_state *S, int32_t i, int32_t *oc, double *ov)
{
    const spx_csr *A = S->A, *B = S->B;
    const int64_t qa0 = A->rowptr[i];
    const int k = (int)(A->rowptr[i + 1] - qa0);
    gus_merge M;
    M.n = 0;
    for (int l = 0; l < k; l++) {
        const int32_t r = A->colind[qa0 + l];
        M.pos[l] = B->rowptr[r], M.end[l] = B->rowptr[r + 1], M.a[l] = a_val(S, qa0 + l);
        if (M.pos[l] < M.end[l]) M.heap[M.n++] = l;
    }
    for (int h = M.n / 2 - 1; h >= 0; h--) merge_sift(&M, B->colind, h);
    int64_t c = -1;
    while (M.n > 0) {
        const int l = M.heap[0];
        const int32_t j = B->colind[M.pos[l]];
        const double pr = rnd(S->fp32, M.a[l] * b_val(S, M.pos[l]));
        if (c >= 0 && oc[c] == j)
            ov[c] = rnd(S->fp32, ov[c] + pr);
        else
            oc[++c] = j, ov[c] = pr;
        if (++M.pos[l] == M.end[l]) M.heap[0] = M.heap[--M.n];
        merge_sift(&M, B->colind, 0);
    }
}

/* C's row i (len entries) through the dense marker and values, in column order. */
static void fill_dense(const gus_state *S, int32_t i, const gus_ws *w, int64_t len, int32_t *oc, double *ov)
{
    const spx_csr *B = S->B;
    int32_t *marker = w->marker;
    double *dv = w->dense;
    int64_t c = 0;
    FOR_EACH_PRODUCT(S, i, j, pr, {
        if (marker[j] != i) marker[j] = i, dv[j] = pr, oc[c++] = j;
        else dv[j] = rnd(S->fp32, dv[j] + pr);
    });
    if (len * SPX_GUS_SCAN_DIV >= B->n) { /* most columns present: scan them in order */
        c = 0;
        for (int32_t j = 0; j < B->n; j++)
            if (marker[j] == i) oc[c++] = j;
    } else {
        sort_pairs(oc, NULL, c);
    }
    for (int64_t t = 0; t < c; t++) ov[t] = dv[oc[t]];
}

/* Writes C's row i into its slice of colind and val, which hold C's entries from entry `base`
 * on (0: all of C). */
static void fill_row(const gus_state *S, int32_t i, const gus_ws *w, int32_t *colind, double *val, int64_t base)
{
    const int64_t at = S->crow[i], len = S->crow[i + 1] - at;
    int32_t *oc = colind + (at - base);
    double *ov = val + (at - base);
    switch (row_kind(S, i)) {
    case ROW_SINGLE: fill_single(S, i, oc, ov); break;
    case ROW_HASH:
        if (S->A->rowptr[i + 1] - S->A->rowptr[i] <= SPX_GUS_MERGE_MAX_K &&
            (double)(S->prod[i + 1] - S->prod[i]) < SPX_GUS_MERGE_MAX_COMPRESSION * (double)len)
            fill_merge(S, i, oc, ov);
        else
            fill_hash(S, i, w, hash_slots(len), oc, ov);
        break;
    case ROW_DENSE: fill_dense(S, i, w, len, oc, ov); break;
    default: break;
    }
}

static spx_status gus_numeric(spx_ctx *ctx, void *state, spx_phase_log *log, spx_csr *C)
{
    gus_state *S = state;
    const double t0 = spx_now();
    memcpy(C->rowptr, S->crow, ((size_t)S->A->m + 1) * sizeof *C->rowptr);
    spx_status s = chunk_pass(ctx, S, C);
    spx_phase_add(log, "numeric", spx_now() - t0);
    return s;
}

/* Rows [r0, r1) of C into colind and val (C's entries from row r0's first on), split by
 * work over `threads` threads, each with accumulators sized for the largest row of C. */
static spx_status gus_numeric_rows(spx_ctx *ctx, void *state, int32_t r0, int32_t r1, int threads, int32_t *colind,
                                   double *val)
{
    gus_state *S = state;
    if (r1 <= r0) return SPX_OK;
    const int parts = threads > 0 ? threads : 1;
    gus_chunk most = {0, 0, 0};
    for (int t = 0; t < S->chunks; t++) {
        if (S->chunk[t].hash_num > most.hash_num) most.hash_num = S->chunk[t].hash_num;
        most.dense |= S->chunk[t].dense;
    }
    int32_t *bounds = spx_malloc_array(ctx, (size_t)parts + 1, sizeof *bounds);
    gus_ws *ws = NULL;
    spx_status s = bounds ? ws_alloc(ctx, S, 1, parts, &most, 0, &ws) : spx_fail_nomem(ctx, "spgemm row-range split");
    if (!s) {
        split_range(S, r0, r1, parts, bounds);
        const int64_t base = S->crow[r0];
#pragma omp parallel for schedule(static, 1) num_threads(parts)
        for (int t = 0; t < parts; t++)
            for (int32_t i = bounds[t]; i < bounds[t + 1]; i++) fill_row(S, i, &ws[t], colind, val, base);
        ws_free(ctx, ws, parts);
    }
    spx_free(ctx, bounds);
    return s;
}

static void gus_row_pointers(const void *state, int64_t *rowptr)
{
    const gus_state *S = state;
    memcpy(rowptr, S->crow, ((size_t)S->A->m + 1) * sizeof *rowptr);
}

static void gus_destroy(spx_ctx *ctx, void *state)
{
    gus_state *S = state;
    if (!S) return;
    spx_free(ctx, S->a32);
    spx_free(ctx, S->b32);
    spx_free(ctx, S->prod);
    spx_free(ctx, S->crow);
    spx_free(ctx, S->bounds);
    spx_free(ctx, S->chunk);
    spx_free(ctx, S);
}

static const char *gus_kernel(const void *state) { return state ? ((const gus_state *)state)->kernel : "none"; }

static const spx_spgemm_impl gustavson_impl = {
    "gustavson",
    "CPU Gustavson (OpenMP): rows split by products, dense or hash accumulator per row; the oracle",
    NULL,            /* algos: none */
    SPX_BACKEND_CPU, /* backend */
    0,               /* flags */
    gus_analyse,
    gus_symbolic,
    gus_update_values,
    gus_numeric,
    gus_destroy,
    gus_kernel,
    gus_numeric_rows,
    gus_row_pointers,
    NULL, /* analyse_rows */
};

const spx_spgemm_impl *spx_spgemm_gustavson(void) { return &gustavson_impl; }
