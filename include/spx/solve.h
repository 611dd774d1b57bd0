/* include/spx/solve.h: iterative solvers (CG for SPD matrices, BiCGSTAB for general ones),
 * written once over spx_plan_apply and the spx_vec operations, so they run on every format,
 * backend (CPU, CUDA) and precision (fp64, fp32) a plan can have. */
#ifndef SPX_SOLVE_H
#define SPX_SOLVE_H

#include "spx/vector.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API: exported by libspx.so */

/* The defaults a zeroed spx_solve_opts stands for. */
#define SPX_SOLVE_DEFAULT_TOL 1e-8
#define SPX_SOLVE_DEFAULT_MAX_ITER 10000
/* The most iterations between two reads of the solver's scalars by the host
 * (spx_solve_opts.check_every): the residuals of that many iterations wait on the device. */
#define SPX_SOLVE_MAX_CHECK_EVERY 128

typedef enum spx_precond {
    SPX_PRECOND_NONE = 0,
    SPX_PRECOND_JACOBI = 1 /* z = D^-1 r, D = diag(A): opts.inv_diag (spx_solve_inv_diag) */
} spx_precond;

/* How a solve ended. A breakdown ends the iteration at once: it never loops and never reports
 * convergence; x holds the last complete iterate. */
typedef enum spx_solve_status {
    SPX_SOLVE_CONVERGED = 0,      /* ||r_k|| / ||b|| <= tol (the recursive residual) */
    SPX_SOLVE_MAX_ITER,           /* the iteration cap came first */
    SPX_SOLVE_STOPPED,            /* the callback asked to stop */
    SPX_SOLVE_BREAKDOWN_RHO,      /* BiCGSTAB: rho = (r0^, r_k) = 0 to rounding (|rho| <=
                                     eps ||r0^|| ||r_k||); CG with Jacobi: (r, z) <= 0 (the
                                     preconditioner is not positive definite) */
    SPX_SOLVE_BREAKDOWN_PAP,      /* CG: p'Ap <= 0, so A is not SPD */
    SPX_SOLVE_BREAKDOWN_RV,       /* BiCGSTAB: (r0^, v) = 0, so alpha is undefined */
    SPX_SOLVE_BREAKDOWN_OMEGA,    /* BiCGSTAB: omega = 0 (t = A s^ is 0 or orthogonal to s) */
    SPX_SOLVE_BREAKDOWN_NONFINITE /* a NaN or infinity in the iteration's scalars: in b, x0, A
                                     or the preconditioner, or an overflow */
} spx_solve_status;

/* How a CUDA solve iterates (spx_solve_opts.path asks, spx_solve_result.path says what ran;
 * docs/solvers.md). */
typedef enum spx_solve_path {
    SPX_SOLVE_PATH_AUTO = 0,   /* options: the persistent kernel where it can run and is predicted
                                  to pay (a csr plan of at most 2^21 nonzeros, no callback, no
                                  check_every asked), else the graph */
    SPX_SOLVE_PATH_GRAPH,      /* fused step kernels, each iteration a replayed CUDA graph, the host
                                  reading the scalars every check_every iterations */
    SPX_SOLVE_PATH_PERSISTENT, /* CG or BiCGSTAB on a csr plan: the whole solve one cooperative
                                  kernel (its SpMV inside, grid-wide barriers between its phases),
                                  the host reading the scalars once, at the end */
    SPX_SOLVE_PATH_HOST        /* result only: the CPU's fused passes, or the distributed solvers'
                                  operations (the options' path is ignored there) */
} spx_solve_path;

typedef struct spx_solve_opts {
    double tol;   /* stop when ||r_k|| / ||b|| <= tol; 0: SPX_SOLVE_DEFAULT_TOL */
    int max_iter; /* iteration cap; 0: SPX_SOLVE_DEFAULT_MAX_ITER */
    spx_precond precond;
    const spx_vec *inv_diag; /* JACOBI: 1/A(i,i), shaped like x (spx_solve_inv_diag); NONE: NULL */
    double *history;         /* optional: history[k] = ||r_k|| / ||b||, k = 0 (the initial
                                residual) to the last iteration, at most history_cap entries */
    int history_cap;
    /* optional: called with k and ||r_k|| / ||b|| after the initial residual (k = 0) and after
     * each completed iteration, the last included (not for b = 0, nor for an iteration that
     * broke down); a non-zero return stops the solve (SPX_SOLVE_STOPPED) unless that record
     * ended it anyway (converged, NaN/Inf) */
    int (*callback)(void *user, int k, double rel_residual);
    void *user;
    /* iterations between the host's reads of the scalars, which stay where the vectors are
     * (0: automatic: on CUDA measured in the first iterations so that a read costs under 5 % of
     * the time, on the CPU every iteration; 1..SPX_SOLVE_MAX_CHECK_EVERY: that many). The
     * outcome does not depend on it: iterations run past the end change nothing (same x, count,
     * status, history); with a callback it is always 1 (the callback sees every iteration) */
    int check_every;
    /* CUDA: the path asked for (0: SPX_SOLVE_PATH_AUTO). A path that cannot run here (the
     * persistent kernel needs a csr plan, no callback, a device that launches cooperative
     * kernels and holds its grid) falls back to the graph, and spx_solve_result.path_reason says
     * why; the outcome (status, count, x to rounding) does not depend on it */
    spx_solve_path path;
} spx_solve_opts;

typedef struct spx_solve_result {
    spx_solve_status status;
    int iterations;      /* completed iterations (BiCGSTAB: two SpMVs each; one converging
                            at its half step counts) */
    double rel_residual; /* ||r|| / ||b|| of the recurrence at the end (0 when b = 0) */
    int spmvs;           /* operator applications, the initial residual's included */
    double seconds;      /* the whole call: checks, work vectors, iterations */
    double iter_seconds; /* from the initial residual to the last update (CUDA: synchronised) */
    int history_len;     /* entries written to opts.history */
    char reason[192];    /* what happened, after the status's name: the residual and the
                            iteration, or the scalar at fault in a breakdown */
    int graph;           /* CUDA: 1 when an iteration ran as one replayed CUDA graph; 0 on the CPU,
                            for the distributed solvers, or when the format's SpMV could not be
                            captured (then the same steps are launched one by one) */
    int check_every;     /* iterations between the host's reads of the scalars (near the end
                            the host may read sooner, where the residual's decay predicts it) */
    int checks;          /* the host's reads of the scalars during the iterations */
    int iterations_run;  /* iterations launched (>= iterations): those past the end, launched
                            before the host read that it had come, changed nothing, but their
                            SpMVs ran on the GPU (on the CPU they are skipped) */
    double iter_vector_bytes; /* bytes of vectors one iteration's steps move, the SpMVs not
                                 counted (the floor's second term: docs/solvers.md) */
    double graph_seconds; /* CUDA: the capture of the iteration as a graph (instantiation and
                             upload included), once per solve; part of iter_seconds, which less
                             this is the time of the iterations themselves */
    spx_solve_path path;  /* the path that ran: GRAPH (graph = 0 when the SpMV could not be
                             captured), PERSISTENT (graph = 0, checks = 1: the one read at the end,
                             check_every = 0), or HOST */
    char path_reason[160]; /* why that path: asked, auto's rule, or what kept the one asked from
                              running (e.g. "persistent asked, but the plan's format is ehyb, not
                              csr") */
    double kernel_seconds; /* PERSISTENT: the device time of the one launch (CUDA events around
                              it): the iterations alone, without the initial residual and the
                              host's read; 0 on the other paths */
} spx_solve_result;

/* Solves A x = b by conjugate gradients (A symmetric positive definite), with x on entry as
 * the initial guess. A is a square plan; b and x (not the same vector) have its backend,
 * precision, context and length n (and its numbering: for a plan made with SPX_ORDER_PLAN
 * that renumbers, b, x and inv_diag are in the plan's order, so the permutation is paid once
 * for the solve, not in every SpMV); opts may be NULL (defaults). Returns SPX_OK whenever the
 * iteration ran, whatever its outcome (res->status); SPX_ERR_ARG for bad arguments (with a
 * message in the vectors' context), SPX_ERR_NOMEM / SPX_ERR_DEVICE_ALLOC for the work vectors
 * (CG: 3, 4 with Jacobi), SPX_ERR_CUDA. b = 0 gives x = 0, converged in 0 iterations. On CUDA
 * the scalars stay on the device and the iterations run on a side stream of the context (the
 * context's stream is synchronised before the iterations and the side stream after them; the
 * call returns with x complete): each replayed as a CUDA graph, or on a csr plan all of them as
 * one persistent cooperative kernel (opts.path), see docs/solvers.md. */
spx_status spx_solve_cg(spx_plan *A, const spx_vec *b, spx_vec *x, const spx_solve_opts *opts, spx_solve_result *res);
/* Solves A x = b by BiCGSTAB (van der Vorst 1992; any nonsingular A), right-preconditioned
 * with Jacobi when asked; arguments and returns as spx_solve_cg (5 work vectors, 7 with
 * Jacobi). */
spx_status spx_solve_bicgstab(spx_plan *A, const spx_vec *b, spx_vec *x, const spx_solve_opts *opts, spx_solve_result *res);

/* The Jacobi preconditioner of A: a new vector of 1/A(i,i) shaped for plan (its backend,
 * precision, length and numbering: for a plan in its own order (spx_plan_permutation), entry
 * i is 1/A(perm[i],perm[i]); A is the square matrix the plan was made from). A diagonal entry that
 * is not stored, zero, not finite, or whose inverse overflows the precision is SPX_ERR_ARG
 * naming the first such row (1-based, as in the file). */
spx_status spx_solve_inv_diag(spx_ctx *ctx, const spx_csr *A, const spx_plan *plan, spx_vec **out);

/* The path's name: "auto", "graph", "persistent", "host"; never NULL. */
const char *spx_solve_path_str(spx_solve_path p);

/* The status's name, e.g. "converged", "breakdown: p'Ap <= 0"; never NULL. */
const char *spx_solve_status_str(spx_solve_status s);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
