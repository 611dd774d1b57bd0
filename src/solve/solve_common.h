/* src/solve/solve_common.h: what the solvers share: the run's state (operator, vectors,
 * resolved options, the result being filled), argument checks, work vectors, the initial
 * residual, the iteration as fused steps over a scalar block (src/solve/solve_scalars.h) run on
 * the backend (the CPU's OpenMP passes, the GPU's kernels replayed as a CUDA graph, or the
 * space's own operations), the host's reads of that block every few iterations (history,
 * callback, the end), the preconditioner and the end of a run (timing, the reason). */
#ifndef SPX_SOLVE_SOLVE_COMMON_H
#define SPX_SOLVE_SOLVE_COMMON_H

#include "core/ctx.h"
#include "solve/solve_persist.h"
#include "solve/solve_scalars.h"
#include "solve/solve_steps.h"

/* Work vectors a solver holds at most. */
#define SOLVE_MAX_WORK 8

/* What a solver iterates over: the operator y = a*A*x + b*y and the inner product, on
 * vectors of n entries (the local part of distributed ones) of one backend and precision. The
 * plain solvers' space is a plan and the vectors' own dot and nrm2 (solve_plan_space), whose
 * steps run fused on the backend; the distributed module's applies the distributed matrix and
 * sums the dot products over its ranks (src/dist/dist_solve.c), and its steps go through those
 * operations, the scalars on the host. */
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
    int fused; /* 1: the vectors are the whole problem (a plan's space), so the backend's fused
                  steps may form the sums; 0: every sum through dot and nrm2 */
    spx_plan *plan; /* the plan of a plan's space (the persistent kernel reads its layout); NULL
                       for the distributed one */
} solve_space;

/* The space of a square plan A (fn names the caller in messages): spx_plan_apply, spx_vec_dot,
 * spx_vec_nrm2, fused steps; SPX_ERR_ARG with a message in ctx when A is not square or cannot
 * be read. */
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

/* The iteration phase of a solve: the vectors by role, the scalar block the steps update (the
 * host's; a copy of the device's, read at each check, on CUDA) and where the steps run. */
typedef struct solve_iter {
    solve_run *s;
    spx_vec *v[SOLVE_N_ROLES];
    void *data[SOLVE_N_ROLES]; /* the vectors' data (spx_vec_data) */
    solve_scalars *sc;
    solve_cuda *dev;                           /* CUDA fused steps; NULL otherwise */
    const struct solve_method *m;               /* the method */
} solve_iter;

/* A method: its work vectors (w[0] the residual), their roles, its first step, its iteration
 * (SpMVs and steps only: no decision on the host, so it can be captured and replayed), its
 * steps over the space's operations (the distributed space's path), the vectors of n entries
 * its fused steps read or write per iteration (the floor's vector traffic), and the persistent
 * kernel that can run its iterations (src/solve/persist_cuda.cu). */
typedef struct solve_method {
    int work_plain, work_jacobi;
    int passes_plain, passes_jacobi;
    void (*roles)(solve_iter *it, spx_vec **w, int jacobi);
    solve_step init;
    spx_status (*body)(solve_iter *it);
    spx_status (*space_step)(solve_iter *it, solve_step step);
    solve_persist_method persistent; /* its kernel, or SOLVE_PERSIST_NONE */
} solve_method;

/* The whole of a method over space sp: checks, work vectors, the initial residual, its
 * iterations with the host's checks, the end. */
spx_status solve_drive(const char *fn, const solve_method *m, const solve_space *sp, const spx_vec *b, spx_vec *x,
                       const spx_solve_opts *opts, spx_solve_result *res);
/* CG and BiCGSTAB over any space (cg.c, bicgstab.c): spx_solve_cg and spx_solve_bicgstab are
 * these over a plan's space; fn names the public caller. */
spx_status solve_cg_space(const char *fn, const solve_space *sp, const spx_vec *b, spx_vec *x, const spx_solve_opts *opts,
                          spx_solve_result *res);
spx_status solve_bicgstab_space(const char *fn, const solve_space *sp, const spx_vec *b, spx_vec *x,
                                const spx_solve_opts *opts, spx_solve_result *res);
/* Runs step on the iteration's backend: the device's kernels, the CPU's fused passes, or the
 * method's steps over the space. A step whose scalars say the solve has ended does nothing. */
spx_status solve_step_run(solve_iter *it, solve_step step);
/* out = A in (one SpMV), skipped on the host once the solve has ended (on the device it runs,
 * wasted and harmless: only the next step, a no-op then, reads out). */
spx_status solve_apply(solve_iter *it, const spx_vec *in, spx_vec *out);
/* *out = (x, y) over the space (all ranks for a distributed one). */
spx_status solve_dot(solve_run *s, const spx_vec *x, const spx_vec *y, double *out);
/* *out = ||x|| over the space. */
spx_status solve_nrm2(solve_run *s, const spx_vec *x, double *out);
/* z = M^-1 r: D^-1 r for Jacobi; nothing without a preconditioner (the callers then use r). */
spx_status solve_precond(solve_run *s, const spx_vec *r, spx_vec *z);

/* Picks the path of the run (src/solve/persist.c: solve_path_choose over its facts), its
 * result's path and path_reason set; *persistent = 1 with *job filled (the plan's device CSR,
 * the vectors, the history) when it is the persistent kernel. The device is queried, nothing
 * launched. */
spx_status solve_path_pick(solve_iter *it, solve_persist_job *job, int *persistent);
/* The persistent kernel's one launch (spx_solve_persist_run) with the plan held meanwhile
 * (spx_plan_enter), after the first step; *seconds its device time. */
spx_status solve_persist_launch(solve_iter *it, const solve_persist_job *job, double *seconds);

/* The CPU's fused steps (src/solve/steps_cpu.c): step as one OpenMP pass, summing as
 * spx_vec_dot does, so the scalars have the bits of the space's own operations. */
spx_status solve_cpu_step(solve_iter *it, solve_step step);

#endif
