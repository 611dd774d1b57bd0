/* src/core/huge_pages.c: transparent huge pages for large host blocks (huge_pages.h). */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include "core/huge_pages.h"

#include <stdint.h>
#include <sys/mman.h>

/* The huge page size the advice aligns to (x86-64 and arm64 with 4 KB base pages). */
#define HUGE_PAGE_BYTES ((uintptr_t)2 << 20)

void spx_advise_huge_pages(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (!p || bytes < SPX_HUGE_PAGE_MIN_BYTES) return;
    const uintptr_t lo = ((uintptr_t)p + HUGE_PAGE_BYTES - 1) & ~(HUGE_PAGE_BYTES - 1);
    const uintptr_t hi = ((uintptr_t)p + bytes) & ~(HUGE_PAGE_BYTES - 1);
    if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}
