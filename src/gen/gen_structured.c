/* src/gen/gen_structured.c: generators with a fixed pattern: 5-, 7- and 27-point stencils,
 * banded and block-diagonal matrices. Entry (i, j) gets the value spx_gen_pair_value(i, j),
 * so square ones are numerically symmetric. */
#include "gen/gen_internal.h"

/* A stencil on an n^dims grid, point (x, y, z) is row x + n*y + n^2*z; full = 1 for all
 * 3^dims neighbours, 0 for the star (2*dims + 1 points). */
typedef struct stencil_g {
    int64_t n;
    int dims, full;
    int laplace; /* 1: the Dirichlet Laplacian's values (SPD), not random ones */
    uint64_t vkey;
} stencil_g;

/* The value of entry (i, j): random and symmetric, or the Laplacian's (-1 off the diagonal,
 * the stencil's neighbour count on it: diagonally dominant, strictly on the boundary, so SPD). */
static double stencil_value(const stencil_g *s, int64_t i, int64_t j)
{
    if (!s->laplace) return spx_gen_pair_value(s->vkey, i, j);
    if (i != j) return -1.0;
    int points = 1; /* of the full stencil: 3^dims */
    for (int d = 0; d < s->dims; d++) points *= 3;
    return s->full ? points - 1.0 : 2.0 * s->dims;
}

/* The grid coordinates of row i (unused ones are 0). */
static void stencil_coords(const stencil_g *s, int64_t i, int64_t c[3])
{
    c[0] = i % s->n;
    c[1] = s->dims > 1 ? (i / s->n) % s->n : 0;
    c[2] = s->dims > 2 ? i / (s->n * s->n) : 0;
}

/* Entries in row i of the stencil. */
static int64_t stencil_count(const void *g, int64_t i)
{
    const stencil_g *s = g;
    int64_t c[3];
    stencil_coords(s, i, c);
    int64_t prod = 1, sum = 1;
    for (int d = 0; d < s->dims; d++) {
        int64_t a = 1 + (c[d] > 0) + (c[d] < s->n - 1);
        prod *= a;
        sum += a - 1;
    }
    return s->full ? prod : sum;
}

/* Row i of the stencil, neighbours visited z, y, x outermost to innermost: ascending columns. */
static void stencil_fill(const void *g, int64_t i, int32_t *col, double *val, int32_t *tmp)
{
    const stencil_g *s = g;
    int64_t c[3];
    stencil_coords(s, i, c);
    int64_t n = s->n, t = 0;
    int zr = s->dims > 2, yr = s->dims > 1;
    for (int dz = -zr; dz <= zr; dz++) {
        if (c[2] + dz < 0 || c[2] + dz >= n) continue;
        for (int dy = -yr; dy <= yr; dy++) {
            if (c[1] + dy < 0 || c[1] + dy >= n) continue;
            for (int dx = -1; dx <= 1; dx++) {
                if (c[0] + dx < 0 || c[0] + dx >= n) continue;
                if (!s->full && (dz != 0) + (dy != 0) + (dx != 0) > 1) continue;
                int64_t j = i + dx + n * (dy + n * dz);
                col[t] = (int32_t)j;
                val[t++] = stencil_value(s, i, j);
            }
        }
    }
}

/* Builds the stencil of the given dimension and kind on an n^dims grid (key n). */
static spx_status stencil(spx_ctx *ctx, const spx_gen_args *a, int dims, int full, spx_csr **out)
{
    int64_t n = spx_gen_int(a, "n");
    /* n <= 2^21 keeps n^3 inside int64 before the int32 check */
    int64_t m = n > (1 << 21) ? INT64_MAX : (dims == 2 ? n * n : n * n * n);
    if (m > INT32_MAX)
        return spx_fail(ctx, SPX_ERR_OVERFLOW,
                        "%s: key 'n': a grid of side %lld has %lld^%d rows, beyond the int32 index range",
                        a->spec, (long long)n, (long long)n, dims);
    stencil_g s = {n, dims, full, (int)spx_gen_int(a, "laplace"),
                   spx_gen_stream_key(spx_gen_u64(a, "seed"), SPX_GEN_STREAM_VAL)};
    spx_gen_rows r = {m, m, &s, stencil_count, stencil_fill, 0};
    return spx_gen_build_rows(ctx, a, &r, out);
}

/* 5-point stencil on an n x n grid. */
spx_status spx_gen_poisson2d(spx_ctx *ctx, const spx_gen_args *a, spx_csr **out)
{
    return stencil(ctx, a, 2, 0, out);
}

/* 7-point stencil on an n^3 grid. */
spx_status spx_gen_poisson3d(spx_ctx *ctx, const spx_gen_args *a, spx_csr **out)
{
    return stencil(ctx, a, 3, 0, out);
}

/* 27-point stencil on an n^3 grid. */
spx_status spx_gen_stencil27(spx_ctx *ctx, const spx_gen_args *a, spx_csr **out)
{
    return stencil(ctx, a, 3, 1, out);
}

/* Banded: entries with |i - j| <= bw in an m x n matrix. */
typedef struct banded_g {
    int64_t n, bw;
    uint64_t vkey;
} banded_g;

/* First and one-past-last column of row i of the band. */
static void banded_range(const banded_g *b, int64_t i, int64_t *lo, int64_t *hi)
{
    *lo = i - b->bw > 0 ? i - b->bw : 0;
    *hi = i + b->bw + 1 < b->n ? i + b->bw + 1 : b->n;
    if (*hi < *lo) *hi = *lo;
}

/* Entries in row i of the band. */
static int64_t banded_count(const void *g, int64_t i)
{
    int64_t lo, hi;
    banded_range(g, i, &lo, &hi);
    return hi - lo;
}

/* Row i of the band. */
static void banded_fill(const void *g, int64_t i, int32_t *col, double *val, int32_t *tmp)
{
    const banded_g *b = g;
    int64_t lo, hi;
    banded_range(b, i, &lo, &hi);
    for (int64_t j = lo; j < hi; j++) {
        col[j - lo] = (int32_t)j;
        val[j - lo] = spx_gen_pair_value(b->vkey, i, j);
    }
}

/* Banded m x n (n defaults to m) with half-bandwidth bw. */
spx_status spx_gen_banded(spx_ctx *ctx, const spx_gen_args *a, spx_csr **out)
{
    int64_t m = spx_gen_int(a, "m");
    int64_t n = spx_gen_isset(a, "n") ? spx_gen_int(a, "n") : m;
    banded_g b = {n, spx_gen_int(a, "bw"), spx_gen_stream_key(spx_gen_u64(a, "seed"), SPX_GEN_STREAM_VAL)};
    spx_gen_rows r = {m, n, &b, banded_count, banded_fill, 0};
    return spx_gen_build_rows(ctx, a, &r, out);
}

/* Block diagonal: dense b x b blocks, the last one cut at m. */
typedef struct block_g {
    int64_t m, b;
    uint64_t vkey;
} block_g;

/* Entries in row i: the width of its block. */
static int64_t block_count(const void *g, int64_t i)
{
    const block_g *bl = g;
    int64_t start = i / bl->b * bl->b;
    return (start + bl->b < bl->m ? start + bl->b : bl->m) - start;
}

/* Row i: every column of its block. */
static void block_fill(const void *g, int64_t i, int32_t *col, double *val, int32_t *tmp)
{
    const block_g *bl = g;
    int64_t start = i / bl->b * bl->b, len = block_count(g, i);
    for (int64_t t = 0; t < len; t++) {
        col[t] = (int32_t)(start + t);
        val[t] = spx_gen_pair_value(bl->vkey, i, start + t);
    }
}

/* Block-diagonal m x m with blocks of size b. */
spx_status spx_gen_blockdiag(spx_ctx *ctx, const spx_gen_args *a, spx_csr **out)
{
    int64_t m = spx_gen_int(a, "m");
    block_g bl = {m, spx_gen_int(a, "b"), spx_gen_stream_key(spx_gen_u64(a, "seed"), SPX_GEN_STREAM_VAL)};
    spx_gen_rows r = {m, m, &bl, block_count, block_fill, 0};
    return spx_gen_build_rows(ctx, a, &r, out);
}
