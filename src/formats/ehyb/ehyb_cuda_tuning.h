/* src/formats/ehyb/ehyb_cuda_tuning.h: launch shapes of the ehyb CUDA kernels. Device limits
 * (SMs, shared memory per block) are read at run time; the segment sizing lives in
 * ehyb_tuning.h (SPX_EHYB_BLOCKS_PER_SM). "guess" = a starting point, not yet measured on the
 * H100/H200. Each can be overridden at build time (-D... in CMAKE_CUDA_FLAGS). */
#ifndef SPX_FORMATS_EHYB_CUDA_TUNING_H
#define SPX_FORMATS_EHYB_CUDA_TUNING_H

#include "formats/ehyb/ehyb_tuning.h"

/* Most blocks that share one part's slices when the parts are fewer than the device's block
 * slots (small matrices: bcsstk33 has 34 parts for 528 slots). Each loads the part's segment
 * again; 16 bounds that cost. H100, 1 against 16 in one run (bench/NOTES.md, 2026-11-26):
 * bcsstk33 0.35x -> 0.72x ALG1, bcsstk29 0.70x -> 1.07x, bcsstk16 0.66x -> 0.91x. */
#ifndef SPX_EHYB_CUDA_MAX_PART_BLOCKS
#define SPX_EHYB_CUDA_MAX_PART_BLOCKS 16
#endif

/* Unrolling of a lane's loop over its slice's columns. Guess: 4, as csr's row loops. */
#ifndef SPX_EHYB_CUDA_UNROLL
#define SPX_EHYB_CUDA_UNROLL 4
#endif

/* Unrolling of a lane's loop over its slice's ER columns (each step two dependent loads: the
 * column, then x from global memory, so unrolling puts several gathers in flight). H200,
 * 2026-11-28, grow, plan order, 1 against 4 in one run (two rounds, call ms):
 * stencil27 n=160 fp64 0.419 -> 0.378, fp32 0.274 -> 0.236; poisson3d n=300 fp64 0.741 -> 0.726,
 * fp32 0.471 -> 0.453 (bench/results/2026-11-28-nvidia-h200-ehyb-er-unroll/). */
#ifndef SPX_EHYB_CUDA_ER_UNROLL
#define SPX_EHYB_CUDA_ER_UNROLL 4
#endif

#endif
