/* src/gen/gen.c: spx_gen: parses "gen:NAME:key=value,..." against each generator's key
 * table, then calls the generator; spx_gen_help. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen_internal.h"

#define XSTR_(x) #x
#define XSTR(x) XSTR_(x)

#define SIZE_HI 4611686018427387904.0 /* 2^62: larger sizes are refused as out of range */
#define SEED_HI 18446744073709551615.0

/* Key-table entries shared by several generators. */
#define KEY_SEED {"seed", SPX_GEN_U64, 1, SPX_GEN_DEF_SEED, 0, SEED_HI, 0}
#define KEY_SIZE(name, def) {name, SPX_GEN_INT, 1, def, 0, SIZE_HI, 0}
#define KEY_DERIVED(name) {name, SPX_GEN_INT, 0, 0, 0, SIZE_HI, 0}

/* Stencils: laplace=1 gives the values of the Dirichlet Laplacian (SPD) instead of random ones. */
#define KEY_LAPLACE {"laplace", SPX_GEN_INT, 1, 0, 0, 1, 0}
/* Square structured generators: shuffle=1 renumbers rows and columns by one random permutation
 * (spx_gen_build_rows). */
#define KEY_SHUFFLE {"shuffle", SPX_GEN_INT, 1, 0, 0, 1, 0}
static const spx_gen_key keys_p2d[] = {KEY_SIZE("n", SPX_GEN_DEF_P2D_N), KEY_LAPLACE, KEY_SHUFFLE, KEY_SEED};
static const spx_gen_key keys_p3d[] = {KEY_SIZE("n", SPX_GEN_DEF_P3D_N), KEY_LAPLACE, KEY_SHUFFLE, KEY_SEED};
static const spx_gen_key keys_s27[] = {KEY_SIZE("n", SPX_GEN_DEF_S27_N), KEY_LAPLACE, KEY_SHUFFLE, KEY_SEED};
static const spx_gen_key keys_rmat[] = {
    {"scale", SPX_GEN_INT, 1, SPX_GEN_DEF_RMAT_SCALE, 0, 62, 0},
    {"ef", SPX_GEN_INT, 1, SPX_GEN_DEF_RMAT_EF, 0, SIZE_HI, 0},
    {"sym", SPX_GEN_INT, 1, 0, 0, 1, 0},
    {"perm", SPX_GEN_INT, 1, 1, 0, 1, 0},
    {"a", SPX_GEN_REAL, 1, SPX_GEN_DEF_RMAT_A, 0, 1, 0},
    {"b", SPX_GEN_REAL, 1, SPX_GEN_DEF_RMAT_B, 0, 1, 0},
    {"c", SPX_GEN_REAL, 1, SPX_GEN_DEF_RMAT_C, 0, 1, 0},
    KEY_SEED};
static const spx_gen_key keys_uniform[] = {KEY_SIZE("m", SPX_GEN_DEF_UNIFORM_M), KEY_DERIVED("n"),
                                           KEY_SIZE("k", SPX_GEN_DEF_UNIFORM_K), KEY_SEED};
static const spx_gen_key keys_power[] = {
    KEY_SIZE("m", SPX_GEN_DEF_POWER_M), KEY_DERIVED("n"),
    {"k", SPX_GEN_REAL, 1, SPX_GEN_DEF_POWER_K, 1, SIZE_HI, 0},
    {"alpha", SPX_GEN_REAL, 1, SPX_GEN_DEF_POWER_ALPHA, 1, 100, 1},
    KEY_SEED};
static const spx_gen_key keys_banded[] = {KEY_SIZE("m", SPX_GEN_DEF_BANDED_M), KEY_DERIVED("n"),
                                          KEY_SIZE("bw", SPX_GEN_DEF_BANDED_BW), KEY_SHUFFLE, KEY_SEED};
static const spx_gen_key keys_block[] = {KEY_SIZE("m", SPX_GEN_DEF_BLOCK_M),
                                         {"b", SPX_GEN_INT, 1, SPX_GEN_DEF_BLOCK_B, 1, SIZE_HI, 0},
                                         KEY_SHUFFLE, KEY_SEED};
static const spx_gen_key keys_tall[] = {KEY_SIZE("m", SPX_GEN_DEF_TALL_M), KEY_SIZE("n", SPX_GEN_DEF_TALL_N),
                                        KEY_SIZE("k", SPX_GEN_DEF_TALL_K), KEY_SEED};
static const spx_gen_key keys_wide[] = {KEY_SIZE("m", SPX_GEN_DEF_WIDE_M), KEY_SIZE("n", SPX_GEN_DEF_WIDE_N),
                                        KEY_SIZE("k", SPX_GEN_DEF_WIDE_K), KEY_SEED};

typedef struct gen_def {
    const char *name;
    const spx_gen_key *keys;
    int nkeys;
    spx_status (*build)(spx_ctx *ctx, const spx_gen_args *a, spx_csr **out);
} gen_def;

#define GEN(name, keys, fn) {name, keys, (int)(sizeof keys / sizeof keys[0]), fn}
static const gen_def gens[] = {
    GEN("poisson2d", keys_p2d, spx_gen_poisson2d),  GEN("poisson3d", keys_p3d, spx_gen_poisson3d),
    GEN("stencil27", keys_s27, spx_gen_stencil27),  GEN("rmat", keys_rmat, spx_gen_rmat),
    GEN("uniform", keys_uniform, spx_gen_uniform),  GEN("powerlaw", keys_power, spx_gen_powerlaw),
    GEN("banded", keys_banded, spx_gen_banded),     GEN("blockdiag", keys_block, spx_gen_blockdiag),
    GEN("tall", keys_tall, spx_gen_tall),           GEN("wide", keys_wide, spx_gen_wide),
};
#define N_GENS ((int)(sizeof gens / sizeof gens[0]))

static const char help_text[] =
    "Generated matrices: gen:NAME[:key=value,...] (the \"gen:\" prefix is optional).\n"
    "Values are uniform in (-1, 1), never 0, a function of the seed only (not of the thread\n"
    "count). Every generator also takes seed=" XSTR(SPX_GEN_DEF_SEED) ". The structured ones (stencils, banded,\n"
    "blockdiag, rmat) give entry (i, j) the same value as (j, i).\n"
    "  poisson2d  n=" XSTR(SPX_GEN_DEF_P2D_N) " laplace=0\n"
    "             5-point stencil on an n x n grid: m = n^2 rows\n"
    "  poisson3d  n=" XSTR(SPX_GEN_DEF_P3D_N) " laplace=0\n"
    "             7-point stencil on an n^3 grid: m = n^3 rows (n=300: 27M rows, 188M nnz)\n"
    "  stencil27  n=" XSTR(SPX_GEN_DEF_S27_N) " laplace=0\n"
    "             27-point stencil on an n^3 grid: m = n^3 rows\n"
    "             laplace=1 (the three stencils): the Dirichlet Laplacian's values instead of\n"
    "             random ones, -1 off the diagonal and the stencil's neighbour count on it\n"
    "             (4, 6, 26): symmetric positive definite, for the solvers (spx solve)\n"
    "             shuffle=1 (the stencils, banded, blockdiag): rows and columns renumbered by\n"
    "             one random permutation of the seed, like a mesh in no particular order (the\n"
    "             same entries and values, symmetry kept)\n"
    "  rmat       scale=" XSTR(SPX_GEN_DEF_RMAT_SCALE) " ef=" XSTR(SPX_GEN_DEF_RMAT_EF) " sym=0 perm=1 a="
    XSTR(SPX_GEN_DEF_RMAT_A) " b=" XSTR(SPX_GEN_DEF_RMAT_B) " c=" XSTR(SPX_GEN_DEF_RMAT_C) "\n"
    "             Graph500 Kronecker graph: m = n = 2^scale, ef*2^scale edges, d = 1-a-b-c;\n"
    "             self-loops kept, duplicate edges merged into one entry; sym=1 adds every\n"
    "             edge's mirror; perm=1 relabels the vertices by a random permutation\n"
    "  uniform    m=" XSTR(SPX_GEN_DEF_UNIFORM_M) " n=m k=" XSTR(SPX_GEN_DEF_UNIFORM_K) "\n"
    "             exactly k distinct random columns in every row\n"
    "  powerlaw   m=" XSTR(SPX_GEN_DEF_POWER_M) " n=m k=" XSTR(SPX_GEN_DEF_POWER_K) " alpha="
    XSTR(SPX_GEN_DEF_POWER_ALPHA) "\n"
    "             row lengths max(1, min(n, floor(c*X))), X Pareto with density ~ x^-alpha\n"
    "             (alpha > 1), stratified over the rows, c set so the mean length is k;\n"
    "             distinct random columns\n"
    "  banded     m=" XSTR(SPX_GEN_DEF_BANDED_M) " n=m bw=" XSTR(SPX_GEN_DEF_BANDED_BW) "\n"
    "             every entry with |i - j| <= bw\n"
    "  blockdiag  m=" XSTR(SPX_GEN_DEF_BLOCK_M) " b=" XSTR(SPX_GEN_DEF_BLOCK_B) "\n"
    "             dense b x b blocks on the diagonal (the last one smaller)\n"
    "  tall       m=" XSTR(SPX_GEN_DEF_TALL_M) " n=" XSTR(SPX_GEN_DEF_TALL_N) " k=" XSTR(SPX_GEN_DEF_TALL_K) "\n"
    "             many short rows: exactly k distinct random columns in each\n"
    "  wide       m=" XSTR(SPX_GEN_DEF_WIDE_M) " n=" XSTR(SPX_GEN_DEF_WIDE_N) " k=" XSTR(SPX_GEN_DEF_WIDE_K) "\n"
    "             few long rows, like connectus: lengths uniform in [2k-h, h] with\n"
    "             h = min(n, 2k-1), so k on average; distinct random columns\n";

/* The help text: every generator, its keys and their defaults. */
const char *spx_gen_help(void) { return help_text; }

/* Index of key `name` in a's table, or -1. */
static int key_index(const spx_gen_args *a, const char *name)
{
    for (int i = 0; i < a->nkeys; i++)
        if (!strcmp(a->keys[i].name, name)) return i;
    return -1;
}

/* Integer value of key `name` (given or default); 0 for a key the table lacks. */
int64_t spx_gen_int(const spx_gen_args *a, const char *name)
{
    int i = key_index(a, name);
    return i < 0 ? 0 : a->vals[i].i;
}

/* Real value of key `name`; 0 for a key the table lacks. */
double spx_gen_real(const spx_gen_args *a, const char *name)
{
    int i = key_index(a, name);
    return i < 0 ? 0 : a->vals[i].d;
}

/* Unsigned value of key `name`; 0 for a key the table lacks. */
uint64_t spx_gen_u64(const spx_gen_args *a, const char *name)
{
    int i = key_index(a, name);
    return i < 0 ? 0 : a->vals[i].u;
}

/* 1 if key `name` was given in the spec. */
int spx_gen_isset(const spx_gen_args *a, const char *name)
{
    int i = key_index(a, name);
    return i >= 0 && a->vals[i].set;
}

/* The generator called name[0..len), or NULL. */
static const gen_def *find_gen(const char *name, size_t len)
{
    for (int i = 0; i < N_GENS; i++)
        if (strlen(gens[i].name) == len && !strncmp(gens[i].name, name, len)) return &gens[i];
    return NULL;
}

/* Comma-separated names of the generators, for messages. */
static void list_gens(char *buf, size_t size)
{
    buf[0] = '\0';
    for (int i = 0; i < N_GENS; i++) {
        if (i) strncat(buf, ", ", size - strlen(buf) - 1);
        strncat(buf, gens[i].name, size - strlen(buf) - 1);
    }
}

/* Comma-separated key names of generator g, for messages. */
static void list_keys(const gen_def *g, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int i = 0; i < g->nkeys; i++) {
        if (i) strncat(buf, ", ", size - strlen(buf) - 1);
        strncat(buf, g->keys[i].name, size - strlen(buf) - 1);
    }
}

/* Parses text as key k's value into *v, checking its range; SPX_ERR_ARG with a message
 * naming the spec and the key otherwise. */
static spx_status parse_value(spx_ctx *ctx, const char *spec, const spx_gen_key *k, const char *text,
                              spx_gen_val *v)
{
    char *end = NULL;
    double d;
    if (!text[0] || text[0] == ' ' || text[0] == '\t')
        return spx_fail(ctx, SPX_ERR_ARG, "%s: key '%s': missing value", spec, k->name);
    if (strspn(text, "0123456789+-.eE") != strlen(text)) /* no hex, inf, nan, spaces */
        return spx_fail(ctx, SPX_ERR_ARG, "%s: key '%s': '%s' is not a number", spec, k->name, text);
    errno = 0;
    if (k->kind == SPX_GEN_U64) {
        unsigned long long u = strtoull(text, &end, 10);
        if (*end || text[0] == '-' || text[0] == '+' || errno)
            return spx_fail(ctx, SPX_ERR_ARG, "%s: key '%s': '%s' is not an integer in [0, 2^64)", spec,
                            k->name, text);
        v->u = (uint64_t)u;
        v->i = (int64_t)(u & INT64_MAX);
        v->d = (double)u;
        v->set = 1;
        return SPX_OK;
    }
    if (k->kind == SPX_GEN_INT) {
        long long i = strtoll(text, &end, 10);
        if (!*end && !errno) {
            d = (double)i;
        } else { /* allow 1e6, but only integral values */
            errno = 0;
            d = strtod(text, &end);
            if (*end || errno || !isfinite(d) || d != floor(d) || fabs(d) >= 9.2e18)
                return spx_fail(ctx, SPX_ERR_ARG, "%s: key '%s': '%s' is not an integer", spec, k->name,
                                text);
            i = (long long)d;
        }
        v->i = i;
    } else {
        d = strtod(text, &end);
        if (*end || errno || !isfinite(d))
            return spx_fail(ctx, SPX_ERR_ARG, "%s: key '%s': '%s' is not a number", spec, k->name, text);
        v->i = (int64_t)d;
    }
    if (d < k->lo || d > k->hi || (k->lo_open && d == k->lo)) {
        if (k->kind == SPX_GEN_INT)
            return spx_fail(ctx, SPX_ERR_ARG, "%s: key '%s': %s out of range [%lld, %lld]", spec, k->name,
                            text, (long long)k->lo, (long long)k->hi);
        return spx_fail(ctx, SPX_ERR_ARG, "%s: key '%s': %s out of range %c%g, %g]", spec, k->name, text,
                        k->lo_open ? '(' : '[', k->lo, k->hi);
    }
    v->d = d;
    v->u = (uint64_t)v->i;
    v->set = 1;
    return SPX_OK;
}

/* Parses the "key=value,..." list in kv (may be empty) into a->vals. */
static spx_status parse_keys(spx_ctx *ctx, const gen_def *g, const char *kv, spx_gen_args *a)
{
    char keybuf[32], valbuf[96], known[256];
    const char *p = kv;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (!eq || eq == p)
            return spx_fail(ctx, SPX_ERR_ARG, "%s: malformed item '%.*s' (expected key=value)", a->spec,
                            (int)len, p);
        size_t klen = (size_t)(eq - p), vlen = len - klen - 1;
        if (klen >= sizeof keybuf) klen = sizeof keybuf - 1; /* too long to be a key anyway */
        memcpy(keybuf, p, klen);
        keybuf[klen] = '\0';
        int ki = key_index(a, keybuf);
        if (ki < 0) {
            list_keys(g, known, sizeof known);
            return spx_fail(ctx, SPX_ERR_ARG, "%s: unknown key '%s' for generator %s (keys: %s)", a->spec,
                            keybuf, g->name, known);
        }
        if (a->vals[ki].set)
            return spx_fail(ctx, SPX_ERR_ARG, "%s: key '%s' given twice", a->spec, keybuf);
        if (vlen >= sizeof valbuf)
            return spx_fail(ctx, SPX_ERR_ARG, "%s: key '%s': value too long", a->spec, keybuf);
        memcpy(valbuf, eq + 1, vlen);
        valbuf[vlen] = '\0';
        spx_status s = parse_value(ctx, a->spec, &a->keys[ki], valbuf, &a->vals[ki]);
        if (s) return s;
        if (!comma) break;
        p = comma + 1;
        if (!*p) return spx_fail(ctx, SPX_ERR_ARG, "%s: trailing ',' after the last key", a->spec);
    }
    return SPX_OK;
}

/* Generates the matrix a spec describes (see gen.h). */
spx_status spx_gen_progress(spx_ctx *ctx, const char *spec, const spx_progress *pr, spx_csr **out)
{
    if (!ctx) return SPX_ERR_ARG;
    if (!spec || !out) return spx_fail(ctx, SPX_ERR_ARG, "spx_gen: NULL spec or output");
    char names[256];
    const char *p = spec;
    if (!strncmp(p, "gen:", 4)) p += 4;
    const char *colon = strchr(p, ':');
    size_t nlen = colon ? (size_t)(colon - p) : strlen(p);
    const gen_def *g = find_gen(p, nlen);
    if (!g) {
        list_gens(names, sizeof names);
        return spx_fail(ctx, SPX_ERR_ARG, "%s: unknown generator '%.*s' (known: %s)", spec, (int)nlen, p,
                        names);
    }
    spx_gen_args a;
    memset(&a, 0, sizeof a);
    a.spec = spec;
    a.name = g->name;
    a.keys = g->keys;
    a.nkeys = g->nkeys;
    a.progress = pr;
    for (int i = 0; i < g->nkeys; i++) {
        a.vals[i].d = g->keys[i].def;
        a.vals[i].i = (int64_t)g->keys[i].def;
        a.vals[i].u = (uint64_t)g->keys[i].def;
    }
    spx_status s = parse_keys(ctx, g, colon ? colon + 1 : "", &a);
    if (s) return s;
    spx_csr *A = NULL;
    s = g->build(ctx, &a, &A);
    if (s) { /* messages from the core (out of memory) do not name the spec: add it */
        if (strncmp(ctx->last_error, spec, strlen(spec))) {
            char msg[SPX_ERRMSG_LEN];
            memcpy(msg, ctx->last_error, sizeof msg);
            msg[sizeof msg - 1] = '\0';
            spx_fail(ctx, s, "%s: %s", spec, msg);
        }
        return s;
    }
    A->meta.symmetry = SPX_SYM_GENERAL;
    A->meta.field = SPX_FIELD_REAL;
    *out = A;
    return SPX_OK;
}

spx_status spx_gen(spx_ctx *ctx, const char *spec, spx_csr **out)
{
    return spx_gen_progress(ctx, spec, NULL, out);
}
