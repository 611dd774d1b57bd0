/* include/spx/vector.h: dense vectors on the CPU or the GPU and the vector operations (fill,
 * copy, axpby, mul, dot, nrm2) that, with spx_plan_apply, let a solver be written once for every
 * format and backend. */
#ifndef SPX_VECTOR_H
#define SPX_VECTOR_H

#include <stdint.h>
#include "spx/plan.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API: exported by libspx.so */

/* A vector: its context, backend (CPU: host memory; CUDA: device memory of the context's
 * device), precision (float or double entries), length and data. Opaque.
 *
 * Rules shared by every operation below:
 * - The operands of one call belong to the same context and have the same backend, precision
 *   and length, else SPX_ERR_ARG with a message (spx_vec_copy alone also moves data between
 *   backends). NULL arguments: SPX_ERR_ARG. Length 0 is valid everywhere.
 * - CPU vectors: OpenMP with the context's thread count. Results are deterministic for a
 *   given thread count (fixed contiguous shares, partial sums added in share order).
 * - CUDA vectors: every operation runs on the context's stream (spx_ctx_set_stream), in
 *   order with spx_plan_spmv_device and spx_plan_apply on that stream. fill, copy (device to
 *   device), axpby and mul are asynchronous; dot, nrm2, get, set and copies between backends
 *   return host data and so synchronise the stream. Reductions are deterministic: the same
 *   inputs on the same device give the same bits every run.
 * - A CUDA vector takes one reduction at a time (dot and nrm2 use the first operand's small
 *   device scratch): reduce on one vector from one thread, or from one stream, at a time.
 * - Arithmetic is in fp64 for fp32 vectors too; fp32 results are rounded once at the end. */
typedef struct spx_vec spx_vec;

/* A new zero-filled vector of n entries (n >= 0) on backend b (AUTO: resolved with
 * spx_ctx_resolve_backend; CUDA checked usable). Memory is accounted in the context: host
 * data against the host budget (SPX_ERR_NOMEM when over it), device data against the device
 * budget (SPX_ERR_DEVICE_ALLOC). Nothing is held after a failure. */
spx_status spx_vec_create(spx_ctx *ctx, spx_backend b, spx_precision p, int64_t n, spx_vec **out);
/* A vector over the caller's n entries at data (not copied, never freed; aligned to the
 * entry size; NULL only when n == 0). b = CPU: host memory (not checked); CUDA: device
 * memory of the context's device (cudaMalloc; managed memory is refused); AUTO: whichever
 * data is. */
spx_status spx_vec_wrap(spx_ctx *ctx, spx_backend b, spx_precision p, int64_t n, void *data,
                        spx_vec **out);
/* Frees *v (NULL accepted; wrapped data is left alone) and sets it to NULL. */
void spx_vec_destroy(spx_vec **v);

/* v = host[0..n) (fp64; rounded to nearest for fp32 vectors). */
spx_status spx_vec_set(spx_vec *v, const double *host);
/* host[0..n) = v, as fp64 (exact for fp32 vectors). */
spx_status spx_vec_get(const spx_vec *v, double *host);

/* The entries (float* or double*, host or device per the backend; NULL when n == 0). */
void *spx_vec_data(spx_vec *v);
int64_t spx_vec_length(const spx_vec *v);
/* CPU or CUDA, never AUTO. */
spx_backend spx_vec_backend(const spx_vec *v);
spx_precision spx_vec_precision(const spx_vec *v);

/* v[i] = value (rounded for fp32). */
spx_status spx_vec_fill(spx_vec *v, double value);
/* dst = src: same precision and length; the backends may differ (host <-> device copies,
 * synchronised); dst == src does nothing. */
spx_status spx_vec_copy(spx_vec *dst, const spx_vec *src);
/* y = a*x + b*y. b = 0: y is not read (NaN in y does not survive); a = 0: x is not read.
 * x and y may be the same vector (y = (a + b)*y). */
spx_status spx_vec_axpby(double a, const spx_vec *x, double b, spx_vec *y);
/* z[i] = x[i]*y[i] (the product in fp64, rounded once for fp32 vectors): a diagonal scaling,
 * such as the Jacobi preconditioner's z = D^-1 r. z may be x or y. Asynchronous on CUDA. */
spx_status spx_vec_mul(const spx_vec *x, const spx_vec *y, spx_vec *z);
/* *out = sum x[i]*y[i], accumulated in fp64 (products of fp32 entries are exact in fp64). */
spx_status spx_vec_dot(const spx_vec *x, const spx_vec *y, double *out);
/* *out = sqrt(sum x[i]^2), never overflowing or underflowing in between. fp32 vectors: the
 * squares summed in fp64, which no float entry can overflow or underflow. fp64 vectors: Blue's
 * three accumulators (small, medium and large entries scaled by powers of two, one pass; a
 * finite result whenever the norm is representable), on the GPU always, on the CPU only when
 * the plain fp64 sum of squares, tried first at the speed of dot, overflowed or came out below
 * 2^-900 (where underflow might matter). NaN entries give NaN, infinite ones +inf. */
spx_status spx_vec_nrm2(const spx_vec *x, double *out);

/* y = a*A*x + b*y with a plan: the plan's backend and precision must be the vectors'
 * (CPU plan: spx_plan_spmv or spx_plan_spmv_f32 on the host data, a and b rounded to fp32
 * for fp32 plans; CUDA plan: spx_plan_spmv_device, asynchronous on the context's stream).
 * The vectors must belong to the plan's context, x must not be y, b = 0 never reads y.
 * Lengths: x must hold the plan's column count and y its row count (checked: SPX_ERR_ARG). */
spx_status spx_plan_apply(spx_plan *p, double a, const spx_vec *x, double b, spx_vec *y);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
