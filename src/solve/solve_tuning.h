/* src/solve/solve_tuning.h: the solvers' tuning constants: how often the host reads the
 * scalars on the GPU (the bound: a check costs under 5 % of the time). */
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

#endif
