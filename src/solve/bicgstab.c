/* src/solve/bicgstab.c: BiCGSTAB for general nonsingular A (van der Vorst, SIAM J. Sci. Stat.
 * Comput. 13(2), 1992; right-preconditioned as in Saad, "Iterative Methods for Sparse Linear
 * Systems", 2nd ed., Algorithm 7.7 with M^-1 applied to p and s), over spx_plan_apply and the
 * vector operations. */
#include <float.h>
#include <math.h>

#include "solve/solve_common.h"
#include "vec/vec_internal.h"

/* The work vectors: residual (s in place at the half step; first: solve_drive's w[0]), the
 * shadow residual r0^, the direction, A*p^, A*s^, and with Jacobi (so last) the
 * preconditioned p^ and s^. */
enum { BI_R, BI_RHAT, BI_P, BI_V, BI_T, BI_PHAT, BI_SHAT, BI_WORK };
_Static_assert(BI_R == 0 && BI_WORK <= SOLVE_MAX_WORK, "the residual first, within the work limit");

/* The scalars carried from one iteration to the next. */
typedef struct bi_scalars {
    double rho_old, alpha, omega;
} bi_scalars;

/* p = r (first iteration) or r + beta (p - omega v); whether rho = (r0^, r) ended the solve:
 * not finite, or 0 to rounding (|rho| <= eps ||r0^|| ||r||, the error bound of the dot product
 * up to a factor n: below it rho's value and sign are noise, and the iterates after it too). */
static spx_status new_direction(solve_run *s, spx_vec **w, int k, double rho, const bi_scalars *c, int *ended)
{
    spx_status st = SPX_OK;
    const double noise = DBL_EPSILON * s->r0norm * (s->res->rel_residual * s->bnorm);
    *ended = solve_nonfinite(s, rho, "rho = (r0^, r)", k);
    if (!*ended && fabs(rho) <= noise)
        *ended = solve_breakdown(s, SPX_SOLVE_BREAKDOWN_RHO,
                                 "rho = (r0^, r) = %.3e at iteration %d, 0 to rounding (|rho| <= eps ||r0^|| ||r|| = %.3e): r is "
                                 "orthogonal to the shadow residual",
                                 rho, k, noise);
    if (*ended) return SPX_OK;
    if (k == 1) return spx_vec_copy(w[BI_P], w[BI_R]);
    SOLVE_TRY(spx_vec_axpby(-c->omega, w[BI_V], 1.0, w[BI_P]));
    SOLVE_TRY(spx_vec_axpby(1.0, w[BI_R], (rho / c->rho_old) * (c->alpha / c->omega), w[BI_P]));
done:
    return st;
}

/* omega = (t, s) / (t, t); whether it ended the solve at iteration k (not finite, t = 0, or 0). */
static int omega_breaks(solve_run *s, double tt, double ts, int k, double *omega)
{
    if (solve_nonfinite(s, tt, "(t, t)", k) || solve_nonfinite(s, ts, "(t, s)", k)) return 1;
    if (tt == 0.0)
        return solve_breakdown(s, SPX_SOLVE_BREAKDOWN_OMEGA,
                               "t = A s^ = 0 with s != 0 at iteration %d: A or the preconditioner is singular", k);
    *omega = ts / tt;
    if (*omega != 0.0) return 0;
    return solve_breakdown(s, SPX_SOLVE_BREAKDOWN_OMEGA, "omega = (t, s) / (t, t) = 0 at iteration %d: the iteration stagnates",
                           k);
}

/* The iterations after the initial residual in w[BI_R]; *hit_cap = 1 when the cap ends them. */
static spx_status bicgstab_iterate(solve_run *s, spx_vec **w, int *hit_cap)
{
    spx_vec *r = w[BI_R], *rhat = w[BI_RHAT], *v = w[BI_V], *t = w[BI_T];
    const int pre = s->o.precond != SPX_PRECOND_NONE;
    spx_vec *phat = pre ? w[BI_PHAT] : w[BI_P], *shat = pre ? w[BI_SHAT] : r;
    spx_status st = SPX_OK;
    bi_scalars c = {1.0, 1.0, 1.0};
    SOLVE_TRY(spx_vec_copy(rhat, r));
    for (int k = 1; k <= s->o.max_iter; k++) {
        double rho = 0.0, rv = 0.0, norm = 0.0, tt = 0.0, ts = 0.0;
        int ended = 0;
        SOLVE_TRY(solve_dot(s, rhat, r, &rho));
        SOLVE_TRY(new_direction(s, w, k, rho, &c, &ended));
        if (ended) break;
        SOLVE_TRY(solve_precond(s, w[BI_P], phat));
        SOLVE_TRY(solve_apply(s, phat, v));
        SOLVE_TRY(solve_dot(s, rhat, v, &rv));
        if (solve_nonfinite(s, rv, "(r0^, v)", k)) break;
        if (rv == 0.0) {
            solve_breakdown(s, SPX_SOLVE_BREAKDOWN_RV, "(r0^, v) = 0 at iteration %d: alpha is undefined", k);
            break;
        }
        c.alpha = rho / rv;
        SOLVE_TRY(spx_vec_axpby(-c.alpha, v, 1.0, r)); /* r = s = r - alpha v */
        SOLVE_TRY(solve_nrm2(s, r, &norm));
        if (solve_nonfinite(s, norm, "||s||", k)) break;
        if (norm / s->bnorm <= s->o.tol) { /* converged at the half step: x + alpha p^ */
            SOLVE_TRY(spx_vec_axpby(c.alpha, phat, 1.0, s->x));
            solve_record(s, k, norm / s->bnorm);
            break;
        }
        SOLVE_TRY(solve_precond(s, r, shat));
        SOLVE_TRY(solve_apply(s, shat, t));
        SOLVE_TRY(solve_dot(s, t, t, &tt));
        SOLVE_TRY(solve_dot(s, t, r, &ts));
        if (omega_breaks(s, tt, ts, k, &c.omega)) break;
        SOLVE_TRY(spx_vec_axpby(c.alpha, phat, 1.0, s->x));
        SOLVE_TRY(spx_vec_axpby(c.omega, shat, 1.0, s->x));
        SOLVE_TRY(spx_vec_axpby(-c.omega, t, 1.0, r)); /* r = s - omega t */
        SOLVE_TRY(solve_nrm2(s, r, &norm));
        if (solve_record(s, k, norm / s->bnorm)) break;
        if (k == s->o.max_iter) {
            *hit_cap = 1;
            break;
        }
        c.rho_old = rho;
    }
done:
    return st;
}

spx_status solve_bicgstab_space(const char *fn, const solve_space *sp, const spx_vec *b, spx_vec *x,
                                const spx_solve_opts *opts, spx_solve_result *res)
{
    return solve_drive(fn, bicgstab_iterate, BI_PHAT, BI_WORK, sp, b, x, opts, res);
}

spx_status spx_solve_bicgstab(spx_plan *A, const spx_vec *b, spx_vec *x, const spx_solve_opts *opts, spx_solve_result *res)
{
    solve_space sp;
    spx_status st = solve_plan_space(spx_vec_ctx(b ? b : x), "spx_solve_bicgstab", A, &sp);
    return st ? st : solve_bicgstab_space("spx_solve_bicgstab", &sp, b, x, opts, res);
}
