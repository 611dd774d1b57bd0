/* src/dist/dist_spmv.c: the distributed SpMV: the halo exchange posted first (Irecv and Isend
 * with the neighbour ranks only), the diagonal block's product while it travels, then the
 * wait and the off-diagonal block's product on the ghost values; with the time of each part. */
#include "cuda/gateway.h"
#include "dist/dist_internal.h"
#include "vec/vec_cuda.h"
#include "vec/vec_internal.h"

/* Halos of at least this many values are packed by the context's threads (below it, starting
 * them costs more than the copy: 32k gathers take some 30 us on one core). */
#define DIST_PACK_PARALLEL (1 << 15)

/* SPX_OK when x and y fit A's local parts (backend, precision, context, lengths); else
 * SPX_ERR_ARG with a message. Not collective: the callers agree. */
static spx_status check_vectors(const spx_dist_matrix *A, const spx_vec *x, const spx_vec *y)
{
    if (!x || !y || x == y) return spx_fail(A->ctx, SPX_ERR_ARG, "spx_dist_spmv: x and y must be two vectors");
    if (spx_vec_ctx(x) != A->ctx || spx_vec_ctx(y) != A->ctx)
        return spx_fail(A->ctx, SPX_ERR_ARG, "spx_dist_spmv: the vectors belong to another context than the matrix");
    if (spx_vec_backend(x) != A->backend || spx_vec_backend(y) != A->backend || spx_vec_precision(x) != SPX_FP64 ||
        spx_vec_precision(y) != SPX_FP64)
        return spx_fail(A->ctx, SPX_ERR_ARG, "spx_dist_spmv: the matrix runs on %s in fp64, the vectors differ",
                        spx_backend_str(A->backend));
    if (spx_vec_length(x) != A->ncols || spx_vec_length(y) != A->nrows)
        return spx_fail(A->ctx, SPX_ERR_ARG, "spx_dist_spmv: rank %d holds %lld x %lld, x has %lld entries and y %lld", A->rank,
                        (long long)A->nrows, (long long)A->ncols, (long long)spx_vec_length(x), (long long)spx_vec_length(y));
    return SPX_OK;
}

/* Copies the values the neighbours need out of x into the send buffer; a CUDA x is gathered on
 * the device and only the packed values copied to the host (host staging; the copy waits for
 * the stream, so x is complete). */
static spx_status pack_halo(spx_dist_matrix *A, const spx_vec *x)
{
    const int64_t nsend = A->send_off[A->nsend];
    if (nsend == 0) return SPX_OK;
    const void *xd = spx_vec_data((spx_vec *)x);
    if (A->backend == SPX_BACKEND_CUDA) { /* a CUDA-aware MPI reads send_dev once the stream is there */
        spx_status st = spx_vec_cuda_gather(A->ctx, nsend, A->send_idx_dev, xd, A->send_dev);
        if (st || A->mpi_device) return st ? st : spx_cuda_sync(A->ctx);
        return spx_cuda_d2h(A->ctx, A->send_buf, A->send_dev, (size_t)nsend * sizeof *A->send_buf);
    }
    const double *xs = xd;
    double *buf = A->send_buf;
    const int32_t *idx = A->send_idx;
#pragma omp parallel for schedule(static) num_threads(spx_ctx_threads(A->ctx)) if (nsend >= DIST_PACK_PARALLEL)
    for (int64_t k = 0; k < nsend; k++) buf[k] = xs[idx[k]];
    return SPX_OK;
}

/* Puts the received ghost values where the off-diagonal plan reads them: the host buffer is the
 * ghost vector on the CPU; on CUDA it is copied to the device on the stream, after the
 * diagonal product and before the off-diagonal one. */
static spx_status unpack_halo(spx_dist_matrix *A)
{
    if (A->backend != SPX_BACKEND_CUDA || A->mpi_device || A->nghost == 0) return SPX_OK;
    return spx_cuda_h2d_async(A->ctx, spx_vec_data(A->ghost), A->ghost_host, (size_t)A->nghost * sizeof *A->ghost_host);
}

/* Posts the receives into the ghost buffer and the sends of the packed values (the device
 * ones with a CUDA-aware MPI, the host ones otherwise). */
static void post_halo(spx_dist_matrix *A)
{
    double *recv = A->mpi_device ? spx_vec_data(A->ghost) : A->ghost_host;
    const double *send = A->mpi_device ? A->send_dev : A->send_buf;
    for (int i = 0; i < A->nrecv; i++)
        MPI_Irecv(recv + A->recv_off[i], (int)(A->recv_off[i + 1] - A->recv_off[i]), MPI_DOUBLE, A->recv_rank[i], 0, A->comm,
                  &A->req[i]);
    for (int i = 0; i < A->nsend; i++)
        MPI_Isend(send + A->send_off[i], (int)(A->send_off[i + 1] - A->send_off[i]), MPI_DOUBLE, A->send_rank[i], 0, A->comm,
                  &A->req[A->nrecv + i]);
}

/* y = a*D*x + b*y with the diagonal block D (y = b*y when D has no entries). */
static spx_status diag_product(spx_dist_matrix *A, double a, const spx_vec *x, double b, spx_vec *y)
{
    if (A->plan_diag) return spx_plan_apply(A->plan_diag, a, x, b, y);
    return spx_vec_axpby(0.0, y, b, y);
}

/* y[offd_row[k]] += offd_y[k]: the compressed off-diagonal rows' products into their rows. */
static spx_status add_compressed_rows(spx_dist_matrix *A, spx_vec *y)
{
    const int64_t n = A->offd->m;
    const double *z = spx_vec_data(A->offd_y);
    double *yd = spx_vec_data(y);
    if (A->backend == SPX_BACKEND_CUDA) return spx_vec_cuda_scatter_add(A->ctx, n, A->offd_row_dev, z, yd);
    const int32_t *row = A->offd_row;
#pragma omp parallel for schedule(static) num_threads(spx_ctx_threads(A->ctx)) if (n >= DIST_PACK_PARALLEL)
    for (int64_t k = 0; k < n; k++) yd[row[k]] += z[k];
    return SPX_OK;
}

/* y += a*O*g with the off-diagonal block O and the ghost values g: into y directly, or, when O
 * keeps only its rows with entries, into offd_y and then into those rows of y. */
static spx_status offd_product(spx_dist_matrix *A, double a, spx_vec *y)
{
    if (!A->plan_offd) return SPX_OK;
    if (!A->offd_row) return spx_plan_apply(A->plan_offd, a, A->ghost, 1.0, y);
    spx_status st = spx_plan_apply(A->plan_offd, a, A->ghost, 0.0, A->offd_y);
    return st ? st : add_compressed_rows(A, y);
}

/* Adds one SpMV's times: t0 start, t1 exchange posted, t2 diagonal product done, t3 exchange
 * done (waited for), t4 off-diagonal product done. */
static void record_times(spx_dist_matrix *A, double t0, double t1, double t2, double t3, double t4)
{
    A->times.spmvs++;
    A->times.compute_s += (t2 - t1) + (t4 - t3);
    A->times.exchange_s += (t1 - t0) + (t3 - t2);
    A->times.wait_s += t3 - t2;
}

/* spx_dist_spmv over the NCCL transport: everything queued on the GPU, the exchange on the
 * transport's stream beside the diagonal product; the times are the host's (launches). */
static spx_status spmv_nccl(spx_dist_matrix *A, double a, const spx_vec *x, double b, spx_vec *y)
{
    const double t0 = MPI_Wtime();
    const int64_t nsend = A->send_off[A->nsend];
    spx_status st = check_vectors(A, x, y);
    if (!st && nsend) st = spx_vec_cuda_gather(A->ctx, nsend, A->send_idx_dev, spx_vec_data((spx_vec *)x), A->send_dev);
    /* posted even after an error here: the neighbours' receives wait for these values */
    const spx_status posted = dist_nccl_post(A->nccl, A->ctx, A->nrecv, A->recv_rank, A->recv_off, spx_vec_data(A->ghost),
                                             A->nsend, A->send_rank, A->send_off, A->send_dev);
    if (!st) st = posted;
    const double t1 = MPI_Wtime();
    if (!st) st = diag_product(A, a, x, b, y);
    const double t2 = MPI_Wtime();
    if (!st) st = dist_nccl_wait(A->nccl, A->ctx);
    const double t3 = MPI_Wtime();
    if (!st) st = offd_product(A, a, y);
    record_times(A, t0, t1, t2, t3, MPI_Wtime());
    return st;
}

spx_status spx_dist_spmv(spx_dist_matrix *A, double a, const spx_vec *x, double b, spx_vec *y)
{
    if (!A) return SPX_ERR_ARG;
    if (A->nccl) return spmv_nccl(A, a, x, b, y);
    const double t0 = MPI_Wtime();
    spx_status st = check_vectors(A, x, y);
    if (!st) st = pack_halo(A, x);
    post_halo(A); /* even after an error here: the neighbours wait for these values */
    const double t1 = MPI_Wtime();
    if (!st) st = diag_product(A, a, x, b, y);
    const double t2 = MPI_Wtime();
    MPI_Waitall(A->nrecv + A->nsend, A->req, MPI_STATUSES_IGNORE);
    const double t3 = MPI_Wtime();
    if (!st) st = unpack_halo(A);
    if (!st) st = offd_product(A, a, y);
    record_times(A, t0, t1, t2, t3, MPI_Wtime());
    return st;
}
