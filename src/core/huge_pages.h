/* src/core/huge_pages.h: asking the kernel for transparent huge pages on large host blocks. */
#ifndef SPX_CORE_HUGE_PAGES_H
#define SPX_CORE_HUGE_PAGES_H

#include <stddef.h>
#include <stdint.h>

/* Host blocks from the default allocator at least this large are advised to the kernel as
 * huge-page candidates (2 MB pages where transparent huge pages are "madvise" or "always"):
 * a product's C of hundreds of MB is first touched by the numeric phase, and with 4 KB pages
 * every 4 KB costs a fault. Measured (2026-11-27, bench/NOTES.md): touching 512 MB took 260 ms
 * in 4 KB pages and 92 ms in huge pages on the 2-core CI machine (once 508 ms: a compaction);
 * the CPU SpGEMM on the GPU machine's 16 cores ("madvise" there), plan + first run, huge
 * against 4 KB pages, median of 3: stencil27 n=60 61.6 / 68.6 ms, uniform 1M x 8 352.7 /
 * 374.3, R-MAT 16 ef 16 335.5 / 352.2, poisson3d n=100 93.2 / 84.5 (within its spread).
 * SPX_HUGE_PAGES=0 (exactly "0") in the environment at context creation turns the advice
 * off. 8 MB: below it a block has few 2 MB pages to gain. */
#define SPX_HUGE_PAGE_MIN_BYTES ((size_t)8 << 20)

/* The huge page size the advice aligns to (x86-64 and arm64 with 4 KB base pages). */
#define SPX_HUGE_PAGE_BYTES ((size_t)2 << 20)

/* The 2 MB-aligned interior [*lo, *hi) of the block [p, p + bytes); 1 when it is not empty and
 * bytes reaches SPX_HUGE_PAGE_MIN_BYTES (the advice's range), else 0. */
int spx_huge_page_range(const void *p, size_t bytes, uintptr_t *lo, uintptr_t *hi);

/* Advises spx_huge_page_range's range of the block as huge pages where the platform knows
 * MADV_HUGEPAGE; 1 when the kernel took the advice, 0 otherwise (advice only: never an error). */
int spx_advise_huge_pages(void *p, size_t bytes);

#endif
