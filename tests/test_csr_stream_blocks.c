/* tests/test_csr_stream_blocks.c: the csr "stream" algorithm's host walk (csr_stream_blocks.c)
 * on generated and synthetic row pointers: the blocks cover every row once and in order, every
 * nonzero of a long row lies in exactly one chunk, the kernel's limits hold, the splits are
 * consistent, the output is the same on 1, 2 and 3 threads, and it equals an independent serial
 * walk (cut at every piece boundary; below one piece, the plain serial walk of before).
 * `test_csr_stream_blocks SPEC` also times the walk on SPEC with 1 and 2 threads. */
#include <stdbool.h>
#include <string.h>

#include "check.h"
#include "formats/csr/csr_cuda_tuning.h"
#include "formats/csr/csr_stream_blocks.h"
#include "matrices.h"

/* The kernel's three budgets (even rows, even rows of a small matrix, skewed rows), as
 * csr_cuda.cu passes them. */
static const spx_csr_stream_limits LIMITS[] = {
    {SPX_CSR_CUDA_STREAM_NNZ, SPX_CSR_CUDA_STREAM_CHUNK, SPX_CSR_CUDA_STREAM_MAX_ROWS},
    {SPX_CSR_CUDA_STREAM_NNZ_SMALL, SPX_CSR_CUDA_STREAM_CHUNK, SPX_CSR_CUDA_STREAM_MAX_ROWS},
    {SPX_CSR_CUDA_STREAM_NNZ_SKEWED, SPX_CSR_CUDA_STREAM_CHUNK, SPX_CSR_CUDA_STREAM_MAX_ROWS},
};
enum { N_LIMITS = sizeof LIMITS / sizeof LIMITS[0], MAX_THREADS = 3, TIMING_REPS = 5 };

/* ---- the reference: a serial walk written apart from the library's ------------------------ */

/* Growable output of the reference walk. */
typedef struct ref_out {
    spx_csr_stream_block *b;
    spx_csr_stream_split *s;
    int64_t nb, ns, np, cap_b, cap_s;
} ref_out;

/* Appends block {x, y, z, w}. */
static void ref_block(ref_out *o, int32_t x, int32_t y, int32_t z, int32_t w)
{
    if (o->nb == o->cap_b) {
        o->cap_b = o->cap_b ? 2 * o->cap_b : 64;
        o->b = realloc(o->b, (size_t)o->cap_b * sizeof *o->b);
    }
    o->b[o->nb++] = (spx_csr_stream_block){x, y, z, w};
}

/* Appends a split of `chunks` slots, from the next free slot. */
static void ref_split(ref_out *o, int32_t chunks)
{
    if (o->ns == o->cap_s) {
        o->cap_s = o->cap_s ? 2 * o->cap_s : 16;
        o->s = realloc(o->s, (size_t)o->cap_s * sizeof *o->s);
    }
    o->s[o->ns++] = (spx_csr_stream_split){(int32_t)o->np, chunks};
    o->np += chunks;
}

/* Row i alone: a block per lim.chunk nonzeros, a split when more than one. */
static void ref_long_row(ref_out *o, const int32_t *rp, int32_t i, const spx_csr_stream_limits *lim)
{
    int32_t n = 0;
    for (int64_t k = rp[i]; k < rp[i + 1]; k += lim->chunk) n++;
    const int32_t w = n > 1 ? (int32_t)o->ns : SPX_CSR_STREAM_LONG;
    for (int64_t k = rp[i]; k < rp[i + 1]; k += lim->chunk) ref_block(o, i, i + 1, (int32_t)k, w);
    if (n > 1) ref_split(o, n);
}

/* The greedy walk: the open block [lo, i) closes before row i when i is a multiple of cut, row
 * i is long, would overflow lim.nnz, or the block has lim.max_rows rows. */
static void ref_walk(const int32_t *rp, int32_t m, const spx_csr_stream_limits *lim, int32_t cut, ref_out *o)
{
    memset(o, 0, sizeof *o);
    int32_t lo = 0;
    int64_t nz = 0;
    for (int32_t i = 0; i <= m; i++) {
        const int64_t len = i < m ? rp[i + 1] - rp[i] : 0;
        const bool is_long = len > lim->nnz;
        const bool close = i == m || i % cut == 0 || is_long || nz + len > lim->nnz || i - lo == lim->max_rows;
        if (close && i > lo) ref_block(o, lo, i, 0, SPX_CSR_STREAM_ROWS);
        if (close) {
            lo = i;
            nz = 0;
        }
        if (i == m) break;
        if (is_long) {
            ref_long_row(o, rp, i, lim);
            lo = i + 1;
        } else {
            nz += len;
        }
    }
}

/* ---- checks ------------------------------------------------------------------------------- */

/* The chunks of long row x from block *j on: in order from rp[x], one slot each, a consistent
 * split; advances *j past them and *part past the slots. Returns whether all held. */
static bool check_long_row(const spx_csr_stream_plan *P, const int32_t *rp, const spx_csr_stream_limits *lim,
                           int64_t *j, int64_t *next_split, int64_t *part)
{
    const spx_csr_stream_block *B = P->blocks;
    const int32_t x = B[*j].x, w = B[*j].w, end = rp[x + 1];
    bool ok = end - rp[x] > lim->nnz;
    int32_t n = 0;
    for (int64_t k = rp[x]; k < end; k += lim->chunk, n++, (*j)++)
        ok = ok && *j < P->n_blocks && B[*j].x == x && B[*j].y == x + 1 && B[*j].z == k && B[*j].w == w;
    if (n == 1) return ok && w == SPX_CSR_STREAM_LONG;
    ok = ok && w == *next_split && w < P->n_splits && P->splits[w].x == *part && P->splits[w].y == n;
    (*next_split)++;
    *part += n;
    return ok;
}

/* P covers rows 0..m-1 once, in order, within lim; its splits are numbered in order with
 * contiguous slots, and the totals agree. */
static void check_plan(const spx_csr_stream_plan *P, const int32_t *rp, int32_t m, const spx_csr_stream_limits *lim,
                       const char *what)
{
    int64_t j = 0, next_split = 0, part = 0;
    int32_t row = 0;
    bool ok = true;
    while (ok && j < P->n_blocks) {
        const spx_csr_stream_block b = P->blocks[j];
        ok = b.x == row && b.y > b.x && b.y <= m;
        if (!ok) break;
        if (b.w == SPX_CSR_STREAM_ROWS) {
            ok = b.z == 0 && b.y - b.x <= lim->max_rows && rp[b.y] - rp[b.x] <= lim->nnz;
            j++;
        } else {
            ok = check_long_row(P, rp, lim, &j, &next_split, &part);
        }
        row = b.y;
    }
    CHECK_MSG(ok && row == m, "%s: block %lld breaks the cover or a limit (row %d of %d)", what, (long long)j, row, m);
    CHECK_MSG(next_split == P->n_splits && part == P->n_parts, "%s: %lld splits, %lld slots", what,
              (long long)P->n_splits, (long long)P->n_parts);
}

/* The first bytes of a and b agree (either may be NULL when bytes is 0). */
static bool same_bytes(const void *a, const void *b, size_t bytes) { return !bytes || !memcmp(a, b, bytes); }

/* a and b hold the same blocks and splits. */
static bool same_plan(const spx_csr_stream_plan *a, const spx_csr_stream_plan *b)
{
    return a->n_blocks == b->n_blocks && a->n_splits == b->n_splits && a->n_parts == b->n_parts &&
           same_bytes(a->blocks, b->blocks, (size_t)a->n_blocks * sizeof *a->blocks) &&
           same_bytes(a->splits, b->splits, (size_t)a->n_splits * sizeof *a->splits);
}

/* P equals the reference walk cut every `cut` rows. */
static bool same_as_ref(const spx_csr_stream_plan *P, const int32_t *rp, int32_t m, const spx_csr_stream_limits *lim,
                        int32_t cut)
{
    ref_out r;
    ref_walk(rp, m, lim, cut, &r);
    spx_csr_stream_plan R = {r.b, r.s, r.nb, r.ns, r.np};
    const bool same = same_plan(P, &R);
    free(r.b);
    free(r.s);
    return same;
}

/* Every check on the row pointers rp of m rows, with both budgets, on ctxs[t] (t + 1 threads). */
static void check_rowptr(spx_ctx *const *ctxs, const int32_t *rp, int32_t m, const char *what)
{
    for (int l = 0; l < N_LIMITS; l++) {
        spx_csr_stream_plan P[MAX_THREADS];
        for (int t = 0; t < MAX_THREADS; t++)
            CHECK_OK(ctxs[t], spx_csr_stream_blocks(ctxs[t], rp, m, &LIMITS[l], &P[t]));
        check_plan(&P[0], rp, m, &LIMITS[l], what);
        for (int t = 1; t < MAX_THREADS; t++)
            CHECK_MSG(same_plan(&P[0], &P[t]), "%s: %d threads differ from 1", what, t + 1);
        CHECK_MSG(same_as_ref(&P[0], rp, m, &LIMITS[l], SPX_CSR_STREAM_PIECE_ROWS), "%s: differs from the reference",
                  what);
        if (m < SPX_CSR_STREAM_PIECE_ROWS) /* one piece: the uncut serial walk, exactly */
            CHECK_MSG(same_as_ref(&P[0], rp, m, &LIMITS[l], INT32_MAX), "%s: differs from the serial walk", what);
        for (int t = 0; t < MAX_THREADS; t++) spx_csr_stream_plan_free(ctxs[t], &P[t]);
    }
}

/* A's row pointers as int32 (the csr layout's); NULL when out of memory. */
static int32_t *rowptr32(const spx_csr *A)
{
    int32_t *rp = malloc(((size_t)A->m + 1) * sizeof *rp);
    for (int64_t i = 0; rp && i <= A->m; i++) rp[i] = (int32_t)A->rowptr[i];
    return rp;
}

/* The checks on a CSR; takes A. */
static void check_csr(spx_ctx *const *ctxs, spx_csr *A, const char *what)
{
    CHECK_MSG(A != NULL, "%s: not made", what);
    if (!A) return;
    int32_t *rp = rowptr32(A);
    if (rp) check_rowptr(ctxs, rp, (int32_t)A->m, what);
    free(rp);
    spx_csr_destroy(&A);
}

/* Generated matrices: a piece and below, more than a piece, long rows, empty rows. */
static void test_generated(spx_ctx *const *ctxs)
{
    static const char *const specs[] = {
        "gen:poisson3d:n=30",     "gen:poisson3d:n=70", /* 4 pieces (walked by one thread); 42 */
        "gen:rmat:scale=14,ef=8", "gen:rmat:scale=19,ef=8",
        "gen:powerlaw:m=300000,k=8,alpha=1.8", /* rows up to 300k nonzeros */
        "gen:powerlaw:m=20000,k=16,alpha=1.5",
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        spx_csr *A = NULL;
        CHECK_OK(ctxs[0], spx_gen(ctxs[0], specs[i], &A));
        check_csr(ctxs, A, specs[i]);
    }
    check_csr(ctxs, tm_make(ctxs[0], 3000, 50, tm_len_alt_empty, 7), "every third row empty");
    check_csr(ctxs, tm_make(ctxs[0], 3, 100000, tm_len_dense_row, 9), "one dense row of 100k");
    check_rowptr(ctxs, (const int32_t[]){0}, 0, "m = 0");
}

/* Row i's length in the synthetic matrix: mostly short, runs of empty rows, long rows (one
 * chunk, several chunks, exactly a chunk, the budget plus one) around the piece boundaries. */
static int32_t synth_len(int64_t i)
{
    const int64_t P = SPX_CSR_STREAM_PIECE_ROWS, d = i % P;
    if (d == 0 || d == P - 1) return 3 * SPX_CSR_CUDA_STREAM_CHUNK + 5; /* split rows on both sides of a cut */
    if (d == 1) return SPX_CSR_CUDA_STREAM_CHUNK;                         /* exactly one chunk */
    if (d == 2) return SPX_CSR_CUDA_STREAM_NNZ + 1;                      /* just long */
    if (d >= P - 5000 || d < 4000) return 0;                             /* empty across a cut */
    if (i % 40009 == 0) return 20000;
    return (int32_t)((uint64_t)(i * 2654435761u) % 23);
}

/* Synthetic row pointers over three and a bit pieces (no columns needed: the walk reads only
 * row pointers). */
static void test_synthetic(spx_ctx *const *ctxs)
{
    const int32_t m = 3 * SPX_CSR_STREAM_PIECE_ROWS + 1234;
    int32_t *rp = malloc(((size_t)m + 1) * sizeof *rp);
    CHECK(rp != NULL);
    if (!rp) return;
    rp[0] = 0;
    for (int32_t i = 0; i < m; i++) rp[i + 1] = rp[i] + synth_len(i);
    check_rowptr(ctxs, rp, m, "synthetic, 4 pieces");
    check_rowptr(ctxs, rp, SPX_CSR_STREAM_PIECE_ROWS, "synthetic, one whole piece");
    check_rowptr(ctxs, rp, SPX_CSR_STREAM_PIECE_ROWS + 1, "synthetic, a piece and a row");
    free(rp);
}

/* Bad arguments fail with SPX_ERR_ARG. */
static void test_bad_args(spx_ctx *ctx)
{
    spx_csr_stream_plan P;
    const spx_csr_stream_limits zero = {0, 1, 1};
    CHECK(spx_csr_stream_blocks(ctx, NULL, 5, &LIMITS[0], &P) == SPX_ERR_ARG);
    CHECK(spx_csr_stream_blocks(ctx, (const int32_t[]){0, 0}, 1, &zero, &P) == SPX_ERR_ARG);
    CHECK(spx_csr_stream_blocks(ctx, (const int32_t[]){0}, -1, &LIMITS[0], &P) == SPX_ERR_ARG);
}

/* Best of TIMING_REPS walks of spec's row pointers (even-row budget) on each context, in ms. */
static void time_walk(spx_ctx *const *ctxs, int n_ctx, const char *spec)
{
    spx_csr *A = NULL;
    CHECK_OK(ctxs[0], spx_gen(ctxs[0], spec, &A));
    int32_t *rp = A ? rowptr32(A) : NULL;
    for (int t = 0; rp && t < n_ctx; t++) {
        double best = 1e30;
        int64_t nb = 0;
        for (int r = 0; r < TIMING_REPS; r++) {
            spx_csr_stream_plan P;
            const double t0 = spx_now();
            CHECK_OK(ctxs[t], spx_csr_stream_blocks(ctxs[t], rp, (int32_t)A->m, &LIMITS[0], &P));
            const double dt = spx_now() - t0;
            best = dt < best ? dt : best;
            nb = P.n_blocks;
            spx_csr_stream_plan_free(ctxs[t], &P);
        }
        printf("%s: %lld rows, %lld blocks, %d thread(s): %.2f ms\n", spec, (long long)A->m, (long long)nb, t + 1,
               best * 1e3);
    }
    free(rp);
    spx_csr_destroy(&A);
}

int main(int argc, char **argv)
{
    spx_ctx *ctxs[MAX_THREADS] = {NULL};
    for (int t = 0; t < MAX_THREADS; t++) {
        spx_ctx_opts co = {.backend = SPX_BACKEND_CPU, .threads = t + 1};
        if (spx_ctx_create(&ctxs[t], &co)) return 1;
    }
    if (argc > 1) {
        time_walk(ctxs, 2, argv[1]);
    } else {
        test_generated(ctxs);
        test_synthetic(ctxs);
        test_bad_args(ctxs[0]);
    }
    for (int t = 0; t < MAX_THREADS; t++) spx_ctx_destroy(&ctxs[t]);
    return check_report();
}
