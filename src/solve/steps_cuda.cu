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

#include "solve/steps_cuda.cuh"

/* Blocks of a step at most: the grid is spx_vec_grid's (8 per SM: 1056 on an H100), and the
 * partial sums are sized for it; 4096 covers 512 SMs. */
#define SOLVE_CUDA_MAX_BLOCKS 4096

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

using namespace solve_dev;

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

extern "C" solve_scalars *spx_solve_cuda_block(solve_cuda *c) { return c->dev; }

extern "C" void spx_solve_cuda_close(solve_cuda *c)
{
    if (!c) return;
    release(c);
    c->ctx->cuda_stream = c->saved_stream;
    spx_free(c->ctx, c);
}
