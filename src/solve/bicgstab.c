/* src/solve/bicgstab.c: BiCGSTAB for general nonsingular A (van der Vorst, SIAM J. Sci. Stat.
 * Comput. 13(2), 1992; right-preconditioned as in Saad, "Iterative Methods for Sparse Linear
 * Systems", 2nd ed., Algorithm 7.7 with M^-1 applied to p and s): its work vectors, its
 * iteration as two SpMVs and five fused steps (solve_scalars.h: p, rv, s, t, r; (t, t) and
 * (t, s) in one pass), and those steps over a space's own operations. */
#include "solve/solve_common.h"
#include "vec/vec_internal.h"

/* The work vectors: residual (s in place at the half step; first: solve_drive's w[0]), the
 * shadow residual r0^, the direction, A*p^, A*s^, and with Jacobi (so last) the
 * preconditioned p^ and s^. */
enum { BI_R, BI_RHAT, BI_P, BI_V, BI_T, BI_PHAT, BI_SHAT, BI_WORK };
_Static_assert(BI_R == 0 && BI_WORK <= SOLVE_MAX_WORK, "the residual first, within the work limit");

/* The roles of the work vectors (p^ is p and s^ is r without a preconditioner). */
static void bi_roles(solve_iter *it, spx_vec **w, int jacobi)
{
    it->v[SOLVE_V_R] = w[BI_R];
    it->v[SOLVE_V_RHAT] = w[BI_RHAT];
    it->v[SOLVE_V_P] = w[BI_P];
    it->v[SOLVE_V_Q] = w[BI_V];
    it->v[SOLVE_V_T] = w[BI_T];
    it->v[SOLVE_V_PHAT] = jacobi ? w[BI_PHAT] : w[BI_P];
    it->v[SOLVE_V_SHAT] = jacobi ? w[BI_SHAT] : w[BI_R];
}

/* One iteration: the steps around v = A p^ and t = A s^; no decision on the host. */
static spx_status bi_body(solve_iter *it)
{
    spx_vec *const *v = it->v;
    spx_status st = SPX_OK;
    SOLVE_TRY(solve_step_run(it, SOLVE_BI_P));
    SOLVE_TRY(solve_apply(it, v[SOLVE_V_PHAT], v[SOLVE_V_Q]));
    SOLVE_TRY(solve_step_run(it, SOLVE_BI_RV));
    SOLVE_TRY(solve_step_run(it, SOLVE_BI_S));
    SOLVE_TRY(solve_apply(it, v[SOLVE_V_SHAT], v[SOLVE_V_T]));
    SOLVE_TRY(solve_step_run(it, SOLVE_BI_T));
    SOLVE_TRY(solve_step_run(it, SOLVE_BI_R));
done:
    return st;
}

/* p = r (first iteration) or r + beta (p - omega v), then p^ = M p. */
static spx_status space_direction(solve_iter *it)
{
    const solve_scalars *sc = it->sc;
    spx_vec *const *v = it->v;
    spx_status st = SPX_OK;
    if (sc->k == 1) {
        SOLVE_TRY(spx_vec_copy(v[SOLVE_V_P], v[SOLVE_V_R]));
    } else {
        SOLVE_TRY(spx_vec_axpby(-sc->omega, v[SOLVE_V_Q], 1.0, v[SOLVE_V_P]));
        SOLVE_TRY(spx_vec_axpby(1.0, v[SOLVE_V_R], sc->beta, v[SOLVE_V_P]));
    }
    SOLVE_TRY(solve_precond(it->s, v[SOLVE_V_P], v[SOLVE_V_PHAT]));
done:
    return st;
}

/* x's owed update (alpha p^, then omega s^), then r = s - omega t with ||r|| and (r0^, r) while
 * the solve runs. */
static spx_status space_last(solve_iter *it, double *rnorm, double *rho)
{
    const solve_scalars *sc = it->sc;
    spx_vec *const *v = it->v;
    spx_status st = SPX_OK;
    if (sc->x_due) SOLVE_TRY(spx_vec_axpby(sc->alpha, v[SOLVE_V_PHAT], 1.0, v[SOLVE_V_X]));
    if (sc->x_due == SOLVE_X_ALPHA_OMEGA) SOLVE_TRY(spx_vec_axpby(sc->omega, v[SOLVE_V_SHAT], 1.0, v[SOLVE_V_X]));
    if (!sc_running(sc)) goto done;
    SOLVE_TRY(spx_vec_axpby(-sc->omega, v[SOLVE_V_T], 1.0, v[SOLVE_V_R]));
    SOLVE_TRY(solve_nrm2(it->s, v[SOLVE_V_R], rnorm));
    SOLVE_TRY(solve_dot(it->s, v[SOLVE_V_RHAT], v[SOLVE_V_R], rho));
done:
    return st;
}

/* BiCGSTAB's steps over the space's operations, the scalars on the host (the distributed
 * path). */
static spx_status bi_space_step(solve_iter *it, solve_step step)
{
    solve_scalars *sc = it->sc;
    spx_vec *const *v = it->v;
    solve_run *s = it->s;
    spx_status st = SPX_OK;
    double a = 0.0, b = 0.0;
    if (step != SOLVE_BI_INIT && step != SOLVE_BI_R && !sc_running(sc)) return SPX_OK;
    switch (step) {
    case SOLVE_BI_INIT: /* r0^ = r, rho = (r0^, r) */
        SOLVE_TRY(spx_vec_copy(v[SOLVE_V_RHAT], v[SOLVE_V_R]));
        SOLVE_TRY(solve_dot(s, v[SOLVE_V_RHAT], v[SOLVE_V_R], &a));
        bi_after_init(sc, a);
        break;
    case SOLVE_BI_P: SOLVE_TRY(space_direction(it)); break;
    case SOLVE_BI_RV:
        SOLVE_TRY(solve_dot(s, v[SOLVE_V_RHAT], v[SOLVE_V_Q], &a));
        bi_after_rv(sc, a);
        break;
    case SOLVE_BI_S: /* s = r - alpha v in r, ||s||, s^ = M s */
        SOLVE_TRY(spx_vec_axpby(-sc->alpha, v[SOLVE_V_Q], 1.0, v[SOLVE_V_R]));
        SOLVE_TRY(solve_nrm2(s, v[SOLVE_V_R], &a));
        SOLVE_TRY(solve_precond(s, v[SOLVE_V_R], v[SOLVE_V_SHAT]));
        bi_after_s(sc, a);
        break;
    case SOLVE_BI_T:
        SOLVE_TRY(solve_dot(s, v[SOLVE_V_T], v[SOLVE_V_T], &a));
        SOLVE_TRY(solve_dot(s, v[SOLVE_V_T], v[SOLVE_V_R], &b));
        bi_after_t(sc, a, b);
        break;
    case SOLVE_BI_R:
        SOLVE_TRY(space_last(it, &a, &b));
        bi_after_r(sc, a, b);
        break;
    default: st = spx_fail(s->ctx, SPX_ERR_ARG, "%s: step %d is not BiCGSTAB's", s->fn, (int)step);
    }
done:
    return st;
}

/* Vectors of n entries the fused steps read or write per iteration (after the first): p reads
 * r, p, v and writes p; rv reads r0^, v; s reads v, r and writes r; t reads t, r; r reads x, p^,
 * s^, t, r, r0^ and writes x, r (without Jacobi p^ is p and s^ is r, one vector each). Jacobi
 * adds D read and p^ written in p, D read and s^ written in s. */
enum { BI_PASSES = 4 + 2 + 3 + 2 + 7, BI_PASSES_JACOBI = BI_PASSES + 2 + 2 + 1 };

/* BiCGSTAB as solve_drive runs it. */
static const solve_method bi_method = {BI_PHAT,       BI_WORK, BI_PASSES,     BI_PASSES_JACOBI, bi_roles,
                                       SOLVE_BI_INIT, bi_body, bi_space_step, SOLVE_PERSIST_BICGSTAB};

spx_status solve_bicgstab_space(const char *fn, const solve_space *sp, const spx_vec *b, spx_vec *x,
                                const spx_solve_opts *opts, spx_solve_result *res)
{
    return solve_drive(fn, &bi_method, sp, b, x, opts, res);
}

spx_status spx_solve_bicgstab(spx_plan *A, const spx_vec *b, spx_vec *x, const spx_solve_opts *opts, spx_solve_result *res)
{
    solve_space sp;
    spx_status st = solve_plan_space(spx_vec_ctx(b ? b : x), "spx_solve_bicgstab", A, &sp);
    return st ? st : solve_bicgstab_space("spx_solve_bicgstab", &sp, b, x, opts, res);
}
