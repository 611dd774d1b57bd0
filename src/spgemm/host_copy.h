/* src/spgemm/host_copy.h: the host half of C's staged download (spgemm_dev.cu): a pinned
 * chunk emptied into C's arrays by the context's threads, so that the first touch of C's
 * fresh pages (a page fault each) is spread over the cores instead of serialising the copy. */
#ifndef SPX_SPGEMM_HOST_COPY_H
#define SPX_SPGEMM_HOST_COPY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* dst[0..bytes) = src[0..bytes), in pieces over `threads` threads. */
void spx_spgemm_host_copy(void *dst, const void *src, size_t bytes, int threads);
/* dst[i] = (double)src[i] for i < n, over `threads` threads. */
void spx_spgemm_host_widen(double *dst, const float *src, size_t n, int threads);

#ifdef __cplusplus
}
#endif
#endif
