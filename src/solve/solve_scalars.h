/* src/solve/solve_scalars.h: the solvers' scalar block (alpha, beta, rho, omega, the residual,
 * the iteration, the status and a ring of recent residuals) and the tests that end a solve,
 * written once for the host and the device: the steps of src/solve/steps_*.c call them on a
 * block in host memory, src/solve/steps_cuda.cu (which defines SPX_SOLVE_FN with __host__
 * __device__ before including this file) in the last thread block of each fused kernel, on a
 * block in device memory. Once the status is not SOLVE_RUNNING every later step is a no-op, so
 * iterations run past the end change nothing and the host may read the block every m
 * iterations and still see the exact iterate, count and status of a check every iteration. */
#ifndef SPX_SOLVE_SOLVE_SCALARS_H
#define SPX_SOLVE_SOLVE_SCALARS_H

#include <float.h>
#include <math.h>
#include <stdint.h>

#include "spx/solve.h"

#ifndef SPX_SOLVE_FN
#define SPX_SOLVE_FN static inline
#endif

/* Residuals the ring keeps: the host reads the block at least this often (check_every <=
 * SPX_SOLVE_MAX_CHECK_EVERY), so no record is overwritten before it is copied out. */
#define SOLVE_RING SPX_SOLVE_MAX_CHECK_EVERY

/* The status of a solve under way (the others are spx_solve_status values). */
#define SOLVE_RUNNING (-1)

/* The scalar that ended a solve, for its reason (src/solve/solve_common.c words it). */
typedef enum solve_fault {
    SOLVE_FAULT_NONE = 0,
    SOLVE_FAULT_BNORM, /* ||b|| */
    SOLVE_FAULT_REL,   /* ||r|| / ||b|| */
    SOLVE_FAULT_RZ,    /* CG: (r, z) */
    SOLVE_FAULT_PQ,    /* CG: p'Ap */
    SOLVE_FAULT_RHO,   /* BiCGSTAB: rho = (r0^, r) */
    SOLVE_FAULT_RV,    /* BiCGSTAB: (r0^, v) */
    SOLVE_FAULT_SNORM, /* BiCGSTAB: ||s|| */
    SOLVE_FAULT_TT,    /* BiCGSTAB: (t, t) */
    SOLVE_FAULT_TS,    /* BiCGSTAB: (t, s), or t = 0 (with BREAKDOWN_OMEGA) */
    SOLVE_FAULT_OMEGA  /* BiCGSTAB: omega = (t, s) / (t, t) */
} solve_fault;

/* The update x still owes for the iteration under way (the steps that find alpha and omega
 * come before the pass that updates x, which runs even when the test between ended the solve). */
enum { SOLVE_X_NONE = 0, SOLVE_X_ALPHA = 1, SOLVE_X_ALPHA_OMEGA = 2 };

/* The scalars of one solve. The host sets tol, bnorm, r0norm, max_iter, rel and k before the
 * first step; the steps' finishers update the rest. */
typedef struct solve_scalars {
    double tol, bnorm, r0norm;
    int32_t max_iter;
    int32_t k;         /* the iteration under way (1-based) */
    int32_t status;    /* SOLVE_RUNNING or an spx_solve_status */
    int32_t by_record; /* the status came from the record of iteration rec_k itself (converged,
                          or a residual that is not finite), so a callback's stop there loses */
    int32_t rec_k;     /* the last recorded iteration (0: the initial residual) */
    int32_t spmvs;     /* SpMVs of the iterations that counted (the initial residual's not) */
    int32_t x_due;     /* SOLVE_X_*: x's update still owed for iteration k */
    int32_t fault;     /* solve_fault of a breakdown */
    int32_t fault_k;   /* its iteration */
    uint32_t ticket;   /* CUDA: blocks of the running fused kernel done (its last block resets it) */
    double fault_v, fault_w; /* the scalar at fault, and BiCGSTAB's rho bound */
    double rel;              /* ||r_rec_k|| / ||b|| */
    double alpha, beta, omega;
    double rho; /* CG: (r, z); BiCGSTAB: (r0^, r) */
    double ring[SOLVE_RING]; /* ring[k % SOLVE_RING] = ||r_k|| / ||b|| of the records since the
                                host's last read */
} solve_scalars;

/* Whether the solve is still under way. */
SPX_SOLVE_FN int sc_running(const solve_scalars *s) { return s->status == SOLVE_RUNNING; }

/* Ends the solve with status st, fault f at iteration k (values v, w). */
SPX_SOLVE_FN void sc_end(solve_scalars *s, int st, int f, int k, double v, double w)
{
    s->status = st;
    s->fault = f;
    s->fault_k = k;
    s->fault_v = v;
    s->fault_w = w;
}

/* Whether v is not finite, which ends the solve (fault f at iteration k). */
SPX_SOLVE_FN int sc_nonfinite(solve_scalars *s, double v, int f, int k)
{
    if (isfinite(v)) return 0;
    sc_end(s, SPX_SOLVE_BREAKDOWN_NONFINITE, f, k, v, 0.0);
    return 1;
}

/* Whether v, the scalar f of iteration k, ends the solve: not finite, or bad (then status st,
 * with w beside v in the reason). */
SPX_SOLVE_FN int sc_breaks(solve_scalars *s, double v, int f, int k, int bad, int st, double w)
{
    if (sc_nonfinite(s, v, f, k)) return 1;
    if (!bad) return 0;
    sc_end(s, st, f, k, v, w);
    return 1;
}

/* Records ||r_k|| / ||b|| = rel; whether that ends the solve (not finite, or converged). */
SPX_SOLVE_FN int sc_record(solve_scalars *s, int k, double rel)
{
    s->ring[k % SOLVE_RING] = rel;
    s->rec_k = k;
    s->rel = rel;
    if (!sc_nonfinite(s, rel, SOLVE_FAULT_REL, k)) {
        if (!(rel <= s->tol)) return 0;
        s->status = SPX_SOLVE_CONVERGED;
    }
    s->by_record = 1;
    return 1;
}

/* Whether iteration k was the cap's last (then the status says so). */
SPX_SOLVE_FN int sc_capped(solve_scalars *s, int k)
{
    if (k < s->max_iter) return 0;
    s->status = SPX_SOLVE_MAX_ITER;
    return 1;
}

/* ---- CG (Saad, Algorithm 9.1): init z = M r, rho = (r, z), p = z; then per iteration
   q = A p, [pq] alpha = rho / (p, q), [r] r -= alpha q, z = M r, (r, z) and ||r||,
   [xp] x += alpha p, p = z + beta p ---- */

/* Whether (r, z) = rz ends the solve at iteration k: not finite, or <= 0, which with r != 0
 * means the preconditioner is not positive definite. */
SPX_SOLVE_FN int cg_rz_breaks(solve_scalars *s, double rz, int k)
{
    return sc_breaks(s, rz, SOLVE_FAULT_RZ, k, !(rz > 0.0), SPX_SOLVE_BREAKDOWN_RHO, 0.0);
}

/* After the initial (r, z). */
SPX_SOLVE_FN void cg_after_init(solve_scalars *s, double rz)
{
    if (!cg_rz_breaks(s, rz, 0)) s->rho = rz;
}

/* After p'Ap = pq of iteration k: alpha, or a breakdown (A not SPD). */
SPX_SOLVE_FN void cg_after_pq(solve_scalars *s, double pq)
{
    s->spmvs++;
    if (sc_breaks(s, pq, SOLVE_FAULT_PQ, s->k, pq <= 0.0, SPX_SOLVE_BREAKDOWN_PAP, 0.0)) return;
    s->alpha = s->rho / pq;
    s->x_due = SOLVE_X_ALPHA;
}

/* After the new residual's (r, z) = rz and ||r|| = rnorm: the record, the tests, beta. */
SPX_SOLVE_FN void cg_after_r(solve_scalars *s, double rz, double rnorm)
{
    const int k = s->k;
    if (sc_record(s, k, rnorm / s->bnorm) || cg_rz_breaks(s, rz, k) || sc_capped(s, k)) return;
    s->beta = rz / s->rho;
    s->rho = rz;
}

/* After x and p: the next iteration. */
SPX_SOLVE_FN void cg_after_xp(solve_scalars *s)
{
    s->x_due = SOLVE_X_NONE;
    if (sc_running(s)) s->k++;
}

/* ---- BiCGSTAB (van der Vorst 1992, right-preconditioned): init r0^ = r, rho = (r0^, r);
   per iteration [p] p = r + beta (p - omega v), p^ = M p; v = A p^; [rv] alpha = rho / (r0^, v);
   [s] s = r - alpha v (in r), ||s||, s^ = M s; t = A s^; [t] omega = (t, s) / (t, t);
   [r] x += alpha p^ + omega s^, r = s - omega t, ||r||, the next rho = (r0^, r) ---- */

/* Whether rho = (r0^, r) ends the solve at iteration k: not finite, or 0 to rounding (|rho| <=
 * eps ||r0^|| ||r||, the error bound of the dot product up to a factor n: below it rho's value
 * and sign are noise, and the iterates after it too). */
SPX_SOLVE_FN int bi_rho_breaks(solve_scalars *s, double rho, int k)
{
    const double noise = DBL_EPSILON * s->r0norm * (s->rel * s->bnorm);
    return sc_breaks(s, rho, SOLVE_FAULT_RHO, k, !(fabs(rho) > noise), SPX_SOLVE_BREAKDOWN_RHO, noise);
}

/* After the first rho = (r0^, r0). */
SPX_SOLVE_FN void bi_after_init(solve_scalars *s, double rho)
{
    if (!bi_rho_breaks(s, rho, 1)) s->rho = rho;
}

/* After (r0^, v) = rv: alpha, or a breakdown. */
SPX_SOLVE_FN void bi_after_rv(solve_scalars *s, double rv)
{
    s->spmvs++;
    if (sc_breaks(s, rv, SOLVE_FAULT_RV, s->k, rv == 0.0, SPX_SOLVE_BREAKDOWN_RV, 0.0)) return;
    s->alpha = s->rho / rv;
}

/* After ||s|| = snorm: converged at the half step (x then owes alpha p^ alone), or on. */
SPX_SOLVE_FN void bi_after_s(solve_scalars *s, double snorm)
{
    const int k = s->k;
    if (sc_nonfinite(s, snorm, SOLVE_FAULT_SNORM, k) || !(snorm / s->bnorm <= s->tol)) return;
    s->x_due = SOLVE_X_ALPHA;
    sc_record(s, k, snorm / s->bnorm);
}

/* After (t, t) = tt and (t, s) = ts: omega, or a breakdown (t = 0, omega = 0). */
SPX_SOLVE_FN void bi_after_t(solve_scalars *s, double tt, double ts)
{
    const int k = s->k;
    s->spmvs++;
    if (sc_nonfinite(s, tt, SOLVE_FAULT_TT, k) ||
        sc_breaks(s, ts, SOLVE_FAULT_TS, k, tt == 0.0, SPX_SOLVE_BREAKDOWN_OMEGA, 0.0))
        return;
    s->omega = ts / tt;
    if (s->omega == 0.0)
        sc_end(s, SPX_SOLVE_BREAKDOWN_OMEGA, SOLVE_FAULT_OMEGA, k, 0.0, 0.0);
    else
        s->x_due = SOLVE_X_ALPHA_OMEGA;
}

/* After the new residual's ||r|| = rnorm and (r0^, r) = rho: the record, the cap, and the next
 * iteration's rho test and beta. */
SPX_SOLVE_FN void bi_after_r(solve_scalars *s, double rnorm, double rho)
{
    const int k = s->k;
    s->x_due = SOLVE_X_NONE;
    if (!sc_running(s) || sc_record(s, k, rnorm / s->bnorm) || sc_capped(s, k) || bi_rho_breaks(s, rho, k + 1)) return;
    s->beta = (rho / s->rho) * (s->alpha / s->omega);
    s->rho = rho;
    s->k = k + 1;
}

#endif
