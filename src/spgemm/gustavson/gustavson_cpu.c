/* src/spgemm/gustavson/gustavson_cpu.c: the CPU SpGEMM and the oracle of every other path:
 * Gustavson row by row with OpenMP. Analysis counts each row's products and cuts the rows into
 * chunks of equal work, 8 a thread, which the threads take (chunk_pass); the symbolic phase
 * picks each row's accumulator from its products and the span of its columns and counts the
 * row's distinct columns, giving C's
 * row pointers exactly; the numeric phase writes each row straight into its slice of C, in
 * column order: from a flag-and-value array over the row's column span (read out by scanning
 * its flags: no sort), or a merge of the B rows for short A rows (a tree of two-way merges; a
 * heap of cursors past the tree's scratch), or a hash table then sorted. Where A's columns
 * reach B rows far from their own rows, both passes prefetch B's rows a few rows ahead.
 * Every allocation goes through the context, made before the parallel regions. */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "matrix/sort_pairs.h"
#include "spgemm/gustavson/gustavson_tuning.h"
#include "spgemm/impl.h"
#include "spgemm/spgemm_internal.h"

/* How a row of C is accumulated. */
enum { ROW_EMPTY, ROW_SINGLE, ROW_HASH, ROW_SPAN };

/* A chunk's needs (the sizes of the accumulators its rows take) and its analysis counts. */
typedef struct gus_chunk {
    int64_t hash_sym, hash_num; /* slots for the symbolic (from bounds) and numeric (exact) */
    int64_t stamps;             /* symbolic: the widest span a row may take the span accumulator with */
    int64_t span;               /* numeric: the widest span of the chunk's span rows, 0 none */
    int64_t merge;              /* numeric: products of the chunk's largest tree-merge row, 0 none */
    int64_t far;                /* analysis: A entries whose B row is far from the row's own place */
} gus_chunk;

typedef struct gus_state {
    const spx_csr *A, *B;
    int fp32;
    float *a32, *b32; /* fp32: A's and B's values rounded once */
    int threads;     /* the context's threads */
    int chunks;      /* threads * SPX_GUS_CHUNKS_PER_THREAD */
    int prefetch;    /* whether the passes prefetch B's rows ahead (A's columns mostly far) */
    int64_t *prod;   /* m + 1: prefix sums of the rows' products */
    uint8_t *kind;   /* m: each row's accumulator (ROW_*), chosen by the symbolic phase */
    int32_t *bounds; /* chunks + 1: chunk t holds rows [bounds[t], bounds[t + 1]) */
    gus_chunk *chunk;
    int64_t *crow;   /* m + 1: C's row pointers (symbolic) */
    char kernel[64];
} gus_state;

/* One owner's accumulators for a pass (sized for its chunks; see chunk_pass). The span
 * accumulator indexes a row's columns by their offset o = j - lo from the row's smallest column: in the symbolic pass a stamp per
 * offset (the row that last touched it); in the numeric pass a flag byte per offset, a flag
 * byte per block of 64 offsets, and a value per offset. The read-out scans the block flags
 * eight at a time and turns each flagged block's 64 flags into one bit mask. Flags are 0
 * and values -0.0 between rows (-0.0 + x == x exactly, so the first product needs no test).
 * A product costs plain byte stores, no read-modify-write of a word its neighbours share:
 * bits set in a bitmap chain consecutive columns through memory (numeric 1.27x slower on
 * stencil27 n=60, 1.35x on bcsstk29; 0.78x on poisson3d n=100, whose sparse blocks cost
 * the byte read-out more: 2-core CI machine, 2026-11-26). */
typedef struct gus_ws {
    int32_t *keys;  /* hash keys, -1 empty */
    double *hvals;  /* hash values (numeric) */
    int32_t *stamp; /* span (symbolic): the last row that touched each offset, -1 none */
    uint8_t *flag;  /* span (numeric): 0xff where the row has a column */
    uint8_t *block; /* span (numeric): 1 where a block of 64 flags has a 1 */
    double *sval;   /* span (numeric): values, -0.0 unused */
    int32_t *mcol[2]; /* tree merge (numeric): two scratch runs' columns ... */
    double *mval[2];  /* ... and values, `merge` entries each */
    int64_t slots, cols, merge; /* the hash table's slots, the span's offsets, the merge runs' entries */
} gus_ws;

/* Smallest power of two >= x (x >= 1). */
static int64_t pow2_at_least(int64_t x)
{
    int64_t c = 1;
    while (c < x) c <<= 1;
    return c;
}

/* Column j's home slot in a table of mask + 1 slots (a power of two): the high bits of a
 * multiplicative hash (its low bits depend only on j's low bits). */
static inline uint32_t hash_col(int32_t j, uint32_t mask)
{
    return (uint32_t)(((uint64_t)((uint32_t)j * 2654435761u) * ((uint64_t)mask + 1)) >> 32);
}

/* Hash slots for a row that may receive `keys` distinct columns. */
static int64_t hash_slots(int64_t keys) { return pow2_at_least(keys * SPX_GUS_HASH_SLOTS_PER_KEY); }

/* The columns of C's row i lie in [*lo, *lo + span) (B's rows are sorted: the first and
 * last entry of each); returns the span, 0 when the row has no products. */
static int64_t row_span(const gus_state *S, int32_t i, int32_t *lo)
{
    const spx_csr *A = S->A, *B = S->B;
    int32_t l = INT32_MAX, h = -1;
    for (int64_t qa = A->rowptr[i]; qa < A->rowptr[i + 1]; qa++) {
        const int32_t k = A->colind[qa];
        const int64_t b0 = B->rowptr[k], b1 = B->rowptr[k + 1];
        if (b0 == b1) continue;
        if (B->colind[b0] < l) l = B->colind[b0];
        if (B->colind[b1 - 1] > h) h = B->colind[b1 - 1];
    }
    *lo = l;
    return h < 0 ? 0 : (int64_t)h - l + 1;
}

/* The accumulator row i uses, from its A length, products and column span. */
static int choose_kind(const gus_state *S, int32_t i, int64_t span)
{
    const int64_t p = S->prod[i + 1] - S->prod[i];
    if (p == 0) return ROW_EMPTY;
    if (S->A->rowptr[i + 1] - S->A->rowptr[i] == 1) return ROW_SINGLE;
    const int64_t ub = p < span ? p : span;
    return span <= SPX_GUS_SPAN_MAX_COLS && span <= ub * SPX_GUS_SPAN_PER_KEY ? ROW_SPAN : ROW_HASH;
}

/* Whether row i may take the hash table, known from its products alone (its span is at most
 * n: a row whose products reach n / SPX_GUS_SPAN_PER_KEY takes the span accumulator). */
static int may_hash(const gus_state *S, int32_t i)
{
    const int64_t p = S->prod[i + 1] - S->prod[i], n = S->B->n;
    return p > 0 && S->A->rowptr[i + 1] - S->A->rowptr[i] > 1 && (n > SPX_GUS_SPAN_MAX_COLS || p * SPX_GUS_SPAN_PER_KEY < n);
}

/* Upper bound of the length of C's row i: its products, at most n. */
static int64_t row_bound(const gus_state *S, int32_t i)
{
    const int64_t p = S->prod[i + 1] - S->prod[i];
    return p < S->B->n ? p : S->B->n;
}

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

/* The operands as the inner loops read them, copied to locals so that a store to an
 * accumulator (a byte flag may alias anything) does not make the compiler reload them. */
typedef struct gus_ops {
    const int64_t *arp, *brp;
    const int32_t *acol, *bcol;
    const double *aval, *bval;
    const float *a32, *b32; /* fp32: the rounded copies */
    int fp32;
} gus_ops;

static inline gus_ops ops_of(const gus_state *S)
{
    const gus_ops O = {S->A->rowptr, S->B->rowptr, S->A->colind, S->B->colind, S->A->val, S->B->val,
                       S->a32,       S->b32,       S->fp32};
    return O;
}

/* A value of A or B in the plan's precision. */
static inline double a_val(gus_ops O, int64_t q) { return O.fp32 ? (double)O.a32[q] : O.aval[q]; }
static inline double b_val(gus_ops O, int64_t q) { return O.fp32 ? (double)O.b32[q] : O.bval[q]; }
/* x rounded to the plan's precision (double arithmetic rounded to float after each
 * operation is float arithmetic: double carries more than 2 * 24 + 2 bits). */
static inline double rnd(int fp32, double x) { return fp32 ? (double)(float)x : x; }

/* Runs the block (the variadic part) for every product of C's row i (O: the operands): j
 * its column, pr its value a*b (rounded to the plan's precision), A's entries in order and
 * B's row for each. */
#define FOR_EACH_PRODUCT(O, i, j, pr, ...)                                                     \
    for (int64_t qa_ = (O).arp[i], qa1_ = (O).arp[(i) + 1]; qa_ < qa1_; qa_++) {              \
        const int32_t k_ = (O).acol[qa_];                                                      \
        const double a_ = a_val((O), qa_);                                                     \
        const int64_t qb1_ = (O).brp[k_ + 1];                                                  \
        for (int64_t qb_ = (O).brp[k_]; qb_ < qb1_; qb_++) {                                   \
            const int32_t j = (O).bcol[qb_];                                                   \
            const double pr = rnd((O).fp32, a_ * b_val((O), qb_));                             \
            __VA_ARGS__                                                                        \
        }                                                                                      \
    }

/* The first SPX_GUS_PREFETCH_MAX_K entries of A's row i: [*q0, return). */
static inline int64_t prefetch_span(gus_ops O, int32_t i, int64_t *q0)
{
    *q0 = O.arp[i];
    const int64_t q1 = O.arp[i + 1];
    return q1 - *q0 > SPX_GUS_PREFETCH_MAX_K ? *q0 + SPX_GUS_PREFETCH_MAX_K : q1;
}

/* Called before row i of a run of rows ending at `end`: prefetches B's row pointers for row
 * i + 2D and, through the pointers prefetched a distance ago, the first and last line of each
 * B row of row i + D (its columns, and its values when `values`); D = SPX_GUS_PREFETCH_ROWS.
 * Always inlined: GCC finds a function that only prefetches free of side effects and drops
 * its calls (gcc 12, -O1 and above). */
static inline __attribute__((always_inline)) void prefetch_ahead(gus_ops O, int32_t i, int32_t end, int values)
{
    const int64_t near = (int64_t)i + SPX_GUS_PREFETCH_ROWS, far = near + SPX_GUS_PREFETCH_ROWS;
    int64_t q, q1;
    if (far < end)
        for (q1 = prefetch_span(O, (int32_t)far, &q); q < q1; q++) __builtin_prefetch(&O.brp[O.acol[q]]);
    if (near < end)
        for (q1 = prefetch_span(O, (int32_t)near, &q); q < q1; q++) {
            const int32_t k = O.acol[q];
            const int64_t b0 = O.brp[k], b1 = O.brp[k + 1] - 1 > b0 ? O.brp[k + 1] - 1 : b0; /* first, last */
            __builtin_prefetch(&O.bcol[b0]);
            __builtin_prefetch(&O.bcol[b1]);
            if (values) {
                __builtin_prefetch(O.fp32 ? (const void *)&O.b32[b0] : (const void *)&O.bval[b0]);
                __builtin_prefetch(O.fp32 ? (const void *)&O.b32[b1] : (const void *)&O.bval[b1]);
            }
        }
}

/* Rounds A's and B's values to float copies (fp32 plans). */
static void round_values(gus_state *S)
{
    for (int64_t q = 0; q < S->A->nnz; q++) S->a32[q] = (float)S->A->val[q];
    for (int64_t q = 0; q < S->B->nnz; q++) S->b32[q] = (float)S->B->val[q];
}

/* A's entries in rows [r0, r1) whose B row lies over SPX_GUS_PREFETCH_NEAR_ROWS rows from
 * the row's own place in B (row i of m at B row i * k / m): the rows a pass would wait on. */
static int64_t far_entries(const gus_state *S, int32_t r0, int32_t r1)
{
    const spx_csr *A = S->A;
    const double scale = A->m ? (double)A->n / A->m : 0.0;
    int64_t far = 0;
    for (int32_t i = r0; i < r1; i++) {
        const double own = (double)i * scale;
        for (int64_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
            const double d = (double)A->colind[q] - own;
            far += d > SPX_GUS_PREFETCH_NEAR_ROWS || d < -SPX_GUS_PREFETCH_NEAR_ROWS;
        }
    }
    return far;
}

/* The larger of `stamps` and the widest span with which row i (of products p) may take the
 * span accumulator: span <= SPX_GUS_SPAN_PER_KEY * min(p, span) bounds it by p times that,
 * and `widest` (n, at most SPX_GUS_SPAN_MAX_COLS) bounds every span; known without reading
 * B (poisson3d n=100: 49 * 4096 columns instead of n = 10^6, 0.8 MB of stamps a thread). */
static int64_t max_span_stamps(const gus_state *S, int32_t i, int64_t widest, int64_t stamps)
{
    const int64_t p = S->prod[i + 1] - S->prod[i];
    const int64_t w = p < widest / SPX_GUS_SPAN_PER_KEY + 1 ? p * SPX_GUS_SPAN_PER_KEY : widest;
    const int64_t span = w < widest ? w : widest;
    return span > stamps ? span : stamps;
}

/* Per-row products and their prefix, the chunks, each chunk's symbolic workspace, and whether
 * to prefetch B's rows. */
static void count_products(gus_state *S)
{
    const int32_t m = S->A->m;
    const int64_t n = S->B->n, widest = n < SPX_GUS_SPAN_MAX_COLS ? n : SPX_GUS_SPAN_MAX_COLS;
    spx_spgemm_row_products(S->A, S->B, S->prod + 1, S->threads);
    S->prod[0] = 0;
    for (int32_t i = 0; i < m; i++) S->prod[i + 1] += S->prod[i];
    split_rows(S);
#pragma omp parallel for schedule(static) num_threads(S->threads)
    for (int t = 0; t < S->chunks; t++) {
        gus_chunk c = {0, 0, 0, 0, 0, far_entries(S, S->bounds[t], S->bounds[t + 1])};
        for (int32_t i = S->bounds[t]; i < S->bounds[t + 1]; i++) {
            if (S->A->rowptr[i + 1] - S->A->rowptr[i] > 1 && S->prod[i + 1] > S->prod[i])
                c.stamps = max_span_stamps(S, i, widest, c.stamps);
            if (may_hash(S, i) && hash_slots(row_bound(S, i)) > c.hash_sym) c.hash_sym = hash_slots(row_bound(S, i));
        }
        S->chunk[t] = c;
    }
    int64_t far = 0;
    for (int t = 0; t < S->chunks; t++) far += S->chunk[t].far;
    S->prefetch = far * SPX_GUS_PREFETCH_FAR_SHARE > S->A->nnz;
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
    S->threads = spx_ctx_threads(ctx);
    S->chunks = S->threads * SPX_GUS_CHUNKS_PER_THREAD;
    S->prod = spx_malloc_array(ctx, (size_t)in->A->m + 1, sizeof *S->prod);
    S->kind = spx_malloc_array(ctx, (size_t)in->A->m + 1, sizeof *S->kind);
    S->crow = spx_calloc_array(ctx, (size_t)in->A->m + 1, sizeof *S->crow);
    S->bounds = spx_malloc_array(ctx, (size_t)S->chunks + 1, sizeof *S->bounds);
    S->chunk = spx_calloc_array(ctx, (size_t)S->chunks, sizeof *S->chunk);
    if (S->fp32) {
        S->a32 = spx_malloc_array(ctx, (size_t)in->A->nnz, sizeof *S->a32);
        S->b32 = spx_malloc_array(ctx, (size_t)in->B->nnz, sizeof *S->b32);
    }
    if (!S->prod || !S->kind || !S->crow || !S->bounds || !S->chunk || (S->fp32 && (!S->a32 || !S->b32))) {
        gus_destroy(ctx, S);
        return spx_fail_nomem(ctx, "spgemm gustavson analysis");
    }
    if (S->fp32) round_values(S);
    count_products(S);
    snprintf(S->kernel, sizeof S->kernel, "gustavson_cpu_%s%s", S->fp32 ? "fp32" : "fp64",
             S->prefetch ? "+prefetch" : "");
    spx_phase_add(log, "analyse", spx_now() - t0);
    *products = S->prod[in->A->m];
    *state = S;
    return SPX_OK;
}

/* Frees `chunks` accumulators (ws_alloc's). */
static void ws_free(spx_ctx *ctx, gus_ws *ws, int chunks)
{
    for (int t = 0; ws && t < chunks; t++) {
        spx_free(ctx, ws[t].keys);
        spx_free(ctx, ws[t].hvals);
        spx_free(ctx, ws[t].stamp);
        spx_free(ctx, ws[t].flag);
        spx_free(ctx, ws[t].block);
        spx_free(ctx, ws[t].sval);
        for (int r = 0; r < 2; r++) {
            spx_free(ctx, ws[t].mcol[r]);
            spx_free(ctx, ws[t].mval[r]);
        }
    }
    spx_free(ctx, ws);
}

/* Whole groups of 8 blocks of 64 flags a span of `cols` offsets pads its flags to (for the
 * eight-byte scans). */
static int64_t span_padded(int64_t cols) { return (cols + 511) / 512 * 512; }

/* Allocates one accumulator's span part of `cols` offsets (stamps in symbolic; flags,
 * block flags and values in numeric), left for ws_init to set; 0 on an allocation failure. */
static int span_alloc(spx_ctx *ctx, gus_ws *w, int64_t cols, int numeric)
{
    w->cols = cols;
    if (!numeric) return (w->stamp = spx_malloc_array(ctx, (size_t)cols, sizeof *w->stamp)) != NULL;
    const int64_t padded = span_padded(cols);
    return (w->flag = spx_malloc_array(ctx, (size_t)padded, 1)) != NULL &&
           (w->block = spx_malloc_array(ctx, (size_t)padded / 64, 1)) != NULL &&
           (w->sval = spx_malloc_array(ctx, (size_t)cols, sizeof *w->sval)) != NULL;
}

/* Allocates one accumulator's two tree-merge runs of `entries` entries; 0 on an allocation failure. */
static int merge_alloc(spx_ctx *ctx, gus_ws *w, int64_t entries)
{
    w->merge = entries;
    for (int r = 0; r < 2; r++)
        if (!(w->mcol[r] = spx_malloc_array(ctx, (size_t)entries, sizeof *w->mcol[r])) ||
            !(w->mval[r] = spx_malloc_array(ctx, (size_t)entries, sizeof *w->mval[r])))
            return 0;
    return 1;
}

/* Sets one accumulator to its empty state: hash keys and stamps at -1, flags at 0,
 * values at -0.0. Called by the thread that uses them, inside the parallel region: done
 * serially, 16 threads' n-wide stamps (64 MB at n = 1M) made the plan scale 2x on 16 cores. */
static void ws_init(gus_ws *w)
{
    if (w->keys) memset(w->keys, 0xff, (size_t)w->slots * sizeof *w->keys);
    if (w->stamp) memset(w->stamp, 0xff, (size_t)w->cols * sizeof *w->stamp);
    if (w->flag) {
        memset(w->flag, 0, (size_t)span_padded(w->cols));
        memset(w->block, 0, (size_t)span_padded(w->cols) / 64);
        for (int64_t o = 0; o < w->cols; o++) w->sval[o] = -0.0;
    }
}

/* Allocates `count` accumulators (serially, before the parallel region; each thread then sets
 * its own with ws_init), the t-th sized by size[t * stride] (stride 0: all by size[0]);
 * values only for the numeric pass. */
static spx_status ws_alloc(spx_ctx *ctx, const gus_state *S, int numeric, int count, const gus_chunk *size, int stride,
                           gus_ws **out)
{
    gus_ws *ws = spx_calloc_array(ctx, (size_t)count, sizeof *ws);
    int ok = ws != NULL;
    for (int t = 0; ok && t < count; t++) {
        const gus_chunk *c = &size[t * stride];
        const int64_t slots = numeric ? c->hash_num : c->hash_sym;
        if (slots) {
            ws[t].slots = slots;
            ok = (ws[t].keys = spx_malloc_array(ctx, (size_t)slots, sizeof(int32_t))) != NULL &&
                 (!numeric || (ws[t].hvals = spx_malloc_array(ctx, (size_t)slots, sizeof(double))) != NULL);
        }
        const int64_t span = numeric ? c->span : c->stamps;
        if (ok && span) ok = span_alloc(ctx, &ws[t], span, numeric);
        if (ok && numeric && c->merge) ok = merge_alloc(ctx, &ws[t], c->merge);
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
            uint32_t h = hash_col(j, mask);
            while (keys[h] != -1 && keys[h] != j) h = (h + 1) & mask;
            if (keys[h] == -1) keys[h] = j, count++;
        }
    }
    for (int64_t h = 0; h < slots; h++) keys[h] = -1;
    return count;
}

/* Distinct columns of C's row i through the span stamps, its columns counted from lo. */
static int64_t count_span(const gus_state *S, int32_t i, int32_t lo, int32_t *stamp)
{
    const spx_csr *A = S->A, *B = S->B;
    int64_t count = 0;
    for (int64_t qa = A->rowptr[i]; qa < A->rowptr[i + 1]; qa++) {
        const int32_t k = A->colind[qa];
        const int64_t qb1 = B->rowptr[k + 1];
        for (int64_t qb = B->rowptr[k]; qb < qb1; qb++) {
            const int32_t o = B->colind[qb] - lo;
            count += stamp[o] != i;
            stamp[o] = i;
        }
    }
    return count;
}

/* Row i's length in C; chooses its accumulator (kind[i]) and widens *span to its span if it
 * takes the span accumulator. */
static int64_t count_row(gus_state *S, int32_t i, const gus_ws *w, int64_t *span)
{
    int32_t lo;
    const int64_t sp = row_span(S, i, &lo);
    const int kind = choose_kind(S, i, sp);
    S->kind[i] = (uint8_t)kind;
    switch (kind) {
    case ROW_SINGLE: return S->prod[i + 1] - S->prod[i];
    case ROW_HASH: return count_hash(S, i, w->keys, hash_slots(row_bound(S, i)));
    case ROW_SPAN:
        if (sp > *span) *span = sp;
        return count_span(S, i, lo, w->stamp);
    default: return 0;
    }
}

/* Whether hash row i, of length len in C, is filled by a merge of its B rows: a short A row
 * whose products hold few repeated columns. */
static int takes_merge(const gus_state *S, int32_t i, int64_t len)
{
    return S->A->rowptr[i + 1] - S->A->rowptr[i] <= SPX_GUS_MERGE_MAX_K &&
           (double)(S->prod[i + 1] - S->prod[i]) < SPX_GUS_MERGE_MAX_COMPRESSION * (double)len;
}

/* Whether merge row i takes the tree merge (and so the owner's scratch runs). */
static int takes_tree(const gus_state *S, int32_t i) { return S->prod[i + 1] - S->prod[i] <= SPX_GUS_MERGE_TREE_MAX_PRODUCTS; }

/* Counts chunk t's rows into crow[i + 1] and sizes its numeric accumulators. */
static void count_chunk(gus_state *S, int t, const gus_ws *w)
{
    int64_t longest = 0, span = 0, merge = 0;
    const gus_ops O = ops_of(S);
    for (int32_t i = S->bounds[t]; i < S->bounds[t + 1]; i++) {
        if (S->prefetch) prefetch_ahead(O, i, S->bounds[t + 1], 0);
        const int64_t c = count_row(S, i, w, &span);
        S->crow[i + 1] = c;
        if (S->kind[i] != ROW_HASH) continue;
        if (!takes_merge(S, i, c)) {
            if (c > longest) longest = c;
        } else if (takes_tree(S, i) && S->prod[i + 1] - S->prod[i] > merge)
            merge = S->prod[i + 1] - S->prod[i];
    }
    S->chunk[t].hash_num = longest ? hash_slots(longest) : 0;
    S->chunk[t].span = span;
    S->chunk[t].merge = merge;
}

static void fill_rows(const gus_state *S, int32_t r0, int32_t r1, const gus_ws *w, int32_t *colind, double *val,
                      int64_t base);

/* The largest of each accumulator size over chunks [c0, c1): what an owner's accumulators
 * must hold (its SPX_GUS_CHUNKS_PER_THREAD consecutive chunks), or a row range's (all). */
static gus_chunk chunk_needs(const gus_state *S, int c0, int c1)
{
    gus_chunk n = {0, 0, 0, 0, 0, 0};
    for (int c = c0; c < c1; c++) {
        const gus_chunk *k = &S->chunk[c];
        n.hash_sym = k->hash_sym > n.hash_sym ? k->hash_sym : n.hash_sym;
        n.hash_num = k->hash_num > n.hash_num ? k->hash_num : n.hash_num;
        n.stamps = k->stamps > n.stamps ? k->stamps : n.stamps;
        n.span = k->span > n.span ? k->span : n.span;
        n.merge = k->merge > n.merge ? k->merge : n.merge;
    }
    return n;
}

/* Whether workspace w is large enough for chunk c's rows in the pass (numeric or symbolic). */
static int ws_fits(const gus_ws *w, const gus_chunk *c, int numeric)
{
    if (numeric) return c->hash_num <= w->slots && c->span <= w->cols && c->merge <= w->merge;
    return c->hash_sym <= w->slots && c->stamps <= w->cols;
}

/* Whether this call took chunk c (each chunk is taken once, by whoever asks first); a plain
 * atomic read first, so that a thread looking for work does not write every chunk's line. */
static int take_chunk(int *taken, int c)
{
    int was;
#pragma omp atomic read
    was = taken[c];
    if (was) return 0;
#pragma omp atomic capture
    {
        was = taken[c];
        taken[c] = 1;
    }
    return !was;
}

/* Chunk c's rows through the pass: counted (C NULL) or written into C. */
static void chunk_rows(gus_state *S, int c, const gus_ws *w, spx_csr *C)
{
    if (!C) count_chunk(S, c, w);
    else
        fill_rows(S, S->bounds[c], S->bounds[c + 1], w, C->colind, C->val, 0);
}

/* One pass over the chunks in parallel: symbolic (C NULL: the row counts) or numeric (C's
 * rows). Each of the context's threads owns SPX_GUS_CHUNKS_PER_THREAD consecutive chunks and
 * an accumulator sized for them; a thread done with its own takes the chunks not yet taken
 * whose rows its accumulator fits, last first (rows of very different costs: hub rows of
 * power-law graphs, or a core that runs slower, leave no thread waiting on one). Which thread
 * computes a row does not change it. An owner slot is taken like a chunk, so a team smaller
 * than asked still covers every chunk. */
static spx_status chunk_pass(spx_ctx *ctx, gus_state *S, spx_csr *C)
{
    const int owners = S->threads, numeric = C != NULL;
    gus_chunk *need = spx_calloc_array(ctx, (size_t)owners, sizeof *need);
    int *taken = spx_calloc_array(ctx, (size_t)S->chunks + (size_t)owners, sizeof *taken); /* chunks, then owners */
    gus_ws *ws = NULL;
    spx_status s = need && taken ? SPX_OK : spx_fail_nomem(ctx, "spgemm chunk schedule");
    for (int o = 0; !s && o < owners; o++)
        need[o] = chunk_needs(S, o * SPX_GUS_CHUNKS_PER_THREAD, (o + 1) * SPX_GUS_CHUNKS_PER_THREAD);
    if (!s) s = ws_alloc(ctx, S, numeric, owners, need, 1, &ws);
    if (!s) {
#pragma omp parallel num_threads(owners)
        {
            int last = -1;
            for (int o = 0; o < owners; o++) {
                if (!take_chunk(taken + S->chunks, o)) continue;
                ws_init(&ws[o]);
                last = o;
                for (int c = o * SPX_GUS_CHUNKS_PER_THREAD; c < (o + 1) * SPX_GUS_CHUNKS_PER_THREAD; c++)
                    if (take_chunk(taken, c)) chunk_rows(S, c, &ws[o], C);
            }
            for (int c = S->chunks - 1; last >= 0 && c >= 0; c--)
                if (ws_fits(&ws[last], &S->chunk[c], numeric) && take_chunk(taken, c)) chunk_rows(S, c, &ws[last], C);
        }
        ws_free(ctx, ws, owners);
    }
    spx_free(ctx, need);
    spx_free(ctx, taken);
    return s;
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

/* C's row i when A's row has one entry: B's row scaled (already sorted). */
static void fill_single(const gus_state *S, int32_t i, int32_t *oc, double *ov)
{
    const gus_ops O = ops_of(S);
    const int64_t qa = O.arp[i];
    const int32_t k = O.acol[qa];
    const double a = a_val(O, qa);
    for (int64_t qb = O.brp[k], t = 0; qb < O.brp[k + 1]; qb++, t++) {
        oc[t] = O.bcol[qb];
        ov[t] = rnd(O.fp32, a * b_val(O, qb));
    }
}

/* C's row i through a hash table of `slots` slots (left all -1), then sorted. */
static void fill_hash(const gus_state *S, int32_t i, const gus_ws *w, int64_t slots, int32_t *oc, double *ov)
{
    const uint32_t mask = (uint32_t)(slots - 1);
    int32_t *keys = w->keys;
    double *hv = w->hvals;
    const gus_ops O = ops_of(S);
    FOR_EACH_PRODUCT(O, i, j, pr, {
        uint32_t h = hash_col(j, mask);
        while (keys[h] != -1 && keys[h] != j) h = (h + 1) & mask;
        if (keys[h] == -1) keys[h] = j, hv[h] = pr;
        else hv[h] = rnd(O.fp32, hv[h] + pr);
    });
    int64_t c = 0;
    for (int64_t h = 0; h < slots; h++)
        if (keys[h] != -1) {
            oc[c] = keys[h], ov[c] = hv[h], c++;
            keys[h] = -1;
        }
    spx_sort_pairs(oc, ov, c);
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
    const gus_ops O = ops_of(S);
    const int64_t qa0 = A->rowptr[i];
    const int k = (int)(A->rowptr[i + 1] - qa0);
    gus_merge M;
    M.n = 0;
    for (int l = 0; l < k; l++) {
        const int32_t r = A->colind[qa0 + l];
        M.pos[l] = B->rowptr[r], M.end[l] = B->rowptr[r + 1], M.a[l] = a_val(O, qa0 + l);
        if (M.pos[l] < M.end[l]) M.heap[M.n++] = l;
    }
    for (int h = M.n / 2 - 1; h >= 0; h--) merge_sift(&M, B->colind, h);
    int64_t c = -1;
    while (M.n > 0) {
        const int l = M.heap[0];
        const int32_t j = B->colind[M.pos[l]];
        const double pr = rnd(O.fp32, M.a[l] * b_val(O, M.pos[l]));
        if (c >= 0 && oc[c] == j)
            ov[c] = rnd(O.fp32, ov[c] + pr);
        else
            oc[++c] = j, ov[c] = pr;
        if (++M.pos[l] == M.end[l]) M.heap[0] = M.heap[--M.n];
        merge_sift(&M, B->colind, 0);
    }
}

/* Merges the sorted runs x (nx entries) and y (ny) into o, x's entry first where columns
 * are equal; returns nx + ny. Each step's choice is a comparison used as an index step, so
 * columns in no order cost no mispredicted branches. */
static int64_t merge_two(const int32_t *xc, const double *xv, int64_t nx, const int32_t *yc, const double *yv,
                         int64_t ny, int32_t *oc, double *ov)
{
    int64_t a = 0, b = 0, t = 0;
    while (a < nx && b < ny) {
        const int32_t cx = xc[a], cy = yc[b];
        const int64_t takey = cy < cx;
        /* selects by masks, not `?:`, which gcc 12 compiles to a branch (mispredicted half
         * the time on columns in no order: 1.25x slower on uniform 1M x 8, 1 thread) */
        const uint64_t m = (uint64_t)0 - (uint64_t)takey;
        uint64_t vx, vy;
        memcpy(&vx, xv + a, sizeof vx); /* both in bounds: the values' bits selected like the columns */
        memcpy(&vy, yv + b, sizeof vy);
        vx ^= (vx ^ vy) & m;
        oc[t] = cx ^ ((cx ^ cy) & (int32_t)m);
        memcpy(ov + t, &vx, sizeof vx);
        t++, b += takey, a += 1 - takey;
    }
    for (; a < nx; a++, t++) oc[t] = xc[a], ov[t] = xv[a];
    for (; b < ny; b++, t++) oc[t] = yc[b], ov[t] = yv[b];
    return t;
}

/* C's row i by a tree of two-way merges: its B rows scaled into the first scratch run one
 * after another, merged pairwise (in A's row order, so equal columns stay in A's order)
 * between the two runs until one is left, whose equal columns are then summed in order into
 * C's row: the same sums as fill_hash's and fill_merge's. The row's products fit the runs. */
static void fill_tree(const gus_state *S, int32_t i, const gus_ws *w, int32_t *oc, double *ov)
{
    const gus_ops O = ops_of(S);
    int64_t start[SPX_GUS_MERGE_MAX_K + 1], t = 0;
    int runs = 0;
    for (int64_t qa = O.arp[i]; qa < O.arp[i + 1]; qa++) { /* the scaled B rows, each a sorted run */
        const int32_t k = O.acol[qa];
        const double a = a_val(O, qa);
        if (O.brp[k] == O.brp[k + 1]) continue;
        start[runs++] = t;
        for (int64_t qb = O.brp[k]; qb < O.brp[k + 1]; qb++, t++) {
            w->mcol[0][t] = O.bcol[qb];
            w->mval[0][t] = rnd(O.fp32, a * b_val(O, qb));
        }
    }
    start[runs] = t;
    int from = 0;
    for (; runs > 1; from = 1 - from) { /* one level: runs 2r and 2r + 1 into run r */
        const int32_t *fc = w->mcol[from];
        const double *fv = w->mval[from];
        int next = 0;
        for (int r = 0; r < runs; r += 2, next++) {
            const int64_t x0 = start[r], x1 = start[r + 1], y1 = r + 1 < runs ? start[r + 2] : x1;
            merge_two(fc + x0, fv + x0, x1 - x0, fc + x1, fv + x1, y1 - x1, w->mcol[1 - from] + x0,
                      w->mval[1 - from] + x0);
            start[next] = x0;
        }
        start[next] = t;
        runs = next;
    }
    const int32_t *mc = w->mcol[from];
    const double *mv = w->mval[from];
    int64_t c = -1;
    for (int64_t q = 0; q < t; q++) {
        if (c >= 0 && oc[c] == mc[q])
            ov[c] = rnd(O.fp32, ov[c] + mv[q]);
        else
            oc[++c] = mc[q], ov[c] = mv[q];
    }
}

/* Eight flag bytes from p as one word, the byte at p lowest. */
static inline uint64_t load8(const uint8_t *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    return x;
}

/* The 64 flags (bytes 0 or 0xff) from p as a mask, bit b for p[b]; the flags reset to 0. */
static inline uint64_t take_flags(uint8_t *p)
{
    uint64_t m = 0;
#if defined(__SSE2__) /* a byte's top bit per lane: 4 loads and 4 movemasks (x86-64's baseline) */
    for (int q = 0; q < 4; q++)
        m |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16 * q)))
             << (16 * q);
#else
    for (int q = 0; q < 8; q++) /* byte b's low bit lands on bit 56 + b: no two terms collide */
        m |= ((load8(p + 8 * q) & 0x0101010101010101ull) * 0x0102040810204080ull) >> 56 << (8 * q);
#endif
    memset(p, 0, 64);
    return m;
}

/* C's row i (columns in [lo, lo + span)) through the span accumulator, read out in column
 * order: the block flags eight at a time, then each flagged block's flags as a mask. */
static void fill_span(const gus_state *S, int32_t i, const gus_ws *w, int32_t lo, int64_t span, int32_t *oc,
                      double *ov)
{
    uint8_t *flag = w->flag, *block = w->block;
    double *sv = w->sval;
    const gus_ops O = ops_of(S);
    FOR_EACH_PRODUCT(O, i, j, pr, {
        const uint32_t o = (uint32_t)(j - lo);
        sv[o] = rnd(O.fp32, sv[o] + pr); /* the first product: -0.0 + pr == pr exactly */
        flag[o] = 0xff;
        block[o / 64] = 1;
    });
    int64_t c = 0;
    for (int64_t g = 0; g * 64 < span; g += 8) { /* eight blocks at a time */
        uint64_t x = load8(block + g);
        if (!x) continue;
        memset(block + g, 0, 8);
        for (; x; x &= x - 1) { /* each flagged block, in order (a byte 1 is its lowest bit) */
            const int64_t b0 = (g + __builtin_ctzll(x) / 8) * 64;
            for (uint64_t m = take_flags(flag + b0); m; m &= m - 1) {
                const int64_t o = b0 + __builtin_ctzll(m);
                oc[c] = lo + (int32_t)o, ov[c] = sv[o], c++;
                sv[o] = -0.0;
            }
        }
    }
}

/* Writes C's row i into its slice of colind and val, which hold C's entries from entry `base`
 * on (0: all of C). */
static void fill_row(const gus_state *S, int32_t i, const gus_ws *w, int32_t *colind, double *val, int64_t base)
{
    const int64_t at = S->crow[i], len = S->crow[i + 1] - at;
    int32_t *oc = colind + (at - base);
    double *ov = val + (at - base);
    int32_t lo;
    switch (S->kind[i]) {
    case ROW_SINGLE: fill_single(S, i, oc, ov); break;
    case ROW_HASH:
        if (takes_merge(S, i, len) && takes_tree(S, i))
            fill_tree(S, i, w, oc, ov);
        else if (takes_merge(S, i, len))
            fill_merge(S, i, oc, ov);
        else
            fill_hash(S, i, w, hash_slots(len), oc, ov);
        break;
    case ROW_SPAN: {
        const int64_t span = row_span(S, i, &lo);
        fill_span(S, i, w, lo, span, oc, ov);
        break;
    }
    default: break;
    }
}

/* Rows [r0, r1) of C through fill_row, B's rows prefetched ahead when the plan says so. */
static void fill_rows(const gus_state *S, int32_t r0, int32_t r1, const gus_ws *w, int32_t *colind, double *val,
                      int64_t base)
{
    const gus_ops O = ops_of(S);
    for (int32_t i = r0; i < r1; i++) {
        if (S->prefetch) prefetch_ahead(O, i, r1, 1);
        fill_row(S, i, w, colind, val, base);
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
    const gus_chunk most = chunk_needs(S, 0, S->chunks);
    int32_t *bounds = spx_malloc_array(ctx, (size_t)parts + 1, sizeof *bounds);
    gus_ws *ws = NULL;
    spx_status s = bounds ? ws_alloc(ctx, S, 1, parts, &most, 0, &ws) : spx_fail_nomem(ctx, "spgemm row-range split");
    if (!s) {
        split_range(S, r0, r1, parts, bounds);
        const int64_t base = S->crow[r0];
#pragma omp parallel for schedule(static, 1) num_threads(parts)
        for (int t = 0; t < parts; t++) {
            ws_init(&ws[t]);
            fill_rows(S, bounds[t], bounds[t + 1], &ws[t], colind, val, base);
        }
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
    spx_free(ctx, S->kind);
    spx_free(ctx, S->crow);
    spx_free(ctx, S->bounds);
    spx_free(ctx, S->chunk);
    spx_free(ctx, S);
}

static const char *gus_kernel(const void *state) { return state ? ((const gus_state *)state)->kernel : "none"; }

static const spx_spgemm_impl gustavson_impl = {
    "gustavson",
    "CPU Gustavson (OpenMP): rows split by products, span or hash accumulator per row; the oracle",
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
    NULL, /* numeric_dev */
};

const spx_spgemm_impl *spx_spgemm_gustavson(void) { return &gustavson_impl; }
