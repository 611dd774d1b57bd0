/* src/solve/cg.c: conjugate gradients for symmetric positive definite A, optionally with the
 * Jacobi preconditioner (Hestenes & Stiefel 1952; Saad, "Iterative Methods for Sparse Linear
 * Systems", 2nd ed., Algorithm 9.1), over spx_plan_apply and the vector operations. */
#include <math.h>

#include "solve/solve_common.h"
#include "vec/vec_internal.h"

/* The work vectors: residual (first: solve_drive's w[0]), direction, A*direction, the
 * preconditioned residual (Jacobi only, so last). */
enum { CG_R, CG_P, CG_Q, CG_Z, CG_WORK };
_Static_assert(CG_R == 0 && CG_WORK <= SOLVE_MAX_WORK, "the residual first, within the work limit");

/* Whether rz = (r, z) ends the solve at iteration k: not finite, or <= 0, which with r != 0
 * means the preconditioner is not positive definite. */
static int rz_breaks(solve_run *s, double rz, int k)
{
    if (solve_nonfinite(s, rz, "(r, z)", k)) return 1;
    if (rz > 0.0) return 0;
    return solve_breakdown(s, SPX_SOLVE_BREAKDOWN_RHO,
                           "(r, z) = %.3e <= 0 at iteration %d: the preconditioner is not positive definite", rz, k);
}

/* The iterations after the initial residual in w[CG_R]; *hit_cap = 1 when the cap ends them. */
static spx_status cg_iterate(solve_run *s, spx_vec **w, int *hit_cap)
{
    spx_vec *r = w[CG_R], *p = w[CG_P], *q = w[CG_Q];
    const int pre = s->o.precond != SPX_PRECOND_NONE;
    spx_vec *z = pre ? w[CG_Z] : r;
    spx_status st = SPX_OK;
    double rz = 0.0, pq = 0.0;
    SOLVE_TRY(solve_precond(s, r, z));
    SOLVE_TRY(solve_dot(s, r, z, &rz));
    if (rz_breaks(s, rz, 0)) goto done;
    SOLVE_TRY(spx_vec_copy(p, z));
    for (int k = 1; k <= s->o.max_iter; k++) {
        SOLVE_TRY(solve_apply(s, p, q));
        SOLVE_TRY(solve_dot(s, p, q, &pq));
        if (solve_nonfinite(s, pq, "p'Ap", k)) break;
        if (pq <= 0.0) {
            solve_breakdown(s, SPX_SOLVE_BREAKDOWN_PAP, "p'Ap = %.3e <= 0 at iteration %d: A is not symmetric positive definite",
                            pq, k);
            break;
        }
        const double alpha = rz / pq;
        SOLVE_TRY(spx_vec_axpby(alpha, p, 1.0, s->x));
        SOLVE_TRY(spx_vec_axpby(-alpha, q, 1.0, r));
        double rz_new = 0.0, rnorm = 0.0;
        if (pre) {
            SOLVE_TRY(solve_precond(s, r, z));
            SOLVE_TRY(solve_dot(s, r, z, &rz_new));
            SOLVE_TRY(solve_nrm2(s, r, &rnorm));
        } else { /* (r, r) serves both: one reduction, one synchronisation on the GPU */
            SOLVE_TRY(solve_dot(s, r, r, &rz_new));
            rnorm = sqrt(rz_new);
        }
        if (solve_record(s, k, rnorm / s->bnorm) || rz_breaks(s, rz_new, k)) break;
        if (k == s->o.max_iter) {
            *hit_cap = 1;
            break;
        }
        SOLVE_TRY(spx_vec_axpby(1.0, z, rz_new / rz, p)); /* p = z + beta p */
        rz = rz_new;
    }
done:
    return st;
}

spx_status solve_cg_space(const char *fn, const solve_space *sp, const spx_vec *b, spx_vec *x, const spx_solve_opts *opts,
                          spx_solve_result *res)
{
    return solve_drive(fn, cg_iterate, CG_Z, CG_WORK, sp, b, x, opts, res);
}

spx_status spx_solve_cg(spx_plan *A, const spx_vec *b, spx_vec *x, const spx_solve_opts *opts, spx_solve_result *res)
{
    solve_space sp;
    spx_status st = solve_plan_space(spx_vec_ctx(b ? b : x), "spx_solve_cg", A, &sp);
    return st ? st : solve_cg_space("spx_solve_cg", &sp, b, x, opts, res);
}
