/* src/partition/partition.h: graph partitioning for every module that cuts a matrix into parts
 * (the ehyb format's x segments, the distributed module's metis rows), so neither reaches into
 * the other: the symmetrized graph of a square pattern, METIS k-way, breadth-first and greedy
 * growing splits, contiguous blocks, the edge cut. */
#ifndef SPX_PARTITION_PARTITION_H
#define SPX_PARTITION_PARTITION_H

#include <stdint.h>

#include "core/ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An undirected graph: vertex v's neighbours adj[xadj[v] .. xadj[v+1]), ascending, without v
 * itself and without repeats. */
typedef struct spx_graph {
    int32_t nv;
    int64_t *xadj;
    int32_t *adj;
} spx_graph;

/* *g = the graph of square A's pattern made symmetric (A + A^T without the diagonal; val
 * unread), its rows merged on the context's threads. */
spx_status spx_graph_symmetrized(spx_ctx *ctx, const spx_csr *A, spx_graph *g);
/* Frees g's arrays (a zeroed graph accepted). */
void spx_graph_free(spx_ctx *ctx, spx_graph *g);
/* Undirected edges of g whose ends lie in different parts. */
int64_t spx_graph_edge_cut(const spx_graph *g, const int32_t *part);

/* Whether this build has METIS (SPX_HAVE_METIS, src/partition/partition.cmake). */
int spx_partition_have_metis(void);
/* METIS_PartGraphKway's nparts parts of g into part[0..g->nv) (deterministic: a fixed seed),
 * vertex weights vwgt (NULL: one each); *cut its edge cut. Without METIS: SPX_ERR_UNSUPPORTED. */
spx_status spx_partition_metis(spx_ctx *ctx, const spx_graph *g, const int32_t *vwgt, int32_t nparts, int32_t *part,
                               int64_t *cut);
/* spx_partition_metis on square A's symmetrized graph into part[0..A->n); contiguous blocks
 * when there is no edge to cut or no more vertices than parts. */
spx_status spx_partition_metis_csr(spx_ctx *ctx, const spx_csr *A, const int32_t *vwgt, int32_t nparts,
                                   int32_t *part);
/* g's breadth-first order (component by component, each from a pseudo-peripheral vertex) cut
 * into nparts equal blocks. */
spx_status spx_partition_bfs(spx_ctx *ctx, const spx_graph *g, int32_t nparts, int32_t *part);
/* Greedy graph growing: parts of nv / nparts vertices, each a breadth-first ball grown from the
 * first unassigned vertex of the breadth-first order. Linear in the edges: a cheap stand-in for
 * METIS with compact parts on meshes. */
spx_status spx_partition_grow(spx_ctx *ctx, const spx_graph *g, int32_t nparts, int32_t *part);
/* Contiguous blocks: index i of count goes to part i * nparts / count. */
void spx_partition_blocks(int32_t count, int32_t nparts, int32_t *part);

#ifdef __cplusplus
}
#endif
#endif
