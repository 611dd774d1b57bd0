/* src/io/mtx_lex.h: the Matrix Market reader's token, integer and real-number scanners. */
#ifndef SPX_IO_MTX_LEX_H
#define SPX_IO_MTX_LEX_H

#include <float.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef enum spx_lex_result {
    SPX_LEX_OK = 0,
    SPX_LEX_SYNTAX = 1, /* not a number of the expected kind */
    SPX_LEX_RANGE = 2   /* a number, but too large for its type */
} spx_lex_result;

/* 1 for the blanks that separate tokens within a line ('\n' ends the line instead). */
static inline int spx_lex_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* 1 when p is where a token may end: a blank, a newline or the end of the text. */
static inline int spx_lex_token_end(const char *p, const char *end)
{
    return p >= end || *p == '\n' || spx_lex_blank(*p);
}

/* Skips blanks (not newlines); returns the first other position (or end). */
static inline const char *spx_lex_skip_blanks(const char *p, const char *end)
{
    while (p < end && spx_lex_blank(*p))
        p++;
    return p;
}

/* The slow path of spx_lex_int64: digits [p, q) with overflow checks (more than 18 digits). */
spx_lex_result spx_lex_int64_long(const char *p, const char *q, int neg, int64_t *out);

/* Scans a decimal integer [+-]?[0-9]+ that must end at a token end; advances *pp past it. */
static inline spx_lex_result spx_lex_int64(const char **pp, const char *end, int64_t *out)
{
    const char *p = *pp;
    int neg = 0;
    if (p < end && (*p == '+' || *p == '-')) {
        neg = *p == '-';
        p++;
    }
    const char *digits = p;
    uint64_t v = 0;
    while (p < end && (unsigned)(*p - '0') < 10u) {
        v = v * 10u + (unsigned)(*p - '0');
        p++;
    }
    if (p == digits || !spx_lex_token_end(p, end))
        return SPX_LEX_SYNTAX;
    *pp = p;
    if (p - digits > 18) /* 18 digits cannot overflow int64; more may */
        return spx_lex_int64_long(digits, p, neg, out);
    *out = neg ? -(int64_t)v : (int64_t)v;
    return SPX_LEX_OK;
}

/* The slow path of spx_lex_double: strtod on a token that starts at p. */
spx_lex_result spx_lex_double_slow(const char **pp, const char *end, double *out);

/* m * 10^e10 correctly rounded for up to 19-digit m and |e10| <= 27 through the x87 64-bit
 * significand: m and 10^e10 are exact there, the one operation rounds once to 64 bits, and
 * the rounding to 53 bits can differ from rounding the exact value only when the 64-bit
 * result sits exactly on a midpoint between doubles (low 11 bits 10000000000), which is
 * refused (returns 0) along with everything outside the range or on other long doubles.
 * This is what keeps %.17g text (17 digits, beyond the exact-double path) off strtod. */
static inline int spx_lex_double_x87(uint64_t m, long e10, double *out)
{
    static const long double pow10l[28] = {
        1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
        1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
        1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
    if (LDBL_MANT_DIG != 64 || e10 < -27 || e10 > 27)
        return 0;
    long double r = e10 < 0 ? (long double)m / pow10l[-e10] : (long double)m * pow10l[e10];
    uint64_t significand;
    memcpy(&significand, &r, sizeof significand); /* x87 layout: significand first */
    if ((significand & 0x7ff) == 0x400)
        return 0;
    *out = (double)r;
    return 1;
}

/* Scans a real number that must end at a token end; advances *pp past it. Decimals of up
 * to 19 significant digits with a power of ten within 1e±22 (1e±27 on x87) are converted
 * here, correctly rounded (one IEEE operation on exact operands); the rest go to strtod. */
static inline spx_lex_result spx_lex_double(const char **pp, const char *end, double *out)
{
    static const double pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char *p = *pp;
    int neg = 0;
    if (p < end && (*p == '+' || *p == '-')) {
        neg = *p == '-';
        p++;
    }
    uint64_t m = 0;
    int nd = 0, any = 0;
    long e10 = 0;
    while (p < end && (unsigned)(*p - '0') < 10u) {
        if (nd >= 19)
            return spx_lex_double_slow(pp, end, out);
        m = m * 10u + (unsigned)(*p - '0');
        nd += m != 0;
        any = 1;
        p++;
    }
    if (p < end && *p == '.') {
        p++;
        while (p < end && (unsigned)(*p - '0') < 10u) {
            if (nd >= 19)
                return spx_lex_double_slow(pp, end, out);
            m = m * 10u + (unsigned)(*p - '0');
            nd += m != 0;
            e10--;
            any = 1;
            p++;
        }
    }
    if (!any)
        return spx_lex_double_slow(pp, end, out); /* inf, nan, or not a number */
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        int eneg = 0;
        if (p < end && (*p == '+' || *p == '-')) {
            eneg = *p == '-';
            p++;
        }
        if (p >= end || (unsigned)(*p - '0') >= 10u)
            return SPX_LEX_SYNTAX;
        long x = 0;
        while (p < end && (unsigned)(*p - '0') < 10u) {
            if (x < 100000)
                x = x * 10 + (*p - '0');
            p++;
        }
        e10 += eneg ? -x : x;
    }
    if (!spx_lex_token_end(p, end))
        return spx_lex_double_slow(pp, end, out); /* hex floats and the like, or garbage */
    double v;
    if (m == 0)
        v = 0.0;
    else if (m <= ((uint64_t)1 << 53) && e10 >= -22 && e10 <= 22)
        v = e10 < 0 ? (double)m / pow10[-e10] : (double)m * pow10[e10];
    else if (!spx_lex_double_x87(m, e10, &v))
        return spx_lex_double_slow(pp, end, out);
    *out = neg ? -v : v;
    *pp = p;
    return SPX_LEX_OK;
}

/* Copies the token at p (up to a token end, at most cap - 1 bytes, "..." marking a cut)
 * into buf for error messages; returns buf. */
char *spx_lex_token_copy(char *buf, size_t cap, const char *p, const char *end);

#endif
