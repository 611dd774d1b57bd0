/* tests/test_io.c: reader and writer on good files, round trips, gzip, parallel, faults; the
 * same for dense vectors (spx_vec_read_mtx, spx_vec_write_mtx). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, opendir */

#include <dirent.h>
#include <sys/stat.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fail_alloc.h"
#include "io/gz.h"
#include "io/mtx_lex.h"
#include "core/rng.h"
#include "spx/spx.h"

#define GOOD SPX_TEST_DATA "/good/"

static char tmpdir[256];

/* path of name inside the test's temporary directory (a static buffer per slot). */
static const char *tmp_path(int slot, const char *name)
{
    static char buf[4][512];
    snprintf(buf[slot], sizeof buf[slot], "%s/%s", tmpdir, name);
    return buf[slot];
}

/* Checks A's shape, arrays and values exactly against the expected CSR. */
static void check_csr(const char *what, const spx_csr *A, int32_t m, int32_t n, int64_t nnz,
                      const int64_t *rowptr, const int32_t *colind, const double *val)
{
    CHECK_MSG(A != NULL, "%s: no matrix", what);
    if (!A)
        return;
    CHECK_MSG(A->m == m && A->n == n && A->nnz == nnz, "%s: got %d x %d nnz %lld", what, A->m,
              A->n, (long long)A->nnz);
    if (A->m != m || A->nnz != nnz)
        return;
    int ok = 1;
    for (int32_t i = 0; i <= m; i++)
        ok &= A->rowptr[i] == rowptr[i];
    for (int64_t k = 0; k < nnz; k++)
        ok &= A->colind[k] == colind[k] && A->val[k] == val[k];
    CHECK_MSG(ok, "%s: entries differ", what);
    if (!ok) {
        for (int32_t i = 0; i < m; i++)
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
                fprintf(stderr, "  (%d,%d) %.17g\n", i, A->colind[k], A->val[k]);
    }
}

/* Reads a file of tests/data/good with the given options; NULL (and a failed check) on error. */
static spx_csr *read_good(spx_ctx *ctx, const char *name, const spx_read_opts *o)
{
    char path[512];
    snprintf(path, sizeof path, "%s%s", GOOD, name);
    spx_csr *A = NULL;
    spx_status s = spx_mtx_read(ctx, path, o, &A, NULL);
    CHECK_MSG(s == SPX_OK, "%s: %s: %s", name, spx_status_str(s), spx_ctx_last_error(ctx));
    return A;
}

/* Checks the declared-kind metadata. */
static void check_meta(const char *what, const spx_csr *A, spx_symmetry sym, spx_field field,
                       int64_t stored, int64_t dups)
{
    if (!A)
        return;
    CHECK_MSG(A->meta.symmetry == sym && A->meta.field == field &&
                  A->meta.stored_entries == stored && A->meta.duplicates == dups,
              "%s: meta sym %d field %d stored %lld dups %lld", what, (int)A->meta.symmetry,
              (int)A->meta.field, (long long)A->meta.stored_entries,
              (long long)A->meta.duplicates);
}

/* One coordinate file per field x symmetry kind, contents checked exactly. */
static void test_coordinate_kinds(spx_ctx *ctx)
{
    spx_csr *A;

    A = read_good(ctx, "coord_real_general.mtx", NULL);
    check_csr("real general", A, 3, 4, 5, (int64_t[]){0, 2, 3, 5}, (int32_t[]){0, 3, 2, 0, 3},
              (double[]){1, 1000, 0.125, -7, -2.5});
    check_meta("real general", A, SPX_SYM_GENERAL, SPX_FIELD_REAL, 5, 0);
    spx_csr_destroy(&A);

    A = read_good(ctx, "coord_real_symmetric.mtx", NULL);
    check_csr("real symmetric", A, 3, 3, 6, (int64_t[]){0, 2, 4, 6},
              (int32_t[]){0, 1, 0, 2, 1, 2}, (double[]){2, -1.5, -1.5, 4.25, 4.25, 3});
    check_meta("real symmetric", A, SPX_SYM_SYMMETRIC, SPX_FIELD_REAL, 4, 0);
    spx_csr_destroy(&A);

    A = read_good(ctx, "coord_real_skew.mtx", NULL);
    check_csr("real skew", A, 3, 3, 4, (int64_t[]){0, 2, 3, 4}, (int32_t[]){1, 2, 0, 0},
              (double[]){-1.5, 2, 1.5, -2});
    check_meta("real skew", A, SPX_SYM_SKEW, SPX_FIELD_REAL, 2, 0);
    spx_csr_destroy(&A);

    A = read_good(ctx, "coord_real_hermitian.mtx", NULL);
    check_csr("real hermitian", A, 2, 2, 3, (int64_t[]){0, 2, 3}, (int32_t[]){0, 1, 0},
              (double[]){5, 0.5, 0.5});
    check_meta("real hermitian", A, SPX_SYM_HERMITIAN, SPX_FIELD_REAL, 2, 0);
    spx_csr_destroy(&A);

    A = read_good(ctx, "coord_integer_general.mtx", NULL);
    check_csr("integer general", A, 2, 3, 3, (int64_t[]){0, 1, 3}, (int32_t[]){1, 0, 2},
              (double[]){7, -3, 12345678901.0});
    check_meta("integer general", A, SPX_SYM_GENERAL, SPX_FIELD_INTEGER, 3, 0);
    spx_csr_destroy(&A);

    A = read_good(ctx, "coord_integer_symmetric.mtx", NULL);
    check_csr("integer symmetric", A, 3, 3, 4, (int64_t[]){0, 2, 3, 4}, (int32_t[]){0, 2, 1, 0},
              (double[]){4, -2, 9, -2});
    check_meta("integer symmetric", A, SPX_SYM_SYMMETRIC, SPX_FIELD_INTEGER, 3, 0);
    spx_csr_destroy(&A);

    A = read_good(ctx, "coord_integer_skew.mtx", NULL);
    check_csr("integer skew", A, 3, 3, 4, (int64_t[]){0, 1, 3, 4}, (int32_t[]){1, 0, 2, 1},
              (double[]){-3, 3, 4, -4});
    check_meta("integer skew", A, SPX_SYM_SKEW, SPX_FIELD_INTEGER, 2, 0);
    spx_csr_destroy(&A);

    A = read_good(ctx, "coord_integer_hermitian.mtx", NULL);
    check_csr("integer hermitian", A, 2, 2, 4, (int64_t[]){0, 2, 4}, (int32_t[]){0, 1, 0, 1},
              (double[]){1, 6, 6, -2});
    check_meta("integer hermitian", A, SPX_SYM_HERMITIAN, SPX_FIELD_INTEGER, 3, 0);
    spx_csr_destroy(&A);

    A = read_good(ctx, "coord_pattern_general.mtx", NULL);
    check_csr("pattern general", A, 3, 3, 3, (int64_t[]){0, 1, 2, 3}, (int32_t[]){2, 0, 2},
              (double[]){1, 1, 1});
    check_meta("pattern general", A, SPX_SYM_GENERAL, SPX_FIELD_PATTERN, 3, 0);
    spx_csr_destroy(&A);

    A = read_good(ctx, "coord_pattern_symmetric.mtx", NULL);
    check_csr("pattern symmetric", A, 3, 3, 5, (int64_t[]){0, 2, 3, 5},
              (int32_t[]){0, 2, 2, 0, 1}, (double[]){1, 1, 1, 1, 1});
    check_meta("pattern symmetric", A, SPX_SYM_SYMMETRIC, SPX_FIELD_PATTERN, 3, 0);
    spx_csr_destroy(&A);
}

/* Array (dense, column-major) files: general, symmetric (lower triangle), skew (strictly
 * lower); every stored value is kept, zeros included. */
static void test_array_kinds(spx_ctx *ctx)
{
    spx_csr *A;

    A = read_good(ctx, "array_real_general.mtx", NULL);
    check_csr("array general", A, 2, 3, 6, (int64_t[]){0, 3, 6}, (int32_t[]){0, 1, 2, 0, 1, 2},
              (double[]){1, 3, 5.5, 2, 4, -6});
    check_meta("array general", A, SPX_SYM_GENERAL, SPX_FIELD_REAL, 6, 0);
    spx_csr_destroy(&A);

    A = read_good(ctx, "array_integer_general.mtx", NULL);
    check_csr("array integer", A, 2, 2, 4, (int64_t[]){0, 2, 4}, (int32_t[]){0, 1, 0, 1},
              (double[]){1, 0, 0, 4});
    check_meta("array integer", A, SPX_SYM_GENERAL, SPX_FIELD_INTEGER, 4, 0);
    spx_csr_destroy(&A);

    A = read_good(ctx, "array_real_symmetric.mtx", NULL);
    check_csr("array symmetric", A, 3, 3, 9, (int64_t[]){0, 3, 6, 9},
              (int32_t[]){0, 1, 2, 0, 1, 2, 0, 1, 2}, (double[]){1, 2, 3, 2, 4, 5, 3, 5, 6});
    check_meta("array symmetric", A, SPX_SYM_SYMMETRIC, SPX_FIELD_REAL, 6, 0);
    spx_csr_destroy(&A);

    A = read_good(ctx, "array_real_skew.mtx", NULL);
    check_csr("array skew", A, 3, 3, 6, (int64_t[]){0, 2, 4, 6}, (int32_t[]){1, 2, 0, 2, 0, 1},
              (double[]){-1, -2, 1, -3, 2, 3});
    check_meta("array skew", A, SPX_SYM_SKEW, SPX_FIELD_REAL, 3, 0);
    spx_csr_destroy(&A);

    A = read_good(ctx, "array_empty.mtx", NULL);
    check_csr("array 0x0", A, 0, 0, 0, (int64_t[]){0}, NULL, NULL);
    spx_csr_destroy(&A);
}

/* Layout tolerance: case, comments, blank lines, tabs, CRLF, no final newline, empties. */
static void test_layout(spx_ctx *ctx)
{
    spx_csr *A;

    A = read_good(ctx, "mixed_case_banner.mtx", NULL);
    check_csr("mixed case", A, 2, 2, 1, (int64_t[]){0, 0, 1}, (int32_t[]){1}, (double[]){3.5});
    spx_csr_destroy(&A);

    A = read_good(ctx, "comments_blank.mtx", NULL);
    check_csr("comments", A, 2, 2, 2, (int64_t[]){0, 1, 2}, (int32_t[]){1, 0},
              (double[]){1.5, -2.5});
    spx_csr_destroy(&A);

    A = read_good(ctx, "crlf.mtx", NULL);
    check_csr("crlf", A, 2, 2, 2, (int64_t[]){0, 1, 2}, (int32_t[]){0, 1}, (double[]){1, 2});
    spx_csr_destroy(&A);

    A = read_good(ctx, "no_final_newline.mtx", NULL);
    check_csr("no final newline", A, 2, 2, 2, (int64_t[]){0, 1, 2}, (int32_t[]){0, 1},
              (double[]){1, 2});
    spx_csr_destroy(&A);

    A = read_good(ctx, "empty_0x0.mtx", NULL);
    check_csr("0x0", A, 0, 0, 0, (int64_t[]){0}, NULL, NULL);
    check_meta("0x0", A, SPX_SYM_GENERAL, SPX_FIELD_REAL, 0, 0);
    spx_csr_destroy(&A);

    A = read_good(ctx, "empty_3x2.mtx", NULL);
    check_csr("3x2 empty", A, 3, 2, 0, (int64_t[]){0, 0, 0, 0}, NULL, NULL);
    spx_csr_destroy(&A);

    /* duplicates summed in file order, counted */
    A = read_good(ctx, "duplicates.mtx", NULL);
    check_csr("duplicates", A, 2, 2, 2, (int64_t[]){0, 1, 2}, (int32_t[]){0, 0},
              (double[]){1.75, 3});
    check_meta("duplicates", A, SPX_SYM_GENERAL, SPX_FIELD_REAL, 4, 2);
    spx_csr_destroy(&A);

    /* symmetric file with entries above the diagonal: mirrored like the others; (1,2) is
     * given in both triangles, so both positions are duplicates, summed */
    A = read_good(ctx, "sym_upper.mtx", NULL);
    check_csr("sym upper", A, 3, 3, 4, (int64_t[]){0, 2, 3, 4}, (int32_t[]){1, 2, 0, 0},
              (double[]){11, 2, 11, 2});
    check_meta("sym upper", A, SPX_SYM_SYMMETRIC, SPX_FIELD_REAL, 3, 2);
    spx_csr_destroy(&A);

    /* number syntax: signs, bare points, exponents, extremes; exact as strtod gives them */
    A = read_good(ctx, "numbers.mtx", NULL);
    const char *nums[] = {"+1.5", "-.5", "3.", "1E-2", "0.1", "1.7976931348623157e308",
                          "4.9406564584124654e-324", "0.30000000000000004441"};
    double want[8];
    for (int k = 0; k < 8; k++)
        want[k] = strtod(nums[k], NULL);
    check_csr("numbers", A, 1, 8, 8, (int64_t[]){0, 8}, (int32_t[]){0, 1, 2, 3, 4, 5, 6, 7},
              want);
    spx_csr_destroy(&A);
}

/* .gz input, recognised by its magic bytes (also under a plain .mtx name). */
static void test_gzip_input(spx_ctx *ctx)
{
    if (!spx_io_gz_available()) {
        spx_csr *A = NULL;
        CHECK(spx_mtx_read(ctx, GOOD "gz_small.mtx.gz", NULL, &A, NULL) ==
              SPX_ERR_UNSUPPORTED);
        CHECK(A == NULL);
        CHECK(strstr(spx_ctx_last_error(ctx), "zlib") != NULL);
        return;
    }
    spx_csr *A = read_good(ctx, "gz_small.mtx.gz", NULL);
    check_csr("gz", A, 3, 3, 3, (int64_t[]){0, 1, 2, 3}, (int32_t[]){0, 2, 1},
              (double[]){1.5, -2, 0.25});
    spx_csr_destroy(&A);
    /* two gzip members one after the other (as `cat a.gz b.gz` makes): one text */
    A = read_good(ctx, "gz_two_members.mtx.gz", NULL);
    check_csr("gz members", A, 2, 3, 2, (int64_t[]){0, 1, 2}, (int32_t[]){2, 1},
              (double[]){-1.25, 8});
    spx_csr_destroy(&A);
    A = read_good(ctx, "gz_magic_no_suffix.mtx", NULL);
    check_csr("gz by magic", A, 2, 2, 1, (int64_t[]){0, 0, 1}, (int32_t[]){0}, (double[]){4});
    spx_csr_destroy(&A);
}

/* splitmix64 (the library's own, src/core/rng.h). */
static uint64_t rng_next(uint64_t *s) { return spx_splitmix64(s); }

/* A random finite double from random bits: every exponent, subnormals, signed zeros. */
static double rng_double(uint64_t *s)
{
    for (;;) {
        uint64_t b = rng_next(s);
        double d;
        memcpy(&d, &b, sizeof d);
        if (d == d && d - d == 0.0)
            return d;
    }
}

/* A random m x n CSR with about per_row entries per row and wild values. */
static spx_csr *random_csr(spx_ctx *ctx, int32_t m, int32_t n, int per_row, uint64_t seed)
{
    int64_t nnz = (int64_t)m * per_row;
    spx_coo *C = NULL;
    spx_csr *A = NULL;
    if (spx_coo_alloc(ctx, m, n, nnz, &C) != SPX_OK)
        return NULL;
    for (int64_t k = 0; k < nnz; k++) {
        C->row[k] = (int32_t)(rng_next(&seed) % (uint64_t)m);
        C->col[k] = (int32_t)(rng_next(&seed) % (uint64_t)n);
        C->val[k] = rng_double(&seed);
    }
    spx_coo_to_csr(ctx, C, 0, NULL, &A);
    spx_coo_destroy(&C);
    return A;
}

/* The scanners: integers with overflow detection, and reals equal to strtod's bit for bit
 * on random decimals, 17-digit %.17g text and near-midpoint 19-digit text (the cases the
 * fast paths must get right or hand to strtod). */
static void test_lexer(void)
{
    struct {
        const char *text;
        spx_lex_result r;
        int64_t v;
    } ints[] = {{"0", SPX_LEX_OK, 0},
                {"+17", SPX_LEX_OK, 17},
                {"-5", SPX_LEX_OK, -5},
                {"9223372036854775807", SPX_LEX_OK, INT64_MAX},
                {"0000000000000000000000042", SPX_LEX_OK, 42},
                {"9223372036854775808", SPX_LEX_RANGE, 0},
                {"99999999999999999999999", SPX_LEX_RANGE, 0},
                {"12a", SPX_LEX_SYNTAX, 0},
                {"-", SPX_LEX_SYNTAX, 0},
                {"1.0", SPX_LEX_SYNTAX, 0}};
    for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) {
        const char *p = ints[k].text;
        int64_t v = 0;
        spx_lex_result r = spx_lex_int64(&p, p + strlen(p), &v);
        CHECK_MSG(r == ints[k].r && (r != SPX_LEX_OK || v == ints[k].v), "int '%s': %d %lld",
                  ints[k].text, (int)r, (long long)v);
    }
    const char *bad_reals[] = {"1e", "1.5.2", "--1", "abc", "1e+", ".", "+", "0x", "1,5"};
    for (size_t k = 0; k < sizeof bad_reals / sizeof bad_reals[0]; k++) {
        const char *p = bad_reals[k];
        double v;
        CHECK_MSG(spx_lex_double(&p, p + strlen(p), &v) == SPX_LEX_SYNTAX, "real '%s'",
                  bad_reals[k]);
    }
    uint64_t seed = 99;
    long mismatches = 0;
    char buf[64];
    for (long k = 0; k < 1000000; k++) {
        uint64_t a = rng_next(&seed), b = rng_next(&seed);
        int e = (int)(b % 64) - 32;
        switch (k % 4) {
        case 0: /* %.17g of a double over 1e-32..1e32 */
            snprintf(buf, sizeof buf, "%.17g", ldexp((double)(a >> 11), -53) * pow(10.0, e));
            break;
        case 1: { /* the exact midpoint of two doubles, cut to 19 digits */
            double d = ldexp((double)((a >> 11) | (1ull << 52)), e - 52);
            long double mid = ((long double)d + (long double)nextafter(d, INFINITY)) / 2;
            snprintf(buf, sizeof buf, "%.18Le", mid);
            break;
        }
        case 2: /* up to 19 digits with an exponent */
            snprintf(buf, sizeof buf, "%llue%d", (unsigned long long)(a % 10000000000000000000ull),
                     e);
            break;
        default: /* short decimals */
            snprintf(buf, sizeof buf, "%s%llu.%llu", b & 1 ? "-" : "",
                     (unsigned long long)(a % 100000), (unsigned long long)(b % 1000000));
        }
        const char *p = buf;
        double got = 0, want = strtod(buf, NULL);
        spx_lex_result r = spx_lex_double(&p, buf + strlen(buf), &got);
        if (r != SPX_LEX_OK || memcmp(&got, &want, sizeof got) != 0) {
            if (mismatches++ < 5)
                fprintf(stderr, "real '%s': %.17g, strtod %.17g\n", buf, got, want);
        }
    }
    CHECK_MSG(mismatches == 0, "%ld reals differ from strtod", mismatches);
}

/* Writer -> reader: values exact (fp64 through %.17g), plain and gzip. */
static void test_round_trip(spx_ctx *ctx)
{
    double v[] = {0.1, 1.0 / 3.0, -1e-300, 1e300, 4.9406564584124654e-324, -0.0,
                  3.141592653589793, -2.5};
    int64_t rp[] = {0, 3, 3, 6, 8};
    int32_t ci[] = {0, 2, 3, 1, 2, 3, 0, 3};
    spx_csr *H = NULL, *B = NULL;
    CHECK_OK(ctx, spx_csr_wrap(ctx, 4, 4, 8, rp, ci, v, &H));
    const char *p = tmp_path(0, "hand.mtx");
    CHECK_OK(ctx, spx_mtx_write(ctx, p, H));
    CHECK_OK(ctx, spx_mtx_read(ctx, p, NULL, &B, NULL));
    CHECK(B && spx_csr_equal(H, B));
    CHECK(B && B->nnz == 8 && 1.0 / B->val[5] < 0); /* -0.0 kept its sign */
    CHECK(B && B->meta.symmetry == SPX_SYM_GENERAL && B->meta.field == SPX_FIELD_REAL);
    spx_csr_destroy(&B);

    spx_csr *R = random_csr(ctx, 300, 170, 9, 42);
    CHECK(R != NULL);
    p = tmp_path(0, "random.mtx");
    CHECK_OK(ctx, spx_mtx_write(ctx, p, R));
    CHECK_OK(ctx, spx_mtx_read(ctx, p, NULL, &B, NULL));
    CHECK(B && spx_csr_equal(R, B));
    spx_csr_destroy(&B);

    p = tmp_path(0, "random.mtx.gz");
    if (spx_io_gz_available()) {
        CHECK_OK(ctx, spx_mtx_write(ctx, p, R));
        FILE *f = fopen(p, "rb");
        unsigned char mg[2] = {0, 0};
        CHECK(f && fread(mg, 1, 2, f) == 2 && mg[0] == 0x1f && mg[1] == 0x8b);
        if (f)
            fclose(f);
        CHECK_OK(ctx, spx_mtx_read(ctx, p, NULL, &B, NULL));
        CHECK(B && spx_csr_equal(R, B));
        spx_csr_destroy(&B);
        /* the fscanf baseline refuses gzip */
        CHECK(spx_mtx_read_fscanf(ctx, p, &B) == SPX_ERR_UNSUPPORTED && B == NULL);
    } else {
        CHECK(spx_mtx_write(ctx, p, R) == SPX_ERR_UNSUPPORTED);
        CHECK(access(p, F_OK) != 0);
    }

    /* the fscanf baseline reads what the writer writes, identically */
    CHECK_OK(ctx, spx_mtx_read_fscanf(ctx, tmp_path(0, "random.mtx"), &B));
    CHECK(B && spx_csr_equal(R, B));
    spx_csr_destroy(&B);
    CHECK_OK(ctx, spx_mtx_read_fscanf(ctx, GOOD "coord_pattern_general.mtx", &B));
    check_csr("fscanf pattern", B, 3, 3, 3, (int64_t[]){0, 1, 2, 3}, (int32_t[]){2, 0, 2},
              (double[]){1, 1, 1});
    spx_csr_destroy(&B);
    CHECK(spx_mtx_read_fscanf(ctx, GOOD "coord_real_symmetric.mtx", &B) == SPX_ERR_UNSUPPORTED);

    /* an empty matrix round-trips too */
    spx_csr *E = NULL;
    CHECK_OK(ctx, spx_mtx_read(ctx, GOOD "empty_3x2.mtx", NULL, &E, NULL));
    p = tmp_path(0, "empty.mtx");
    CHECK_OK(ctx, spx_mtx_write(ctx, p, E));
    CHECK_OK(ctx, spx_mtx_read(ctx, p, NULL, &B, NULL));
    CHECK(B && spx_csr_equal(E, B));
    spx_csr_destroy(&B);
    spx_csr_destroy(&E);
    spx_csr_destroy(&R);
    spx_csr_destroy(&H);
}

/* Counts the entries of dir whose names start with prefix. */
static int count_prefixed(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

/* Failed writes: a clear error naming the path, and no file (final or temporary) left. */
static void test_write_failures(spx_ctx *ctx)
{
    int64_t rp[] = {0, 1};
    int32_t ci[] = {0};
    double v[] = {1};
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_csr_wrap(ctx, 1, 1, 1, rp, ci, v, &A));

    const char *p = "/nonexistent-spx-dir/sub/out.mtx";
    spx_status s = spx_mtx_write(ctx, p, A);
    CHECK(s == SPX_ERR_IO);
    CHECK(strstr(spx_ctx_last_error(ctx), p) != NULL);
    CHECK(access(p, F_OK) != 0);

    /* the target is a directory: the temporary is made beside it, the rename fails, and the
     * temporary must be gone */
    const char *d = tmp_path(1, "a_directory");
    CHECK(mkdir(d, 0755) == 0);
    s = spx_mtx_write(ctx, d, A);
    CHECK(s == SPX_ERR_IO);
    CHECK(strstr(spx_ctx_last_error(ctx), "a_directory") != NULL);
    CHECK(count_prefixed(tmpdir, "a_directory.tmp.") == 0);

    /* NULL arguments */
    CHECK(spx_mtx_write(ctx, NULL, A) == SPX_ERR_ARG);
    CHECK(spx_mtx_write(ctx, tmp_path(1, "x.mtx"), NULL) == SPX_ERR_ARG);
    CHECK(access(tmp_path(1, "x.mtx"), F_OK) != 0);
    spx_csr_destroy(&A);
}

/* What the writer told its on_temp callback. */
typedef struct temp_log {
    int named;        /* calls with a path */
    int cleared;      /* calls with NULL */
    int existed;      /* the named file existed when it was named */
    int out_of_order; /* a NULL before any path, or a path after the NULL */
    char name[512];   /* the last path named */
} temp_log;

/* spx_write_opts.on_temp that records its calls into the temp_log at user. */
static void record_temp(const char *tmp_path, void *user)
{
    temp_log *log = user;
    if (!tmp_path) {
        log->out_of_order |= log->named == 0;
        log->cleared++;
        return;
    }
    log->out_of_order |= log->cleared > 0;
    log->named++;
    log->existed = access(tmp_path, F_OK) == 0;
    snprintf(log->name, sizeof log->name, "%s", tmp_path);
}

/* spx_mtx_write_opts names its temporary once it exists and clears it once it is gone, on
 * success and on a failed rename; nothing when no temporary was made. */
static void test_write_on_temp(spx_ctx *ctx)
{
    int64_t rp[] = {0, 1};
    int32_t ci[] = {0};
    double v[] = {2.5};
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_csr_wrap(ctx, 1, 1, 1, rp, ci, v, &A));
    temp_log log = {0};
    spx_write_opts o = {.on_temp = record_temp, .user = &log};

    const char *p = tmp_path(1, "on_temp.mtx");
    CHECK_OK(ctx, spx_mtx_write_opts(ctx, p, A, &o));
    CHECK(log.named == 1 && log.cleared == 1 && !log.out_of_order && log.existed);
    CHECK(strncmp(log.name, p, strlen(p)) == 0 && strncmp(log.name + strlen(p), ".tmp.", 5) == 0);
    CHECK(access(log.name, F_OK) != 0);
    CHECK(access(p, F_OK) == 0);

    /* the rename fails (the target is a directory): named, removed, cleared */
    memset(&log, 0, sizeof log);
    const char *d = tmp_path(3, "on_temp_dir"); /* another slot: p stays valid */
    CHECK(mkdir(d, 0755) == 0);
    CHECK(spx_mtx_write_opts(ctx, d, A, &o) == SPX_ERR_IO);
    CHECK(log.named == 1 && log.cleared == 1 && !log.out_of_order && log.existed);
    CHECK(log.name[0] && access(log.name, F_OK) != 0);

    /* no temporary could be made: no call */
    memset(&log, 0, sizeof log);
    CHECK(spx_mtx_write_opts(ctx, "/nonexistent-spx-dir/out.mtx", A, &o) == SPX_ERR_IO);
    CHECK(log.named == 0 && log.cleared == 0);

    /* NULL options and a NULL callback are the plain writer */
    CHECK_OK(ctx, spx_mtx_write_opts(ctx, p, A, NULL));
    CHECK_OK(ctx, spx_mtx_write_opts(ctx, p, A, &(spx_write_opts){0}));
    CHECK(count_prefixed(tmpdir, "on_temp.mtx.tmp.") == 0);
    spx_csr_destroy(&A);
}

/* Writes a large coordinate file (> 4 MB) with comments, blank lines, duplicates and mixed
 * number forms; bad_line > 0 puts an unparsable value on that line; declared_delta shifts
 * the declared entry count. Returns the number of entries written. */
static int64_t write_big(const char *path, int sym, int64_t bad_line, int64_t bad_line2,
                         int64_t declared_delta)
{
    const int64_t n_entries = 260000;
    const int32_t m = 40000;
    uint64_t seed = 7;
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "%%%%MatrixMarket matrix coordinate real %s\n%% generated by test_io\n%d %d %lld\n",
            sym ? "symmetric" : "general", m, m, (long long)(n_entries + declared_delta));
    int64_t line = 4, pi = 1, pj = 1;
    for (int64_t k = 0; k < n_entries; k++) {
        if (k % 1000 == 999) {
            fprintf(f, "%% comment line\n");
            line++;
        }
        int64_t i = (int64_t)(rng_next(&seed) % (uint64_t)m) + 1;
        int64_t j = (int64_t)(rng_next(&seed) % (uint64_t)m) + 1;
        if (k % 500 == 499) { /* a duplicate of the previous entry */
            i = pi;
            j = pj;
        }
        if (sym && j > i) {
            int64_t t = i;
            i = j;
            j = t;
        }
        double u = (double)(rng_next(&seed) >> 11) / 9007199254740992.0 * 2.0 - 1.0;
        if (line == bad_line || line == bad_line2)
            fprintf(f, "%lld %lld x1.5\n", (long long)i, (long long)j);
        else if (k % 4 == 0)
            fprintf(f, "%lld %lld %.17g\n", (long long)i, (long long)j, u);
        else if (k % 4 == 1)
            fprintf(f, "%lld\t%lld   %d\n", (long long)i, (long long)j, (int)(u * 1000));
        else if (k % 4 == 2)
            fprintf(f, " %lld %lld %.3e \n", (long long)i, (long long)j, u * 1e5);
        else
            fprintf(f, "%lld %lld %.6f\n", (long long)i, (long long)j, u);
        line++;
        if (k % 777 == 776) {
            fputs("\n", f);
            line++;
        }
        pi = i;
        pj = j;
    }
    fclose(f);
    return n_entries;
}

/* Reads path serially and in parallel; both must agree exactly (result or message). */
static void serial_vs_parallel(spx_ctx *ctx, const char *path, const char *want_msg)
{
    spx_read_opts ser = {.parallel = -1}, par = {.parallel = 1};
    spx_read_stats ss = {0}, ps = {0};
    spx_csr *S = NULL, *P = NULL;
    char smsg[512] = "";
    spx_status s1 = spx_mtx_read(ctx, path, &ser, &S, &ss);
    snprintf(smsg, sizeof smsg, "%s", spx_ctx_last_error(ctx));
    spx_status s2 = spx_mtx_read(ctx, path, &par, &P, &ps);
    CHECK_MSG(s1 == s2, "serial %s, parallel %s", spx_status_str(s1), spx_status_str(s2));
    if (want_msg) {
        CHECK_MSG(s1 != SPX_OK && strstr(smsg, want_msg), "serial message '%s', want '%s'",
                  smsg, want_msg);
        CHECK_MSG(strcmp(smsg, spx_ctx_last_error(ctx)) == 0, "serial '%s' != parallel '%s'",
                  smsg, spx_ctx_last_error(ctx));
    } else {
        CHECK_MSG(s1 == SPX_OK, "%s", smsg);
        CHECK(S && P && spx_csr_equal(S, P));
        CHECK(S && P && memcmp(&S->meta, &P->meta, sizeof S->meta) == 0);
        CHECK(S && S->meta.duplicates > 0);
        CHECK_MSG(ss.threads == 1 && ps.threads > 1, "threads %d / %d", ss.threads,
                  ps.threads);
        CHECK(ss.bytes > 4e6 && ss.bytes == ps.bytes && ps.parse_seconds <= ps.seconds);
    }
    spx_csr_destroy(&S);
    spx_csr_destroy(&P);
}

/* Parallel and serial parses of a > 4 MB text give identical CSR, and identical first
 * errors with the right line numbers. */
static void test_parallel(void)
{
    spx_ctx *ctx = NULL;
    spx_ctx_create(&ctx, &(spx_ctx_opts){.threads = 4});
    const char *p = tmp_path(2, "big.mtx");
    char want[128];

    CHECK(write_big(p, 0, 0, 0, 0) > 0);
    serial_vs_parallel(ctx, p, NULL);
    CHECK(write_big(p, 1, 0, 0, 0) > 0);
    serial_vs_parallel(ctx, p, NULL);

    /* two bad lines far apart: the first in the file is reported, with its line number */
    CHECK(write_big(p, 0, 200001, 250002, 0) > 0);
    snprintf(want, sizeof want, "big.mtx:%d: invalid real value 'x1.5'", 200001);
    serial_vs_parallel(ctx, p, want);

    /* declared fewer than present: the first extra entry's line */
    CHECK(write_big(p, 0, 0, 0, -5) > 0);
    serial_vs_parallel(ctx, p, "more entries than the 259995 declared");
    /* declared more than present */
    CHECK(write_big(p, 1, 0, 0, 3) > 0);
    serial_vs_parallel(ctx, p, "file ends after 260000 of 260003 entries");
    remove(p);
    spx_ctx_destroy(&ctx);
}

typedef struct catalogue_row {
    char name[128];
    long long m, n, nnz;
    int sym;
} catalogue_row;

/* Shared files that are 0-based (lesmis: column 0 on line 3, no index reaches 77): read and
 * shifted by default, rejected under strict. */
static const char *const known_zero_based[] = {"lesmis"};

/* Every shared real matrix reads, with the catalogue's rows, cols and stored entries. */
static void test_shared(spx_ctx *ctx)
{
    static catalogue_row rows[512];
    int nrows = 0;
    FILE *f = fopen(SPX_SHARED_MATRICES "/CATALOGUE.tsv", "r");
    if (!f) {
        printf("shared matrices not found at %s: skipped\n", SPX_SHARED_MATRICES);
        return;
    }
    char line[1024], sym[16];
    while (fgets(line, sizeof line, f) && nrows < 512) {
        catalogue_row *r = &rows[nrows];
        if (sscanf(line, "%127[^\t]\t%lld\t%lld\t%lld\t%15[^\t]", r->name, &r->m, &r->n,
                   &r->nnz, sym) == 5) {
            r->sym = strcmp(sym, "yes") == 0;
            nrows++;
        }
    }
    fclose(f);
    CHECK(nrows > 0);

    DIR *d = opendir(SPX_SHARED_MATRICES);
    CHECK(d != NULL);
    if (!d)
        return;
    int files = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 8 || strcmp(e->d_name + len - 7, ".mtx.gz") != 0)
            continue;
        files++;
        char name[128], path[1024];
        snprintf(name, sizeof name, "%.*s", (int)(len - 7), e->d_name);
        snprintf(path, sizeof path, "%s/%s", SPX_SHARED_MATRICES, e->d_name);
        const catalogue_row *r = NULL;
        for (int k = 0; k < nrows; k++)
            if (strcmp(rows[k].name, name) == 0)
                r = &rows[k];
        CHECK_MSG(r != NULL, "%s is not in CATALOGUE.tsv", name);
        int zero_based = 0;
        for (size_t k = 0; k < sizeof known_zero_based / sizeof known_zero_based[0]; k++)
            zero_based |= strcmp(known_zero_based[k], name) == 0;
        spx_csr *A = NULL;
        spx_status s = spx_mtx_read(ctx, path, NULL, &A, NULL);
        if (!spx_io_gz_available()) { /* a build without zlib refuses them clearly */
            CHECK_MSG(s == SPX_ERR_UNSUPPORTED && strstr(spx_ctx_last_error(ctx), "no zlib"),
                      "%s: %s", name, spx_ctx_last_error(ctx));
            continue;
        }
        CHECK_MSG(s == SPX_OK, "%s: %s", name, spx_ctx_last_error(ctx));
        CHECK_MSG(!A || A->meta.zero_based == zero_based, "%s: zero_based = %d", name,
                  A ? A->meta.zero_based : -1);
        if (zero_based) {
            spx_csr *S = NULL;
            spx_read_opts strict = {.strict = 1};
            CHECK(spx_mtx_read(ctx, path, &strict, &S, NULL) == SPX_ERR_PARSE && !S);
            CHECK_MSG(strstr(spx_ctx_last_error(ctx), ":3: index 0 out of range") != NULL, "%s",
                      spx_ctx_last_error(ctx));
        }
        if (A && r) {
            CHECK_MSG(A->m == r->m && A->n == r->n && A->meta.stored_entries == r->nnz,
                      "%s: %d x %d stored %lld, catalogue %lld x %lld nnz %lld", name, A->m,
                      A->n, (long long)A->meta.stored_entries, r->m, r->n, r->nnz);
            CHECK_MSG((A->meta.symmetry != SPX_SYM_GENERAL) == r->sym, "%s: symmetry", name);
            CHECK_MSG(spx_csr_check(ctx, A) == SPX_OK, "%s: %s", name, spx_ctx_last_error(ctx));
        }
        spx_csr_destroy(&A);
    }
    closedir(d);
    CHECK(files == nrows);
    printf("shared matrices: %d files checked\n", files);
}

/* For n = 1.. until the read succeeds: failing the n-th allocation gives SPX_ERR_NOMEM,
 * leaves *out alone and leaks nothing. Returns the number of failing runs. */
static int inject_read(const char *path, const spx_read_opts *o, spx_status final, int threads)
{
    fail_alloc st = {0, 0, 0};
    spx_allocator al = {fa_alloc, fa_realloc, fa_free, &st};
    spx_ctx *ctx = NULL;
    spx_ctx_create(&ctx, &(spx_ctx_opts){.alloc = &al, .threads = threads});
    int failures = 0;
    for (long n = 1; n < 10000; n++) {
        long live0 = st.live;
        st.calls = 0;
        st.fail_at = n;
        spx_csr *A = NULL;
        spx_status s = spx_mtx_read(ctx, path, o, &A, NULL);
        if (st.calls < n) { /* no allocation failed: the final outcome */
            CHECK_MSG(s == final, "%s: %s", path, spx_ctx_last_error(ctx));
            spx_csr_destroy(&A);
            CHECK_MSG(st.live == live0, "%s: %ld blocks leaked after success", path,
                      st.live - live0);
            break;
        }
        failures++;
        CHECK_MSG(s == SPX_ERR_NOMEM && A == NULL, "%s: alloc %ld failed: %s (%s)", path, n,
                  spx_status_str(s), spx_ctx_last_error(ctx));
        CHECK_MSG(st.live == live0, "%s: alloc %ld failed: %ld blocks leaked", path, n,
                  st.live - live0);
        spx_csr_destroy(&A);
    }
    spx_ctx_destroy(&ctx);
    CHECK(st.live == 0);
    return failures;
}

/* The same for the writer: every failure leaves no file and no leak. */
static void inject_write(const char *path)
{
    fail_alloc st = {0, 0, 0};
    spx_allocator al = {fa_alloc, fa_realloc, fa_free, &st};
    spx_ctx *ctx = NULL;
    spx_ctx_create(&ctx, &(spx_ctx_opts){.alloc = &al});
    spx_csr *R = random_csr(ctx, 50, 40, 4, 3);
    CHECK(R != NULL);
    for (long n = 1; R && n < 1000; n++) {
        long live0 = st.live;
        st.calls = 0;
        st.fail_at = n;
        spx_status s = spx_mtx_write(ctx, path, R);
        if (st.calls < n) {
            CHECK_OK(ctx, s);
            break;
        }
        CHECK_MSG(s == SPX_ERR_NOMEM, "write alloc %ld: %s", n, spx_ctx_last_error(ctx));
        CHECK(access(path, F_OK) != 0);
        CHECK(st.live == live0);
    }
    st.fail_at = 0;
    spx_csr_destroy(&R);
    spx_ctx_destroy(&ctx);
    CHECK(st.live == 0);
    remove(path);
}

/* Allocation-failure injection over the reader's paths: plain, gzip, symmetric, array,
 * parallel, strict duplicate reporting, parse errors. */
static void test_alloc_failures(void)
{
    spx_read_opts strict = {.strict = 1};
    CHECK(inject_read(GOOD "coord_real_general.mtx", NULL, SPX_OK, 0) > 3);
    CHECK(inject_read(GOOD "coord_real_symmetric.mtx", NULL, SPX_OK, 0) > 3);
    CHECK(inject_read(GOOD "array_real_skew.mtx", NULL, SPX_OK, 0) > 3);
    CHECK(inject_read(GOOD "empty_0x0.mtx", NULL, SPX_OK, 0) > 1);
    CHECK(inject_read(GOOD "duplicates.mtx", &strict, SPX_ERR_PARSE, 0) > 3);
    CHECK(inject_read(SPX_TEST_DATA "/bad/too_many_entries.mtx", NULL, SPX_ERR_PARSE, 0) > 1);
    if (spx_io_gz_available())
        CHECK(inject_read(GOOD "gz_small.mtx.gz", NULL, SPX_OK, 0) > 4);
    const char *big = tmp_path(2, "big_inject.mtx");
    CHECK(write_big(big, 1, 0, 0, 0) > 0);
    CHECK(inject_read(big, NULL, SPX_OK, 4) > 3);
    remove(big);
    if (spx_io_gz_available())
        inject_write(tmp_path(2, "inject.mtx.gz"));
    inject_write(tmp_path(2, "inject.mtx"));
}

/* Sources: a path or a gen: spec; bad arguments and missing files. */
static void test_load_and_args(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_load(ctx, GOOD "coord_real_general.mtx", NULL, &A));
    CHECK(A && A->m == 3 && A->n == 4 && A->nnz == 5);
    spx_csr_destroy(&A);
    CHECK_OK(ctx, spx_load(ctx, "gen:poisson2d:n=4", NULL, &A));
    CHECK(A && A->m > 0 && A->nnz > 0);
    spx_csr_destroy(&A);

    spx_read_stats st = {0};
    CHECK_OK(ctx, spx_mtx_read(ctx, GOOD "coord_real_general.mtx", NULL, &A, &st));
    CHECK(st.bytes == 131 && st.threads == 1 && st.seconds >= st.parse_seconds);
    spx_csr_destroy(&A);

    const char *missing = SPX_TEST_DATA "/good/no_such_file.mtx";
    CHECK(spx_mtx_read(ctx, missing, NULL, &A, NULL) == SPX_ERR_IO && A == NULL);
    CHECK(strstr(spx_ctx_last_error(ctx), "no_such_file.mtx") != NULL);
    CHECK(spx_load(ctx, missing, NULL, &A) == SPX_ERR_IO && A == NULL);
    CHECK(spx_mtx_read(ctx, SPX_TEST_DATA "/good", NULL, &A, NULL) == SPX_ERR_IO && A == NULL);
    CHECK(spx_mtx_read(ctx, NULL, NULL, &A, NULL) == SPX_ERR_ARG);
    CHECK(spx_mtx_read(ctx, missing, NULL, NULL, NULL) == SPX_ERR_ARG);
    CHECK(spx_mtx_read(NULL, missing, NULL, &A, NULL) == SPX_ERR_ARG);
    CHECK(spx_load(ctx, NULL, NULL, &A) == SPX_ERR_ARG);
    CHECK(spx_mtx_read_fscanf(ctx, missing, &A) == SPX_ERR_IO && A == NULL);
}

/* ---- dense vectors: spx_vec_read_mtx / spx_vec_write_mtx ------------------------------------ */

/* Reads a vector file expected to hold exactly want[0..n) (bit for bit); frees it. */
static void check_vector(spx_ctx *ctx, const char *what, const char *path, int64_t n, const double *want)
{
    int64_t got_n = -1;
    double *x = NULL;
    spx_status s = spx_vec_read_mtx(ctx, path, &got_n, &x);
    CHECK_MSG(s == SPX_OK, "%s: %s: %s", what, spx_status_str(s), spx_ctx_last_error(ctx));
    CHECK_MSG(s || (got_n == n && x != NULL), "%s: %lld entries, want %lld", what, (long long)got_n, (long long)n);
    if (!s && got_n == n && n > 0)
        CHECK_MSG(memcmp(x, want, (size_t)n * sizeof *x) == 0, "%s: values differ", what);
    if (!s) spx_free(ctx, x);
}

/* Writes text to a file of the temporary directory; returns its path (slot 1). */
static const char *write_text(const char *name, const char *text)
{
    const char *p = tmp_path(1, name);
    FILE *f = fopen(p, "wb");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return p;
}

/* Writer -> reader, exact: extremes, subnormals, signed zero, random bits, plain and gzip,
 * empty; the file is the documented array format. */
static void test_vector_round_trip(spx_ctx *ctx)
{
    double v[] = {0.1, 1.0 / 3.0, -1e-300, 1e300, 4.9406564584124654e-324, -0.0, 3.141592653589793,
                  -2.5, 1.7976931348623157e308, -2.2250738585072014e-308, 123456789012345678.0};
    int64_t n = (int64_t)(sizeof v / sizeof v[0]);
    const char *p = tmp_path(0, "v.mtx");
    CHECK_OK(ctx, spx_vec_write_mtx(ctx, p, n, v));
    check_vector(ctx, "hand-picked values", p, n, v);
    FILE *f = fopen(p, "r");
    char l1[128] = "", l2[128] = "";
    CHECK(f && fgets(l1, sizeof l1, f) && fgets(l2, sizeof l2, f));
    if (f) fclose(f);
    CHECK_MSG(!strcmp(l1, "%%MatrixMarket matrix array real general\n") && !strcmp(l2, "11 1\n"), "header '%s' '%s'",
              l1, l2);

    static double r[5000];
    uint64_t seed = 77;
    for (int k = 0; k < 5000; k++) r[k] = rng_double(&seed);
    p = tmp_path(0, "r.mtx");
    CHECK_OK(ctx, spx_vec_write_mtx(ctx, p, 5000, r));
    check_vector(ctx, "random bits", p, 5000, r);
    p = tmp_path(0, "r.mtx.gz");
    if (spx_io_gz_available()) {
        CHECK_OK(ctx, spx_vec_write_mtx(ctx, p, 5000, r));
        check_vector(ctx, "random bits, gzip", p, 5000, r);
    } else {
        CHECK(spx_vec_write_mtx(ctx, p, 5000, r) == SPX_ERR_UNSUPPORTED && access(p, F_OK) != 0);
    }

    p = tmp_path(0, "empty.mtx"); /* n = 0: a valid file, a block to free */
    CHECK_OK(ctx, spx_vec_write_mtx(ctx, p, 0, NULL));
    check_vector(ctx, "empty", p, 0, NULL);

    double odd[] = {NAN, INFINITY, -INFINITY, -0.0}; /* written as printf spells them, read back */
    p = tmp_path(0, "nan.mtx");
    CHECK_OK(ctx, spx_vec_write_mtx(ctx, p, 4, odd));
    int64_t m = 0;
    double *x = NULL;
    CHECK_OK(ctx, spx_vec_read_mtx(ctx, p, &m, &x));
    CHECK(x && m == 4 && isnan(x[0]) && x[1] == INFINITY && x[2] == -INFINITY && x[3] == 0 && signbit(x[3]));
    spx_free(ctx, x);
}

/* What the reader accepts: the matrix reader's layout (case, comments, blank lines, CRLF,
 * blanks, no final newline), integer files, written nan/inf, gzip by its magic bytes. */
static void test_vector_layout(spx_ctx *ctx)
{
    check_vector(ctx, "layout",
                 write_text("layout.mtx", "%%matrixmarket MATRIX Array REAL General\r\n% comment\r\n\r\n3 1\r\n"
                                          "1.5\r\n\r\n% mid comment\r\n-2\r\n  3e2  "),
                 3, (double[]){1.5, -2, 300});
    check_vector(ctx, "integer",
                 write_text("int.mtx", "%%MatrixMarket matrix array integer general\n2 1\n-7\n12345678901\n"), 2,
                 (double[]){-7, 12345678901.0});
    int64_t n = 0;
    double *x = NULL;
    CHECK_OK(ctx, spx_vec_read_mtx(ctx, write_text("inf.mtx", "%%MatrixMarket matrix array real general\n3 1\n"
                                                               "-inf\nNaN\n0x1p-3\n"),
                                   &n, &x));
    CHECK(x && n == 3 && x[0] == -INFINITY && isnan(x[1]) && x[2] == 0.125);
    spx_free(ctx, x);
    if (spx_io_gz_available()) { /* the writer's gzip, under a name without .gz */
        const char *gz = tmp_path(0, "plain_name.mtx.gz"), *plain = tmp_path(2, "plain_name.mtx");
        CHECK_OK(ctx, spx_vec_write_mtx(ctx, gz, 3, (double[]){1, 2, 3}));
        CHECK(rename(gz, plain) == 0);
        check_vector(ctx, "gzip by magic", plain, 3, (double[]){1, 2, 3});
    }
}

/* Writes an n-entry vector file by hand: value k is k/8 (exact), with a comment line every
 * 1000 entries; bad_line > 0 puts "x1.5" on that line. Returns the path (slot 2). */
static const char *write_big_vector(const char *name, int64_t n, int64_t declared, int64_t bad_line)
{
    const char *p = tmp_path(2, name);
    FILE *f = fopen(p, "w");
    if (!f) return p;
    fprintf(f, "%%%%MatrixMarket matrix array real general\n%lld 1\n", (long long)declared);
    int64_t line = 3;
    for (int64_t k = 0; k < n; k++, line++) {
        if (k % 1000 == 999) {
            fputs("% comment\n", f);
            line++;
        }
        if (line == bad_line)
            fputs("x1.5\n", f);
        else
            fprintf(f, "%.17g\n", (double)k / 8 + 1e6);
    }
    fclose(f);
    return p;
}

/* Over 4 MB of text: parsed in parallel, the same values as the matrix reader's n x 1 matrix,
 * and the first bad line (or the count) reported with its line number. */
static void test_vector_parallel(void)
{
    spx_ctx *ctx = NULL;
    spx_ctx_create(&ctx, &(spx_ctx_opts){.threads = 4});
    const int64_t n = 400000;
    const char *p = write_big_vector("big_vec.mtx", n, n, 0);
    int64_t got = 0;
    double *x = NULL;
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_vec_read_mtx(ctx, p, &got, &x));
    spx_read_stats st = {0};
    CHECK_OK(ctx, spx_mtx_read(ctx, p, NULL, &A, &st));
    CHECK_MSG(st.threads > 1 && st.bytes > 4e6, "not a parallel read: %d threads, %.0f bytes", st.threads, st.bytes);
    int ok = x && A && got == n && A->m == n && A->n == 1 && A->nnz == n;
    for (int64_t k = 0; ok && k < n; k++) ok = x[k] == (double)k / 8 + 1e6 && A->val[k] == x[k];
    CHECK_MSG(ok, "big vector: values differ from k/8 + 1e6 or from the matrix read");
    spx_free(ctx, x);
    spx_csr_destroy(&A);

    char want[128];
    p = write_big_vector("big_vec.mtx", n, n, 350007);
    snprintf(want, sizeof want, "big_vec.mtx:350007: invalid real value 'x1.5'");
    x = NULL;
    CHECK(spx_vec_read_mtx(ctx, p, &got, &x) == SPX_ERR_PARSE && x == NULL);
    CHECK_MSG(strstr(spx_ctx_last_error(ctx), want), "'%s', want '%s'", spx_ctx_last_error(ctx), want);
    p = write_big_vector("big_vec.mtx", n, n - 5, 0);
    CHECK(spx_vec_read_mtx(ctx, p, &got, &x) == SPX_ERR_PARSE && x == NULL);
    CHECK_MSG(strstr(spx_ctx_last_error(ctx), "more entries than the 399995 declared"), "%s", spx_ctx_last_error(ctx));
    p = write_big_vector("big_vec.mtx", n, n + 3, 0);
    CHECK(spx_vec_read_mtx(ctx, p, &got, &x) == SPX_ERR_PARSE && x == NULL);
    CHECK_MSG(strstr(spx_ctx_last_error(ctx), "file ends after 400000 of 400003 entries"), "%s",
              spx_ctx_last_error(ctx));
    remove(p);
    spx_ctx_destroy(&ctx);
}

/* The host budget is checked before the values' array is allocated: 200000 one-digit values
 * (400 kB of text, 1.6 MB of doubles) under a 1 MB budget are refused, naming the need. */
static void test_vector_budget(void)
{
    const char *p = tmp_path(2, "ones.mtx");
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs("%%MatrixMarket matrix array real general\n200000 1\n", f);
    for (int k = 0; k < 200000; k++) fputs("1\n", f);
    fclose(f);
    spx_ctx *ctx = NULL;
    spx_ctx_create(&ctx, &(spx_ctx_opts){.host_budget = 1000000});
    int64_t n = -1;
    double *x = NULL;
    CHECK(spx_vec_read_mtx(ctx, p, &n, &x) == SPX_ERR_NOMEM && x == NULL && n == -1);
    CHECK_MSG(strstr(spx_ctx_last_error(ctx), "ones.mtx: reading a vector of 200000 entries needs 1.6 MB; host budget"),
              "%s", spx_ctx_last_error(ctx));
    spx_mem_stats ms;
    spx_ctx_mem_stats(ctx, &ms);
    CHECK(ms.host_bytes == 0 && ms.host_peak < 1000000);
    spx_ctx_destroy(&ctx);
    remove(p);
}

/* Bad arguments and failed writes: clear errors, no file (final or temporary) left; the
 * temporary's name reported to on_temp like the matrix writer's. */
static void test_vector_errors(spx_ctx *ctx)
{
    double v[] = {1, 2};
    int64_t n = 0;
    double *x = NULL;
    const char *missing = GOOD "no_such_vector.mtx";
    CHECK(spx_vec_read_mtx(ctx, missing, &n, &x) == SPX_ERR_IO && x == NULL);
    CHECK(strstr(spx_ctx_last_error(ctx), "no_such_vector.mtx") != NULL);
    CHECK(spx_vec_read_mtx(ctx, NULL, &n, &x) == SPX_ERR_ARG);
    CHECK(spx_vec_read_mtx(ctx, missing, NULL, &x) == SPX_ERR_ARG);
    CHECK(spx_vec_read_mtx(ctx, missing, &n, NULL) == SPX_ERR_ARG);
    CHECK(spx_vec_read_mtx(NULL, missing, &n, &x) == SPX_ERR_ARG);

    const char *p = tmp_path(1, "w.mtx");
    CHECK(spx_vec_write_mtx(ctx, NULL, 2, v) == SPX_ERR_ARG);
    CHECK(spx_vec_write_mtx(ctx, p, 2, NULL) == SPX_ERR_ARG);
    CHECK(spx_vec_write_mtx(ctx, p, -1, v) == SPX_ERR_ARG);
    CHECK(spx_vec_write_mtx(ctx, p, (int64_t)INT32_MAX + 1, v) == SPX_ERR_OVERFLOW);
    CHECK(strstr(spx_ctx_last_error(ctx), "exceeds the readers' int32 limit") != NULL);
    CHECK(spx_vec_write_mtx(NULL, p, 2, v) == SPX_ERR_ARG);
    CHECK(access(p, F_OK) != 0);
    CHECK(spx_vec_write_mtx(ctx, "/nonexistent-spx-dir/v.mtx", 2, v) == SPX_ERR_IO);
    const char *d = tmp_path(3, "vec_dir");
    CHECK(mkdir(d, 0755) == 0);
    CHECK(spx_vec_write_mtx(ctx, d, 2, v) == SPX_ERR_IO);
    CHECK(count_prefixed(tmpdir, "vec_dir.tmp.") == 0);

    temp_log log = {0};
    spx_write_opts o = {.on_temp = record_temp, .user = &log};
    CHECK_OK(ctx, spx_vec_write_mtx_opts(ctx, p, 2, v, &o));
    CHECK(log.named == 1 && log.cleared == 1 && !log.out_of_order && log.existed && access(log.name, F_OK) != 0);
    check_vector(ctx, "written with options", p, 2, v);
}

/* Allocation failures in the vector reader and writer: SPX_ERR_NOMEM, nothing returned or
 * written, nothing leaked. */
static void test_vector_alloc_failures(void)
{
    fail_alloc st = {0, 0, 0};
    spx_allocator al = {fa_alloc, fa_realloc, fa_free, &st};
    spx_ctx *ctx = NULL;
    spx_ctx_create(&ctx, &(spx_ctx_opts){.alloc = &al, .threads = 4});
    double v[300];
    for (int k = 0; k < 300; k++) v[k] = k * 0.25;
    const char *paths[] = {tmp_path(0, "inject_vec.mtx"), tmp_path(1, "inject_vec.mtx.gz")};
    for (int g = 0; g < 2 - !spx_io_gz_available(); g++) {
        int failures = 0;
        for (long k = 1; k < 1000; k++) { /* the writer */
            st.calls = 0;
            st.fail_at = k;
            remove(paths[g]);
            spx_status s = spx_vec_write_mtx(ctx, paths[g], 300, v);
            if (st.calls < k) {
                CHECK_OK(ctx, s);
                break;
            }
            failures++;
            CHECK_MSG(s == SPX_ERR_NOMEM && access(paths[g], F_OK) != 0, "write alloc %ld: %s", k, spx_status_str(s));
        }
        CHECK(failures >= 2);
        failures = 0;
        for (long k = 1; k < 1000; k++) { /* the reader */
            long live0 = st.live;
            st.calls = 0;
            st.fail_at = k;
            int64_t n = -1;
            double *x = NULL;
            spx_status s = spx_vec_read_mtx(ctx, paths[g], &n, &x);
            if (st.calls < k) {
                CHECK_OK(ctx, s);
                CHECK(n == 300 && x && !memcmp(x, v, sizeof v));
                spx_free(ctx, x);
                break;
            }
            failures++;
            CHECK_MSG(s == SPX_ERR_NOMEM && x == NULL && n == -1 && st.live == live0, "read alloc %ld: %s", k,
                      spx_status_str(s));
        }
        CHECK(failures >= 3);
    }
    st.fail_at = 0;
    spx_ctx_destroy(&ctx);
    CHECK(st.live == 0);
}

/* Removes the temporary directory and everything in it. */
static void remove_tmpdir(void)
{
    DIR *d = opendir(tmpdir);
    if (!d)
        return;
    struct dirent *e;
    char p[1024];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
        if (remove(p) != 0)
            rmdir(p);
    }
    closedir(d);
    rmdir(tmpdir);
}

/* A 0-based file (no index reaches m or n) is read shifted; strict rejects it. */
static void test_zero_based(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    const char *path = SPX_TEST_DATA "/good/zero_based.mtx";
    CHECK_OK(ctx, spx_mtx_read(ctx, path, NULL, &A, NULL));
    if (A) {
        CHECK(A->m == 3 && A->n == 4 && A->nnz == 3 && A->meta.zero_based == 1);
        CHECK(A->rowptr[1] == 1 && A->colind[0] == 0 && A->val[0] == 1.5);
        CHECK(A->rowptr[2] == 2 && A->colind[1] == 1 && A->val[1] == -1);
        CHECK(A->rowptr[3] == 3 && A->colind[2] == 3 && A->val[2] == 2.5);
    }
    spx_csr_destroy(&A);
    spx_read_opts strict = {.strict = 1};
    CHECK(spx_mtx_read(ctx, path, &strict, &A, NULL) == SPX_ERR_PARSE && !A);
    CHECK(strstr(spx_ctx_last_error(ctx), "zero_based.mtx:4: index 0 out of range") != NULL);
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/spx_test_io.XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    spx_ctx *ctx = NULL;
    CHECK(spx_ctx_create(&ctx, NULL) == SPX_OK);
    test_lexer();
    test_coordinate_kinds(ctx);
    test_array_kinds(ctx);
    test_layout(ctx);
    test_gzip_input(ctx);
    test_round_trip(ctx);
    test_write_failures(ctx);
    test_write_on_temp(ctx);
    test_load_and_args(ctx);
    test_shared(ctx);
    test_zero_based(ctx);
    test_parallel();
    test_alloc_failures();
    test_vector_round_trip(ctx);
    test_vector_layout(ctx);
    test_vector_parallel();
    test_vector_budget();
    test_vector_errors(ctx);
    test_vector_alloc_failures();
    spx_ctx_destroy(&ctx);
    remove_tmpdir();
    return check_report();
}
