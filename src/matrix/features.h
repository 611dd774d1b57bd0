/* src/matrix/features.h: the features pass with a thread count (plans pass their context's;
 * the public spx_features_compute takes OpenMP's default). */
#ifndef SPX_MATRIX_FEATURES_H
#define SPX_MATRIX_FEATURES_H

#include "spx/spx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* spx_features_compute on at most threads OpenMP threads; the same result for any count. */
spx_status spx_features_compute_threads(const spx_csr *A, int threads, spx_features *out);

#ifdef __cplusplus
}
#endif
#endif
