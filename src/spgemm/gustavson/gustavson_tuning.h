/* src/spgemm/gustavson/gustavson_tuning.h: the CPU Gustavson's accumulator choices. Not yet
 * measured on the GPU machine's 16 cores: the values are the usual ones of the row-wise
 * SpGEMM literature (Nagasaka et al., "High-performance sparse matrix-matrix products on
 * Intel KNL and multicore architectures", ICPP 2018 workshops: hash tables at load <= 1/2,
 * dense accumulators when a row may touch a sizeable part of the columns). */
#ifndef SPX_SPGEMM_GUSTAVSON_TUNING_H
#define SPX_SPGEMM_GUSTAVSON_TUNING_H

/* A row whose upper bound of distinct columns (min(products, n)) reaches n / this uses the
 * dense accumulator (a marker and a value per column, reset by stamping the row), else a
 * hash table: past n/16 the hash table's probing and final sort cost more than the dense
 * array's cache footprint. */
#define SPX_GUS_DENSE_DIV 16
/* The dense accumulator is never used beyond this many columns (2^22: 48 MB of marker and
 * values per thread), so a very wide B cannot make every thread hold n-sized arrays. */
#define SPX_GUS_DENSE_MAX_COLS (1 << 22)
/* Hash tables hold at least this many slots per key they may receive (load <= 1/2). */
#define SPX_GUS_HASH_SLOTS_PER_KEY 2
/* A dense row whose C row has at least n / this columns is read out by scanning the
 * marker in column order instead of sorting its column list. */
#define SPX_GUS_SCAN_DIV 8
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
/* Runs of at most this many keys are sorted by insertion. */
#define SPX_GUS_INSERTION_SORT 24

#endif
