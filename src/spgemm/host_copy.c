/* src/spgemm/host_copy.c: host-side helpers of C's download from the GPU (host_copy.h). */
#include <stdint.h>
#include <string.h>

#include "spgemm/host_copy.h"

/* Bytes one thread writes at a time: large enough that a piece costs more than its
 * scheduling, small enough that a few MB split over 16 threads. */
#define HOST_COPY_PIECE (1u << 20)

void spx_spgemm_host_touch(void *p, size_t bytes, int threads)
{
    const int64_t pieces = (int64_t)((bytes + HOST_COPY_PIECE - 1) / HOST_COPY_PIECE);
#pragma omp parallel for schedule(static) num_threads(threads > 0 ? threads : 1) if (pieces > 1)
    for (int64_t q = 0; q < pieces; q++) {
        const size_t at = (size_t)q * HOST_COPY_PIECE, len = bytes - at < HOST_COPY_PIECE ? bytes - at : HOST_COPY_PIECE;
        memset((char *)p + at, 0, len);
    }
}

void spx_spgemm_host_widen(double *dst, const float *src, size_t n, int threads)
{
#pragma omp parallel for schedule(static) num_threads(threads > 0 ? threads : 1) if (n > HOST_COPY_PIECE)
    for (int64_t i = 0; i < (int64_t)n; i++) dst[i] = (double)src[i];
}
