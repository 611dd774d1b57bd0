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

/* Whether and how a plan splits A's rows into panels computed one after the other within the
 * device budget (the out-of-core path, docs/spgemm.md "Beyond GPU memory"). */
typedef enum spx_spgemm_panels {
    SPX_PANELS_AUTO = 0, /* in-core, unless a CUDA plan of method spx (or auto) finds that A, B, C
                            and its workspace exceed the device budget: then SPX_PANELS_HETERO */
    SPX_PANELS_OFF,      /* in-core always (an allocation past the budget fails) */
    SPX_PANELS_HETERO,   /* panels shared by the GPU (spx) and the CPU (gustavson), ApSpGEMM §5.2 */
    SPX_PANELS_GPU,      /* panels on the GPU only (spx) */
    SPX_PANELS_CPU       /* panels on the CPU only (gustavson; any build, sized to the same budget) */
} spx_spgemm_panels;

typedef struct spx_spgemm_opts {
    const char *method;      /* registered method (`spx spgemm --help` lists them); NULL or
                                "auto": "gustavson" on the CPU, "spx" on CUDA */
    const char *algo;        /* the method's algorithm; NULL or "auto": its default (cusparse:
                                alg1, alg2, alg3; spx: default, with ApSpGEMM's dense x dense
                                panels where its cost rule takes them, sparse: never, dense:
                                wherever they exist and fit) */
    spx_backend backend;     /* AUTO = the context's */
    spx_precision precision; /* FP64 (default) or FP32: values stored and summed in it */
    int transpose_b;         /* C = A*B^T: B is given as it is and transposed inside */
    size_t device_mem_limit; /* bytes of device memory the plan may hold (every GPU allocation
                                of its calls, above what the context held before); 0: the
                                context's device budget, else the device's free memory */
    spx_spgemm_panels panels;
    double gpu_share;        /* SPX_PANELS_HETERO: the GPU's planned share R of the products,
                                in (0, 1]; 0: R = K / (K + 1), K measured at plan time */
    size_t pin_min_bytes;    /* GPU panels: host ranges of this many bytes and more that a panel
                                copies are page-locked for its copies; 0: none (the default:
                                on an H100 locking cost as much as it saved, docs/spgemm.md) */
    int gpu_counts_rows;     /* GPU panels count C's rows themselves instead of taking the CPU's
                                symbolic counts (the default, 0: measured ~15 % faster) */
    int b_col_blocks;        /* panels: B's column blocks on the GPU side. 0 (default): B
                                resident when it fits the budget beside a panel, else split
                                by columns into the fewest blocks that leave the panels room
                                (each GPU panel then uploads every block in turn); 1: always
                                resident (a budget B does not fit is an error); N >= 2: about
                                N blocks of equal nonzeros (a column heavier than a block's
                                share is a block of its own; B with entries in one column
                                only stays whole) */
    spx_index_type c_rowptr_type; /* spx_spgemm_run_dev's C: its row pointers' type; DEFAULT: A's
                                     for a plan made from device CSRs, int64 otherwise */
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
    size_t device_peak_bytes; /* the same peak on the device (panels: B resident and the GPU
                                 lanes' peaks, measured) */
    /* The out-of-core path (zeros, panel_split "", when in-core). */
    char panel_mode[16];      /* "in-core" or "panels" */
    char panel_split[16];     /* panels: "hetero", "gpu" or "cpu" */
    size_t device_mem_limit;  /* the device budget the plan sized itself to (SPX_BUDGET_NONE: none,
                                 or not asked: an in-core spx plan from device operands whose
                                 context's memory pool served C's bytes, docs/spgemm.md) */
    int panels;               /* row panels of A */
    int b_col_blocks;         /* B's column blocks on the GPU side (1: B whole, resident) */
    int32_t panel_rows_max;   /* rows of the largest panel */
    double k_ratio;           /* hetero: K = CPU time / GPU time per product on the plan's sample */
    double gpu_share;         /* hetero: the planned GPU share R of the products */
    /* The last run's panels. */
    int panels_gpu, panels_cpu; /* computed by each side */
    int panels_stolen;        /* taken by one side past the planned split (work stealing) */
    double gpu_share_run;     /* share of the products the GPU computed */
    int gpu_lanes;            /* GPU panels in flight at once (each a host thread and stream) */
    double gpu_transfer_s;    /* GPU side: uploads of A's panels and downloads of C's, summed
                                 over the lanes */
    double gpu_compute_s;     /* GPU side: analysis, symbolic and numeric of its panels, summed
                                 over the lanes */
    double gpu_idle_s;        /* GPU side: from its first panel's start to its last one's end,
                                 the time no lane computed (transfers not hidden, waits) */
    double cpu_compute_s;     /* CPU side: its panels' numeric */
    int inputs_on_device;     /* made from device CSRs (spx_spgemm_plan_create_dev) */
} spx_spgemm_info;

/* One panel of the last run, for timelines: times in seconds from the run's start; a CPU
 * panel has no transfers (upload and download zero-length at its compute's ends). */
typedef struct spx_spgemm_panel_event {
    int panel;              /* index in A's row order */
    int32_t row0, row1;     /* A's rows [row0, row1) */
    int64_t nnz_c, products;
    double affinity;        /* ApSpGEMM §5.2: mean sparsity of the panel's A part and B part */
    int on_gpu;
    int stolen;             /* taken past the planned split */
    double upload0, upload1, compute0, compute1, download0, download1;
} spx_spgemm_panel_event;

typedef struct spx_spgemm_plan spx_spgemm_plan;

/* Analyses A (m x k) and B (k x n; n x k with transpose_b) and runs the symbolic phase, so
 * nnz(C) is known exactly. Inner dimensions that differ are SPX_ERR_ARG naming both shapes.
 * The plan keeps pointers to A and B: both must stay alive, with the same pattern, until
 * the plan is destroyed (the CPU method reads them at every run). */
spx_status spx_spgemm_plan_create(spx_ctx *ctx, const spx_csr *A, const spx_csr *B,
                                  const spx_spgemm_opts *opts, spx_spgemm_plan **out);
/* As spx_spgemm_plan_create, A and B on the device (spx_csr_dev of the plan's context, checked
 * when wrapped; columns sorted: SPX_ERR_ARG naming the first unsorted row otherwise). A CUDA
 * in-core plan reads them in place, nothing copied to the host: the kernels take A's and B's
 * own arrays where their row pointers are int32 and their values of the plan's precision, and
 * copies converted on the device otherwise (phase "view"). What runs on the host (a CPU method,
 * out-of-core panels, the transpose of B) takes a host copy downloaded once (phase
 * "download"). A and B (their arrays) must stay alive, pattern unchanged, until the plan is
 * destroyed. */
spx_status spx_spgemm_plan_create_dev(spx_ctx *ctx, const spx_csr_dev *A, const spx_csr_dev *B,
                                      const spx_spgemm_opts *opts, spx_spgemm_plan **out);
/* The values of A and B (their own arrays, pattern unchanged) have changed: the next run
 * uses the new ones. Only the numeric phase runs again; nothing is re-analysed. */
spx_status spx_spgemm_plan_update_values(spx_spgemm_plan *p);
/* Computes C (numeric phase). *C NULL: a new CSR (int64 row pointers, sorted columns) the
 * caller frees with spx_csr_destroy; *C from an earlier run of this plan: refilled in place,
 * nothing allocated. Runs use the values as of plan creation or the last update_values. */
spx_status spx_spgemm_run(spx_spgemm_plan *p, spx_csr **C);
/* Computes C (numeric phase) on the device, of any plan: *C NULL: a new device CSR (row
 * pointers of opts.c_rowptr_type, values of the plan's precision, sorted columns; one device
 * allocation through the context, from its memory pool on its stream (the caller's allocator
 * when installed), counted in its device memory, not the plan's; valid until the caller frees it
 * with spx_csr_dev_destroy, the plan's destruction aside); *C from an earlier spx_spgemm_run_dev
 * of this plan: refilled in place. A CUDA in-core plan writes C where it computes it; any other computes C on the host
 * and uploads it (phase "upload C"). Returns once C is complete on the device. int32 row
 * pointers for more than 2^31 - 1 nonzeros: SPX_ERR_OVERFLOW. */
spx_status spx_spgemm_run_dev(spx_spgemm_plan *p, spx_csr_dev **C);
/* C = A*B (A*B^T) from device CSRs into a new device CSR *C (NULL on entry): plan, one run,
 * plan destroyed; *info (NULL: not wanted) the plan's report, the plan's destruction its last
 * phase ("destroy"). */
spx_status spx_spgemm_dev(spx_ctx *ctx, const spx_csr_dev *A, const spx_csr_dev *B, const spx_spgemm_opts *opts,
                          spx_csr_dev **C, spx_spgemm_info *info);
/* Fills *info (a self-contained copy). */
spx_status spx_spgemm_plan_get_info(const spx_spgemm_plan *p, spx_spgemm_info *info);
/* Copies the last run's panel events, at most cap, in the order the panels finished, into out
 * (NULL with cap 0: only the count); returns how many the run had (0: in-core, or no run). */
int spx_spgemm_plan_timeline(const spx_spgemm_plan *p, spx_spgemm_panel_event *out, int cap);
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
