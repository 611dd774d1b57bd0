/* src/dist/dist_matrix.c: the distributed matrix: this rank's rows split into the diagonal
 * block and the off-diagonal block over compressed ghost columns, the halo's neighbour lists
 * (who sends which x entries to whom), the blocks' plans; creation from the caller's rows,
 * info, times, destruction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/gateway.h"
#include "dist/dist_internal.h"

/* qsort's order of int64 values. */
static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The index of global column c in A's ghost list (c is in it). */
static int32_t ghost_index(const spx_dist_matrix *A, int64_t c)
{
    int64_t lo = 0, hi = A->nghost;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (A->ghost_col[mid] < c) lo = mid + 1;
        else hi = mid;
    }
    return (int32_t)lo;
}

/* Whether global column c is outside A's own columns [col_lo, col_lo + ncols): a ghost. */
static int is_ghost(const spx_dist_matrix *A, int64_t col_lo, int64_t c)
{
    return c < col_lo || c >= col_lo + A->ncols;
}

/* A's ghost columns: the distinct columns of local outside [col_lo, col_lo + ncols), ascending;
 * *entries: local's entries in them, *rows: local's rows holding one or more. */
static spx_status find_ghosts(spx_dist_matrix *A, const spx_csr *local, int64_t col_lo, int64_t *entries, int64_t *rows)
{
    int64_t k = 0;
    *rows = 0;
    for (int64_t i = 0; i < A->nrows; i++) {
        const int64_t k0 = k;
        for (int64_t e = local->rowptr[i]; e < local->rowptr[i + 1]; e++) k += is_ghost(A, col_lo, local->colind[e]);
        *rows += k > k0;
    }
    *entries = k;
    A->ghost_col = spx_malloc_array(A->ctx, k ? (size_t)k : 1, sizeof *A->ghost_col);
    if (!A->ghost_col) return spx_fail_nomem(A->ctx, "ghost columns");
    k = 0;
    for (int64_t e = 0; e < local->nnz; e++)
        if (is_ghost(A, col_lo, local->colind[e])) A->ghost_col[k++] = local->colind[e];
    qsort(A->ghost_col, (size_t)k, sizeof *A->ghost_col, cmp_i64);
    int64_t u = 0;
    for (int64_t i = 0; i < k; i++)
        if (u == 0 || A->ghost_col[i] != A->ghost_col[u - 1]) A->ghost_col[u++] = A->ghost_col[i];
    A->nghost = u;
    return SPX_OK;
}

/* The off-diagonal block keeps only its rows with entries when they are at most this share
 * of the rank's rows: a stencil's boundary rows (poisson3d n=300 on 2 H100s: 90,000 of 13.5M)
 * then cost their own bytes, not a sweep of every row's pointer and y (measured: 1563 MB moved
 * per SpMV and rank against 1400 for half the matrix; the 2-GPU time 0.626 ms against 0.488
 * for perfect scaling). Above it the extra pass over the compressed rows' products costs more
 * than the rows it skips. */
#define DIST_OFFD_COMPRESS 0.5

/* The diagonal block (local columns) and the off-diagonal block (ghost numbers; only its rows
 * with entries, listed in offd_row, when DIST_OFFD_COMPRESS says so) of local, whose rows hold
 * sorted, distinct columns. */
static spx_status split_blocks(spx_dist_matrix *A, const spx_csr *local)
{
    const int64_t col_lo = A->col_start[A->rank];
    int64_t ghost_entries = 0, ghost_rows = 0;
    spx_status st = find_ghosts(A, local, col_lo, &ghost_entries, &ghost_rows);
    if (st) return st;
    const int64_t nd = local->nnz - ghost_entries;
    const int compress = ghost_rows > 0 && ghost_rows <= DIST_OFFD_COMPRESS * (double)A->nrows;
    if (compress && !(A->offd_row = spx_malloc_array(A->ctx, (size_t)ghost_rows, sizeof *A->offd_row)))
        return spx_fail_nomem(A->ctx, "off-diagonal rows");
    if ((st = spx_csr_alloc(A->ctx, A->nrows, A->ncols, nd, &A->diag)) ||
        (st = spx_csr_alloc(A->ctx, compress ? ghost_rows : A->nrows, A->nghost, ghost_entries, &A->offd)))
        return st;
    int64_t d = 0, o = 0, r = 0;
    for (int64_t i = 0; i < A->nrows; i++) {
        for (int64_t e = local->rowptr[i]; e < local->rowptr[i + 1]; e++) {
            const int64_t c = local->colind[e];
            if (!is_ghost(A, col_lo, c)) {
                A->diag->colind[d] = (int32_t)(c - col_lo);
                A->diag->val[d++] = local->val[e];
            } else {
                A->offd->colind[o] = ghost_index(A, c);
                A->offd->val[o++] = local->val[e];
            }
        }
        A->diag->rowptr[i + 1] = d;
        if (!compress) {
            A->offd->rowptr[i + 1] = o;
        } else if (o > A->offd->rowptr[r]) {
            A->offd_row[r++] = (int32_t)i;
            A->offd->rowptr[r] = o;
        }
    }
    return SPX_OK;
}

/* The receive side of the halo: the owners of the ghost columns, in rank order, and where each
 * one's values land; need[r] = how many ghost columns rank r owns. */
static spx_status recv_lists(spx_dist_matrix *A, int *need)
{
    for (int64_t g = 0; g < A->nghost; g++) need[dist_owner(A->col_start, A->size, A->ghost_col[g])]++;
    for (int r = 0; r < A->size; r++) A->nrecv += need[r] > 0;
    A->recv_rank = spx_malloc_array(A->ctx, (size_t)A->nrecv + 1, sizeof *A->recv_rank);
    A->recv_off = spx_malloc_array(A->ctx, (size_t)A->nrecv + 1, sizeof *A->recv_off);
    if (!A->recv_rank || !A->recv_off) return spx_fail_nomem(A->ctx, "halo lists");
    int i = 0;
    int64_t off = 0;
    for (int r = 0; r < A->size; r++) {
        if (!need[r]) continue;
        A->recv_rank[i] = r;
        A->recv_off[i++] = off;
        off += need[r];
    }
    A->recv_off[i] = off;
    return SPX_OK;
}

/* The send side: every rank tells each owner which of its columns it needs (MPI_Alltoall of
 * the counts, MPI_Alltoallv of the global columns); the owner keeps them as local indices. */
static spx_status send_lists(spx_dist_matrix *A, const int *need)
{
    const size_t P = (size_t)A->size;
    int *cnt = spx_calloc_array(A->ctx, 4 * P, sizeof *cnt); /* give, need displacements, give displacements */
    int64_t *recv_cols = NULL;
    spx_status st = cnt ? SPX_OK : spx_fail_nomem(A->ctx, "halo lists");
    if ((st = dist_agree(A->comm, A->ctx, st))) goto done;
    int *give = cnt, *ndisp = cnt + P, *gdisp = cnt + 2 * P;
    MPI_Alltoall(need, 1, MPI_INT, give, 1, MPI_INT, A->comm);
    int64_t total = 0, noff = 0;
    for (size_t r = 0; r < P; r++) {
        ndisp[r] = (int)noff;
        noff += need[r];
        gdisp[r] = (int)total;
        total += give[r];
        A->nsend += give[r] > 0;
    }
    recv_cols = spx_malloc_array(A->ctx, total ? (size_t)total : 1, sizeof *recv_cols);
    A->send_idx = spx_malloc_array(A->ctx, total ? (size_t)total : 1, sizeof *A->send_idx);
    A->send_rank = spx_malloc_array(A->ctx, (size_t)A->nsend + 1, sizeof *A->send_rank);
    A->send_off = spx_malloc_array(A->ctx, (size_t)A->nsend + 1, sizeof *A->send_off);
    if (!recv_cols || !A->send_idx || !A->send_rank || !A->send_off) st = spx_fail_nomem(A->ctx, "halo lists");
    if ((st = dist_agree(A->comm, A->ctx, st))) goto done;
    MPI_Alltoallv(A->ghost_col, need, ndisp, MPI_INT64_T, recv_cols, give, gdisp, MPI_INT64_T, A->comm);
    const int64_t col_lo = A->col_start[A->rank];
    for (int64_t k = 0; k < total; k++) A->send_idx[k] = (int32_t)(recv_cols[k] - col_lo);
    int i = 0;
    for (size_t r = 0; r < P; r++) {
        if (!give[r]) continue;
        A->send_rank[i] = (int)r;
        A->send_off[i++] = gdisp[r];
    }
    A->send_off[i] = total;
done:
    spx_free(A->ctx, recv_cols);
    spx_free(A->ctx, cnt);
    return st;
}

/* The halo's lists (both sides) and buffers. Collective. */
static spx_status halo_setup(spx_dist_matrix *A)
{
    int *need = spx_calloc_array(A->ctx, (size_t)A->size, sizeof *need);
    spx_status st = dist_agree(A->comm, A->ctx, need ? recv_lists(A, need) : spx_fail_nomem(A->ctx, "halo lists"));
    if (!st) st = send_lists(A, need);
    spx_free(A->ctx, need);
    if (st) return st;
    const int64_t nsend = A->send_off[A->nsend];
    A->send_buf = spx_malloc_array(A->ctx, nsend ? (size_t)nsend : 1, sizeof *A->send_buf);
    A->ghost_host = spx_calloc_array(A->ctx, A->nghost ? (size_t)A->nghost : 1, sizeof *A->ghost_host);
    A->req = spx_malloc_array(A->ctx, (size_t)(A->nrecv + A->nsend) + 1, sizeof *A->req);
    if (!A->send_buf || !A->ghost_host || !A->req) st = spx_fail_nomem(A->ctx, "halo buffers");
    return dist_agree(A->comm, A->ctx, st);
}

/* An int32 array of n entries copied to a new device array *dev (nothing when n is 0). */
static spx_status upload_i32(spx_ctx *ctx, const int32_t *host, size_t n, int32_t **dev)
{
    if (!n) return SPX_OK;
    spx_status st = spx_cuda_malloc(ctx, (void **)dev, n * sizeof **dev);
    return st ? st : spx_cuda_h2d(ctx, *dev, host, n * sizeof *host);
}

/* CUDA: the halo's packing on the device (indices, packed values), the compressed rows' list
 * there, the ghost vector, and the host buffers page-locked so that the staging copies run at
 * the link's speed (when the driver refuses, they stay pageable and still work). */
static spx_status cuda_buffers(spx_dist_matrix *A)
{
    const size_t nsend = (size_t)A->send_off[A->nsend];
    spx_status st = upload_i32(A->ctx, A->send_idx, nsend, &A->send_idx_dev);
    if (!st && nsend) st = spx_cuda_malloc(A->ctx, (void **)&A->send_dev, nsend * sizeof *A->send_dev);
    if (!st && A->offd_row) st = upload_i32(A->ctx, A->offd_row, (size_t)A->offd->m, &A->offd_row_dev);
    if (st) return st;
    if (nsend && A->nghost) {
        A->halo_pinned = spx_cuda_host_register(A->ctx, A->send_buf, nsend * sizeof *A->send_buf);
        if (A->halo_pinned && !spx_cuda_host_register(A->ctx, A->ghost_host, (size_t)A->nghost * sizeof *A->ghost_host)) {
            spx_cuda_host_unregister(A->send_buf);
            A->halo_pinned = 0;
        }
    }
    return spx_vec_create(A->ctx, SPX_BACKEND_CUDA, SPX_FP64, A->nghost, &A->ghost);
}

/* The blocks' plans (a block without entries gets none), the ghost vector, the compressed
 * off-diagonal rows' products and, for CUDA, the halo's device and page-locked buffers. */
static spx_status make_plans(spx_dist_matrix *A, const spx_plan_opts *po)
{
    spx_plan_opts o = po ? *po : (spx_plan_opts){0};
    spx_status st = spx_ctx_resolve_backend(A->ctx, o.backend, &A->backend);
    if (st) return st;
    o.backend = A->backend;
    o.order = SPX_ORDER_CALLER; /* the halo exchange and the ranks' vectors use the caller's numbering */
    if (o.precision != SPX_FP64)
        return spx_fail(A->ctx, SPX_ERR_UNSUPPORTED, "distributed: fp64 only (fp32 plans are not wired into the halo)");
    if (A->diag->nnz && (st = spx_plan_create(A->ctx, A->diag, &o, &A->plan_diag))) return st;
    if (A->offd->nnz && (st = spx_plan_create(A->ctx, A->offd, &o, &A->plan_offd))) return st;
    if (A->offd_row && (st = spx_vec_create(A->ctx, A->backend, SPX_FP64, A->offd->m, &A->offd_y))) return st;
    if (A->backend == SPX_BACKEND_CUDA) return cuda_buffers(A);
    return spx_vec_wrap(A->ctx, SPX_BACKEND_CPU, SPX_FP64, A->nghost, A->nghost ? A->ghost_host : NULL, &A->ghost);
}

/* A new matrix shell on a duplicate of comm with the partitions (columns like the rows when
 * square, else equal blocks). */
static spx_status dist_shell(MPI_Comm comm, spx_ctx *ctx, int64_t m, int64_t n, const int64_t *row_start, spx_dist_matrix **out)
{
    MPI_Comm dup;
    MPI_Comm_dup(comm, &dup); /* first: collective, so every rank reaches it */
    spx_dist_matrix *A = spx_calloc_array(ctx, 1, sizeof *A);
    if (!A) {
        MPI_Comm_free(&dup);
        return spx_fail_nomem(ctx, "distributed matrix");
    }
    *out = A;
    A->ctx = ctx;
    A->comm = dup;
    dist_where(A->comm, &A->rank, &A->size);
    A->m = m;
    A->n = n;
    A->partition = "rows";
    A->row_start = spx_malloc_array(ctx, (size_t)A->size + 1, sizeof *A->row_start);
    A->col_start = spx_malloc_array(ctx, (size_t)A->size + 1, sizeof *A->col_start);
    if (!A->row_start || !A->col_start) return spx_fail_nomem(ctx, "distributed matrix");
    for (int r = 0; r <= A->size; r++) {
        A->row_start[r] = row_start[r];
        A->col_start[r] = m == n ? row_start[r] : dist_block_start(n, r, A->size);
    }
    A->nrows = row_start[A->rank + 1] - row_start[A->rank];
    A->ncols = A->col_start[A->rank + 1] - A->col_start[A->rank];
    return SPX_OK;
}

/* MPI point-to-point: "mpi" (device buffers when every rank's MPI is CUDA-aware, else host
 * staging), "mpi-host" (host staging) or "mpi-device" (device buffers; refused without a
 * CUDA-aware MPI or for a CPU matrix). Collective. */
static spx_status use_mpi(spx_dist_matrix *A, const char *transport)
{
    char why[192] = "";
    const int aware = dist_mpi_cuda_aware(A->comm, why, sizeof why), cuda = A->backend == SPX_BACKEND_CUDA;
    if (!strcmp(transport, "mpi-device") && !(cuda && aware))
        return spx_fail(A->ctx, SPX_ERR_UNSUPPORTED, "transport mpi-device: %s",
                        cuda ? why : "the matrix runs on the CPU; device buffers need a CUDA matrix");
    dist_nccl_destroy(&A->nccl);
    A->mpi_device = cuda && aware && strcmp(transport, "mpi-host");
    return SPX_OK;
}

spx_status dist_build(MPI_Comm comm, spx_ctx *ctx, int64_t m, int64_t n, const int64_t *row_start, spx_csr *local,
                      const spx_plan_opts *po, spx_dist_matrix **out)
{
    spx_dist_matrix *A = NULL;
    spx_status st = dist_shell(comm, ctx, m, n, row_start, &A);
    if (!st && local->m != A->nrows)
        st = spx_fail(ctx, SPX_ERR_ARG, "distributed: rank %d holds %d rows, its block has %lld", A->rank, local->m,
                      (long long)A->nrows);
    if (!st) st = split_blocks(A, local);
    spx_csr_destroy(&local);
    if (!(st = dist_agree(comm, ctx, st))) st = halo_setup(A);
    if (!st) st = dist_agree(comm, ctx, make_plans(A, po));
    if (!st) st = use_mpi(A, "mpi"); /* the default: device buffers where the MPI takes them */
    if (st) {
        spx_dist_destroy(&A);
        return st;
    }
    *out = A;
    return SPX_OK;
}

spx_status spx_dist_create_from_rows(MPI_Comm comm, spx_ctx *ctx, int64_t n, int32_t nrows, const int64_t *rowptr,
                                     const int32_t *colind, const double *val, const spx_plan_opts *po,
                                     spx_dist_matrix **out)
{
    if (!ctx) return SPX_ERR_ARG;
    int size = 1, rank = 0;
    dist_where(comm, &rank, &size);
    spx_status st = SPX_OK;
    if (!out || nrows < 0 || n < 0 || n > INT32_MAX || (nrows && !rowptr))
        st = spx_fail(ctx, SPX_ERR_ARG, "spx_dist_create_from_rows: rank %d: bad arguments (NULL, or sizes out of range)", rank);
    const int64_t nnz = !st && nrows ? rowptr[nrows] - rowptr[0] : 0;
    spx_coo coo = {.m = nrows, .n = (int32_t)n, .nnz = nnz, .ctx = ctx};
    spx_csr *local = NULL;
    int64_t *row_start = spx_calloc_array(ctx, (size_t)size + 1, sizeof *row_start);
    if (!st && !row_start) st = spx_fail_nomem(ctx, "row partition");
    if (!st) { /* COO -> CSR sorts each row's columns and sums duplicates, as the reader does */
        coo.row = spx_malloc_array(ctx, nnz ? (size_t)nnz : 1, sizeof *coo.row);
        coo.col = (int32_t *)colind;
        coo.val = (double *)val;
        if (!coo.row) st = spx_fail_nomem(ctx, "rows");
        for (int64_t i = 0; !st && i < nrows; i++)
            for (int64_t e = rowptr[i]; e < rowptr[i + 1]; e++) coo.row[e - rowptr[0]] = (int32_t)i;
        if (!st) {
            coo.col = (int32_t *)colind + rowptr[0];
            coo.val = (double *)val + rowptr[0];
            st = spx_coo_to_csr(ctx, &coo, 0, NULL, &local);
        }
    }
    if (!(st = dist_agree(comm, ctx, st))) {
        int64_t mine = nrows; /* every rank's row count, then their prefix */
        MPI_Allgather(&mine, 1, MPI_INT64_T, row_start + 1, 1, MPI_INT64_T, comm);
        for (int r = 0; r < size; r++) row_start[r + 1] += row_start[r];
        if (row_start[size] > INT32_MAX) st = spx_fail(ctx, SPX_ERR_OVERFLOW, "spx_dist_create_from_rows: %lld rows", (long long)row_start[size]);
        else st = dist_build(comm, ctx, row_start[size], n, row_start, local, po, out);
        local = NULL;
    }
    spx_csr_destroy(&local);
    spx_free(ctx, coo.row);
    spx_free(ctx, row_start);
    return st;
}

void spx_dist_destroy(spx_dist_matrix **pA)
{
    if (!pA || !*pA) return;
    spx_dist_matrix *A = *pA;
    spx_ctx *ctx = A->ctx;
    dist_nccl_destroy(&A->nccl);
    spx_plan_destroy(&A->plan_diag);
    spx_plan_destroy(&A->plan_offd);
    spx_vec_destroy(&A->ghost);
    spx_csr_destroy(&A->diag);
    spx_csr_destroy(&A->offd);
    spx_vec_destroy(&A->offd_y);
    if (A->halo_pinned) {
        spx_cuda_host_unregister(A->send_buf);
        spx_cuda_host_unregister(A->ghost_host);
    }
    void *dev[] = {A->send_idx_dev, A->send_dev, A->offd_row_dev};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        if (dev[i]) spx_cuda_free(ctx, dev[i]);
    void *arrays[] = {A->row_start, A->col_start, A->ghost_col, A->recv_rank, A->send_rank, A->recv_off,
                      A->send_off, A->send_idx, A->send_buf, A->ghost_host, A->req, A->offd_row, A->row_orig};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) spx_free(ctx, arrays[i]);
    if (A->comm != MPI_COMM_NULL) MPI_Comm_free(&A->comm);
    spx_free(ctx, A);
    *pA = NULL;
}

/* The format/algorithm of plan p into buf ("-" without a plan); its bytes per SpMV added to *bytes. */
static void plan_name(const spx_plan *p, char *buf, size_t len, double *bytes)
{
    spx_plan_info pi;
    if (p && spx_plan_get_info(p, &pi) == SPX_OK) {
        snprintf(buf, len, "%s/%s", pi.format, pi.algo);
        *bytes += pi.bytes_per_spmv;
    } else {
        snprintf(buf, len, "-");
    }
}

spx_status spx_dist_get_info(const spx_dist_matrix *A, spx_dist_info *out)
{
    if (!A || !out) return SPX_ERR_ARG;
    memset(out, 0, sizeof *out);
    out->rank = A->rank;
    out->size = A->size;
    out->m = A->m;
    out->n = A->n;
    out->row_lo = A->row_start[A->rank];
    out->nrows = A->nrows;
    out->col_lo = A->col_start[A->rank];
    out->ncols = A->ncols;
    out->nnz_diag = A->diag->nnz;
    out->nnz_offd = A->offd->nnz;
    out->nnz = out->nnz_diag + out->nnz_offd;
    out->ghosts = A->nghost;
    out->offd_rows = A->offd->m;
    out->send_neighbours = A->nsend;
    out->recv_neighbours = A->nrecv;
    out->send_values = A->send_off[A->nsend];
    out->recv_values = A->nghost;
    plan_name(A->plan_diag, out->format_diag, sizeof out->format_diag, &out->bytes_per_spmv);
    plan_name(A->plan_offd, out->format_offd, sizeof out->format_offd, &out->bytes_per_spmv);
    if (A->offd_row) /* the compressed rows' products added into y: z and the row read, y read and written */
        out->bytes_per_spmv += (double)A->offd->m * (2 * sizeof(double) + sizeof(int32_t) + sizeof(double));
    out->backend = A->backend;
    out->partition = A->partition;
    out->transport = A->nccl         ? "NCCL send/recv, device to device (its own stream, no host wait)"
                     : A->mpi_device ? "MPI point-to-point, device buffers (CUDA-aware MPI)"
                     : A->backend == SPX_BACKEND_CUDA
                         ? "MPI point-to-point, host-staged (packed on the device, copied to the host and back)"
                         : "MPI point-to-point (Isend/Irecv, neighbours only)";
    return SPX_OK;
}

spx_status spx_dist_get_rows(const spx_dist_matrix *A, int64_t *global_rows)
{
    if (!A || (!global_rows && A->nrows)) return SPX_ERR_ARG;
    for (int64_t i = 0; i < A->nrows; i++) global_rows[i] = A->row_orig ? A->row_orig[i] : A->row_start[A->rank] + i;
    return SPX_OK;
}

void spx_dist_get_times(const spx_dist_matrix *A, spx_dist_times *out)
{
    *out = A->times;
}

void spx_dist_reset_times(spx_dist_matrix *A)
{
    memset(&A->times, 0, sizeof A->times);
}

int spx_dist_node_rank(MPI_Comm comm)
{
    MPI_Comm node;
    int r = 0;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &r);
    MPI_Comm_free(&node);
    return r;
}

int spx_dist_device(MPI_Comm comm)
{
    const int r = spx_dist_node_rank(comm), count = spx_cuda_device_count();
    return count > 0 ? r % count : 0;
}

/* The NCCL communicator of A's ranks: rank 0's unique id broadcast, every rank joined. */
static spx_status join_nccl(spx_dist_matrix *A)
{
    unsigned char id[DIST_NCCL_ID_BYTES] = {0};
    spx_status st = A->rank == 0 ? dist_nccl_unique_id(A->ctx, id) : SPX_OK;
    if ((st = dist_agree(A->comm, A->ctx, st))) return st;
    MPI_Bcast(id, DIST_NCCL_ID_BYTES, MPI_BYTE, 0, A->comm);
    return dist_agree(A->comm, A->ctx, dist_nccl_create(A->ctx, id, A->size, A->rank, &A->nccl));
}

spx_status spx_dist_set_transport(spx_dist_matrix *A, const char *transport)
{
    if (!A) return SPX_ERR_ARG;
    if (transport && (!strcmp(transport, "mpi") || !strcmp(transport, "mpi-host") || !strcmp(transport, "mpi-device")))
        return use_mpi(A, transport);
    if (!transport || strcmp(transport, "nccl"))
        return spx_fail(A->ctx, SPX_ERR_ARG,
                        "spx_dist_set_transport: '%s' is not a transport (mpi, mpi-host, mpi-device or nccl)",
                        transport ? transport : "(null)");
    if (dist_nccl_why()[0])
        return spx_fail(A->ctx, SPX_ERR_UNSUPPORTED, "transport nccl: not built: %s", dist_nccl_why());
    if (A->backend != SPX_BACKEND_CUDA)
        return spx_fail(A->ctx, SPX_ERR_UNSUPPORTED, "transport nccl: the matrix runs on the %s; NCCL moves device halos",
                        spx_backend_str(A->backend));
    if (A->nccl) return SPX_OK;
    A->mpi_device = 0;
    return join_nccl(A);
}
