/* src/solve/solve_steps.h: the solvers' fused steps as the backends run them: the vectors' roles,
 * the steps, the CPU's passes (src/solve/steps_cpu.c) and the device half of a solve
 * (src/solve/steps_cuda.cu; src/solve/steps_stub.c in builds without CUDA): the scalar block in
 * device memory, the steps' kernels, the iteration captured as a CUDA graph and replayed. */
#ifndef SPX_SOLVE_SOLVE_STEPS_H
#define SPX_SOLVE_SOLVE_STEPS_H

#include "core/ctx.h"
#include "solve/solve_scalars.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The vectors a method's steps name, by role (NULL where the method has none). */
typedef enum solve_role {
    SOLVE_V_X = 0, /* the solution */
    SOLVE_V_R,     /* the residual (BiCGSTAB: s in place at the half step) */
    SOLVE_V_P,     /* the direction */
    SOLVE_V_Q,     /* CG: A p; BiCGSTAB: v = A p^ */
    SOLVE_V_Z,     /* CG: M r (r itself without a preconditioner) */
    SOLVE_V_RHAT,  /* BiCGSTAB: the shadow residual r0^ */
    SOLVE_V_T,     /* BiCGSTAB: t = A s^ */
    SOLVE_V_PHAT,  /* BiCGSTAB: M p (p itself without a preconditioner) */
    SOLVE_V_SHAT,  /* BiCGSTAB: M s (r itself without a preconditioner) */
    SOLVE_V_D,     /* Jacobi's 1/diag(A); NULL without a preconditioner */
    SOLVE_N_ROLES
} solve_role;

/* The fused steps (solve_scalars.h says what each does and which finisher ends it). */
typedef enum solve_step {
    SOLVE_CG_INIT = 0,
    SOLVE_CG_PQ,
    SOLVE_CG_R,
    SOLVE_CG_XP,
    SOLVE_BI_INIT,
    SOLVE_BI_P,
    SOLVE_BI_RV,
    SOLVE_BI_S,
    SOLVE_BI_T,
    SOLVE_BI_R,
    SOLVE_N_STEPS
} solve_step;

/* The device half of one solve. */
typedef struct solve_cuda solve_cuda;

/* Opens the device half of a solve of n-entry vectors: the scalar block and the steps' partial
 * sums in device memory, the block's page-locked host copy (*host: what the host fills before
 * the first step and reads at each check), and the stream the iterations run on: a side stream
 * of the context, set as its stream until spx_solve_cuda_close (a stream can be captured; the
 * legacy default stream cannot). The context's stream must be idle (the initial residual's
 * norm synchronised it). */
spx_status spx_solve_cuda_open(spx_ctx *ctx, int64_t n, solve_cuda **out, solve_scalars **host);
/* Copies the host block to the device (asynchronous on the solve's stream). */
spx_status spx_solve_cuda_put(solve_cuda *c);
/* Copies the device block to the host block and waits for it: the host's check. */
spx_status spx_solve_cuda_get(solve_cuda *c);
/* Launches step over the vectors' device data by role (ptr[SOLVE_V_D] NULL: no
 * preconditioner), n entries of precision p, on the solve's stream; nothing is synchronised. */
spx_status spx_solve_cuda_step(solve_cuda *c, solve_step step, spx_precision p, int64_t n,
                               void *const ptr[SOLVE_N_ROLES]);
/* Captures body(arg) (one iteration's launches, recorded, not run) as a CUDA graph and
 * instantiates it: *ok = 1; *ok = 0 when it cannot be captured (a launch path that
 * synchronises, say), the runtime's error cleared: the caller then launches plainly. Other
 * errors are returned. */
spx_status spx_solve_cuda_capture(solve_cuda *c, spx_status (*body)(void *arg), void *arg, int *ok);
/* Launches the captured iteration once on the solve's stream. */
spx_status spx_solve_cuda_replay(solve_cuda *c);
/* The scalar block in device memory (the persistent kernel's, src/solve/persist_cuda.cu). */
solve_scalars *spx_solve_cuda_block(solve_cuda *c);
/* Frees the device half (NULL: nothing) and gives the context its stream back. */
void spx_solve_cuda_close(solve_cuda *c);

#ifdef __cplusplus
}
#endif

#endif
