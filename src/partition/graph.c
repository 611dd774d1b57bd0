/* src/partition/graph.c: the undirected graph of a square pattern (A + A^T without the
 * diagonal), built from A and its transposed pattern row by row, and the edge cut of a split. */
#include <string.h>

#include "partition/partition.h"
#include "partition/partition_tuning.h"

void spx_graph_free(spx_ctx *ctx, spx_graph *g)
{
    spx_free(ctx, g->xadj);
    spx_free(ctx, g->adj);
    g->xadj = NULL;
    g->adj = NULL;
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
        return spx_fail_nomem(ctx, "graph partition: transposed pattern");
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

spx_status spx_graph_symmetrized(spx_ctx *ctx, const spx_csr *A, spx_graph *g)
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
        s = spx_fail_nomem(ctx, "graph partition: graph offsets");
        goto done;
    }
#pragma omp parallel for schedule(dynamic, 1024) num_threads(nt) if (n > SPX_PARTITION_PARALLEL_MIN)
    for (int32_t v = 0; v < n; v++)
        g->xadj[v + 1] = merge_row(A->colind + A->rowptr[v], A->rowptr[v + 1] - A->rowptr[v], tadj + tptr[v],
                                   tptr[v + 1] - tptr[v], v, NULL);
    for (int32_t v = 0; v < n; v++) g->xadj[v + 1] += g->xadj[v];
    g->adj = spx_malloc_array(ctx, (size_t)g->xadj[n], sizeof *g->adj);
    if (!g->adj) {
        s = spx_fail_nomem(ctx, "graph partition: graph adjacency");
        goto done;
    }
#pragma omp parallel for schedule(dynamic, 1024) num_threads(nt) if (n > SPX_PARTITION_PARALLEL_MIN)
    for (int32_t v = 0; v < n; v++)
        merge_row(A->colind + A->rowptr[v], A->rowptr[v + 1] - A->rowptr[v], tadj + tptr[v], tptr[v + 1] - tptr[v],
                  v, g->adj + g->xadj[v]);
done:
    spx_free(ctx, tptr);
    spx_free(ctx, tadj);
    if (s) spx_graph_free(ctx, g);
    return s;
}

int64_t spx_graph_edge_cut(const spx_graph *g, const int32_t *part)
{
    int64_t cut = 0;
    for (int32_t v = 0; v < g->nv; v++)
        for (int64_t k = g->xadj[v]; k < g->xadj[v + 1]; k++) cut += part[g->adj[k]] != part[v];
    return cut / 2;
}
