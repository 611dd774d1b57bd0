/* src/vec/vec_internal.h: what other library modules (the solvers, the plans) may ask of a
 * vector or a dense block beyond the public API: the context it belongs to, for messages and
 * for work vectors beside it, and the CPU operations' share runner, so a fused pass
 * (src/solve/steps_cpu.c) splits and sums a vector exactly as spx_vec_dot does and gives its
 * bits. */
#ifndef SPX_VEC_VEC_INTERNAL_H
#define SPX_VEC_VEC_INTERNAL_H

#include "spx/dense.h"
#include "spx/vector.h"
#include "vec/vec_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The context v was made in (NULL for NULL). */
spx_ctx *spx_vec_ctx(const spx_vec *v);
/* The context d was made in (NULL for NULL). */
spx_ctx *spx_dense_ctx(const spx_dense *d);

/* A pass over entries [lo, hi) of a job: element-wise work, and its sums written to
 * acc[0..SPX_N_SUMS) once, at the end (acc arrives zeroed). */
typedef void (*spx_vec_pass_fn)(const void *job, int64_t lo, int64_t hi, double acc[SPX_N_SUMS]);
/* Runs fn over [0, n) in contiguous shares, one per thread of the context's count (one share
 * below the threading threshold); sums[k] = the shares' acc[k] added in share order, so the
 * result is the same every run for a given thread count. Every CPU vector operation runs here. */
void spx_vec_pass(spx_ctx *ctx, int64_t n, spx_vec_pass_fn fn, const void *job, double sums[SPX_N_SUMS]);

/* ||x|| of a CPU vector from plain, its plain fp64 sum of squares (as range_dot sums it): the
 * square root when that is accurate, else Blue's sums in a second pass (spx_vec_nrm2's rule). */
double spx_vec_nrm2_cpu_finish(const spx_vec *x, double plain);

/* The four running sums of a pass's dot products, as range_dot (src/vec/vec.c) keeps them:
 * entry lo + i goes to sum i % 4, and the four are added pairwise at the end, so the total
 * depends only on lo, hi and the values. */
typedef struct spx_dot4 {
    double s[4];
} spx_dot4;

/* Adds v, the term of entry lo + i. */
static inline void spx_dot4_add(spx_dot4 *d, int64_t i, double v) { d->s[i & 3] += v; }
/* The total. */
static inline double spx_dot4_total(const spx_dot4 *d) { return (d->s[0] + d->s[1]) + (d->s[2] + d->s[3]); }

#ifdef __cplusplus
}
#endif
#endif
