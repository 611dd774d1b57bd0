/* src/solve/solve_steps.h: the solvers' fused steps as the backends run them: the vectors' roles
 * and the steps (the CPU's passes: src/solve/steps_cpu.c). */
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

#ifdef __cplusplus
}
#endif

#endif
