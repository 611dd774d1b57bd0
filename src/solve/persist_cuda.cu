/* src/solve/persist_cuda.cu: the persistent CG kernel (issue 49): every iteration of a solve on
 * a csr plan in one cooperative launch, so an iteration costs its work and three grid-wide
 * barriers instead of four kernel launches. An iteration: q = A p (the csr SpMV as a device
 * function, G lanes a row) with (p, q); barrier; every block adds all blocks' partial sums in
 * one fixed order and runs the same finisher on its own copy of the scalar block (so every
 * block holds the same alpha, bit for bit), then r -= alpha q, z = D^-1 r, x += alpha p with
 * (r, z) and ||r||; barrier; the same totals and finisher (the record, convergence, the
 * breakdowns, the cap: every block takes the same branch, so all reach the same barriers), then
 * p = z + beta p; barrier. Each entry's update is the step kernels' own expression
 * (src/solve/steps_cuda.cuh), only the order of the sums differs from the graph path. No atomics
 * on floating-point values: the same bits every run on a device. */
#include <cooperative_groups.h>
#include <string.h>

#include "solve/steps_cuda.cuh" /* first: it makes solve_scalars.h's finishers device functions */
#include "solve/solve_persist.h"
#include "solve/solve_tuning.h"

namespace cgr = cooperative_groups;

namespace {

using namespace solve_dev;

constexpr int BLOCK = SOLVE_PERSIST_BLOCK;
/* Slots of partial sums a block writes: (p, q), then the residual step's (at most
 * SOLVE_CUDA_MAX_SUMS), each gridDim.x wide. */
constexpr int SLOTS = 1 + SOLVE_CUDA_MAX_SUMS;
constexpr int SLOT_PQ = 0, SLOT_R = 1;

/* The kernel's operands: the vectors and the block (step_args: the partials SLOTS x gridDim.x),
 * the plan's csr arrays, the history on the device. */
template <typename VT>
struct persist_args {
    step_args<VT> s;
    const int32_t *rowptr, *colind;
    const VT *val;
    double *hist; /* hist[k] = ||r_k|| / ||b||, 1 <= k < hist_len (NULL: none kept) */
    int32_t hist_len;
};

/* q = A p over the rows (G lanes a row, a warp's groups on consecutive rows, grid-stride by
 * whole warps so that every lane takes the shuffles); returns this thread's part of (p, q), p and
 * q as stored. The matrix through __ldg (read-only for the whole launch, kept in L2 from one
 * iteration to the next); p by plain loads, since other blocks wrote it in this launch. */
template <typename VT, int G>
__device__ __forceinline__ double spmv_pq(const persist_args<VT> &a)
{
    const VT *p = a.s.v[SOLVE_V_P];
    const int64_t mine = ((int64_t)blockIdx.x * BLOCK + threadIdx.x) / G;
    const int64_t first = mine - (int64_t)((threadIdx.x & 31) / G);
    const int64_t groups = (int64_t)gridDim.x * (BLOCK / G);
    const int lane = threadIdx.x & (G - 1);
    double pq = 0.0;
    for (int64_t r0 = first; r0 < a.s.n; r0 += groups) {
        const int64_t row = r0 + (mine - first);
        double sum = 0.0;
        if (row < a.s.n) {
            const int32_t e = __ldg(a.rowptr + row + 1);
#pragma unroll 4
            for (int32_t k = __ldg(a.rowptr + row) + lane; k < e; k += G)
                sum += (double)__ldg(a.val + k) * (double)p[__ldg(a.colind + k)];
        }
        sum = spx_group_sum<G>(sum);
        if (lane == 0 && row < a.s.n) pq += at(a.s, SOLVE_V_P, row) * put(a.s.v[SOLVE_V_Q], row, sum);
    }
    return pq;
}

/* The block's NS sums s to its column of slots slot .. slot + NS - 1 (thread 0 writes them). */
template <int NS>
__device__ __forceinline__ void block_partials(double *partials, int slot, double *s)
{
    spx_vec_block_sums<BLOCK, NS>(s);
    if (threadIdx.x == 0)
        for (int k = 0; k < NS; k++) partials[(int64_t)(slot + k) * gridDim.x + blockIdx.x] = s[k];
}

/* The totals of slots slot .. slot + NS - 1 over every block's partials, added in the same order
 * by every block (a thread a partial, then the block's fixed tree): thread 0 holds them. */
template <int NS>
__device__ __forceinline__ void grid_totals(const double *partials, int slot, double *t)
{
#pragma unroll
    for (int k = 0; k < NS; k++) {
        t[k] = 0.0;
        for (unsigned j = threadIdx.x; j < gridDim.x; j += BLOCK) t[k] += __ldcg(partials + (int64_t)(slot + k) * gridDim.x + j);
    }
    spx_vec_block_sums<BLOCK, NS>(t);
}

/* r -= alpha q, z = D^-1 r with the residual step's sums into s, and x += alpha p (x owes it
 * once alpha exists), over this thread's entries: the graph path's r step and the x half of its
 * xp step. */
template <typename VT, bool JAC>
__device__ __forceinline__ void residual_pass(const persist_args<VT> &a, const solve_scalars &sh, double *s)
{
    constexpr int NR = step_sums<VT, SOLVE_CG_R, JAC>();
    const step_scalars r = {1, SOLVE_X_NONE, 0, sh.alpha, 0.0, 0.0}, x = {0, sh.x_due, 0, sh.alpha, 0.0, 0.0};
#pragma unroll
    for (int k = 0; k < NR; k++) s[k] = 0.0;
    for (int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x; i < a.s.n; i += (int64_t)gridDim.x * BLOCK) {
        cg_at<VT, SOLVE_CG_R, JAC>(a.s, r, i, s);
        cg_at<VT, SOLVE_CG_XP, JAC>(a.s, x, i, s);
    }
}

/* p = z + beta p over this thread's entries (the p half of the graph path's xp step, which runs
 * while the solve does). */
template <typename VT, bool JAC>
__device__ __forceinline__ void direction_pass(const persist_args<VT> &a, const solve_scalars &sh)
{
    const step_scalars c = {1, SOLVE_X_NONE, 0, 0.0, sh.beta, 0.0};
    double none = 0.0;
    for (int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x; i < a.s.n; i += (int64_t)gridDim.x * BLOCK)
        cg_at<VT, SOLVE_CG_XP, JAC>(a.s, c, i, &none);
}

/* The solve's iterations from the block's state after the first step until its status ends.
 * Every block keeps the scalar block in shared memory and runs each finisher (thread 0) on the
 * same totals, so all blocks take the same branches and meet the same grid barriers; block 0
 * writes the block back at the end, and the history as it goes. */
template <typename VT, bool JAC, int G>
__global__ void __launch_bounds__(BLOCK) cg_persist_kernel(persist_args<VT> a)
{
    constexpr int NR = step_sums<VT, SOLVE_CG_R, JAC>();
    static_assert(NR >= 1 && NR <= SOLVE_CUDA_MAX_SUMS, "the residual step's sums fit their slots");
    __shared__ solve_scalars sh;
    const step_scalars none = {0, 0, 0, 0.0, 0.0, 0.0};
    cgr::grid_group grid = cgr::this_grid();
    double s[NR];
    if (threadIdx.x == 0) sh = *a.s.sc;
    __syncthreads();
    while (sc_running(&sh)) {
        s[0] = spmv_pq<VT, G>(a);
        block_partials<1>(a.s.partials, SLOT_PQ, s);
        grid.sync(); /* q and every block's (p, q) complete */
        grid_totals<1>(a.s.partials, SLOT_PQ, s);
        if (threadIdx.x == 0) finish<VT, SOLVE_CG_PQ, JAC>(&sh, none, s);
        __syncthreads();
        if (!sc_running(&sh)) break; /* p'Ap <= 0 or not finite: x owes nothing */
        residual_pass<VT, JAC>(a, sh, s);
        block_partials<NR>(a.s.partials, SLOT_R, s);
        grid.sync(); /* r, z and every block's sums complete */
        grid_totals<NR>(a.s.partials, SLOT_R, s);
        if (threadIdx.x == 0) { /* xp's finisher too: it reads nothing p's update writes */
            const int k = sh.k;
            finish<VT, SOLVE_CG_R, JAC>(&sh, none, s);
            if (blockIdx.x == 0 && a.hist && k < a.hist_len) a.hist[k] = sh.rel;
            finish<VT, SOLVE_CG_XP, JAC>(&sh, none, s);
        }
        __syncthreads();
        if (!sc_running(&sh)) break; /* converged, (r, z) <= 0, not finite or the cap: x is done */
        direction_pass<VT, JAC>(a, sh);
        grid.sync(); /* p complete before the next SpMV reads it */
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) *a.s.sc = sh;
}

/* The kernel of VT and Jacobi for lane groups of G, or NULL for another G. */
template <typename VT, bool JAC>
const void *kernel_for(int group)
{
    switch (group) {
    case 1: return (const void *)cg_persist_kernel<VT, JAC, 1>;
    case 2: return (const void *)cg_persist_kernel<VT, JAC, 2>;
    case 4: return (const void *)cg_persist_kernel<VT, JAC, 4>;
    case 8: return (const void *)cg_persist_kernel<VT, JAC, 8>;
    case 16: return (const void *)cg_persist_kernel<VT, JAC, 16>;
    case 32: return (const void *)cg_persist_kernel<VT, JAC, 32>;
    default: return NULL;
    }
}

/* The kernel of precision p, Jacobi or not, lane groups of group. */
const void *kernel_of(spx_precision p, int jacobi, int group)
{
    if (p == SPX_FP32) return jacobi ? kernel_for<float, true>(group) : kernel_for<float, false>(group);
    return jacobi ? kernel_for<double, true>(group) : kernel_for<double, false>(group);
}

/* The kernel's operands of type VT for job (partials and history at work: SLOTS x grid doubles,
 * then the history). */
template <typename VT>
persist_args<VT> args_of(const solve_persist_job *job, solve_scalars *dev, double *work)
{
    persist_args<VT> a;
    for (int r = 0; r < SOLVE_N_ROLES; r++) a.s.v[r] = (VT *)job->v[r];
    a.s.n = job->n;
    a.s.sc = dev;
    a.s.partials = work;
    a.rowptr = job->A.rowptr;
    a.colind = job->A.colind;
    a.val = (const VT *)job->A.val;
    a.hist = job->history && job->history_len > 1 ? work + (size_t)SLOTS * job->shape.grid : NULL;
    a.hist_len = job->history_len;
    return a;
}

/* Launches the kernel of job cooperatively on the context's stream. */
template <typename VT>
spx_status launch(const solve_persist_job *job, solve_scalars *dev, double *work)
{
    persist_args<VT> a = args_of<VT>(job, dev, work);
    void *params[] = {&a};
    const void *k = kernel_of(job->precision, job->v[SOLVE_V_D] != NULL, job->shape.group);
    if (!k) return spx_fail(job->ctx, SPX_ERR_ARG, "persistent CG: no kernel for %d lanes a row", job->shape.group);
    SPX_CUDA_RET(job->ctx, cudaLaunchCooperativeKernel(k, dim3((unsigned)job->shape.grid), dim3(BLOCK), params, 0,
                                                       spx_cuda_stream(job->ctx)));
    return SPX_OK;
}

/* The launch between the timer's two events; *seconds the time between them (waits for it). */
spx_status timed_launch(const solve_persist_job *job, solve_scalars *dev, double *work, double *seconds)
{
    spx_cuda_timer *t = NULL;
    spx_status s = spx_cuda_timer_create(job->ctx, &t);
    if (!s) s = spx_cuda_timer_start(job->ctx, t);
    if (!s) s = job->precision == SPX_FP32 ? launch<float>(job, dev, work) : launch<double>(job, dev, work);
    if (!s) s = spx_cuda_timer_stop(job->ctx, t, seconds);
    spx_cuda_timer_destroy(job->ctx, t);
    return s;
}

/* The records 1 .. min(rec_k, history_len - 1) from the device history into job->history. */
spx_status history_back(const solve_persist_job *job, const solve_scalars *host, const double *hist)
{
    const int last = job->history_len - 1 < host->rec_k ? job->history_len - 1 : host->rec_k;
    if (!hist || last < 1) return SPX_OK;
    return spx_cuda_d2h(job->ctx, job->history + 1, hist + 1, (size_t)last * sizeof *hist);
}

} /* namespace */

extern "C" spx_status spx_solve_persist_shape(spx_ctx *ctx, spx_precision p, int jacobi, int64_t n, int64_t nnz,
                                              solve_persist_shape *out)
{
    memset(out, 0, sizeof *out);
    const spx_cuda_state *st = spx_cuda_state_of(ctx);
    if (!st) return spx_fail(ctx, SPX_ERR_ARG, "persistent CG: the context's device is not initialised");
    out->group = solve_persist_group(n, nnz);
    SPX_CUDA_RET(ctx, cudaDeviceGetAttribute(&out->coop, cudaDevAttrCooperativeLaunch, st->device));
    int per_sm = 0;
    SPX_CUDA_RET(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel_of(p, jacobi, out->group), BLOCK, 0));
    out->resident = per_sm * st->sm_count;
    out->grid = solve_persist_grid(out->resident, n, out->group);
    return SPX_OK;
}

extern "C" spx_status spx_solve_persist_run(solve_cuda *c, const solve_scalars *host, const solve_persist_job *job,
                                            double *seconds)
{
    spx_ctx *ctx = job->ctx;
    const size_t hist = job->history && job->history_len > 1 ? (size_t)job->history_len : 0;
    double *work = NULL;
    spx_status s = spx_cuda_malloc(ctx, (void **)&work, ((size_t)SLOTS * job->shape.grid + hist) * sizeof *work);
    if (!s) s = timed_launch(job, spx_solve_cuda_block(c), work, seconds);
    if (!s) s = spx_solve_cuda_get(c);
    if (!s) s = history_back(job, host, hist ? work + (size_t)SLOTS * job->shape.grid : NULL);
    spx_cuda_free(ctx, work);
    return s;
}
