/* src/formats/csr/csr_spmm_shape.h: how the csr format's CUDA SpMM lays out a call of k columns
 * (lanes a row, columns a lane, column chunks, the long-row pieces) and what the report calls
 * it: plain C, so the choices are tested on the CPU (tests/test_csr_spmm_shape.c); the kernels
 * that follow them are in csr_spmm_cuda.cu. */
#ifndef SPX_FORMATS_CSR_SPMM_SHAPE_H
#define SPX_FORMATS_CSR_SPMM_SHAPE_H

#include <stddef.h>
#include <stdint.h>

#include "spx/spx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel a call runs. */
typedef enum spx_csr_spmm_kind {
    SPX_CSR_SPMM_SPMV, /* k = 1, column-major: column 0 is a vector; the plan's own SpMV kernel */
    SPX_CSR_SPMM_ROW,  /* row-major: lane groups over each nonzero's run of k values */
    SPX_CSR_SPMM_COL   /* column-major: a row's entries in registers, columns in tiles */
} spx_csr_spmm_kind;

/* One call's layout on the GPU (csr_cuda_tuning.h's SPX_CSR_CUDA_SPMM_* give the limits).
 * Invariants: g, c, slots, lanes are powers of two; ROW: g * slots = lanes <= 32, c > 1 only
 * when g = 32, cols = g * c; COL: lanes <= 32, cols = SPX_CSR_CUDA_SPMM_COL_CHUNK; chunks =
 * ceil(k / cols) >= 1. */
typedef struct spx_csr_spmm_shape {
    spx_csr_spmm_kind kind;
    int g;          /* ROW: column lanes, the power of two >= k (32 when k > 32) */
    int c;          /* ROW: columns a lane (lane, lane + g, ..) */
    int slots;      /* ROW: a row's nonzeros read at once */
    int lanes;      /* lanes a row */
    int64_t cols;   /* columns one block of the grid takes */
    int64_t chunks; /* column chunks (the grid's y, looped past 65535) */
    int long_rows;  /* rows of more than SPX_CSR_CUDA_SPMM_LONG_MIN entries go to the pieces */
} spx_csr_spmm_shape;

/* The shape of a call with k >= 1 columns in layout on a matrix of mean row length row_mean
 * and longest row row_max. */
void spx_csr_spmm_shape_of(int64_t k, spx_dense_layout layout, double row_mean, int64_t row_max,
                           spx_csr_spmm_shape *out);

/* The kernel's name for the report, into name (cap bytes): "csr_spmm_row_g8_s1",
 * "csr_spmm_row_g32x8_s1" (8 columns a lane), "csr_spmm_col_l2_t8", "+long" when long rows go
 * to pieces, "csr_spmm_col_k1(<spmv_kernel>)" for the SpMV kernel on column 0. */
void spx_csr_spmm_shape_name(const spx_csr_spmm_shape *s, const char *spmv_kernel, char *name, size_t cap);

/* The long rows' pieces from the m + 1 row pointers: for every row of more than
 * SPX_CSR_CUDA_SPMM_LONG_MIN entries, one (row, first entry) pair per SPX_CSR_CUDA_SPMM_LONG_PIECE
 * entries, written to pieces[2i], pieces[2i + 1] in row order when pieces is not NULL. Returns
 * the number of pieces. */
int64_t spx_csr_spmm_long_pieces(const int32_t *rowptr, int32_t m, int32_t *pieces);

#ifdef __cplusplus
}
#endif
#endif
