/* src/solve/jacobi.c: the Jacobi preconditioner's data: 1/A(i,i) from the CSR a plan was made
 * from, as a vector shaped for that plan (in its numbering when it keeps vectors in its own
 * order); a row without a usable diagonal is refused by name. */
#include <float.h>
#include <math.h>

#include "core/ctx.h"

/* A(i,i) of row i (entries in any order, duplicates summed); *stored = whether it has one. */
static double diag_entry(const spx_csr *A, int32_t i, int *stored)
{
    double d = 0.0;
    *stored = 0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        if (A->colind[k] == i) {
            d += A->val[k];
            *stored = 1;
        }
    return d;
}

/* Whether 1/d is usable in precision p: d stored, nonzero, finite, its inverse neither
 * overflowing nor flushed to 0 there. */
static int usable(double d, int stored, spx_precision p)
{
    const double big = p == SPX_FP32 ? FLT_MAX : DBL_MAX, tiny = p == SPX_FP32 ? FLT_TRUE_MIN : DBL_TRUE_MIN;
    return stored && d != 0.0 && isfinite(d) && fabs(1.0 / d) <= big && fabs(1.0 / d) >= tiny;
}

/* SPX_ERR_ARG naming row i (0-based here, 1-based in the message) and what is wrong with it. */
static spx_status refuse_row(spx_ctx *ctx, const spx_csr *A, int32_t i, spx_precision p)
{
    int stored;
    const double d = diag_entry(A, i, &stored);
    const long long r = (long long)i + 1;
    if (!stored) return spx_fail(ctx, SPX_ERR_ARG, "Jacobi: row %lld has no diagonal entry A(%lld,%lld) (1-based)", r, r, r);
    if (d == 0.0)
        return spx_fail(ctx, SPX_ERR_ARG, "Jacobi: zero diagonal entry A(%lld,%lld) = 0 in row %lld (1-based)", r, r, r);
    if (!isfinite(d))
        return spx_fail(ctx, SPX_ERR_ARG, "Jacobi: diagonal entry A(%lld,%lld) = %g in row %lld (1-based) is not finite", r, r, d,
                        r);
    return spx_fail(ctx, SPX_ERR_ARG, "Jacobi: 1/A(%lld,%lld) = 1/%g in row %lld (1-based) is not representable in %s", r, r, d,
                    r, spx_precision_str(p));
}

/* inv[i] = 1/A(r,r) for r = perm[i] (the plan's numbering; perm NULL: r = i) in parallel;
 * returns the first row r that has no usable diagonal, or m. */
static int32_t invert_diagonal(spx_ctx *ctx, const spx_csr *A, const int32_t *perm, spx_precision p, double *inv)
{
    int32_t bad = A->m;
#pragma omp parallel for num_threads(spx_ctx_threads(ctx)) reduction(min : bad) schedule(static)
    for (int32_t i = 0; i < A->m; i++) {
        const int32_t r = perm ? perm[i] : i;
        int stored;
        const double d = diag_entry(A, r, &stored);
        if (usable(d, stored, p))
            inv[i] = 1.0 / d;
        else if (r < bad)
            bad = r;
    }
    return bad;
}

spx_status spx_solve_inv_diag(spx_ctx *ctx, const spx_csr *A, const spx_plan *plan, spx_vec **out)
{
    if (!ctx || !A || !plan || !out) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_solve_inv_diag: NULL argument") : SPX_ERR_ARG;
    spx_plan_info info;
    spx_status s = spx_plan_get_info(plan, &info);
    if (s) return spx_fail(ctx, s, "spx_solve_inv_diag: the plan cannot be read");
    if (A->m != A->n || A->m != info.m || A->n != info.n)
        return spx_fail(ctx, SPX_ERR_ARG,
                        "spx_solve_inv_diag: Jacobi needs the square matrix of the plan: A is %d x %d, the plan %d x %d", A->m,
                        A->n, info.m, info.n);
    double *inv = spx_malloc_array(ctx, A->m > 0 ? (size_t)A->m : 1, sizeof *inv);
    if (!inv) return spx_fail_nomem(ctx, "the inverse diagonal of the Jacobi preconditioner");
    const int32_t *perm = NULL;
    spx_plan_permutation(plan, &perm);
    const int32_t bad = invert_diagonal(ctx, A, perm, info.precision, inv);
    spx_vec *v = NULL;
    if (bad < A->m)
        s = refuse_row(ctx, A, bad, info.precision);
    else if (!(s = spx_vec_create(ctx, info.backend, info.precision, A->m, &v)))
        s = spx_vec_set(v, inv);
    spx_free(ctx, inv);
    if (s)
        spx_vec_destroy(&v);
    else
        *out = v;
    return s;
}
