/* include/spx/matrix.h: CSR matrices on the host (int32 indices, int64 counts, fp64 values) and on
 * the device (int32 or int64 row pointers, fp64 or fp32 values), and COO matrices. */
#ifndef SPX_MATRIX_H
#define SPX_MATRIX_H

#include <stdint.h>
#include "spx/context.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API: exported by libspx.so */

typedef enum spx_symmetry {
    SPX_SYM_GENERAL = 0,
    SPX_SYM_SYMMETRIC,
    SPX_SYM_SKEW,
    SPX_SYM_HERMITIAN
} spx_symmetry;

typedef enum spx_field { SPX_FIELD_REAL = 0, SPX_FIELD_INTEGER, SPX_FIELD_PATTERN } spx_field;

/* Where a matrix came from: what the file declared before symmetric expansion. */
typedef struct spx_mtx_meta {
    spx_symmetry symmetry; /* as declared */
    spx_field field;
    int64_t stored_entries; /* entries in the file (one triangle for symmetric files) */
    int64_t duplicates;     /* entries summed into an earlier one */
    int zero_based;         /* the file's indices were 0-based (accepted, shifted) */
    int64_t nonfinite;      /* values that are NaN or +-inf after duplicates were summed (the
                               readers count them; every product through one is non-finite) */
} spx_mtx_meta;

/* CSR, zero-based. Invariants: rowptr[0] = 0, rowptr non-decreasing, rowptr[m] = nnz,
 * 0 <= colind[k] < n, columns sorted and unique within a row (when built by spx). */
typedef struct spx_csr {
    int32_t m, n;
    int64_t nnz;
    int64_t *rowptr; /* m + 1 */
    int32_t *colind; /* nnz */
    double *val;     /* nnz */
    spx_mtx_meta meta;
    spx_ctx *ctx;  /* whose allocator owns the arrays */
    int owns;      /* 0 for spx_csr_wrap: arrays belong to the caller */
} spx_csr;

/* COO, zero-based, any order, duplicates allowed. */
typedef struct spx_coo {
    int32_t m, n;
    int64_t nnz;
    int32_t *row, *col;
    double *val;
    spx_ctx *ctx;
} spx_coo;

/* The integer type of a device CSR's row pointers. */
typedef enum spx_index_type {
    SPX_INDEX_DEFAULT = 0, /* where an option: see the option; never an array's type */
    SPX_INDEX_INT32 = 1,   /* int32_t (nnz <= 2^31 - 1): CuPy's indptr */
    SPX_INDEX_INT64 = 2    /* int64_t */
} spx_index_type;

/* A CSR matrix in device memory, zero-based, as spx_csr but for the arrays' types: row pointers
 * of rowptr_type, int32 columns, values of `precision`, all in plain device memory (cudaMalloc,
 * not managed) of the context's device. Made by spx_csr_dev_wrap over the caller's arrays (not
 * copied, not freed; owns 0) or by the library (spx_csr_dev_upload, spx_spgemm_run_dev: owns 1,
 * the three arrays in one allocation at rowptr, freed by spx_csr_dev_destroy). */
typedef struct spx_csr_dev {
    int32_t m, n;
    int64_t nnz;
    spx_index_type rowptr_type;
    void *rowptr;       /* m + 1 */
    int32_t *colind;    /* nnz */
    void *val;          /* nnz, double or float */
    spx_precision precision;
    int32_t unsorted_row; /* the first row whose columns do not strictly increase (out of order or
                             repeated), found when the matrix was checked; -1: none (SpGEMM needs
                             none, SpMV takes any order) */
    spx_ctx *ctx;
    int owns;
} spx_csr_dev;

/* Wraps the caller's device arrays (not copied, not freed; they must outlive *out and every
 * plan made from it) after checking them: the sizes; that each array is device memory of the
 * context's device (not host, not managed), aligned for its type; and the CSR invariants, on
 * the device in one pass (rowptr[0] = 0, non-decreasing, rowptr[m] = nnz, columns in [0, n)),
 * the first offending row named in the error. Finds unsorted_row in the same pass. Bad input:
 * SPX_ERR_ARG (SPX_ERR_OVERFLOW for nnz past int32 row pointers), *out untouched. Runs on the
 * context's stream and waits for it (one small download). SPX_ERR_NOT_COMPILED without CUDA. */
spx_status spx_csr_dev_wrap(spx_ctx *ctx, int32_t m, int32_t n, int64_t nnz, spx_index_type rowptr_type,
                            void *rowptr, int32_t *colind, spx_precision precision, void *val, spx_csr_dev **out);
/* A device copy of the host CSR A (checked on the device as spx_csr_dev_wrap checks) with row
 * pointers of rowptr_type and values in precision (fp32: rounded to nearest); owned. */
spx_status spx_csr_dev_upload(spx_ctx *ctx, const spx_csr *A, spx_index_type rowptr_type, spx_precision precision,
                              spx_csr_dev **out);
/* A host copy of the device CSR A (int64 row pointers, fp64 values), on A's context. */
spx_status spx_csr_dev_download(const spx_csr_dev *A, spx_csr **out);
/* Frees *A (its arrays too when it owns them; NULL accepted) and sets it to NULL. Owned arrays
 * go back once the device is done with them on every stream (a device-wide wait, as cudaFree
 * waits), so work of the caller's on any stream that reads them may still be queued: to the
 * context's memory pool for SpGEMM's C (kept there for the context's next calls), else to
 * cudaFree or the caller's device allocator. Call it before destroying A's context. */
void spx_csr_dev_destroy(spx_csr_dev **A);

/* Allocates an m x n CSR with room for nnz entries (contents uninitialised, rowptr zeroed). */
spx_status spx_csr_alloc(spx_ctx *ctx, int64_t m, int64_t n, int64_t nnz, spx_csr **out);
/* Wraps caller arrays (not copied, not freed); checks the CSR invariants first. */
spx_status spx_csr_wrap(spx_ctx *ctx, int32_t m, int32_t n, int64_t nnz, int64_t *rowptr,
                        int32_t *colind, double *val, spx_csr **out);
/* Checks the CSR invariants (sorted unique columns not required). */
spx_status spx_csr_check(spx_ctx *ctx, const spx_csr *A);
/* Deep copy. */
spx_status spx_csr_copy(spx_ctx *ctx, const spx_csr *A, spx_csr **out);
/* Frees *A (NULL accepted) and sets it to NULL. */
void spx_csr_destroy(spx_csr **A);
/* The stored values of A that are NaN (*nan) and +-inf (*inf); either pointer may be NULL.
 * Returns their sum. */
int64_t spx_csr_count_nonfinite(const spx_csr *A, int64_t *nan, int64_t *inf);
/* 1 if A and B have the same shape, pattern and values (exactly), else 0. */
int spx_csr_equal(const spx_csr *A, const spx_csr *B);

spx_status spx_coo_alloc(spx_ctx *ctx, int64_t m, int64_t n, int64_t nnz, spx_coo **out);
void spx_coo_destroy(spx_coo **A);
/* COO -> CSR: columns sorted in each row, duplicates summed (counted in *duplicates if
 * non-NULL); with strict set, a duplicate is an error instead. */
spx_status spx_coo_to_csr(spx_ctx *ctx, const spx_coo *A, int strict, int64_t *duplicates,
                          spx_csr **out);

/* y = a*A*x + b*y in extended precision, serially: the oracle every result is checked
 * against. b = 0 means y is not read. */
void spx_csr_spmv_ref(const spx_csr *A, double a, const double *x, double b, double *y);
/* Y = a*A*X + b*Y column by column with spx_csr_spmv_ref's sums: the oracle of SpMM. X (n x k)
 * and Y (m x k) are fp64 and column-major, leading dimensions ldx >= n and ldy >= m. b = 0
 * means Y is not read. */
void spx_csr_spmm_ref(const spx_csr *A, double a, const double *X, int64_t ldx, int64_t k, double b, double *Y,
                      int64_t ldy);
/* ||y - ref||_2 / ||ref||_2 in extended precision (the plain norm of y - ref when ref is 0),
 * y of precision p (float* or double*); +inf when y holds NaN or inf, so a poisoned entry
 * never passes. */
double spx_rel_error(const void *y, spx_precision p, const double *ref, int64_t m);

/* What format selection, kernel choices and the benchmark need to know about a matrix:
 * computed once per matrix (one pass over rows and columns, no allocation; on the device,
 * the column measures from a sample: SPX_FEATURES_COL_SAMPLES). */
typedef struct spx_features {
    int32_t m, n;
    int64_t nnz;
    int64_t row_min, row_max;   /* 0, 0 for m = 0 */
    double row_mean, row_stddev;
    double row_cv;              /* coefficient of variation stddev / mean (0 without entries) */
    int64_t empty_rows;
    int64_t bandwidth;          /* max |j - i| over entries (the sampled ones on the device) */
    double diag_distance;       /* mean |j - i| / max(m, n): 0 on the diagonal, ~1/3 uniform */
    double col_near;            /* fraction of a row's consecutive entries whose columns lie
                                   within SPX_FEATURES_NEAR_COLS (one 64-byte line of fp64 x):
                                   a cheap measure of how well x is reused from cache */
} spx_features;

/* Columns within which two consecutive entries of a row count as "near" (8 doubles = 64 B). */
#define SPX_FEATURES_NEAR_COLS 8
/* Entries the column measures (bandwidth, diag_distance, col_near) are taken from when a
 * CUDA plan computes the features on the device: a stratified sample (nnz cut into this many
 * strata, one entry at a jittered place in each; every entry of a smaller matrix), so the
 * selection costs a pass over the row pointers, not over the columns (a CUDA plan whose
 * features are taken on the host, and spx_plan_select for CUDA, use the same sample).
 * spx_features_compute reads every entry. 2^18: the column pass of poisson3d n=300 (188M
 * entries) took 1.9-2.2 ms on an H100, 1.6-3.1 cuSPARSE SpMVs (issue 13's limit: 2). */
#define SPX_FEATURES_COL_SAMPLES (1 << 18)

/* Fills *out with A's features. */
spx_status spx_features_compute(const spx_csr *A, spx_features *out);

/* The columns a row's entries spread over, n x min(1, 3 diag_distance): all n for random
 * columns (mean |j - i| = n / 3), about a band's width near the diagonal. Where that many
 * columns of x exceed the device's L2, x gathers miss it (format selection, hbp's tiles;
 * scripts/train_select.py computes the same from bench records). */
double spx_features_spread_cols(const spx_features *f);

/* Statistics printed by `spx info`: the features' row part plus what needs extra memory. */
typedef struct spx_csr_stats {
    int32_t m, n;
    int64_t nnz;
    int64_t row_min, row_max;
    double row_mean, row_stddev;
    int64_t empty_rows, empty_cols;
    int64_t bandwidth;    /* max |i - j| over entries */
    int structurally_symmetric; /* pattern equals its transpose (square only) */
    int numerically_symmetric;  /* values equal their transpose (square only) */
    int64_t nan_values, inf_values; /* stored values that are NaN, +-inf */
} spx_csr_stats;

spx_status spx_csr_compute_stats(spx_ctx *ctx, const spx_csr *A, spx_csr_stats *out);

/* Minimum bytes a CSR SpMV moves: values, column indices, row pointers (index_bytes each),
 * x read once, y written (and read when b != 0). */
double spx_csr_spmv_bytes(const spx_csr *A, int value_bytes, int rowptr_bytes, int reads_y);
/* The same from the sizes alone (for layouts that keep no spx_csr). */
double spx_csr_traffic_bytes(int64_t m, int64_t n, int64_t nnz, int value_bytes, int rowptr_bytes, int reads_y);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
