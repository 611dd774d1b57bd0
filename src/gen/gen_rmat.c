/* src/gen/gen_rmat.c: the Graph500 Kronecker (R-MAT) generator: edges drawn in parallel
 * into COO, vertices relabelled by a keyed permutation, merged by spx_coo_to_csr (in
 * parallel, the same matrix for every thread count). */
#include "gen/gen_internal.h"

/* Quadrant thresholds of one recursion level, as 32-bit fractions. */
typedef struct rmat_p {
    uint64_t ta, tab, tabc; /* a, a+b, a+b+c times 2^32 */
} rmat_p;

/* Adds level `bit` of an edge to (u, v) from 32 random bits r: a = (0,0), b = (0,1),
 * c = (1,0), d = (1,1) in (row, column). Branch-free: the quadrant is unpredictable. */
static inline void rmat_level(const rmat_p *p, uint64_t r, int bit, uint64_t *u, uint64_t *v)
{
    uint64_t bu = r >= p->tab;                                  /* c or d */
    uint64_t bv = (r >= p->ta) & ((r < p->tab) | (r >= p->tabc)); /* b or d */
    *u |= bu << bit;
    *v |= bv << bit;
}

/* Draws the edges into C (and their mirrors when sym), in parallel; edge e is a function of
 * (seed, e) only. */
static void rmat_edges(spx_coo *C, int64_t edges, int scale, int sym, int perm, const rmat_p *p,
                       uint64_t ekey, const uint64_t *pkey, uint64_t vkey, int nt)
{
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t e = 0; e < edges; e++) {
        spx_gen_rng rng = spx_gen_rng_at(ekey, (uint64_t)e);
        uint64_t u = 0, v = 0;
        for (int lvl = 0; lvl < scale; lvl += 2) { /* two levels per 64 random bits */
            uint64_t bits = spx_gen_next(&rng);
            rmat_level(p, bits & 0xffffffffULL, lvl, &u, &v);
            if (lvl + 1 < scale) rmat_level(p, bits >> 32, lvl + 1, &u, &v);
        }
        if (perm) {
            u = spx_gen_permute(u, scale, pkey);
            v = spx_gen_permute(v, scale, pkey);
        }
        double w = spx_gen_pair_value(vkey, (int64_t)u, (int64_t)v);
        C->row[e] = (int32_t)u;
        C->col[e] = (int32_t)v;
        C->val[e] = w;
        if (sym) {
            C->row[edges + e] = (int32_t)v;
            C->col[edges + e] = (int32_t)u;
            C->val[edges + e] = w;
        }
    }
}

/* rmat: 2^scale vertices, ef * 2^scale edges; duplicates merged into one entry whose value
 * is the pair's value (so values stay in (-1, 1) and sym=1 is numerically symmetric). */
spx_status spx_gen_rmat(spx_ctx *ctx, const spx_gen_args *a, spx_csr **out)
{
    int64_t scale = spx_gen_int(a, "scale"), ef = spx_gen_int(a, "ef");
    int sym = (int)spx_gen_int(a, "sym"), perm = (int)spx_gen_int(a, "perm");
    double pa = spx_gen_real(a, "a"), pb = spx_gen_real(a, "b"), pc = spx_gen_real(a, "c");
    uint64_t seed = spx_gen_u64(a, "seed");
    if (pa + pb + pc > 1 + 1e-12)
        return spx_fail(ctx, SPX_ERR_ARG, "%s: keys 'a', 'b', 'c': a + b + c = %g exceeds 1", a->spec,
                        pa + pb + pc);
    if (scale > 30)
        return spx_fail(ctx, SPX_ERR_OVERFLOW, "%s: key 'scale': 2^%lld vertices exceed the int32 index range",
                        a->spec, (long long)scale);
    int64_t m = (int64_t)1 << scale;
    if (ef > (INT64_MAX >> (scale + 2)))
        return spx_fail(ctx, SPX_ERR_OVERFLOW, "%s: key 'ef': %lld * 2^%lld edges overflow int64", a->spec,
                        (long long)ef, (long long)scale);
    int64_t edges = ef << scale;
    rmat_p p = {(uint64_t)(pa * 0x1p32), (uint64_t)((pa + pb) * 0x1p32), (uint64_t)((pa + pb + pc) * 0x1p32)};
    uint64_t pkey[SPX_GEN_PERM_KEYS];
    spx_gen_perm_keys(seed, pkey);
    uint64_t vkey = spx_gen_stream_key(seed, SPX_GEN_STREAM_VAL);
    int nt = spx_ctx_threads(ctx);

    spx_coo *C = NULL;
    spx_csr *A = NULL;
    int64_t dups = 0;
    spx_status s = spx_coo_alloc(ctx, m, m, sym ? 2 * edges : edges, &C);
    if (s) goto done;
    spx_progress_tell(a->progress, "generate", 0, 1);
    rmat_edges(C, edges, (int)scale, sym, perm, &p, spx_gen_stream_key(seed, SPX_GEN_STREAM_EDGE), pkey, vkey, nt);
    spx_progress_tell(a->progress, "generate", 1, 1);
    s = spx_coo_to_csr_progress(ctx, C, 0, &dups, &A, a->progress);
    if (s) goto done;
    spx_coo_destroy(&C);
    /* merged duplicates hold sums: give every entry its pair value again */
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1024)
    for (int64_t i = 0; i < A->m; i++)
        for (int64_t t = A->rowptr[i]; t < A->rowptr[i + 1]; t++)
            A->val[t] = spx_gen_pair_value(vkey, i, A->colind[t]);
    A->meta.duplicates = dups;
    *out = A;
    A = NULL;
done:
    spx_coo_destroy(&C);
    spx_csr_destroy(&A);
    return s;
}
