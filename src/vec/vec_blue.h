/* src/vec/vec_blue.h: Blue's scaled sum of squares (the constants in vec_cuda.h), one definition
 * for the host (src/vec/vec.c) and the device (src/vec/vec_cuda.cu and the solvers' fused steps,
 * src/solve/steps_cuda.cu, which define SPX_VEC_FN with __host__ __device__ before including
 * it): adding an fp64 entry to the three sums, and the norm from them. */
#ifndef SPX_VEC_VEC_BLUE_H
#define SPX_VEC_VEC_BLUE_H

#include <math.h>

#include "vec/vec_cuda.h"

#ifndef SPX_VEC_FN
#define SPX_VEC_FN static inline
#endif

/* Adds v^2 to Blue's sums: small entries scaled by SSML, large by SBIG, the rest plain. */
SPX_VEC_FN void spx_blue_add(double s[SPX_N_SUMS], double v)
{
    const double ax = fabs(v);
    if (ax > SPX_VEC_BLUE_TBIG) {
        const double t = ax * SPX_VEC_BLUE_SBIG;
        s[SPX_SUM_BIG] += t * t;
    } else if (ax < SPX_VEC_BLUE_TSML) {
        const double t = ax * SPX_VEC_BLUE_SSML;
        s[SPX_SUM_SML] += t * t;
    } else {
        s[SPX_SUM_MED] += ax * ax; /* NaN lands here and poisons the medium sum */
    }
}

/* sqrt of Blue's three sums, without overflow or harmful underflow on the way; NaN when any
 * sum is NaN. */
SPX_VEC_FN double spx_blue_finish(const double sums[SPX_N_SUMS])
{
    const double sml = sums[SPX_SUM_SML], med = sums[SPX_SUM_MED], big = sums[SPX_SUM_BIG];
    if (isnan(sml) || isnan(med) || isnan(big)) return NAN;
    if (big > 0.0) /* the medium entries only matter at the scale of the large ones */
        return sqrt(big + (med * SPX_VEC_BLUE_SBIG) * SPX_VEC_BLUE_SBIG) / SPX_VEC_BLUE_SBIG;
    if (sml > 0.0 && med > 0.0) { /* both: combine the two norms without squaring the larger */
        const double ymed = sqrt(med), ysml = sqrt(sml) / SPX_VEC_BLUE_SSML;
        const double ymax = ymed > ysml ? ymed : ysml, ymin = ymed > ysml ? ysml : ymed;
        const double q = ymin / ymax;
        return ymax * sqrt(1.0 + q * q);
    }
    if (sml > 0.0) return sqrt(sml) / SPX_VEC_BLUE_SSML;
    return sqrt(med);
}

#endif
