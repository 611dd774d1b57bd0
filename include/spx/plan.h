/* include/spx/plan.h: plans (analyse, convert, upload once; run many times): SpMV on vectors,
 * SpMM on dense blocks, over the same layout; and the format registry. */
#ifndef SPX_PLAN_H
#define SPX_PLAN_H

#include "spx/dense.h"
#include "spx/matrix.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API: exported by libspx.so */

/* Where a CUDA plan builds its layout. */
typedef enum spx_build_site {
    SPX_BUILD_AUTO = 0, /* on the device when the format can, else on the host */
    SPX_BUILD_HOST,     /* on the host, then uploaded */
    SPX_BUILD_DEVICE    /* on the device from the uploaded CSR (SPX_ERR_UNSUPPORTED if the
                           format cannot) */
} spx_build_site;

/* The numbering of a plan's x and y. */
typedef enum spx_vector_order {
    SPX_ORDER_CALLER = 0, /* the matrix's own: y[i] is row i of A (every plan, the default) */
    SPX_ORDER_PLAN        /* the plan's renumbering when its format has one (spx_plan_permutation):
                             x and y are P x and P y, so a solver that keeps its vectors in
                             that order pays the permutation once, not in every SpMV; formats
                             without one (and ehyb when its layout cannot) stay in the
                             caller's order, and spx_plan_permutation says so */
} spx_vector_order;

typedef struct spx_plan_opts {
    const char *format;      /* registered format name; NULL or "auto" = chosen per matrix by the
                                trained table (spx_plan_select, docs/select.md) */
    const char *algo;        /* the format's algorithm; NULL or "auto" = the format's choice */
    spx_backend backend;     /* AUTO = the context's */
    spx_precision precision; /* FP64 (default) or FP32 */
    spx_build_site build;    /* CUDA plans: where the layout is built (AUTO) */
    int64_t expected_spmvs;  /* SpMVs the plan will run, which weighs its build time when the
                                format is "auto" (0: not given, SPX_SELECT_DEFAULT_SPMVS; < 0 is
                                an error) */
    spx_vector_order order;  /* the numbering of x and y (SPX_ORDER_CALLER) */
} spx_plan_opts;

/* The SpMV count "auto" plans for when spx_plan_opts.expected_spmvs is 0. */
#define SPX_SELECT_DEFAULT_SPMVS 100

/* What format "auto" picks for a matrix, and why (spx_plan_select). */
typedef struct spx_selection {
    char format[32], algo[32];               /* the choice; algo "auto": the format's own */
    char runner_format[32], runner_algo[32]; /* the next best in the table's training ("" none) */
    spx_backend backend;                     /* the backend chosen for */
    int64_t expected_spmvs;                  /* the SpMV count chosen for */
    char why[320];                           /* the rule path and its training figures */
} spx_selection;

/* Most named phases a plan reports (the CSR check, upload, features, a format's build steps,
 * finish: up to 8 so far). */
#define SPX_MAX_PHASES 12

typedef struct spx_phase_time {
    const char *name; /* e.g. "convert", "upload", "analyse" */
    double seconds;
} spx_phase_time;

#define SPX_MAX_LAYOUT_STATS 24

/* One figure a format reports about its layout (tile shape, block count, balance before and
 * after reordering...), as `spx info SRC --format F` prints it: a number, or text when set. */
typedef struct spx_layout_stat {
    char key[32];
    double value;
    char text[48];
} spx_layout_stat;

/* What a plan is and what it cost to make. */
typedef struct spx_plan_info {
    char format[32];       /* resolved format name */
    char algo[32];         /* resolved algorithm name */
    char kernel[64];       /* the kernel (or CPU loop) that actually runs */
    int32_t m, n;          /* the matrix's rows and columns (y and x lengths) */
    spx_backend backend;   /* CPU or CUDA, never AUTO */
    spx_precision precision;
    double bytes_per_spmv; /* minimum bytes one SpMV with b = 0 moves on this layout */
    double plan_seconds;   /* wall time of spx_plan_create */
    int built_on_device;   /* the layout was built on the GPU from the uploaded CSR */
    int plan_order;        /* x and y are in the plan's numbering (spx_plan_permutation) */
    size_t device_bytes;   /* device memory the plan holds (layout, preprocessing, staging) */
    int n_phases;
    spx_phase_time phases[SPX_MAX_PHASES];
    int n_stats;           /* the format's own figures about its layout (may be 0) */
    spx_layout_stat stats[SPX_MAX_LAYOUT_STATS];
} spx_plan_info;

/* Threads and streams. A context and everything made from it are used by one thread at a
 * time, with one exception: a CPU plan may run (spx_plan_spmv, _f32) on several threads at
 * once, its layout being read-only during SpMV (a failing call's message then lands in the
 * shared context, last writer wins). Any number of threads may each use their own context;
 * give each an explicit `threads` count (spx_ctx_opts) or N contexts start N x cores OpenMP
 * threads. A CUDA plan takes one call at a time: its staging vectors and the per-call device
 * state of some algorithms (merge carries, stream split counters, hbp's gathered x, cuSPARSE's
 * vector descriptors) belong to the plan, so a second call entering while one runs is refused with
 * SPX_ERR_ARG; to run one matrix on several streams at once, make a plan per stream. Calls
 * run on the context's stream at the time of the call, in order on that stream, and bind the
 * calling thread to the context's device. */
typedef struct spx_plan spx_plan;

/* Analyses and converts A (and uploads it for CUDA); A may be freed afterwards. */
spx_status spx_plan_create(spx_ctx *ctx, const spx_csr *A, const spx_plan_opts *opts,
                           spx_plan **out);
/* As spx_plan_create, A on the device (a spx_csr_dev of ctx, checked when wrapped): no host
 * round trip for a CUDA plan whose format builds on the device: A copied there as the builds take
 * it (phase "copy": int32 row pointers, the plan's precision, converted on the device), its
 * features taken there, the layout built there. A format that builds only on the host, or a CPU
 * plan, takes a host copy downloaded once (phase "download"). A may be freed afterwards. */
spx_status spx_plan_create_dev(spx_ctx *ctx, const spx_csr_dev *A, const spx_plan_opts *opts, spx_plan **out);
/* y = a*A*x + b*y, host arrays, fp64 plans. b = 0: y is not read. x, y must not alias. */
spx_status spx_plan_spmv(spx_plan *p, double a, const double *x, double b, double *y);
/* y = a*A*x + b*y, host arrays, fp32 plans. */
spx_status spx_plan_spmv_f32(spx_plan *p, float a, const float *x, float b, float *y);
/* y = a*A*x + b*y on device arrays of the plan's precision (CUDA plans only); allocates
 * nothing, runs on the context's stream, does not synchronise. */
spx_status spx_plan_spmv_device(spx_plan *p, double a, const void *x, double b, void *y);
/* Y = a*A*X + b*Y for dense blocks X (n x k) and Y (m x k), k >= 1, on the plan's layout: the
 * blocks of the plan's context, precision and backend (CPU plan: host blocks; CUDA plan: device
 * blocks, asynchronous on the context's stream), X n and Y m rows (in the plan's numbering for
 * SPX_ORDER_PLAN), as many columns, one layout, not overlapping. b = 0 never reads Y. A format
 * with an SpMM kernel for the backend runs it; one without runs k SpMVs, one a column (a
 * row-major block's columns gathered into the plan's work vectors), and says so
 * (spx_plan_spmm_info). Bad input: SPX_ERR_ARG with a message, Y untouched. */
spx_status spx_plan_spmm(spx_plan *p, double a, const spx_dense *X, double b, spx_dense *Y);

/* What an SpMM of k columns in a layout runs on a plan. */
typedef struct spx_spmm_info {
    char kernel[64]; /* the SpMM kernel (or CPU loop); for the fallback "<SpMV kernel>_spmv_x<k>" */
    int fallback;    /* 1: the format has no SpMM kernel there: k SpMVs, one a column */
    double bytes;    /* minimum bytes the call moves with b = 0: A once (k times for the
                        fallback), X and Y once */
} spx_spmm_info;

/* Fills *out for spx_plan_spmm(p, ..., X, ..., Y) with k columns in layout. */
spx_status spx_plan_spmm_info(const spx_plan *p, int64_t k, spx_dense_layout layout, spx_spmm_info *out);
/* The format and algorithm spx_plan_create would take for A with opts when its format is
 * "auto" (opts->format is ignored; a CUDA backend need not be present: the choice is the
 * table's), and why. From features computed on the host as the plan would take them: for a
 * CUDA backend the column measures from the same sample of SPX_FEATURES_COL_SAMPLES entries a
 * CUDA plan reads on the device, so the two choose alike (the mean distance from the diagonal
 * may differ in its last bits: it is summed in another order). */
spx_status spx_plan_select(spx_ctx *ctx, const spx_csr *A, const spx_plan_opts *opts, spx_selection *out);
/* The plan's numbering of x and y: *perm (m = n values, new -> original: entry i of the plan's
 * x is x[perm[i]] and y[perm[i]] is entry i of its y) when the plan was made with
 * SPX_ORDER_PLAN and its layout renumbers, else NULL (the caller's order). The array belongs
 * to the plan. */
spx_status spx_plan_permutation(const spx_plan *p, const int32_t **perm);
/* Fills *info (a self-contained copy: it outlives the plan). */
spx_status spx_plan_get_info(const spx_plan *p, spx_plan_info *info);
/* Converts the plan's layout back to CSR (the round-trip check of every format): a CUDA
 * plan's from what the GPU holds when the format can download it, else the host layout. */
spx_status spx_plan_to_csr(const spx_plan *p, spx_csr **out);
/* Frees *p (NULL accepted) and sets it to NULL. */
void spx_plan_destroy(spx_plan **p);

/* A registered format, as `spx formats` lists it. */
typedef struct spx_format_desc {
    const char *name;
    const char *summary;
    const char *const *algos; /* NULL-terminated; the first is the default */
    int has_cpu;  /* a CPU SpMV on the format's own layout exists */
    int has_cuda; /* a CUDA SpMV exists and is compiled into this build */
    int is_baseline;       /* a vendor library measured as the reference (cuSPARSE) */
    int builds_on_device;  /* CUDA plans can build the layout on the GPU from the CSR */
    const char *const *device_algos; /* ... for these algorithms (NULL-terminated; NULL: all) */
    int has_device_to_csr; /* a CUDA plan's device layout converts back to CSR */
    int has_plan_order;    /* its plans may take x and y in their own numbering (SPX_ORDER_PLAN) */
    const char *kernel_prefix; /* every kernel name the format reports starts with this */
    int available;               /* 0: not built in this build (why_unavailable says why) */
    const char *why_unavailable; /* NULL when available */
} spx_format_desc;

int spx_format_count(void);
/* Describes the i-th registered format, 0 <= i < spx_format_count(). */
spx_status spx_format_describe(int i, spx_format_desc *out);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
