/* src/solve/solve_tuning.h: the solvers' tuning constants: how often the host reads the
 * scalars on the GPU (the bound: a check costs under 5 % of the time), and when and how
 * the persistent kernels run (src/solve/persist.c, persist_cuda.cu). */
#ifndef SPX_SOLVE_SOLVE_TUNING_H
#define SPX_SOLVE_SOLVE_TUNING_H

/* The share of the time the host's checks may take: m is chosen so that one check (a copy of
 * the scalar block and a synchronisation, during which the device idles, measured on the first
 * one) is at most this fraction of the m iterations between two (issue 49: under 5 %). */
#define SOLVE_CHECK_SHARE 0.05
/* Iterations timed (with one check) after the graph is made, to learn an iteration's time on
 * this matrix and device: 3 dilutes the first replay's extra cost (the graph's upload) without
 * running many iterations at the unmeasured pace of one check each. */
#define SOLVE_PROBE_ITERS 3
/* Near the predicted end a batch may shrink to m / SOLVE_TAIL_DIV: the iterations run past the
 * end are then at most m / 8 (their SpMVs wasted), and a prediction that comes too early costs
 * at most 8 more checks. */
#define SOLVE_TAIL_DIV 8

/* The persistent path (issue 49): `auto` takes it for CG and BiCGSTAB on a csr plan of at most
 * this many nonzeros. Measured for CG on an H100 (bench/results/2026-12-08-nvidia-h100-session,
 * call 1, one solve per process): per iteration the kernel beat the graph path on every matrix
 * (bcsstk15 15.1 against 24.3 us; poisson3d n=100 68.5 against 90.2), but the whole solve call
 * carried ~13-18 ms outside the kernel, not yet attributed (the module's first load is the
 * suspect), so per iteration of the whole call the graph path won on 5 of 6 matrices (bcsstk15
 * 25.3 against 49.7 us; poisson3d n=100 93 against 133). Until that cost is found, the bound
 * stays at the first prediction, 2^21 (~25 MB of fp64 CSR, half the H100's L2; csr's sliced
 * rule uses the same), rather than the 2^23 the kernel times alone suggested. */
#define SOLVE_PERSIST_MAX_NNZ ((int64_t)1 << 21)
/* Threads a block of the persistent kernel: the step kernels' SPX_VEC_BLOCK (the reductions'
 * tree is written for it); a guess, not measured against 512 or 1024. */
#define SOLVE_PERSIST_BLOCK 256
/* The SpMV inside the kernel gives a row G lanes, the smallest power of two (1 to 32) that
 * leaves each lane at most this many nonzeros of a mean row: csr's vector kernel rule
 * (SPX_CSR_CUDA_NZ_PER_LANE, measured there: 8 beat 2 and 4 on the 27-point stencil). */
#define SOLVE_PERSIST_NZ_PER_LANE 8

#endif
