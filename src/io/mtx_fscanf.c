/* src/io/mtx_fscanf.c: the fopen + fscanf baseline reader the parse benchmark compares. */
#include <stdio.h>
#include <string.h>

#include "core/ctx.h"
#include "io/gz.h"

/* Longest banner, comment or size line kept; longer lines are read on and dropped. */
#define FSCANF_LINE 1024

/* Reads one line into buf (cut to its size, the rest dropped); 0 at end of file. */
static int read_line(FILE *f, char *buf, size_t cap)
{
    if (!fgets(buf, (int)cap, f))
        return 0;
    size_t n = strlen(buf);
    if (n > 0 && buf[n - 1] != '\n') {
        int c;
        while ((c = fgetc(f)) != EOF && c != '\n')
            ;
    }
    return 1;
}

/* Lower-cases s in place; returns s. */
static char *lower(char *s)
{
    for (char *p = s; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    return s;
}

/* The fscanf baseline: general coordinate files only, one fscanf per entry. */
spx_status spx_mtx_read_fscanf(spx_ctx *ctx, const char *path, spx_csr **out)
{
    if (!ctx)
        return SPX_ERR_ARG;
    if (!path || !out)
        return spx_fail(ctx, SPX_ERR_ARG, "spx_mtx_read_fscanf: %s is NULL",
                        path ? "out" : "path");
    spx_status st = SPX_OK;
    int32_t *row = NULL, *col = NULL;
    double *val = NULL;
    spx_csr *A = NULL;
    char line[FSCANF_LINE], obj[32], fmt[32], field[32], sym[32];
    unsigned char magic[2] = {0, 0};
    long long m = 0, n = 0, nnz = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        st = spx_fail(ctx, SPX_ERR_IO, "%s: cannot open", path);
        goto done;
    }
    if (spx_io_is_gzip(magic, fread(magic, 1, 2, f))) {
        st = spx_fail(ctx, SPX_ERR_UNSUPPORTED,
                      "%s: gzip input is not supported by the fscanf baseline", path);
        goto done;
    }
    rewind(f);
    if (!read_line(f, line, sizeof line) ||
        sscanf(line, "%%%%MatrixMarket %31s %31s %31s %31s", obj, fmt, field, sym) != 4) {
        st = spx_fail(ctx, SPX_ERR_PARSE, "%s:1: missing %%%%MatrixMarket banner", path);
        goto done;
    }
    int pattern = !strcmp(lower(field), "pattern");
    if (strcmp(lower(obj), "matrix") || strcmp(lower(fmt), "coordinate") ||
        strcmp(lower(sym), "general") ||
        (!pattern && strcmp(field, "real") && strcmp(field, "integer"))) {
        st = spx_fail(ctx, SPX_ERR_UNSUPPORTED,
                      "%s:1: the fscanf baseline reads general coordinate real, integer or "
                      "pattern files only",
                      path);
        goto done;
    }
    int64_t lineno = 1;
    do {
        lineno++;
        if (!read_line(f, line, sizeof line)) {
            st = spx_fail(ctx, SPX_ERR_PARSE, "%s:%lld: missing size line", path,
                          (long long)lineno);
            goto done;
        }
    } while (line[0] == '%' || strspn(line, " \t\r\n") == strlen(line));
    if (sscanf(line, "%lld %lld %lld", &m, &n, &nnz) != 3 || m < 0 || n < 0 || nnz < 0 ||
        m > INT32_MAX || n > INT32_MAX || nnz > m * n) {
        st = spx_fail(ctx, SPX_ERR_PARSE, "%s:%lld: bad size line", path, (long long)lineno);
        goto done;
    }
    size_t cap = nnz ? (size_t)nnz : 1;
    row = spx_malloc_array(ctx, cap, sizeof *row);
    col = spx_malloc_array(ctx, cap, sizeof *col);
    val = spx_malloc_array(ctx, cap, sizeof *val);
    if (!row || !col || !val) {
        st = spx_fail_nomem(ctx, "matrix entries");
        goto done;
    }
    for (long long k = 0; k < nnz; k++) {
        long long i = 0, j = 0;
        double v = 1.0;
        int got = pattern ? fscanf(f, "%lld %lld", &i, &j) : fscanf(f, "%lld %lld %lf", &i, &j, &v);
        if (got != (pattern ? 2 : 3) || i < 1 || i > m || j < 1 || j > n) {
            st = spx_fail(ctx, SPX_ERR_PARSE, "%s: entry %lld of %lld is missing or bad", path,
                          k + 1, nnz);
            goto done;
        }
        row[k] = (int32_t)(i - 1);
        col[k] = (int32_t)(j - 1);
        val[k] = v;
    }
    spx_coo coo = {.m = (int32_t)m, .n = (int32_t)n, .nnz = nnz, .row = row, .col = col,
                   .val = val, .ctx = ctx};
    int64_t dups = 0;
    st = spx_coo_to_csr(ctx, &coo, 0, &dups, &A);
    if (st)
        goto done;
    A->meta.symmetry = SPX_SYM_GENERAL;
    A->meta.field = pattern                    ? SPX_FIELD_PATTERN
                    : !strcmp(field, "integer") ? SPX_FIELD_INTEGER
                                                : SPX_FIELD_REAL;
    A->meta.stored_entries = nnz;
    A->meta.duplicates = dups;
    A->meta.nonfinite = spx_csr_count_nonfinite(A, NULL, NULL);
    *out = A;
    A = NULL;
done:
    if (f)
        fclose(f);
    spx_csr_destroy(&A);
    spx_free(ctx, val);
    spx_free(ctx, col);
    spx_free(ctx, row);
    return st;
}
