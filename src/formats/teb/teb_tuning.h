/* src/formats/teb/teb_tuning.h: the teb format's selection constants (the paper's, and the
 * bounds we add for a GPU of today), the long-row cut of the layout, and its `auto` rule.
 * "paper" = Wang et al. 2023 §3.1; "guess" = to be measured on the H100/H200 (bench/). */
#ifndef SPX_FORMATS_TEB_TUNING_H
#define SPX_FORMATS_TEB_TUNING_H

#include "formats/teb/teb.h"

/* k values (paper, Algorithm 1 and Fig. 11): eq. 7 compares k = 1 with k = 1.01; the decision
 * tree gives 1.005 above AVG_critical, 1.01 above AVG_critical / 2, else 1.03. */
#define SPX_TEB_K_BASE 1.0
#define SPX_TEB_K_CRIT 1.01
#define SPX_TEB_K_NEAR 1.005
#define SPX_TEB_K_MID 1.01
#define SPX_TEB_K_FAR 1.03

/* Eq. 10 (paper): block counts where the longest row exceeds this many Thresholds are skipped. */
#define SPX_TEB_EQ10_FACTOR 2.0

/* The GPU's SM count the block-count range is sized for: an H100 SXM has 132 (an H200 too).
 * The host build does not know the device; a smaller GPU only gets more waves. */
#define SPX_TEB_SM_COUNT 132
/* The fewest blocks a selection may choose: this many per SM, so every SM has blocks in
 * flight and a slow block is a fraction of one SM's work. Guess: 8 = resident 256-thread
 * blocks of an sm_90 SM (2048 threads); the paper's V100 runs had bLN from 2 up. */
#define SPX_TEB_MIN_BLOCKS_PER_SM 8
/* The fewest nonzeros a block should get (the upper end of the bLN range is NNZ / this): 8 a
 * thread of a 256-thread block, the block budget csr's stream kernel measured best for even
 * rows (csr_cuda_tuning.h: 2048 against 512/1024/4096, H200). Guess for teb. */
#define SPX_TEB_MIN_BLOCK_NNZ 2048
/* Block counts evaluated in [lo, hi] (geometric grid), and on the eq. 7 grid [2, hi]. Each
 * costs O(distinct row lengths + bLN) on the histogram, so 200M nonzeros stay in
 * milliseconds (tests/test_teb.c counts the steps). Guess: 48 gives ~3 % steps in bLN over
 * a 100x range; 32 for bLN_critical, whose use is only a comparison of averages. */
#define SPX_TEB_CANDIDATES 48
#define SPX_TEB_CRIT_CANDIDATES 32

/* Below this much work the selection (estimated simulation steps) and the copy of the
 * nonzeros run on one thread: an OpenMP region costs tens of microseconds, and far more on a
 * loaded host (a 16k-row matrix took 130 ms to select with 2 threads on 2 busy cores, 0.3 ms
 * on one). Guess: about a millisecond of serial work. */
#define SPX_TEB_PARALLEL_MIN_STEPS (1 << 20)
#define SPX_TEB_PARALLEL_MIN_NNZ (1 << 20)

/* Rows at least this long are a block's long rows (stored first in the block; warp-long gives
 * each a warp or more). Measured on the H200 (bench/NOTES.md, 2026-11-25): 64 against 256,
 * shared matrices >= 100k nonzeros 1.61x against 1.53x ALG1, astro-ph 0.62x -> 1.56x (its
 * blocks' 200-entry rows had 4 lanes), fe_body 1.53x -> 2.02x; -D overrides it. */
#ifndef SPX_TEB_LONG_ROW
#define SPX_TEB_LONG_ROW 64
#endif

/* warp-long, rows that are not long: G threads a row, G the smallest power of two >= mean
 * row length / this (beyond the paper). 8 is csr vector's measured value
 * (SPX_CSR_CUDA_NZ_PER_LANE, H200); with one thread a row (9ada23f) teb was 0.40x ALG1 on
 * bcsstk16 (59 entries a row). */
#define SPX_TEB_NZ_PER_LANE 8

/* The `auto` rule: warp-long always. Without long rows, in a block of more rows than half
 * its threads, it runs the thread loop itself; in a block of fewer rows it gives each several
 * threads, which the thread kernel leaves idle (H200, df634a2: nh2010, 5 entries a row and
 * ~48 rows a block, 0.93x ALG1 with thread). */
#define SPX_TEB_AUTO_ALGO SPX_TEB_WARP_LONG

#endif
