/* src/core/progress.h: progress reports of long reads, generations, conversions and writes
 * (spx_read_opts.progress, spx_write_opts.progress), and the internal entry points that carry
 * them past the public calls without one. */
#ifndef SPX_CORE_PROGRESS_H
#define SPX_CORE_PROGRESS_H

#include "spx/spx.h"

/* A caller's progress callback and its argument; fn NULL: nobody listens. */
typedef struct spx_progress {
    spx_progress_fn fn;
    void *user;
} spx_progress;

/* Reports stage at done of total to p's callback (p or its callback NULL, or total <= 0, as
 * for an empty matrix: nothing). Call only on the thread that called the library (never from
 * OpenMP worker threads), first with done = 0, last with done = total. */
static inline void spx_progress_tell(const spx_progress *p, const char *stage, double done, double total)
{
    if (p && p->fn && total > 0) p->fn(p->user, stage, done, total);
}

/* spx_coo_to_csr, reporting "convert" steps to pr (may be NULL). */
spx_status spx_coo_to_csr_progress(spx_ctx *ctx, const spx_coo *C, int strict, int64_t *duplicates, spx_csr **out,
                                   const spx_progress *pr);
/* spx_gen, reporting "generate" (and "convert" for the generators that go through COO) to pr. */
spx_status spx_gen_progress(spx_ctx *ctx, const char *spec, const spx_progress *pr, spx_csr **out);

#endif
