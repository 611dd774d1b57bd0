/* src/matrix/features.h: the features pass with a thread count (plans pass their context's;
 * the public spx_features_compute takes OpenMP's default), the sums it shares with the
 * device pass, and that pass (src/matrix/features_cuda.cu) on the device CSR. */
#ifndef SPX_MATRIX_FEATURES_H
#define SPX_MATRIX_FEATURES_H

#include "matrix/csr_dev.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The sums a part of the matrix contributes to its features (a block of rows on the host, a
 * thread block on the device); row_min is INT64_MAX for a part without rows. */
typedef struct spx_feature_sums {
    int64_t row_min, row_max, empty, pairs, near, bandwidth;
    double sumsq, dist;
} spx_feature_sums;

/* The features of an m x n matrix with nnz entries from its parts' sums, added in order. */
void spx_features_finish(int32_t m, int32_t n, int64_t nnz, const spx_feature_sums *parts, int nparts,
                         spx_features *out);
/* spx_features_compute on at most threads OpenMP threads; the same result for any count. */
spx_status spx_features_compute_threads(const spx_csr *A, int threads, spx_features *out);
/* The features as a CUDA plan computes them on the device (src/matrix/features_cuda.cu): the row
 * measures exact, the column measures from the sample of features_sample.h above
 * SPX_FEATURES_COL_SAMPLES entries (the same entries: bandwidth, near and pairs equal, the
 * distance to rounding), every entry below; on at most threads threads, any count alike. */
spx_status spx_features_compute_sampled_threads(const spx_csr *A, int threads, spx_features *out);
/* The features of the CSR on the device (src/matrix/features.c's measures, computed there; the
 * same on every run): spx_features_compute_sampled_threads's (src/matrix/features.h), the
 * sums to rounding. Uses D->scratch when set (no allocation). */
spx_status spx_cuda_features(spx_ctx *ctx, const spx_dev_csr *D, spx_features *out);

#ifdef __cplusplus
}
#endif
#endif
