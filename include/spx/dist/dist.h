/* include/spx/dist/dist.h: distributed SpMV and solvers over MPI (the optional module
 * libspx_dist, built when CMake finds MPI; docs/distributed.md). A matrix is cut into contiguous
 * row blocks of about equal nonzeros, one per rank (or, with spx_dist_load_ex, into METIS parts
 * renumbered into contiguous blocks); each rank holds its diagonal block (the
 * columns of its own part of x) and its off-diagonal block over compressed ghost columns
 * (PETSc's MPIAIJ, hypre's ParCSR), each an spx plan. Not part of spx.h: include it and link
 * the spx_dist target (in the build tree; not installed yet). Every function here is
 * collective over the matrix's communicator unless it says otherwise, and returns the same
 * status on every rank, with the first failing rank's message in every rank's context (no rank
 * is left waiting in a collective). */
#ifndef SPX_DIST_DIST_H
#define SPX_DIST_DIST_H

#include <mpi.h>
#include "spx/io.h"
#include "spx/solve.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef struct spx_dist_matrix spx_dist_matrix;

/* A distributed matrix from the rows this rank holds: rows row_lo.. row_lo + nrows - 1 of an
 * m x n matrix (ranks hold consecutive blocks in rank order, m = the sum of nrows), as CSR with
 * global column indices (rowptr from 0, nrows + 1 entries; columns sorted or not, duplicates
 * summed). The arrays are copied. po (may be NULL): the blocks' plans (format "auto"/NULL per
 * block, backend, fp64 only; po->order is ignored: the blocks keep the caller's order). x is
 * distributed like the rows when m == n, else in equal blocks of columns. Like PETSc's
 * MatCreateMPIAIJWithArrays. */
spx_status spx_dist_create_from_rows(MPI_Comm comm, spx_ctx *ctx, int64_t n, int32_t nrows, const int64_t *rowptr,
                                     const int32_t *colind, const double *val, const spx_plan_opts *po,
                                     spx_dist_matrix **out);
/* A distributed matrix from a source: a Matrix Market file read in parallel (each rank parses
 * only its byte range of the text, then entries move to their owners: spx_dist_read_csr), or a
 * gen: spec (generated whole on every rank, each keeping its rows: no communication). Rows are
 * balanced to equal nonzeros per rank. */
spx_status spx_dist_load(MPI_Comm comm, spx_ctx *ctx, const char *source, const spx_plan_opts *po, spx_dist_matrix **out);
/* How spx_dist_load_ex cuts the rows (NULL options, or NULL fields: the defaults). */
typedef struct spx_dist_opts {
    const char *partition; /* "rows" (the default): contiguous blocks of equal nonzeros, in the
                              matrix's order; "metis" (square matrices, builds with METIS): a
                              k-way partition of the symmetrized graph (serial METIS on rank 0),
                              rows and columns renumbered alike so that each rank's part is a
                              contiguous block: the matrix held is P A P^T, and spx_dist_get_rows
                              maps its rows (and x's entries) back to A's */
} spx_dist_opts;
/* spx_dist_load with options: the partition above. An unknown partition: SPX_ERR_ARG; metis
 * without METIS in the build: SPX_ERR_UNSUPPORTED; metis on a rectangular matrix: SPX_ERR_ARG
 * (each on every rank, with the same message). Ranks may get empty parts. */
spx_status spx_dist_load_ex(MPI_Comm comm, spx_ctx *ctx, const char *source, const spx_plan_opts *po,
                            const spx_dist_opts *opts, spx_dist_matrix **out);
/* The parallel read alone: this rank's rows [*row_lo, *row_lo + (*local)->m) of the file's
 * matrix (equal nonzeros per rank), as CSR with global columns, exactly the rows spx_mtx_read
 * gives (same entries, order and sums). Reading is never strict. A malformed file fails on
 * every rank with the message the serial reader gives. */
spx_status spx_dist_read_csr(MPI_Comm comm, spx_ctx *ctx, const char *path, int64_t *row_lo, spx_csr **local);
/* Frees *A (NULL accepted; not collective) and sets it to NULL. */
void spx_dist_destroy(spx_dist_matrix **A);

/* How the halo travels (collective): "mpi" (the default: MPI Isend/Irecv with the neighbours;
 * a CUDA halo is packed on the device and handed to MPI in device memory when every rank's MPI
 * reports CUDA support at run time, else staged through host buffers), "mpi-host" (always
 * staged), "mpi-device" (device buffers; SPX_ERR_UNSUPPORTED with the reason when an MPI is
 * not CUDA-aware or the matrix runs on the CPU) or "nccl" (CUDA matrices in a build with NCCL:
 * device to device with ncclSend/ncclRecv on a stream of its own, ordered by events, no host
 * wait; SPX_ERR_UNSUPPORTED with the reason otherwise). spx_dist_get_info names the one used. */
spx_status spx_dist_set_transport(spx_dist_matrix *A, const char *transport);

/* The link between ranks 0 and 1 over A's transport, for the scaling model: the one-way time
 * of one value and the bandwidth of 1 MiB messages (MPI: ping-pong between host buffers; NCCL:
 * exchanges between device buffers, both ways at once, as the halo travels); 0 and 0 with one
 * rank. Collective: every rank gets ranks 0-1's figures. */
spx_status spx_dist_measure_link(spx_dist_matrix *A, double *latency_s, double *bytes_per_s);

/* What a rank holds and sends (not collective). */
typedef struct spx_dist_info {
    int rank, size;
    int64_t m, n;              /* global */
    int64_t row_lo, nrows;     /* this rank's rows: y's local part */
    int64_t col_lo, ncols;     /* this rank's part of x */
    int64_t nnz, nnz_diag, nnz_offd;
    int64_t ghosts;            /* distinct columns of other ranks this rank reads */
    int64_t offd_rows;         /* rows the off-diagonal block stores: every row, or only those
                                  with ghost entries when they are at most half of them */
    int send_neighbours, recv_neighbours;
    int64_t send_values, recv_values; /* x entries sent and received per SpMV */
    char format_diag[72], format_offd[72]; /* the blocks' plans ("-" when the block is empty) */
    double bytes_per_spmv;     /* the two plans' minimum bytes moved per SpMV (their layouts') */
    spx_backend backend;
    const char *transport;     /* how halos travel, e.g. "MPI, host-staged" */
    const char *partition;     /* "rows" or "metis" (spx_dist_opts) */
} spx_dist_info;
spx_status spx_dist_get_info(const spx_dist_matrix *A, spx_dist_info *out);
/* global_rows[i] (info.nrows entries): the source matrix's global row of local row i, so a
 * caller can scatter y and gather x; for a square matrix also the global index of local entry i
 * of x. Partition rows: row_lo + i; metis: the row before renumbering. Not collective. */
spx_status spx_dist_get_rows(const spx_dist_matrix *A, int64_t *global_rows);

/* Time this rank spent in spx_dist_spmv since the last reset (not collective): compute (the
 * two blocks' products), exchange (packing, posting, waiting and unpacking the halo) and, of
 * it, wait (blocked in MPI_Waitall after the diagonal product). */
typedef struct spx_dist_times {
    int64_t spmvs;
    double compute_s, exchange_s, wait_s;
} spx_dist_times;
void spx_dist_get_times(const spx_dist_matrix *A, spx_dist_times *out);
void spx_dist_reset_times(spx_dist_matrix *A);

/* y = a*A*x + b*y on the local parts: x of info.ncols entries, y of info.nrows, fp64 vectors of
 * the plans' backend in the matrix's context (b = 0 never reads y). Posts the halo exchange
 * (Irecv/Isend with the neighbour ranks only), computes the diagonal block's product, waits,
 * adds the off-diagonal block's product. No collective: the one exception to the agreed
 * status above, a rank's error (bad vectors) is returned on that rank only, after it has still
 * taken part in the exchange, so no neighbour waits forever. */
spx_status spx_dist_spmv(spx_dist_matrix *A, double a, const spx_vec *x, double b, spx_vec *y);

/* CG and BiCGSTAB (src/solve's, over the distributed operator; dot products summed with
 * MPI_Allreduce) on a square matrix; b, x and opts->inv_diag are local parts (info.nrows
 * entries); arguments, results and statuses as spx_solve_cg / spx_solve_bicgstab. */
spx_status spx_dist_solve_cg(spx_dist_matrix *A, const spx_vec *b, spx_vec *x, const spx_solve_opts *opts,
                             spx_solve_result *res);
spx_status spx_dist_solve_bicgstab(spx_dist_matrix *A, const spx_vec *b, spx_vec *x, const spx_solve_opts *opts,
                                   spx_solve_result *res);
/* The Jacobi preconditioner's local part, 1/A(i,i) of this rank's rows (square matrices). */
spx_status spx_dist_inv_diag(spx_dist_matrix *A, spx_vec **out);

/* This process's rank among the ranks of its node (MPI_Comm_split_type SHARED). Collective. */
int spx_dist_node_rank(MPI_Comm comm);
/* The GPU this rank takes (spx_ctx_opts.device): its node rank modulo the GPUs it sees, so
 * ranks on one node spread over its GPUs and share them when there are more ranks; 0 without
 * a GPU. Collective. */
int spx_dist_device(MPI_Comm comm);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
