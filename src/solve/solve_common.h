/* src/solve/solve_common.h: what the solvers share: the run's state (operator, vectors,
 * resolved options, the result being filled), argument checks, work vectors, the initial
 * residual, the per-iteration bookkeeping (history, callback, convergence), breakdowns, the
 * preconditioner's application and the end of a run (timing, the reason). */
#ifndef SPX_SOLVE_SOLVE_COMMON_H
#define SPX_SOLVE_SOLVE_COMMON_H

#include "core/ctx.h"

/* Work vectors a solver holds at most. */
#define SOLVE_MAX_WORK 8

/* One solve in progress. */
typedef struct solve_run {
    const char *fn; /* the public function, for messages */
    spx_ctx *ctx;   /* the vectors' context */
    spx_plan *A;
    const spx_vec *b;
    spx_vec *x;
    spx_solve_opts o; /* defaults resolved */
    spx_solve_result *res;
    spx_backend backend;
    spx_precision precision;
    int64_t n;
    double bnorm;           /* ||b|| */
    double r0norm;          /* ||b - A x0|| */
    double t_start, t_iter; /* spx_now() at the call and at the initial residual */
} solve_run;

/* Jumps to the function's `done` label with st set when a call fails. */
#define SOLVE_TRY(call)                                                                    \
    do {                                                                                   \
        if ((st = (call)) != SPX_OK) goto done;                                            \
    } while (0)

/* A method's iterations after the initial residual in w[0]; *hit_cap = 1 when the cap ends
 * them. */
typedef spx_status (*solve_iterate_fn)(solve_run *s, spx_vec **w, int *hit_cap);
/* The whole of public solver fn: checks, work vectors (work_plain of them, work_jacobi with the
 * preconditioner; w[0] the residual), the initial residual, iterate, the end. */
spx_status solve_drive(const char *fn, solve_iterate_fn iterate, int work_plain, int work_jacobi, spx_plan *A, const spx_vec *b,
                       spx_vec *x, const spx_solve_opts *opts, spx_solve_result *res);
/* Records ||r_k|| / ||b|| = rel after iteration k (history, callback, result); returns 1 when
 * the solve ends there: converged (rel <= tol), not finite (a breakdown) or stopped. */
int solve_record(solve_run *s, int k, double rel);
/* Ends the solve with breakdown status st and the reason; returns 1 (the loops' "done"). */
int solve_breakdown(solve_run *s, spx_solve_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Whether the solve breaks down on a non-finite scalar v named what at iteration k (then
 * recorded as SPX_SOLVE_BREAKDOWN_NONFINITE). */
int solve_nonfinite(solve_run *s, double v, const char *what, int k);
/* out = A in (one SpMV, counted). */
spx_status solve_apply(solve_run *s, const spx_vec *in, spx_vec *out);
/* z = M^-1 r: D^-1 r for Jacobi; nothing without a preconditioner (the callers then use r). */
spx_status solve_precond(solve_run *s, const spx_vec *r, spx_vec *z);

#endif
