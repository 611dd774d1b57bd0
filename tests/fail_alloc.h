/* tests/fail_alloc.h: an allocator for fault injection: fails its fail_at-th call (alloc or
 * realloc) and counts live blocks, so tests can prove every path fails cleanly. */
#ifndef SPX_TESTS_FAIL_ALLOC_H
#define SPX_TESTS_FAIL_ALLOC_H

#include <stdlib.h>
#include "spx/spx.h"

typedef struct fail_alloc {
    long calls, fail_at, live;
} fail_alloc;

/* malloc, except for the fail_at-th call of either hook. */
static void *fa_alloc(void *u, size_t b)
{
    fail_alloc *s = u;
    if (++s->calls == s->fail_at) return NULL;
    void *p = malloc(b);
    s->live += p != NULL;
    return p;
}

/* realloc, except for the fail_at-th call of either hook. */
static void *fa_realloc(void *u, void *p, size_t b)
{
    fail_alloc *s = u;
    if (++s->calls == s->fail_at) return NULL;
    void *q = realloc(p, b);
    s->live += q && !p;
    return q;
}

/* free, counting the live blocks down. */
static void fa_free(void *u, void *p)
{
    fail_alloc *s = u;
    if (p) {
        s->live--;
        free(p);
    }
}

#endif
