/* tests/test_gen.c: the matrix generators: exact stencil sizes, CSR invariants, values,
 * determinism across seeds and thread counts, symmetry, row-length laws, bad specs,
 * overflow, and allocation failures without leaks. */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fail_alloc.h"
#include "spx/spx.h"

/* Generates spec, checking it succeeds; NULL on failure. */
static spx_csr *gen(spx_ctx *ctx, const char *spec)
{
    spx_csr *A = NULL;
    spx_status s = spx_gen(ctx, spec, &A);
    CHECK_MSG(s == SPX_OK && A, "%s: %s: %s", spec, spx_status_str(s), spx_ctx_last_error(ctx));
    return s == SPX_OK ? A : NULL;
}

/* 1 if A satisfies the CSR invariants with strictly increasing columns in each row. */
static int csr_valid(const spx_csr *A)
{
    if (A->m < 0 || A->n < 0 || A->nnz < 0 || A->rowptr[0] != 0 || A->rowptr[A->m] != A->nnz) return 0;
    for (int32_t i = 0; i < A->m; i++) {
        if (A->rowptr[i + 1] < A->rowptr[i]) return 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            if (A->colind[k] < 0 || A->colind[k] >= A->n) return 0;
            if (k > A->rowptr[i] && A->colind[k] <= A->colind[k - 1]) return 0;
        }
    }
    return 1;
}

/* 1 if every value is in [-1, 1], none is 0, and (nnz >= 2) not all are equal. */
static int values_ok(const spx_csr *A)
{
    int differ = A->nnz < 2;
    for (int64_t k = 0; k < A->nnz; k++) {
        if (!(A->val[k] >= -1 && A->val[k] <= 1) || A->val[k] == 0) return 0;
        if (A->val[k] != A->val[0]) differ = 1;
    }
    return differ;
}

/* Index of entry (i, j) in A, or -1 (binary search in row i). */
static int64_t find(const spx_csr *A, int32_t i, int32_t j)
{
    int64_t lo = A->rowptr[i], hi = A->rowptr[i + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (A->colind[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < A->rowptr[i + 1] && A->colind[lo] == j ? lo : -1;
}

/* 1 if A is square and its pattern (and with numeric set, its values) equal the transpose. */
static int symmetric(const spx_csr *A, int numeric)
{
    if (A->m != A->n) return 0;
    for (int32_t i = 0; i < A->m; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int64_t t = find(A, A->colind[k], i);
            if (t < 0 || (numeric && A->val[t] != A->val[k])) return 0;
        }
    return 1;
}

/* Entries in row i. */
static int64_t row_len(const spx_csr *A, int32_t i) { return A->rowptr[i + 1] - A->rowptr[i]; }

/* Longest row of A. */
static int64_t max_row(const spx_csr *A)
{
    int64_t mx = 0;
    for (int32_t i = 0; i < A->m; i++)
        if (row_len(A, i) > mx) mx = row_len(A, i);
    return mx;
}

/* Shortest row of A (0 for an empty matrix). */
static int64_t min_row(const spx_csr *A)
{
    int64_t mn = A->m ? row_len(A, 0) : 0;
    for (int32_t i = 0; i < A->m; i++)
        if (row_len(A, i) < mn) mn = row_len(A, i);
    return mn;
}

/* Exact sizes of the stencils: star n^d grids lose 2 per boundary line, 27-point is (3n-2)^3. */
static void test_stencil_sizes(spx_ctx *ctx)
{
    static const struct {
        const char *spec;
        int32_t m;
        int64_t nnz;
    } cases[] = {
        {"gen:poisson2d:n=4", 16, 5 * 16 - 4 * 4},
        {"gen:poisson2d:n=1", 1, 1},
        {"gen:poisson2d:n=7", 49, 5 * 49 - 4 * 7},
        {"gen:poisson3d:n=3", 27, 7 * 27 - 6 * 9},
        {"gen:poisson3d:n=10", 1000, 7 * 1000 - 6 * 100},
        {"gen:poisson3d:n=1", 1, 1},
        {"gen:stencil27:n=3", 27, 7 * 7 * 7},
        {"gen:stencil27:n=10", 1000, 28 * 28 * 28},
        {"gen:stencil27:n=2", 8, 64},
        {"gen:poisson2d:n=0", 0, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        spx_csr *A = gen(ctx, cases[c].spec);
        if (!A) continue;
        CHECK_MSG(A->m == cases[c].m && A->n == cases[c].m, "%s: %d x %d", cases[c].spec, A->m, A->n);
        CHECK_MSG(A->nnz == cases[c].nnz, "%s: nnz %lld, expected %lld", cases[c].spec, (long long)A->nnz,
                  (long long)cases[c].nnz);
        CHECK_MSG(csr_valid(A), "%s", cases[c].spec);
        CHECK_MSG(values_ok(A), "%s", cases[c].spec);
        CHECK_MSG(symmetric(A, 1), "%s: not symmetric", cases[c].spec);
        spx_csr_destroy(&A);
    }
    /* the 7-point stencil's interior row: 7 entries at offsets -n^2, -n, -1, 0, 1, n, n^2 */
    spx_csr *A = gen(ctx, "gen:poisson3d:n=5");
    if (A) {
        int32_t i = 2 + 5 * (2 + 5 * 2), off[7] = {-25, -5, -1, 0, 1, 5, 25};
        CHECK(row_len(A, i) == 7);
        for (int t = 0; t < 7 && row_len(A, i) == 7; t++) CHECK(A->colind[A->rowptr[i] + t] == i + off[t]);
        CHECK(row_len(A, 0) == 4); /* a corner */
        spx_csr_destroy(&A);
    }
}

/* Every generator, with small and default parameters, gives valid CSR with good values. */
static void test_all_valid(spx_ctx *ctx)
{
    static const char *specs[] = {
        "gen:poisson2d", "gen:poisson3d", "gen:stencil27", "gen:rmat", "gen:rmat:scale=6,sym=1",
        "gen:rmat:scale=1,ef=4", "gen:rmat:scale=0,ef=3", "gen:uniform", "gen:uniform:m=50,n=7,k=7",
        "gen:uniform:m=300,n=40,k=3", "gen:uniform:m=0,n=10,k=2", "gen:powerlaw", "gen:powerlaw:m=300,n=50,k=2.5",
        "gen:powerlaw:m=100,n=1,k=1", "gen:banded", "gen:banded:m=20,n=30,bw=3", "gen:banded:m=30,n=10,bw=0",
        "gen:blockdiag", "gen:blockdiag:m=100,b=7", "gen:blockdiag:m=5,b=100", "gen:tall", "gen:wide",
        "gen:wide:m=40,n=50,k=50", "gen:wide:m=10,n=50,k=0", "gen:uniform:m=5,n=100000,k=6000",
    };
    for (size_t c = 0; c < sizeof specs / sizeof specs[0]; c++) {
        spx_csr *A = gen(ctx, specs[c]);
        if (!A) continue;
        CHECK_MSG(csr_valid(A), "%s: invalid CSR", specs[c]);
        CHECK_MSG(values_ok(A), "%s: bad values", specs[c]);
        CHECK_MSG(spx_csr_check(ctx, A) == SPX_OK, "%s: %s", specs[c], spx_ctx_last_error(ctx));
        spx_csr_destroy(&A);
    }
}

/* Same spec, same matrix; another seed, another matrix; 1, 2 or 3 threads, same matrix. */
static void test_determinism(spx_ctx *ctx)
{
    static const char *specs[] = {
        "gen:poisson2d:n=150", "gen:poisson3d:n=40", "gen:stencil27:n=25", "gen:rmat:scale=13,ef=8",
        "gen:rmat:scale=12,sym=1", "gen:uniform:m=20000,k=9", "gen:powerlaw:m=20000", "gen:banded:m=20000,bw=7",
        "gen:blockdiag:m=20000,b=13", "gen:tall:m=30000", "gen:wide:m=64,n=100000,k=1000",
        "gen:poisson3d:n=30,shuffle=1", "gen:banded:m=5000,bw=40,shuffle=1",
    };
    spx_ctx *c1 = NULL, *c2 = NULL;
    CHECK_OK(c1, spx_ctx_create(&c1, &(spx_ctx_opts){.threads = 1}));
    CHECK_OK(c2, spx_ctx_create(&c2, &(spx_ctx_opts){.threads = 2}));
    int saved = omp_get_max_threads();
    for (size_t c = 0; c < sizeof specs / sizeof specs[0]; c++) {
        char spec2[128];
        snprintf(spec2, sizeof spec2, "%s,seed=2", specs[c]);
        omp_set_num_threads(2);
        spx_csr *A = gen(ctx, specs[c]), *B = gen(ctx, specs[c]), *S = gen(ctx, spec2);
        omp_set_num_threads(1);
        spx_csr *T1 = gen(ctx, specs[c]);
        omp_set_num_threads(3);
        spx_csr *T3 = gen(ctx, specs[c]);
        omp_set_num_threads(saved);
        spx_csr *C1 = c1 ? gen(c1, specs[c]) : NULL, *C2 = c2 ? gen(c2, specs[c]) : NULL;
        if (A && B && S && T1 && T3 && C1 && C2) {
            CHECK_MSG(spx_csr_equal(A, B), "%s: differs between two runs", specs[c]);
            CHECK_MSG(!spx_csr_equal(A, S), "%s: seed=2 gives the same matrix", specs[c]);
            CHECK_MSG(spx_csr_equal(A, T1), "%s: 1 thread differs from 2", specs[c]);
            CHECK_MSG(spx_csr_equal(A, T3), "%s: 3 threads differ from 2", specs[c]);
            CHECK_MSG(spx_csr_equal(A, C1) && spx_csr_equal(A, C2), "%s: ctx threads change it", specs[c]);
            CHECK_MSG(csr_valid(A) && values_ok(A), "%s", specs[c]);
        }
        spx_csr_destroy(&A);
        spx_csr_destroy(&B);
        spx_csr_destroy(&S);
        spx_csr_destroy(&T1);
        spx_csr_destroy(&T3);
        spx_csr_destroy(&C1);
        spx_csr_destroy(&C2);
    }
    spx_ctx_destroy(&c1);
    spx_ctx_destroy(&c2);
}

/* A diagonal entry's value and row, for matching two matrices' diagonals. */
typedef struct diag_entry {
    double v;
    int32_t i;
} diag_entry;

static int cmp_diag(const void *a, const void *b)
{
    const double x = ((const diag_entry *)a)->v, y = ((const diag_entry *)b)->v;
    return (x > y) - (x < y);
}

/* The diagonal of A sorted by value (NULL unless every row has one, with distinct values). */
static diag_entry *sorted_diagonal(const spx_csr *A)
{
    diag_entry *d = malloc(((size_t)A->m + 1) * sizeof *d);
    for (int32_t i = 0; d && i < A->m; i++) {
        const int64_t k = find(A, i, i);
        if (k < 0) {
            free(d);
            return NULL;
        }
        d[i] = (diag_entry){A->val[k], i};
    }
    if (d) qsort(d, (size_t)A->m, sizeof *d, cmp_diag);
    for (int32_t i = 1; d && i < A->m; i++)
        if (d[i].v == d[i - 1].v) {
            free(d);
            return NULL;
        }
    return d;
}

/* shuffle=1 is P A P^T of the ordered matrix for one permutation P: the diagonals' (distinct,
 * random) values give P, and every entry (i, j, v) of the ordered matrix is (P i, P j, v) in the
 * shuffled one; the same counts, sorted rows, symmetry kept, and not the identity. */
static void test_shuffle(spx_ctx *ctx)
{
    static const char *specs[] = {"gen:poisson2d:n=17", "gen:poisson3d:n=9", "gen:stencil27:n=6",
                                  "gen:banded:m=500,bw=40", "gen:blockdiag:m=300,b=7"};
    for (size_t c = 0; c < sizeof specs / sizeof specs[0]; c++) {
        char spec2[96];
        snprintf(spec2, sizeof spec2, "%s,shuffle=1", specs[c]);
        spx_csr *A = gen(ctx, specs[c]), *S = gen(ctx, spec2);
        if (!A || !S) {
            spx_csr_destroy(&A);
            spx_csr_destroy(&S);
            continue;
        }
        CHECK_MSG(S->m == A->m && S->n == A->n && S->nnz == A->nnz, "%s: shape or count changed", spec2);
        CHECK_MSG(csr_valid(S) && symmetric(S, 1), "%s: invalid or not symmetric", spec2);
        CHECK_MSG(!spx_csr_equal(A, S), "%s: the same as without shuffle", spec2);
        diag_entry *da = sorted_diagonal(A), *ds = sorted_diagonal(S);
        int32_t *p = malloc(((size_t)A->m + 1) * sizeof *p);
        CHECK_MSG(da && ds && p, "%s: no diagonal of distinct values to match", spec2);
        int same = da && ds && p;
        for (int32_t t = 0; same && t < A->m; t++) {
            same = da[t].v == ds[t].v;
            p[da[t].i] = ds[t].i;
        }
        for (int32_t i = 0; same && i < A->m; i++)
            for (int64_t k = A->rowptr[i]; same && k < A->rowptr[i + 1]; k++) {
                const int64_t t = find(S, p[i], p[A->colind[k]]);
                same = t >= 0 && S->val[t] == A->val[k];
            }
        CHECK_MSG(same, "%s: not P A P^T of %s", spec2, specs[c]);
        free(da);
        free(ds);
        free(p);
        spx_csr_destroy(&A);
        spx_csr_destroy(&S);
    }
    spx_csr *T = NULL;
    CHECK(spx_gen(ctx, "gen:uniform:m=10,k=2,shuffle=1", &T) == SPX_ERR_ARG && !T); /* not a key of uniform */
}

/* Row-length laws of the random generators. */
static void test_row_lengths(spx_ctx *ctx)
{
    spx_csr *A = gen(ctx, "gen:uniform:m=2000,n=500,k=11");
    if (A) {
        CHECK(A->m == 2000 && A->n == 500 && A->nnz == 2000 * 11);
        CHECK(min_row(A) == 11 && max_row(A) == 11);
        spx_csr_destroy(&A);
    }
    A = gen(ctx, "gen:uniform:m=20,n=16,k=16"); /* every row full */
    if (A) {
        CHECK(A->nnz == 20 * 16 && csr_valid(A));
        spx_csr_destroy(&A);
    }
    A = gen(ctx, "gen:uniform:m=300"); /* n defaults to m, k to 8 */
    if (A) {
        CHECK(A->m == 300 && A->n == 300 && A->nnz == 300 * 8);
        spx_csr_destroy(&A);
    }
    A = gen(ctx, "gen:tall");
    if (A) {
        CHECK(A->m == 100000 && A->n == 1000 && A->nnz == 200000);
        CHECK(min_row(A) == 2 && max_row(A) == 2);
        spx_csr_destroy(&A);
    }
    A = gen(ctx, "gen:wide");
    if (A) {
        CHECK(A->m == 512 && A->n == 394792);
        CHECK_MSG(A->nnz > 1000000 && A->nnz < 1250000, "wide nnz %lld", (long long)A->nnz);
        CHECK(min_row(A) >= 1 && max_row(A) <= 2 * 2200 - 1);
        CHECK_MSG(max_row(A) - min_row(A) > 2000, "wide rows %lld..%lld", (long long)min_row(A),
                  (long long)max_row(A));
        spx_csr_destroy(&A);
    }
    A = gen(ctx, "gen:banded:m=100,bw=3");
    if (A) {
        int ok = 1;
        for (int32_t i = 0; i < A->m; i++) {
            int64_t lo = i - 3 < 0 ? 0 : i - 3, hi = i + 3 > 99 ? 99 : i + 3;
            if (row_len(A, i) != hi - lo + 1 || A->colind[A->rowptr[i]] != lo) ok = 0;
        }
        CHECK(ok);
        CHECK(A->nnz == 100 * 7 - 2 * (1 + 2 + 3));
        CHECK(symmetric(A, 1));
        spx_csr_destroy(&A);
    }
    A = gen(ctx, "gen:blockdiag:m=100,b=32");
    if (A) {
        CHECK(A->nnz == 3 * 32 * 32 + 4 * 4);
        CHECK(row_len(A, 0) == 32 && row_len(A, 95) == 32 && row_len(A, 96) == 4 && row_len(A, 99) == 4);
        CHECK(A->colind[A->rowptr[40]] == 32 && A->colind[A->rowptr[41] - 1] == 63);
        CHECK(symmetric(A, 1));
        spx_csr_destroy(&A);
    }
}

/* powerlaw: a heavy tail (longest row far above the mean) with the mean near k. */
static void test_powerlaw(spx_ctx *ctx)
{
    static const struct {
        const char *spec;
        double k, tol;
    } cases[] = {
        {"gen:powerlaw:m=100000", 8, 0.2},
        {"gen:powerlaw:m=100000,alpha=3", 8, 0.05},
        {"gen:powerlaw:m=50000,n=20000,k=20,alpha=2.5", 20, 0.1},
        {"gen:powerlaw:m=20000,alpha=1.5", 8, 0.1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        spx_csr *A = gen(ctx, cases[c].spec);
        if (!A) continue;
        double mean = (double)A->nnz / A->m;
        CHECK_MSG(fabs(mean - cases[c].k) <= cases[c].tol * cases[c].k, "%s: mean row %g", cases[c].spec, mean);
        CHECK_MSG((double)max_row(A) >= 20 * mean, "%s: max row %lld, mean %g", cases[c].spec,
                  (long long)max_row(A), mean);
        CHECK(min_row(A) >= 1 && max_row(A) <= A->n);
        CHECK(csr_valid(A) && values_ok(A));
        spx_csr_destroy(&A);
    }
}

/* rmat: sizes, self-loops kept, symmetric with sym=1, the permutation only relabels. */
static void test_rmat(spx_ctx *ctx)
{
    spx_csr *A = gen(ctx, "gen:rmat:scale=8,ef=8");
    if (A) {
        CHECK(A->m == 256 && A->n == 256 && A->nnz <= 256 * 8 && A->nnz > 256 * 4);
        CHECK(!symmetric(A, 0));
        spx_csr_destroy(&A);
    }
    A = gen(ctx, "gen:rmat:scale=10,sym=1");
    if (A) {
        CHECK(A->m == 1024 && A->nnz <= 2 * 1024 * 16);
        CHECK(symmetric(A, 1));
        CHECK(csr_valid(A) && values_ok(A));
        spx_csr_destroy(&A);
    }
    /* without the permutation vertex 0 is the hub: the a-quadrant at every level is (0, 0) */
    A = gen(ctx, "gen:rmat:scale=6,ef=16,perm=0");
    spx_csr *P = gen(ctx, "gen:rmat:scale=6,ef=16,perm=1");
    if (A && P) {
        CHECK(find(A, 0, 0) >= 0);
        CHECK(row_len(A, 0) == max_row(A));
        CHECK(A->nnz == P->nnz);
        /* relabelling keeps the multiset of row lengths */
        int64_t ha[65] = {0}, hp[65] = {0};
        for (int32_t i = 0; i < 64; i++) {
            ha[row_len(A, i)]++;
            hp[row_len(P, i)]++;
        }
        CHECK(memcmp(ha, hp, sizeof ha) == 0);
        CHECK(!spx_csr_equal(A, P));
    }
    spx_csr_destroy(&A);
    spx_csr_destroy(&P);
    /* a = 1: every edge is (0, 0) before relabelling */
    A = gen(ctx, "gen:rmat:scale=5,ef=4,a=1,b=0,c=0,perm=0");
    if (A) {
        CHECK(A->nnz == 1 && A->colind[0] == 0 && row_len(A, 0) == 1);
        CHECK(A->meta.duplicates == 4 * 32 - 1);
        CHECK(A->val[0] >= -1 && A->val[0] <= 1);
        spx_csr_destroy(&A);
    }
}

/* The "gen:" prefix is optional; no keys is fine. */
static void test_spec_forms(spx_ctx *ctx)
{
    spx_csr *A = gen(ctx, "gen:poisson3d:n=3"), *B = gen(ctx, "poisson3d:n=3");
    spx_csr *C = gen(ctx, "gen:poisson3d"), *D = gen(ctx, "poisson3d:");
    spx_csr *E = gen(ctx, "gen:poisson3d:seed=1,n=3"), *F = gen(ctx, "gen:uniform:m=1e3,k=8");
    spx_csr *G = gen(ctx, "gen:uniform:m=1000,seed=18446744073709551615");
    if (A && B && C && D && E && F && G) {
        CHECK(spx_csr_equal(A, B));
        CHECK(spx_csr_equal(A, E));
        CHECK(C->m == 32 * 32 * 32 && spx_csr_equal(C, D));
        CHECK(F->m == 1000 && F->nnz == 8000);
        CHECK(G->m == 1000 && !spx_csr_equal(F, G));
    }
    spx_csr_destroy(&A);
    spx_csr_destroy(&B);
    spx_csr_destroy(&C);
    spx_csr_destroy(&D);
    spx_csr_destroy(&E);
    spx_csr_destroy(&F);
    spx_csr_destroy(&G);
}

/* Bad specs: the status, the message naming the spec and the key, the output untouched. */
static void test_bad_specs(spx_ctx *ctx)
{
    static const struct {
        const char *spec, *word; /* word: must appear in the message */
        spx_status want;
    } cases[] = {
        {"gen:nosuch", "nosuch", SPX_ERR_ARG},
        {"gen:nosuch:n=3", "nosuch", SPX_ERR_ARG},
        {"", "unknown generator", SPX_ERR_ARG},
        {"gen:", "unknown generator", SPX_ERR_ARG},
        {"gen:uniform:q=3", "'q'", SPX_ERR_ARG},
        {"gen:poisson3d:m=5", "'m'", SPX_ERR_ARG},
        {"gen:uniform:m=abc", "'m'", SPX_ERR_ARG},
        {"gen:uniform:m=12abc", "'m'", SPX_ERR_ARG},
        {"gen:uniform:m=0x10", "'m'", SPX_ERR_ARG},
        {"gen:uniform:m= 10", "'m'", SPX_ERR_ARG},
        {"gen:uniform:m=1.5", "'m'", SPX_ERR_ARG},
        {"gen:uniform:m=-5", "'m'", SPX_ERR_ARG},
        {"gen:uniform:m=1e400", "'m'", SPX_ERR_ARG},
        {"gen:uniform:m=", "'m'", SPX_ERR_ARG},
        {"gen:uniform:m", "'m'", SPX_ERR_ARG},
        {"gen:uniform:=5", "'=5'", SPX_ERR_ARG},
        {"gen:uniform:m=10,,k=2", "''", SPX_ERR_ARG},
        {"gen:uniform:m=10,", "','", SPX_ERR_ARG},
        {"gen:uniform:m=10,m=20", "'m'", SPX_ERR_ARG},
        {"gen:uniform:m=10,n=5,k=6", "'k'", SPX_ERR_ARG},
        {"gen:uniform:k=-1", "'k'", SPX_ERR_ARG},
        {"gen:tall:k=1001", "'k'", SPX_ERR_ARG},
        {"gen:wide:n=100,k=101", "'k'", SPX_ERR_ARG},
        {"gen:uniform:seed=-1", "'seed'", SPX_ERR_ARG},
        {"gen:uniform:seed=abc", "'seed'", SPX_ERR_ARG},
        {"gen:poisson3d:n=5x", "'n'", SPX_ERR_ARG},
        {"gen:poisson2d:n=-1", "'n'", SPX_ERR_ARG},
        {"gen:rmat:sym=2", "'sym'", SPX_ERR_ARG},
        {"gen:rmat:perm=-1", "'perm'", SPX_ERR_ARG},
        {"gen:rmat:scale=63", "'scale'", SPX_ERR_ARG},
        {"gen:rmat:ef=-2", "'ef'", SPX_ERR_ARG},
        {"gen:rmat:a=0.9,b=0.2", "'a'", SPX_ERR_ARG},
        {"gen:rmat:c=1.5", "'c'", SPX_ERR_ARG},
        {"gen:powerlaw:alpha=1", "'alpha'", SPX_ERR_ARG},
        {"gen:powerlaw:alpha=nan", "'alpha'", SPX_ERR_ARG},
        {"gen:powerlaw:alpha=inf", "'alpha'", SPX_ERR_ARG},
        {"gen:powerlaw:k=0.5", "'k'", SPX_ERR_ARG},
        {"gen:powerlaw:m=100,k=200", "'k'", SPX_ERR_ARG},
        {"gen:banded:bw=-1", "'bw'", SPX_ERR_ARG},
        {"gen:blockdiag:b=0", "'b'", SPX_ERR_ARG},
        {"gen:blockdiag:bw=3", "'bw'", SPX_ERR_ARG},
        /* sizes beyond int32 rows or columns */
        {"gen:poisson2d:n=50000", "gen:poisson2d:n=50000", SPX_ERR_OVERFLOW},
        {"gen:poisson3d:n=2000", "'n'", SPX_ERR_OVERFLOW},
        {"gen:poisson3d:n=4611686018427387904", "'n'", SPX_ERR_OVERFLOW},
        {"gen:stencil27:n=3000000", "'n'", SPX_ERR_OVERFLOW},
        {"gen:uniform:m=3000000000", "3000000000", SPX_ERR_OVERFLOW},
        {"gen:uniform:m=10,n=2147483648,k=1", "2147483648", SPX_ERR_OVERFLOW},
        {"gen:tall:m=1e10", "gen:tall", SPX_ERR_OVERFLOW},
        {"gen:banded:m=2147483648", "gen:banded", SPX_ERR_OVERFLOW},
        {"gen:rmat:scale=31", "'scale'", SPX_ERR_OVERFLOW},
        {"gen:rmat:scale=30,ef=4611686018427387904", "'ef'", SPX_ERR_OVERFLOW},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        spx_csr *A = NULL;
        spx_status s = spx_gen(ctx, cases[c].spec, &A);
        const char *msg = spx_ctx_last_error(ctx);
        CHECK_MSG(s == cases[c].want, "%s: got %s, want %s (%s)", cases[c].spec, spx_status_str(s),
                  spx_status_str(cases[c].want), msg);
        CHECK_MSG(A == NULL, "%s: output set on failure", cases[c].spec);
        CHECK_MSG(cases[c].spec[0] == '\0' || strstr(msg, cases[c].spec), "%s: message lacks the spec: %s",
                  cases[c].spec, msg);
        CHECK_MSG(strstr(msg, cases[c].word), "%s: message lacks %s: %s", cases[c].spec, cases[c].word, msg);
        spx_csr_destroy(&A);
    }
    spx_csr *A = NULL;
    CHECK(spx_gen(ctx, NULL, &A) == SPX_ERR_ARG && A == NULL);
    CHECK(spx_gen(ctx, "gen:poisson2d", NULL) == SPX_ERR_ARG);
    CHECK(spx_gen(NULL, "gen:poisson2d", &A) == SPX_ERR_ARG && A == NULL);
}

/* The help names every generator and the keys. */
static void test_help(void)
{
    static const char *words[] = {"poisson2d", "poisson3d", "stencil27", "rmat",  "uniform", "powerlaw",
                                  "banded",    "blockdiag", "tall",      "wide",  "seed",    "scale=10",
                                  "ef=16",     "sym=0",     "perm=1",    "a=0.57", "alpha=2", "bw=5",
                                  "b=32",      "k=8",       "n=394792"};
    const char *h = spx_gen_help();
    CHECK(h && strchr(h, '\n'));
    for (size_t i = 0; h && i < sizeof words / sizeof words[0]; i++)
        CHECK_MSG(strstr(h, words[i]), "help lacks %s", words[i]);
}

/* Failing each allocation in turn gives SPX_ERR_NOMEM and leaks nothing. */
static void test_alloc_failures(void)
{
    static const char *specs[] = {"gen:poisson2d:n=20", "gen:rmat:scale=6,sym=1", "gen:powerlaw:m=500"};
    fail_alloc f = {0, 0, 0};
    spx_allocator al = {fa_alloc, fa_realloc, fa_free, &f};
    spx_ctx *ctx = NULL;
    CHECK(spx_ctx_create(&ctx, &(spx_ctx_opts){.alloc = &al}) == SPX_OK);
    if (!ctx) return;
    long base = f.live;
    for (size_t c = 0; c < sizeof specs / sizeof specs[0]; c++) {
        int done = 0;
        for (long n = 1; n < 100 && !done; n++) {
            f.calls = 0;
            f.fail_at = n;
            spx_csr *A = NULL;
            spx_status s = spx_gen(ctx, specs[c], &A);
            f.fail_at = 0;
            if (s == SPX_OK) {
                done = 1;
                CHECK(A && csr_valid(A));
                spx_csr_destroy(&A);
            } else {
                CHECK_MSG(s == SPX_ERR_NOMEM && A == NULL, "%s: failing alloc %ld gave %s", specs[c], n,
                          spx_status_str(s));
            }
            CHECK_MSG(f.live == base, "%s: failing alloc %ld leaks %ld blocks", specs[c], n, f.live - base);
        }
        CHECK_MSG(done, "%s never succeeded", specs[c]);
    }
    spx_ctx_destroy(&ctx);
}

int main(void)
{
    spx_ctx *ctx = NULL;
    if (spx_ctx_create(&ctx, NULL) != SPX_OK) return 1;
    test_stencil_sizes(ctx);
    test_all_valid(ctx);
    test_determinism(ctx);
    test_shuffle(ctx);
    test_row_lengths(ctx);
    test_powerlaw(ctx);
    test_rmat(ctx);
    test_spec_forms(ctx);
    test_bad_specs(ctx);
    test_help();
    test_alloc_failures();
    spx_ctx_destroy(&ctx);
    return check_report();
}
