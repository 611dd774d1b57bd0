/* src/formats/csr/csr_sliced_cuda.h: the csr format's `sliced` algorithm on the GPU: a derived
 * layout of warp-wide row slices, built on the device from the CSR the plan holds, and its
 * SpMV (csr_sliced_cuda.cu). Called by csr_cuda.cu only. */
#ifndef SPX_FORMATS_CSR_SLICED_CUDA_H
#define SPX_FORMATS_CSR_SLICED_CUDA_H

#include <stdint.h>

#include "core/ctx.h"

/* The slice layout. A warp owns a slice of 32 / lanes consecutive rows, `lanes` lanes a row
 * (a power of two, 1..32). Entry j of the slice's row i sits at off[s] + (j / lanes) * 32 +
 * i * lanes + j % lanes: every step of the warp reads 32 consecutive entries, with no row
 * pointer in the loop. A slice is as wide as its longest row; the padding has column -1 and
 * value 0 (skipped, so a NaN or inf in x never meets it).
 * Invariants: off[0] = 0, off[s + 1] - off[s] = 32 * ceil(longest row of s / lanes),
 * off[n_slices] = padded <= INT32_MAX; col in [0, n) or -1; val of the plan's precision. */
typedef struct spx_csr_sliced {
    int lanes;         /* lanes a row */
    int32_t n_slices;  /* ceil(m / (32 / lanes)) */
    int32_t *off;      /* n_slices + 1 entry offsets */
    int32_t *col;      /* padded entries */
    void *val;         /* padded entries, float or double */
    int64_t padded;    /* entries including padding (off[n_slices]) */
} spx_csr_sliced;

#ifdef __cplusplus
extern "C" {
#endif

/* Lanes a row for rows of mean length `mean` (csr_cuda_tuning.h's SLICED_NZ_PER_LANE). */
int spx_csr_sliced_lanes(double mean);
/* Builds *out from the device CSR (rowptr m + 1, colind and val nnz, values in prec) on the
 * context's stream: lanes from the mean row length; SPX_ERR_OVERFLOW when the padded layout
 * would pass INT32_MAX entries; device memory through the context (budget, failure
 * injection). On failure *out holds nothing. */
spx_status spx_csr_sliced_build(spx_ctx *ctx, int32_t m, int64_t nnz, spx_precision prec, const int32_t *rowptr,
                                const int32_t *colind, const void *val, spx_csr_sliced *out);
/* y = a*A*x + b*y on the slice layout of an m-row matrix (b = 0: y is not read). */
spx_status spx_csr_sliced_spmv(spx_ctx *ctx, const spx_csr_sliced *L, int32_t m, spx_precision prec, double a,
                               const void *x, double b, void *y);
/* Frees L's arrays (the struct itself is the caller's). */
void spx_csr_sliced_free(spx_ctx *ctx, spx_csr_sliced *L);

#ifdef __cplusplus
}
#endif

#endif
