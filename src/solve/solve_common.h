/* src/solve/solve_common.h: what the solvers share: the run's state (operator, vectors,
 * resolved options, the result being filled), argument checks, work vectors, the initial
 * residual, the per-iteration bookkeeping (history, callback, convergence), breakdowns, the
 * preconditioner's application and the end of a run (timing, the reason). */
#ifndef SPX_SOLVE_SOLVE_COMMON_H
#define SPX_SOLVE_SOLVE_COMMON_H

#include "core/ctx.h"

/* Work vectors a solver holds at most. */
#define SOLVE_MAX_WORK 8

/* What a solver iterates over: the operator y = a*A*x + b*y and the inner product, on
 * vectors of n entries (the local part of distributed ones) of one backend and precision. The
 * plain solvers' space is a plan and the vectors' own dot and nrm2 (solve_plan_space); the
 * distributed module's applies the distributed matrix and sums the dot products over its ranks
 * (src/dist/dist_solve.c). */
typedef struct solve_space {
    spx_status (*apply)(void *user, double a, const spx_vec *x, double b, spx_vec *y);
    spx_status (*dot)(void *user, const spx_vec *x, const spx_vec *y, double *out); /* global (x, y) */
    spx_status (*nrm2)(void *user, const spx_vec *x, double *out);                  /* global ||x|| */
    /* optional (NULL: none): every process's status after the argument checks and the work
       vectors, the same on all (a distributed space's collective), before the iteration */
    spx_status (*agree)(void *user, spx_status st);
    void *user;
    int64_t n; /* local length of x, b and every work vector */
    spx_backend backend;
    spx_precision precision;
} solve_space;

/* The space of a square plan A (fn names the caller in messages): spx_plan_apply, spx_vec_dot,
 * spx_vec_nrm2; SPX_ERR_ARG with a message in ctx when A is not square or cannot be read. */
spx_status solve_plan_space(spx_ctx *ctx, const char *fn, spx_plan *A, solve_space *out);

/* One solve in progress. */
typedef struct solve_run {
    const char *fn; /* the public function, for messages */
    spx_ctx *ctx;   /* the vectors' context */
    const solve_space *sp;
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
/* The whole of solver fn over space sp: checks, work vectors (work_plain of them, work_jacobi
 * with the preconditioner; w[0] the residual), the initial residual, iterate, the end. */
spx_status solve_drive(const char *fn, solve_iterate_fn iterate, int work_plain, int work_jacobi, const solve_space *sp,
                       const spx_vec *b, spx_vec *x, const spx_solve_opts *opts, spx_solve_result *res);
/* CG and BiCGSTAB over any space (cg.c, bicgstab.c): spx_solve_cg and spx_solve_bicgstab are
 * these over a plan's space; fn names the public caller. */
spx_status solve_cg_space(const char *fn, const solve_space *sp, const spx_vec *b, spx_vec *x, const spx_solve_opts *opts,
                          spx_solve_result *res);
spx_status solve_bicgstab_space(const char *fn, const solve_space *sp, const spx_vec *b, spx_vec *x,
                                const spx_solve_opts *opts, spx_solve_result *res);
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
/* *out = (x, y) over the space (all ranks for a distributed one). */
spx_status solve_dot(solve_run *s, const spx_vec *x, const spx_vec *y, double *out);
/* *out = ||x|| over the space. */
spx_status solve_nrm2(solve_run *s, const spx_vec *x, double *out);
/* z = M^-1 r: D^-1 r for Jacobi; nothing without a preconditioner (the callers then use r). */
spx_status solve_precond(solve_run *s, const spx_vec *r, spx_vec *z);

#endif
