/* src/vec/vec_cuda.h: the vector module's piece of the CUDA gateway: the C entry points of
 * its GPU kernels (src/vec/vec_cuda.cu; src/vec/vec_stub.c returns SPX_ERR_NOT_COMPILED for
 * each in builds without CUDA), and the constants the CPU and GPU halves share. Device
 * pointers cross this line as void* (float* or double* per precision). Every launch runs on
 * the context's stream. */
#ifndef SPX_VEC_VEC_CUDA_H
#define SPX_VEC_VEC_CUDA_H

#include <stdint.h>

#include "core/ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Blue's scaled sum of squares for fp64 nrm2 (J. L. Blue, "A portable Fortran program to find
 * the Euclidean norm of a vector", ACM TOMS 4(1), 1978; the constants as E. Anderson derives
 * them for IEEE double in "Algorithm 978: Safe scaling in the level 1 BLAS", ACM TOMS 44(1),
 * 2017): entries below TSML are summed as (|x|*SSML)^2, above TBIG as (|x|*SBIG)^2, the rest
 * as x^2; none of the three sums can overflow or lose a representable entry to underflow. */
#define SPX_VEC_BLUE_TSML 0x1p-511 /* 2^ceil((emin - 1) / 2), emin = -1021 */
#define SPX_VEC_BLUE_TBIG 0x1p+486 /* 2^floor((emax - t + 1) / 2), emax = 1024, t = 53 */
#define SPX_VEC_BLUE_SSML 0x1p+537 /* 2^-floor((emin - t) / 2) */
#define SPX_VEC_BLUE_SBIG 0x1p-538 /* 2^-ceil((emax + t - 1) / 2) */

/* The sums a reduction returns: dot uses [SPX_SUM_MED]; nrm2 all three (fp32: medium only). */
enum { SPX_SUM_SML = 0, SPX_SUM_MED = 1, SPX_SUM_BIG = 2, SPX_N_SUMS = 3 };

/* First-pass blocks of a GPU reduction at most: one partial per block and per sum lives in
 * the scratch. 4096 covers 8 resident blocks on each of 512 SMs (an H200 has 132). */
#define SPX_VEC_RED_MAX_BLOCKS 4096
/* Doubles in a CUDA vector's reduction scratch: the partials, then the final sums. */
#define SPX_VEC_SCRATCH_DOUBLES (SPX_N_SUMS * SPX_VEC_RED_MAX_BLOCKS + SPX_N_SUMS)

/* x[0..n) = value (rounded for fp32); asynchronous. */
spx_status spx_vec_cuda_fill(spx_ctx *ctx, spx_precision p, int64_t n, void *x, double value);
/* y = a*x + b*y in fp64 arithmetic; b == 0 never reads y, a == 0 never reads x; asynchronous. */
spx_status spx_vec_cuda_axpby(spx_ctx *ctx, spx_precision p, int64_t n, double a, const void *x,
                              double b, void *y);
/* z = x .* y (fp64 product, rounded once for fp32); z may be x or y; asynchronous. */
spx_status spx_vec_cuda_mul(spx_ctx *ctx, spx_precision p, int64_t n, const void *x, const void *y, void *z);
/* out[k] = x[idx[k]] for k < n, fp64 (device idx, x and out; the distributed SpMV packs its
 * halo with it, src/dist); asynchronous. */
spx_status spx_vec_cuda_gather(spx_ctx *ctx, int64_t n, const int32_t *idx, const double *x, double *out);
/* y[idx[k]] += z[k] for k < n, fp64, the idx distinct (device idx, z and y; the distributed
 * SpMV adds its compressed off-diagonal rows with it); asynchronous. */
spx_status spx_vec_cuda_scatter_add(spx_ctx *ctx, int64_t n, const int32_t *idx, const double *z, double *y);
/* out[SPX_SUM_MED] = sum x[i]*y[i] in fp64 (the other sums 0), by the deterministic two-pass
 * reduction through scratch (SPX_VEC_SCRATCH_DOUBLES device doubles); synchronises. */
spx_status spx_vec_cuda_dot(spx_ctx *ctx, spx_precision p, int64_t n, const void *x, const void *y,
                            double *scratch, double out[SPX_N_SUMS]);
/* out = Blue's three sums of squares of x (fp64), or the plain fp64 sum of squares in
 * out[SPX_SUM_MED] (fp32); same reduction as dot; synchronises. */
spx_status spx_vec_cuda_sumsq(spx_ctx *ctx, spx_precision p, int64_t n, const void *x,
                              double *scratch, double out[SPX_N_SUMS]);

#ifdef __cplusplus
}
#endif
#endif
