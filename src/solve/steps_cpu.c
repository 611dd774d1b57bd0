/* src/solve/steps_cpu.c: the solvers' fused steps on the CPU: each is one OpenMP pass over the
 * vectors (spx_vec_pass: the shares of spx_vec_dot, each share's dot products kept as four
 * running sums as range_dot keeps them) that updates them and forms the sums the next scalar
 * needs, then the finisher of solve_scalars.h on the host's block. Every update is the
 * expression spx_vec_axpby or spx_vec_mul evaluates, rounded to the vector's precision where
 * they round, and every sum reads the stored values, so a solve gives the bits it gives through
 * the separate vector operations. */
#include <math.h>

#include "solve/solve_common.h"
#include "vec/vec_internal.h"

/* Inlined into each step's range function, so the switch on its constant step folds away. */
#if defined(__GNUC__)
#define STEP_INLINE __attribute__((always_inline)) inline
#else
#define STEP_INLINE inline
#endif

/* One step's operands: the vectors' data by role, the scalars the pass reads, what it does. */
typedef struct step_job {
    int f32;                       /* float entries (else double) */
    void *v[SOLVE_N_ROLES];        /* the data of it->v (NULL where none) */
    int jacobi;                    /* z, p^ and s^ are M r, M p and M s (else r, p and r) */
    int run;                       /* the solve is under way (the step's main part runs) */
    int x_due;                     /* SOLVE_X_*: the update x owes */
    int first;                     /* BiCGSTAB: iteration 1 (p = r) */
    double alpha, beta, omega;
} step_job;

/* Entry i of a as fp64. */
static inline double ld(const step_job *j, solve_role r, int64_t i)
{
    return j->f32 ? (double)((const float *)j->v[r])[i] : ((const double *)j->v[r])[i];
}

/* Stores v rounded to the precision into entry i of role r; returns the stored value as fp64. */
static inline double st(const step_job *j, solve_role r, int64_t i, double v)
{
    if (!j->f32) return ((double *)j->v[r])[i] = v;
    return (double)(((float *)j->v[r])[i] = (float)v);
}

/* y = a*x + b*y at entry i, as spx_vec_axpby evaluates it; returns the stored y. */
static inline double axpby(const step_job *j, double a, solve_role x, double b, solve_role y, int64_t i)
{
    return st(j, y, i, a * ld(j, x, i) + b * ld(j, y, i));
}

/* out = D^-1 in at entry i (spx_vec_mul's product), or in itself without a preconditioner;
 * returns the stored value. */
static inline double precond(const step_job *j, solve_role in, solve_role out, int64_t i, double value)
{
    return j->jacobi ? st(j, out, i, ld(j, SOLVE_V_D, i) * value) : value;
}

/* CG init at entry i: z = M r, sum (r, z), p = z. */
static inline void cg_init_at(const step_job *j, int64_t i, double *t)
{
    const double r = ld(j, SOLVE_V_R, i), z = precond(j, SOLVE_V_R, SOLVE_V_Z, i, r);
    st(j, SOLVE_V_P, i, z);
    t[0] = r * z;
}

/* CG r at entry i: r -= alpha q, z = M r, sums (r, z) and (r, r) (without Jacobi: (r, r)). */
static inline void cg_r_at(const step_job *j, int64_t i, double *t)
{
    const double r = axpby(j, -j->alpha, SOLVE_V_Q, 1.0, SOLVE_V_R, i);
    if (!j->jacobi) {
        t[0] = r * r;
        return;
    }
    t[0] = r * precond(j, SOLVE_V_R, SOLVE_V_Z, i, r);
    t[1] = r * r;
}

/* CG xp at entry i: x += alpha p (when owed), p = z + beta p (while running). */
static inline void cg_xp_at(const step_job *j, int64_t i)
{
    if (j->x_due) axpby(j, j->alpha, SOLVE_V_P, 1.0, SOLVE_V_X, i);
    if (j->run) axpby(j, 1.0, SOLVE_V_Z, j->beta, SOLVE_V_P, i);
}

/* BiCGSTAB p at entry i: p = r or r + beta (p - omega v), p^ = M p. */
static inline void bi_p_at(const step_job *j, int64_t i)
{
    double p;
    if (j->first) {
        p = st(j, SOLVE_V_P, i, ld(j, SOLVE_V_R, i));
    } else {
        axpby(j, -j->omega, SOLVE_V_Q, 1.0, SOLVE_V_P, i);
        p = axpby(j, 1.0, SOLVE_V_R, j->beta, SOLVE_V_P, i);
    }
    precond(j, SOLVE_V_P, SOLVE_V_PHAT, i, p);
}

/* BiCGSTAB r at entry i: x's owed update, then r = s - omega t, sums (r, r) and (r0^, r). */
static inline void bi_r_at(const step_job *j, int64_t i, double *t)
{
    if (j->x_due) axpby(j, j->alpha, SOLVE_V_PHAT, 1.0, SOLVE_V_X, i);
    if (j->x_due == SOLVE_X_ALPHA_OMEGA) axpby(j, j->omega, SOLVE_V_SHAT, 1.0, SOLVE_V_X, i);
    if (!j->run) return;
    const double r = axpby(j, -j->omega, SOLVE_V_T, 1.0, SOLVE_V_R, i);
    t[0] = r * r;
    t[1] = ld(j, SOLVE_V_RHAT, i) * r;
}

/* Entry i of step; its terms to sum in t[0..2). */
static STEP_INLINE void step_at(const step_job *j, int64_t i, double *t, solve_step step)
{
    switch (step) {
    case SOLVE_CG_INIT: cg_init_at(j, i, t); break;
    case SOLVE_CG_PQ: t[0] = ld(j, SOLVE_V_P, i) * ld(j, SOLVE_V_Q, i); break;
    case SOLVE_CG_R: cg_r_at(j, i, t); break;
    case SOLVE_CG_XP: cg_xp_at(j, i); break;
    case SOLVE_BI_INIT: t[0] = ld(j, SOLVE_V_R, i) * st(j, SOLVE_V_RHAT, i, ld(j, SOLVE_V_R, i)); break;
    case SOLVE_BI_P: bi_p_at(j, i); break;
    case SOLVE_BI_RV: t[0] = ld(j, SOLVE_V_RHAT, i) * ld(j, SOLVE_V_Q, i); break;
    case SOLVE_BI_S: {
        const double s = axpby(j, -j->alpha, SOLVE_V_Q, 1.0, SOLVE_V_R, i);
        t[0] = s * s;
        precond(j, SOLVE_V_R, SOLVE_V_SHAT, i, s);
        break;
    }
    case SOLVE_BI_T: {
        const double tv = ld(j, SOLVE_V_T, i);
        t[0] = tv * tv;
        t[1] = tv * ld(j, SOLVE_V_R, i);
        break;
    }
    case SOLVE_BI_R: bi_r_at(j, i, t); break;
    default: break;
    }
}

/* The pass of step over [lo, hi): every entry's work, its (up to) two sums kept as four running
 * sums each (spx_dot4: range_dot's order) into acc[0..2). */
static STEP_INLINE void step_range(const step_job *j, int64_t lo, int64_t hi, double acc[SPX_N_SUMS], solve_step step)
{
    spx_dot4 d[2] = {{{0.0, 0.0, 0.0, 0.0}}, {{0.0, 0.0, 0.0, 0.0}}};
    for (int64_t i = lo; i < hi; i++) {
        double t[2] = {0.0, 0.0};
        step_at(j, i, t, step);
        spx_dot4_add(&d[0], i - lo, t[0]);
        spx_dot4_add(&d[1], i - lo, t[1]);
    }
    acc[0] = spx_dot4_total(&d[0]);
    acc[1] = spx_dot4_total(&d[1]);
}

/* step_range for each step (spx_vec_pass's functions). */
#define STEP_RANGE(name, step)                                                                     \
    static void name(const void *job, int64_t lo, int64_t hi, double acc[SPX_N_SUMS])              \
    {                                                                                              \
        step_range(job, lo, hi, acc, step);                                                        \
    }
STEP_RANGE(range_cg_init, SOLVE_CG_INIT)
STEP_RANGE(range_cg_pq, SOLVE_CG_PQ)
STEP_RANGE(range_cg_r, SOLVE_CG_R)
STEP_RANGE(range_cg_xp, SOLVE_CG_XP)
STEP_RANGE(range_bi_init, SOLVE_BI_INIT)
STEP_RANGE(range_bi_p, SOLVE_BI_P)
STEP_RANGE(range_bi_rv, SOLVE_BI_RV)
STEP_RANGE(range_bi_s, SOLVE_BI_S)
STEP_RANGE(range_bi_t, SOLVE_BI_T)
STEP_RANGE(range_bi_r, SOLVE_BI_R)
#undef STEP_RANGE

/* The range function of each step, in solve_step's order. */
static const spx_vec_pass_fn step_ranges[SOLVE_N_STEPS] = {range_cg_init, range_cg_pq, range_cg_r,  range_cg_xp,
                                                           range_bi_init, range_bi_p,  range_bi_rv, range_bi_s,
                                                           range_bi_t,    range_bi_r};

/* Whether step does its work now: the first steps always, x's last pass while x owes an
 * update, every other step while the solve runs. */
static int step_runs(const solve_scalars *sc, solve_step step)
{
    if (step == SOLVE_CG_INIT || step == SOLVE_BI_INIT) return 1;
    if (step == SOLVE_CG_XP || step == SOLVE_BI_R) return sc_running(sc) || sc->x_due;
    return sc_running(sc);
}

/* ||r|| from its plain sum of squares (spx_vec_nrm2's rule). */
static double norm_of(const solve_iter *it, solve_role r, double sumsq)
{
    return spx_vec_nrm2_cpu_finish(it->v[r], sumsq);
}

/* The finisher of step on the sums of its pass. */
static void finish(solve_iter *it, solve_step step, const double *sum)
{
    solve_scalars *sc = it->sc;
    const int jacobi = it->v[SOLVE_V_D] != NULL;
    switch (step) {
    case SOLVE_CG_INIT: cg_after_init(sc, sum[0]); break;
    case SOLVE_CG_PQ: cg_after_pq(sc, sum[0]); break;
    case SOLVE_CG_R: cg_after_r(sc, sum[0], jacobi ? norm_of(it, SOLVE_V_R, sum[1]) : sqrt(sum[0])); break;
    case SOLVE_CG_XP: cg_after_xp(sc); break;
    case SOLVE_BI_INIT: bi_after_init(sc, sum[0]); break;
    case SOLVE_BI_RV: bi_after_rv(sc, sum[0]); break;
    case SOLVE_BI_S: bi_after_s(sc, norm_of(it, SOLVE_V_R, sum[0])); break;
    case SOLVE_BI_T: bi_after_t(sc, sum[0], sum[1]); break;
    case SOLVE_BI_R: bi_after_r(sc, sc_running(sc) ? norm_of(it, SOLVE_V_R, sum[0]) : 0.0, sum[1]); break;
    default: break; /* SOLVE_BI_P: no scalar */
    }
}

spx_status solve_cpu_step(solve_iter *it, solve_step step)
{
    const solve_scalars *sc = it->sc;
    if (!step_runs(sc, step)) return SPX_OK;
    step_job j = {.f32 = it->s->precision == SPX_FP32, .jacobi = it->v[SOLVE_V_D] != NULL,
                  .run = sc_running(sc), .x_due = sc->x_due, .first = sc->k == 1, .alpha = sc->alpha,
                  .beta = sc->beta, .omega = sc->omega};
    for (int r = 0; r < SOLVE_N_ROLES; r++) j.v[r] = it->v[r] ? spx_vec_data(it->v[r]) : NULL;
    double sum[SPX_N_SUMS];
    spx_vec_pass(it->s->ctx, it->s->n, step_ranges[step], &j, sum);
    finish(it, step, sum);
    return SPX_OK;
}
