/* src/spgemm/spx/spx_tuning.h: the spx GPU SpGEMM's constants, each with its source: the
 * literature's, a measurement (named with its device and figures), or a guess (said so). */
#ifndef SPX_SPGEMM_SPX_TUNING_H
#define SPX_SPGEMM_SPX_TUNING_H

/* Row sparsity threshold P of ApSpGEMM §4.2 (a row with nnz / ncols above it is a dense-panel
 * row); 0.05 is the paper's value. A's dense rows times B's dense rows are the dense x dense
 * panels (spx_dense_panel.h). */
#define SPX_GPU_DENSE_ROW_P 0.05
/* Dense x dense panels, the cost rule of the default algorithm: taken when the products they
 * take off the sparse path, at SPX_GPU_PANEL_PRODUCT_BYTES each, outweigh the bytes they move
 * (B_d cleared, gathered and read; G written and read; A_dd) plus the GEMM's flops at
 * SPX_GPU_PANEL_FLOPS_PER_BYTE. A product on the dense fallback's numeric walk reads a column
 * and a value of B and adds with a global atomic: 32 was a guess, and is conservative: H100,
 * 7e977b0 run 5, the power-law matrix of exponent 1.5 saved ~0.25 ns a product taken off
 * (numeric 24.3 -> 14.9 ms for 37M products: contended atomics), ~800 B at HBM bandwidth;
 * the exponent-2 one (3.4M products, 320 MB moved) was within noise either way. 16 flops a
 * byte is an H100's fp64 tensor peak over its memory bandwidth (~55 TFLOPS / 3.35 TB/s, the
 * data sheet). Never more than SPX_GPU_PANEL_MAX_BYTES of device memory (a guess), nor past
 * the room the plan has beside C. */
#define SPX_GPU_PANEL_PRODUCT_BYTES 32.0
#define SPX_GPU_PANEL_FLOPS_PER_BYTE 16.0
#define SPX_GPU_PANEL_MAX_BYTES ((size_t)512 << 20)
/* Hash slots per key a row's table holds at least (load <= 1/2, as the CPU's tables). */
#define SPX_GPU_SLOTS_PER_KEY 2
/* Numeric phase, writing a row sorted: tables up to this many slots rank each key against
 * every slot (a lane's SPX_GPU_RANK_KEYS keys in registers against one pass over the table:
 * slots broadcast reads a lane, no barrier); larger ones run a bitonic network (log^2 slots
 * barriers, ~18 shared-memory wavefronts a stage and warp). H200 before the register ranks
 * (each key re-reading the table): poisson3d n = 100 (64-slot rows) rank 16 ms, bitonic 33
 * ms; R-MAT 16 (up to 8192 slots) rank 1.14 s, bitonic 0.37 s; at 128 slots (uniform 2M x 8)
 * both 10.3 ms, the kernel shared-memory bound (ncu: L1 90 %, DRAM 6 %). With the register
 * ranks (H200, 433b4c9, bound 32 / 64 / 256 / 512): uniform 10.4 / 10.4 / 7.3 / 7.3 ms,
 * poisson3d n = 100 2.3 / 1.35 / 1.35 / 1.36, bcsstk29 0.79 / 0.79 / 0.79 / 0.94: 256. */
#ifndef SPX_GPU_RANK_SORT_MAX_SLOTS
#define SPX_GPU_RANK_SORT_MAX_SLOTS 256
#endif
/* Keys a lane ranks at once, held in registers: the numeric lane floor (slots / 4 lanes,
 * SPX_GPU_SORT_SLOTS_PER_LANE) makes one batch of them a lane's whole share. */
#define SPX_GPU_RANK_KEYS SPX_GPU_SORT_SLOTS_PER_LANE
/* Numeric phase: a row group has at least slots / this lanes, whatever Algorithm 2 chose
 * (which weighs the products, not the sort of the table). H200, 9ec43fb: uniform m = 2M, k = 8
 * (64-entry rows, 128-slot tables) ran with M = 1: numeric 88.7 ms against symbolic 4.6 ms.
 * Guess: 4 slots a lane. */
#define SPX_GPU_SORT_SLOTS_PER_LANE 4
/* Symbolic phase: a row group has at least slots / this lanes (0: Algorithm 2's M alone).
 * Algorithm 2 gave uniform m = 2M, k = 8 (128-slot tables) one lane a row: 95-thread blocks,
 * 4 a SM by shared memory, 19 % of the warps active (ncu, H200: 5.5 ms at ncu's clocks).
 * H200 bench, symbolic phase, floor none / slots/16 / slots/4: uniform 4.66 / 1.75 / 1.79 ms,
 * stencil27 n = 60 2.93 / 0.89 / 1.38 ms, the rest equal: 16. */
#ifndef SPX_GPU_SYM_SLOTS_PER_LANE
#define SPX_GPU_SYM_SLOTS_PER_LANE 16
#endif
/* The smallest table a row gets (one slot per lane of a warp-sized group). */
#define SPX_GPU_MIN_SLOTS 32
/* Table sizes: SPX_GPU_MIN_SLOTS << c hash slots, or SPX_GPU_SPAN_MIN_COLS << c span columns,
 * for c below this (2^24 slots at most). */
#define SPX_GPU_TABLE_CLASSES 20
/* Row bins (ApSpGEMM's dynamic binning, one bin per power-of-two table): bin c < CLASSES holds
 * the rows with a hash table of SPX_GPU_MIN_SLOTS << c slots, bin CLASSES + c those with a span
 * table of SPX_GPU_SPAN_MIN_COLS << c columns, bin 2 CLASSES + c those with a hash table of
 * SPX_GPU_MIN_SLOTS << c slots and a bitmap of their range (numeric: SPX_GPU_BITMAP_COLS_PER_SLOT),
 * the last one the rows whose table does not fit shared memory (the fallback). */
#define SPX_GPU_BINS (3 * SPX_GPU_TABLE_CLASSES + 1)
/* Span tables (the dense accumulator of spECK, Parger et al., PPoPP'20, restricted to the row's
 * column range): a row whose columns lie in [lo, hi] may count them with a bit a column of
 * hi - lo + 1 (no hash probing) and sum them with a value a column, read out in column order
 * (no sort). The range is found in the pre-analysis (the first and last column of each B row
 * the row reaches) for rows of more than SPX_GPU_SPAN_MIN_PRODUCTS products (smaller rows
 * have small hash tables) and at most SPX_GPU_SPAN_MAX_A_ENTRIES entries (a longer row is
 * walked once more for nothing: its range is wide) whose B rows are all at most
 * SPX_GPU_DENSE_LONG_B long (a longer one needs the dense fallback's whole-block walk). Guesses. */
#define SPX_GPU_SPAN_MIN_PRODUCTS 64
#define SPX_GPU_SPAN_MAX_A_ENTRIES 1024
#define SPX_GPU_SPAN_MIN_COLS 32
/* A row takes its span table when that table's bytes are at most this many times its hash
 * table's (percent; 0: never): symbolic (bits against 4-byte keys); numeric (values and bits
 * against keys and values, no sort), more readily where the hash table would be sorted by the
 * bitonic network (over SPX_GPU_RANK_SORT_MAX_SLOTS slots). H100, 06209f6 + span tables, numeric
 * ms at 400 / 1600 for every table: bcsstk29 0.85 / 0.54, bcsstk33 0.74 / 0.56 (512- and
 * 1024-slot tables), but astro-ph 0.93 / 1.10, fe_body 0.23 / 0.30, luxembourg_osm·ᵀ scratch
 * 0.85x / 0.59x cuSPARSE (small tables); symbolic at 100 against none: bcsstk29 0.54 -> 0.21,
 * stencil27 n=60 0.92 -> 0.53, blockdiag 0.59 -> 0.16 (bench/results/2026-11-26-nvidia-h100-span). */
#ifndef SPX_GPU_SPAN_SYM_PCT
#define SPX_GPU_SPAN_SYM_PCT 100
#endif
#ifndef SPX_GPU_SPAN_NUM_PCT
#define SPX_GPU_SPAN_NUM_PCT 400
#endif
#ifndef SPX_GPU_SPAN_NUM_SORTED_PCT
#define SPX_GPU_SPAN_NUM_SORTED_PCT 1600
#endif
/* Numeric span tables: a row group has at least columns / this lanes (clearing the values and
 * reading the bits out). Guess. */
#define SPX_GPU_SPAN_COLS_PER_LANE 32
/* Bitmap read-out of numeric hash tables: a row whose column range is known (a span candidate)
 * and spans at most this many columns a slot of its hash table, but whose span table is too
 * large (above), keeps its hash table for the sums and marks each new column in a bitmap of
 * its range (slots * this bits, 8 bytes a slot beside the table's 12 in fp64); the row is
 * read out in column order from the bits, each value looked up in the table: no sort (the
 * ranks or the bitonic network). Measured first (H100, d5a1ac5, ncu): stencil27 n=60 (125
 * columns a row of C from 729 products, 256-slot tables, range ~14.5k columns: 57 a slot)
 * spent 12.5 of ~13 ms of plan + 3 runs in the numeric hash kernel, whose rank pass scans
 * the 256 slots for each lane's 4 keys (~1000 shared loads a lane against ~11 products).
 * 64: covers that; 0 turns the bitmaps off (for measuring). A/B against 0, same run (H100,
 * 2026-11-27 run 3, numeric ms, 0 / 64): stencil27 n=60 3.36 / 2.57, n=40 1.13 / 0.89,
 * landmark^T * landmark (128-slot tables of 6.8k products) 0.235 / 0.187, bcsstk29 0.44 /
 * 0.41, vibrobox 0.69 / 0.64; fe_body 0.16 / 0.17 (in runs 3 and 4), the rest within noise.
 * Keeping the ranks for tables under 128 slots (run 4) lost landmark's gain (0.23 / 0.23) and
 * did not bring fe_body back: every table size takes the bitmap. */
#ifndef SPX_GPU_BITMAP_COLS_PER_SLOT
#define SPX_GPU_BITMAP_COLS_PER_SLOT 64
#endif
/* Threads of a block at most (the paper's configuration: the largest kernel size). */
#define SPX_GPU_MAX_BLOCK 1024
/* Blocks of SPX_GPU_MAX_BLOCK threads an SM must be able to hold of the hash-table kernel (not
 * its warp-row forms): 2 caps it at 32 registers a thread. Without the cap the compiler's
 * choice swung from 32 to 58 registers on an unrelated edit (the bitmap read-out, 2026-11-27),
 * halving the blocks an SM holds. */
#define SPX_GPU_TABLE_MIN_BLOCKS 2
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
/* The dense fallback (rows whose hash table does not fit shared memory, when n bits fit it):
 * one block of SPX_GPU_DENSE_BLOCK threads per row, a bitmap of n bits (and in numeric a rank
 * per 64-bit word: 12 bytes per 64 columns) in shared memory, each product read once
 * (symbolic) or twice (numeric: mark, then add at its place in C with a global atomic). Up to
 * about 1.8M columns (symbolic) and 1.2M (numeric) on a 227 KB block, less its static
 * shared memory (the long-row queue and the scan). It replaced a chunked
 * fallback (values and a bitmap of a column chunk in shared memory, products re-read per
 * chunk): H200, numeric phase, R-MAT 18 478 -> 198 ms, the power-law matrix 220 -> 166 ms
 * before the long-B walk (bench/NOTES.md, 2026-11-26). SPX_GPU_DENSE_FALLBACK 0 turns it off
 * (the global fallback then takes every such row: for measuring). 1024 threads: a block is
 * alone on its SM when n is large (guess). */
#ifndef SPX_GPU_DENSE_FALLBACK
#define SPX_GPU_DENSE_FALLBACK 1
#endif
#define SPX_GPU_DENSE_BLOCK 1024
/* The dense fallback splits a row of more than SPX_GPU_SPLIT_A_ENTRIES entries of A over
 * blocks of SPX_GPU_SPLIT_CHUNK entries each (spx_spgemm_split_*): one block on the power-law
 * matrix's 816k-entry hub row was most of its product. 0 (or a larger threshold than any row):
 * no split. Guesses. */
#ifndef SPX_GPU_SPLIT_A_ENTRIES
#define SPX_GPU_SPLIT_A_ENTRIES 32768
#endif
#define SPX_GPU_SPLIT_CHUNK 4096
/* The split rows' hot columns: B's dense columns (more than P k entries, the rule of a dense
 * row: spx_gpu_dense_min(k)), at most SPX_GPU_HOT_COLS of them, are marked and summed by each
 * split block in shared memory and written into C once a block, not with a global atomic a
 * product. Why (ncu, H100, 2026-11-26 seventh session, run 5): A*A^T of the power-law matrix of
 * exponent 1.5, whose 16 hub rows make 16 dense columns of B = A^T, spent 85 % of its kernel
 * time in the split rows' global atomics, most onto those columns. B's column counts are
 * sampled, every SPX_GPU_HOT_SAMPLE-th entry of B (a plan step over nnz(B) / 16 entries: the
 * count's own atomics meet the same hot columns); the choice only moves work, never the
 * result. 1024 columns: 12 KB of shared memory a block in fp64 (a guess); 0: no hot columns. */
#ifndef SPX_GPU_HOT_COLS
#define SPX_GPU_HOT_COLS 1024
#endif
#define SPX_GPU_HOT_SAMPLE 16
/* 1: the dense fallback marks a column with a 32-bit atomicOr on the half of its 64-bit
 * bitmap word; 0: a 64-bit atomicOr on the word. Measured on an H100 (session f run 7, same
 * tree built both ways, ms symbolic / numeric): landmark A*A^T 7.5 / 19.4 -> 2.6 / 10.6, R-MAT
 * 16 2.7 / 11.2 -> 1.35 / 9.6, R-MAT 18 5.6 / 30.4 -> 3.2 / 27.2, power law 1M 16.4 / 45.0 ->
 * 9.7 / 39.4: the 64-bit shared-memory atomic is the slow one. */
#ifndef SPX_GPU_DENSE_MARK32
#define SPX_GPU_DENSE_MARK32 1
#endif
/* The dense fallback's walk: a B row longer than SPX_GPU_DENSE_LONG_B is walked by the whole
 * block, not by one group of lanes (H200, ncu: the power-law matrix's hub rows left to groups
 * of 8 lanes took the dense kernel to 200 ms); A's entries are taken in rounds of
 * SPX_GPU_DENSE_QUEUE, so that the queue of long rows cannot overflow. Guesses. */
#define SPX_GPU_DENSE_LONG_B 256
#define SPX_GPU_DENSE_QUEUE 1024
/* The dense fallback's walk and the pre-analysis: A entries a group (a lane) takes at once,
 * their B rows' bounds loaded together. H200, 4 against 1: the power-law matrix's analyse
 * 9.5 -> 7.6 ms, symbolic 18.3 -> 17.8, numeric 53.4 -> 50.6; the rest within noise. */
#ifndef SPX_GPU_BOUNDS_UNROLL
#define SPX_GPU_BOUNDS_UNROLL 4
#endif
/* Tables of at least max(n / SPX_GPU_DENSE_TABLE_DIV, SPX_GPU_DENSE_MIN_TABLE) slots go to
 * the dense fallback too (DIV 0: only the rows whose table does not fit): there the bitmap is
 * small beside the table, the row needs no sort, and its work fills a block. H200, run before
 * the long-B walk (numeric ms, fallback only / tables >= n/8 / >= n/64): R-MAT 18 198 / 198 /
 * 174, R-MAT 16 54 / 44 / 44, landmark*landmark^T symbolic 51 / 7.7 / 7.7; but bcsstk29 0.92
 * / 0.98 / 1.34 (its 256-slot rows leave most of a 1024-thread block idle), hence the floor
 * of 2048 slots (guess between the two). */
#ifndef SPX_GPU_DENSE_TABLE_DIV
#define SPX_GPU_DENSE_TABLE_DIV 64
#endif
#define SPX_GPU_DENSE_MIN_TABLE 2048
/* Whether a plan keeps C's device arrays from one run to the next (as cuSPARSE's does), or
 * allocates and frees them in every run (for measuring the difference). */
#ifndef SPX_GPU_KEEP_C
#define SPX_GPU_KEEP_C 1
#endif
/* Numeric rows of at most 64 products (2 a lane) in tables of at most 128 slots, and of at
 * most 128 products (4 a lane) in tables of 256, are summed by one warp in registers: the
 * products sorted by a bitonic network over shuffles, equal columns added by a segmented scan,
 * no hash insertion, atomics or rank (the table is still cleared), in bins whose row groups
 * are whole warps. Rows of few products without reuse (uniform 2M x 8: 64 products, 64
 * columns a row) spent their time in the table's atomics and the rank's shared-memory reads
 * (ncu before: L1/shared memory 90 %, DRAM 6 %). SPX_GPU_WARP_SORT 0 turns it off (for
 * measuring). Columns must be below spx_gpu_warp_max_cols (a key packs the column and the
 * product's place). */
#ifndef SPX_GPU_WARP_SORT
#define SPX_GPU_WARP_SORT 1
#endif
/* ... and only when C has at most this many products per entry: a row of more products than
 * the warp holds pays for the warp's try (its A entries and B row bounds read, a scan)
 * before the table. H200, numeric ms without / with the warp rows (64 products), every bin of
 * whole warps: uniform 2M x 8 (products / nnz(C) 1.00) 7.30 / 4.18, banded·ᵀ bw 8 (8.8) 0.54 /
 * 0.68, fe_body (2.2) 0.170 / 0.192, poisson3d n=100 (1.96) 1.33 / 1.33, uniform 100k·ᵀ (1.00,
 * about half its rows over 64 products) 0.80 / 0.85. */
#define SPX_GPU_WARP_MAX_COMPRESSION 1.5
/* The largest table whose bin's rows a warp tries: 256 (4 products a lane). Why the 256-slot
 * bin too (H100, 2026-11-27 run 3, ncu): uniform 2M x 8 A*A^T, whose rows of 65-128 products
 * (B = A^T's rows vary in length) fell to 256-slot tables, spent 14.3 ms a numeric run in
 * that bin against 4.9 ms for all of A*A's 64-product rows in registers. 128: 2 a lane only
 * (for measuring). */
#ifndef SPX_GPU_WARP_MAX_SLOTS
#define SPX_GPU_WARP_MAX_SLOTS 256
#endif
/* Bins whose rows a warp tries get groups of one warp: the warp path is one warp a row, and
 * the 256-slot bin's 64 lanes a row (enough lanes for its table's rank) left the second warp
 * of each group idle (H100, 2026-11-27 run 6, ncu: uniform 2M x 8 A*A^T, that bin 9.7 ms a
 * numeric run at 47 % of warps active; its rank then takes two batches a lane). 0: the groups
 * as before (for measuring). */
#ifndef SPX_GPU_WARP_ONE
#define SPX_GPU_WARP_ONE 1
#endif
/* Streams a phase's bins are spread over (the context's and SPX_GPU_BIN_STREAMS - 1 more, made
 * once a plan, joined before the phase goes on): a small product's bins are a handful of short
 * launches, each waiting for the last one's tail. 1: every bin on the context's stream (for
 * measuring). H100, 4 against 1 in one run, numeric ms: bcsstk29 0.64 -> 0.43, astro-ph 1.04 ->
 * 0.71, the power-law matrix 50.6 -> 45.4, cage10 0.31 -> 0.19; a stream costs ~22 us to make.
 * 4 is a guess among the counts (not compared). */
#ifndef SPX_GPU_BIN_STREAMS
#define SPX_GPU_BIN_STREAMS 4
#endif
/* Pre-analysis: a row of A longer than this (entries) is summed by a warp a chunk of this
 * many entries (spx_spgemm_long_rows_kernel), not by one warp. Guess. */
#define SPX_GPU_LONG_A_ROW 4096
/* Pre-analysis: the fewest lanes a row of A gets (more for longer mean rows, up to a warp).
 * Guess. */
#define SPX_GPU_ANALYSE_MIN_LANES 2
/* Pre-analysis and binning kernels: threads per block (a multiple of 32: the binning kernels
 * combine a warp's rows with ballots); grid-stride blocks per SM. */
#define SPX_GPU_ANALYSE_BLOCK 256
#define SPX_GPU_ANALYSE_BLOCKS_PER_SM 8

#endif
