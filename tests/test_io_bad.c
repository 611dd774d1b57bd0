/* tests/test_io_bad.c: bad files rejected as EXPECTED.tsv says (matrices: data/bad; vectors:
 * data/bad_vec); strict-mode rejections. */
#define _POSIX_C_SOURCE 200809L /* opendir */

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "io/gz.h"
#include "spx/spx.h"

#define BAD SPX_TEST_DATA "/bad/"
#define BAD_VEC SPX_TEST_DATA "/bad_vec/"
#define GOOD SPX_TEST_DATA "/good/"
#define MAX_EXPECTED 256

typedef struct expected {
    char file[128];
    char status[32];
    char substring[256];
    int seen; /* found in the directory */
} expected;

/* Loads dir's EXPECTED.tsv (file, status, substring; # comments); returns the row count. */
static int load_expected(const char *dir, expected *ex, int cap)
{
    char tsv[512];
    snprintf(tsv, sizeof tsv, "%sEXPECTED.tsv", dir);
    FILE *f = fopen(tsv, "r");
    CHECK_MSG(f != NULL, "cannot open %s", tsv);
    if (!f)
        return 0;
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        line[strcspn(line, "\r\n")] = '\0';
        CHECK_MSG(n < cap, "EXPECTED.tsv too long");
        if (n >= cap)
            break;
        int ok = sscanf(line, "%127[^\t]\t%31[^\t]\t%255[^\n]", ex[n].file, ex[n].status,
                        ex[n].substring) == 3;
        CHECK_MSG(ok, "EXPECTED.tsv: bad row '%s'", line);
        if (ok)
            ex[n++].seen = 0;
    }
    fclose(f);
    return n;
}

/* 1 when name ends with suffix. */
static int ends_with(const char *name, const char *suffix)
{
    size_t n = strlen(name), s = strlen(suffix);
    return n >= s && strcmp(name + n - s, suffix) == 0;
}

/* The path of e's file in dir, the message part it must produce ("<file><substring>") and the
 * status; a gzip file in a build without zlib must be refused as such instead. */
static const char *expectation(const char *dir, const expected *e, char *path, char *want, size_t len)
{
    snprintf(path, len, "%s%s", dir, e->file);
    snprintf(want, len, "%s%s", e->file, e->substring);
    if (!(ends_with(e->file, ".gz") && !spx_io_gz_available())) return e->status;
    snprintf(want, len, "%s", "no zlib");
    return "SPX_ERR_UNSUPPORTED";
}

/* Reads one bad file, serially and with default options, strict and not: each must fail
 * with the expected status and "<file><substring>" in the message, output untouched. */
static void check_bad_file(spx_ctx *ctx, const expected *e)
{
    char path[512], want[512];
    const char *want_status = expectation(BAD, e, path, want, sizeof path);
    spx_read_opts variants[3] = {{.strict = 0}, {.parallel = -1}, {.strict = 1}};
    for (int v = 0; v < 3; v++) {
        spx_csr *A = (spx_csr *)&variants; /* a sentinel: must be left untouched */
        spx_status s = spx_mtx_read(ctx, path, &variants[v], &A, NULL);
        const char *msg = spx_ctx_last_error(ctx);
        CHECK_MSG(s != SPX_OK && strcmp(spx_status_str(s), want_status) == 0,
                  "%s: got %s (%s), want %s", e->file, spx_status_str(s), msg, want_status);
        CHECK_MSG(strstr(msg, want) != NULL, "%s: message '%s' lacks '%s'", e->file, msg, want);
        CHECK_MSG(A == (spx_csr *)&variants, "%s: output was written", e->file);
        if (s == SPX_OK && A != (spx_csr *)&variants)
            spx_csr_destroy(&A);
    }
    /* the fscanf baseline is lax, but must not crash or leak on these */
    spx_csr *B = NULL;
    if (spx_mtx_read_fscanf(ctx, path, &B) == SPX_OK)
        spx_csr_destroy(&B);
}

/* Reads one bad vector file: it must fail with the expected status and "<file><substring>" in
 * the message, outputs untouched, nothing left accounted. */
static void check_bad_vector(spx_ctx *ctx, const expected *e)
{
    char path[512], want[512];
    const char *want_status = expectation(BAD_VEC, e, path, want, sizeof path);
    int64_t n = -3;
    double *x = (double *)&n;
    spx_mem_stats before, after;
    spx_ctx_mem_stats(ctx, &before);
    spx_status s = spx_vec_read_mtx(ctx, path, &n, &x);
    spx_ctx_mem_stats(ctx, &after);
    const char *msg = spx_ctx_last_error(ctx);
    CHECK_MSG(s != SPX_OK && strcmp(spx_status_str(s), want_status) == 0, "%s: got %s (%s), want %s", e->file,
              spx_status_str(s), msg, want_status);
    CHECK_MSG(strstr(msg, want) != NULL, "%s: message '%s' lacks '%s'", e->file, msg, want);
    CHECK_MSG(n == -3 && x == (double *)&n, "%s: outputs were written", e->file);
    CHECK_MSG(after.host_bytes == before.host_bytes, "%s: %zu bytes left accounted", e->file,
              after.host_bytes - before.host_bytes);
}

/* Every file in dir is listed in its EXPECTED.tsv (at least min_rows rows) and rejected as
 * listed by check; every listed file exists. */
static void check_bad_dir(spx_ctx *ctx, const char *dir, int min_rows, void (*check)(spx_ctx *, const expected *))
{
    static expected ex[MAX_EXPECTED];
    int n = load_expected(dir, ex, MAX_EXPECTED);
    CHECK(n >= min_rows);
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d)
        return;
    struct dirent *de;
    int files = 0;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.' || strcmp(de->d_name, "EXPECTED.tsv") == 0)
            continue;
        files++;
        int found = 0;
        for (int k = 0; k < n; k++)
            if (strcmp(ex[k].file, de->d_name) == 0) {
                ex[k].seen++;
                found = 1;
            }
        CHECK_MSG(found, "%s is not listed in EXPECTED.tsv", de->d_name);
    }
    closedir(d);
    for (int k = 0; k < n; k++) {
        CHECK_MSG(ex[k].seen == 1, "%s: listed in EXPECTED.tsv %s", ex[k].file,
                  ex[k].seen ? "twice" : "but missing from the directory");
        if (ex[k].seen)
            check(ctx, &ex[k]);
    }
    printf("%s: %d listed, %d in the directory\n", dir, n, files);
}

/* Bad matrix files (data/bad) and bad vector files (data/bad_vec). */
static void test_bad_files(spx_ctx *ctx)
{
    check_bad_dir(ctx, BAD, 40, check_bad_file);
    check_bad_dir(ctx, BAD_VEC, 20, check_bad_vector);
}

/* Reads path with strict off (must succeed, duplicates counted) and on (must fail with
 * want in the message). */
static void check_strict(spx_ctx *ctx, const char *path, int64_t dups, const char *want)
{
    spx_csr *A = NULL;
    spx_status s = spx_mtx_read(ctx, path, &(spx_read_opts){.strict = 0}, &A, NULL);
    CHECK_MSG(s == SPX_OK, "%s: %s", path, spx_ctx_last_error(ctx));
    CHECK_MSG(A && A->meta.duplicates == dups, "%s: duplicates %lld, want %lld", path,
              A ? (long long)A->meta.duplicates : -1LL, (long long)dups);
    spx_csr_destroy(&A);
    s = spx_mtx_read(ctx, path, &(spx_read_opts){.strict = 1}, &A, NULL);
    CHECK_MSG(s == SPX_ERR_PARSE && A == NULL, "%s strict: %s", path, spx_status_str(s));
    CHECK_MSG(strstr(spx_ctx_last_error(ctx), want) != NULL, "strict message '%s', want '%s'",
              spx_ctx_last_error(ctx), want);
    spx_csr_destroy(&A);
}

/* Strict mode: duplicates and upper-triangle entries of symmetric files are errors. */
static void test_strict(spx_ctx *ctx)
{
    check_strict(ctx, GOOD "duplicates.mtx", 2,
                 "duplicates.mtx:5: duplicate entry (1,1), first given on line 3 (strict)");
    check_strict(ctx, GOOD "sym_upper.mtx", 2,
                 "sym_upper.mtx:4: entry (1,3) above the diagonal in a symmetric file (strict)");
    /* a symmetric duplicate: the mirror is duplicated too, so two positions are summed */
    check_strict(ctx, GOOD "sym_duplicate.mtx", 2,
                 "sym_duplicate.mtx:6: duplicate entry (2,1), first given on line 4 (strict)");

    /* files without either read the same under strict */
    const char *clean[] = {"coord_real_symmetric.mtx", "coord_real_skew.mtx",
                           "array_real_symmetric.mtx", "coord_pattern_general.mtx"};
    for (size_t k = 0; k < sizeof clean / sizeof clean[0]; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s%s", GOOD, clean[k]);
        spx_csr *A = NULL, *B = NULL;
        CHECK_OK(ctx, spx_mtx_read(ctx, path, NULL, &A, NULL));
        CHECK_OK(ctx, spx_mtx_read(ctx, path, &(spx_read_opts){.strict = 1}, &B, NULL));
        CHECK(A && B && spx_csr_equal(A, B));
        spx_csr_destroy(&A);
        spx_csr_destroy(&B);
    }

    /* a real file that stores its symmetric entries above the diagonal */
    const char *grid = SPX_SHARED_MATRICES "/USpowerGrid.mtx.gz";
    FILE *f = fopen(grid, "rb");
    if (f && spx_io_gz_available()) {
        fclose(f);
        check_strict(ctx, grid, 0, "USpowerGrid.mtx.gz:3: entry (1,387) above the diagonal");
    } else if (f) {
        fclose(f);
    }
}

int main(void)
{
    spx_ctx *ctx = NULL;
    CHECK(spx_ctx_create(&ctx, NULL) == SPX_OK);
    test_bad_files(ctx);
    test_strict(ctx);
    spx_ctx_destroy(&ctx);
    return check_report();
}
