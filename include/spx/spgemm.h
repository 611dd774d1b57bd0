/* include/spx/spgemm.h: sparse matrix-matrix products C = A*B (or A*B^T) in the plan
 * lifecycle: analyse and size C exactly once (symbolic), then compute its values (numeric)
 * as often as the values of A and B change. */
#ifndef SPX_SPGEMM_H
#define SPX_SPGEMM_H

#include "spx/plan.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API: exported by libspx.so */

typedef struct spx_spgemm_opts {
    const char *method;      /* registered method (`spx spgemm --help` lists them); NULL or
                                "auto": "gustavson" on the CPU, "spx" on CUDA */
    const char *algo;        /* the method's algorithm; NULL or "auto": its default (cusparse:
                                alg1, alg2, alg3) */
    spx_backend backend;     /* AUTO = the context's */
    spx_precision precision; /* FP64 (default) or FP32: values stored and summed in it */
    int transpose_b;         /* C = A*B^T: B is given as it is and transposed inside */
} spx_spgemm_opts;

/* Phases of plan creation and of the last run, in the order they happened. */
#define SPX_SPGEMM_MAX_PHASES (2 * SPX_MAX_PHASES)

/* What a plan is, what it found and what it cost. */
typedef struct spx_spgemm_info {
    char method[32];       /* resolved method name */
    char algo[32];         /* resolved algorithm ("default" when the method has none) */
    char kernel[64];       /* the kernel (or CPU loop) that computes C */
    spx_backend backend;   /* CPU or CUDA, never AUTO */
    spx_precision precision;
    int transpose_b;
    int32_t m, k, n;       /* C is m x n; k is the inner dimension */
    int64_t nnz_a, nnz_b;  /* B as given (before any transpose) */
    int64_t nnz_c;         /* exact, from the symbolic phase */
    int64_t products;      /* multiply-adds forming C (sum over A's entries of B's row lengths) */
    double compression;    /* products / nnz_c (0 when C is empty) */
    double plan_seconds;   /* wall time of spx_spgemm_plan_create (analysis and symbolic) */
    double run_seconds;    /* wall time of the last spx_spgemm_run (numeric); 0 before any */
    long runs;             /* spx_spgemm_run calls that succeeded */
    int n_phases;          /* plan phases first, then the last run's */
    spx_phase_time phases[SPX_SPGEMM_MAX_PHASES];
    size_t host_bytes;        /* host memory the plan holds between calls */
    size_t host_peak_bytes;   /* most host memory the plan's calls held above what the
                                 context held when each began (C included) */
    size_t device_bytes;      /* device memory the plan holds between calls */
    size_t device_peak_bytes; /* the same peak on the device */
} spx_spgemm_info;

typedef struct spx_spgemm_plan spx_spgemm_plan;

/* Analyses A (m x k) and B (k x n; n x k with transpose_b) and runs the symbolic phase, so
 * nnz(C) is known exactly. Inner dimensions that differ are SPX_ERR_ARG naming both shapes.
 * The plan keeps pointers to A and B: both must stay alive, with the same pattern, until
 * the plan is destroyed (the CPU method reads them at every run). */
spx_status spx_spgemm_plan_create(spx_ctx *ctx, const spx_csr *A, const spx_csr *B,
                                  const spx_spgemm_opts *opts, spx_spgemm_plan **out);
/* The values of A and B (their own arrays, pattern unchanged) have changed: the next run
 * uses the new ones. Only the numeric phase runs again; nothing is re-analysed. */
spx_status spx_spgemm_plan_update_values(spx_spgemm_plan *p);
/* Computes C (numeric phase). *C NULL: a new CSR (int64 row pointers, sorted columns) the
 * caller frees with spx_csr_destroy; *C from an earlier run of this plan: refilled in place,
 * nothing allocated. Runs use the values as of plan creation or the last update_values. */
spx_status spx_spgemm_run(spx_spgemm_plan *p, spx_csr **C);
/* Fills *info (a self-contained copy). */
spx_status spx_spgemm_plan_get_info(const spx_spgemm_plan *p, spx_spgemm_info *info);
/* Frees *p (NULL accepted) and sets it to NULL. */
void spx_spgemm_plan_destroy(spx_spgemm_plan **p);

/* A registered SpGEMM method, as `spx spgemm --help` lists it. */
typedef struct spx_spgemm_method_desc {
    const char *name;
    const char *summary;
    const char *const *algos; /* NULL-terminated; the first is the default; NULL: none */
    spx_backend backend;      /* where it runs: CPU or CUDA */
    int is_baseline;          /* the vendor library measured as the reference */
    int available;            /* compiled into this build */
} spx_spgemm_method_desc;

int spx_spgemm_method_count(void);
/* Describes the i-th registered method, 0 <= i < spx_spgemm_method_count(). */
spx_status spx_spgemm_method_describe(int i, spx_spgemm_method_desc *out);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
