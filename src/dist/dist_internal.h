/* src/dist/dist_internal.h: the distributed matrix's layout and what the module's files share:
 * error agreement across ranks, the row partition (equal nonzeros, or METIS parts renumbered),
 * moving entries and rows to their owners, the build of the two blocks and the halo plan. */
#ifndef SPX_DIST_DIST_INTERNAL_H
#define SPX_DIST_DIST_INTERNAL_H

#include "core/ctx.h"
#include "dist/dist_nccl.h"
#include "spx/dist/dist.h"

/* One stored entry in global indices, as it travels between ranks. */
typedef struct dist_entry {
    int32_t row, col;
    double val;
} dist_entry;

struct spx_dist_matrix {
    MPI_Comm comm; /* a duplicate of the caller's: our messages never meet theirs */
    int rank, size;
    spx_ctx *ctx;
    int64_t m, n;
    int64_t *row_start, *col_start; /* size + 1 each: rank r owns rows/columns [start[r], start[r+1]) */
    int64_t nrows, ncols, nghost;
    int64_t *ghost_col;  /* nghost global columns, ascending (so grouped by owner) */
    spx_csr *diag, *offd; /* nrows x ncols (local columns), nrows x nghost (ghost numbers) */
    spx_plan *plan_diag, *plan_offd; /* NULL for a block without entries */
    /* when few rows have ghost entries (DIST_OFFD_COMPRESS), offd holds only those rows:
       offd_row[k] is local row of its row k, its product goes to offd_y and is then added
       into those rows of y (so the product does not sweep every row of y); else NULL */
    int32_t *offd_row, *offd_row_dev; /* host; CUDA: on the device */
    spx_vec *offd_y;
    int halo_pinned; /* CUDA: send_buf and ghost_host are page-locked (spx_cuda_host_register) */
    /* the halo: values received from recv_rank[i] land at ghost[recv_off[i] .. recv_off[i+1]);
       those sent to send_rank[i] are x[send_idx[send_off[i] .. send_off[i+1])] */
    int nrecv, nsend;
    int *recv_rank, *send_rank;
    int64_t *recv_off, *send_off;
    int32_t *send_idx;
    double *send_buf, *ghost_host; /* host: the packed values sent, the ghost values received */
    int32_t *send_idx_dev;          /* CUDA: send_idx on the device, */
    double *send_dev;               /* and the values packed there before the copy to send_buf */
    spx_vec *ghost;    /* the ghost values as the off-diagonal plan's x */
    int mpi_device;    /* CUDA matrices: MPI moves the halo between device buffers (a CUDA-aware
                          MPI), not through send_buf and ghost_host */
    dist_nccl *nccl;   /* the NCCL transport when chosen (spx_dist_set_transport), else NULL:
                          MPI point-to-point through host buffers */
    MPI_Request *req;  /* nrecv + nsend */
    spx_backend backend;
    spx_dist_times times;
    const char *partition; /* "rows" or "metis" (spx_dist_load_ex) */
    int64_t *row_orig;     /* metis: the original global row of each local row (nrows); NULL for
                              rows, whose local row i is global row row_start[rank] + i */
};

/* This process's rank in comm and comm's size. */
void dist_where(MPI_Comm comm, int *rank, int *size);
/* Every rank's status becomes that of the lowest rank that failed, with its message put in
 * every rank's context; SPX_OK when none failed. Collective: call it wherever ranks may have
 * failed apart, before they next communicate. */
spx_status dist_agree(MPI_Comm comm, spx_ctx *ctx, spx_status st);
/* Where part r of size equal parts of 0..total starts: total * r / size, exactly (128-bit
 * product). */
static inline int64_t dist_block_start(int64_t total, int64_t r, int size)
{
    return (int64_t)((__int128)total * r / size);
}
/* The rank owning global index i under start[0..size] (non-decreasing, start[size] > i). */
int dist_owner(const int64_t *start, int size, int64_t i);
/* start[0..size] cutting rows 0..m into blocks of about equal nonzeros (rank t starts at the
 * first row whose nonzero prefix reaches t*nnz/size), from the rows [lo, lo + nloc) this rank
 * knows, rowptr[0..nloc] their offsets (any base); ranks know consecutive ranges in rank order
 * covering 0..m. Collective. */
spx_status dist_balance(MPI_Comm comm, spx_ctx *ctx, int64_t m, int64_t lo, int64_t nloc, const int64_t *rowptr,
                        int64_t *start);
/* Sends each of in[0..n) to the owner of its row under row_start; *out (context-allocated,
 * *out_n entries) receives, in source rank order, the first n_first of every source (class
 * one), then the rest of every source (class two), each source's entries in their order;
 * *out_first counts class one. Collective. */
spx_status dist_exchange(MPI_Comm comm, spx_ctx *ctx, const int64_t *row_start, const dist_entry *in, int64_t n,
                         int64_t n_first, dist_entry **out, int64_t *out_n, int64_t *out_first);
/* Moves the rows of csr (rows [lo, lo + csr->m), global columns) to their owners under start,
 * renumbered by map when given (row and column i become map[i]; NULL: kept); *out: this rank's
 * rows under start, columns sorted within rows. Collective, status agreed. */
spx_status dist_move_rows(MPI_Comm comm, spx_ctx *ctx, const spx_csr *csr, int64_t lo, const int32_t *map,
                          const int64_t *start, spx_csr **out);
/* The partition opts asks for: *metis 1 for "metis", 0 for "rows" (opts or its name NULL: the
 * default); SPX_ERR_ARG for another name, SPX_ERR_UNSUPPORTED for metis in a build without
 * METIS. Not collective (every rank decides alike). */
spx_status dist_partition_choice(spx_ctx *ctx, const spx_dist_opts *opts, int *metis);
/* The metis partition of square m x n (dist_partition.c): from this rank's rows *local under the
 * row blocks start[0..size], rows and columns renumbered part by part; start then holds the
 * parts' blocks, *local this rank's rows of P A P^T (the old one freed) and *orig (new,
 * nrows entries) their original global rows. A rectangular matrix: SPX_ERR_ARG on every rank.
 * Collective, status agreed. */
spx_status dist_metis_renumber(MPI_Comm comm, spx_ctx *ctx, int64_t m, int64_t n, int64_t *start, spx_csr **local,
                               int64_t **orig);
/* 1 when every rank's MPI library reports CUDA support (device pointers may be handed to it),
 * else 0 with the reason in why[0..len). Collective. */
int dist_mpi_cuda_aware(MPI_Comm comm, char *why, size_t len);
/* The matrix from this rank's rows [row_start[rank], row_start[rank+1]) of an m x n matrix in
 * local (CSR with global columns, taken over: freed here whatever happens): the blocks, the
 * halo's neighbour lists, the plans. Collective. */
spx_status dist_build(MPI_Comm comm, spx_ctx *ctx, int64_t m, int64_t n, const int64_t *row_start, spx_csr *local,
                      const spx_plan_opts *po, spx_dist_matrix **out);

#endif
