/* tools/vec_io.c: `spx solve`'s Matrix Market array vectors: read into a caller's array of the
 * expected length (the length checked from the header before any value is read), written
 * through a temporary file. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "vec_io.h"

/* An open vector file being read line by line. */
typedef struct vec_reader {
    const char *opt, *path;
    FILE *f;
    char *line;
    size_t cap;
    long lineno;
} vec_reader;

/* The next line that is neither a comment nor blank into r->line; 0 at the end of the file. */
static int next_data_line(vec_reader *r)
{
    while (getline(&r->line, &r->cap, r->f) >= 0) {
        r->lineno++;
        const char *p = r->line + strspn(r->line, " \t\r\n");
        if (*p && *p != '%') return 1;
    }
    return 0;
}

/* Checks the banner line: "%%MatrixMarket matrix array real|integer general". */
static int check_banner(vec_reader *r)
{
    char w[5][32] = {{0}};
    const int gz = strlen(r->path) > 3 && !strcmp(r->path + strlen(r->path) - 3, ".gz");
    if (getline(&r->line, &r->cap, r->f) < 0 || sscanf(r->line, "%31s %31s %31s %31s %31s", w[0], w[1], w[2], w[3], w[4]) != 5 ||
        strcasecmp(w[0], "%%MatrixMarket"))
        return cli_error("%s %s: not a Matrix Market file (no %%%%MatrixMarket banner)%s", r->opt, r->path,
                         gz ? "; compressed vectors are not read, gunzip it first" : "");
    r->lineno = 1;
    if (strcasecmp(w[1], "matrix") || strcasecmp(w[2], "array"))
        return cli_error("%s %s: '%s %s' is not a vector: expected 'matrix array' (m rows, 1 column)", r->opt, r->path, w[1],
                         w[2]);
    if (strcasecmp(w[3], "real") && strcasecmp(w[3], "integer") && strcasecmp(w[3], "double"))
        return cli_error("%s %s: field '%s': expected real or integer", r->opt, r->path, w[3]);
    if (strcasecmp(w[4], "general")) return cli_error("%s %s: symmetry '%s': a vector is 'general'", r->opt, r->path, w[4]);
    return CLI_OK;
}

/* Checks the size line: want rows, 1 column. */
static int check_size(vec_reader *r, int64_t want)
{
    long long m = -1, n = -1;
    char extra[2];
    if (!next_data_line(r) || sscanf(r->line, "%lld %lld %1s", &m, &n, extra) != 2 || m < 0 || n < 0)
        return cli_error("%s %s:%ld: expected the size line 'rows 1'", r->opt, r->path, r->lineno);
    if (n != 1) return cli_error("%s %s: %lld columns: a vector has 1", r->opt, r->path, n);
    if (m != want)
        return cli_error("%s %s: the vector has %lld entries, the matrix has %" PRId64 " rows", r->opt, r->path, m, want);
    return CLI_OK;
}

/* Reads exactly want values into out, any whitespace between them, nothing after them. */
static int read_values(vec_reader *r, int64_t want, double *out)
{
    int64_t got = 0;
    while (next_data_line(r)) {
        char *p = r->line;
        for (;;) {
            p += strspn(p, " \t\r\n");
            if (!*p) break;
            if (got == want)
                return cli_error("%s %s:%ld: more than the %" PRId64 " entries the size line declares", r->opt, r->path,
                                 r->lineno, want);
            char *end;
            errno = 0;
            out[got] = strtod(p, &end);
            if (end == p || errno == EINVAL || (*end && !strchr(" \t\r\n", *end)))
                return cli_error("%s %s:%ld: '%.*s' is not a number", r->opt, r->path, r->lineno, (int)strcspn(p, " \t\r\n"), p);
            got++;
            p = end;
        }
    }
    if (ferror(r->f)) return cli_error("%s %s: read error", r->opt, r->path);
    if (got < want)
        return cli_error("%s %s: %" PRId64 " of the %" PRId64 " entries the size line declares (the file ends early)", r->opt,
                         r->path, got, want);
    return CLI_OK;
}

int vec_io_read(const char *opt, const char *path, int64_t want, double *out)
{
    vec_reader r = {opt, path, fopen(path, "r"), NULL, 0, 0};
    if (!r.f) return cli_error("%s %s: cannot open: %s", opt, path, strerror(errno));
    int rc = check_banner(&r);
    if (rc == CLI_OK) rc = check_size(&r, want);
    if (rc == CLI_OK) rc = read_values(&r, want, out);
    free(r.line);
    fclose(r.f);
    return rc;
}

int vec_io_write(const char *path, const double *x, int64_t n)
{
    char tmp[4096];
    FILE *f = cli_open_out(path, tmp, sizeof tmp);
    if (!f) return CLI_ERROR;
    fprintf(f, "%%%%MatrixMarket matrix array real general\n%% the solution x of spx solve\n%" PRId64 " 1\n", n);
    for (int64_t i = 0; i < n; i++) fprintf(f, "%.17g\n", x[i]);
    return cli_commit_out(f, tmp, path);
}
