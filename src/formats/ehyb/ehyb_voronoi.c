/* src/formats/ehyb/ehyb_voronoi.c: ehyb's `voronoi` partitioner on the host, the oracle of its
 * device twin (ehyb_voronoi_cuda.cu): graph Voronoi cells of a square pattern. Rows whose hash
 * falls under a threshold are seeds (one per `mean` rows on average); in synchronous rounds
 * every unlabelled row takes the best label among its columns' (ehyb_voronoi.h), so each cell
 * is the breadth-first ball of its seed; rows no cell reaches within
 * SPX_EHYB_VORONOI_MAX_ROUNDS get contiguous blocks. Labels are then numbered densely in
 * ascending order. Every step is data-parallel, with no order-dependent choice: the GPU
 * computes the same parts. */
#include <string.h>

#include "core/ctx.h"
#include "formats/ehyb/ehyb.h"
#include "formats/ehyb/ehyb_tuning.h"
#include "formats/ehyb/ehyb_voronoi.h"

int32_t spx_ehyb_voronoi_mean(int32_t n, int32_t nparts, int32_t seg_cap)
{
    int64_t mean = nparts > 0 ? n / nparts : n;
    const int64_t fill = (int64_t)seg_cap * SPX_EHYB_VORONOI_FILL_PCT / 100;
    if (mean > fill) mean = fill;
    return mean < 1 ? 1 : (int32_t)mean;
}

/* One round: next[v] = cur[v] for labelled rows, else the best label among row v's columns'
 * (NONE if none is labelled). Returns the rows labelled in this round. */
static int64_t voronoi_round(const spx_csr *A, const int32_t *cur, int32_t *next, int nt)
{
    int64_t labelled = 0;
#pragma omp parallel for schedule(dynamic, 4096) reduction(+ : labelled) num_threads(nt) \
    if (A->m > SPX_EHYB_PARALLEL_MIN)
    for (int32_t v = 0; v < A->m; v++) {
        int32_t best = cur[v];
        if (best == SPX_EHYB_VORONOI_NONE) {
            for (int64_t k = A->rowptr[v]; k < A->rowptr[v + 1]; k++) {
                const int32_t l = cur[A->colind[k]];
                if (l != SPX_EHYB_VORONOI_NONE && spx_ehyb_voronoi_better(l, best)) best = l;
            }
            labelled += best != SPX_EHYB_VORONOI_NONE;
        }
        next[v] = best;
    }
    return labelled;
}

/* Every row's label: its seed, or its block when no cell reached it. */
static void voronoi_labels(const spx_csr *A, int32_t mean, int32_t *label, int32_t *scratch, int nt)
{
    const uint64_t threshold = spx_ehyb_voronoi_threshold(mean);
    for (int32_t v = 0; v < A->m; v++)
        label[v] = spx_ehyb_voronoi_is_seed(v, threshold) ? v : SPX_EHYB_VORONOI_NONE;
    int32_t *cur = label, *next = scratch;
    for (int r = 0; r < SPX_EHYB_VORONOI_MAX_ROUNDS; r++) {
        const int64_t got = voronoi_round(A, cur, next, nt);
        int32_t *t = cur;
        cur = next;
        next = t;
        if (!got) break;
    }
    if (cur != label) memcpy(label, cur, (size_t)A->m * sizeof *label);
    for (int32_t v = 0; v < A->m; v++)
        if (label[v] == SPX_EHYB_VORONOI_NONE) label[v] = spx_ehyb_voronoi_block_label(v, mean);
}

spx_status spx_ehyb_voronoi_parts(spx_ctx *ctx, const spx_csr *A, int32_t mean, int32_t *part, int32_t *nparts)
{
    const int32_t n = A->m;
    const int32_t lo = spx_ehyb_voronoi_block_label(n > 0 ? n - 1 : 0, mean);
    const int64_t range = (int64_t)n - lo; /* labels lo .. n - 1 */
    int32_t *scratch = spx_malloc_array(ctx, (size_t)n + 1, sizeof *scratch);
    int32_t *rank = spx_calloc_array(ctx, (size_t)range + 1, sizeof *rank);
    if (!scratch || !rank) {
        spx_free(ctx, scratch);
        spx_free(ctx, rank);
        return spx_fail_nomem(ctx, "ehyb: voronoi labels");
    }
    voronoi_labels(A, mean, part, scratch, spx_ctx_threads(ctx));
    for (int32_t v = 0; v < n; v++) rank[part[v] - lo] = 1;
    int32_t count = 0;
    for (int64_t l = 0; l < range; l++) {
        const int32_t used = rank[l];
        rank[l] = count;
        count += used;
    }
    for (int32_t v = 0; v < n; v++) part[v] = rank[part[v] - lo];
    *nparts = count;
    spx_free(ctx, scratch);
    spx_free(ctx, rank);
    return SPX_OK;
}
