/* src/formats/csr/csr_tuning.h: the csr format's tuning constants and its `auto` rule. */
#ifndef SPX_FORMATS_CSR_TUNING_H
#define SPX_FORMATS_CSR_TUNING_H

#include "formats/csr/csr.h"

/* The `auto` rule, one row per case, first match wins. Inputs are the row statistics of the
 * matrix (mean and max row length, coefficient of variation = stddev / mean) and the
 * bandwidth max|i - j| as a fraction of n (how local the x accesses are). The measurements
 * behind each row are the H200 tables of docs/formats/csr.md (fp64 GFLOPS, warm).
 *
 *   | condition                              | algorithm | why (measured)                           |
 *   |----------------------------------------|-----------|------------------------------------------|
 *   | nnz == 0                               | scalar    | nothing to balance                       |
 *   | row_max > SKEW_MAX_OVER_MEAN * mean    | nzsplit   | R-MAT 20: 230 vs merge 211, adaptive 157 |
 *   |   or cv > SKEW_CV                      |           | power-law 2M: 246 vs merge 219           |
 *   | mean > LONG_ROW_MEAN                   | nzsplit   | few long rows: a warp a row leaves SMs   |
 *   |                                        |           |   idle; fixed nonzeros a warp do not     |
 *   | mean <= SHORT_ROW_MEAN and bandwidth   | scalar    | 7-pt 150^3: 438 vs vector 400,           |
 *   |   <= LOCAL_BANDWIDTH * n               |           |   adaptive 415                           |
 *   | mean <= SHORT_ROW_MEAN                 | nzsplit   | uniform 8M x 8: 111 vs vector 108,       |
 *   |                                        |           |   scalar 97 (x gathers are random)       |
 *   | otherwise                              | vector    | 27-pt 80^3: 455 vs adaptive 368          |
 */
#define SPX_CSR_AUTO_SKEW_MAX_OVER_MEAN 32.0 /* guess: a row 32x the mean stalls its warp */
#define SPX_CSR_AUTO_SKEW_CV 1.0             /* guess: stddev above the mean = irregular */
#define SPX_CSR_AUTO_LONG_ROW_MEAN 512.0     /* guess: 16 nonzeros a lane of a 32-lane group */
#define SPX_CSR_AUTO_SHORT_ROW_MEAN 12.0     /* between the 7-pt (scalar) and 27-pt (vector) */
#define SPX_CSR_AUTO_LOCAL_BANDWIDTH 0.125   /* guess: stencils are ~n^(2/3)/n, random ~1 */

/* The algorithm `auto` resolves to for these row statistics. */
static inline spx_csr_algo spx_csr_auto_algo(int64_t nnz, double mean, int64_t row_max, double cv,
                                             double bandwidth_fraction)
{
    if (nnz == 0) return SPX_CSR_SCALAR;
    if ((double)row_max > SPX_CSR_AUTO_SKEW_MAX_OVER_MEAN * mean || cv > SPX_CSR_AUTO_SKEW_CV)
        return SPX_CSR_NZSPLIT;
    if (mean > SPX_CSR_AUTO_LONG_ROW_MEAN) return SPX_CSR_NZSPLIT;
    if (mean <= SPX_CSR_AUTO_SHORT_ROW_MEAN)
        return bandwidth_fraction <= SPX_CSR_AUTO_LOCAL_BANDWIDTH ? SPX_CSR_SCALAR : SPX_CSR_NZSPLIT;
    return SPX_CSR_VECTOR;
}

#endif
