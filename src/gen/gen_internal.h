/* src/gen/gen_internal.h: what the generator files share: the counter-based RNG, parsed spec
 * arguments, the row-by-row CSR builder, sorting and sampling helpers, and the builders. */
#ifndef SPX_GEN_INTERNAL_H
#define SPX_GEN_INTERNAL_H

#include "core/rng.h"
#include <stdint.h>

#include "core/ctx.h"
#include "core/progress.h"

/* ---- defaults (used by the key tables and quoted in spx_gen_help) ---------------------- */

#define SPX_GEN_DEF_SEED 1
#define SPX_GEN_DEF_P2D_N 128
#define SPX_GEN_DEF_P3D_N 32
#define SPX_GEN_DEF_S27_N 32
#define SPX_GEN_DEF_RMAT_SCALE 10
#define SPX_GEN_DEF_RMAT_EF 16
#define SPX_GEN_DEF_RMAT_A 0.57
#define SPX_GEN_DEF_RMAT_B 0.19
#define SPX_GEN_DEF_RMAT_C 0.19
#define SPX_GEN_DEF_UNIFORM_M 1000
#define SPX_GEN_DEF_UNIFORM_K 8
#define SPX_GEN_DEF_POWER_M 10000
#define SPX_GEN_DEF_POWER_K 8
#define SPX_GEN_DEF_POWER_ALPHA 2.0
#define SPX_GEN_DEF_BANDED_M 1000
#define SPX_GEN_DEF_BANDED_BW 5
#define SPX_GEN_DEF_BLOCK_M 1000
#define SPX_GEN_DEF_BLOCK_B 32
#define SPX_GEN_DEF_TALL_M 100000
#define SPX_GEN_DEF_TALL_N 1000
#define SPX_GEN_DEF_TALL_K 2
/* connectus is 512 x 394792 with 1,127,525 entries: 2202 per row on average. */
#define SPX_GEN_DEF_WIDE_M 512
#define SPX_GEN_DEF_WIDE_N 394792
#define SPX_GEN_DEF_WIDE_K 2200

/* ---- counter-based RNG: splitmix64 keyed by (seed, stream, index) ---------------------- */

#define SPX_GEN_GOLDEN SPX_SPLITMIX64_GAMMA

/* Streams keep the random numbers of different purposes independent. */
enum {
    SPX_GEN_STREAM_VAL = 1,  /* entry values */
    SPX_GEN_STREAM_LEN = 2,  /* row lengths */
    SPX_GEN_STREAM_COL = 3,  /* column choice and values of random rows */
    SPX_GEN_STREAM_EDGE = 4, /* R-MAT edges */
    SPX_GEN_STREAM_PERM = 5  /* R-MAT vertex permutation */
};

/* The splitmix64 finaliser (src/core/rng.h). */
static inline uint64_t spx_gen_mix64(uint64_t z) { return spx_mix64(z); }

/* The key of one stream under one seed. */
static inline uint64_t spx_gen_stream_key(uint64_t seed, uint64_t stream)
{
    return spx_gen_mix64(spx_gen_mix64(seed) + stream * SPX_GEN_GOLDEN);
}

/* A splitmix64 sequence; its start is a function of (key, index) only, so each row or edge
 * draws the same numbers whichever thread generates it. */
typedef struct spx_gen_rng {
    uint64_t s;
} spx_gen_rng;

/* The sequence for element `index` of the stream with key `key`. */
static inline spx_gen_rng spx_gen_rng_at(uint64_t key, uint64_t index)
{
    spx_gen_rng r = {spx_gen_mix64(key ^ spx_gen_mix64(index + SPX_GEN_GOLDEN))};
    return r;
}

/* Next 64 random bits. */
static inline uint64_t spx_gen_next(spx_gen_rng *r)
{
    r->s += SPX_GEN_GOLDEN;
    return spx_gen_mix64(r->s);
}

/* Maps 64 random bits to (-1, 1), never exactly 0: (2j + 1 - 2^52) / 2^52 for 52-bit j. */
static inline double spx_gen_bits_to_pm1(uint64_t x)
{
    return ((double)(x >> 12) + 0.5) * 0x1p-51 - 1.0;
}

/* Maps 64 random bits to (0, 1). */
static inline double spx_gen_bits_to_01(uint64_t x)
{
    return ((double)(x >> 12) + 0.5) * 0x1p-52;
}

/* Uniform integer in [0, range), range < 2^32, unbiased (Lemire's multiply and reject). */
static inline uint32_t spx_gen_below(spx_gen_rng *r, uint32_t range)
{
    uint64_t p = (uint64_t)(uint32_t)spx_gen_next(r) * range;
    if ((uint32_t)p < range) {
        uint32_t t = (uint32_t)(-range) % range;
        while ((uint32_t)p < t) p = (uint64_t)(uint32_t)spx_gen_next(r) * range;
    }
    return (uint32_t)(p >> 32);
}

/* The value of entry (i, j) from the value key, symmetric in i and j, in (-1, 1), never 0. */
static inline double spx_gen_pair_value(uint64_t vkey, int64_t i, int64_t j)
{
    uint64_t lo = (uint64_t)(i < j ? i : j), hi = (uint64_t)(i < j ? j : i);
    return spx_gen_bits_to_pm1(spx_gen_mix64(vkey ^ spx_gen_mix64((lo << 32 | hi) + SPX_GEN_GOLDEN)));
}

/* ---- keyed permutations ------------------------------------------------------------------ */

#define SPX_GEN_PERM_ROUNDS 4
#define SPX_GEN_PERM_KEYS (2 * SPX_GEN_PERM_ROUNDS)

/* The keys of the permutation under seed (PERM stream). */
void spx_gen_perm_keys(uint64_t seed, uint64_t key[SPX_GEN_PERM_KEYS]);
/* A keyed bijection of [0, 2^bits), bits <= 63, computed per element without a table. */
uint64_t spx_gen_permute(uint64_t x, int bits, const uint64_t key[SPX_GEN_PERM_KEYS]);
/* A keyed bijection of [0, m), m >= 1: spx_gen_permute on the smallest power of two >= m,
 * walking the cycle until it lands below m. */
uint64_t spx_gen_permute_below(uint64_t x, uint64_t m, const uint64_t key[SPX_GEN_PERM_KEYS]);

/* ---- parsed spec ------------------------------------------------------------------------ */

typedef enum spx_gen_kind { SPX_GEN_INT, SPX_GEN_REAL, SPX_GEN_U64 } spx_gen_kind;

/* One key a generator accepts. Ranges are inclusive unless lo_open; a derived default
 * (has_def = 0) is computed by the generator from other keys. */
typedef struct spx_gen_key {
    const char *name;
    spx_gen_kind kind;
    int has_def;
    double def;
    double lo, hi;
    int lo_open;
} spx_gen_key;

#define SPX_GEN_MAX_KEYS 12

/* A key's value as given (set = 1) or its table default. */
typedef struct spx_gen_val {
    int set;
    int64_t i;
    uint64_t u;
    double d;
} spx_gen_val;

/* The spec after parsing: the original text (for messages), the generator's key table and
 * a value for each of its keys. */
typedef struct spx_gen_args {
    const char *spec;
    const char *name;
    const spx_gen_key *keys;
    int nkeys;
    spx_gen_val vals[SPX_GEN_MAX_KEYS];
    const spx_progress *progress; /* the caller's progress reports, or NULL */
} spx_gen_args;

/* Integer value of key `name` (given or default). */
int64_t spx_gen_int(const spx_gen_args *a, const char *name);
/* Real value of key `name`. */
double spx_gen_real(const spx_gen_args *a, const char *name);
/* Unsigned 64-bit value of key `name` (the seed). */
uint64_t spx_gen_u64(const spx_gen_args *a, const char *name);
/* 1 if key `name` was given in the spec. */
int spx_gen_isset(const spx_gen_args *a, const char *name);

/* ---- building CSR row by row ------------------------------------------------------------ */

/* A generator of independent rows: count(g, i) entries in row i, written by fill(g, i, ...)
 * with columns strictly increasing. Both must be pure functions of (g, i). fill may use
 * tmp[0..scratch), private to the calling thread. */
typedef struct spx_gen_rows {
    int64_t m, n;
    const void *g;
    int64_t (*count)(const void *g, int64_t i);
    void (*fill)(const void *g, int64_t i, int32_t *col, double *val, int32_t *tmp);
    int64_t scratch;
} spx_gen_rows;

/* Builds the CSR of r in parallel: count pass, prefix sum, fill pass ("generate" 0, 1, 2 of 2
 * reported to a->progress); with the spec's key shuffle=1 (square r only), rows and columns
 * renumbered by one keyed permutation of the seed (P r P^T, each row's columns sorted again). */
spx_status spx_gen_build_rows(spx_ctx *ctx, const spx_gen_args *a, const spx_gen_rows *r,
                              spx_csr **out);
/* Fails with SPX_ERR_OVERFLOW naming the spec when m or n exceeds the int32 range. */
spx_status spx_gen_check_dims(spx_ctx *ctx, const spx_gen_args *a, int64_t m, int64_t n);
/* Sorts c[0..len) ascending. */
void spx_gen_sort_i32(int32_t *c, int64_t len);
/* Scratch entries spx_gen_sample_sorted needs for any row of up to kmax entries out of n. */
int64_t spx_gen_sample_scratch(int64_t n, int64_t kmax);
/* Writes k distinct columns of [0, n), uniformly chosen, sorted, to col; draws from r;
 * tmp has spx_gen_sample_scratch(n, k) entries. */
void spx_gen_sample_sorted(spx_gen_rng *r, int64_t n, int64_t k, int32_t *col, int32_t *tmp);

/* ---- the generators (each validates its own keys beyond the table's ranges) ------------- */

spx_status spx_gen_poisson2d(spx_ctx *ctx, const spx_gen_args *a, spx_csr **out);
spx_status spx_gen_poisson3d(spx_ctx *ctx, const spx_gen_args *a, spx_csr **out);
spx_status spx_gen_stencil27(spx_ctx *ctx, const spx_gen_args *a, spx_csr **out);
spx_status spx_gen_banded(spx_ctx *ctx, const spx_gen_args *a, spx_csr **out);
spx_status spx_gen_blockdiag(spx_ctx *ctx, const spx_gen_args *a, spx_csr **out);
spx_status spx_gen_uniform(spx_ctx *ctx, const spx_gen_args *a, spx_csr **out);
spx_status spx_gen_tall(spx_ctx *ctx, const spx_gen_args *a, spx_csr **out);
spx_status spx_gen_powerlaw(spx_ctx *ctx, const spx_gen_args *a, spx_csr **out);
spx_status spx_gen_wide(spx_ctx *ctx, const spx_gen_args *a, spx_csr **out);
spx_status spx_gen_rmat(spx_ctx *ctx, const spx_gen_args *a, spx_csr **out);

#endif
