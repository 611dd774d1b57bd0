/* src/solve/cg.c: conjugate gradients for symmetric positive definite A, optionally with the
 * Jacobi preconditioner (Hestenes & Stiefel 1952; Saad, "Iterative Methods for Sparse Linear
 * Systems", 2nd ed., Algorithm 9.1): its work vectors, its iteration as an SpMV and three fused
 * steps (solve_scalars.h: pq, r, xp), and those steps over a space's own operations. */
#include <math.h>

#include "solve/solve_common.h"
#include "vec/vec_internal.h"

/* The work vectors: residual (first: solve_drive's w[0]), direction, A*direction, the
 * preconditioned residual (Jacobi only, so last). */
enum { CG_R, CG_P, CG_Q, CG_Z, CG_WORK };
_Static_assert(CG_R == 0 && CG_WORK <= SOLVE_MAX_WORK, "the residual first, within the work limit");

/* The roles of the work vectors (z is r without a preconditioner). */
static void cg_roles(solve_iter *it, spx_vec **w, int jacobi)
{
    it->v[SOLVE_V_R] = w[CG_R];
    it->v[SOLVE_V_P] = w[CG_P];
    it->v[SOLVE_V_Q] = w[CG_Q];
    it->v[SOLVE_V_Z] = jacobi ? w[CG_Z] : w[CG_R];
}

/* One iteration: q = A p, then the steps; no decision on the host. */
static spx_status cg_body(solve_iter *it)
{
    spx_status st = SPX_OK;
    SOLVE_TRY(solve_apply(it, it->v[SOLVE_V_P], it->v[SOLVE_V_Q]));
    SOLVE_TRY(solve_step_run(it, SOLVE_CG_PQ));
    SOLVE_TRY(solve_step_run(it, SOLVE_CG_R));
    SOLVE_TRY(solve_step_run(it, SOLVE_CG_XP));
done:
    return st;
}

/* The new residual (r -= alpha q, z = M r) and its sums: (r, z), ||r||. */
static spx_status space_new_residual(solve_iter *it, double *rz, double *rnorm)
{
    solve_run *s = it->s;
    spx_vec *r = it->v[SOLVE_V_R], *z = it->v[SOLVE_V_Z];
    spx_status st = SPX_OK;
    SOLVE_TRY(spx_vec_axpby(-it->sc->alpha, it->v[SOLVE_V_Q], 1.0, r));
    if (z == r) { /* (r, r) serves both: one reduction */
        SOLVE_TRY(solve_dot(s, r, r, rz));
        *rnorm = sqrt(*rz);
    } else {
        SOLVE_TRY(solve_precond(s, r, z));
        SOLVE_TRY(solve_dot(s, r, z, rz));
        SOLVE_TRY(solve_nrm2(s, r, rnorm));
    }
done:
    return st;
}

/* CG's steps over the space's operations, the scalars on the host (the distributed path). */
static spx_status cg_space_step(solve_iter *it, solve_step step)
{
    solve_scalars *sc = it->sc;
    spx_vec *const *v = it->v;
    spx_status st = SPX_OK;
    double a = 0.0, b = 0.0;
    switch (step) {
    case SOLVE_CG_INIT: /* z = M r, (r, z), p = z */
        SOLVE_TRY(solve_precond(it->s, v[SOLVE_V_R], v[SOLVE_V_Z]));
        SOLVE_TRY(solve_dot(it->s, v[SOLVE_V_R], v[SOLVE_V_Z], &a));
        SOLVE_TRY(spx_vec_copy(v[SOLVE_V_P], v[SOLVE_V_Z]));
        cg_after_init(sc, a);
        break;
    case SOLVE_CG_PQ:
        if (!sc_running(sc)) break;
        SOLVE_TRY(solve_dot(it->s, v[SOLVE_V_P], v[SOLVE_V_Q], &a));
        cg_after_pq(sc, a);
        break;
    case SOLVE_CG_R:
        if (!sc_running(sc)) break;
        SOLVE_TRY(space_new_residual(it, &a, &b));
        cg_after_r(sc, a, b);
        break;
    case SOLVE_CG_XP:
        if (sc->x_due) SOLVE_TRY(spx_vec_axpby(sc->alpha, v[SOLVE_V_P], 1.0, v[SOLVE_V_X]));
        if (sc_running(sc)) SOLVE_TRY(spx_vec_axpby(1.0, v[SOLVE_V_Z], sc->beta, v[SOLVE_V_P])); /* p = z + beta p */
        cg_after_xp(sc);
        break;
    default: st = spx_fail(it->s->ctx, SPX_ERR_ARG, "%s: step %d is not CG's", it->s->fn, (int)step);
    }
done:
    return st;
}

/* Vectors of n entries the fused steps read or write per iteration: pq reads p, q; r reads
 * q, r and writes r (Jacobi: reads D, writes z); xp reads x, p, z and writes x, p. */
enum { CG_PASSES = 2 + 3 + 5, CG_PASSES_JACOBI = CG_PASSES + 2 };

/* CG as solve_drive runs it. */
static const solve_method cg_method = {CG_Z,          CG_WORK, CG_PASSES,     CG_PASSES_JACOBI, cg_roles,
                                       SOLVE_CG_INIT, cg_body, cg_space_step, SOLVE_PERSIST_CG};

spx_status solve_cg_space(const char *fn, const solve_space *sp, const spx_vec *b, spx_vec *x, const spx_solve_opts *opts,
                          spx_solve_result *res)
{
    return solve_drive(fn, &cg_method, sp, b, x, opts, res);
}

spx_status spx_solve_cg(spx_plan *A, const spx_vec *b, spx_vec *x, const spx_solve_opts *opts, spx_solve_result *res)
{
    solve_space sp;
    spx_status st = solve_plan_space(spx_vec_ctx(b ? b : x), "spx_solve_cg", A, &sp);
    return st ? st : solve_cg_space("spx_solve_cg", &sp, b, x, opts, res);
}
