/* src/io/mtx_read.c: the Matrix Market reader (chunked, parallel parse; COO -> CSR). */
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/ctx.h"
#include "io/mtx_lex.h"
#include "io/mtx_parse.h"
#include "io/text.h"

/* How a read goes: the whole file is read (and gunzipped) into memory; the banner and size
 * line are parsed serially; the entry text is cut at newlines into chunks; pass 1 counts
 * each chunk's lines and entry lines, and prefix sums give every chunk its first line number
 * (for messages) and first entry index (its place in the COO arrays); pass 2 parses the
 * chunks into those places; pass 3 appends the mirrored entries of symmetric kinds. With one
 * chunk this is the serial reader, so serial and parallel parses store the same COO, and
 * the error reported is always the first in file order. The technique is that of
 * fast_matrix_market. */

/* Entry text above this many bytes is parsed in parallel; below it, starting threads costs
 * about as much as the parse itself (a few ms for ~100k lines). */
#define MTX_PARALLEL_BYTES ((size_t)4 << 20)
/* Chunks per thread, so that uneven lines balance under dynamic scheduling. */
#define MTX_CHUNKS_PER_THREAD 8
/* No chunk smaller than this: each costs a boundary search and a slot. */
#define MTX_MIN_CHUNK_BYTES ((size_t)1 << 18)

/* The symmetry's name as the banner writes it. */
const char *spx_mtx_symmetry_name(spx_symmetry s)
{
    switch (s) {
    case SPX_SYM_SYMMETRIC: return "symmetric";
    case SPX_SYM_SKEW: return "skew-symmetric";
    case SPX_SYM_HERMITIAN: return "hermitian";
    default: return "general";
    }
}

/* Records the chunk's first error (later ones in the chunk are never reached). */
static void chunk_error(mtx_chunk *c, spx_status s, int64_t line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void chunk_error(mtx_chunk *c, spx_status s, int64_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    c->err = s;
    c->err_line = line;
}

/* 1 when the token [t, t+n) equals the lower-case word w, ignoring case. */
static int token_is(const char *t, size_t n, const char *w)
{
    size_t i = 0;
    for (; i < n && w[i]; i++) {
        char c = t[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != w[i])
            return 0;
    }
    return i == n && w[i] == '\0';
}

/* Finds the next token in [*p, le): sets *t and *n, advances *p; 0 when none is left. */
static int next_token(const char **p, const char *le, const char **t, size_t *n)
{
    const char *q = spx_lex_skip_blanks(*p, le);
    if (q >= le)
        return 0;
    const char *e = q;
    while (e < le && !spx_lex_blank(*e))
        e++;
    *t = q;
    *n = (size_t)(e - q);
    *p = e;
    return 1;
}

/* The end of the line starting at p: its '\n', or end. */
static const char *line_end(const char *p, const char *end)
{
    const char *e = memchr(p, '\n', (size_t)(end - p));
    return e ? e : end;
}

/* Parses the banner (line 1) into h's format, field and symmetry. */
static spx_status parse_banner(spx_ctx *ctx, const char *path, const char *text,
                               const char *end, mtx_header *h)
{
    const char *le = line_end(text, end), *p = text, *t = NULL;
    size_t n = 0;
    if (!next_token(&p, le, &t, &n) || t != text || !token_is(t, n, "%%matrixmarket"))
        return spx_fail(ctx, SPX_ERR_PARSE, "%s:1: missing %%%%MatrixMarket banner", path);
    if (!next_token(&p, le, &t, &n))
        return spx_fail(ctx, SPX_ERR_PARSE, "%s:1: banner: missing object (matrix)", path);
    if (!token_is(t, n, "matrix"))
        return spx_fail(ctx, SPX_ERR_PARSE, "%s:1: banner: unknown object '%.*s' (expected matrix)",
                        path, (int)(n > MTX_TOKEN_QUOTE ? MTX_TOKEN_QUOTE : n), t);
    if (!next_token(&p, le, &t, &n))
        return spx_fail(ctx, SPX_ERR_PARSE, "%s:1: banner: missing format (coordinate or array)",
                        path);
    if (token_is(t, n, "coordinate"))
        h->format = MTX_COORDINATE;
    else if (token_is(t, n, "array"))
        h->format = MTX_ARRAY;
    else
        return spx_fail(ctx, SPX_ERR_PARSE,
                        "%s:1: banner: unknown format '%.*s' (coordinate or array)", path,
                        (int)(n > MTX_TOKEN_QUOTE ? MTX_TOKEN_QUOTE : n), t);
    if (!next_token(&p, le, &t, &n))
        return spx_fail(ctx, SPX_ERR_PARSE,
                        "%s:1: banner: missing field (real, integer, pattern or complex)", path);
    int complex = 0;
    if (token_is(t, n, "real"))
        h->field = SPX_FIELD_REAL;
    else if (token_is(t, n, "integer"))
        h->field = SPX_FIELD_INTEGER;
    else if (token_is(t, n, "pattern"))
        h->field = SPX_FIELD_PATTERN;
    else if (token_is(t, n, "complex"))
        complex = 1;
    else
        return spx_fail(ctx, SPX_ERR_PARSE,
                        "%s:1: banner: unknown field '%.*s' (real, integer, pattern or complex)",
                        path, (int)(n > MTX_TOKEN_QUOTE ? MTX_TOKEN_QUOTE : n), t);
    if (!next_token(&p, le, &t, &n))
        return spx_fail(ctx, SPX_ERR_PARSE,
                        "%s:1: banner: missing symmetry (general, symmetric, skew-symmetric or "
                        "hermitian)",
                        path);
    if (token_is(t, n, "general"))
        h->symmetry = SPX_SYM_GENERAL;
    else if (token_is(t, n, "symmetric"))
        h->symmetry = SPX_SYM_SYMMETRIC;
    else if (token_is(t, n, "skew-symmetric"))
        h->symmetry = SPX_SYM_SKEW;
    else if (token_is(t, n, "hermitian"))
        h->symmetry = SPX_SYM_HERMITIAN;
    else
        return spx_fail(ctx, SPX_ERR_PARSE,
                        "%s:1: banner: unknown symmetry '%.*s' (general, symmetric, "
                        "skew-symmetric or hermitian)",
                        path, (int)(n > MTX_TOKEN_QUOTE ? MTX_TOKEN_QUOTE : n), t);
    if (next_token(&p, le, &t, &n))
        return spx_fail(ctx, SPX_ERR_PARSE, "%s:1: banner: unexpected '%.*s' after the symmetry",
                        path, (int)(n > MTX_TOKEN_QUOTE ? MTX_TOKEN_QUOTE : n), t);
    h->complex = complex;
    if (complex)
        return spx_fail(ctx, SPX_ERR_UNSUPPORTED,
                        "%s:1: complex matrices are not supported (real, integer or pattern only)",
                        path);
    if (h->format == MTX_ARRAY && h->field == SPX_FIELD_PATTERN)
        return spx_fail(ctx, SPX_ERR_PARSE,
                        "%s:1: invalid banner: array format cannot be pattern", path);
    /* the Matrix Market spec (and its mmio.c) has no pattern skew or hermitian matrices */
    if (h->field == SPX_FIELD_PATTERN &&
        (h->symmetry == SPX_SYM_SKEW || h->symmetry == SPX_SYM_HERMITIAN))
        return spx_fail(ctx, SPX_ERR_PARSE, "%s:1: invalid banner: pattern cannot be %s", path,
                        spx_mtx_symmetry_name(h->symmetry));
    return SPX_OK;
}

/* Parses the size line at [p, le) (line number line) into h's sizes and entry count. */
static spx_status parse_size_line(spx_ctx *ctx, const char *path, int64_t line, const char *p,
                                  const char *le, mtx_header *h)
{
    int want = h->format == MTX_COORDINATE ? 3 : 2;
    const char *shape = want == 3 ? "rows columns entries" : "rows columns";
    int64_t v[3] = {0, 0, 0};
    char tok[MTX_TOKEN_QUOTE + 4];
    for (int k = 0; k < want; k++) {
        const char *t = NULL;
        size_t n = 0;
        if (!next_token(&p, le, &t, &n))
            return spx_fail(ctx, SPX_ERR_PARSE, "%s:%lld: bad size line: expected '%s'", path,
                            (long long)line, shape);
        const char *q = t;
        spx_lex_result r = spx_lex_int64(&q, le, &v[k]);
        if (r == SPX_LEX_SYNTAX)
            return spx_fail(ctx, SPX_ERR_PARSE,
                            "%s:%lld: bad size line: '%s' is not an integer (expected '%s')",
                            path, (long long)line, spx_lex_token_copy(tok, sizeof tok, t, le),
                            shape);
        if (r == SPX_LEX_RANGE)
            return spx_fail(ctx, SPX_ERR_OVERFLOW, "%s:%lld: size line: '%s' is too large", path,
                            (long long)line, spx_lex_token_copy(tok, sizeof tok, t, le));
        if (v[k] < 0)
            return spx_fail(ctx, SPX_ERR_PARSE, "%s:%lld: size line: negative size %lld", path,
                            (long long)line, (long long)v[k]);
    }
    {
        const char *t = NULL;
        size_t n = 0;
        if (next_token(&p, le, &t, &n))
            return spx_fail(ctx, SPX_ERR_PARSE,
                            "%s:%lld: bad size line: unexpected '%s' (expected '%s')", path,
                            (long long)line, spx_lex_token_copy(tok, sizeof tok, t, le), shape);
    }
    h->m = v[0];
    h->n = v[1];
    if (h->m > INT32_MAX || h->n > INT32_MAX)
        return spx_fail(ctx, SPX_ERR_OVERFLOW,
                        "%s:%lld: size line: %lld x %lld exceeds the int32 index limit %d", path,
                        (long long)line, (long long)h->m, (long long)h->n, INT32_MAX);
    if (h->symmetry != SPX_SYM_GENERAL && h->m != h->n)
        return spx_fail(ctx, SPX_ERR_PARSE,
                        "%s:%lld: size line: a %s matrix must be square, got %lld x %lld", path,
                        (long long)line, spx_mtx_symmetry_name(h->symmetry), (long long)h->m,
                        (long long)h->n);
    /* positions the stored entries may take (< 2^62: no overflow) */
    int64_t cap;
    const char *where;
    if (h->symmetry == SPX_SYM_GENERAL) {
        cap = h->m * h->n;
        where = "matrix";
    } else if (h->symmetry == SPX_SYM_SKEW) {
        cap = h->m * (h->m - (h->m > 0)) / 2;
        where = "strict lower triangle";
    } else {
        cap = h->m * (h->m + 1) / 2;
        where = "lower triangle";
    }
    if (h->format == MTX_ARRAY) {
        h->entries = cap;
    } else {
        h->entries = v[2];
        if (h->entries > cap)
            return spx_fail(ctx, SPX_ERR_PARSE,
                            "%s:%lld: size line: %lld entries exceed the %lld positions of the "
                            "%lld x %lld %s",
                            path, (long long)line, (long long)h->entries, (long long)cap,
                            (long long)h->m, (long long)h->n, where);
    }
    return SPX_OK;
}

/* Parses the banner, comments and size line; h->data is where the entries start. */
spx_status spx_mtx_parse_header(spx_ctx *ctx, const char *path, const char *text, const char *end,
                                mtx_header *h)
{
    spx_status st = parse_banner(ctx, path, text, end, h);
    if (st)
        return st;
    const char *p = line_end(text, end);
    int64_t line = 1;
    while (p < end) {
        p++; /* past the '\n' */
        line++;
        const char *le = line_end(p, end), *q = spx_lex_skip_blanks(p, le);
        if (q < le && *q != '%') {
            st = parse_size_line(ctx, path, line, q, le, h);
            if (st)
                return st;
            h->data = le < end ? le + 1 : end;
            h->data_line = line + 1;
            return SPX_OK;
        }
        p = le;
    }
    h->no_size_line = 1;
    return spx_fail(ctx, SPX_ERR_PARSE, "%s:%lld: missing size line (file ends after the %s)",
                    path, (long long)line, line == 1 ? "banner" : "comments");
}

/* Pass 1: counts the chunk's line ends and entry lines (neither blank nor % comments). */
static void chunk_count(mtx_chunk *c)
{
    const char *p = c->begin, *end = c->end;
    int64_t nl = 0, ent = 0;
    while (p < end) {
        const char *q = spx_lex_skip_blanks(p, end);
        if (q < end && *q != '\n' && *q != '%')
            ent++;
        const char *e = memchr(q, '\n', (size_t)(end - q));
        if (!e)
            break;
        nl++;
        p = e + 1;
    }
    c->newlines = nl;
    c->entries = ent;
}

/* Splits [data, end) into at most nchunks runs of whole lines; returns how many. */
static int make_chunks(const char *data, const char *end, int nchunks, mtx_chunk *ch)
{
    size_t total = (size_t)(end - data);
    const char *prev = data;
    int k = 0;
    for (int i = 1; i <= nchunks; i++) {
        const char *b = end;
        if (i < nchunks) {
            b = data + total / (size_t)nchunks * (size_t)i;
            if (b < prev)
                b = prev;
            const char *nl = memchr(b, '\n', (size_t)(end - b));
            b = nl ? nl + 1 : end;
        }
        if (b > prev || i == nchunks) {
            memset(&ch[k], 0, sizeof ch[k]);
            ch[k].begin = prev;
            ch[k].end = b;
            k++;
            prev = b;
        }
    }
    return k;
}

/* The (row, column), 1-based, of the idx-th stored value of an array file: column-major,
 * the lower triangle (strictly lower for skew) of symmetric kinds. */
static void array_position(const mtx_header *h, int64_t idx, int64_t *i, int64_t *j)
{
    if (h->symmetry == SPX_SYM_GENERAL) {
        *j = h->m ? idx / h->m + 1 : 1;
        *i = h->m ? idx % h->m + 1 : 1;
        return;
    }
    int64_t off = h->symmetry == SPX_SYM_SKEW, jj = 0, rem = idx;
    while (jj < h->m && rem >= h->m - jj - off) {
        rem -= h->m - jj - off;
        jj++;
    }
    *j = jj + 1;
    *i = jj + off + rem + 1;
}

/* Steps (i, j) to the next stored position of an array file. */
static void array_next(const mtx_header *h, int64_t *i, int64_t *j)
{
    if (++*i > h->m) {
        ++*j;
        *i = h->symmetry == SPX_SYM_GENERAL ? 1 : *j + (h->symmetry == SPX_SYM_SKEW);
    }
}

/* Scans an index in 0..max at *q (0 is settled later: see zero_based_ok); returns 0 (error
 * recorded) when it is missing or bad. */
static int scan_index(mtx_chunk *c, int64_t line, const char **q, const char *end,
                      const char *what, int64_t max, int64_t *out)
{
    char tok[MTX_TOKEN_QUOTE + 4];
    const char *t = *q;
    if (t >= end || *t == '\n') {
        chunk_error(c, SPX_ERR_PARSE, line, "missing %s index", what);
        return 0;
    }
    spx_lex_result r = spx_lex_int64(q, end, out);
    if (r == SPX_LEX_SYNTAX) {
        chunk_error(c, SPX_ERR_PARSE, line, "invalid %s index '%s'", what,
                    spx_lex_token_copy(tok, sizeof tok, t, end));
        return 0;
    }
    if (r == SPX_LEX_RANGE || *out < 0 || *out > max) {
        chunk_error(c, SPX_ERR_PARSE, line, "%s index %s out of range 1..%lld", what,
                    spx_lex_token_copy(tok, sizeof tok, t, end), (long long)max);
        return 0;
    }
    *q = spx_lex_skip_blanks(*q, end);
    return 1;
}

/* Scans the value of an entry per the field at *q; 0 (error recorded) when missing or bad. */
static int scan_value(mtx_chunk *c, int64_t line, spx_field field, const char **q,
                      const char *end, double *out)
{
    char tok[MTX_TOKEN_QUOTE + 4];
    const char *t = *q;
    if (field == SPX_FIELD_PATTERN) {
        *out = 1.0;
        return 1;
    }
    if (t >= end || *t == '\n') {
        chunk_error(c, SPX_ERR_PARSE, line, "missing value");
        return 0;
    }
    spx_lex_result r;
    if (field == SPX_FIELD_INTEGER) {
        int64_t x = 0;
        r = spx_lex_int64(q, end, &x);
        *out = (double)x;
    } else {
        r = spx_lex_double(q, end, out);
    }
    if (r != SPX_LEX_OK) {
        spx_lex_token_copy(tok, sizeof tok, t, end);
        if (r == SPX_LEX_RANGE)
            chunk_error(c, SPX_ERR_PARSE, line, "value '%s' out of range", tok);
        else
            chunk_error(c, SPX_ERR_PARSE, line, "invalid %s value '%s'",
                        field == SPX_FIELD_INTEGER ? "integer" : "real", tok);
        return 0;
    }
    *q = spx_lex_skip_blanks(*q, end);
    return 1;
}

/* Pass 2: parses the chunk's entries (global numbers first_entry.. below P->limit) into the
 * COO arrays; stops at the chunk's first error. */
static void chunk_parse(const mtx_parse *P, mtx_chunk *c)
{
    const mtx_header *h = P->h;
    const char *p = c->begin, *end = c->end;
    int64_t line = c->first_line, idx = c->first_entry, mirrors = 0, ai = 0, aj = 0;
    char tok[MTX_TOKEN_QUOTE + 4];
    if (h->format == MTX_ARRAY)
        array_position(h, idx, &ai, &aj);
    while (p < end && idx < P->limit) {
        const char *q = spx_lex_skip_blanks(p, end);
        if (q < end && *q != '\n' && *q != '%') {
            int64_t i, j;
            double v;
            if (h->format == MTX_COORDINATE) {
                if (!scan_index(c, line, &q, end, "row", h->m, &i) ||
                    !scan_index(c, line, &q, end, "column", h->n, &j))
                    break;
                if ((i == 0 || j == 0) && !c->zero_line)
                    c->zero_line = line;
                c->hit_m |= i == h->m;
                c->hit_n |= j == h->n;
            } else {
                i = ai;
                j = aj;
                array_next(h, &ai, &aj);
            }
            if (!scan_value(c, line, h->field, &q, end, &v))
                break;
            if (q < end && *q != '\n') {
                chunk_error(c, SPX_ERR_PARSE, line, "unexpected '%s' after the entry",
                            spx_lex_token_copy(tok, sizeof tok, q, end));
                break;
            }
            if (h->symmetry != SPX_SYM_GENERAL && i != j) {
                if (j > i && P->strict) {
                    chunk_error(c, SPX_ERR_PARSE, line,
                                "entry (%lld,%lld) above the diagonal in a %s file (strict)",
                                (long long)i, (long long)j, spx_mtx_symmetry_name(h->symmetry));
                    break;
                }
                mirrors++;
            } else if (h->symmetry == SPX_SYM_SKEW) {
                chunk_error(c, SPX_ERR_PARSE, line,
                            "diagonal entry (%lld,%lld) in a skew-symmetric file", (long long)i,
                            (long long)j);
                break;
            }
            if (P->row) {
                P->row[idx - P->base] = (int32_t)(i - 1);
                P->col[idx - P->base] = (int32_t)(j - 1);
            }
            P->val[idx - P->base] = v;
            idx++;
        }
        const char *e = memchr(q, '\n', (size_t)(end - q));
        if (!e)
            break;
        line++;
        p = e + 1;
    }
    c->parsed = idx - c->first_entry;
    c->mirrors = mirrors;
}

/* Index 0 is outside Matrix Market's 1..m, but real files (e.g. SuiteSparse's lesmis as
 * shared here) are written 0-based. Such a file is accepted, and shifted, only when that is
 * unambiguous: no row index reaches m and no column index reaches n. Otherwise, or under
 * strict, the first 0 is an error. */
void spx_mtx_zero_flags(const mtx_split *sp, int64_t *zero_line, int *hit_m, int *hit_n)
{
    for (int k = 0; k < sp->nchunks; k++) {
        if (!*zero_line)
            *zero_line = sp->ch[k].zero_line;
        *hit_m |= sp->ch[k].hit_m;
        *hit_n |= sp->ch[k].hit_n;
    }
}

spx_status spx_mtx_settle_zero(spx_ctx *ctx, const char *path, mtx_parse *P, int64_t count, int64_t zero_line, int hit_m,
                               int hit_n, int strict)
{
    if (!zero_line)
        return SPX_OK;
    if (strict || hit_m || hit_n)
        return spx_fail(ctx, SPX_ERR_PARSE,
                        "%s:%lld: index 0 out of range 1..%lld (%s)", path, (long long)zero_line,
                        (long long)(hit_m ? P->h->m : P->h->n),
                        strict ? "strict: zero-based files rejected"
                               : "other entries reach the upper bound, so the file is not zero-based");
    for (int64_t k = 0; k < count; k++) {
        P->row[k]++;
        P->col[k]++;
    }
    P->zero_based = 1;
    return SPX_OK;
}

/* Pass 3 for one chunk: appends the mirror of each of its off-diagonal entries (negated for
 * skew) at index start + first_mirror onwards, in file order. */
static void chunk_mirror(const mtx_parse *P, const mtx_chunk *c, int64_t start)
{
    double sign = P->h->symmetry == SPX_SYM_SKEW ? -1.0 : 1.0;
    int64_t o = start + c->first_mirror;
    for (int64_t k = c->first_entry - P->base; k < c->first_entry - P->base + c->parsed; k++) {
        if (P->row[k] != P->col[k]) {
            P->row[o] = P->col[k];
            P->col[o] = P->row[k];
            P->val[o] = sign * P->val[k];
            o++;
        }
    }
}

int64_t spx_mtx_append_mirrors(const mtx_parse *P, mtx_split *sp, int64_t start)
{
    int64_t mirrors = 0;
    for (int k = 0; k < sp->nchunks; k++) {
        sp->ch[k].first_mirror = mirrors;
        mirrors += sp->ch[k].mirrors;
    }
    if (mirrors) {
        mtx_chunk *ch = sp->ch;
#pragma omp parallel for schedule(dynamic, 1) num_threads(sp->threads) if (sp->threads > 1)
        for (int k = 0; k < sp->nchunks; k++)
            chunk_mirror(P, &ch[k], start);
    }
    return mirrors;
}

/* The line number of the idx-th entry line (0-based), from the pass-1 counts; -1 if none. */
static int64_t entry_line(const mtx_chunk *ch, int nchunks, int64_t idx)
{
    if (nchunks > 0 && idx < ch[0].first_entry)
        return -1;
    for (int k = 0; k < nchunks; k++) {
        const mtx_chunk *c = &ch[k];
        if (idx >= c->first_entry + c->entries)
            continue;
        int64_t e = c->first_entry, line = c->first_line;
        const char *p = c->begin;
        while (p < c->end) {
            const char *q = spx_lex_skip_blanks(p, c->end);
            if (q < c->end && *q != '\n' && *q != '%') {
                if (e == idx)
                    return line;
                e++;
            }
            const char *nl = memchr(q, '\n', (size_t)(c->end - q));
            if (!nl)
                break;
            line++;
            p = nl + 1;
        }
        return -1;
    }
    return -1;
}

/* Under strict: names the first stored entry (in file order) that repeats an earlier one,
 * using A (built with duplicates summed) to map each entry to its position. */
static spx_status report_duplicate(spx_ctx *ctx, const char *path, const spx_csr *A,
                                   const mtx_parse *P, const mtx_chunk *ch, int nchunks)
{
    spx_status st = SPX_OK;
    int64_t *seen = spx_malloc_array(ctx, A->nnz ? (size_t)A->nnz : 1, sizeof *seen);
    if (!seen)
        return spx_fail_nomem(ctx, "duplicate search");
    for (int64_t k = 0; k < A->nnz; k++)
        seen[k] = -1;
    for (int64_t k = 0; k < P->limit; k++) {
        int64_t lo = A->rowptr[P->row[k]], hi = A->rowptr[P->row[k] + 1];
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (A->colind[mid] < P->col[k])
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo >= A->rowptr[P->row[k] + 1] || A->colind[lo] != P->col[k])
            continue; /* cannot happen: every entry is in A */
        if (seen[lo] >= 0) {
            st = spx_fail(ctx, SPX_ERR_PARSE,
                          "%s:%lld: duplicate entry (%d,%d), first given on line %lld (strict)",
                          path, (long long)entry_line(ch, nchunks, k), P->row[k] + 1,
                          P->col[k] + 1, (long long)entry_line(ch, nchunks, seen[lo]));
            goto done;
        }
        seen[lo] = k;
    }
    st = spx_fail(ctx, SPX_ERR_PARSE, "%s: duplicate entries (strict)", path);
done:
    spx_free(ctx, seen);
    return st;
}

/* The chunk count for data_bytes of entry text over threads threads. */
static int chunk_count_for(size_t data_bytes, int threads)
{
    if (threads <= 1)
        return 1;
    size_t by_size = data_bytes / MTX_MIN_CHUNK_BYTES;
    size_t want = (size_t)threads * MTX_CHUNKS_PER_THREAD;
    if (want > by_size)
        want = by_size;
    return want < 1 ? 1 : (int)want;
}

/* Pass 1: the chunks of h's entry text and their line and entry counts, with prefix sums. */
spx_status spx_mtx_split(spx_ctx *ctx, const mtx_header *h, const char *end, int parallel, mtx_split *sp)
{
    size_t data_bytes = (size_t)(end - h->data);
    int threads = 1;
    if (parallel != -1 && data_bytes > MTX_PARALLEL_BYTES)
        threads = spx_ctx_threads(ctx);
    int nchunks = chunk_count_for(data_bytes, threads);
    if (nchunks == 1)
        threads = 1;
    memset(sp, 0, sizeof *sp);
    sp->ch = spx_malloc_array(ctx, (size_t)nchunks, sizeof *sp->ch);
    if (!sp->ch)
        return spx_fail_nomem(ctx, "parse chunks");
    nchunks = make_chunks(h->data, end, nchunks, sp->ch);
    mtx_chunk *ch = sp->ch;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
    for (int k = 0; k < nchunks; k++)
        chunk_count(&ch[k]);
    int64_t total = 0, line = h->data_line;
    for (int k = 0; k < nchunks; k++) {
        ch[k].first_line = line;
        ch[k].first_entry = total;
        line += ch[k].newlines;
        total += ch[k].entries;
    }
    sp->nchunks = nchunks;
    sp->threads = threads;
    sp->total = total;
    sp->end_line = line;
    return SPX_OK;
}

void spx_mtx_split_free(spx_ctx *ctx, mtx_split *sp)
{
    spx_free(ctx, sp->ch);
    sp->ch = NULL;
}

/* Pass 2 over every chunk; the calling thread (thread 0 of the team) reports the chunks done. */
spx_status spx_mtx_parse_entries(spx_ctx *ctx, const char *path, mtx_split *sp, const mtx_parse *P)
{
    mtx_chunk *ch = sp->ch;
    int nchunks = sp->nchunks, done = 0;
    spx_progress_tell(P->progress, "parse", 0, nchunks);
#pragma omp parallel for schedule(dynamic, 1) num_threads(sp->threads) if (sp->threads > 1)
    for (int k = 0; k < nchunks; k++) {
        chunk_parse(P, &ch[k]);
        int now = __atomic_add_fetch(&done, 1, __ATOMIC_RELAXED);
        if (omp_get_thread_num() == 0)
            spx_progress_tell(P->progress, "parse", now, nchunks);
    }
    spx_progress_tell(P->progress, "parse", nchunks, nchunks);
    for (int k = 0; k < nchunks; k++) /* the first error in file order, whichever thread met it */
        if (ch[k].err)
            return spx_fail(ctx, ch[k].err, "%s:%lld: %s", path, (long long)ch[k].err_line, ch[k].msg);
    return SPX_OK;
}

int64_t spx_mtx_entry_line(const mtx_split *sp, int64_t idx)
{
    return entry_line(sp->ch, sp->nchunks, idx);
}

spx_status spx_mtx_count_error(spx_ctx *ctx, const char *path, const mtx_header *h, int64_t total, int64_t eof_line,
                               int64_t extra_line)
{
    if (total < h->entries)
        return spx_fail(ctx, SPX_ERR_PARSE, "%s:%lld: file ends after %lld of %lld entries", path,
                        (long long)eof_line, (long long)total, (long long)h->entries);
    if (total > h->entries)
        return spx_fail(ctx, SPX_ERR_PARSE, "%s:%lld: more entries than the %lld declared", path,
                        (long long)extra_line, (long long)h->entries);
    return SPX_OK;
}

spx_status spx_mtx_check_count(spx_ctx *ctx, const char *path, const mtx_header *h, const mtx_split *sp,
                               const char *end)
{
    if (sp->total == h->entries)
        return SPX_OK;
    int64_t eof_line = h->data == end ? h->data_line - 1 : sp->end_line - (end[-1] == '\n' ? 1 : 0);
    int64_t extra_line = sp->total > h->entries ? entry_line(sp->ch, sp->nchunks, h->entries) : -1;
    return spx_mtx_count_error(ctx, path, h, sp->total, eof_line, extra_line);
}

/* Fails (SPX_ERR_NOMEM, naming the sizes and the budget) unless the largest read the header
 * allows fits the host budget beside the text already held: the COO arrays (the entries the
 * text can hold, doubled for mirrors), the CSR arrays and COO->CSR's row counts. A 60-byte
 * file may declare 2e9 rows; this refuses it before anything that large is allocated. */
static spx_status check_read_budget(spx_ctx *ctx, const char *path, const mtx_header *h,
                                    size_t data_bytes)
{
    /* every entry line takes at least 2 bytes ("1\n" of an array file) */
    double entries = (double)h->entries, text_cap = (double)data_bytes / 2.0 + 1.0;
    if (entries > text_cap)
        entries = text_cap;
    double stored = entries * (h->symmetry == SPX_SYM_GENERAL ? 1.0 : 2.0);
    double rows = (double)h->m + 1.0;
    double coo = stored * (2.0 * sizeof(int32_t) + sizeof(double));
    double csr = rows * sizeof(int64_t) + stored * (sizeof(int32_t) + sizeof(double));
    double counts = rows * sizeof(int64_t);
    double need = coo + csr + counts;
    size_t need_bytes = need >= (double)SIZE_MAX ? SIZE_MAX : (size_t)need;
    char ptrs[32];
    return spx_host_budget_require(ctx, need_bytes, SPX_ERR_NOMEM,
                                   "%s: reading %lld x %lld with %lld stored entr%s (%s in row "
                                   "pointers and row counts)",
                                   path, (long long)h->m, (long long)h->n, (long long)h->entries,
                                   h->entries == 1 ? "y" : "ies", spx_bytes_str(2.0 * rows * sizeof(int64_t), ptrs, sizeof ptrs));
}

/* Reads a .mtx or .mtx.gz file into CSR (symmetric kinds expanded, duplicates summed). */
spx_status spx_mtx_read(spx_ctx *ctx, const char *path, const spx_read_opts *opts,
                        spx_csr **out, spx_read_stats *stats)
{
    if (!ctx)
        return SPX_ERR_ARG;
    if (!path || !out)
        return spx_fail(ctx, SPX_ERR_ARG, "spx_mtx_read: %s is NULL", path ? "out" : "path");
    spx_status st = SPX_OK;
    double t0 = spx_now();
    char *text = NULL;
    size_t len = 0;
    mtx_split sp = {0};
    int32_t *row = NULL, *col = NULL;
    double *val = NULL;
    spx_csr *A = NULL;
    int strict = opts ? opts->strict : 0;
    spx_progress pr = {opts ? opts->progress : NULL, opts ? opts->progress_user : NULL};
    mtx_header h;
    memset(&h, 0, sizeof h);

    st = spx_io_read_text(ctx, path, &pr, &text, &len, NULL);
    if (st)
        goto done;
    const char *end = text + len;
    st = spx_mtx_parse_header(ctx, path, text, end, &h);
    if (st)
        goto done;

    double tp = spx_now();
    st = check_read_budget(ctx, path, &h, (size_t)(end - h.data));
    if (st)
        goto done;
    st = spx_mtx_split(ctx, &h, end, opts ? opts->parallel : 0, &sp);
    if (st)
        goto done;
    mtx_parse P = {.h = &h, .strict = strict, .limit = sp.total < h.entries ? sp.total : h.entries,
                   .progress = &pr};
    size_t cap = (size_t)P.limit * (h.symmetry == SPX_SYM_GENERAL ? 1 : 2);
    if (cap == 0)
        cap = 1;
    row = spx_malloc_array(ctx, cap, sizeof *row);
    col = spx_malloc_array(ctx, cap, sizeof *col);
    val = spx_malloc_array(ctx, cap, sizeof *val);
    if (!row || !col || !val) {
        st = spx_fail_nomem(ctx, "matrix entries");
        goto done;
    }
    P.row = row;
    P.col = col;
    P.val = val;
    st = spx_mtx_parse_entries(ctx, path, &sp, &P);
    if (st)
        goto done;
    int64_t zero_line = 0;
    int hit_m = 0, hit_n = 0;
    spx_mtx_zero_flags(&sp, &zero_line, &hit_m, &hit_n);
    st = spx_mtx_settle_zero(ctx, path, &P, P.limit, zero_line, hit_m, hit_n, strict);
    if (st)
        goto done;
    st = spx_mtx_check_count(ctx, path, &h, &sp, end);
    if (st)
        goto done;

    int64_t mirrors = spx_mtx_append_mirrors(&P, &sp, P.limit);
    double parse_seconds = spx_now() - tp;
    if (!strict) { /* the text is needed only to name a duplicate's line */
        spx_free(ctx, text);
        text = NULL;
    }

    spx_coo coo = {.m = (int32_t)h.m, .n = (int32_t)h.n, .nnz = P.limit + mirrors,
                   .row = row, .col = col, .val = val, .ctx = ctx};
    int64_t dups = 0;
    st = spx_coo_to_csr_progress(ctx, &coo, 0, &dups, &A, &pr);
    if (st)
        goto done;
    if (strict && dups > 0) {
        st = report_duplicate(ctx, path, A, &P, sp.ch, sp.nchunks);
        goto done;
    }
    A->meta.symmetry = h.symmetry;
    A->meta.field = h.field;
    A->meta.stored_entries = h.entries;
    A->meta.duplicates = dups;
    A->meta.zero_based = P.zero_based;
    A->meta.nonfinite = spx_csr_count_nonfinite(A, NULL, NULL);
    if (stats) {
        stats->bytes = (double)len;
        stats->parse_seconds = parse_seconds;
        stats->threads = sp.threads;
        stats->seconds = spx_now() - t0;
    }
    *out = A;
    A = NULL;
done:
    spx_csr_destroy(&A);
    spx_free(ctx, val);
    spx_free(ctx, col);
    spx_free(ctx, row);
    spx_mtx_split_free(ctx, &sp);
    spx_free(ctx, text);
    return st;
}
