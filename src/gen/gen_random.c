/* src/gen/gen_random.c: generators with random rows: uniform and tall (exactly k random
 * columns per row), powerlaw (power-law row lengths), wide (few long rows of varying length).
 * Row i's length comes from the LEN stream at index i, its columns and values from the COL
 * stream at index i, so rows are generated independently and in parallel. */
#include <math.h>
#include <string.h>

#include "gen/gen_internal.h"

typedef enum len_kind { LEN_FIXED, LEN_RANGE, LEN_POWER } len_kind;

/* How row lengths are drawn: k (FIXED), uniform in [lo, hi] (RANGE), or
 * max(1, min(n, floor(c * X))) with X = U^(-1/beta) Pareto (POWER). For POWER, U is
 * stratified: row i takes U in stratum [q, q+1)/m, q = a keyed permutation of i, so the m
 * lengths follow the law closely (the realised mean is near k even for heavy tails) and the
 * long rows land at random places. */
typedef struct rand_g {
    int64_t m, n;
    len_kind kind;
    int64_t k, lo, hi;
    double c, inv_beta;
    uint64_t lkey, ckey;
    uint64_t pkey[SPX_GEN_PERM_KEYS];
} rand_g;

/* Entries in row i. */
static int64_t rand_count(const void *g, int64_t i)
{
    const rand_g *r = g;
    if (r->kind == LEN_FIXED) return r->k;
    spx_gen_rng rng = spx_gen_rng_at(r->lkey, (uint64_t)i);
    if (r->kind == LEN_RANGE) return r->lo + spx_gen_below(&rng, (uint32_t)(r->hi - r->lo + 1));
    uint64_t q = spx_gen_permute_below((uint64_t)i, (uint64_t)r->m, r->pkey);
    double u = ((double)q + spx_gen_bits_to_01(spx_gen_next(&rng))) / (double)r->m;
    double y = r->c * pow(u, -r->inv_beta);
    if (!(y < (double)r->n)) return r->n; /* also catches inf */
    int64_t len = (int64_t)y;
    return len < 1 ? 1 : len;
}

/* Row i: distinct sorted random columns, then a value for each. */
static void rand_fill(const void *g, int64_t i, int32_t *col, double *val, int32_t *tmp)
{
    const rand_g *r = g;
    int64_t len = rand_count(g, i);
    spx_gen_rng rng = spx_gen_rng_at(r->ckey, (uint64_t)i);
    spx_gen_sample_sorted(&rng, r->n, len, col, tmp);
    for (int64_t t = 0; t < len; t++) val[t] = spx_gen_bits_to_pm1(spx_gen_next(&rng));
}

/* A rand_g with keys from the seed; the length rule is left to the caller. */
static rand_g rand_init(const spx_gen_args *a, int64_t m, int64_t n)
{
    uint64_t seed = spx_gen_u64(a, "seed");
    rand_g r;
    memset(&r, 0, sizeof r);
    r.m = m;
    r.n = n;
    r.kind = LEN_FIXED;
    r.lkey = spx_gen_stream_key(seed, SPX_GEN_STREAM_LEN);
    r.ckey = spx_gen_stream_key(seed, SPX_GEN_STREAM_COL);
    spx_gen_perm_keys(seed ^ SPX_GEN_GOLDEN, r.pkey);
    return r;
}

/* Checks that m x n is representable and that the row count k fits in n columns. */
static spx_status check_k(spx_ctx *ctx, const spx_gen_args *a, int64_t m, int64_t n, double k)
{
    spx_status s = spx_gen_check_dims(ctx, a, m, n);
    if (s) return s;
    if (k > (double)n)
        return spx_fail(ctx, SPX_ERR_ARG, "%s: key 'k': %g per row exceeds n = %lld columns", a->spec, k,
                        (long long)n);
    return SPX_OK;
}

/* m x n with exactly k distinct random columns in every row. */
static spx_status fixed_rows(spx_ctx *ctx, const spx_gen_args *a, int64_t m, int64_t n, spx_csr **out)
{
    int64_t k = spx_gen_int(a, "k");
    spx_status s = check_k(ctx, a, m, n, (double)k);
    if (s) return s;
    rand_g r = rand_init(a, m, n);
    r.k = k;
    spx_gen_rows rows = {m, n, &r, rand_count, rand_fill, spx_gen_sample_scratch(n, k)};
    return spx_gen_build_rows(ctx, a, &rows, out);
}

/* uniform: m x n (n defaults to m), k random columns per row. */
spx_status spx_gen_uniform(spx_ctx *ctx, const spx_gen_args *a, spx_csr **out)
{
    int64_t m = spx_gen_int(a, "m");
    return fixed_rows(ctx, a, m, spx_gen_isset(a, "n") ? spx_gen_int(a, "n") : m, out);
}

/* tall: uniform with tall defaults (many rows, few columns, 2 per row). */
spx_status spx_gen_tall(spx_ctx *ctx, const spx_gen_args *a, spx_csr **out)
{
    return fixed_rows(ctx, a, spx_gen_int(a, "m"), spx_gen_int(a, "n"), out);
}

/* wide: m rows of n columns, lengths uniform in [2k - h, h] with h = min(n, 2k - 1), so the
 * expected mean is exactly k and lengths vary from about 1 to 2k. */
spx_status spx_gen_wide(spx_ctx *ctx, const spx_gen_args *a, spx_csr **out)
{
    int64_t m = spx_gen_int(a, "m"), n = spx_gen_int(a, "n"), k = spx_gen_int(a, "k");
    spx_status s = check_k(ctx, a, m, n, (double)k);
    if (s) return s;
    rand_g r = rand_init(a, m, n);
    r.kind = LEN_RANGE;
    r.hi = k > 0 ? (n < 2 * k - 1 ? n : 2 * k - 1) : 0;
    r.lo = 2 * k - r.hi;
    spx_gen_rows rows = {m, n, &r, rand_count, rand_fill, spx_gen_sample_scratch(n, r.hi)};
    return spx_gen_build_rows(ctx, a, &rows, out);
}

/* The sum of (c/j)^beta for integers j in [a, b], c < a: exact for the first terms, then
 * the midpoint-rule integral, accurate once the terms vary slowly. Ratios stay below 1, so
 * nothing overflows even for large beta. */
static double power_sum(double c, int64_t a, int64_t b, double beta)
{
    double sum = 0;
    int64_t j = a;
    for (; j <= b && j < a + 4096; j++) sum += pow(c / (double)j, beta);
    if (j > b) return sum;
    double lo = (double)j - 0.5, hi = (double)b + 0.5;
    if (fabs(beta - 1) < 1e-12) return sum + c * log(hi / lo);
    return sum + c / (beta - 1) * (pow(c / lo, beta - 1) - pow(c / hi, beta - 1));
}

/* Expected row length E[max(1, min(n, floor(c X)))] with P(X >= x) = x^-beta for x >= 1:
 * the sum over j = 1..n of P(length >= j), which is 1 for j = 1 and min(1, (c/j)^beta) after. */
static double power_mean(double c, int64_t n, double beta)
{
    if (n <= 1) return (double)n;
    double cf = floor(c);
    int64_t ones = cf >= (double)n ? n : (int64_t)cf; /* j <= c: P = 1 */
    if (ones < 1) ones = 1;
    if (ones >= n) return (double)n;
    return (double)ones + power_sum(c, ones + 1, n, beta);
}

/* The scale c with power_mean(c) = k, by bisection (the mean grows with c). */
static double power_scale(double k, int64_t n, double beta)
{
    double lo = 0, hi = 2.0 * (double)n + 2;
    if (k <= 1) return 0;
    if (k >= (double)n) return hi;
    for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; it++) {
        double mid = 0.5 * (lo + hi);
        if (power_mean(mid, n, beta) < k)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* powerlaw: m x n (n defaults to m); row lengths follow a power law with exponent alpha,
 * at least 1, at most n, with expected mean k; columns uniform random and distinct. */
spx_status spx_gen_powerlaw(spx_ctx *ctx, const spx_gen_args *a, spx_csr **out)
{
    int64_t m = spx_gen_int(a, "m");
    int64_t n = spx_gen_isset(a, "n") ? spx_gen_int(a, "n") : m;
    double k = spx_gen_real(a, "k"), beta = spx_gen_real(a, "alpha") - 1;
    spx_status s = check_k(ctx, a, m, n, k);
    if (s) return s;
    rand_g r = rand_init(a, m, n);
    r.kind = LEN_POWER;
    r.inv_beta = 1 / beta;
    r.c = power_scale(k, n, beta);
    spx_gen_rows rows = {m, n, &r, rand_count, rand_fill, spx_gen_sample_scratch(n, n)};
    return spx_gen_build_rows(ctx, a, &rows, out);
}
