/* src/core/host_copy.h: large host-side copies spread over threads: the first touch of new
 * pages (H200, 2026-11-24: copying R-MAT 16's C, 2 GB, from the device into fresh pageable
 * memory took 1.35-1.77 s, ~1.3 GB/s, every page faulted in by the copy one after the other;
 * into touched memory the same copy runs at ~12 GB/s), the host side of the gateway's staged
 * transfers (src/cuda/staged_copy.cu), and the fp32 -> fp64 widening of downloaded values. */
#ifndef SPX_CORE_HOST_COPY_H
#define SPX_CORE_HOST_COPY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes zeros over p[0..bytes), in pieces over `threads` threads (faults the pages in). */
void spx_host_touch(void *p, size_t bytes, int threads);
/* memcpy(dst, src, bytes) in pieces over `threads` threads (the ranges must not overlap). */
void spx_host_copy(void *dst, const void *src, size_t bytes, int threads);
/* dst[i] = (double)src[i] for i < n, over `threads` threads. */
void spx_host_widen(double *dst, const float *src, size_t n, int threads);

#ifdef __cplusplus
}
#endif
#endif
