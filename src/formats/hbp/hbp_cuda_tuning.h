/* src/formats/hbp/hbp_cuda_tuning.h: launch constants of the hbp kernels. None is measured
 * yet (no GPU where this was written): each names what to time (docs/formats/hbp.md). */
#ifndef SPX_FORMATS_HBP_CUDA_TUNING_H
#define SPX_FORMATS_HBP_CUDA_TUNING_H

/* Threads of a unit CTA (one work unit at a time; its warps share the unit's groups). */
#define SPX_HBP_PANEL_BLOCK 256
/* Threads of an atomic-combine CTA (each warp one tile at a time). */
#define SPX_HBP_ATOMIC_BLOCK 256
/* Resident CTAs per SM at most (occupancy may allow fewer: shared memory). */
#define SPX_HBP_MAX_BLOCKS_PER_SM 8
/* Mixed scheduling (§III-C): the fixed share of work units (panels for `hash`/`sort`, tiles
 * for `hash_atomic`) is FIXED_NUM / FIXED_DEN, handed out statically; the rest is claimed by
 * atomic ticket. Guess 1/2: measure 0, 1/4, 1/2, 3/4, 1 on rmat 23 and powerlaw 4M. */
#define SPX_HBP_FIXED_NUM 1
#define SPX_HBP_FIXED_DEN 2
/* A tile's x segment is staged in shared memory when it holds at least this many entries per
 * column of the segment (a coalesced load of W values then pays for itself); otherwise x is
 * read through L1/L2. Guess 1: measure 0.25..4 on the default suite. */
#define SPX_HBP_STAGE_NNZ_PER_COL 1
/* Work units (`hash`, `sort`: hbp_unit_kernel): a unit is a range of one panel's groups
 * holding about U entries, taken by one CTA; a panel with a row of a million entries is
 * shared by many CTAs (its sums combined through a row buffer) while ordinary panels stay
 * whole (one writer of their y rows, no combine).
 * U = max(SPX_HBP_UNIT_MIN_NNZ, SPX_HBP_UNIT_NNZ_PER_ROW x H, nnz / (SPX_HBP_UNITS_PER_CTA x
 * resident CTAs)). Measured on the H100 (2026-11-25): with the last term alone, poisson2d
 * n=700's panels (2560 entries, U 1545) were all split in two, and the combine (H atomics
 * into the buffer, H reads and clears by the last unit) took it from 1.04x to 0.62x of
 * cuSPARSE ALG1; the H term keeps a split's combine below 1/8 of its unit's entries. */
#ifndef SPX_HBP_UNITS_PER_CTA
#define SPX_HBP_UNITS_PER_CTA 2
#endif
#ifndef SPX_HBP_UNIT_MIN_NNZ
#define SPX_HBP_UNIT_MIN_NNZ 256
#endif
#ifndef SPX_HBP_UNIT_NNZ_PER_ROW
#define SPX_HBP_UNIT_NNZ_PER_ROW 8
#endif
/* Steps of a group a lane loads ahead before it adds (memory-level parallelism: a group of
 * short FEM rows otherwise waits one memory round trip per step). Guess 4: measure 1..8. */
#ifndef SPX_HBP_ILP
#define SPX_HBP_ILP 4
#endif
/* Wide tiles (hbp_wide_cuda.cu): threads of a CTA (one work unit: a row panel or a piece of
 * one), and the entries a lane loads before it sums (memory-level parallelism). Guesses 256
 * and 2: measure 128..512 and 1..4 on uniform 16.8M, R-MAT 23, powerlaw 4M. */
#ifndef SPX_HBP_WIDE_BLOCK
#define SPX_HBP_WIDE_BLOCK 256
#endif
#ifndef SPX_HBP_WIDE_ILP
#define SPX_HBP_WIDE_ILP 2
#endif
/* Wide tiles' pacing: a CTA starts a column block only when every CTA of the wave has finished
 * the block this many steps back (0: no pacing), polling every SPX_HBP_WIDE_SPIN_NS. Guess 2:
 * measure 0..4 on uniform 16.8M and R-MAT 23. */
#ifndef SPX_HBP_WIDE_LAG
#define SPX_HBP_WIDE_LAG 2
#endif
#define SPX_HBP_WIDE_SPIN_NS 100
/* Device build (hbp_build_cuda.cu): threads per CTA of its grid-stride kernels (one thread
 * per row in the row walks, one warp per group in the group passes) and resident CTAs per SM
 * they are sized for. Guesses: measure 128..512 and 4..16 on rmat 23 and uniform 16.8M x 8. */
#define SPX_HBP_BUILD_BLOCK 256
#define SPX_HBP_BUILD_BLOCKS_PER_SM 8

#endif
