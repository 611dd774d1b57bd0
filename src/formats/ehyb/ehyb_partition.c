/* src/formats/ehyb/ehyb_partition.c: assigns rows and columns to parts (paper §3.1, §3.3):
 * the part count K x P from the device's SMs and shared memory (eq. 1-2), the symmetrized
 * graph of a square pattern, METIS_PartGraphKway or a breadth-first block split, the
 * contiguous-block fallback, and the split of any part whose x segment would not fit. */
#include <string.h>

#include "core/ctx.h"
#include "formats/ehyb/ehyb.h"
#include "formats/ehyb/ehyb_tuning.h"

#ifndef SPX_HAVE_METIS
#define SPX_HAVE_METIS 0
#endif

#if SPX_HAVE_METIS
#include <metis.h>
/* METIS is built with one idx_t width for every count it takes (Debian: 32 bits); sizes
 * are checked against it before the call. */
#if IDXTYPEWIDTH == 32
#define EHYB_IDX_MAX ((int64_t)INT32_MAX)
#elif IDXTYPEWIDTH == 64
#define EHYB_IDX_MAX INT64_MAX
#else
#error "ehyb: METIS idx_t must be 32 or 64 bits wide (IDXTYPEWIDTH in metis.h)"
#endif
_Static_assert(sizeof(idx_t) * 8 == IDXTYPEWIDTH, "ehyb: metis.h's IDXTYPEWIDTH disagrees with sizeof(idx_t)");
#endif

int spx_ehyb_have_metis(void) { return SPX_HAVE_METIS; }

/* The undirected graph of a square pattern: vertex v's neighbours adj[xadj[v] .. xadj[v+1]),
 * ascending, without v itself and without repeats. */
typedef struct ehyb_graph {
    int32_t nv;
    int64_t *xadj;
    int32_t *adj;
} ehyb_graph;

static void graph_free(spx_ctx *ctx, ehyb_graph *g)
{
    spx_free(ctx, g->xadj);
    spx_free(ctx, g->adj);
    g->xadj = NULL;
    g->adj = NULL;
}

int32_t spx_ehyb_seg_cap(const spx_ehyb_target *t, spx_precision prec, int32_t blocks_per_sm)
{
    const int64_t vb = prec == SPX_FP32 ? 4 : 8;
    const int64_t per_block = (t->smem_per_block + SPX_EHYB_SMEM_SYSTEM) / blocks_per_sm - SPX_EHYB_SMEM_SYSTEM;
    int64_t cells = (per_block - SPX_EHYB_SMEM_RESERVE) / vb;
    int64_t cap = cells - 1; /* one cell holds the 0 that padding points at */
    if (cap > SPX_EHYB_SEG_LIMIT) cap = SPX_EHYB_SEG_LIMIT;
    return cap < 1 ? 1 : (int32_t)cap;
}

/* The transpose's pattern without the diagonal: row j of T lists the rows i != j with an
 * entry (i, j), ascending. */
static spx_status transpose_pattern(spx_ctx *ctx, const spx_csr *A, int64_t **tptr_out, int32_t **tadj_out)
{
    const int32_t n = A->n;
    int64_t *tptr = spx_calloc_array(ctx, (size_t)n + 1, sizeof *tptr);
    int32_t *tadj = spx_malloc_array(ctx, (size_t)A->nnz, sizeof *tadj);
    int64_t *fill = spx_malloc_array(ctx, (size_t)n + 1, sizeof *fill);
    if (!tptr || !tadj || !fill) {
        spx_free(ctx, tptr);
        spx_free(ctx, tadj);
        spx_free(ctx, fill);
        return spx_fail_nomem(ctx, "ehyb: transposed pattern");
    }
    for (int32_t i = 0; i < A->m; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (A->colind[k] != i) tptr[A->colind[k] + 1]++;
    for (int32_t j = 0; j < n; j++) tptr[j + 1] += tptr[j];
    memcpy(fill, tptr, ((size_t)n + 1) * sizeof *fill);
    for (int32_t i = 0; i < A->m; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (A->colind[k] != i) tadj[fill[A->colind[k]]++] = i;
    spx_free(ctx, fill);
    *tptr_out = tptr;
    *tadj_out = tadj;
    return SPX_OK;
}

/* Merges the sorted lists a and b without v and repeats into out (NULL: count only). */
static int64_t merge_row(const int32_t *a, int64_t na, const int32_t *b, int64_t nb, int32_t v, int32_t *out)
{
    int64_t i = 0, j = 0, c = 0;
    int32_t last = -1;
    while (i < na || j < nb) {
        int32_t x = j >= nb || (i < na && a[i] <= b[j]) ? a[i++] : b[j++];
        if (x == v || x == last) continue;
        if (out) out[c] = x;
        c++;
        last = x;
    }
    return c;
}

/* The symmetrized graph of square A (A + A^T without the diagonal), rows merged in parallel. */
static spx_status build_graph(spx_ctx *ctx, const spx_csr *A, ehyb_graph *g)
{
    int64_t *tptr = NULL;
    int32_t *tadj = NULL;
    spx_status s = transpose_pattern(ctx, A, &tptr, &tadj);
    if (s) return s;
    const int32_t n = A->n;
    const int nt = spx_ctx_threads(ctx);
    g->nv = n;
    g->xadj = spx_calloc_array(ctx, (size_t)n + 1, sizeof *g->xadj);
    if (!g->xadj) {
        s = spx_fail_nomem(ctx, "ehyb: graph offsets");
        goto done;
    }
#pragma omp parallel for schedule(dynamic, 1024) num_threads(nt) if (n > SPX_EHYB_PARALLEL_MIN)
    for (int32_t v = 0; v < n; v++)
        g->xadj[v + 1] = merge_row(A->colind + A->rowptr[v], A->rowptr[v + 1] - A->rowptr[v], tadj + tptr[v],
                                   tptr[v + 1] - tptr[v], v, NULL);
    for (int32_t v = 0; v < n; v++) g->xadj[v + 1] += g->xadj[v];
    g->adj = spx_malloc_array(ctx, (size_t)g->xadj[n], sizeof *g->adj);
    if (!g->adj) {
        s = spx_fail_nomem(ctx, "ehyb: graph adjacency");
        goto done;
    }
#pragma omp parallel for schedule(dynamic, 1024) num_threads(nt) if (n > SPX_EHYB_PARALLEL_MIN)
    for (int32_t v = 0; v < n; v++)
        merge_row(A->colind + A->rowptr[v], A->rowptr[v + 1] - A->rowptr[v], tadj + tptr[v], tptr[v + 1] - tptr[v],
                  v, g->adj + g->xadj[v]);
done:
    spx_free(ctx, tptr);
    spx_free(ctx, tadj);
    if (s) graph_free(ctx, g);
    return s;
}

/* Undirected edges of g whose ends lie in different parts. */
static int64_t edge_cut(const ehyb_graph *g, const int32_t *part)
{
    int64_t cut = 0;
    for (int32_t v = 0; v < g->nv; v++)
        for (int64_t k = g->xadj[v]; k < g->xadj[v + 1]; k++) cut += part[g->adj[k]] != part[v];
    return cut / 2;
}

#if SPX_HAVE_METIS
/* METIS_PartGraphKway into nparts parts, deterministic (fixed seed); vertex weights vwgt (NULL:
 * one each). */
static spx_status metis_parts(spx_ctx *ctx, const ehyb_graph *g, const int32_t *vwgt, int32_t nparts, int32_t *part,
                              int64_t *cut)
{
    if (g->xadj[g->nv] > EHYB_IDX_MAX)
        return spx_fail(ctx, SPX_ERR_OVERFLOW,
                        "ehyb: the graph has %lld adjacency entries, beyond METIS's %d-bit idx_t (use algorithm bfs)",
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
        s = spx_fail_nomem(ctx, "ehyb: METIS input");
        goto done;
    }
    for (int32_t v = 0; v <= g->nv; v++) xadj[v] = (idx_t)g->xadj[v];
    for (int32_t v = 0; iwgt && v < g->nv; v++) iwgt[v] = vwgt[v];
    idx_t opts[METIS_NOPTIONS];
    METIS_SetDefaultOptions(opts);
    opts[METIS_OPTION_SEED] = SPX_EHYB_METIS_SEED;
    opts[METIS_OPTION_UFACTOR] = SPX_EHYB_METIS_UFACTOR;
    opts[METIS_OPTION_NUMBERING] = 0;
    idx_t nv = g->nv, ncon = 1, np = nparts, objval = 0;
    int rc = METIS_PartGraphKway(&nv, &ncon, xadj, adj, iwgt, NULL, NULL, &np, NULL, NULL, opts, &objval, ipart);
    if (rc != METIS_OK) {
        s = spx_fail(ctx, rc == METIS_ERROR_MEMORY ? SPX_ERR_NOMEM : SPX_ERR_UNSUPPORTED,
                     "ehyb: METIS_PartGraphKway failed (%s) on %d vertices, %d parts",
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
/* Without METIS the default algorithm is not available (the ops table's `available` says so
 * before a plan gets here). */
static spx_status metis_parts(spx_ctx *ctx, const ehyb_graph *g, const int32_t *vwgt, int32_t nparts, int32_t *part,
                              int64_t *cut)
{
    return spx_fail(ctx, SPX_ERR_UNSUPPORTED, "ehyb: METIS not found (install libmetis-dev)");
}
#endif

/* Appends to order[*tail..] the component of start, breadth first, from the last vertex
 * a first sweep from start reached (a pseudo-peripheral vertex: narrower levels). mark
 * (0/1) flags vertices the first sweeps reached; pos[v] >= 0 once v is placed. */
static void bfs_component(const ehyb_graph *g, int32_t start, unsigned char *mark, int32_t *pos, int32_t *order,
                          int32_t *tail)
{
    int32_t *q = order + *tail, qh = 0, qt = 0;
    q[qt++] = start;
    mark[start] = 1;
    while (qh < qt) {
        int32_t v = q[qh++];
        for (int64_t k = g->xadj[v]; k < g->xadj[v + 1]; k++)
            if (!mark[g->adj[k]]) {
                mark[g->adj[k]] = 1;
                q[qt++] = g->adj[k];
            }
    }
    const int32_t far = q[qt - 1];
    qh = 0;
    qt = 0;
    q[qt++] = far;
    pos[far] = *tail;
    while (qh < qt) {
        int32_t v = q[qh++];
        for (int64_t k = g->xadj[v]; k < g->xadj[v + 1]; k++)
            if (pos[g->adj[k]] < 0) {
                pos[g->adj[k]] = *tail + qt;
                q[qt++] = g->adj[k];
            }
    }
    *tail += qt;
}

/* The breadth-first sweep of g, component by component: *order the vertices in sweep order,
 * *pos each vertex's place in it (both context-allocated, the caller frees them). */
static spx_status bfs_sweep(spx_ctx *ctx, const ehyb_graph *g, int32_t **pos, int32_t **order)
{
    const int32_t nv = g->nv;
    unsigned char *mark = spx_calloc_array(ctx, (size_t)nv, 1);
    *pos = spx_malloc_array(ctx, (size_t)nv, sizeof **pos);
    *order = spx_malloc_array(ctx, (size_t)nv, sizeof **order);
    if (!mark || !*pos || !*order) {
        spx_free(ctx, mark);
        spx_free(ctx, *pos);
        spx_free(ctx, *order);
        *pos = *order = NULL;
        return spx_fail_nomem(ctx, "ehyb: breadth-first order");
    }
    for (int32_t v = 0; v < nv; v++) (*pos)[v] = -1;
    int32_t tail = 0;
    for (int32_t v = 0; v < nv; v++)
        if ((*pos)[v] < 0) bfs_component(g, v, mark, *pos, *order, &tail);
    spx_free(ctx, mark);
    return SPX_OK;
}

/* Breadth-first order of g (component by component) cut into nparts equal blocks. */
static spx_status bfs_parts(spx_ctx *ctx, const ehyb_graph *g, int32_t nparts, int32_t *part)
{
    int32_t *pos = NULL, *order = NULL;
    spx_status s = bfs_sweep(ctx, g, &pos, &order);
    if (s) return s;
    for (int32_t v = 0; v < g->nv; v++) part[v] = (int32_t)((int64_t)pos[v] * nparts / g->nv);
    spx_free(ctx, pos);
    spx_free(ctx, order);
    return SPX_OK;
}

/* Grows one part from seed over unassigned vertices, breadth first, until it holds size
 * vertices or its ball is exhausted; returns the vertices taken. q is scratch of nv. */
static int32_t grow_ball(const ehyb_graph *g, int32_t seed, int32_t p, int32_t size, int32_t *part, int32_t *q)
{
    int32_t qh = 0, qt = 0, taken = 0;
    q[qt++] = seed;
    part[seed] = p;
    taken++;
    while (qh < qt && taken < size) {
        const int32_t v = q[qh++];
        for (int64_t k = g->xadj[v]; k < g->xadj[v + 1] && taken < size; k++) {
            const int32_t u = g->adj[k];
            if (part[u] >= 0) continue;
            part[u] = p;
            q[qt++] = u;
            taken++;
        }
    }
    return taken;
}

/* Greedy graph growing: parts of nv / nparts vertices, each a breadth-first ball grown from
 * the first unassigned vertex of a breadth-first sweep (so parts follow the sweep and leave
 * few isolated holes); a ball that runs out of room continues from the next seed. Linear in
 * the edges: a cheap stand-in for METIS with compact parts on meshes. */
static spx_status grow_parts(spx_ctx *ctx, const ehyb_graph *g, int32_t nparts, int32_t *part)
{
    const int32_t nv = g->nv;
    int32_t *pos = NULL, *order = NULL;
    spx_status s = bfs_sweep(ctx, g, &pos, &order);
    if (s) return s;
    int32_t *q = pos; /* the sweep's places are not needed again: the balls' queue */
    for (int32_t v = 0; v < nv; v++) part[v] = -1;
    int32_t next = 0; /* the sweep's first vertex not yet in a part */
    for (int32_t p = 0; p < nparts; p++) {
        const int32_t size = (int32_t)((int64_t)(p + 1) * nv / nparts - (int64_t)p * nv / nparts);
        int32_t have = 0;
        while (have < size) {
            while (next < nv && part[order[next]] >= 0) next++;
            if (next == nv) break;
            have += grow_ball(g, order[next], p, size - have, part, q);
        }
    }
    spx_free(ctx, pos);
    spx_free(ctx, order);
    return SPX_OK;
}

/* Contiguous blocks: index i of count goes to part i * nparts / count. */
static void block_parts(int32_t count, int32_t nparts, int32_t *part)
{
    for (int32_t i = 0; i < count; i++) part[i] = (int32_t)((int64_t)i * nparts / count);
}

/* Splits every part of more than cap vertices into equal pieces of at most cap (vertex
 * order within a part kept), renumbering parts densely; *nparts becomes the new count. */
static spx_status split_oversize(spx_ctx *ctx, int32_t nv, int32_t cap, int32_t *part, int32_t *nparts)
{
    const int32_t np = *nparts;
    int64_t *cnt = spx_calloc_array(ctx, (size_t)np + 1, sizeof *cnt);
    int64_t *base = spx_malloc_array(ctx, (size_t)np + 1, sizeof *base);
    int64_t *seen = spx_calloc_array(ctx, (size_t)np + 1, sizeof *seen);
    spx_status s = SPX_OK;
    if (!cnt || !base || !seen) {
        s = spx_fail_nomem(ctx, "ehyb: part split");
        goto done;
    }
    for (int32_t v = 0; v < nv; v++) cnt[part[v]]++;
    int64_t total = 0, over = 0;
    for (int32_t p = 0; p < np; p++) {
        base[p] = total;
        int64_t pieces = cnt[p] > cap ? (cnt[p] + cap - 1) / cap : 1;
        over += pieces > 1;
        total += pieces;
    }
    if (!over) goto done;
    if (total > INT32_MAX) {
        s = spx_fail(ctx, SPX_ERR_OVERFLOW, "ehyb: %lld parts exceed the int32 range", (long long)total);
        goto done;
    }
    for (int32_t v = 0; v < nv; v++) {
        const int32_t p = part[v];
        const int64_t pieces = cnt[p] > cap ? (cnt[p] + cap - 1) / cap : 1;
        part[v] = (int32_t)(base[p] + seen[p]++ * pieces / cnt[p]);
    }
    *nparts = (int32_t)total;
done:
    spx_free(ctx, cnt);
    spx_free(ctx, base);
    spx_free(ctx, seen);
    return s;
}

/* K and the part count (eq. 1-2, then bounded for small matrices): K is the smallest integer
 * with K x P parts whose segments (METIS's tolerance included) fit seg_cap; fewer parts than
 * K x P when the rows would not fill SPX_EHYB_MIN_PART_ROWS each, never fewer than fit. */
static void part_count(int32_t m, int32_t n, int32_t P, int32_t seg_cap, int32_t *K, int32_t *nparts)
{
    const int64_t slack = 1000 + SPX_EHYB_METIS_UFACTOR;
    const int64_t need = ((int64_t)n * slack + (int64_t)seg_cap * 1000 - 1) / ((int64_t)seg_cap * 1000);
    int64_t k = (need + P - 1) / P;
    if (k < 1) k = 1;
    const int64_t want = k * P;
    const int64_t small = ((int64_t)(m > n ? m : n) + SPX_EHYB_MIN_PART_ROWS - 1) / SPX_EHYB_MIN_PART_ROWS;
    int64_t np = want < small ? want : small;
    if (np < need) np = need;
    if (np < 1) np = 1;
    *K = (int32_t)k;
    *nparts = (int32_t)np;
}

spx_status spx_ehyb_metis_kway(spx_ctx *ctx, const spx_csr *A, const int32_t *vwgt, int32_t nparts, int32_t *part)
{
    if (A->nnz == 0 || nparts == 1 || A->n <= nparts) { /* nothing to cut, or a vertex a part at most */
        block_parts(A->n, nparts, part);
        return SPX_OK;
    }
    ehyb_graph g = {0};
    int64_t cut = 0;
    spx_status s = build_graph(ctx, A, &g);
    if (s) return s;
    if (g.xadj[g.nv] == 0) block_parts(A->n, nparts, part); /* no edge: any split is as good */
    else s = metis_parts(ctx, &g, vwgt, nparts, part, &cut);
    graph_free(ctx, &g);
    return s;
}

void spx_ehyb_parts_free(spx_ctx *ctx, spx_ehyb_parts *P)
{
    if (!P) return;
    if (P->col_part != P->row_part) spx_free(ctx, P->col_part);
    spx_free(ctx, P->row_part);
    P->row_part = P->col_part = NULL;
}

/* The graph split of square A: graph, then METIS, BFS or growing, then oversize parts split. */
static spx_status graph_split(spx_ctx *ctx, const spx_csr *A, spx_ehyb_algo algo, spx_ehyb_parts *out,
                              double *t_graph, double *t_part)
{
    ehyb_graph g = {0};
    double t0 = spx_now();
    spx_status s = build_graph(ctx, A, &g);
    *t_graph += spx_now() - t0;
    if (s) return s;
    t0 = spx_now();
    if (g.xadj[g.nv] == 0) { /* no off-diagonal entry: any split is as good */
        out->split = SPX_EHYB_SPLIT_BLOCKS;
        block_parts(A->n, out->nparts, out->row_part);
    } else if (algo == SPX_EHYB_METIS) {
        s = metis_parts(ctx, &g, NULL, out->nparts, out->row_part, &out->edge_cut);
    } else if (algo == SPX_EHYB_GROW) {
        s = grow_parts(ctx, &g, out->nparts, out->row_part);
    } else {
        s = bfs_parts(ctx, &g, out->nparts, out->row_part);
    }
    if (!s) s = split_oversize(ctx, A->n, out->seg_cap, out->row_part, &out->nparts);
    /* the cut of the final parts (after the oversize splits), whatever made them */
    if (!s && out->split == SPX_EHYB_SPLIT_GRAPH) out->edge_cut = edge_cut(&g, out->row_part);
    *t_part += spx_now() - t0;
    graph_free(ctx, &g);
    return s;
}

/* Off-diagonal entries of A whose row and column lie in different parts, halved: the cut of a
 * symmetric pattern's graph, counted without building the graph. */
static int64_t entry_cut(const spx_csr *A, const int32_t *part)
{
    int64_t cut = 0;
    for (int32_t i = 0; i < A->m; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) cut += part[A->colind[k]] != part[i];
    return cut / 2;
}

/* Whether square A has an entry off its diagonal. */
static int has_off_diagonal(const spx_csr *A)
{
    for (int32_t i = 0; i < A->m; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (A->colind[k] != i) return 1;
    return 0;
}

/* The voronoi split of square A: Voronoi cells of A's own pattern (no graph is built), then
 * oversize cells split; edge_cut from A's entries. */
static spx_status voronoi_split(spx_ctx *ctx, const spx_csr *A, spx_ehyb_parts *out, double *t_part)
{
    const double t0 = spx_now();
    spx_status s = SPX_OK;
    if (!has_off_diagonal(A)) { /* any split is as good */
        out->split = SPX_EHYB_SPLIT_BLOCKS;
        block_parts(A->n, out->nparts, out->row_part);
    } else {
        const int32_t mean = spx_ehyb_voronoi_mean(A->n, out->nparts, out->seg_cap);
        s = spx_ehyb_voronoi_parts(ctx, A, mean, out->row_part, &out->nparts);
        if (!s) s = split_oversize(ctx, A->n, out->seg_cap, out->row_part, &out->nparts);
        if (!s) out->edge_cut = entry_cut(A, out->row_part);
    }
    *t_part += spx_now() - t0;
    return s;
}

/* R's shape of blocks_per_sm blocks an SM: P = the blocks resident at once (the paper's SM
 * count, times the blocks an SM holds since seg_cap sized each for that many: one part a
 * block fills every slot; H200, poisson3d n = 100 with P = SMs: 132 blocks, 25 % achieved
 * occupancy), the segment cap, K and the part count. */
static void size_parts(int32_t m, int32_t n, const spx_ehyb_target *tg, spx_precision prec, int32_t blocks_per_sm,
                       spx_ehyb_parts *R)
{
    R->blocks_per_sm = blocks_per_sm;
    R->P = (tg->sms > 0 ? tg->sms : SPX_EHYB_CPU_DEFAULT_SMS) * blocks_per_sm;
    R->seg_cap = spx_ehyb_seg_cap(tg, prec, blocks_per_sm);
    part_count(m, n, R->P, R->seg_cap, &R->K, &R->nparts);
}

void spx_ehyb_parts_shape(int32_t m, int32_t n, int64_t nnz, const spx_ehyb_target *tg, spx_precision prec,
                          spx_ehyb_parts *R)
{
    *R = (spx_ehyb_parts){0};
    size_parts(m, n, tg, prec, SPX_EHYB_BLOCKS_PER_SM, R);
    /* where the narrow shape has a part for every block slot, the wide shape's longer
     * segments cut fewer entries out of their parts */
    if (R->nparts >= R->P) size_parts(m, n, tg, prec, SPX_EHYB_WIDE_BLOCKS_PER_SM, R);
    const int graph = m == n && R->nparts > 1 && nnz > 0;
    R->split = graph ? SPX_EHYB_SPLIT_GRAPH : SPX_EHYB_SPLIT_BLOCKS;
}

spx_status spx_ehyb_partition(spx_ctx *ctx, const spx_csr *A, spx_ehyb_algo algo, const spx_ehyb_target *tg,
                              spx_precision prec, spx_ehyb_parts *out, double *t_graph, double *t_part)
{
    spx_ehyb_parts R;
    spx_ehyb_parts_shape(A->m, A->n, A->nnz, tg, prec, &R);
    const int graph = R.split == SPX_EHYB_SPLIT_GRAPH;
    R.row_part = spx_malloc_array(ctx, (size_t)A->m + 1, sizeof *R.row_part);
    R.col_part = graph ? R.row_part : spx_malloc_array(ctx, (size_t)A->n + 1, sizeof *R.col_part);
    if (!R.row_part || !R.col_part) {
        spx_ehyb_parts_free(ctx, &R);
        return spx_fail_nomem(ctx, "ehyb: part maps");
    }
    spx_status s = SPX_OK;
    if (graph && algo == SPX_EHYB_VORONOI) {
        s = voronoi_split(ctx, A, &R, t_part);
    } else if (graph) {
        s = graph_split(ctx, A, algo, &R, t_graph, t_part);
    } else {
        double t0 = spx_now();
        block_parts(A->m, R.nparts, R.row_part);
        block_parts(A->n, R.nparts, R.col_part);
        *t_part += spx_now() - t0;
    }
    if (s) {
        spx_ehyb_parts_free(ctx, &R);
        return s;
    }
    *out = R;
    return SPX_OK;
}
