/* src/formats/ehyb/ehyb_partition.c: assigns rows and columns to parts (paper §3.1, §3.3):
 * the part count K x P from the device's SMs and shared memory (eq. 1-2), the graph split of a
 * square pattern (src/partition: METIS_PartGraphKway, breadth-first blocks or greedy growing),
 * the voronoi split, the contiguous-block fallback, and the split of any part whose x segment
 * would not fit. */
#include <string.h>

#include "core/ctx.h"
#include "formats/ehyb/ehyb.h"
#include "formats/ehyb/ehyb_tuning.h"
#include "partition/partition.h"
#include "partition/partition_tuning.h"

int32_t spx_ehyb_seg_cap(const spx_ehyb_target *t, spx_precision prec, int32_t blocks_per_sm)
{
    const int64_t vb = prec == SPX_FP32 ? 4 : 8;
    const int64_t per_block = (t->smem_per_block + SPX_EHYB_SMEM_SYSTEM) / blocks_per_sm - SPX_EHYB_SMEM_SYSTEM;
    int64_t cells = (per_block - SPX_EHYB_SMEM_RESERVE) / vb;
    int64_t cap = cells - 1; /* one cell holds the 0 that padding points at */
    if (cap > SPX_EHYB_SEG_LIMIT) cap = SPX_EHYB_SEG_LIMIT;
    return cap < 1 ? 1 : (int32_t)cap;
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
    const int64_t slack = 1000 + SPX_PARTITION_METIS_UFACTOR;
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
    spx_graph g = {0};
    double t0 = spx_now();
    spx_status s = spx_graph_symmetrized(ctx, A, &g);
    *t_graph += spx_now() - t0;
    if (s) return s;
    t0 = spx_now();
    if (g.xadj[g.nv] == 0) { /* no off-diagonal entry: any split is as good */
        out->split = SPX_EHYB_SPLIT_BLOCKS;
        spx_partition_blocks(A->n, out->nparts, out->row_part);
    } else if (algo == SPX_EHYB_METIS) {
        s = spx_partition_metis(ctx, &g, NULL, out->nparts, out->row_part, &out->edge_cut);
    } else if (algo == SPX_EHYB_GROW) {
        s = spx_partition_grow(ctx, &g, out->nparts, out->row_part);
    } else {
        s = spx_partition_bfs(ctx, &g, out->nparts, out->row_part);
    }
    if (!s) s = split_oversize(ctx, A->n, out->seg_cap, out->row_part, &out->nparts);
    /* the cut of the final parts (after the oversize splits), whatever made them */
    if (!s && out->split == SPX_EHYB_SPLIT_GRAPH) out->edge_cut = spx_graph_edge_cut(&g, out->row_part);
    *t_part += spx_now() - t0;
    spx_graph_free(ctx, &g);
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
        spx_partition_blocks(A->n, out->nparts, out->row_part);
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
        spx_partition_blocks(A->m, R.nparts, R.row_part);
        spx_partition_blocks(A->n, R.nparts, R.col_part);
        *t_part += spx_now() - t0;
    }
    if (s) {
        spx_ehyb_parts_free(ctx, &R);
        return s;
    }
    *out = R;
    return SPX_OK;
}
