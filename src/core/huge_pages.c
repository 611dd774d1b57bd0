/* src/core/huge_pages.c: transparent huge pages for large host blocks (huge_pages.h). */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE (hidden under a strict -std without it) */
#include "core/huge_pages.h"

#include <sys/mman.h>

int spx_huge_page_range(const void *p, size_t bytes, uintptr_t *lo, uintptr_t *hi)
{
    const uintptr_t mask = (uintptr_t)SPX_HUGE_PAGE_BYTES - 1;
    *lo = *hi = 0;
    if (!p || bytes < SPX_HUGE_PAGE_MIN_BYTES) return 0;
    *lo = ((uintptr_t)p + mask) & ~mask;
    *hi = ((uintptr_t)p + bytes) & ~mask;
    if (*hi <= *lo) *lo = *hi = 0;
    return *hi > *lo;
}

int spx_advise_huge_pages(void *p, size_t bytes)
{
    uintptr_t lo, hi;
    if (!spx_huge_page_range(p, bytes, &lo, &hi)) return 0;
#ifdef MADV_HUGEPAGE
    return madvise((void *)lo, hi - lo, MADV_HUGEPAGE) == 0;
#else
    return 0;
#endif
}
