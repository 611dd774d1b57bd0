/* tests/test_coo_to_csr.c: the parallel COO -> CSR gives, for 1, 2, 3 and 7 threads, exactly
 * what a plain serial conversion gives (a stable sort by row and column, repeated entries summed
 * left to right in input order): the same arrays bit for bit, the same duplicate count, the same
 * errors; within a tight host budget too; and the R-MAT generator, which converts through it,
 * the same matrix whatever the thread count. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/rng.h"
#include "spx/spx.h"

static const int thread_counts[] = {1, 2, 3, 7};
#define N_COUNTS ((int)(sizeof thread_counts / sizeof thread_counts[0]))

/* One COO entry with its input position, for the reference's sort. */
typedef struct ref_entry {
    int32_t row, col;
    int64_t k;
} ref_entry;

/* Orders entries by row, then column, then input position (so the sort is stable). */
static int ref_cmp(const void *a, const void *b)
{
    const ref_entry *x = a, *y = b;
    if (x->row != y->row) return x->row < y->row ? -1 : 1;
    if (x->col != y->col) return x->col < y->col ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

/* The reference conversion of C into R's arrays (plain malloc; R->nnz unique entries); returns
 * the duplicates summed, or -1 when out of memory. */
static int64_t ref_convert(const spx_coo *C, spx_csr *R)
{
    size_t n = (size_t)C->nnz;
    ref_entry *e = malloc((n ? n : 1) * sizeof *e);
    R->rowptr = calloc((size_t)C->m + 1, sizeof *R->rowptr);
    R->colind = malloc((n ? n : 1) * sizeof *R->colind);
    R->val = malloc((n ? n : 1) * sizeof *R->val);
    if (!e || !R->rowptr || !R->colind || !R->val) {
        free(e);
        return -1;
    }
    for (size_t k = 0; k < n; k++) e[k] = (ref_entry){C->row[k], C->col[k], (int64_t)k};
    qsort(e, n, sizeof *e, ref_cmp);
    int64_t w = 0;
    for (size_t k = 0; k < n; k++) {
        if (w > 0 && k > 0 && e[k].row == e[k - 1].row && e[k].col == e[k - 1].col) {
            R->val[w - 1] += C->val[e[k].k];
        } else {
            R->colind[w] = e[k].col;
            R->val[w++] = C->val[e[k].k];
            R->rowptr[e[k].row + 1]++;
        }
    }
    for (int32_t i = 0; i < C->m; i++) R->rowptr[i + 1] += R->rowptr[i];
    R->m = C->m;
    R->n = C->n;
    R->nnz = w;
    free(e);
    return (int64_t)n - w;
}

/* Frees the reference's arrays. */
static void ref_free(spx_csr *R)
{
    free(R->rowptr);
    free(R->colind);
    free(R->val);
}

/* 1 when A has R's shape and the same arrays bit for bit. */
static int same_bits(const spx_csr *A, const spx_csr *R)
{
    if (A->m != R->m || A->n != R->n || A->nnz != R->nnz) return 0;
    return !memcmp(A->rowptr, R->rowptr, ((size_t)R->m + 1) * sizeof *R->rowptr) &&
           !memcmp(A->colind, R->colind, (size_t)R->nnz * sizeof *R->colind) &&
           !memcmp(A->val, R->val, (size_t)R->nnz * sizeof *R->val);
}

/* A value whose magnitude spans 2^-40..2^40 with either sign, so that summing repeated
 * entries in another order changes the bits. */
static double wild_value(uint64_t *s)
{
    double u = spx_splitmix64_unit(s) + 0.5;
    int e = (int)(spx_splitmix64(s) % 81) - 40;
    return (spx_splitmix64(s) & 1 ? -u : u) * ldexp(1.0, e);
}

/* Shuffles C's entries (Fisher-Yates with splitmix64), so rows arrive unsorted. */
static void shuffle(spx_coo *C, uint64_t seed)
{
    for (int64_t i = C->nnz - 1; i > 0; i--) {
        int64_t j = (int64_t)(spx_splitmix64(&seed) % (uint64_t)(i + 1));
        int32_t r = C->row[i], c = C->col[i];
        double v = C->val[i];
        C->row[i] = C->row[j], C->col[i] = C->col[j], C->val[i] = C->val[j];
        C->row[j] = r, C->col[j] = c, C->val[j] = v;
    }
}

/* Random entries in the even rows only (the odd ones empty) over cols columns: duplicates
 * wherever a (row, column) pair is drawn twice. */
static spx_coo *coo_random(spx_ctx *ctx, int32_t m, int32_t cols, int64_t nnz, uint64_t seed)
{
    spx_coo *C = NULL;
    if (spx_coo_alloc(ctx, m, cols, nnz, &C)) return NULL;
    for (int64_t k = 0; k < nnz; k++) {
        C->row[k] = (int32_t)(2 * (spx_splitmix64(&seed) % (uint64_t)((m + 1) / 2)));
        C->col[k] = (int32_t)(spx_splitmix64(&seed) % (uint64_t)cols);
        C->val[k] = wild_value(&seed);
    }
    return C;
}

/* Rows for every sort path: one longer than 2^16 (sorted alone), rows of 40-60 entries (merge
 * sort), of 65-3000 (radix sort), and short ones (insertion sort); columns anywhere in
 * 0..INT32_MAX-1 (all four radix bytes) but repeated often; shuffled. */
static spx_coo *coo_row_kinds(spx_ctx *ctx, uint64_t seed)
{
    const int32_t m = 2000, n = INT32_MAX;
    int32_t len[2000];
    int64_t nnz = 0;
    for (int32_t i = 0; i < m; i++) {
        len[i] = i == 7 ? 70000 : i < 60 ? 40 + i % 21 : i < 500 ? 65 + (int32_t)(spx_splitmix64(&seed) % 2936) : i % 9;
        nnz += len[i];
    }
    spx_coo *C = NULL;
    if (spx_coo_alloc(ctx, m, n, nnz, &C)) return NULL;
    int64_t k = 0;
    for (int32_t i = 0; i < m; i++) {
        int32_t distinct = len[i] / 3 + 1; /* about three copies of each column */
        uint64_t base = spx_splitmix64(&seed);
        for (int32_t j = 0; j < len[i]; j++, k++) {
            uint64_t pick = base + (spx_splitmix64(&seed) % (uint64_t)distinct) * 0x9E3779B97F4Aull;
            C->row[k] = i;
            C->col[k] = (int32_t)(pick % (uint64_t)n);
            C->val[k] = wild_value(&seed);
        }
    }
    shuffle(C, seed);
    return C;
}

/* Every row with k distinct columns (no duplicates, so nothing is packed); shuffled. */
static spx_coo *coo_distinct(spx_ctx *ctx, int32_t m, int32_t n, int32_t k, uint64_t seed)
{
    spx_coo *C = NULL;
    if (spx_coo_alloc(ctx, m, n, (int64_t)m * k, &C)) return NULL;
    for (int64_t e = 0; e < (int64_t)m * k; e++) {
        int32_t i = (int32_t)(e / k), j = (int32_t)(e % k);
        C->row[e] = i;
        C->col[e] = (int32_t)(((int64_t)i * 7919 + (int64_t)j * 104729) % n);
        C->val[e] = wild_value(&seed);
    }
    shuffle(C, seed);
    return C;
}

/* Converts C on a context of `threads` threads (host budget `budget`, 0 = default) and checks
 * the result against the reference R, bit for bit, with the same duplicate count; a budget
 * must also never have been exceeded. */
static void check_threads(const spx_coo *C, const spx_csr *R, int64_t ref_dups, int threads, size_t budget,
                          const char *label)
{
    spx_ctx *ctx = NULL;
    CHECK(spx_ctx_create(&ctx, &(spx_ctx_opts){.threads = threads, .host_budget = budget}) == SPX_OK);
    if (!ctx) return;
    spx_csr *A = NULL;
    int64_t dups = -1;
    spx_status s = spx_coo_to_csr(ctx, C, 0, &dups, &A);
    CHECK_MSG(s == SPX_OK, "%s, %d threads: %s", label, threads, spx_ctx_last_error(ctx));
    CHECK_MSG(A && same_bits(A, R), "%s, %d threads: result differs from the serial reference", label, threads);
    CHECK_MSG(dups == ref_dups && (!A || (A->meta.duplicates == ref_dups && A->meta.stored_entries == C->nnz)),
              "%s, %d threads: %lld duplicates, reference %lld", label, threads, (long long)dups,
              (long long)ref_dups);
    spx_mem_stats ms;
    spx_ctx_mem_stats(ctx, &ms);
    CHECK_MSG(ms.host_peak <= ms.host_budget, "%s, %d threads: peak %zu over the budget %zu", label, threads,
              ms.host_peak, ms.host_budget);
    spx_csr_destroy(&A);
    spx_ctx_destroy(&ctx);
}

/* The reference of C, then every thread count against it; frees C. */
static void check_all(spx_coo *C, const char *label)
{
    CHECK_MSG(C != NULL, "%s: COO not built", label);
    if (!C) return;
    spx_csr R = {0};
    int64_t dups = ref_convert(C, &R);
    CHECK(dups >= 0);
    if (dups >= 0)
        for (int t = 0; t < N_COUNTS; t++) check_threads(C, &R, dups, thread_counts[t], 0, label);
    printf("  %-34s %7d x %-10d %8lld entries, %7lld duplicates: same for 1, 2, 3, 7 threads\n", label, C->m,
           C->n, (long long)C->nnz, (long long)dups);
    ref_free(&R);
    spx_coo_destroy(&C);
}

/* A random COO (coo_random's) on a context of its own, with its reference conversion. */
typedef struct fixture {
    spx_ctx *ctx;
    spx_coo *C;
    spx_csr R;
    int64_t dups; /* the reference's duplicates, -1 when it failed */
} fixture;

/* Makes f; 0 (and a failed check) when the COO or the reference could not be made. */
static int fixture_make(fixture *f, int32_t m, int32_t cols, int64_t nnz, uint64_t seed)
{
    memset(f, 0, sizeof *f);
    CHECK(spx_ctx_create(&f->ctx, NULL) == SPX_OK);
    f->C = f->ctx ? coo_random(f->ctx, m, cols, nnz, seed) : NULL;
    f->dups = f->C ? ref_convert(f->C, &f->R) : -1;
    CHECK(f->dups > 0);
    return f->dups > 0;
}

/* Frees what fixture_make made. */
static void fixture_free(fixture *f)
{
    ref_free(&f->R);
    spx_coo_destroy(&f->C);
    spx_ctx_destroy(&f->ctx);
}

/* The first row of C with fewer entries in the reference R than in C (a duplicate), or -1. */
static int32_t first_duplicate_row(const spx_coo *C, const spx_csr *R)
{
    int32_t first = -1;
    int64_t *count = calloc((size_t)C->m + 1, sizeof *count);
    for (int64_t k = 0; count && k < C->nnz; k++) count[C->row[k]]++;
    for (int32_t i = 0; count && i < C->m && first < 0; i++)
        if (R->rowptr[i + 1] - R->rowptr[i] < count[i]) first = i;
    free(count);
    return first;
}

/* Under strict, a duplicate is refused naming the first row that has one, and an entry
 * outside the matrix is refused naming the first such entry, whatever the thread count. */
static void test_errors(void)
{
    fixture f;
    if (!fixture_make(&f, 60000, 3000, 800000, 11)) {
        fixture_free(&f);
        return;
    }
    spx_coo *C = f.C;
    char want[128];
    snprintf(want, sizeof want, "duplicate entry in row %d (strict", first_duplicate_row(C, &f.R) + 1);
    int32_t col_kept = C->col[700001], row_kept = C->row[500000];
    for (int t = 0; t < N_COUNTS; t++) {
        spx_ctx *tc = NULL;
        spx_ctx_create(&tc, &(spx_ctx_opts){.threads = thread_counts[t]});
        spx_csr *A = NULL;
        CHECK(spx_coo_to_csr(tc, C, 1, NULL, &A) == SPX_ERR_PARSE && A == NULL);
        CHECK_MSG(strstr(spx_ctx_last_error(tc), want), "%d threads: '%s', want '%s'", thread_counts[t],
                  spx_ctx_last_error(tc), want);
        C->col[700001] = 3000; /* outside, and a second bad entry earlier in the input: */
        C->row[500000] = -1;
        CHECK(spx_coo_to_csr(tc, C, 0, NULL, &A) == SPX_ERR_ARG && A == NULL);
        CHECK_MSG(strstr(spx_ctx_last_error(tc), "COO entry 500000 at (-1, "), "%d threads: '%s'",
                  thread_counts[t], spx_ctx_last_error(tc));
        C->row[500000] = row_kept;
        CHECK(spx_coo_to_csr(tc, C, 0, NULL, &A) == SPX_ERR_ARG && A == NULL);
        CHECK_MSG(strstr(spx_ctx_last_error(tc), "COO entry 700001 at (") && strstr(spx_ctx_last_error(tc), ", 3000)"),
                  "%d threads: '%s'", thread_counts[t], spx_ctx_last_error(tc));
        C->col[700001] = col_kept;
        spx_ctx_destroy(&tc);
    }
    fixture_free(&f);
}

/* A budget with room for the CSR and one row histogram but not seven: 7 threads still give
 * the reference, within the budget (fewer histograms, serial packing). */
static void test_tight_budget(void)
{
    fixture f;
    if (fixture_make(&f, 200000, 2000, 700000, 5)) {
        size_t m1 = (size_t)f.C->m + 1, hist = m1 * sizeof(int64_t);
        size_t csr = hist + (size_t)f.C->nnz * (sizeof(int32_t) + sizeof(double));
        check_threads(f.C, &f.R, f.dups, 7, csr + 2 * hist + (1u << 16), "tight budget");
    }
    fixture_free(&f);
}

/* The R-MAT generator converts through spx_coo_to_csr: the same matrix for every thread count. */
static void test_generator(void)
{
    static const char *specs[] = {"gen:rmat:scale=16,ef=12", "gen:rmat:scale=15,ef=16,sym=1"};
    for (size_t g = 0; g < sizeof specs / sizeof specs[0]; g++) {
        spx_csr *first = NULL;
        spx_ctx *c1 = NULL;
        for (int t = 0; t < N_COUNTS; t++) {
            spx_ctx *ctx = NULL;
            spx_csr *A = NULL;
            spx_ctx_create(&ctx, &(spx_ctx_opts){.threads = thread_counts[t]});
            CHECK_OK(ctx, spx_gen(ctx, specs[g], &A));
            if (!first) {
                first = A;
                c1 = ctx;
                CHECK(A && A->meta.duplicates > 0);
                continue;
            }
            CHECK_MSG(A && first && spx_csr_equal(A, first) && A->meta.duplicates == first->meta.duplicates,
                      "%s: %d threads differ from 1", specs[g], thread_counts[t]);
            spx_csr_destroy(&A);
            spx_ctx_destroy(&ctx);
        }
        printf("  %-34s %lld entries, %lld duplicates: same for 1, 2, 3, 7 threads\n", specs[g],
               first ? (long long)first->nnz : -1LL, first ? (long long)first->meta.duplicates : -1LL);
        spx_csr_destroy(&first);
        spx_ctx_destroy(&c1);
    }
}

int main(void)
{
    spx_ctx *ctx = NULL;
    CHECK(spx_ctx_create(&ctx, NULL) == SPX_OK);
    printf("COO -> CSR against the serial reference:\n");
    check_all(coo_random(ctx, 60000, 3000, 800000, 1), "random, duplicates, empty rows");
    check_all(coo_row_kinds(ctx, 2), "every sort path, 31-bit columns");
    check_all(coo_distinct(ctx, 100000, 50000, 7, 3), "no duplicates");
    check_all(coo_random(ctx, 3, 2, 40, 4), "3 x 2, 40 entries");
    spx_coo *E = NULL;
    CHECK_OK(ctx, spx_coo_alloc(ctx, 5, 4, 0, &E));
    check_all(E, "5 x 4, no entries");
    E = NULL;
    CHECK_OK(ctx, spx_coo_alloc(ctx, 0, 0, 0, &E));
    check_all(E, "0 x 0");
    test_errors();
    test_tight_budget();
    test_generator();
    spx_ctx_destroy(&ctx);
    return check_report();
}
