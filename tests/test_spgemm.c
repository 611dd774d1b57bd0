/* tests/test_spgemm.c: the CPU SpGEMM (Gustavson, the oracle): hand-checked 5x5 products,
 * the edge cases (0x0, empty rows and columns, a dense row, a dense column, rectangular
 * operands, A*A^T, products without nonzeros), generated matrices against an independent
 * dense reference in fp64 and fp32 and on 1, 2, 3 and 7 threads, the row paths only large
 * operands reach (prefetching, the heap merge), the tree merge's sums in A's order bit for
 * bit, chunks of different accumulator sizes taken by other threads, value updates without
 * re-analysis,
 * the argument errors (inner dimensions, unsorted rows, unknown or unbuilt methods), a
 * host-budget refusal of C and allocation-failure injection on plan creation and run; the
 * SpGEMM measurement (spx_bench_spgemm); B^T for A*B^T on 1..3 threads. */
#include <stdlib.h>
#include <string.h>

#include "core/ctx.h" /* spx_free */
#include "fail_alloc.h"
#include "spgemm/spgemm_internal.h" /* spx_spgemm_transpose */
#include "spgemm_check.h"

static const spx_precision precisions[] = {SPX_FP64, SPX_FP32};

/* C equals the literal CSR exactly (small integers: every sum is exact). */
static int equals_lit(const spx_csr *C, int32_t m, int32_t n, const int64_t *rp, const int32_t *ci, const double *v)
{
    if (!C || C->m != m || C->n != n || C->nnz != rp[m]) return 0;
    for (int32_t i = 0; i <= m; i++)
        if (C->rowptr[i] != rp[i]) return 0;
    for (int64_t q = 0; q < rp[m]; q++)
        if (C->colind[q] != ci[q] || C->val[q] != v[q]) return 0;
    return 1;
}

/* Runs one product on the CPU; NULL on failure (reported). */
static spx_csr *product(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, int transpose_b, spx_precision p)
{
    spx_spgemm_opts o = {.backend = SPX_BACKEND_CPU, .precision = p, .transpose_b = transpose_b};
    spx_spgemm_plan *plan = NULL;
    spx_csr *C = NULL;
    CHECK_OK(ctx, spx_spgemm_plan_create(ctx, A, B, &o, &plan));
    if (plan) CHECK_OK(ctx, spx_spgemm_run(plan, &C));
    spx_spgemm_plan_destroy(&plan);
    return C;
}

/*     A = [1 . 2 . .]   B = [. 1 . . 2]   A*B = [. 1 8 . 2]   A*A^T = [ 5 . . 14  .]
 *         [. 3 . . .]       [3 . . . .]         [9 . . . .]           [ . 9 .  .  .]
 *         [. . . . .]       [. . 4 . .]         [. . . . .]           [ . . .  .  .]
 *         [4 . 5 6 .]       [. . . 5 .]         [. 4 20 30 8]         [14 . . 77  .]
 *         [. . . . 7]       [1 . . . 1]         [7 . . . 7]           [ . . .  . 49] */
static void test_hand_checked(spx_ctx *ctx)
{
    static const int64_t arp[] = {0, 2, 3, 3, 6, 7};
    static const int32_t aci[] = {0, 2, 1, 0, 2, 3, 4};
    static const double av[] = {1, 2, 3, 4, 5, 6, 7};
    static const int64_t brp[] = {0, 2, 3, 4, 5, 7};
    static const int32_t bci[] = {1, 4, 0, 2, 3, 0, 4};
    static const double bv[] = {1, 2, 3, 4, 5, 1, 1};
    static const int64_t crp[] = {0, 3, 4, 4, 8, 10};
    static const int32_t cci[] = {1, 2, 4, 0, 1, 2, 3, 4, 0, 4};
    static const double cv[] = {1, 8, 2, 9, 4, 20, 30, 8, 7, 7};
    static const int64_t trp[] = {0, 2, 3, 3, 5, 6};
    static const int32_t tci[] = {0, 3, 1, 0, 3, 4};
    static const double tv[] = {5, 14, 9, 14, 77, 49};
    spx_csr *A = tm_csr_literal(ctx, 5, 5, arp, aci, av), *B = tm_csr_literal(ctx, 5, 5, brp, bci, bv);
    for (int p = 0; p < 2; p++) {
        spx_csr *C = product(ctx, A, B, 0, precisions[p]);
        CHECK_MSG(equals_lit(C, 5, 5, crp, cci, cv), "5x5 A*B %s", spx_precision_str(precisions[p]));
        spx_csr_destroy(&C);
        C = product(ctx, A, A, 1, precisions[p]);
        CHECK_MSG(equals_lit(C, 5, 5, trp, tci, tv), "5x5 A*A^T %s", spx_precision_str(precisions[p]));
        spx_csr_destroy(&C);
    }
    spx_csr_destroy(&A);
    spx_csr_destroy(&B);
}

/* A product whose terms cancel keeps the entry (structure is symbolic); one with no
 * products at all has no entries: A uses only column 0, and B's row 0 is empty. */
static void test_cancellation_and_empty_product(spx_ctx *ctx)
{
    static const int64_t arp[] = {0, 2};
    static const int32_t aci[] = {0, 1};
    static const double av[] = {1, 1};
    static const int64_t brp[] = {0, 1, 2};
    static const int32_t bci[] = {0, 0};
    static const double bv[] = {1, -1};
    static const int64_t crp[] = {0, 1};
    static const int32_t cci[] = {0};
    static const double cv[] = {0};
    spx_csr *A = tm_csr_literal(ctx, 1, 2, arp, aci, av), *B = tm_csr_literal(ctx, 2, 1, brp, bci, bv);
    spx_csr *C = product(ctx, A, B, 0, SPX_FP64);
    CHECK_MSG(equals_lit(C, 1, 1, crp, cci, cv), "cancellation keeps the entry");
    spx_csr_destroy(&C);
    spx_csr_destroy(&A);
    spx_csr_destroy(&B);

    static const int64_t erp[] = {0, 1, 2, 2};
    static const int32_t eci[] = {0, 0};
    static const double ev[] = {2, 3};
    static const int64_t frp[] = {0, 0, 2, 3};
    static const int32_t fci[] = {1, 2, 0};
    static const double fv[] = {1, 1, 1};
    static const int64_t zrp[] = {0, 0, 0, 0};
    A = tm_csr_literal(ctx, 3, 3, erp, eci, ev);
    B = tm_csr_literal(ctx, 3, 3, frp, fci, fv);
    C = product(ctx, A, B, 0, SPX_FP64);
    CHECK_MSG(equals_lit(C, 3, 3, zrp, NULL, NULL), "a product with no nonzeros");
    spx_spgemm_plan *plan = NULL;
    spx_spgemm_opts o = {.backend = SPX_BACKEND_CPU};
    CHECK_OK(ctx, spx_spgemm_plan_create(ctx, A, B, &o, &plan));
    spx_spgemm_info info;
    if (plan && !spx_spgemm_plan_get_info(plan, &info))
        CHECK(info.nnz_c == 0 && info.products == 0 && info.compression == 0.0);
    spx_spgemm_plan_destroy(&plan);
    spx_csr_destroy(&C);
    spx_csr_destroy(&A);
    spx_csr_destroy(&B);
}

/* Every column of A holds an entry in column 0 (a dense column) plus a few others. */
static spx_csr *dense_column(spx_ctx *ctx, int32_t m, int32_t n)
{
    spx_csr *R = tm_make(ctx, m, n - 1, tm_len_const8, 41), *A = NULL;
    if (!R || spx_csr_alloc(ctx, m, n, R->nnz + m, &A)) {
        spx_csr_destroy(&R);
        return NULL;
    }
    int64_t k = 0;
    for (int32_t i = 0; i < m; i++) {
        A->colind[k] = 0, A->val[k++] = 0.5 + i % 7;
        for (int64_t q = R->rowptr[i]; q < R->rowptr[i + 1]; q++) A->colind[k] = R->colind[q] + 1, A->val[k++] = R->val[q];
        A->rowptr[i + 1] = k;
    }
    spx_csr_destroy(&R);
    return A;
}

static void check_all(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, int transpose_b, const char *what)
{
    for (int p = 0; p < 2; p++) sc_check(ctx, A, B, transpose_b, SPX_BACKEND_CPU, NULL, NULL, precisions[p], what);
}

static void test_edge_cases(spx_ctx *ctx)
{
    for (int c = 0; c < SC_N_CASES; c++) {
        spx_csr *A = NULL, *B = NULL;
        CHECK_MSG(sc_case_make(ctx, c, &A, &B), "%s: build", sc_cases[c].name);
        if (A && B) {
            check_all(ctx, A, B, 0, sc_cases[c].name);
            check_all(ctx, A, A, 1, sc_cases[c].name); /* A*A^T */
        }
        spx_csr_destroy(&A);
        spx_csr_destroy(&B);
    }
    spx_csr *D = dense_column(ctx, 400, 600), *B = tm_make(ctx, 600, 500, tm_len_const8, 5);
    CHECK(D && B);
    if (D && B) {
        check_all(ctx, D, B, 0, "dense column");
        check_all(ctx, D, D, 1, "dense column, A*A^T");
    }
    spx_csr_destroy(&D);
    spx_csr_destroy(&B);
}

static void test_generated(spx_ctx *ctx)
{
    static const char *specs[] = {
        "gen:poisson2d:n=20", "gen:poisson2d:n=40", "gen:rmat:scale=9,ef=4", "gen:rmat:scale=8,ef=8,sym=1",
        "gen:uniform:m=1000,k=8", "gen:uniform:m=3000,k=4", "gen:powerlaw:m=1500,k=5",
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        spx_csr *A = NULL;
        spx_status s = spx_gen(ctx, specs[i], &A);
        CHECK_MSG(s == SPX_OK, "%s: %s", specs[i], spx_ctx_last_error(ctx));
        if (!s) {
            check_all(ctx, A, A, 0, specs[i]);
            check_all(ctx, A, A, 1, specs[i]);
        }
        spx_csr_destroy(&A);
    }
}

static int64_t len_5000(int32_t i, int32_t m, int32_t n) { (void)i; (void)m; (void)n; return 5000; }

/* The kernel's name of the CPU plan of A*B, "" on failure (reported). */
static void kernel_of(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, char *out, size_t size)
{
    spx_spgemm_opts o = {.backend = SPX_BACKEND_CPU};
    spx_spgemm_plan *plan = NULL;
    spx_spgemm_info info;
    out[0] = '\0';
    CHECK_OK(ctx, spx_spgemm_plan_create(ctx, A, B, &o, &plan));
    if (plan && !spx_spgemm_plan_get_info(plan, &info)) snprintf(out, size, "%s", info.kernel);
    spx_spgemm_plan_destroy(&plan);
}

/* The row paths that only large operands reach: a wide A over a tall B, whose rows are far
 * from A's rows' own places in B, takes the prefetching passes (the kernel says so; near
 * rows, a 2D stencil, do not); short A rows (16 entries) over long B rows of mostly distinct
 * columns spread over 5M (wider than SPX_GUS_SPAN_MAX_COLS: the hash kind; 80000 products a
 * row, past the tree merge's SPX_GUS_MERGE_TREE_MAX_PRODUCTS) take the heap merge. Each
 * against the dense reference, fp64 and fp32, on 1 and 3 threads. */
static void test_large_row_paths(void)
{
    for (int t = 1; t <= 3; t += 2) {
        spx_ctx *ctx = NULL;
        spx_ctx_opts co = {.backend = SPX_BACKEND_CPU, .threads = t};
        if (spx_ctx_create(&ctx, &co)) continue;
        spx_csr *W = tm_make(ctx, 300, 150000, tm_len_const8, 17), *T = tm_make(ctx, 150000, 300, tm_len_const8, 18);
        spx_csr *S = tm_make(ctx, 4, 16, tm_len_around32, 19), *L = tm_make(ctx, 16, 5000000, len_5000, 20);
        spx_csr *P = NULL;
        CHECK(W && T && S && L && !spx_gen(ctx, "gen:poisson2d:n=30", &P));
        char kernel[64];
        if (W && T) {
            kernel_of(ctx, W, T, kernel, sizeof kernel);
            CHECK_MSG(strstr(kernel, "+prefetch") != NULL, "wide A over tall B: kernel %s", kernel);
            check_all(ctx, W, T, 0, "wide A over tall B (prefetching)");
        }
        if (P) {
            kernel_of(ctx, P, P, kernel, sizeof kernel);
            CHECK_MSG(strstr(kernel, "+prefetch") == NULL, "poisson2d: kernel %s", kernel);
        }
        if (S && L) check_all(ctx, S, L, 0, "short A rows over long B rows (heap merge)");
        spx_csr_destroy(&W);
        spx_csr_destroy(&T);
        spx_csr_destroy(&S);
        spx_csr_destroy(&L);
        spx_csr_destroy(&P);
        spx_ctx_destroy(&ctx);
    }
}

/* A merge row's equal columns are summed in A's row order, bit for bit: C = A*B with A one row
 * of 3 entries over B rows of 4 entries spread over 2M columns (the hash kind, products over
 * 1.2x C's length: the tree merge, its last level merging two runs with the third run copied).
 * Column 5 gets (1 + 1e16) + -1e16 = 0 in A's order, and 1 in any other. */
static void test_merge_sum_order(spx_ctx *ctx)
{
    static const int64_t arp[] = {0, 3};
    static const int32_t aci[] = {0, 1, 2};
    static const double av[] = {1, 1, 1};
    static const int64_t brp[] = {0, 4, 8, 12};
    static const int32_t bci[] = {5, 100, 1500000, 1999990, 5, 200, 1600000, 1999991, 5, 300, 1700000, 1999992};
    static const double bv[] = {1, 2, 3, 4, 1e16, 5, 6, 7, -1e16, 8, 9, 10};
    static const int64_t crp[] = {0, 10};
    static const int32_t cci[] = {5, 100, 200, 300, 1500000, 1600000, 1700000, 1999990, 1999991, 1999992};
    static const double cv[] = {0, 2, 5, 8, 3, 6, 9, 4, 7, 10};
    spx_csr *A = tm_csr_literal(ctx, 1, 3, arp, aci, av), *B = tm_csr_literal(ctx, 3, 2000000, brp, bci, bv);
    spx_csr *C = A && B ? product(ctx, A, B, 0, SPX_FP64) : NULL;
    CHECK_MSG(equals_lit(C, 1, 2000000, crp, cci, cv), "merge row: equal columns not summed in A's row order");
    spx_csr_destroy(&A);
    spx_csr_destroy(&B);
    spx_csr_destroy(&C);
}

/* k x n with `len` distinct sorted random columns a row (n may be large: no n-wide pass). */
static spx_csr *wide_rows(spx_ctx *ctx, int32_t k, int32_t n, int len, uint64_t seed)
{
    spx_csr *B = NULL;
    if (spx_csr_alloc(ctx, k, n, (int64_t)k * len, &B)) return NULL;
    for (int32_t r = 0; r < k; r++) {
        int32_t *c = B->colind + (int64_t)r * len;
        for (int got = 0; got < len;) { /* insertion into the sorted prefix, repeats drawn again */
            int32_t j = (int32_t)(tm_next(&seed) % (uint64_t)n), at = got;
            while (at > 0 && c[at - 1] > j) at--;
            if (at > 0 && c[at - 1] == j) continue;
            memmove(c + at + 1, c + at, (size_t)(got - at) * sizeof *c);
            c[at] = j, got++;
        }
        for (int q = 0; q < len; q++) B->val[(int64_t)r * len + q] = 1.0 + (double)(tm_next(&seed) % 1000) / 997;
        B->rowptr[r + 1] = (int64_t)(r + 1) * len;
    }
    return B;
}

/* Chunks whose accumulators differ, taken by threads whose own chunks need none: 20000 rows of
 * one entry (no accumulator), then 300 merge rows (tree scratch) and 100 rows of 20 entries
 * (hash tables) over B rows spread over 5M columns. On 7 threads the owners of the first
 * chunks finish first and look for the last ones; C must equal the 1-thread C bit for bit. */
static void test_uneven_chunks(void)
{
    spx_ctx *one = NULL, *seven = NULL;
    spx_ctx_opts o1 = {.backend = SPX_BACKEND_CPU, .threads = 1}, o7 = {.backend = SPX_BACKEND_CPU, .threads = 7};
    if (spx_ctx_create(&one, &o1) || spx_ctx_create(&seven, &o7)) {
        spx_ctx_destroy(&one);
        return;
    }
    const int32_t cheap = 20000, merge = 300, hash = 100, k = 2000;
    spx_csr *B = wide_rows(one, k, 5000000, 8, 31), *A = NULL, *C1 = NULL, *C7 = NULL;
    const int64_t nnz = cheap + (int64_t)merge * 12 + (int64_t)hash * 20;
    uint64_t seed = 32;
    CHECK(B && !spx_csr_alloc(one, cheap + merge + hash, k, nnz, &A));
    for (int32_t i = 0; A && i < A->m; i++) {
        const int len = i < cheap ? 1 : i < cheap + merge ? 12 : 20;
        int32_t *c = A->colind + A->rowptr[i];
        const int32_t step = k / len;
        for (int q = 0; q < len; q++) /* distinct sorted B rows: one in each of len bands */
            c[q] = q * step + (int32_t)(tm_next(&seed) % (uint64_t)step), A->val[A->rowptr[i] + q] = 0.5 + q;
        A->rowptr[i + 1] = A->rowptr[i] + len;
    }
    if (A) {
        C1 = product(one, A, B, 0, SPX_FP64);
        C7 = product(seven, A, B, 0, SPX_FP64);
        CHECK_MSG(C1 && C7 && spx_csr_equal(C1, C7), "uneven chunks: 7 threads differ from 1");
    }
    spx_csr_destroy(&A);
    spx_csr_destroy(&B);
    spx_csr_destroy(&C1);
    spx_csr_destroy(&C7);
    spx_ctx_destroy(&one);
    spx_ctx_destroy(&seven);
}

/* The same products on 1, 2, 3 and 7 threads (chunks split by products, taken by whichever
 * thread is free and whose accumulators fit them) give the right C: R-MAT, hub rows (a
 * power-law graph of exponent 1.5), one dense row among short ones, whose chunks need
 * accumulators of very different sizes. */
static void test_threads(void)
{
    static const int threads[] = {1, 2, 3, 7};
    static const char *specs[] = {"gen:rmat:scale=10,ef=8", "gen:powerlaw:m=3000,k=6,alpha=1.5"};
    for (int t = 0; t < 4; t++) {
        spx_ctx *ctx = NULL;
        spx_ctx_opts co = {.backend = SPX_BACKEND_CPU, .threads = threads[t]};
        if (spx_ctx_create(&ctx, &co)) continue;
        char what[96];
        for (int g = 0; g < 2; g++) {
            spx_csr *A = NULL;
            if (!spx_gen(ctx, specs[g], &A)) {
                snprintf(what, sizeof what, "%s on %d threads", specs[g], threads[t]);
                check_all(ctx, A, A, 0, what);
            }
            spx_csr_destroy(&A);
        }
        spx_csr *D = tm_make(ctx, 100, 4000, tm_len_dense_row, 23);
        if (D) {
            snprintf(what, sizeof what, "one dense row on %d threads", threads[t]);
            check_all(ctx, D, D, 1, what);
        }
        spx_csr_destroy(&D);
        spx_ctx_destroy(&ctx);
    }
}

/* T = B^T with its map is right: T's rows strictly sorted, perm a bijection onto B's
 * entries, T's entry q at (row r, column c) being B's entry perm[q] at (row c, column r) with
 * the same value. */
static int transpose_right(const spx_csr *B, const spx_csr *T, const int64_t *perm)
{
    if (T->m != B->n || T->n != B->m || T->nnz != B->nnz) return 0;
    int32_t *row_of = malloc(((size_t)B->nnz + 1) * sizeof *row_of);
    char *seen = calloc((size_t)B->nnz + 1, 1);
    int ok = row_of && seen;
    for (int32_t i = 0; ok && i < B->m; i++)
        for (int64_t q = B->rowptr[i]; q < B->rowptr[i + 1]; q++) row_of[q] = i;
    for (int32_t r = 0; ok && r < T->m; r++)
        for (int64_t q = T->rowptr[r]; ok && q < T->rowptr[r + 1]; q++) {
            const int64_t b = perm[q];
            ok = b >= 0 && b < B->nnz && !seen[b] && B->colind[b] == r && row_of[b] == T->colind[q] &&
                 B->val[b] == T->val[q] && (q == T->rowptr[r] || T->colind[q - 1] < T->colind[q]);
            if (ok) seen[b] = 1;
        }
    free(row_of);
    free(seen);
    return ok;
}

/* spx_spgemm_transpose on 1..3 threads (its threads own column ranges past 2^18 entries):
 * R-MAT (skewed columns) and uniform, each right (transpose_right). */
static void test_transpose_threads(void)
{
    static const char *specs[] = {"gen:rmat:scale=16,ef=8", "gen:uniform:m=40000,k=8"};
    for (int t = 1; t <= 3; t++)
        for (size_t c = 0; c < sizeof specs / sizeof specs[0]; c++) {
            spx_ctx *ctx = NULL;
            spx_ctx_opts co = {.backend = SPX_BACKEND_CPU, .threads = t};
            if (spx_ctx_create(&ctx, &co)) continue;
            spx_csr *B = NULL, *T = NULL;
            int64_t *perm = NULL;
            CHECK_OK(ctx, spx_gen(ctx, specs[c], &B));
            if (B) {
                CHECK_MSG(B->nnz >= (int64_t)1 << 18, "%s: %lld entries, too few for the threads", specs[c],
                          (long long)B->nnz);
                CHECK_OK(ctx, spx_spgemm_transpose(ctx, B, &T, &perm));
                if (T) CHECK_MSG(transpose_right(B, T, perm), "%s on %d threads: B^T wrong", specs[c], t);
            }
            spx_free(ctx, perm);
            spx_csr_destroy(&T);
            spx_csr_destroy(&B);
            spx_ctx_destroy(&ctx);
        }
}

/* New values through update_values: the next run (into the same C) uses them. */
static void test_update_values(spx_ctx *ctx)
{
    for (int tr = 0; tr < 2; tr++)
        for (int p = 0; p < 2; p++) {
            spx_csr *A = NULL, *B = NULL, *C = NULL;
            if (spx_gen(ctx, "gen:uniform:m=700,k=6", &A) || spx_gen(ctx, "gen:uniform:m=700,k=5", &B)) {
                CHECK(0);
                spx_csr_destroy(&A);
                continue;
            }
            spx_spgemm_opts o = {.backend = SPX_BACKEND_CPU, .precision = precisions[p], .transpose_b = tr};
            spx_spgemm_plan *plan = NULL;
            CHECK_OK(ctx, spx_spgemm_plan_create(ctx, A, B, &o, &plan));
            if (plan) CHECK_OK(ctx, spx_spgemm_run(plan, &C));
            spx_csr *first = C;
            for (int64_t q = 0; q < A->nnz; q++) A->val[q] = 0.25 * (double)(q % 13) - 1.0;
            for (int64_t q = 0; q < B->nnz; q++) B->val[q] = 0.5 * (double)(q % 7) + 0.125;
            if (plan) CHECK_OK(ctx, spx_spgemm_plan_update_values(plan));
            if (plan) CHECK_OK(ctx, spx_spgemm_run(plan, &C));
            CHECK(C == first); /* refilled in place */
            sc_ref r;
            sc_ref_make(A, B, tr, &r);
            CHECK_MSG(C && sc_matches(C, &r, precisions[p], "after update_values"), "update_values %s%s",
                      spx_precision_str(precisions[p]), tr ? " B^T" : "");
            spx_spgemm_info info;
            if (plan && !spx_spgemm_plan_get_info(plan, &info)) CHECK(info.runs == 2);
            /* a C of another shape is refused */
            spx_csr *other = NULL;
            if (!spx_csr_alloc(ctx, 3, 3, 0, &other) && plan)
                CHECK(spx_spgemm_run(plan, &other) == SPX_ERR_ARG);
            spx_csr_destroy(&other);
            sc_ref_free(&r);
            spx_spgemm_plan_destroy(&plan);
            spx_csr_destroy(&C);
            spx_csr_destroy(&A);
            spx_csr_destroy(&B);
        }
}

static void test_errors(spx_ctx *ctx)
{
    spx_csr *A = tm_make(ctx, 3, 4, tm_len_const8, 1), *B = tm_make(ctx, 5, 3, tm_len_const8, 2);
    spx_spgemm_plan *plan = NULL;
    spx_spgemm_opts o = {.backend = SPX_BACKEND_CPU};
    spx_status s = spx_spgemm_plan_create(ctx, A, B, &o, &plan);
    CHECK_MSG(s == SPX_ERR_ARG && plan == NULL && strstr(spx_ctx_last_error(ctx), "inner dimensions differ") &&
                  strstr(spx_ctx_last_error(ctx), "3 x 4") && strstr(spx_ctx_last_error(ctx), "5 x 3"),
              "mismatch: %s", spx_ctx_last_error(ctx));
    o.transpose_b = 1; /* A (3x4) * B^T (3x5): still mismatched */
    CHECK(spx_spgemm_plan_create(ctx, A, B, &o, &plan) == SPX_ERR_ARG && !plan);
    o.transpose_b = 0;
    CHECK(spx_spgemm_plan_create(ctx, A, NULL, &o, &plan) == SPX_ERR_ARG);
    spx_csr *S = tm_make(ctx, 4, 4, tm_len_const8, 3); /* square: S*S is well formed */
    o.method = "nosuch";
    CHECK(spx_spgemm_plan_create(ctx, S, S, &o, &plan) == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "nosuch"));
    o.method = "gustavson";
    o.algo = "alg9";
    CHECK(spx_spgemm_plan_create(ctx, S, S, &o, &plan) == SPX_ERR_ARG);
    o.algo = NULL;
    o.method = "cusparse"; /* explicit CPU backend: the method runs on CUDA */
    s = spx_spgemm_plan_create(ctx, S, S, &o, &plan);
    CHECK_MSG(s == SPX_ERR_ARG || s == SPX_ERR_NOT_COMPILED, "cusparse on cpu: %s", spx_status_str(s));
    o.backend = SPX_BACKEND_AUTO; /* the method's backend, unavailable without a GPU */
    s = spx_spgemm_plan_create(ctx, S, S, &o, &plan);
    if (s == SPX_OK) spx_spgemm_plan_destroy(&plan);
    else CHECK_MSG(s == SPX_ERR_NOT_COMPILED || s == SPX_ERR_NO_DEVICE, "cusparse: %s", spx_status_str(s));
    spx_csr_destroy(&S);
    spx_csr_destroy(&A);
    spx_csr_destroy(&B);
    /* unsorted columns are refused, naming the row */
    int64_t rp[] = {0, 2};
    int32_t ci[] = {1, 0};
    double v[] = {1, 2};
    spx_csr *U = NULL;
    CHECK_OK(ctx, spx_csr_wrap(ctx, 1, 2, 2, rp, ci, v, &U));
    spx_csr *I = tm_make(ctx, 2, 2, tm_len_one, 3);
    o = (spx_spgemm_opts){.backend = SPX_BACKEND_CPU};
    if (U && I) CHECK(spx_spgemm_plan_create(ctx, U, I, &o, &plan) == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "row 0"));
    spx_csr_destroy(&U);
    spx_csr_destroy(&I);
}

/* spx_bench_spgemm: its C is the plan's product as the last timed run wrote it (after the
 * poisoning), the times add up, a refused method is a recorded failure, bad arguments are not. */
static void test_bench(spx_ctx *ctx)
{
    spx_csr *A = NULL, *C = NULL, *R = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:poisson2d:n=20", &A));
    if (!A) return;
    R = product(ctx, A, A, 0, SPX_FP64);
    spx_spgemm_opts go = {.backend = SPX_BACKEND_CPU};
    spx_bench_spgemm_result r;
    CHECK_OK(ctx, spx_bench_spgemm(ctx, A, A, &go, NULL, &r, &C));
    CHECK_MSG(r.status == SPX_OK && r.reps == 5 && r.t_median > 0 && r.t_min <= r.t_median && r.t_median <= r.t_max &&
                  r.first_run_s > 0 && fabs(r.total_s - (r.info.plan_seconds + r.first_run_s)) < 1e-12 &&
                  r.gflops_numeric > 0 && r.gflops_total > 0 && r.threads >= 1 && r.info.runs == 1 + 1 + 5,
              "status %s reps %d median %g runs %ld", spx_status_str(r.status), r.reps, r.t_median, r.info.runs);
    CHECK(C && R && spx_csr_equal(C, R));
    spx_csr_destroy(&C);
    spx_bench_spgemm_opts bo = {.reps = 2, .warmup = 3};
    CHECK_OK(ctx, spx_bench_spgemm(ctx, A, A, &go, &bo, &r, &C));
    CHECK(r.reps == 2 && r.info.runs == 1 + 3 + 2 && C && R && spx_csr_equal(C, R));
    spx_csr_destroy(&C);
    go.method = "nosuch";
    CHECK_OK(ctx, spx_bench_spgemm(ctx, A, A, &go, NULL, &r, &C));
    CHECK(r.status == SPX_ERR_ARG && strstr(r.msg, "nosuch") && C == NULL);
    go.method = NULL;
    bo.reps = -1;
    CHECK(spx_bench_spgemm(ctx, A, A, &go, &bo, &r, &C) == SPX_ERR_ARG);
    C = R; /* a C on entry is refused: the result is always new */
    CHECK(spx_bench_spgemm(ctx, A, A, &go, NULL, &r, &C) == SPX_ERR_ARG && C == R);
    spx_csr_destroy(&R);
    spx_csr_destroy(&A);
}

/* C over the host budget is refused with a message naming it, before anything is touched. */
static void test_budget(void)
{
    spx_ctx *ctx = NULL;
    spx_ctx_opts co = {.backend = SPX_BACKEND_CPU, .host_budget = 300000};
    if (spx_ctx_create(&ctx, &co)) return;
    spx_csr *A = tm_make(ctx, 200, 200, tm_len_around32, 9); /* C: ~200 x 200 dense, 480 KB */
    spx_spgemm_plan *plan = NULL;
    spx_csr *C = NULL;
    spx_spgemm_opts o = {.backend = SPX_BACKEND_CPU};
    CHECK(A != NULL);
    if (A) CHECK_OK(ctx, spx_spgemm_plan_create(ctx, A, A, &o, &plan));
    if (plan) {
        spx_status s = spx_spgemm_run(plan, &C);
        CHECK_MSG(s == SPX_ERR_NOMEM && !C && strstr(spx_ctx_last_error(ctx), "spgemm: C") &&
                      strstr(spx_ctx_last_error(ctx), "host budget"),
                  "budget: %s: %s", spx_status_str(s), spx_ctx_last_error(ctx));
    }
    spx_spgemm_plan_destroy(&plan);
    spx_csr_destroy(&C);
    spx_csr_destroy(&A);
    spx_mem_stats ms;
    spx_ctx_mem_stats(ctx, &ms);
    CHECK(ms.host_bytes == 0 || ms.host_bytes < 4096); /* nothing of the plan left */
    spx_ctx_destroy(&ctx);
}

/* Fails the n-th host allocation of plan creation + run, for every n until both succeed. */
static void test_alloc_failures(int transpose_b, spx_precision p)
{
    int saw_success = 0;
    for (long n = 1; n < 400 && !saw_success; n++) {
        fail_alloc fa = {0, 0, 0};
        spx_allocator al = {fa_alloc, fa_realloc, fa_free, &fa};
        spx_ctx *ctx = NULL;
        spx_ctx_opts co = {.alloc = &al, .backend = SPX_BACKEND_CPU, .threads = 2};
        if (spx_ctx_create(&ctx, &co)) continue;
        spx_csr *A = tm_make(ctx, 60, 60, tm_len_varied, 1);
        fa.fail_at = fa.calls + n; /* count from here: the plan's and the run's allocations */
        spx_spgemm_plan *plan = NULL;
        spx_csr *C = NULL;
        spx_spgemm_opts o = {.backend = SPX_BACKEND_CPU, .precision = p, .transpose_b = transpose_b};
        spx_status s = spx_spgemm_plan_create(ctx, A, A, &o, &plan);
        CHECK_MSG(s == SPX_OK || (s == SPX_ERR_NOMEM && !plan), "create, fail at %ld: %s", n, spx_status_str(s));
        if (!s) {
            s = spx_spgemm_run(plan, &C);
            CHECK_MSG(s == SPX_OK || (s == SPX_ERR_NOMEM && !C), "run, fail at %ld: %s", n, spx_status_str(s));
            saw_success = s == SPX_OK;
        }
        spx_csr_destroy(&C);
        spx_spgemm_plan_destroy(&plan);
        spx_csr_destroy(&A);
        spx_ctx_destroy(&ctx);
        CHECK_MSG(fa.live == 0, "fail at %ld: %ld blocks leaked", n, fa.live);
    }
    CHECK(saw_success);
}

static void test_methods_listed(void)
{
    int have_cpu = 0, have_base = 0;
    for (int i = 0; i < spx_spgemm_method_count(); i++) {
        spx_spgemm_method_desc d;
        CHECK(spx_spgemm_method_describe(i, &d) == SPX_OK && d.name && d.summary);
        have_cpu |= !strcmp(d.name, "gustavson") && d.available && d.backend == SPX_BACKEND_CPU;
        have_base |= !strcmp(d.name, "cusparse") && (!d.available || d.is_baseline);
    }
    CHECK(have_cpu && have_base);
}

int main(void)
{
    spx_ctx *ctx = NULL;
    spx_ctx_opts co = {.backend = SPX_BACKEND_CPU};
    if (spx_ctx_create(&ctx, &co)) return 1;
    test_methods_listed();
    test_hand_checked(ctx);
    test_merge_sum_order(ctx);
    test_cancellation_and_empty_product(ctx);
    test_edge_cases(ctx);
    test_generated(ctx);
    test_update_values(ctx);
    test_errors(ctx);
    test_bench(ctx);
    spx_ctx_destroy(&ctx);
    test_threads();
    test_large_row_paths();
    test_uneven_chunks();
    test_transpose_threads();
    test_budget();
    for (int tr = 0; tr < 2; tr++) test_alloc_failures(tr, tr ? SPX_FP32 : SPX_FP64);
    return check_report();
}
