/* include/spx/bench.h: the measuring protocol (warm-up, medians, verification, bandwidth):
 * each result has two times, the latency of one call and the throughput of back-to-back
 * calls (see docs/design.md, "Measuring"). */
#ifndef SPX_BENCH_H
#define SPX_BENCH_H

#include "spx/plan.h"
#include "spx/spgemm.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API: exported by libspx.so */

/* One matrix prepared for measuring: random x and y0, and the extended-precision references
 * y_ref = A*x (b = 0) and y_ref_b = ALPHA*A*x + BETA*y0. */
typedef struct spx_bench_case spx_bench_case;

spx_status spx_bench_case_create(spx_ctx *ctx, const spx_csr *A, unsigned seed,
                                 spx_bench_case **out);
/* The same with the caller's x (A->n values, copied; NULL: random as above). fp32 plans take
 * x rounded to float and are verified against A*x of the unrounded x: the rounding (2^-24
 * relative per entry) is of the order of the fp32 sum's own error, which the fp32 tolerance
 * covers. */
spx_status spx_bench_case_create_x(spx_ctx *ctx, const spx_csr *A, unsigned seed, const double *x,
                                   spx_bench_case **out);
void spx_bench_case_destroy(spx_bench_case **c);

typedef struct spx_bench_opts {
    int reps;        /* timed single runs (median reported); 0 = default (CPU 20, GPU 100);
                        also bounds the number of batches (at most 5) */
    int warmup;      /* untimed runs first; 0 = default 3 */
    int cold;        /* 1 = flush the GPU L2 before each timed run; no batch time then */
    double tol;      /* relative error bound; 0 = default (fp64 1e-12, fp32 1e-6*sqrt(max(row, 100))) */
    int batch_calls; /* calls per batch; 0 = enough for a batch of >= 1 ms (4 to 10000) */
    double *y_out;   /* optional (A->m doubles): receives y = A*x of the first verification run
                        (b = 0; fp32 results widened exactly), written whenever that run
                        succeeded, whether or not it verified (see the result's verified) */
    int plan_reps;   /* plans made one after another (the median's time and phases reported,
                        the SpMVs run on the last); 0 = default SPX_BENCH_PLAN_REPS */
    double demo_extra_work; /* a demonstration switch, never set in a real measurement: in
                        (0, 1], every timed SpMV is followed by one of a second plan (the same
                        options, caller's order) over the leading rows that hold this fraction
                        of the nonzeros, into a scratch y, so the measured time grows by about
                        that fraction (more on launch-bound matrices). It shows that the
                        performance gate (scripts/perf_gate.py) catches a slower kernel without
                        a second build; `spx bench` sets it from SPX_BENCH_DEMO_SLOWDOWN.
                        0 = off */
} spx_bench_opts;

/* Plans a SpMV measurement makes by default: one plan's time moves by up to 2x between plans
 * of the same matrix (host copies and checks; the first plan after a matrix is made pays most;
 * H100 host, 2026-11-27), so one plan is not a measurement of plan time. */
#define SPX_BENCH_PLAN_REPS 3
/* The most plans spx_bench_opts.plan_reps may ask for. */
#define SPX_BENCH_MAX_PLAN_REPS 15

typedef struct spx_bench_result {
    spx_plan_info plan;
    spx_status status;    /* SPX_OK, or why the plan or a run failed (message in msg) */
    char msg[256];
    int reps;
    double t_median, t_min, t_max; /* latency: seconds of one SpMV, each timed on its own */
    double gflops;                 /* 2*nnz / t_median / 1e9 */
    double gbytes;                 /* plan.bytes_per_spmv / t_median / 1e9 */
    double rel_error;              /* max over the b = 0 and b != 0 checks */
    int verified;                  /* rel_error <= tol and finite */
    int cold;
    /* Throughput: batches of batch_calls SpMVs back to back (no synchronisation or flush
     * between them), one timing around each batch; t_batch is the median over the batches
     * of (batch time / batch_calls). NaN (batches 0) when not measured: cold runs. */
    double t_batch;
    int batch_calls, batches;
    double gflops_batch; /* 2*nnz / t_batch / 1e9 (NaN with t_batch) */
    double gbytes_batch; /* plan.bytes_per_spmv / t_batch / 1e9 (NaN with t_batch) */
    int plan_reps;       /* plans made: plan is the one of median plan time */
} spx_bench_result;

/* Plans A in the given format, verifies, times; fills *r even when the plan is refused
 * (r->status says why). Returns SPX_OK unless the arguments are bad or memory ran out. */
spx_status spx_bench_spmv(spx_ctx *ctx, const spx_bench_case *c, const spx_plan_opts *popts,
                          const spx_bench_opts *bopts, spx_bench_result *r);

/* SpMM measuring (spx_plan_spmm): one plan, X (n x k) random and fp32-representable, verified
 * column by column against the oracle (Y poisoned with NaN and b = 0; then b != 0; then the last
 * timed output), timed by the SpMV's protocol: single calls and batches back to back (host
 * blocks and the wall clock on the CPU; device blocks and CUDA events on the GPU, transfers not
 * timed). */
typedef struct spx_bench_spmm_opts {
    int64_t k;               /* columns of X and Y (>= 1) */
    spx_dense_layout layout; /* of X and Y (their leading dimension: a line) */
    int reps;                /* timed single runs; 0 = default (CPU 20, GPU 100) */
    int warmup;              /* untimed runs first; 0 = default 3 */
    int cold;                /* 1 = flush the GPU L2 before each timed run; no batch time then */
    double tol;              /* relative error bound a column; 0 = the SpMV's default */
} spx_bench_spmm_opts;

typedef struct spx_bench_spmm_result {
    spx_plan_info plan;
    spx_spmm_info spmm; /* the kernel that ran, or the fallback named; the call's bytes */
    spx_status status;  /* SPX_OK, or why the plan or a run failed (message in msg) */
    char msg[256];
    int64_t k;
    spx_dense_layout layout;
    int reps;
    double t_median, t_min, t_max; /* latency: seconds of one SpMM, each timed on its own */
    double t_batch;                /* per SpMM back to back (NaN when not measured: cold) */
    int batch_calls, batches;
    double gflops, gflops_batch;   /* 2*nnz*k / t / 1e9 */
    double gbytes, gbytes_batch;   /* spmm.bytes / t / 1e9 */
    double rel_error;              /* the worst column over the three checks */
    int verified;                  /* rel_error <= tol and finite */
} spx_bench_spmm_result;

/* Plans A with popts and measures Y = A*X as bopts asks; fills *r even when the plan or a run
 * fails (r->status and r->msg say why). Returns SPX_OK unless the arguments are bad (k < 1, an
 * unknown layout: SPX_ERR_ARG with a message) or memory ran out. */
spx_status spx_bench_spmm(spx_ctx *ctx, const spx_csr *A, const spx_plan_opts *popts, const spx_bench_spmm_opts *bopts,
                          spx_bench_spmm_result *r);

/* SpGEMM measuring: the first run (C allocated) timed on its own, then warm-up runs and
 * timed runs refilling C in place (the numeric phase of a plan whose values change), each
 * timed alone with the wall clock on both backends: a run ends with C on the host. */
typedef struct spx_bench_spgemm_opts {
    int reps;   /* timed numeric runs (median reported); 0 = default 5 */
    int warmup; /* untimed runs after the first; 0 = default 1 */
} spx_bench_spgemm_opts;

typedef struct spx_bench_spgemm_result {
    spx_spgemm_info info;  /* the plan, its phases and the last timed run's */
    spx_status status;     /* SPX_OK, or why the plan or a run failed (message in msg) */
    char msg[256];
    int threads;           /* the context's OpenMP threads (the CPU method's) */
    int reps;
    double first_run_s;    /* the first run: C allocated and filled */
    double total_s;        /* plan_seconds + first_run_s: one product from nothing */
    double t_median, t_min, t_max; /* numeric runs refilling C in place */
    double gflops_numeric; /* 2*products / t_median / 1e9 */
    double gflops_total;   /* 2*products / total_s / 1e9 */
    /* The whole call from device operands (spx_bench_spgemm_device; 0 when not measured): the
     * median over timed runs of A and B wrapped (spx_csr_dev_wrap, their check on the device)
     * plus spx_spgemm_dev (plan, one run, C complete on the device, the plan destroyed); the
     * operands uploaded once before the runs, with int32 row pointers (as CuPy holds them), B^T
     * made explicitly for transpose_b (peers take both operands as given). */
    double t_device_call_s;
    double t_device_wrap_s;    /* of which the wraps (median) */
    double t_device_we_copy_s; /* cuSPARSE: the device call's work estimation to copy (its
                                  symbolic and numeric phases; median); 0 for other methods */
    spx_spgemm_info device_info; /* the last device call's report; its phases the whole call's:
                                    "wrap" first, the plan's and the run's, "destroy", then
                                    "other" (what none of them timed), summing to its time */
    double t_device_call_first_s; /* the first call, the context's memory pool dropped before it
                                     (made anew, empty): what a new context's first call pays,
                                     the kernels' first loading aside */
    spx_spgemm_info device_info_first; /* its report, phases as device_info's */
} spx_bench_spgemm_result;

/* Plans C = A*B (A*B^T) with gopts, runs it once (C allocated), then warm-up and timed runs
 * into the same C, which is poisoned (NaN values, -1 indices) after the warm-up so *C holds
 * what the last timed run wrote. Fills *r even when the plan or a run fails (r->status and
 * r->msg say why; *C is then NULL); *C (NULL on entry) is the caller's to destroy. Returns
 * SPX_OK unless the arguments are bad. */
spx_status spx_bench_spgemm(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, const spx_spgemm_opts *gopts,
                            const spx_bench_spgemm_opts *bopts, spx_bench_spgemm_result *r, spx_csr **C);

/* The floor under a GPU SpMV's times: an empty kernel called as a CUDA plan's one-kernel SpMV
 * is (the thread bound to the device, one launch on the context's stream) and timed by the same
 * protocol with the SpMV's defaults: *call_s its median single-call time (CUDA events around
 * one call), *batch_s its time per call back to back. A one-kernel SpMV's call time cannot go
 * below call_s; call_s - batch_s is what a lone call pays beyond a call in a stream. */
spx_status spx_bench_launch_floor(spx_ctx *ctx, double *call_s, double *batch_s);
/* The whole SpGEMM call from device operands into r's t_device_* fields, device_info and
 * device_info_first (see there; gopts as for spx_bench_spgemm, transpose_b given as B^T): the
 * first call with the context's memory pool dropped before it, then the timed ones (bopts'
 * reps: the steady state); *C (NULL on entry) receives the last call's C downloaded, for the
 * caller's check. A failed call is r->status with r->msg. Returns SPX_OK unless the arguments
 * are bad. */
spx_status spx_bench_spgemm_device(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, const spx_spgemm_opts *gopts,
                                   const spx_bench_spgemm_opts *bopts, spx_bench_spgemm_result *r, spx_csr **C);

/* Host memory bandwidth in bytes/s: a STREAM-like triad-and-copy over arrays far larger
 * than the caches, best of several runs, counting bytes read plus written. */
spx_status spx_bench_host_bandwidth(spx_ctx *ctx, double *bytes_per_s);
/* Device copy bandwidth in bytes/s (read + write), CUDA events, median of runs. */
spx_status spx_bench_device_bandwidth(spx_ctx *ctx, double *bytes_per_s);

/* Device description for records: name, SM count, L2 bytes, CUDA runtime version. */
typedef struct spx_device_info {
    char name[128];
    int sm_count;
    long long l2_bytes;
    long long global_bytes;
    int smem_per_block_optin;
    int cc_major, cc_minor;
    int runtime_version, driver_version;
} spx_device_info;
spx_status spx_device_query(spx_ctx *ctx, spx_device_info *out);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
