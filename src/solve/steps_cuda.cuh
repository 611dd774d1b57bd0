/* src/solve/steps_cuda.cuh: the device side of the solvers' fused steps that the step kernels
 * (src/solve/steps_cuda.cu) and the persistent CG kernel (src/solve/persist_cuda.cu) share: a
 * step's operands, its work at one entry (each update the expression the step kernels evaluate,
 * rounded to the vector's precision where they round), the sums it forms and the finisher of
 * solve_scalars.h it ends with, so both paths do the same arithmetic entry by entry. */
#ifndef SPX_SOLVE_STEPS_CUDA_CUH
#define SPX_SOLVE_STEPS_CUDA_CUH

#include <math.h>

#include "cuda/runtime.cuh"
#include "vec/vec_reduce.cuh"
#define SPX_VEC_FN static __host__ __device__ __forceinline__
#include "vec/vec_blue.h"
#define SPX_SOLVE_FN static __host__ __device__ __forceinline__
#include "solve/solve_steps.h"

/* Sums a step forms at most: BiCGSTAB's last pass, Blue's three for ||r|| and (r0^, r). */
#define SOLVE_CUDA_MAX_SUMS 4

namespace solve_dev {

/* A step's operands: the vectors by role (NULL where none), their length, the block. */
template <typename VT>
struct step_args {
    VT *v[SOLVE_N_ROLES];
    int64_t n;
    solve_scalars *sc;
    double *partials;
};

/* The block's scalars a step reads, loaded once at its start. */
struct step_scalars {
    int run, x_due, first;
    double alpha, beta, omega;
};

/* Sums of a norm in precision VT: Blue's three (fp64), or the plain sum of squares (fp32). */
template <typename VT>
constexpr int norm_sums()
{
    return sizeof(VT) == sizeof(double) ? SPX_N_SUMS : 1;
}

/* Sums step forms (0: none). */
template <typename VT, int STEP, bool JAC>
constexpr int step_sums()
{
    if (STEP == SOLVE_CG_R) return JAC ? 1 + norm_sums<VT>() : 1;
    if (STEP == SOLVE_BI_S) return norm_sums<VT>();
    if (STEP == SOLVE_BI_T) return 2;
    if (STEP == SOLVE_BI_R) return norm_sums<VT>() + 1;
    if (STEP == SOLVE_CG_XP || STEP == SOLVE_BI_P) return 0;
    return 1;
}

/* Adds v^2 to the norm's sums at s. */
template <typename VT>
__device__ __forceinline__ void norm_add(double *s, double v)
{
    if constexpr (norm_sums<VT>() == 1)
        s[0] += v * v;
    else
        spx_blue_add(s, v);
}

/* The norm from its sums at t. */
template <typename VT>
__device__ __forceinline__ double norm_of(const double *t)
{
    if constexpr (norm_sums<VT>() == 1)
        return sqrt(t[0]);
    else
        return spx_blue_finish(t);
}

/* Stores v rounded to VT at p[i]; returns the stored value. */
template <typename VT>
__device__ __forceinline__ double put(VT *p, int64_t i, double v)
{
    const VT r = (VT)v;
    p[i] = r;
    return (double)r;
}

/* Entry i of role r as fp64. */
template <typename VT>
__device__ __forceinline__ double at(const step_args<VT> &a, int r, int64_t i)
{
    return (double)a.v[r][i];
}

/* Whether the step does anything: the first steps always, x's last pass while x owes an update,
 * the others while the solve runs. The same for every block of a launch (the block changes
 * only in the last block's finisher, after every block has read it). */
template <int STEP>
__device__ __forceinline__ bool step_runs(const step_scalars &c)
{
    if (STEP == SOLVE_CG_INIT || STEP == SOLVE_BI_INIT) return true;
    if (STEP == SOLVE_CG_XP || STEP == SOLVE_BI_R) return c.run || c.x_due;
    return c.run;
}

/* CG's work at entry i (solve_scalars.h: init, pq, r, xp), its terms added to s. */
template <typename VT, int STEP, bool JAC>
__device__ __forceinline__ void cg_at(const step_args<VT> &a, const step_scalars &c, int64_t i, double *s)
{
    if constexpr (STEP == SOLVE_CG_INIT) {
        const double r = at(a, SOLVE_V_R, i);
        const double z = JAC ? put(a.v[SOLVE_V_Z], i, at(a, SOLVE_V_D, i) * r) : r;
        put(a.v[SOLVE_V_P], i, z);
        s[0] += r * z;
    } else if constexpr (STEP == SOLVE_CG_PQ) {
        s[0] += at(a, SOLVE_V_P, i) * at(a, SOLVE_V_Q, i);
    } else if constexpr (STEP == SOLVE_CG_R) {
        const double r = put(a.v[SOLVE_V_R], i, -c.alpha * at(a, SOLVE_V_Q, i) + at(a, SOLVE_V_R, i));
        if constexpr (JAC) {
            s[0] += r * put(a.v[SOLVE_V_Z], i, at(a, SOLVE_V_D, i) * r);
            norm_add<VT>(s + 1, r);
        } else {
            s[0] += r * r;
        }
    } else if constexpr (STEP == SOLVE_CG_XP) {
        const double p = at(a, SOLVE_V_P, i);
        if (c.x_due) put(a.v[SOLVE_V_X], i, c.alpha * p + at(a, SOLVE_V_X, i));
        if (c.run) put(a.v[SOLVE_V_P], i, at(a, SOLVE_V_Z, i) + c.beta * p);
    }
}

/* BiCGSTAB's p and r steps at entry i (solve_scalars.h), the terms of r's sums added to s. */
template <typename VT, int STEP, bool JAC>
__device__ __forceinline__ void bi_ends_at(const step_args<VT> &a, const step_scalars &c, int64_t i, double *s)
{
    if constexpr (STEP == SOLVE_BI_P) {
        double p = at(a, SOLVE_V_R, i);
        if (!c.first) {
            const double d = put(a.v[SOLVE_V_P], i, -c.omega * at(a, SOLVE_V_Q, i) + at(a, SOLVE_V_P, i));
            p = p + c.beta * d;
        }
        p = put(a.v[SOLVE_V_P], i, p);
        if (JAC) put(a.v[SOLVE_V_PHAT], i, at(a, SOLVE_V_D, i) * p);
    } else if constexpr (STEP == SOLVE_BI_R) {
        if (c.x_due) { /* s^ may be r: read before r changes */
            const double x = put(a.v[SOLVE_V_X], i, c.alpha * at(a, SOLVE_V_PHAT, i) + at(a, SOLVE_V_X, i));
            if (c.x_due == SOLVE_X_ALPHA_OMEGA) put(a.v[SOLVE_V_X], i, c.omega * at(a, SOLVE_V_SHAT, i) + x);
        }
        if (!c.run) return;
        const double r = put(a.v[SOLVE_V_R], i, -c.omega * at(a, SOLVE_V_T, i) + at(a, SOLVE_V_R, i));
        norm_add<VT>(s, r);
        s[norm_sums<VT>()] += at(a, SOLVE_V_RHAT, i) * r;
    }
}

/* BiCGSTAB's work at entry i (solve_scalars.h: init, p, rv, s, t, r), its terms added to s. */
template <typename VT, int STEP, bool JAC>
__device__ __forceinline__ void bi_at(const step_args<VT> &a, const step_scalars &c, int64_t i, double *s)
{
    if constexpr (STEP == SOLVE_BI_INIT) {
        const double r = at(a, SOLVE_V_R, i);
        put(a.v[SOLVE_V_RHAT], i, r);
        s[0] += r * r;
    } else if constexpr (STEP == SOLVE_BI_RV) {
        s[0] += at(a, SOLVE_V_RHAT, i) * at(a, SOLVE_V_Q, i);
    } else if constexpr (STEP == SOLVE_BI_S) {
        const double v = put(a.v[SOLVE_V_R], i, -c.alpha * at(a, SOLVE_V_Q, i) + at(a, SOLVE_V_R, i));
        norm_add<VT>(s, v);
        if (JAC) put(a.v[SOLVE_V_SHAT], i, at(a, SOLVE_V_D, i) * v);
    } else if constexpr (STEP == SOLVE_BI_T) {
        const double t = at(a, SOLVE_V_T, i);
        s[0] += t * t;
        s[1] += t * at(a, SOLVE_V_R, i);
    } else {
        bi_ends_at<VT, STEP, JAC>(a, c, i, s);
    }
}

/* The finisher of STEP on the totals t (the last block's thread 0). */
template <typename VT, int STEP, bool JAC>
__device__ __forceinline__ void finish(solve_scalars *sc, const step_scalars &c, const double *t)
{
    if constexpr (STEP == SOLVE_CG_INIT) cg_after_init(sc, t[0]);
    if constexpr (STEP == SOLVE_CG_PQ) cg_after_pq(sc, t[0]);
    if constexpr (STEP == SOLVE_CG_R) cg_after_r(sc, t[0], JAC ? norm_of<VT>(t + 1) : sqrt(t[0]));
    if constexpr (STEP == SOLVE_CG_XP) cg_after_xp(sc);
    if constexpr (STEP == SOLVE_BI_INIT) bi_after_init(sc, t[0]);
    if constexpr (STEP == SOLVE_BI_RV) bi_after_rv(sc, t[0]);
    if constexpr (STEP == SOLVE_BI_S) bi_after_s(sc, norm_of<VT>(t));
    if constexpr (STEP == SOLVE_BI_T) bi_after_t(sc, t[0], t[1]);
    if constexpr (STEP == SOLVE_BI_R) bi_after_r(sc, c.run ? norm_of<VT>(t) : 0.0, t[norm_sums<VT>()]);
}

} /* namespace solve_dev */

#endif
