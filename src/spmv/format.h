/* src/spmv/format.h: the SpMV format plug-in table. A format fills one spx_format (its
 * host half) and, in its .cu files, one spx_format_cuda (its GPU half); a NULL slot means
 * "not supported" and the caller gets SPX_ERR_UNSUPPORTED. src/spmv/formats.def lists them. */
#ifndef SPX_SPMV_FORMAT_H
#define SPX_SPMV_FORMAT_H

#include "core/ctx.h"
#include "core/phase.h"
#include "matrix/csr_dev.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One SpMV call as the formats see it: x and y are float* or double* per precision, host
 * arrays for spmv_cpu and device arrays for the CUDA spmv. */
typedef struct spx_spmv_args {
    spx_precision precision;
    double alpha, beta;
    const void *x;
    void *y;
} spx_spmv_args;

/* One SpMM call, Y = alpha*A*X + beta*Y, as the formats see it: X (n x k) and Y (m x k) in the
 * same layout, leading dimensions ldx and ldy (column-major: X(c, j) = x[c + j*ldx]; row-major:
 * x[c*ldx + j]), float* or double* per precision, host arrays for the cpu slot and device arrays
 * for the GPU one; k >= 1; beta = 0 never reads Y. */
typedef struct spx_spmm_args {
    spx_precision precision;
    double alpha, beta;
    int64_t k;
    spx_dense_layout layout;
    const void *x;
    int64_t ldx;
    void *y;
    int64_t ldy;
} spx_spmm_args;

/* Where a format writes its layout statistics (spx_plan_info.stats); extra ones are dropped. */
typedef struct spx_stat_list {
    int n;
    spx_layout_stat *stats;
} spx_stat_list;

/* Appends key = value (a number) to the list. */
void spx_stat_num(spx_stat_list *l, const char *key, double value);
/* Appends key = text to the list. */
void spx_stat_text(spx_stat_list *l, const char *key, const char *text);

/* Format flags. */
enum {
    SPX_FORMAT_BASELINE = 1u << 0 /* a vendor library measured as the reference, not an spx format */
};

/* A format is a layout and the operations that run on it, each in its own table: the layout's
 * (what it is, how it is built, read back, described and freed) and, per backend, one kernel
 * slot per operation. A NULL operation slot means the format does not run that operation on
 * that backend (never a silent substitute: the plan says what runs instead). */

/* What the layout is on the device: made from the host layout or built there, read back,
 * described, freed (upload or build, and free, are required of a GPU half). */
typedef struct spx_cuda_layout {
    /* Uploads the host layout (and runs any GPU preprocessing); *dev is the GPU state. */
    spx_status (*upload)(spx_ctx *ctx, const void *impl, spx_phase_log *log, void **dev);
    /* Builds the GPU state from the CSR on the device (and the matrix's features), with no
     * host layout. */
    spx_status (*build)(spx_ctx *ctx, spx_dev_csr *A, const spx_features *feat, const spx_plan_opts *opts,
                        spx_phase_log *log, void **dev);
    /* The device layout back to a host CSR: the GPU round trip checks what the GPU holds. */
    spx_status (*to_csr)(spx_ctx *ctx, const void *dev, spx_csr **out);
    void (*free)(spx_ctx *ctx, void *dev);
    /* For plans built on the device (no host layout): the resolved algorithm and the minimum
     * bytes of one SpMV with b = 0. */
    const char *(*algo_name)(const void *dev);
    double (*bytes_per_spmv)(const void *dev);
    /* The layout's statistics as the GPU holds them (NULL: the host half's, if any). */
    void (*stats)(const void *dev, spx_stat_list *out);
    /* The algorithms build takes, NULL-terminated (NULL: every one); the others build on the
     * host and upload. */
    const char *const *build_algos;
    /* For a plan built on the device in SPX_ORDER_PLAN: its renumbering (m = n values, new ->
     * original) as a host array the GPU state keeps, or NULL when it keeps the caller's order
     * (NULL slot: never renumbers). */
    const int32_t *(*permutation)(const void *dev);
} spx_cuda_layout;

/* The operations on the device layout: device arrays, on the context's stream, no allocation. */
typedef struct spx_cuda_ops {
    /* y = a*A*x + b*y. */
    spx_status (*spmv)(spx_ctx *ctx, void *dev, const spx_spmv_args *args);
    /* The SpMV kernel that runs (e.g. "csr_stream_fp64"). */
    const char *(*spmv_kernel)(const void *dev);
    /* Y = a*A*X + b*Y (NULL: the plan runs k SpMVs, one a column, and says so). */
    spx_status (*spmm)(spx_ctx *ctx, void *dev, const spx_spmm_args *args);
    /* The SpMM kernel that runs for k columns in layout, named into name (cap bytes): the GPU
     * kernels pick their shape by k (lanes over a nonzero's columns, column chunks). */
    void (*spmm_kernel)(const void *dev, int64_t k, spx_dense_layout layout, char *name, size_t cap);
} spx_cuda_ops;

/* The GPU half of a format. */
typedef struct spx_format_cuda {
    spx_cuda_layout layout;
    spx_cuda_ops ops;
} spx_format_cuda;

/* What the host layout is: the format's name and algorithms, and how its layout is built,
 * read back, described and freed. */
typedef struct spx_layout_ops {
    const char *name;
    const char *summary;
    const char *const *algos;  /* NULL-terminated; algos[0] is the default ("auto" if any) */
    unsigned flags;            /* SPX_FORMAT_* */
    const char *kernel_prefix; /* every kernel name the format reports starts with this */

    /* Whether algo (NULL: any) can run in this build; 0 with *why set when a dependency is
     * missing. NULL slot: always available. */
    int (*available)(const char *algo, const char **why);
    /* Converts A (whose features the plan computed once) into the format's host layout
     * (preprocessing); opts->algo already valid. */
    spx_status (*build)(spx_ctx *ctx, const spx_csr *A, const spx_features *feat,
                        const spx_plan_opts *opts, spx_phase_log *log, void **impl);
    /* The host layout back to CSR (the round-trip check). */
    spx_status (*to_csr)(spx_ctx *ctx, const void *impl, spx_csr **out);
    void (*destroy)(spx_ctx *ctx, void *impl);
    /* Resolved algorithm name; minimum bytes of one SpMV (b = 0). */
    const char *(*algo_name)(const void *impl);
    double (*bytes_per_spmv)(const void *impl);
    /* The layout's own figures for `spx info --format` (NULL: none). */
    void (*stats)(const void *impl, spx_stat_list *out);
    /* The renumbering the layout's operations take their operands in (m = n values, new ->
     * original), or NULL when they take them in the caller's order: non-NULL only for a layout
     * built with opts->order == SPX_ORDER_PLAN that renumbers (NULL slot: never). */
    const int32_t *(*permutation)(const void *impl);
} spx_layout_ops;

/* The operations on the host layout: OpenMP; none may write the layout (a CPU plan may run on
 * several threads at once). */
typedef struct spx_cpu_ops {
    /* y = a*A*x + b*y. */
    spx_status (*spmv)(spx_ctx *ctx, const void *impl, const spx_spmv_args *args);
    /* The CPU loop's name. */
    const char *(*spmv_kernel)(const void *impl);
    /* Y = a*A*X + b*Y (NULL: the plan runs k SpMVs, one a column, and says so). */
    spx_status (*spmm)(spx_ctx *ctx, const void *impl, const spx_spmm_args *args);
    /* The SpMM loop that runs for blocks in layout. */
    const char *(*spmm_kernel)(const void *impl, spx_dense_layout layout);
} spx_cpu_ops;

/* A registered format: its host layout, the operations on it, and its GPU half. */
typedef struct spx_format {
    spx_layout_ops layout;
    spx_cpu_ops cpu;
    /* The GPU half: the format's spx_<name>_cuda (NULL when CUDA is not built). */
    const spx_format_cuda *(*cuda)(void);
} spx_format;

/* The registry: every format, in listing order. */
const spx_format *spx_format_at(int i);
/* The format of that name, or NULL. */
const spx_format *spx_format_find(const char *name);
/* Whether name is one of fmt's algorithms. */
int spx_format_has_algo(const spx_format *fmt, const char *name);
/* The format's GPU half, or NULL when it has none in this build. */
const spx_format_cuda *spx_format_cuda_of(const spx_format *fmt);
/* Every format's GPU half, from formats.def: defined by its .cu files, NULL in builds without
 * CUDA (src/spmv/formats_stub.c). */
#define SPX_FORMAT(name) const spx_format_cuda *spx_##name##_cuda(void);
#include "spmv/formats.def"
#undef SPX_FORMAT
/* Whether a CUDA plan of the format can build algo (NULL or "auto": the format's default, its
 * first) on the device. */
int spx_format_builds_on_device(const spx_format *fmt, const char *algo);
/* Whether the format can run algo (NULL: any) in this build; *why when not. */
int spx_format_available(const spx_format *fmt, const char *algo, const char **why);
/* What keeps format fmt from running algo (NULL or "auto": the format's own) on backend b in
 * this build: SPX_FORMAT_RUNS when nothing does; *why names a missing dependency. */
typedef enum spx_format_fit {
    SPX_FORMAT_RUNS = 0,
    SPX_FORMAT_NO_ALGO,   /* the format has no such algorithm */
    SPX_FORMAT_NOT_BUILT, /* a dependency is missing (*why) */
    SPX_FORMAT_NO_CPU,    /* no CPU path */
    SPX_FORMAT_NO_CUDA    /* no CUDA path */
} spx_format_fit;
spx_format_fit spx_format_fits(const spx_format *fmt, const char *algo, spx_backend b, const char **why);

#ifdef __cplusplus
}
#endif

#endif
