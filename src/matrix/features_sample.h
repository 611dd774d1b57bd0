/* src/matrix/features_sample.h: which entries the column measures are taken from above
 * SPX_FEATURES_COL_SAMPLES nonzeros: nnz cut into S strata of near-equal width, one entry at a
 * jittered place in each. One definition for the host (src/matrix/features.c) and the device
 * (src/matrix/features_cuda.cu, which defines SPX_FEATURES_SAMPLE_FN with __host__ __device__ before
 * including it), so a CUDA plan's sampled features can be reproduced on the host. */
#ifndef SPX_MATRIX_FEATURES_SAMPLE_H
#define SPX_MATRIX_FEATURES_SAMPLE_H

#include <stdint.h>

#ifndef SPX_FEATURES_SAMPLE_FN
#define SPX_FEATURES_SAMPLE_FN static inline
#endif

/* A 32-bit integer mix (the same bits on every machine): the jitter within a stratum. */
SPX_FEATURES_SAMPLE_FN uint32_t spx_features_mix32(uint32_t x)
{
    x *= 0x9E3779B1u;
    x ^= x >> 15;
    x *= 0x85EBCA77u;
    x ^= x >> 13;
    return x;
}

/* The sampled entry of stratum t of S (1 <= S <= nnz, 0 <= t < S; strata are >= 1 entry wide). */
SPX_FEATURES_SAMPLE_FN int64_t spx_features_sample_entry(int64_t t, int64_t S, int64_t nnz)
{
    const int64_t lo = t * nnz / S, width = (t + 1) * nnz / S - lo;
    return lo + (int64_t)(spx_features_mix32((uint32_t)t) % (uint32_t)width);
}

#endif
