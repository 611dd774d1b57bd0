/* src/spmv/spmm_row.h: one row of an SpMM on the host, the loop the formats' CPU SpMM kernels
 * share: Y(i, :) = a * sum_e val[e] * X(col[e], :) + b * Y(i, :) over a row's entries, columns of
 * X and Y in tiles of SPX_SPMM_CPU_TILE sums (fp64 for either value type). Row-major X: each
 * nonzero's tile of k values is one contiguous run; column-major X: the tile's values are ldx
 * apart, the row's entries read once a tile (from L1 after the first). */
#ifndef SPX_SPMV_SPMM_ROW_H
#define SPX_SPMV_SPMM_ROW_H

#include "spmv/format.h"

/* Columns of X and Y one pass over a row's entries serves: 16 fp64 sums (128 B, two cache lines
 * of a row-major X row a nonzero). A guess, to be measured on a real CPU (the 2-core development
 * container is no machine to tune on). */
#define SPX_SPMM_CPU_TILE 16

/* Defines NAME(col, val, len, a, i): row i of Y from the len entries (col, val) of A's row, as
 * a asks (its layout, leading dimensions, alpha, beta; b = 0 never reads Y). VT: the values'
 * and the blocks' type. */
#define SPX_SPMM_ROW_FN(NAME, VT)                                                                        \
    static inline void NAME(const int32_t *col, const VT *val, int64_t len, const spx_spmm_args *a,      \
                            int64_t i)                                                                   \
    {                                                                                                    \
        const VT *x = (const VT *)a->x;                                                                  \
        VT *y = (VT *)a->y;                                                                              \
        const int row_major = a->layout == SPX_DENSE_ROW_MAJOR;                                          \
        const int64_t xr = row_major ? a->ldx : 1, xc = row_major ? 1 : a->ldx; /* X(c, j) = x[c*xr + j*xc] */ \
        VT *yi = y + (row_major ? i * a->ldy : i);                                                       \
        const int64_t yc = row_major ? 1 : a->ldy;                                                       \
        for (int64_t j0 = 0; j0 < a->k; j0 += SPX_SPMM_CPU_TILE) {                                       \
            const int t = (int)(a->k - j0 < SPX_SPMM_CPU_TILE ? a->k - j0 : SPX_SPMM_CPU_TILE);          \
            double acc[SPX_SPMM_CPU_TILE] = {0};                                                         \
            for (int64_t e = 0; e < len; e++) {                                                          \
                const double v = (double)val[e];                                                         \
                const VT *xp = x + (int64_t)col[e] * xr + j0 * xc;                                       \
                if (row_major)                                                                           \
                    for (int jj = 0; jj < t; jj++) acc[jj] += v * (double)xp[jj];                        \
                else                                                                                     \
                    for (int jj = 0; jj < t; jj++) acc[jj] += v * (double)xp[jj * xc];                   \
            }                                                                                            \
            for (int jj = 0; jj < t; jj++) {                                                             \
                VT *o = yi + (j0 + jj) * yc;                                                             \
                *o = (VT)(a->beta == 0.0 ? a->alpha * acc[jj] : a->alpha * acc[jj] + a->beta * (double)*o); \
            }                                                                                            \
        }                                                                                                \
    }

SPX_SPMM_ROW_FN(spx_spmm_row_f64, double)
SPX_SPMM_ROW_FN(spx_spmm_row_f32, float)

/* The name of a format's CPU SpMM loop for layout: "<loop>_spmm_row" or "<loop>_spmm_col". */
#define SPX_SPMM_CPU_NAME(loop, layout) ((layout) == SPX_DENSE_ROW_MAJOR ? loop "_spmm_row" : loop "_spmm_col")

#endif
