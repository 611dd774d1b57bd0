/* src/partition/sweep.c: the partitions made by walking the graph: breadth-first blocks, greedy
 * growing from the breadth-first order, and plain contiguous blocks. */
#include "partition/partition.h"

/* Appends to order[*tail..] the component of start, breadth first, from the last vertex
 * a first sweep from start reached (a pseudo-peripheral vertex: narrower levels). mark
 * (0/1) flags vertices the first sweeps reached; pos[v] >= 0 once v is placed. */
static void bfs_component(const spx_graph *g, int32_t start, unsigned char *mark, int32_t *pos, int32_t *order,
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
static spx_status bfs_sweep(spx_ctx *ctx, const spx_graph *g, int32_t **pos, int32_t **order)
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
        return spx_fail_nomem(ctx, "graph partition: breadth-first order");
    }
    for (int32_t v = 0; v < nv; v++) (*pos)[v] = -1;
    int32_t tail = 0;
    for (int32_t v = 0; v < nv; v++)
        if ((*pos)[v] < 0) bfs_component(g, v, mark, *pos, *order, &tail);
    spx_free(ctx, mark);
    return SPX_OK;
}

/* Breadth-first order of g (component by component) cut into nparts equal blocks. */
spx_status spx_partition_bfs(spx_ctx *ctx, const spx_graph *g, int32_t nparts, int32_t *part)
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
static int32_t grow_ball(const spx_graph *g, int32_t seed, int32_t p, int32_t size, int32_t *part, int32_t *q)
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
spx_status spx_partition_grow(spx_ctx *ctx, const spx_graph *g, int32_t nparts, int32_t *part)
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
void spx_partition_blocks(int32_t count, int32_t nparts, int32_t *part)
{
    for (int32_t i = 0; i < count; i++) part[i] = (int32_t)((int64_t)i * nparts / count);
}
