/* src/formats/csr/csr_tuning.h: the csr format's tuning constants and its `auto` rule. */
#ifndef SPX_FORMATS_CSR_TUNING_H
#define SPX_FORMATS_CSR_TUNING_H

#include "formats/csr/csr.h"

/* The `auto` rule, one row per case, first match wins. Inputs are the row statistics of the
 * matrix (mean and max row length, coefficient of variation = stddev / mean). The figures
 * are fp64 GFLOPS, warm, on an H200, from `spx bench --backend cuda` (bench/results/):
 *
 *   | condition                          | algorithm | why (measured)                              |
 *   |------------------------------------|-----------|---------------------------------------------|
 *   | nnz == 0                           | scalar    | nothing to balance                          |
 *   | mean <= SHORT_ROW_MEAN, not skewed | scalar    | tall 1M x 2: 324 vs stream 302, vector 269  |
 *   | mean < REGULAR_ROW_MEAN and        | scalar    | H100 batch time, stream / scalar: poisson2d |
 *   |   cv <= REGULAR_CV                 |           |   700 1.16, fe_4elt2 1.24, whitaker3 1.13,  |
 *   |                                    |           |   cti 1.08, gre_1107 1.04, airfoil1 1.03;   |
 *   |                                    |           |   from 6 per row on stream wins (fe_sphere  |
 *   |                                    |           |   6.0: 0.91, poisson3d 6.9: 0.95)           |
 *   | otherwise                          | stream    | poisson3d 300^3: 548 vs scalar 468, vector  |
 *   |                                    |           |   389; stencil27 160^3: 594 vs vector 530;  |
 *   |                                    |           |   uniform 16.8M x 8: 93 vs nzsplit 92;      |
 *   |                                    |           |   skewed (its 512-nonzero blocks): rmat 23  |
 *   |                                    |           |   194 vs nzsplit 192, merge 147; powerlaw   |
 *   |                                    |           |   4M 204 vs nzsplit 190, merge 134          |
 *
 * (H100 figures: bench/results/2026-11-24-nvidia-h100-91072cc/shared-fp64.json and
 * 2026-11-25-nvidia-h100-499c8f7-auto/bench-default.json.)
 * Skewed = row_max > SKEW_MAX_OVER_MEAN * mean or cv > SKEW_CV; stream then uses its small
 * row blocks (csr_cuda_tuning.h). */
#define SPX_CSR_AUTO_SKEW_MAX_OVER_MEAN 32.0 /* guess: a row 32x the mean stalls its warp */
#define SPX_CSR_AUTO_SKEW_CV 1.0             /* guess: stddev above the mean = irregular */
#define SPX_CSR_AUTO_SHORT_ROW_MEAN 4.0      /* tall (2/row) favours scalar; 7-pt (7/row) stream */
#define SPX_CSR_AUTO_REGULAR_ROW_MEAN 5.95   /* regular rows shorter than 6: scalar (table above) */
#define SPX_CSR_AUTO_REGULAR_CV 0.3          /* regular: nh2010 (4.8/row, cv 0.68) runs faster on stream */

/* Whether the row lengths are skewed: a few rows far longer than the mean. */
static inline int spx_csr_rows_skewed(double mean, int64_t row_max, double cv)
{
    return (double)row_max > SPX_CSR_AUTO_SKEW_MAX_OVER_MEAN * mean || cv > SPX_CSR_AUTO_SKEW_CV;
}

/* The algorithm `auto` resolves to for these row statistics. */
static inline spx_csr_algo spx_csr_auto_algo(int64_t nnz, double mean, int64_t row_max, double cv)
{
    if (nnz == 0) return SPX_CSR_SCALAR;
    if (mean <= SPX_CSR_AUTO_SHORT_ROW_MEAN && !spx_csr_rows_skewed(mean, row_max, cv)) return SPX_CSR_SCALAR;
    if (mean < SPX_CSR_AUTO_REGULAR_ROW_MEAN && cv <= SPX_CSR_AUTO_REGULAR_CV) return SPX_CSR_SCALAR;
    return SPX_CSR_STREAM;
}

#endif
