/* src/spgemm/host_copy.c: the host half of C's staged download (host_copy.h). */
#include <stdint.h>
#include <string.h>

#include "spgemm/host_copy.h"

/* Bytes one thread copies at a time: large enough that a piece costs more than its
 * scheduling, small enough that a 32 MiB chunk splits over 16 threads. */
#define HOST_COPY_PIECE (1u << 20)

void spx_spgemm_host_copy(void *dst, const void *src, size_t bytes, int threads)
{
    const int64_t pieces = (int64_t)((bytes + HOST_COPY_PIECE - 1) / HOST_COPY_PIECE);
#pragma omp parallel for schedule(static) num_threads(threads > 0 ? threads : 1) if (pieces > 1)
    for (int64_t p = 0; p < pieces; p++) {
        const size_t at = (size_t)p * HOST_COPY_PIECE, len = bytes - at < HOST_COPY_PIECE ? bytes - at : HOST_COPY_PIECE;
        memcpy((char *)dst + at, (const char *)src + at, len);
    }
}

void spx_spgemm_host_widen(double *dst, const float *src, size_t n, int threads)
{
#pragma omp parallel for schedule(static) num_threads(threads > 0 ? threads : 1) if (n > HOST_COPY_PIECE)
    for (int64_t i = 0; i < (int64_t)n; i++) dst[i] = (double)src[i];
}
