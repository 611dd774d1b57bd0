/* src/formats/hbp/hbp_table.cuh: a layout's arrays as one table (the tiled layout's from
 * spx_hbp_arrays, the wide tiles' from spx_hbp_wide_arrays: each array's address, element
 * count and element size), and what the GPU halves do to all of a table's arrays at once:
 * clear the pointers of a header copy, allocate, upload, download, free. */
#ifndef SPX_FORMATS_HBP_TABLE_CUH
#define SPX_FORMATS_HBP_TABLE_CUH

#include <stdint.h>

#include "cuda/runtime.cuh"
#include "formats/hbp/hbp.h"
#include "formats/hbp/hbp_wide.h"

#define HBP_TABLE_MAX (SPX_HBP_N_ARRAYS > SPX_HBP_WIDE_N_ARRAYS ? SPX_HBP_N_ARRAYS : SPX_HBP_WIDE_N_ARRAYS)

/* Arrays [0, n) of one layout: ptr[i] the address of its pointer, count[i] elements of size[i]
 * bytes. */
struct hbp_table {
    int n;
    void **ptr[HBP_TABLE_MAX];
    int64_t count[HBP_TABLE_MAX];
    size_t size[HBP_TABLE_MAX];
};

/* The tiled layout F's table (hbp.h's order). */
static inline hbp_table hbp_table_of(spx_hbp_fmt *F)
{
    hbp_table t;
    t.n = SPX_HBP_N_ARRAYS;
    spx_hbp_arrays(F, t.ptr, t.count, t.size);
    return t;
}

/* The wide tiles L's table (hbp_wide.h's order). */
static inline hbp_table hbp_table_of(spx_hbp_wide *L)
{
    hbp_table t;
    t.n = SPX_HBP_WIDE_N_ARRAYS;
    spx_hbp_wide_arrays(L, t.ptr, t.count, t.size);
    return t;
}

/* Sets every array pointer to NULL (a header copy owns none). */
static inline void hbp_table_clear(const hbp_table &t)
{
    for (int i = 0; i < t.n; i++) *t.ptr[i] = NULL;
}

/* Allocates device arrays [from, to) of d (their counts as d says). */
static inline spx_status hbp_table_alloc(spx_ctx *ctx, const hbp_table &d, int from, int to)
{
    spx_status s = SPX_OK;
    for (int i = from; i < to && !s; i++) s = spx_cuda_malloc(ctx, d.ptr[i], (size_t)d.count[i] * d.size[i]);
    return s;
}

/* Allocates device arrays [from, to) of d and copies host arrays of h (the same layout's
 * counts) into them. */
static inline spx_status hbp_table_upload(spx_ctx *ctx, const hbp_table &h, const hbp_table &d, int from, int to)
{
    spx_status s = SPX_OK;
    for (int i = from; i < to && !s; i++) {
        const size_t bytes = (size_t)h.count[i] * h.size[i];
        s = spx_cuda_malloc(ctx, d.ptr[i], bytes);
        if (!s) s = spx_cuda_h2d(ctx, *d.ptr[i], *h.ptr[i], bytes);
    }
    return s;
}

/* Allocates every host array of h (from the context; what names them in an out-of-memory
 * message) and copies d's device arrays into them. */
static inline spx_status hbp_table_download(spx_ctx *ctx, const hbp_table &d, const hbp_table &h, const char *what)
{
    spx_status s = SPX_OK;
    for (int i = 0; i < h.n && !s; i++) {
        *h.ptr[i] = spx_malloc_array(ctx, (size_t)h.count[i], h.size[i]);
        s = *h.ptr[i] || h.count[i] == 0 ? spx_cuda_d2h(ctx, *h.ptr[i], *d.ptr[i], (size_t)h.count[i] * h.size[i])
                                         : spx_fail_nomem(ctx, what);
    }
    return s;
}

/* Frees every device array of d. */
static inline void hbp_table_free(spx_ctx *ctx, const hbp_table &d)
{
    for (int i = 0; i < d.n; i++) spx_cuda_free(ctx, *d.ptr[i]);
}

#endif
