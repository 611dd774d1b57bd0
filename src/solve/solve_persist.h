/* src/solve/solve_persist.h: the persistent path (issue 49): a CG or BiCGSTAB solve as one
 * cooperative kernel over a csr plan's device arrays (src/solve/persist_cuda.cu;
 * src/solve/persist_stub.c without CUDA): its launch shape, the rule that picks it or the graph
 * (src/solve/persist.c, pure, so the CPU tests run it), and its one launch. */
#ifndef SPX_SOLVE_SOLVE_PERSIST_H
#define SPX_SOLVE_SOLVE_PERSIST_H

#include "matrix/csr_dev.h"
#include "solve/solve_steps.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The methods with a persistent kernel (solve_method.persistent). */
typedef enum solve_persist_method { SOLVE_PERSIST_NONE = 0, SOLVE_PERSIST_CG, SOLVE_PERSIST_BICGSTAB } solve_persist_method;

/* The launch shape of the persistent kernel for one solve on the context's device. */
typedef struct solve_persist_shape {
    int coop;     /* the device launches cooperative kernels (cudaDevAttrCooperativeLaunch) */
    int resident; /* blocks of the kernel resident at once: occupancy x SMs (0: none fits) */
    int grid;     /* blocks launched: resident, capped by the work (solve_persist_grid) */
    int group;    /* lanes a row in the kernel's SpMV (solve_persist_group) */
} solve_persist_shape;

/* What decides the path of a solve (solve_path_choose). */
typedef struct solve_path_facts {
    spx_solve_path asked; /* opts.path */
    int device;           /* a CUDA plan's solve with fused steps (else the host path) */
    int method;           /* the method has a persistent kernel (CG, BiCGSTAB) */
    const char *not_csr;  /* why the plan's device arrays cannot be the kernel's; NULL: they can */
    int callback;         /* opts.callback: the host must read every iteration */
    int check_every;      /* opts.check_every (> 0: reads every that many iterations asked) */
    int64_t nnz;
    solve_persist_shape shape; /* the device's answer (read only when the rest allows it) */
} solve_path_facts;

/* The path facts f give, and why into why[0..len) (a sentence without the path's name). */
spx_solve_path solve_path_choose(const solve_path_facts *f, char *why, size_t len);
/* Lanes a row of the kernel's SpMV for n rows of nnz nonzeros: the smallest power of two from
 * 1 to 32 giving a lane at most SOLVE_PERSIST_NZ_PER_LANE nonzeros of the mean row. */
int solve_persist_group(int64_t n, int64_t nnz);
/* Blocks to launch: enough for a thread an entry and group lanes a row (n rows), at least 1,
 * at most resident. */
int solve_persist_grid(int resident, int64_t n, int group);

/* The shape of method m's kernel for n rows of nnz nonzeros in precision p (Jacobi or not) on
 * the context's device: the cooperative-launch attribute, the occupancy of that kernel; nothing
 * launched. */
spx_status spx_solve_persist_shape(spx_ctx *ctx, solve_persist_method m, spx_precision p, int jacobi, int64_t n,
                                   int64_t nnz, solve_persist_shape *out);

/* One persistent solve: its method, context and precision, the shape, the plan's device CSR,
 * the vectors' device data by role (the method's, and D with Jacobi, else NULL), and where the
 * history goes. */
typedef struct solve_persist_job {
    solve_persist_method method;
    spx_ctx *ctx;
    spx_precision precision;
    solve_persist_shape shape;
    spx_dev_csr A;
    void *v[SOLVE_N_ROLES];
    int64_t n;
    double *history; /* host: entries 1 .. history_len - 1 filled from the device (NULL: none) */
    int history_len;
} solve_persist_job;

/* Runs the method's iterations after its first step (SOLVE_CG_INIT, SOLVE_BI_INIT) as one
 * cooperative launch on the solve's stream, from the scalar block c holds on the device until its status ends; then reads
 * the block back into host (c's host copy: the one check) and copies the records 1 ..
 * min(rec_k, history_len - 1) into job->history. *seconds: the launch's device time (CUDA
 * events). Device memory: the partial sums and the history, freed before it returns. */
spx_status spx_solve_persist_run(solve_cuda *c, const solve_scalars *host, const solve_persist_job *job, double *seconds);

#ifdef __cplusplus
}
#endif

#endif
