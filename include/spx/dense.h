/* include/spx/dense.h: dense blocks, the operands of SpMM (spx_plan_spmm): rows x cols entries
 * with a leading dimension, column- or row-major, fp64 or fp32, on the host or a device. A
 * vector is the one-column case (spx_vec keeps its own type: vector.h). */
#ifndef SPX_DENSE_H
#define SPX_DENSE_H

#include <stdint.h>
#include "spx/context.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API: exported by libspx.so */

/* How a block's entries lie in memory. Column-major: entry (i, j) at data[i + j*ld], ld >= rows
 * (each column contiguous; column j is an ordinary vector). Row-major: entry (i, j) at
 * data[i*ld + j], ld >= cols (each row's cols entries contiguous: an SpMM reads one nonzero's k
 * values of X as one run). ld >= 1 always (as BLAS asks). */
typedef enum spx_dense_layout {
    SPX_DENSE_COL_MAJOR = 0,
    SPX_DENSE_ROW_MAJOR = 1
} spx_dense_layout;

/* A dense block: its context, backend (CPU: host memory; CUDA: device memory of the context's
 * device), precision, shape, leading dimension, layout and data. Opaque. The entries between a
 * line's last and the next line's first (ld beyond rows or cols) are never read or written. */
typedef struct spx_dense spx_dense;

/* A new zero-filled rows x cols block (rows, cols >= 0) on backend b (AUTO: resolved with
 * spx_ctx_resolve_backend; CUDA checked usable), its lines contiguous (ld = rows for
 * column-major, cols for row-major; at least 1). Memory is accounted in the context: host data
 * against the host budget (SPX_ERR_NOMEM), device data against the device budget
 * (SPX_ERR_DEVICE_ALLOC). Nothing is held after a failure; *out untouched. */
spx_status spx_dense_create(spx_ctx *ctx, spx_backend b, spx_precision p, int64_t rows, int64_t cols,
                            spx_dense_layout layout, spx_dense **out);
/* A block over the caller's data (not copied, never freed; aligned to the entry size; NULL only
 * when rows or cols is 0) with leading dimension ld (>= rows column-major, >= cols row-major,
 * >= 1). b = CPU: host memory (not checked); CUDA: device memory of the context's device
 * (managed memory is refused); AUTO: whichever data is. Bad input: SPX_ERR_ARG with a message
 * (SPX_ERR_OVERFLOW when the span cannot be addressed), *out untouched. */
spx_status spx_dense_wrap(spx_ctx *ctx, spx_backend b, spx_precision p, int64_t rows, int64_t cols,
                          spx_dense_layout layout, int64_t ld, void *data, spx_dense **out);
/* Frees *d (NULL accepted; wrapped data is left alone) and sets it to NULL. */
void spx_dense_destroy(spx_dense **d);

/* d = host, an fp64 block in d's layout with leading dimension ld (>= rows column-major, >= cols
 * row-major; rounded to nearest for fp32 blocks). Synchronises for CUDA blocks. */
spx_status spx_dense_set(spx_dense *d, const double *host, int64_t ld);
/* host = d as fp64 (exact for fp32 blocks), in d's layout with leading dimension ld; the
 * entries of host beyond each line are left alone. */
spx_status spx_dense_get(const spx_dense *d, double *host, int64_t ld);

/* The entries (float* or double*, host or device per the backend; NULL when empty). */
void *spx_dense_data(spx_dense *d);
int64_t spx_dense_rows(const spx_dense *d);
int64_t spx_dense_cols(const spx_dense *d);
int64_t spx_dense_ld(const spx_dense *d);
spx_dense_layout spx_dense_get_layout(const spx_dense *d);
/* CPU or CUDA, never AUTO. */
spx_backend spx_dense_backend(const spx_dense *d);
spx_precision spx_dense_precision(const spx_dense *d);
/* The layout's name: "col" or "row". */
const char *spx_dense_layout_str(spx_dense_layout layout);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
