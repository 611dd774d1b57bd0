/* src/dist/dist_link.c: the link figures the scaling model uses, measured over the matrix's own
 * transport between ranks 0 and 1: MPI ping-pong between host buffers (device buffers with a
 * CUDA-aware MPI), or NCCL exchanges between device buffers (both directions at once, as the
 * halo goes). */
#include "cuda/gateway.h"
#include "dist/dist_internal.h"

/* Doubles of the bandwidth message (1 MiB), and the timed rounds of each size. */
enum { LINK_BIG = 1 << 17, LINK_REPS = 20 };

/* One way of an MPI ping-pong of n doubles between ranks 0 and 1 (buf: n doubles), in seconds,
 * the second of two rounds (the first warms up). */
static double mpi_one_way(const spx_dist_matrix *A, double *buf, int n)
{
    const int peer = 1 - A->rank;
    double t = 0.0;
    for (int w = 0; w < 2; w++) {
        MPI_Barrier(A->comm);
        const double t0 = MPI_Wtime();
        for (int k = 0; k < LINK_REPS; k++) {
            if (A->rank == 0) {
                MPI_Send(buf, n, MPI_DOUBLE, peer, 1, A->comm);
                MPI_Recv(buf, n, MPI_DOUBLE, peer, 1, A->comm, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, n, MPI_DOUBLE, peer, 1, A->comm, MPI_STATUS_IGNORE);
                MPI_Send(buf, n, MPI_DOUBLE, peer, 1, A->comm);
            }
        }
        t = (MPI_Wtime() - t0) / (2.0 * LINK_REPS);
    }
    return t;
}

/* One NCCL exchange of n doubles each way between ranks 0 and 1 (dev: 2 * LINK_BIG device
 * doubles, the send half first), in seconds: LINK_REPS exchanges queued back to back, then the
 * stream drained; the second of two rounds. After an error (st, or one here) it only meets the
 * barriers, so that the peer never waits for it. */
static spx_status nccl_exchange(spx_dist_matrix *A, double *dev, int n, spx_status st, double *seconds)
{
    const int peer = 1 - A->rank;
    const int64_t off[2] = {0, n};
    for (int w = 0; w < 2; w++) {
        MPI_Barrier(A->comm);
        const double t0 = MPI_Wtime();
        for (int k = 0; k < LINK_REPS && !st; k++) {
            st = dist_nccl_post(A->nccl, A->ctx, 1, &peer, off, dev + LINK_BIG, 1, &peer, off, dev);
            if (!st) st = dist_nccl_wait(A->nccl, A->ctx);
        }
        if (!st) st = spx_cuda_sync(A->ctx);
        *seconds = (MPI_Wtime() - t0) / LINK_REPS;
    }
    return st;
}

/* Ranks 0 and 1's figures: fig[1] the latency (one 8-byte message), fig[0] the bandwidth. */
static spx_status measure_pair(spx_dist_matrix *A, double fig[2])
{
    double small = 0.0, big = 0.0;
    spx_status st = SPX_OK;
    if (A->nccl) {
        double *dev = NULL;
        st = spx_cuda_malloc(A->ctx, (void **)&dev, 2 * LINK_BIG * sizeof *dev);
        st = nccl_exchange(A, dev, 1, st, &small);
        st = nccl_exchange(A, dev, LINK_BIG, st, &big);
        if (dev) spx_cuda_free(A->ctx, dev);
    } else { /* host buffers, or device ones when MPI takes them (CUDA-aware) */
        double *buf = NULL;
        if (A->mpi_device) st = spx_cuda_malloc(A->ctx, (void **)&buf, LINK_BIG * sizeof *buf);
        else if (!(buf = spx_calloc_array(A->ctx, LINK_BIG, sizeof *buf))) st = spx_fail_nomem(A->ctx, "link buffer");
        double *one = buf ? buf : &small; /* without the buffer: the barriers, one value each way */
        small = mpi_one_way(A, one, 1);
        big = mpi_one_way(A, one, buf ? LINK_BIG : 1);
        if (A->mpi_device && buf) spx_cuda_free(A->ctx, buf);
        else spx_free(A->ctx, buf);
    }
    fig[1] = small;
    fig[0] = LINK_BIG * sizeof(double) / (big - small > 0 ? big - small : big);
    return st;
}

spx_status spx_dist_measure_link(spx_dist_matrix *A, double *latency_s, double *bytes_per_s)
{
    if (!A || !latency_s || !bytes_per_s) return SPX_ERR_ARG;
    double fig[2] = {0.0, 0.0};
    spx_status st = SPX_OK;
    if (A->size > 1) {
        if (A->rank < 2) st = measure_pair(A, fig);
        else /* the other ranks meet the pair's barriers */
            for (int b = 0; b < 4; b++) MPI_Barrier(A->comm);
        st = dist_agree(A->comm, A->ctx, st);
        MPI_Bcast(fig, 2, MPI_DOUBLE, 0, A->comm);
    }
    *bytes_per_s = st ? 0.0 : fig[0];
    *latency_s = st ? 0.0 : fig[1];
    return st;
}
