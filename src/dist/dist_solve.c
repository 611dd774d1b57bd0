/* src/dist/dist_solve.c: CG and BiCGSTAB over the distributed matrix: src/solve's solvers run
 * on a space whose operator is spx_dist_spmv and whose inner products add every rank's part.
 * The parts are gathered (MPI_Allgather) and summed in rank order on every rank, so all ranks
 * hold the same bits and take the same branches (MPI_Allreduce does not promise equal results
 * on every rank). An error on one rank travels with the next reduction, so every rank stops at
 * the same point with the same status. */
#include <math.h>
#include <stdio.h>

#include "dist/dist_internal.h"
#include "solve/solve_common.h"

/* The space's state: the matrix, an operator error not yet shared with the other ranks, and
 * the reductions' buffer (every rank's (value, failed) pair: 2 * size doubles). */
typedef struct dist_space {
    spx_dist_matrix *A;
    spx_status pending;
    double *parts;
} dist_space;

/* spx_dist_spmv as the space's operator; an error waits for the next reduction (every apply is
 * followed by one), so the ranks keep in step. */
static spx_status space_apply(void *user, double a, const spx_vec *x, double b, spx_vec *y)
{
    dist_space *d = user;
    spx_status st = spx_dist_spmv(d->A, a, x, b, y);
    if (st && !d->pending) d->pending = st;
    return SPX_OK;
}

/* Gathers every rank's (value, failed) pair into all (2 * size doubles); the agreed status. */
static spx_status gather_parts(dist_space *d, double value, spx_status st, double *all)
{
    if (!st) st = d->pending;
    const double mine[2] = {value, st ? 1.0 : 0.0};
    MPI_Allgather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, d->A->comm);
    int failed = 0;
    for (int r = 0; r < d->A->size; r++) failed |= all[2 * r + 1] != 0.0;
    if (!failed) return SPX_OK;
    d->pending = SPX_OK;
    return dist_agree(d->A->comm, d->A->ctx, st);
}

/* The global (x, y): local dots added in rank order. */
static spx_status space_dot(void *user, const spx_vec *x, const spx_vec *y, double *out)
{
    dist_space *d = user;
    double local = 0.0;
    spx_status st = spx_vec_dot(x, y, &local);
    if (!(st = gather_parts(d, local, st, d->parts))) {
        double s = 0.0;
        for (int r = 0; r < d->A->size; r++) s += d->parts[2 * r];
        *out = s;
    }
    return st;
}

/* The global ||x||: the local norms combined as max * sqrt(sum (norm/max)^2), which neither
 * overflows nor underflows where the norm is representable; NaN and Inf carried through. */
static spx_status space_nrm2(void *user, const spx_vec *x, double *out)
{
    dist_space *d = user;
    const double *parts = d->parts;
    double local = 0.0;
    spx_status st = spx_vec_nrm2(x, &local);
    if (!(st = gather_parts(d, local, st, d->parts))) {
        double mx = 0.0, s = 0.0;
        for (int r = 0; r < d->A->size; r++) mx = isnan(parts[2 * r]) || parts[2 * r] > mx ? parts[2 * r] : mx;
        for (int r = 0; isfinite(mx) && mx > 0.0 && r < d->A->size; r++) s += (parts[2 * r] / mx) * (parts[2 * r] / mx);
        *out = isfinite(mx) && mx > 0.0 ? mx * sqrt(s) : mx;
    }
    return st;
}

/* The ranks' statuses after the solver's checks and work vectors, agreed (solve_space.agree). */
static spx_status space_agree(void *user, spx_status st)
{
    const dist_space *d = user;
    return dist_agree(d->A->comm, d->A->ctx, st);
}

/* The space of A (square) with its reductions' buffer (d->parts, the caller frees it); the
 * status agreed across ranks: SPX_ERR_ARG when A is not square, out of memory on any rank. */
static spx_status dist_space_of(spx_dist_matrix *A, const char *fn, dist_space *d, solve_space *sp)
{
    d->A = A;
    d->pending = SPX_OK;
    d->parts = spx_malloc_array(A->ctx, 2 * (size_t)A->size, sizeof *d->parts);
    *sp = (solve_space){.apply = space_apply, .dot = space_dot, .nrm2 = space_nrm2, .agree = space_agree, .user = d, .n = A->nrows,
                        .backend = A->backend, .precision = SPX_FP64};
    spx_status st = SPX_OK;
    if (A->m != A->n)
        st = spx_fail(A->ctx, SPX_ERR_ARG, "%s: a solve needs a square matrix, this one is %lld x %lld", fn,
                      (long long)A->m, (long long)A->n);
    else if (!d->parts)
        st = spx_fail_nomem(A->ctx, "reduction buffer");
    return dist_agree(A->comm, A->ctx, st);
}

/* Runs solver over A's space; the status agreed across ranks. */
static spx_status dist_solve(const char *fn,
                             spx_status (*solver)(const char *, const solve_space *, const spx_vec *, spx_vec *,
                                                  const spx_solve_opts *, spx_solve_result *),
                             spx_dist_matrix *A, const spx_vec *b, spx_vec *x, const spx_solve_opts *opts, spx_solve_result *res)
{
    if (!A) return SPX_ERR_ARG;
    dist_space d;
    solve_space sp;
    spx_status st = dist_space_of(A, fn, &d, &sp); /* the same on every rank */
    if (!st) st = solver(fn, &sp, b, x, opts, res);  /* agreed before it iterates; then in step */
    if (!st) st = d.pending;
    spx_free(A->ctx, d.parts);
    return dist_agree(A->comm, A->ctx, st);
}

spx_status spx_dist_solve_cg(spx_dist_matrix *A, const spx_vec *b, spx_vec *x, const spx_solve_opts *opts,
                             spx_solve_result *res)
{
    return dist_solve("spx_dist_solve_cg", solve_cg_space, A, b, x, opts, res);
}

spx_status spx_dist_solve_bicgstab(spx_dist_matrix *A, const spx_vec *b, spx_vec *x, const spx_solve_opts *opts,
                                   spx_solve_result *res)
{
    return dist_solve("spx_dist_solve_bicgstab", solve_bicgstab_space, A, b, x, opts, res);
}

spx_status spx_dist_inv_diag(spx_dist_matrix *A, spx_vec **out)
{
    if (!A || !out) return SPX_ERR_ARG;
    *out = NULL;
    spx_status st = SPX_OK;
    if (A->m != A->n)
        st = spx_fail(A->ctx, SPX_ERR_ARG, "spx_dist_inv_diag: a %lld x %lld matrix has no Jacobi preconditioner", (long long)A->m,
                      (long long)A->n);
    else if (A->nrows == 0)
        st = spx_vec_create(A->ctx, A->backend, SPX_FP64, 0, out);
    else if (!A->plan_diag)
        st = spx_fail(A->ctx, SPX_ERR_ARG, "spx_dist_inv_diag: row %lld has no diagonal entry", (long long)A->row_start[A->rank] + 1);
    else if ((st = spx_solve_inv_diag(A->ctx, A->diag, A->plan_diag, out))) {
        char msg[SPX_ERRMSG_LEN];
        snprintf(msg, sizeof msg, "%s", spx_ctx_last_error(A->ctx));
        spx_fail(A->ctx, st, "rank %d, whose rows start at %lld (1-based: add it minus 1 to the row named): %s", A->rank,
                 (long long)A->row_start[A->rank] + 1, msg);
    }
    st = dist_agree(A->comm, A->ctx, st);
    if (st) spx_vec_destroy(out);
    return st;
}
