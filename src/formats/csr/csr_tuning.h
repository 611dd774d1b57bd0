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
 *   | few long rows over >= 1M columns   | colblock  | (below)                                     |
 *   | <= 2M nonzeros, rows of 12 to 128, | sliced    | (below) landmark 5.41 us vs stream 7.33     |
 *   |   cv <= 0.4                        |           |   (H100 batch)                              |
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

/* Column blocks (colblock) for few long rows over many columns: x of at least COLBLOCK_MIN_COLS
 * columns, rows reaching at least COLBLOCK_MIN_DENSITY of them (then a column block of 1024
 * holds >= 16 entries of a row on average, and the block table is at most 1/16 of the
 * nonzeros) and
 * every x entry read by COLBLOCK_MIN_REUSE entries on average (a segment load replaces that
 * many gathers of a 32-byte sector each). The wide matrix of the large suite (64 x 2M, rows of
 * ~216k: density 0.11, reuse 6.9) is the case: csr stream there is bound by L2 traffic, one
 * sector an entry for x (ncu, H100, bench/results/2026-11-27-nvidia-h100-plan-costs/). Guesses
 * to be measured: the default suite's wide matrix (512 x 395k, density 0.006) stays on
 * stream. */
#define SPX_CSR_AUTO_COLBLOCK_MIN_COLS (1 << 20)
#define SPX_CSR_AUTO_COLBLOCK_MIN_DENSITY (1.0 / 64.0)
#define SPX_CSR_AUTO_COLBLOCK_MIN_REUSE 2.0

/* Whether rows of mean length `mean` over cols columns (nnz in all) want column blocks. */
static inline int spx_csr_wants_colblock(int64_t nnz, int32_t cols, double mean)
{
    return cols >= SPX_CSR_AUTO_COLBLOCK_MIN_COLS && mean >= SPX_CSR_AUTO_COLBLOCK_MIN_DENSITY * cols &&
           (double)nnz >= SPX_CSR_AUTO_COLBLOCK_MIN_REUSE * cols;
}

/* sliced (warp-wide interleaved row slices, csr_sliced_cuda.cu) where its shorter chain of
 * dependent loads shows: matrices of at most SLICED_MAX_NNZ nonzeros (an SpMV of a few
 * microseconds from L2), rows of SLICED_MIN_MEAN to SLICED_MAX_MEAN entries (a lane's 4 steps
 * at 4 to 32 lanes a row) with cv <= SLICED_MAX_CV (little padding). Measured on an H100
 * (2026-12-07, bench/results/2026-12-07-nvidia-h100-session/, batch us, sliced / stream):
 * landmark (16 a row, cv 0.03) 5.41 / 7.33, bcsstk29 (44, 0.35) 4.32 / 4.96, bcsstk33 (68,
 * 0.24) 5.03 / 5.26, cage10 (13, 0.30) 4.11 / 4.22, bcsstk16 (59, 0.29) 4.20 / 4.33,
 * wing_nodal (14, 0.21) 5.19 / 5.42, bcsstk15 (30, 0.26) 4.99 / 5.10; outside the rule it
 * lost: vibrobox (28, 0.58) 5.00 / 4.68, finan512 (8, 0.79) 7.07 / 5.32, fe_body (7.3) 4.46 /
 * 4.28, stencil27 n=60 (5.6M nonzeros) 28.5 / 28.0, poisson3d n=100 37.1 / 34.7. */
#define SPX_CSR_AUTO_SLICED_MAX_NNZ (1 << 21)
#define SPX_CSR_AUTO_SLICED_MIN_MEAN 12.0
#define SPX_CSR_AUTO_SLICED_MAX_MEAN 128.0
#define SPX_CSR_AUTO_SLICED_MAX_CV 0.4

/* Whether rows of mean length `mean` and variation cv, nnz in all, want the sliced layout. */
static inline int spx_csr_wants_sliced(int64_t nnz, double mean, double cv)
{
    return nnz <= SPX_CSR_AUTO_SLICED_MAX_NNZ && mean >= SPX_CSR_AUTO_SLICED_MIN_MEAN &&
           mean <= SPX_CSR_AUTO_SLICED_MAX_MEAN && cv <= SPX_CSR_AUTO_SLICED_MAX_CV;
}

/* The algorithm `auto` resolves to for these row statistics over cols columns (0: column
 * blocks ruled out, e.g. for a band that already is one). */
static inline spx_csr_algo spx_csr_auto_algo(int64_t nnz, int32_t cols, double mean, int64_t row_max, double cv)
{
    if (nnz == 0) return SPX_CSR_SCALAR;
    if (spx_csr_wants_colblock(nnz, cols, mean)) return SPX_CSR_COLBLOCK;
    if (mean <= SPX_CSR_AUTO_SHORT_ROW_MEAN && !spx_csr_rows_skewed(mean, row_max, cv)) return SPX_CSR_SCALAR;
    if (mean < SPX_CSR_AUTO_REGULAR_ROW_MEAN && cv <= SPX_CSR_AUTO_REGULAR_CV) return SPX_CSR_SCALAR;
    if (spx_csr_wants_sliced(nnz, mean, cv)) return SPX_CSR_SLICED;
    return SPX_CSR_STREAM;
}

#endif
