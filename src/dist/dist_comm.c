/* src/dist/dist_comm.c: what the distributed module's collectives share: errors agreed across
 * ranks, the owner of an index, the equal-nonzero row partition, entries moved to their
 * owners (MPI_Alltoallv). */
#include <stdio.h>
#include <string.h>

#include "dist/dist_internal.h"

void dist_where(MPI_Comm comm, int *rank, int *size)
{
    MPI_Comm_rank(comm, rank);
    MPI_Comm_size(comm, size);
}

spx_status dist_agree(MPI_Comm comm, spx_ctx *ctx, spx_status st)
{
    int rank = 0, size = 1, first = 0;
    dist_where(comm, &rank, &size);
    int mine = st != SPX_OK ? rank : size;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == size) return SPX_OK;
    struct {
        int st;
        char msg[SPX_ERRMSG_LEN];
    } m;
    memset(&m, 0, sizeof m);
    if (rank == first) {
        m.st = (int)st;
        snprintf(m.msg, sizeof m.msg, "%s", spx_ctx_last_error(ctx));
    }
    MPI_Bcast(&m, (int)sizeof m, MPI_BYTE, first, comm);
    return spx_fail(ctx, (spx_status)m.st, "%s", m.msg);
}

int dist_owner(const int64_t *start, int size, int64_t i)
{
    int lo = 0, hi = size; /* the last r with start[r] <= i */
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (start[mid] <= i) lo = mid;
        else hi = mid;
    }
    return lo;
}

spx_status dist_balance(MPI_Comm comm, spx_ctx *ctx, int64_t m, int64_t lo, int64_t nloc, const int64_t *rowptr,
                        int64_t *start)
{
    int size = 1, rank = 0;
    dist_where(comm, &rank, &size);
    int64_t mine = nloc ? rowptr[nloc] - rowptr[0] : 0, before = 0, total = 0;
    MPI_Exscan(&mine, &before, 1, MPI_INT64_T, MPI_SUM, comm);
    if (rank == 0) before = 0; /* MPI_Exscan leaves rank 0's undefined */
    MPI_Allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, comm);
    int64_t *cand = spx_malloc_array(ctx, (size_t)size + 1, sizeof *cand);
    spx_status st = dist_agree(comm, ctx, cand ? SPX_OK : spx_fail_nomem(ctx, "row partition"));
    if (st) {
        spx_free(ctx, cand);
        return st;
    }
    int64_t r = 0; /* the first row this rank holds whose nonzero prefix reaches t*total/size; the targets
                      and the prefixes are non-decreasing, so r only moves on */
    for (int t = 0; t <= size; t++) {
        const int64_t target = dist_block_start(total, t, size);
        while (r < nloc && before + (rowptr[r] - rowptr[0]) < target) r++;
        cand[t] = r < nloc ? lo + r : m;
    }
    MPI_Allreduce(cand, start, size + 1, MPI_INT64_T, MPI_MIN, comm);
    start[0] = 0;
    start[size] = m;
    spx_free(ctx, cand);
    return SPX_OK;
}

/* The MPI type of one dist_entry (16 contiguous bytes); committed, freed by the caller. */
static MPI_Datatype entry_type(void)
{
    MPI_Datatype t;
    MPI_Type_contiguous((int)sizeof(dist_entry), MPI_BYTE, &t);
    MPI_Type_commit(&t);
    return t;
}

spx_status dist_exchange(MPI_Comm comm, spx_ctx *ctx, const int64_t *row_start, const dist_entry *in, int64_t n,
                         int64_t n_first, dist_entry **out, int64_t *out_n, int64_t *out_first)
{
    int size = 1;
    MPI_Comm_size(comm, &size);
    const size_t P = (size_t)size;
    /* per destination: [class one, class two] counts sent; per source: received */
    int *cnt = spx_calloc_array(ctx, 2 * P, sizeof *cnt), *rcnt = spx_calloc_array(ctx, 2 * P, sizeof *rcnt);
    int *sc = spx_calloc_array(ctx, 4 * P, sizeof *sc); /* send counts, displacements, receive ... */
    int64_t *fill = spx_calloc_array(ctx, 2 * P, sizeof *fill);
    dist_entry *sbuf = spx_malloc_array(ctx, n ? (size_t)n : 1, sizeof *sbuf), *rbuf = NULL, *res = NULL;
    spx_status st = (cnt && rcnt && sc && fill && sbuf) ? SPX_OK : spx_fail_nomem(ctx, "entry exchange");
    int64_t rtotal = 0, rfirst = 0;
    for (int64_t k = 0; !st && k < n; k++) {
        const int d = dist_owner(row_start, size, in[k].row);
        if (++cnt[2 * d + (k >= n_first)] == INT32_MAX) st = spx_fail(ctx, SPX_ERR_OVERFLOW, "entry exchange: 2^31 entries to one rank");
    }
    if ((st = dist_agree(comm, ctx, st))) goto done;
    MPI_Alltoall(cnt, 2, MPI_INT, rcnt, 2, MPI_INT, comm);
    int *scount = sc, *sdisp = sc + P, *rcount = sc + 2 * P, *rdisp = sc + 3 * P;
    int64_t off = 0;
    for (size_t d = 0; d < P; d++) { /* where each destination's entries go in sbuf */
        fill[2 * d] = off;
        fill[2 * d + 1] = off + cnt[2 * d];
        scount[d] = cnt[2 * d] + cnt[2 * d + 1];
        sdisp[d] = (int)off;
        off += scount[d];
        rcount[d] = rcnt[2 * d] + rcnt[2 * d + 1];
        rdisp[d] = (int)rtotal;
        rtotal += rcount[d];
        rfirst += rcnt[2 * d];
    }
    if (off > INT32_MAX || rtotal > INT32_MAX) st = spx_fail(ctx, SPX_ERR_OVERFLOW, "entry exchange: 2^31 entries on one rank");
    for (int64_t k = 0; !st && k < n; k++) {
        const int d = dist_owner(row_start, size, in[k].row);
        sbuf[fill[2 * d + (k >= n_first)]++] = in[k];
    }
    if (!st) {
        rbuf = spx_malloc_array(ctx, rtotal ? (size_t)rtotal : 1, sizeof *rbuf);
        res = spx_malloc_array(ctx, rtotal ? (size_t)rtotal : 1, sizeof *res);
        if (!rbuf || !res) st = spx_fail_nomem(ctx, "entry exchange");
    }
    if ((st = dist_agree(comm, ctx, st))) goto done;
    MPI_Datatype t = entry_type();
    MPI_Alltoallv(sbuf, scount, sdisp, t, rbuf, rcount, rdisp, t, comm);
    MPI_Type_free(&t);
    int64_t o1 = 0, o2 = rfirst; /* class one of every source, then class two */
    for (size_t s = 0; s < P; s++) {
        memcpy(res + o1, rbuf + rdisp[s], (size_t)rcnt[2 * s] * sizeof *res);
        memcpy(res + o2, rbuf + rdisp[s] + rcnt[2 * s], (size_t)rcnt[2 * s + 1] * sizeof *res);
        o1 += rcnt[2 * s];
        o2 += rcnt[2 * s + 1];
    }
    *out = res;
    *out_n = rtotal;
    *out_first = rfirst;
    res = NULL;
done:
    spx_free(ctx, res);
    spx_free(ctx, rbuf);
    spx_free(ctx, sbuf);
    spx_free(ctx, fill);
    spx_free(ctx, sc);
    spx_free(ctx, rcnt);
    spx_free(ctx, cnt);
    return st;
}
