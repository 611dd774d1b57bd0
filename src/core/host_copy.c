/* src/core/host_copy.c: large host-side copies spread over threads (host_copy.h). */
#include <stdint.h>
#include <string.h>

#include "core/host_copy.h"

/* Bytes one thread writes at a time: large enough that a piece costs more than its
 * scheduling, small enough that a few MB split over 16 threads. */
#define HOST_COPY_PIECE (1u << 20)

/* Pieces of HOST_COPY_PIECE bytes in `bytes`. */
static int64_t pieces_of(size_t bytes) { return (int64_t)((bytes + HOST_COPY_PIECE - 1) / HOST_COPY_PIECE); }

/* Bytes of piece q of a range of `bytes`. */
static size_t piece_len(size_t bytes, int64_t q)
{
    const size_t at = (size_t)q * HOST_COPY_PIECE;
    return bytes - at < HOST_COPY_PIECE ? bytes - at : HOST_COPY_PIECE;
}

void spx_host_touch(void *p, size_t bytes, int threads)
{
    const int64_t pieces = pieces_of(bytes);
#pragma omp parallel for schedule(static) num_threads(threads > 0 ? threads : 1) if (pieces > 1)
    for (int64_t q = 0; q < pieces; q++) memset((char *)p + (size_t)q * HOST_COPY_PIECE, 0, piece_len(bytes, q));
}

void spx_host_copy(void *dst, const void *src, size_t bytes, int threads)
{
    const int64_t pieces = pieces_of(bytes);
#pragma omp parallel for schedule(static) num_threads(threads > 0 ? threads : 1) if (pieces > 1)
    for (int64_t q = 0; q < pieces; q++) {
        const size_t at = (size_t)q * HOST_COPY_PIECE;
        memcpy((char *)dst + at, (const char *)src + at, piece_len(bytes, q));
    }
}

void spx_host_widen(double *dst, const float *src, size_t n, int threads)
{
#pragma omp parallel for schedule(static) num_threads(threads > 0 ? threads : 1) if (n > HOST_COPY_PIECE)
    for (int64_t i = 0; i < (int64_t)n; i++) dst[i] = (double)src[i];
}
