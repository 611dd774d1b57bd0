/* src/solve/persist_cuda.cu: the persistent CG and BiCGSTAB kernels (issue 49): every
 * iteration of a solve on a csr plan in one cooperative launch, so a CG iteration costs its work
 * and three grid-wide barriers instead of four kernel launches (BiCGSTAB: five for seven). A CG
 * iteration: q = A p (the csr SpMV as a device function, G lanes a row) with (p, q); barrier;
 * every block adds all blocks' partial sums in one fixed order and runs the same finisher on its
 * own copy of the scalar block (so every block holds the same alpha, bit for bit), then
 * r -= alpha q, z = D^-1 r, x += alpha p with (r, z) and ||r||; barrier; the same totals and
 * finisher (the record, convergence, the breakdowns, the cap: every block takes the same branch,
 * so all reach the same barriers), then p = z + beta p; barrier. Each entry's update is the step
 * kernels' own expression (src/solve/steps_cuda.cuh), only the order of the sums differs from
 * the graph path. No atomics on floating-point values: the same bits every run on a device. */
#include <cooperative_groups.h>
#include <string.h>

#include "solve/steps_cuda.cuh" /* first: it makes solve_scalars.h's finishers device functions */
#include "solve/solve_persist.h"
#include "solve/solve_tuning.h"

namespace cgr = cooperative_groups;

namespace {

using namespace solve_dev;

constexpr int BLOCK = SOLVE_PERSIST_BLOCK;
/* Slots of partial sums a block writes, each gridDim.x wide: CG's (p, q) and its residual step's
 * (at most SOLVE_CUDA_MAX_SUMS), BiCGSTAB's rv, s and t steps (1 + 3 + 2). */
constexpr int SLOTS = 6;

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

/* y = A x over the rows (x, y: roles; G lanes a row, a warp's groups on consecutive rows,
 * grid-stride by whole warps so that every lane takes the shuffles); lane 0 of each row calls
 * ep(row, y_row as stored). The matrix through __ldg (read-only for the whole launch, kept in L2
 * from one iteration to the next); x by plain loads, since other blocks wrote it in this launch. */
template <typename VT, int G, typename EP>
__device__ __forceinline__ void spmv_rows(const persist_args<VT> &a, int xr, int yr, EP ep)
{
    const VT *x = a.s.v[xr];
    const int64_t mine = ((int64_t)blockIdx.x * BLOCK + threadIdx.x) / G;
    const int64_t first = mine - (int64_t)((threadIdx.x & 31) / G);
    const int64_t groups = (int64_t)gridDim.x * (BLOCK / G);
    const int lane = threadIdx.x & (G - 1);
    for (int64_t r0 = first; r0 < a.s.n; r0 += groups) {
        const int64_t row = r0 + (mine - first);
        double sum = 0.0;
        if (row < a.s.n) {
            const int32_t e = __ldg(a.rowptr + row + 1);
#pragma unroll 4
            for (int32_t k = __ldg(a.rowptr + row) + lane; k < e; k += G)
                sum += (double)__ldg(a.val + k) * (double)x[__ldg(a.colind + k)];
        }
        sum = spx_group_sum<G>(sum);
        if (lane == 0 && row < a.s.n) ep(row, put(a.s.v[yr], row, sum));
    }
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

/* The block's NS sums s into slots slot.., a grid barrier (which also completes every vector the
 * phase wrote), then every block's same totals in s (thread 0). */
template <int NS>
__device__ __forceinline__ void sum_over_grid(cgr::grid_group &grid, double *partials, int slot, double *s)
{
    block_partials<NS>(partials, slot, s);
    grid.sync();
    grid_totals<NS>(partials, slot, s);
}

/* STEP's work (steps_cuda.cuh: cg_at, bi_at) over this thread's entries, its sums into s (NS of
 * them zeroed first). */
template <typename VT, int STEP, bool JAC, int NS>
__device__ __forceinline__ void entries(const persist_args<VT> &a, const step_scalars &c, double *s)
{
#pragma unroll
    for (int k = 0; k < NS; k++) s[k] = 0.0;
    for (int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x; i < a.s.n; i += (int64_t)gridDim.x * BLOCK) {
        if constexpr (STEP <= SOLVE_CG_XP)
            cg_at<VT, STEP, JAC>(a.s, c, i, s);
        else
            bi_at<VT, STEP, JAC>(a.s, c, i, s);
    }
}

/* Block 0 keeps iteration k's record (when the last finisher made one) in the device history. */
template <typename VT>
__device__ __forceinline__ void keep_record(const persist_args<VT> &a, const solve_scalars &sh, int k)
{
    if (blockIdx.x == 0 && a.hist && sh.rec_k == k && k < a.hist_len) a.hist[k] = sh.rel;
}

/* The step scalars of the shared block sh (step_scalars's fields as the step kernels load them). */
__device__ __forceinline__ step_scalars scalars_of(const solve_scalars &sh)
{
    const step_scalars c = {sh.status == SOLVE_RUNNING, sh.x_due, sh.k == 1, sh.alpha, sh.beta, sh.omega};
    return c;
}

/* Loads the scalar block into shared memory (thread 0), for every thread. */
__device__ __forceinline__ void load_block(solve_scalars *sh, const solve_scalars *dev)
{
    if (threadIdx.x == 0) *sh = *dev;
    __syncthreads();
}

/* CG (solve_scalars.h: pq, r, xp) from the block's state after the first step until its status
 * ends. Every block keeps the scalar block in shared memory and runs each finisher (thread 0) on
 * the same totals, so all blocks take the same branches and meet the same grid barriers; block 0
 * writes the block back at the end, and the history as it goes. Slots: (p, q) in 0, r's sums
 * from 1 (a phase never writes the slots the phase before it reads). */
template <typename VT, bool JAC, int G>
__global__ void __launch_bounds__(BLOCK) cg_persist_kernel(persist_args<VT> a)
{
    constexpr int NR = step_sums<VT, SOLVE_CG_R, JAC>();
    static_assert(NR >= 1 && 1 + NR <= SLOTS, "the steps' sums fit their slots");
    __shared__ solve_scalars sh;
    cgr::grid_group grid = cgr::this_grid();
    double s[NR];
    load_block(&sh, a.s.sc);
    while (sc_running(&sh)) {
        s[0] = 0.0;
        spmv_rows<VT, G>(a, SOLVE_V_P, SOLVE_V_Q, [&](int64_t row, double q) { s[0] += at(a.s, SOLVE_V_P, row) * q; });
        sum_over_grid<1>(grid, a.s.partials, 0, s); /* q complete too */
        if (threadIdx.x == 0) finish<VT, SOLVE_CG_PQ, JAC>(&sh, scalars_of(sh), s);
        __syncthreads();
        if (!sc_running(&sh)) break; /* p'Ap <= 0 or not finite: x owes nothing */
        step_scalars c = scalars_of(sh), x = c;
        x.run = 0; /* x += alpha p: the x half of xp */
        entries<VT, SOLVE_CG_R, JAC, NR>(a, c, s);
        entries<VT, SOLVE_CG_XP, JAC, 0>(a, x, s);
        sum_over_grid<NR>(grid, a.s.partials, 1, s); /* r, z complete too */
        if (threadIdx.x == 0) { /* xp's finisher too: it reads nothing p's update writes */
            const int k = sh.k;
            finish<VT, SOLVE_CG_R, JAC>(&sh, c, s);
            keep_record(a, sh, k);
            finish<VT, SOLVE_CG_XP, JAC>(&sh, c, s);
        }
        __syncthreads();
        if (!sc_running(&sh)) break; /* converged, (r, z) <= 0, not finite or the cap: x is done */
        c = scalars_of(sh);
        c.x_due = SOLVE_X_NONE; /* p = z + beta p: the p half of xp */
        entries<VT, SOLVE_CG_XP, JAC, 0>(a, c, s);
        grid.sync(); /* p complete before the next SpMV reads it */
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) *a.s.sc = sh;
}

/* BiCGSTAB (solve_scalars.h: p, rv, s, t, r) as cg_persist_kernel runs CG: p and p^; barrier;
 * v = A p^ with (r0^, v); barrier, alpha; s and s^ with ||s||; barrier, the half-step test (x
 * then owes alpha p^ alone); t = A s^ with (t, t) and (t, s); barrier, omega; x, r with ||r|| and
 * (r0^, r); barrier, the record, the cap, the next rho and beta. Slots: rv 0, s 1-3, t 4-5, r 0-3
 * (a phase never writes the slots the phase before it reads). */
template <typename VT, bool JAC, int G>
__global__ void __launch_bounds__(BLOCK) bi_persist_kernel(persist_args<VT> a)
{
    constexpr int NS = step_sums<VT, SOLVE_BI_S, JAC>(), NR = step_sums<VT, SOLVE_BI_R, JAC>();
    static_assert(1 + NS <= 4 && NR <= 4 && SLOTS >= 6, "the steps' sums fit their slots");
    __shared__ solve_scalars sh;
    cgr::grid_group grid = cgr::this_grid();
    double s[NR > 2 ? NR : 2];
    load_block(&sh, a.s.sc);
    while (sc_running(&sh)) {
        entries<VT, SOLVE_BI_P, JAC, 0>(a, scalars_of(sh), s);
        grid.sync(); /* p^ complete before the SpMV reads it */
        s[0] = 0.0;
        spmv_rows<VT, G>(a, SOLVE_V_PHAT, SOLVE_V_Q, [&](int64_t row, double v) { s[0] += at(a.s, SOLVE_V_RHAT, row) * v; });
        sum_over_grid<1>(grid, a.s.partials, 0, s);
        if (threadIdx.x == 0) finish<VT, SOLVE_BI_RV, JAC>(&sh, scalars_of(sh), s);
        __syncthreads();
        if (!sc_running(&sh)) break; /* (r0^, v) = 0 or not finite: x owes nothing */
        entries<VT, SOLVE_BI_S, JAC, NS>(a, scalars_of(sh), s);
        sum_over_grid<NS>(grid, a.s.partials, 1, s); /* s^ complete too */
        if (threadIdx.x == 0) {
            finish<VT, SOLVE_BI_S, JAC>(&sh, scalars_of(sh), s);
            keep_record(a, sh, sh.k);
        }
        __syncthreads();
        if (!sc_running(&sh)) { /* converged at the half step (x += alpha p^), or ||s|| not finite */
            entries<VT, SOLVE_BI_R, JAC, 0>(a, scalars_of(sh), s);
            __syncthreads(); /* every thread has read the block before r's finisher clears x_due */
            if (threadIdx.x == 0) bi_after_r(&sh, 0.0, 0.0);
            break;
        }
        s[0] = s[1] = 0.0;
        spmv_rows<VT, G>(a, SOLVE_V_SHAT, SOLVE_V_T, [&](int64_t row, double t) {
            s[0] += t * t;
            s[1] += t * at(a.s, SOLVE_V_R, row);
        });
        sum_over_grid<2>(grid, a.s.partials, 4, s);
        if (threadIdx.x == 0) finish<VT, SOLVE_BI_T, JAC>(&sh, scalars_of(sh), s);
        __syncthreads();
        if (!sc_running(&sh)) break; /* t = 0, omega = 0 or not finite: x owes nothing */
        const step_scalars c = scalars_of(sh);
        entries<VT, SOLVE_BI_R, JAC, NR>(a, c, s);
        sum_over_grid<NR>(grid, a.s.partials, 0, s);
        if (threadIdx.x == 0) {
            const int k = sh.k;
            finish<VT, SOLVE_BI_R, JAC>(&sh, c, s);
            keep_record(a, sh, k);
        }
        __syncthreads();
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) *a.s.sc = sh;
}

/* The kernel of the method (BiCGSTAB, else CG), VT and Jacobi for lane groups of G. */
template <typename VT, bool JAC, int G>
const void *kernel_g(int bicgstab)
{
    return bicgstab ? (const void *)bi_persist_kernel<VT, JAC, G> : (const void *)cg_persist_kernel<VT, JAC, G>;
}

/* The kernel of the method, VT and Jacobi for lane groups of group, or NULL for another group. */
template <typename VT, bool JAC>
const void *kernel_for(int bicgstab, int group)
{
    switch (group) {
    case 1: return kernel_g<VT, JAC, 1>(bicgstab);
    case 2: return kernel_g<VT, JAC, 2>(bicgstab);
    case 4: return kernel_g<VT, JAC, 4>(bicgstab);
    case 8: return kernel_g<VT, JAC, 8>(bicgstab);
    case 16: return kernel_g<VT, JAC, 16>(bicgstab);
    case 32: return kernel_g<VT, JAC, 32>(bicgstab);
    default: return NULL;
    }
}

/* The kernel of method m in precision p, Jacobi or not, lane groups of group. */
const void *kernel_of(solve_persist_method m, spx_precision p, int jacobi, int group)
{
    const int bi = m == SOLVE_PERSIST_BICGSTAB;
    if (p == SPX_FP32) return jacobi ? kernel_for<float, true>(bi, group) : kernel_for<float, false>(bi, group);
    return jacobi ? kernel_for<double, true>(bi, group) : kernel_for<double, false>(bi, group);
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
    const void *k = kernel_of(job->method, job->precision, job->v[SOLVE_V_D] != NULL, job->shape.group);
    if (!k) return spx_fail(job->ctx, SPX_ERR_ARG, "persistent solver: no kernel for %d lanes a row", job->shape.group);
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

extern "C" spx_status spx_solve_persist_shape(spx_ctx *ctx, solve_persist_method m, spx_precision p, int jacobi, int64_t n,
                                              int64_t nnz, solve_persist_shape *out)
{
    memset(out, 0, sizeof *out);
    const spx_cuda_state *st = spx_cuda_state_of(ctx);
    if (!st) return spx_fail(ctx, SPX_ERR_ARG, "persistent solver: the context's device is not initialised");
    out->group = solve_persist_group(n, nnz);
    SPX_CUDA_RET(ctx, cudaDeviceGetAttribute(&out->coop, cudaDevAttrCooperativeLaunch, st->device));
    int per_sm = 0;
    SPX_CUDA_RET(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel_of(m, p, jacobi, out->group), BLOCK, 0));
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
