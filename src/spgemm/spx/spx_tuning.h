/* src/spgemm/spx/spx_tuning.h: the spx GPU SpGEMM's constants, each with its source. None is
 * measured on the GPU machine yet: the first GPU run should sweep them (bench/NOTES.md). */
#ifndef SPX_SPGEMM_SPX_TUNING_H
#define SPX_SPGEMM_SPX_TUNING_H

/* Row sparsity threshold P of ApSpGEMM §4.2 (a row with nnz / ncols above it is a dense-panel
 * row); 0.05 is the paper's value. Counted and reported; dense panels still take the sparse
 * path (docs/spgemm.md, "not yet done"). */
#define SPX_GPU_DENSE_ROW_P 0.05
/* Hash slots per key a row's table holds at least (load <= 1/2, as the CPU's tables). */
#define SPX_GPU_SLOTS_PER_KEY 2
/* Numeric phase, writing a row sorted: tables up to this many slots rank each key against
 * every slot (slots^2 / lanes reads a lane, no barrier); larger ones run a bitonic network
 * (log^2 slots barriers). H200, poisson3d n = 100 (64-slot rows): rank 16 ms, bitonic 33 ms;
 * R-MAT 16 (up to 8192 slots): rank 1.14 s, bitonic 0.37 s. */
#ifndef SPX_GPU_RANK_SORT_MAX_SLOTS
#define SPX_GPU_RANK_SORT_MAX_SLOTS 64
#endif
/* Numeric phase: a row group has at least slots / this lanes, whatever Algorithm 2 chose
 * (which weighs the products, not the sort of the table). H200, 9ec43fb: uniform m = 2M, k = 8
 * (64-entry rows, 128-slot tables) ran with M = 1: numeric 88.7 ms against symbolic 4.6 ms.
 * Guess: 4 slots a lane. */
#define SPX_GPU_SORT_SLOTS_PER_LANE 4
/* The smallest table a row gets (one slot per lane of a warp-sized group). */
#define SPX_GPU_MIN_SLOTS 32
/* Row bins: bin c holds the rows whose table has SPX_GPU_MIN_SLOTS << c slots, the last one the
 * rows whose table does not fit shared memory (the fallback). Tables stop at 2^24 slots, so 20
 * bins of tables and the fallback would do; 40 leaves room (ApSpGEMM's dynamic binning: one
 * bin per power-of-two table size). */
#define SPX_GPU_BINS 40
/* Threads of a block at most (the paper's configuration: the largest kernel size). */
#define SPX_GPU_MAX_BLOCK 1024
/* Shared memory a block of several row groups aims at, so that a few blocks share an SM;
 * one group whose table needs more gets a block of its own, up to the device's opt-in limit. */
#define SPX_GPU_GROUP_SMEM_TARGET (48 * 1024)
/* Algorithm 2 (thread-group size M): at most this many adjustments, and the factor within
 * which iter_thread counts as close to 2 x rows per group (the paper's ">>" and "<<"). */
#define SPX_GPU_ALG2_STEPS 12
#define SPX_GPU_ALG2_SLACK 2
/* Threads of the fallback kernel's block (one block per row, dense accumulator in global
 * memory), and the global pool the fallback rows of one round share at most (at least one
 * row's n-wide accumulator is always allocated). */
#define SPX_GPU_FALLBACK_BLOCK 256
#define SPX_GPU_FALLBACK_POOL_BYTES (1ull << 30)
/* The chunked fallback (rows whose hash table does not fit shared memory, when n is narrow
 * enough): the columns split into chunks of W (as many as one block's shared memory holds as
 * values and a bitmap, numeric precision), one block of SPX_GPU_CHUNK_BLOCK threads per (row,
 * chunk). Each block walks all of its row's products, so a row's products are read once per
 * chunk (twice per chunk in numeric: count, then sum); SPX_GPU_CHUNK_MAX bounds that re-read.
 * Up to 16 coalesced re-reads of a product are taken to cost less than the global fallback's
 * one global atomic per product plus its scan of n markers per row: a guess, not measured
 * (sweep it with the rest, bench/NOTES.md). Beyond it, the global fallback. */
#define SPX_GPU_CHUNK_BLOCK 512
#define SPX_GPU_CHUNK_MAX 16
/* Pre-analysis and binning kernels: threads per block (a multiple of 32: the binning kernels
 * combine a warp's rows with ballots); grid-stride blocks per SM. */
#define SPX_GPU_ANALYSE_BLOCK 256
#define SPX_GPU_ANALYSE_BLOCKS_PER_SM 8

#endif
