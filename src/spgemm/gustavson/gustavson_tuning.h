/* src/spgemm/gustavson/gustavson_tuning.h: the CPU Gustavson's accumulator choices. The
 * hash table's load and the dense-style accumulator for rows touching a sizeable part of
 * their columns follow the row-wise SpGEMM literature (Nagasaka et al., "High-performance
 * sparse matrix-matrix products on Intel KNL and multicore architectures", ICPP 2018
 * workshops); the span rule and the merge bound were measured on the 2-core CI machine, the
 * prefetching, the tree merge and the chunks there and on the GPU machine's 16 cores. */
#ifndef SPX_SPGEMM_GUSTAVSON_TUNING_H
#define SPX_SPGEMM_GUSTAVSON_TUNING_H

/* A row's span is the width of its column range (from its B rows' first and last columns).
 * A row takes the span accumulator (a value and a flag per column of its span, read out in
 * column order by scanning the flags: no sort) when span <= SPX_GUS_SPAN_PER_KEY *
 * min(products, span), i.e. when the read-out's scan (~span / 512 eight-byte loads) stays
 * within ~8 loads per entry it may hold; else a hash table. Measured on the 2-core CI
 * machine, 1 thread, numeric ms, 2026-11-26 (the span accumulator then set bits in a
 * bitmap; the byte flags came after), per key 1024 / 4096 / 32768: uniform 1M x 6
 * (span ~1M, 36 products: hash/merge at 1024 and 4096) 1283 / 1219 / 1600; uniform 200k x 8
 * (64 products: span at 4096) 396 / 243 / 243; R-MAT 18 ef 4 1069 / 1000 / 1000. Before the
 * span accumulator, the old rule (dense marker when products >= n/16, else hash) ran R-MAT
 * 18 in 5405 and uniform 200k in 388. */
#define SPX_GUS_SPAN_PER_KEY 4096
/* The span accumulator is never wider than this many columns (2^22: 32 MB of values per
 * thread), so a very wide row cannot make every thread hold a span-sized array. */
#define SPX_GUS_SPAN_MAX_COLS (1 << 22)
/* Hash tables hold at least this many slots per key they may receive (load <= 1/2). */
#define SPX_GUS_HASH_SLOTS_PER_KEY 2
/* A hash row (see above) whose A row has at most SPX_GUS_MERGE_MAX_K entries and whose
 * products are fewer than SPX_GUS_MERGE_MAX_COMPRESSION times its C length (few repeated
 * columns) is filled by a k-way merge of its B rows instead (sorted: C's row comes out in
 * column order, no hash table, no sort). Measured on the 2-core CI machine, 1 thread, numeric
 * re-run GFLOPS, same build with and without the merge (2026-11-25): uniform 200k x 8 (one
 * product per C entry) 0.05 -> 0.07, powerlaw 200k 0.08 -> 0.09, R-MAT 14 0.28 -> 0.31; but
 * poisson3d n=60 (two products per C entry, B rows in cache) 0.67 -> 0.37: there the hash
 * table's L1 hits beat the heap, hence the compression bound. */
#ifndef SPX_GUS_MERGE_MAX_K
#define SPX_GUS_MERGE_MAX_K 16
#endif
#define SPX_GUS_MERGE_MAX_COMPRESSION 1.5
/* A merge row of at most this many products is merged as a tree of two-way merges through
 * two scratch runs per thread (sized by the largest such row of the chunks it owns, or of all
 * chunks for the panels' row ranges); a longer one by a heap
 * of its B rows' cursors (no scratch). 2^16 products: 1.5 MB of scratch a thread at most.
 * Measured: bench/NOTES.md, "CPU Gustavson: prefetching B's rows". */
#define SPX_GUS_MERGE_TREE_MAX_PRODUCTS (1 << 16)

/* Rows are split into this many chunks of equal work per thread: a thread owns as many
 * consecutive chunks and takes others' once done with its own, so that rows of unequal
 * cost per product (a hub row, a wide span) leave no thread idle. Measured: bench/NOTES.md,
 * "CPU Gustavson: prefetching B's rows". */
#define SPX_GUS_CHUNKS_PER_THREAD 8

/* Software prefetch of the parts of B a later row will read: while a thread works on row i,
 * it prefetches B's row pointers for the A entries of row i + 2 * SPX_GUS_PREFETCH_ROWS, and
 * reads those of row i + SPX_GUS_PREFETCH_ROWS (prefetched a distance before) to prefetch the
 * first and last line of each of its B rows' columns (and values in the numeric phase). Where B's
 * rows are visited in no order (uniform and graph matrices) each is otherwise a cache miss
 * the row's loop waits on. At most SPX_GUS_PREFETCH_MAX_K entries of a row are prefetched.
 * Measured: bench/NOTES.md, "CPU Gustavson: prefetching B's rows". */
#define SPX_GUS_PREFETCH_ROWS 4
#define SPX_GUS_PREFETCH_MAX_K 32
/* Prefetching is on when more than 1 / SPX_GUS_PREFETCH_FAR_SHARE of A's entries reach a B
 * row over SPX_GUS_PREFETCH_NEAR_ROWS rows from their row's own place in B (row i of m at B
 * row i * k / m). Nearer rows are in cache or streamed by the hardware, and the prefetches
 * only cost instructions there (stencil27 n=60, 1 thread, numeric 138 ms without, 150 with;
 * poisson3d n=100 110 against 116: the 2-core CI machine, 2026-11-27). */
#define SPX_GUS_PREFETCH_NEAR_ROWS 32768.0
#define SPX_GUS_PREFETCH_FAR_SHARE 4

#endif
