/* src/dist/dist_partition.c: the row partitions of spx_dist_load_ex. "rows" (the default) keeps
 * the reader's contiguous blocks of equal nonzeros; "metis" (square matrices) renumbers rows and
 * columns alike by a k-way partition of the symmetrized graph, one part a rank, so that the
 * matrix built is P A P^T with each rank's part a contiguous block (the SpMV, halo and solvers
 * need no change) and the original index of each local row kept for the caller's vectors.
 *
 * METIS runs serially on rank 0 (ParMETIS is not available): the pattern is gathered there,
 * partitioned by src/partition (spx_partition_metis_csr: the symmetrized graph, METIS_PartGraphKway
 * with nonzeros as vertex weights, so parts balance the SpMV's work), and the part of every row
 * broadcast. Memory: rank 0 holds the whole pattern (8 B a row + 4 B a nonzero), the
 * symmetrized graph (up to 8 B a nonzero + 8 B a row, with the transpose's 4 B a nonzero while it
 * is built) and METIS's own workspace (a few times the graph); every rank holds the new number
 * of every row (4 B a row). */
#include <stdio.h>
#include <string.h>

#include "dist/dist_internal.h"
#include "partition/partition.h"

spx_status dist_partition_choice(spx_ctx *ctx, const spx_dist_opts *opts, int *metis)
{
    const char *name = opts ? opts->partition : NULL;
    *metis = name && !strcmp(name, "metis");
    if (name && !*metis && strcmp(name, "rows"))
        return spx_fail(ctx, SPX_ERR_ARG, "partition '%s': not a partition (rows or metis)", name);
    if (*metis && !spx_partition_have_metis())
        return spx_fail(ctx, SPX_ERR_UNSUPPORTED, "partition metis: not built: METIS not found (install libmetis-dev)");
    return SPX_OK;
}

/* Rank 0: the displacements disp[0..size) of counts cnt[0..size) in one array, and their sum
 * (SPX_ERR_OVERFLOW beyond MPI's int counts). */
static spx_status displacements(spx_ctx *ctx, int size, const int *cnt, int *disp, int64_t *total)
{
    *total = 0;
    for (int r = 0; r < size; r++) {
        disp[r] = (int)*total;
        if ((*total += cnt[r]) > INT32_MAX)
            return spx_fail(ctx, SPX_ERR_OVERFLOW, "metis partition: 2^31 entries or more to gather on rank 0");
    }
    return SPX_OK;
}

/* Rank 0: *G, the pattern of all m rows (every rank's local rows, consecutive in rank order;
 * val NULL, context-allocated arrays); other ranks: *G zeroed. Collective, status agreed. */
static spx_status gather_pattern(MPI_Comm comm, spx_ctx *ctx, int64_t m, const spx_csr *local, spx_csr *G)
{
    int rank = 0, size = 1;
    dist_where(comm, &rank, &size);
    memset(G, 0, sizeof *G);
    const int rows = local->m, nnz = (int)local->nnz;
    int *len = spx_malloc_array(ctx, (size_t)rows, sizeof *len), *lens = NULL;
    int *cnt = spx_malloc_array(ctx, 4 * (size_t)size, sizeof *cnt); /* rows, their displacements, nonzeros, theirs */
    spx_status st = len && cnt ? SPX_OK : spx_fail_nomem(ctx, "metis partition: row lengths");
    for (int32_t i = 0; !st && i < rows; i++) len[i] = (int)(local->rowptr[i + 1] - local->rowptr[i]);
    if ((st = dist_agree(comm, ctx, st))) goto done;
    int *rcnt = cnt, *rdisp = cnt + size, *ncnt = cnt + 2 * size, *ndisp = cnt + 3 * size;
    MPI_Gather(&rows, 1, MPI_INT, rcnt, 1, MPI_INT, 0, comm);
    MPI_Gather(&nnz, 1, MPI_INT, ncnt, 1, MPI_INT, 0, comm);
    int64_t total = 0, total_rows = 0;
    if (rank == 0 && !(st = displacements(ctx, size, rcnt, rdisp, &total_rows)))
        st = displacements(ctx, size, ncnt, ndisp, &total);
    if (rank == 0 && !st) {
        lens = spx_malloc_array(ctx, (size_t)m, sizeof *lens);
        G->rowptr = spx_malloc_array(ctx, (size_t)m + 1, sizeof *G->rowptr);
        G->colind = spx_malloc_array(ctx, (size_t)total, sizeof *G->colind);
        if (!lens || !G->rowptr || !G->colind) st = spx_fail_nomem(ctx, "metis partition: the pattern on rank 0");
    }
    if ((st = dist_agree(comm, ctx, st))) goto done;
    MPI_Gatherv(len, rows, MPI_INT, lens, rcnt, rdisp, MPI_INT, 0, comm);
    MPI_Gatherv(local->colind, nnz, MPI_INT32_T, G->colind, ncnt, ndisp, MPI_INT32_T, 0, comm);
    if (rank == 0) {
        *G = (spx_csr){.m = (int32_t)m, .n = (int32_t)m, .nnz = total, .rowptr = G->rowptr, .colind = G->colind, .ctx = ctx};
        G->rowptr[0] = 0;
        for (int64_t i = 0; i < m; i++) G->rowptr[i + 1] = G->rowptr[i] + lens[i];
    }
done:
    spx_free(ctx, len);
    spx_free(ctx, lens);
    spx_free(ctx, cnt);
    if (st) {
        spx_free(ctx, G->rowptr);
        spx_free(ctx, G->colind);
        memset(G, 0, sizeof *G);
    }
    return st;
}

/* Rank 0: the part (0..size) of each of G's rows into part (G->m entries): METIS with the rows'
 * nonzeros as vertex weights (at least 1). */
static spx_status metis_rows(spx_ctx *ctx, const spx_csr *G, int size, int32_t *part)
{
    int32_t *w = spx_malloc_array(ctx, (size_t)G->m, sizeof *w);
    if (!w) return spx_fail_nomem(ctx, "metis partition: vertex weights");
    for (int32_t i = 0; i < G->m; i++) {
        const int64_t len = G->rowptr[i + 1] - G->rowptr[i];
        w[i] = len > 0 ? (int32_t)len : 1;
    }
    spx_status st = spx_partition_metis_csr(ctx, G, w, size, part);
    spx_free(ctx, w);
    if (!st) return SPX_OK;
    char why[SPX_ERRMSG_LEN]; /* the message is rewritten in the context's own buffer */
    snprintf(why, sizeof why, "%s", spx_ctx_last_error(ctx));
    return spx_fail(ctx, st, "metis partition (serial, on rank 0): %s", why);
}

/* The parts of every row on every rank (part: m entries): rank 0 partitions the gathered
 * pattern, then broadcasts. Collective, status agreed. */
static spx_status row_parts(MPI_Comm comm, spx_ctx *ctx, int64_t m, const spx_csr *local, int32_t *part)
{
    int rank = 0, size = 1;
    dist_where(comm, &rank, &size);
    spx_csr G;
    spx_status st = gather_pattern(comm, ctx, m, local, &G);
    if (st) return st;
    if (rank == 0) st = metis_rows(ctx, &G, size, part);
    spx_free(ctx, G.rowptr);
    spx_free(ctx, G.colind);
    if ((st = dist_agree(comm, ctx, st))) return st;
    MPI_Bcast(part, (int)m, MPI_INT32_T, 0, comm);
    return SPX_OK;
}

/* Turns part (m entries, parts 0..size) into the new numbering, in place: part by part, rows in
 * their order within a part; start[0..size] gets where each part begins. */
static void number_by_part(int64_t m, int size, int32_t *part, int64_t *start)
{
    memset(start, 0, ((size_t)size + 1) * sizeof *start);
    for (int64_t i = 0; i < m; i++) start[part[i] + 1]++;
    for (int r = 0; r < size; r++) start[r + 1] += start[r];
    int64_t *fill = start; /* start[p] counted up while numbering, then shifted back */
    for (int64_t i = 0; i < m; i++) part[i] = (int32_t)fill[part[i]]++;
    for (int r = size; r > 0; r--) start[r] = start[r - 1];
    start[0] = 0;
}

/* orig[0..nrows): the original index of each of this rank's new rows [lo, lo + nrows) under
 * the new numbering num (m entries). */
static void original_rows(int64_t m, const int32_t *num, int64_t lo, int64_t nrows, int64_t *orig)
{
    for (int64_t i = 0; i < m; i++)
        if (num[i] >= lo && num[i] < lo + nrows) orig[num[i] - lo] = i;
}

spx_status dist_metis_renumber(MPI_Comm comm, spx_ctx *ctx, int64_t m, int64_t n, int64_t *start, spx_csr **local,
                               int64_t **orig)
{
    int rank = 0, size = 1;
    dist_where(comm, &rank, &size);
    *orig = NULL;
    if (m != n)
        return spx_fail(ctx, SPX_ERR_ARG, "partition metis: the matrix is %lld x %lld; a graph partition needs a square matrix "
                        "(partition rows takes any)", (long long)m, (long long)n);
    int32_t *num = spx_malloc_array(ctx, (size_t)m, sizeof *num);
    spx_status st = dist_agree(comm, ctx, num ? SPX_OK : spx_fail_nomem(ctx, "metis partition: row numbers"));
    if (!st) st = row_parts(comm, ctx, m, *local, num);
    spx_csr *moved = NULL;
    const int64_t lo = start[rank]; /* the rows' old block, before start is renumbered */
    if (!st) {
        number_by_part(m, size, num, start);
        st = dist_move_rows(comm, ctx, *local, lo, num, start, &moved);
    }
    const int64_t mine = start[rank + 1] - start[rank];
    if (!st && !(*orig = spx_malloc_array(ctx, (size_t)mine, sizeof **orig))) st = spx_fail_nomem(ctx, "metis partition: row map");
    if ((st = dist_agree(comm, ctx, st))) {
        spx_csr_destroy(&moved);
        spx_free(ctx, *orig);
        *orig = NULL;
    } else {
        original_rows(m, num, start[rank], mine, *orig);
        spx_csr_destroy(local);
        *local = moved;
    }
    spx_free(ctx, num);
    return st;
}
