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

/* Parts of about equal size (the largest at most SPX_EHYB_CUDA_UNEQUAL_PARTS x the mean, as
 * METIS's and grow's): a block takes at most SPX_EHYB_CUDA_BLOCK_SLACK x the slices a block
 * slot would get with all of them spread evenly over the device's slots (ehyb_cuda.cu,
 * block_unit), so parts that fill the slots keep one block each. Unequal parts (voronoi's
 * cells: the largest ~1.9x the mean on stencil27 n = 160): that even share over
 * SPX_EHYB_CUDA_BALANCE_WAVES waves, a larger part shared by several blocks, launched longest
 * first (SPX_EHYB_CUDA_LPT_WAVES). H200, stencil27 n = 160 fp64, plan order
 * (bench/results/2026-11-29-nvidia-h200-ehyb-device-build): voronoi's layout moved the same
 * 1.20 GB as grow's in 479 us against 344 us with its parts in seed order, one block each
 * (run 3); 0.354 ms with 2 waves, 0.345-0.348 with 1 (run 6, two rounds; fp32 and poisson3d
 * unchanged), 0.357 with 4 (run 4). */
#ifndef SPX_EHYB_CUDA_BLOCK_SLACK
#define SPX_EHYB_CUDA_BLOCK_SLACK 1.25
#endif
#ifndef SPX_EHYB_CUDA_UNEQUAL_PARTS
#define SPX_EHYB_CUDA_UNEQUAL_PARTS 1.1
#endif
#ifndef SPX_EHYB_CUDA_BALANCE_WAVES
#define SPX_EHYB_CUDA_BALANCE_WAVES 1
#endif
/* ... launched longest first when the parts are at most this many times the slots, else in
 * part order. H200, voronoi, plan order (runs 2 and 4): poisson3d n = 300 fp32 (1450 parts,
 * 5.5 waves) 0.470 -> 0.438 ms longest first, fp64 (2916 parts, 11 waves) 0.632 -> 0.648. */
#ifndef SPX_EHYB_CUDA_LPT_WAVES
#define SPX_EHYB_CUDA_LPT_WAVES 8
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

/* L2 prefetch of the slices' data (spx_prefetch_l2, sm_90's bulk prefetch): 1 on, 0 off. A
 * slice whose entries fit the L2's share of one warp is prefetched whole as its warp starts
 * it (its later unrolled steps and its ER entries then hit L2); a longer one a chunk of
 * UNROLL steps at a time, SPX_EHYB_CUDA_PREFETCH_LEAD entries ahead of the loads. H200,
 * 2026-11-29, grow, plan order, call ms, none / whole / lead 128 / lead 256
 * (bench/results/2026-11-29-nvidia-h200-ehyb-l2-prefetch/, run 2): stencil27 n=160 fp64 (8.6
 * KB slices) 0.368 / 0.372 / 0.344 / 0.353; poisson3d n=300 fp64 (2.2 KB) 0.697 / 0.638 /
 * 0.672 / 0.665; fp32 stencil27 0.228 / 0.211 / 0.243 / 0.234, poisson3d 0.449 / 0.427 / 0.560
 * / 0.515. Whole slices for all warps at once (73 MB on stencil27 fp64) overflow the 50 MB L2. */
#ifndef SPX_EHYB_CUDA_L2_PREFETCH
#define SPX_EHYB_CUDA_L2_PREFETCH 1
#endif
/* 1: only layouts larger than the device's L2 are prefetched (a smaller one stays in L2 from
 * one SpMV to the next; H200, run 3, FEM16 prefetched: 1.35x -> 1.24x ALG1 geomean by call,
 * 1.61x -> 1.32x by batch). 0: every layout (a build that tests the prefetch paths on small
 * matrices). */
#ifndef SPX_EHYB_CUDA_PREFETCH_ABOVE_L2
#define SPX_EHYB_CUDA_PREFETCH_ABOVE_L2 1
#endif
#ifndef SPX_EHYB_CUDA_PREFETCH_LEAD
#define SPX_EHYB_CUDA_PREFETCH_LEAD 128
#endif

#endif
