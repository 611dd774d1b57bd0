/* src/partition/metis.c: METIS k-way partitions (METIS_PartGraphKway, a fixed seed), when this
 * build has METIS; otherwise SPX_ERR_UNSUPPORTED with the reason. */
#include "partition/partition.h"
#include "partition/partition_tuning.h"

#ifndef SPX_HAVE_METIS
#define SPX_HAVE_METIS 0
#endif

#if SPX_HAVE_METIS
#include <metis.h>
/* METIS is built with one idx_t width for every count it takes (Debian: 32 bits); sizes
 * are checked against it before the call. */
#if IDXTYPEWIDTH == 32
#define PARTITION_IDX_MAX ((int64_t)INT32_MAX)
#elif IDXTYPEWIDTH == 64
#define PARTITION_IDX_MAX INT64_MAX
#else
#error "partition: METIS idx_t must be 32 or 64 bits wide (IDXTYPEWIDTH in metis.h)"
#endif
_Static_assert(sizeof(idx_t) * 8 == IDXTYPEWIDTH, "partition: metis.h's IDXTYPEWIDTH disagrees with sizeof(idx_t)");
#endif

int spx_partition_have_metis(void) { return SPX_HAVE_METIS; }

#if SPX_HAVE_METIS
/* METIS_PartGraphKway into nparts parts, deterministic (fixed seed); vertex weights vwgt (NULL:
 * one each). */
spx_status spx_partition_metis(spx_ctx *ctx, const spx_graph *g, const int32_t *vwgt, int32_t nparts, int32_t *part,
                               int64_t *cut)
{
    if (g->xadj[g->nv] > PARTITION_IDX_MAX)
        return spx_fail(ctx, SPX_ERR_OVERFLOW,
                        "METIS: the graph has %lld adjacency entries, beyond its %d-bit idx_t",
                        (long long)g->xadj[g->nv], IDXTYPEWIDTH);
    spx_status s = SPX_OK;
    idx_t *xadj = spx_malloc_array(ctx, (size_t)g->nv + 1, sizeof *xadj);
    idx_t *ipart = spx_malloc_array(ctx, (size_t)g->nv, sizeof *ipart);
    idx_t *iwgt = vwgt ? spx_malloc_array(ctx, (size_t)g->nv, sizeof *iwgt) : NULL;
#if IDXTYPEWIDTH == 32
    idx_t *adj = g->adj; /* the same type: no copy */
#else
    idx_t *adj = spx_malloc_array(ctx, (size_t)g->xadj[g->nv], sizeof *adj);
    if (adj)
        for (int64_t k = 0; k < g->xadj[g->nv]; k++) adj[k] = g->adj[k];
#endif
    if (!xadj || !ipart || !adj || (vwgt && !iwgt)) {
        s = spx_fail_nomem(ctx, "METIS input");
        goto done;
    }
    for (int32_t v = 0; v <= g->nv; v++) xadj[v] = (idx_t)g->xadj[v];
    for (int32_t v = 0; iwgt && v < g->nv; v++) iwgt[v] = vwgt[v];
    idx_t opts[METIS_NOPTIONS];
    METIS_SetDefaultOptions(opts);
    opts[METIS_OPTION_SEED] = SPX_PARTITION_METIS_SEED;
    opts[METIS_OPTION_UFACTOR] = SPX_PARTITION_METIS_UFACTOR;
    opts[METIS_OPTION_NUMBERING] = 0;
    idx_t nv = g->nv, ncon = 1, np = nparts, objval = 0;
    int rc = METIS_PartGraphKway(&nv, &ncon, xadj, adj, iwgt, NULL, NULL, &np, NULL, NULL, opts, &objval, ipart);
    if (rc != METIS_OK) {
        s = spx_fail(ctx, rc == METIS_ERROR_MEMORY ? SPX_ERR_NOMEM : SPX_ERR_UNSUPPORTED,
                     "METIS_PartGraphKway failed (%s) on %d vertices, %d parts",
                     rc == METIS_ERROR_MEMORY  ? "out of memory"
                     : rc == METIS_ERROR_INPUT ? "input error"
                                               : "error",
                     g->nv, nparts);
        goto done;
    }
    for (int32_t v = 0; v < g->nv; v++) part[v] = (int32_t)ipart[v];
    *cut = (int64_t)objval;
done:
    spx_free(ctx, xadj);
    spx_free(ctx, ipart);
    spx_free(ctx, iwgt);
#if IDXTYPEWIDTH != 32
    spx_free(ctx, adj);
#endif
    return s;
}
#else
spx_status spx_partition_metis(spx_ctx *ctx, const spx_graph *g, const int32_t *vwgt, int32_t nparts, int32_t *part,
                               int64_t *cut)
{
    return spx_fail(ctx, SPX_ERR_UNSUPPORTED, "METIS not found (install libmetis-dev)");
}
#endif

spx_status spx_partition_metis_csr(spx_ctx *ctx, const spx_csr *A, const int32_t *vwgt, int32_t nparts,
                                   int32_t *part)
{
    if (A->nnz == 0 || nparts == 1 || A->n <= nparts) { /* nothing to cut, or a vertex a part at most */
        spx_partition_blocks(A->n, nparts, part);
        return SPX_OK;
    }
    spx_graph g = {0};
    int64_t cut = 0;
    spx_status s = spx_graph_symmetrized(ctx, A, &g);
    if (s) return s;
    if (g.xadj[g.nv] == 0) spx_partition_blocks(A->n, nparts, part); /* no edge: any split is as good */
    else s = spx_partition_metis(ctx, &g, vwgt, nparts, part, &cut);
    spx_graph_free(ctx, &g);
    return s;
}
