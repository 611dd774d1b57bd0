/* src/solve/steps_cuda.cu: the device half of a solve: the scalar block in device memory, the
 * fused steps as kernels (one pass over the vectors each, the sums the next scalar needs formed
 * on the way: per-block partials in a fixed order, then the last block to finish, found by an
 * atomic ticket, adds them in a fixed order and runs the step's finisher of solve_scalars.h, so
 * the same inputs give the same bits every run), and the iteration (the plan's SpMV and the
 * steps) captured once as a CUDA graph and replayed. Every step reads the block's status first
 * and does nothing once the solve has ended, so the host reads the block only every m
 * iterations. */
#include <math.h>
#include <string.h>

#include "cuda/runtime.cuh"
#include "vec/vec_reduce.cuh"
#define SPX_VEC_FN static __host__ __device__ __forceinline__
#include "vec/vec_blue.h"
#define SPX_SOLVE_FN static __host__ __device__ __forceinline__
#include "solve/solve_steps.h"

/* Blocks of a step at most: the grid is spx_vec_grid's (8 per SM: 1056 on an H100), and the
 * partial sums are sized for it; 4096 covers 512 SMs. */
#define SOLVE_CUDA_MAX_BLOCKS 4096
/* Sums a step forms at most: BiCGSTAB's last pass, Blue's three for ||r|| and (r0^, r). */
#define SOLVE_CUDA_MAX_SUMS 4

struct solve_cuda {
    spx_ctx *ctx;
    void *saved_stream;  /* the context's stream before spx_solve_cuda_open */
    cudaStream_t stream; /* the solve's */
    solve_scalars *dev;  /* the block in device memory */
    solve_scalars *host; /* its page-locked host copy */
    double *partials;    /* SOLVE_CUDA_MAX_SUMS x grid partial sums */
    unsigned grid;       /* blocks of every step: a function of n and the device */
    cudaGraphExec_t exec; /* the captured iteration; NULL: none */
};

namespace {

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

/* The block's sums to the partials, then the last block to finish adds every block's in a fixed
 * order and runs the finisher (NS = 0: no sums, the ticket alone finds the last block). */
template <typename VT, int STEP, bool JAC, int NS>
__device__ __forceinline__ void reduce_finish(const step_args<VT> &a, const step_scalars &c, double *s)
{
    __shared__ bool last;
    if constexpr (NS > 0) spx_vec_block_sums<SPX_VEC_BLOCK, NS>(s);
    if (threadIdx.x == 0) {
        for (int k = 0; k < NS; k++) a.partials[(int64_t)k * gridDim.x + blockIdx.x] = s[k];
        __threadfence(); /* the partials visible before the ticket counts this block */
        last = atomicAdd(&a.sc->ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    double t[NS > 0 ? NS : 1];
#pragma unroll
    for (int k = 0; k < NS; k++) {
        t[k] = 0.0;
        for (unsigned j = threadIdx.x; j < gridDim.x; j += SPX_VEC_BLOCK) t[k] += __ldcg(&a.partials[(int64_t)k * gridDim.x + j]);
    }
    if constexpr (NS > 0) spx_vec_block_sums<SPX_VEC_BLOCK, NS>(t);
    if (threadIdx.x == 0) {
        finish<VT, STEP, JAC>(a.sc, c, t);
        a.sc->ticket = 0;
    }
}

/* One fused step over the grid (grid-stride; the grid a function of n and the device). */
template <typename VT, int STEP, bool JAC>
__global__ void __launch_bounds__(SPX_VEC_BLOCK) solve_step_kernel(step_args<VT> a)
{
    const solve_scalars *sc = a.sc;
    const step_scalars c = {sc->status == SOLVE_RUNNING, sc->x_due, sc->k == 1, sc->alpha, sc->beta, sc->omega};
    if (!step_runs<STEP>(c)) return;
    constexpr int NS = step_sums<VT, STEP, JAC>();
    double s[NS > 0 ? NS : 1];
#pragma unroll
    for (int k = 0; k < (NS > 0 ? NS : 1); k++) s[k] = 0.0;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += stride) {
        if constexpr (STEP <= SOLVE_CG_XP)
            cg_at<VT, STEP, JAC>(a, c, i, s);
        else
            bi_at<VT, STEP, JAC>(a, c, i, s);
    }
    if constexpr (STEP != SOLVE_BI_P) reduce_finish<VT, STEP, JAC, NS>(a, c, s);
}

/* Launches STEP's kernel. */
template <typename VT, int STEP, bool JAC>
spx_status launch(solve_cuda *c, const step_args<VT> &a)
{
    solve_step_kernel<VT, STEP, JAC><<<c->grid, SPX_VEC_BLOCK, 0, spx_cuda_stream(c->ctx)>>>(a);
    SPX_CUDA_LAUNCHED(c->ctx, "solve_step_kernel");
    return SPX_OK;
}

/* Launches step's kernel for VT and the preconditioner. */
template <typename VT, bool JAC>
spx_status launch_step(solve_cuda *c, solve_step step, const step_args<VT> &a)
{
    switch (step) {
    case SOLVE_CG_INIT: return launch<VT, SOLVE_CG_INIT, JAC>(c, a);
    case SOLVE_CG_PQ: return launch<VT, SOLVE_CG_PQ, JAC>(c, a);
    case SOLVE_CG_R: return launch<VT, SOLVE_CG_R, JAC>(c, a);
    case SOLVE_CG_XP: return launch<VT, SOLVE_CG_XP, JAC>(c, a);
    case SOLVE_BI_INIT: return launch<VT, SOLVE_BI_INIT, JAC>(c, a);
    case SOLVE_BI_P: return launch<VT, SOLVE_BI_P, JAC>(c, a);
    case SOLVE_BI_RV: return launch<VT, SOLVE_BI_RV, JAC>(c, a);
    case SOLVE_BI_S: return launch<VT, SOLVE_BI_S, JAC>(c, a);
    case SOLVE_BI_T: return launch<VT, SOLVE_BI_T, JAC>(c, a);
    case SOLVE_BI_R: return launch<VT, SOLVE_BI_R, JAC>(c, a);
    default: return spx_fail(c->ctx, SPX_ERR_ARG, "solver: unknown step %d", (int)step);
    }
}

/* The step's operands of type VT. */
template <typename VT>
spx_status step_typed(solve_cuda *c, solve_step step, int64_t n, void *const ptr[SOLVE_N_ROLES])
{
    step_args<VT> a;
    for (int r = 0; r < SOLVE_N_ROLES; r++) a.v[r] = (VT *)ptr[r];
    a.n = n;
    a.sc = c->dev;
    a.partials = c->partials;
    return ptr[SOLVE_V_D] ? launch_step<VT, true>(c, step, a) : launch_step<VT, false>(c, step, a);
}

/* Frees c's device and host memory (after its stream has drained). */
void release(solve_cuda *c)
{
    if (cudaStreamSynchronize(c->stream) != cudaSuccess) (void)cudaGetLastError();
    if (c->exec && cudaGraphExecDestroy(c->exec) != cudaSuccess) (void)cudaGetLastError();
    spx_cuda_free(c->ctx, c->dev);
    spx_cuda_free(c->ctx, c->partials);
    if (c->host) spx_cuda_pinned_free(c->ctx, c->host, sizeof *c->host);
}

} /* namespace */

extern "C" spx_status spx_solve_cuda_open(spx_ctx *ctx, int64_t n, solve_cuda **out, solve_scalars **host)
{
    *out = NULL;
    solve_cuda *c = (solve_cuda *)spx_calloc_array(ctx, 1, sizeof *c);
    if (!c) return spx_fail_nomem(ctx, "the solver's device state");
    c->ctx = ctx;
    c->saved_stream = ctx->cuda_stream;
    cudaStream_t side = NULL;
    c->stream = spx_cuda_side_streams(ctx, 1, &side) == 1 ? side : spx_cuda_stream(ctx);
    const unsigned grid = spx_vec_grid(ctx, n);
    c->grid = grid < SOLVE_CUDA_MAX_BLOCKS ? grid : SOLVE_CUDA_MAX_BLOCKS;
    spx_status s = spx_cuda_malloc(ctx, (void **)&c->dev, sizeof *c->dev);
    if (!s) s = spx_cuda_malloc(ctx, (void **)&c->partials, (size_t)SOLVE_CUDA_MAX_SUMS * c->grid * sizeof(double));
    if (!s) s = spx_cuda_pinned_alloc(ctx, (void **)&c->host, sizeof *c->host);
    if (s) {
        release(c);
        spx_free(ctx, c);
        return s;
    }
    memset(c->host, 0, sizeof *c->host);
    ctx->cuda_stream = c->stream;
    *out = c;
    *host = c->host;
    return SPX_OK;
}

extern "C" spx_status spx_solve_cuda_put(solve_cuda *c)
{
    SPX_CUDA_RET(c->ctx, cudaMemcpyAsync(c->dev, c->host, sizeof *c->dev, cudaMemcpyHostToDevice, c->stream));
    return SPX_OK;
}

extern "C" spx_status spx_solve_cuda_get(solve_cuda *c)
{
    SPX_CUDA_RET(c->ctx, cudaMemcpyAsync(c->host, c->dev, sizeof *c->dev, cudaMemcpyDeviceToHost, c->stream));
    SPX_CUDA_RET(c->ctx, cudaStreamSynchronize(c->stream));
    return SPX_OK;
}

extern "C" spx_status spx_solve_cuda_step(solve_cuda *c, solve_step step, spx_precision p, int64_t n,
                                          void *const ptr[SOLVE_N_ROLES])
{
    return p == SPX_FP32 ? step_typed<float>(c, step, n, ptr) : step_typed<double>(c, step, n, ptr);
}

extern "C" spx_status spx_solve_cuda_capture(solve_cuda *c, spx_status (*body)(void *arg), void *arg, int *ok)
{
    *ok = 0;
    if (!c->stream) return SPX_OK; /* the legacy default stream cannot be captured */
    if (cudaStreamBeginCapture(c->stream, cudaStreamCaptureModeRelaxed) != cudaSuccess) {
        (void)cudaGetLastError();
        return SPX_OK;
    }
    const spx_status s = body(arg);
    cudaGraph_t g = NULL;
    const cudaError_t e = cudaStreamEndCapture(c->stream, &g);
    if (s == SPX_OK && e == cudaSuccess && g && cudaGraphInstantiate(&c->exec, g, 0) == cudaSuccess) {
        *ok = 1;
        if (cudaGraphUpload(c->exec, c->stream) != cudaSuccess) (void)cudaGetLastError(); /* else at the first launch */
    } else {
        c->exec = NULL; /* not capturable: the same launches run plainly, and a real error recurs there */
    }
    if (g && cudaGraphDestroy(g) != cudaSuccess) (void)cudaGetLastError();
    (void)cudaGetLastError();
    return SPX_OK;
}

extern "C" spx_status spx_solve_cuda_replay(solve_cuda *c)
{
    SPX_CUDA_RET(c->ctx, cudaGraphLaunch(c->exec, c->stream));
    return SPX_OK;
}

extern "C" void spx_solve_cuda_close(solve_cuda *c)
{
    if (!c) return;
    release(c);
    c->ctx->cuda_stream = c->saved_stream;
    spx_free(c->ctx, c);
}
