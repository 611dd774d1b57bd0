/* src/io/mtx_lex.c: the reader's out-of-line scanner parts (strtod path, message tokens). */
#include "io/mtx_lex.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Digits [p, q) as an int64 with overflow detection. */
spx_lex_result spx_lex_int64_long(const char *p, const char *q, int neg, int64_t *out)
{
    uint64_t v = 0;
    for (; p < q; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (v > ((uint64_t)INT64_MAX - d) / 10u)
            return SPX_LEX_RANGE;
        v = v * 10u + d;
    }
    *out = neg ? -(int64_t)v : (int64_t)v;
    return SPX_LEX_OK;
}

/* strtod on the token at *pp: a number that ends at a token end, finite unless written as
 * inf/nan; subnormal results (ERANGE towards zero) are accepted. */
spx_lex_result spx_lex_double_slow(const char **pp, const char *end, double *out)
{
    const char *p = *pp;
    char *q = NULL;
    if (p >= end || spx_lex_blank(*p) || *p == '\n')
        return SPX_LEX_SYNTAX; /* strtod would skip blanks and newlines */
    errno = 0;
    double v = strtod(p, &q);
    if (q == p || q > end || !spx_lex_token_end(q, end))
        return SPX_LEX_SYNTAX;
    if (errno == ERANGE && isinf(v))
        return SPX_LEX_RANGE;
    *out = v;
    *pp = q;
    return SPX_LEX_OK;
}

/* Copies the token at p into buf for messages. */
char *spx_lex_token_copy(char *buf, size_t cap, const char *p, const char *end)
{
    size_t n = 0;
    while (p + n < end && !spx_lex_token_end(p + n, end) && n + 1 < cap)
        n++;
    for (size_t i = 0; i < n; i++) /* control bytes would cut or garble the message */
        buf[i] = (unsigned char)p[i] < 0x20 || p[i] == 0x7f ? '?' : p[i];
    buf[n] = '\0';
    if (p + n < end && !spx_lex_token_end(p + n, end) && cap >= 4) {
        if (n > cap - 4)
            n = cap - 4;
        memcpy(buf + n, "...", 4);
    }
    return buf;
}
