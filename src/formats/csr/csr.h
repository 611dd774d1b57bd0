/* src/formats/csr/csr.h: the `csr` format's layout, shared by its CPU path and CUDA kernels. */
#ifndef SPX_FORMATS_CSR_H
#define SPX_FORMATS_CSR_H

#include <stdint.h>
#include "spx/spx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The algorithms of the csr format (the CUDA kernel family; on the CPU every algorithm runs
 * the same OpenMP loop, rows split between threads by equal nonzeros). */
typedef enum spx_csr_algo {
    SPX_CSR_AUTO = 0,
    SPX_CSR_SCALAR,   /* one thread per row */
    SPX_CSR_VECTOR,   /* 2..32 lanes per row, width from the mean row length */
    SPX_CSR_ADAPTIVE, /* rows binned by length at plan time */
    SPX_CSR_MERGE,    /* merge-path load balancing (Merrill & Garland, SC'16) */
    SPX_CSR_NZSPLIT,  /* fixed nonzeros per thread, segmented warp reduction */
    SPX_CSR_STREAM,   /* row blocks of equal nonzeros staged in shared memory, one launch */
    SPX_CSR_COLBLOCK, /* column blocks: a block's x segment in shared memory, rows' partial sums
                         per column block added in order (few long rows over many columns) */
    SPX_CSR_SLICED,   /* warp-wide row slices, entries interleaved so each warp step reads 32
                         consecutive ones: a derived layout built on the device (even rows) */
    SPX_CSR_ALGO_COUNT
} spx_csr_algo;

/* Invariants: nnz <= INT32_MAX (rowptr is int32: 4 bytes a row less traffic than int64);
 * rowptr[0] = 0, non-decreasing, rowptr[m] = nnz; 0 <= colind < n, sorted within a row;
 * exactly one of val64 / val32 is set, matching precision; algo is never AUTO after build
 * (the selector resolved it). Row statistics (from the matrix's features) are kept for the
 * kernels' launch choices. */
typedef struct spx_csr_fmt {
    int32_t m, n;
    int64_t nnz;
    int32_t *rowptr;
    int32_t *colind;
    double *val64;
    float *val32;
    spx_precision precision;
    spx_csr_algo algo;
    int64_t row_max;
    double row_mean;
    double row_cv; /* coefficient of variation of row lengths */
} spx_csr_fmt;

/* Names of the algorithms, indexed by spx_csr_algo; NULL-terminated. */
extern const char *const spx_csr_algo_names[];

/* The algorithm called name (NULL or "auto": the one the row statistics in feat choose for
 * nnz nonzeros), never SPX_CSR_AUTO; -1 for an unknown name. */
int spx_csr_algo_resolve(const char *name, int64_t nnz, const spx_features *feat);
/* Builds the layout from A (values in prec), resolving algo from A's features. */
spx_status spx_csr_fmt_build(spx_ctx *ctx, const spx_csr *A, const spx_features *feat,
                             spx_precision prec, const char *algo, spx_csr_fmt **out);
void spx_csr_fmt_destroy(spx_ctx *ctx, spx_csr_fmt *F);
/* The layout back to a library CSR (fp32 values widened to fp64). */
spx_status spx_csr_fmt_to_csr(spx_ctx *ctx, const spx_csr_fmt *F, spx_csr **out);
/* Minimum bytes of one SpMV with b = 0 on this layout. */
double spx_csr_fmt_bytes(const spx_csr_fmt *F);
/* y = a*A*x + b*y on the host, OpenMP, rows split between threads by equal nonzeros. */
spx_status spx_csr_fmt_spmv_cpu(spx_ctx *ctx, const spx_csr_fmt *F, spx_precision prec, double a,
                                const void *x, double b, void *y);
/* Y = a*A*X + b*Y on the host layout (src/spmv/format.h's spx_spmm_args): OpenMP over the SpMV's
 * row shares, a row at a time. */
struct spx_spmm_args;
spx_status spx_csr_fmt_spmm_cpu(spx_ctx *ctx, const spx_csr_fmt *F, const struct spx_spmm_args *a);

#ifdef __cplusplus
}
#endif
#endif
