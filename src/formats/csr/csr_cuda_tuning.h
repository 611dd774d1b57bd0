/* src/formats/csr/csr_cuda_tuning.h: launch shapes and thresholds of the csr CUDA kernels, each
 * with where its value comes from. Device limits (SM count) are read at run time, not here.
 * "guess" = a starting point to be measured on the H100/H200 (bench/), not a measured optimum.
 * Each can be overridden at build time (-DSPX_CSR_CUDA_MERGE_IPT=5 in CMAKE_CUDA_FLAGS) to
 * measure a variant without editing this file. */
#ifndef SPX_FORMATS_CSR_CUDA_TUNING_H
#define SPX_FORMATS_CSR_CUDA_TUNING_H

/* scalar: threads per block. Guess: 8 warps, the common SpMV block since sm_70; one thread a
 * row needs no shared memory, so occupancy is bounded by registers only. */
#ifndef SPX_CSR_CUDA_SCALAR_BLOCK
#define SPX_CSR_CUDA_SCALAR_BLOCK 256
#endif

/* Nonzeros a lane should get in the lane-group kernels (vector, adaptive short bins): the
 * group width is the smallest power of two >= row length / NZ_PER_LANE. Measured on an H200
 * (fp64, warm, GFLOPS): 7-point stencil 150^3, one lane a nonzero (groups of 8) 263 against
 * 439 for one thread a row (scalar): a group's fixed cost (row pointers, shuffle tree, three
 * dependent loads) is paid per row and fewer rows are in flight per SM. 27-point stencil 80^3:
 * NZ_PER_LANE 2 / 4 / 8 gave vector 367 / 419 / 460 and adaptive 273 / 318 / 372 (scalar 187),
 * so 8 it is; irregular matrices hardly moved. */
#ifndef SPX_CSR_CUDA_NZ_PER_LANE
#define SPX_CSR_CUDA_NZ_PER_LANE 8
#endif

/* vector: threads per block, and the range of lanes per row (Bell & Garland SC'09 use a warp;
 * CUSP and the CSR report's warp reduction pick the width by the mean). G_MAX = 32 keeps every
 * reduction inside one warp's shuffles. */
#ifndef SPX_CSR_CUDA_VECTOR_BLOCK
#define SPX_CSR_CUDA_VECTOR_BLOCK 256
#endif
#ifndef SPX_CSR_CUDA_VECTOR_G_MIN
#define SPX_CSR_CUDA_VECTOR_G_MIN 2
#endif
#ifndef SPX_CSR_CUDA_VECTOR_G_MAX
#define SPX_CSR_CUDA_VECTOR_G_MAX 32
#endif

/* adaptive: rows binned by length. Rows up to 16 * NZ_PER_LANE go to lane groups of 1/2/4/8/16
 * (the narrowest giving each lane at most NZ_PER_LANE nonzeros, several rows a warp); up to
 * WARP_MAX a warp each; up to HUGE_MIN a block each; longer rows are split into chunks of
 * HUGE_CHUNK nonzeros, a block a chunk, combined with atomicAdd. WARP_MAX guess: 32 nonzeros
 * a lane is where a block starts to pay for its reduction. HUGE_MIN guess: 128 nonzeros a
 * thread of a 256-thread block; one SM reads a row of 32768 fp64 entries (~400 KB) in a few
 * microseconds, beyond that it becomes the tail of the launch. HUGE_CHUNK = 32 nonzeros a
 * thread of the block. Bins are launched one kernel each (up to 9 launches). */
#ifndef SPX_CSR_CUDA_ADAPT_BLOCK
#define SPX_CSR_CUDA_ADAPT_BLOCK 256
#endif
#ifndef SPX_CSR_CUDA_ADAPT_WARP_MAX
#define SPX_CSR_CUDA_ADAPT_WARP_MAX 1024
#endif
#ifndef SPX_CSR_CUDA_ADAPT_HUGE_MIN
#define SPX_CSR_CUDA_ADAPT_HUGE_MIN 32768
#endif
#ifndef SPX_CSR_CUDA_ADAPT_HUGE_CHUNK
#define SPX_CSR_CUDA_ADAPT_HUGE_CHUNK 8192
#endif

/* merge: threads per CTA and merge items (row ends + nonzeros) per thread. Merrill & Garland
 * SC'16 (and CUB's AgentSpmv policies) use 64-128 threads and 5-7 items; odd item counts
 * spread a thread's shared-memory reads over banks. Measured on an H200 (fp64 GFLOPS; 7-pt
 * 150^3, 27-pt 80^3, R-MAT 20, uniform 8M x 8, power-law 2M x 16): 128x7 319/330/211/100/219,
 * 256x5 297/308/225/109/235, 128x5 308/323/219/108/212, 64x7 273/291/142/62/133. 128x7 kept
 * (best on the regular matrices, within 10 % on the skewed ones); ~13 KB of shared memory. */
#ifndef SPX_CSR_CUDA_MERGE_BLOCK
#define SPX_CSR_CUDA_MERGE_BLOCK 128
#endif
#ifndef SPX_CSR_CUDA_MERGE_IPT
#define SPX_CSR_CUDA_MERGE_IPT 7
#endif
/* Resident merge CTAs an SM should hold: 2048 threads, a full sm_90 SM (the device limit);
 * also caps ptxas at 32 registers, where it otherwise spilled (-Xptxas -v, CUDA 13.0). */
#ifndef SPX_CSR_CUDA_MERGE_MIN_BLOCKS
#define SPX_CSR_CUDA_MERGE_MIN_BLOCKS (2048 / SPX_CSR_CUDA_MERGE_BLOCK)
#endif

/* nzsplit: threads per block and nonzeros per thread (a warp owns 32*K consecutive nonzeros,
 * read in K coalesced rounds, all loaded before the first reduction). Measured on an H200
 * (fp64 GFLOPS, the five matrices above): K = 4 244/270/233/114/219, K = 8 246/265/229/117/246,
 * K = 16 187/212/186/108/212: 8 kept. Block 256 as scalar (a guess). */
#ifndef SPX_CSR_CUDA_NZSPLIT_BLOCK
#define SPX_CSR_CUDA_NZSPLIT_BLOCK 256
#endif
#ifndef SPX_CSR_CUDA_NZSPLIT_K
#define SPX_CSR_CUDA_NZSPLIT_K 8
#endif

/* Plan-time and y-preparation kernels: grid-stride, this many blocks per SM at most (the SM
 * count is the device's). Guess: 8 x 256 threads = a full sm_90 SM (2048 threads). */
#ifndef SPX_CSR_CUDA_AUX_BLOCK
#define SPX_CSR_CUDA_AUX_BLOCK 256
#endif
#ifndef SPX_CSR_CUDA_AUX_BLOCKS_PER_SM
#define SPX_CSR_CUDA_AUX_BLOCKS_PER_SM 8
#endif

/* stream: rows grouped at plan time into blocks of at most STREAM_NNZ nonzeros (CSR-Stream,
 * Greathouse & Daga SC'14: the block's products are staged in shared memory with coalesced
 * loads, then reduced per row); a row longer than that gets blocks of its own, one per
 * STREAM_CHUNK nonzeros, combined by the last block to finish (no prior launch, no atomics
 * on y). One launch per SpMV. The budget is per matrix: STREAM_NNZ for even row lengths,
 * STREAM_NNZ_SKEWED when a few rows are far longer than the mean (csr_tuning.h's test).
 * Measured on an H200 (fp64 GFLOPS, warm; budget 512 / 1024 / 2048 / 4096):
 *   poisson3d 300^3   327 / 504 / 547 / -      stencil27 160^3  336 / 502 / 590 / -
 *   rmat 23 ef 8 sym  194 / 193 / 179 / 79     powerlaw 4M x 8  204 / 199 / 186 / 89
 *   rmat 15 ef 8 sym   89 /  87 /  74 / -      wide 512 x 395k  141 / 139 / 136 / -
 * Even rows want large blocks (more loads in flight, fewer row-pointer re-reads at block
 * edges); skewed rows want small ones (a row longer than the budget gets a whole block to
 * itself instead of one thread of a shared block). 4096 (16 KB more staging, 16 loads a
 * thread) collapsed everywhere. STREAM_CHUNK guess: 32 nonzeros a thread, as adaptive's huge
 * chunks. STREAM_MAX_ROWS bounds a block's rows (empty rows cost no staging) at 4 a thread. */
#ifndef SPX_CSR_CUDA_STREAM_BLOCK
#define SPX_CSR_CUDA_STREAM_BLOCK 256
#endif
#ifndef SPX_CSR_CUDA_STREAM_NNZ
#define SPX_CSR_CUDA_STREAM_NNZ 2048
#endif
#ifndef SPX_CSR_CUDA_STREAM_NNZ_SKEWED
#define SPX_CSR_CUDA_STREAM_NNZ_SKEWED 512
#endif
/* Even rows in fewer than STREAM_MIN_BLOCKS_PER_SM blocks of STREAM_NNZ a SM (under ~2.2M
 * nonzeros on an H100's 132 SMs) take blocks of STREAM_NNZ_SMALL: a wave of big blocks ends
 * on its slowest. H100, 2026-11-27, the whole budget at 1024 against 2048 (same run): landmark
 * (1.15M nonzeros, 4 blocks a SM) 8.7 -> 7.2 us fp64, 7.7 -> 6.6 us fp32; stencil27 n=160
 * (109M, 400 a SM) 479 -> 510 us fp64, 345 -> 405 us fp32; poisson3d n=300 +1-6 %. */
#ifndef SPX_CSR_CUDA_STREAM_NNZ_SMALL
#define SPX_CSR_CUDA_STREAM_NNZ_SMALL 1024
#endif
#ifndef SPX_CSR_CUDA_STREAM_MIN_BLOCKS_PER_SM
#define SPX_CSR_CUDA_STREAM_MIN_BLOCKS_PER_SM 8
#endif
#ifndef SPX_CSR_CUDA_STREAM_CHUNK
#define SPX_CSR_CUDA_STREAM_CHUNK 8192
#endif
#ifndef SPX_CSR_CUDA_STREAM_MAX_ROWS
#define SPX_CSR_CUDA_STREAM_MAX_ROWS (4 * SPX_CSR_CUDA_STREAM_BLOCK)
#endif
/* Rows from which a plan built on the device cuts the stream blocks there (one warp a piece
 * of SPX_CSR_STREAM_PIECE_ROWS rows) instead of downloading the row pointers for the host
 * walk; both give the same blocks, so this moves only plan time. 2^20 rows (128 pieces): a
 * guess between the host's cost (a 4 MB download and a walk, ~1 ms) and the device walk's
 * (its allocations and launches; a warp walks 8192 rows twice whatever m is). Not measured
 * at the threshold. */
#ifndef SPX_CSR_CUDA_STREAM_DEVICE_WALK_ROWS
#define SPX_CSR_CUDA_STREAM_DEVICE_WALK_ROWS (1 << 20)
#endif

/* colblock: a block takes COLBLOCK_ROWS rows (a warp a row at a time) within one column block
 * of COLBLOCK_SEGMENT_BYTES of x (1024 columns in fp64, 2048 in fp32), which it copies into
 * shared memory once so that the rows' gathers read shared memory instead of L2; the rows'
 * partial sums (one per row and column block) are added in column-block order by a second
 * kernel. Measured on an H100 (the large suite's wide matrix, 64 x 2M, batch time; 2026-11-27,
 * bench/results/2026-11-27-nvidia-h100-369c3d3-colblock/): 512 / 1024 / 2048 columns gave
 * 82.0 / 74.8 / 75.2 us in fp64 and 67.4 / 56.8 / 55.0 us in fp32, i.e. 8 KB is the best of
 * both (fp64: 1954 blocks, ~15 a SM, 110 entries a row a block). ROWS guess: 8 rows a warp.
 * The table of each row's
 * entry offsets at the column blocks' starts (m x (blocks + 1) int32) is held to
 * nnz / COLBLOCK_TABLE_DIV + COLBLOCK_TABLE_MIN entries: a matrix with more rows gets wider
 * column blocks (any matrix runs; past COLBLOCK_SMEM_BYTES the segment is read from global
 * memory, through L1, instead of shared memory). */
#ifndef SPX_CSR_CUDA_COLBLOCK_BLOCK
#define SPX_CSR_CUDA_COLBLOCK_BLOCK 256
#endif
#ifndef SPX_CSR_CUDA_COLBLOCK_SEGMENT_BYTES
#define SPX_CSR_CUDA_COLBLOCK_SEGMENT_BYTES 8192
#endif
#ifndef SPX_CSR_CUDA_COLBLOCK_ROWS
#define SPX_CSR_CUDA_COLBLOCK_ROWS 64
#endif
#ifndef SPX_CSR_CUDA_COLBLOCK_SMEM_BYTES
#define SPX_CSR_CUDA_COLBLOCK_SMEM_BYTES 32768
#endif
#ifndef SPX_CSR_CUDA_COLBLOCK_TABLE_DIV
#define SPX_CSR_CUDA_COLBLOCK_TABLE_DIV 16
#endif
#ifndef SPX_CSR_CUDA_COLBLOCK_TABLE_MIN
#define SPX_CSR_CUDA_COLBLOCK_TABLE_MIN 65536
#endif
/* colblock's reduction: a block of 256 threads a row when a row has at least this many
 * partial sums, else a warp a row. */
#ifndef SPX_CSR_CUDA_COLBLOCK_BLOCK_REDUCE_MIN
#define SPX_CSR_CUDA_COLBLOCK_BLOCK_REDUCE_MIN 256
#endif

/* sliced (csr_sliced_cuda.cu): warp-wide slices of 32 / LANES rows, LANES lanes a row, the
 * smallest power of two giving each lane at most SLICED_NZ_PER_LANE entries of a mean row.
 * Guesses to be measured on the shared FEM matrices (landmark: 16 a row, 4 lanes, 8 rows a
 * warp, DASP's row-block shape): NZ_PER_LANE 4, blocks of 8 warps, the entry loop unrolled 4
 * (four column and value loads of a lane in flight before the first gather of x). */
#ifndef SPX_CSR_CUDA_SLICED_BLOCK
#define SPX_CSR_CUDA_SLICED_BLOCK 256
#endif
#ifndef SPX_CSR_CUDA_SLICED_NZ_PER_LANE
#define SPX_CSR_CUDA_SLICED_NZ_PER_LANE 4
#endif
#ifndef SPX_CSR_CUDA_SLICED_UNROLL
#define SPX_CSR_CUDA_SLICED_UNROLL 4
#endif

/* SpMM (csr_spmm_cuda.cu; the shapes in csr_spmm_shape.c). The roofline (docs/spmm.md) says
 * what must be true: at k = 8 on a 7-point stencil A is ~40 % of the bytes and X and Y the
 * rest, so every nonzero's k values of X must come as one coalesced run (row-major) or from
 * lines that neighbouring rows share (column-major), and A must be read once per call, not
 * once per column. Every value below is a guess to be measured on the H100 (bench/NOTES.md,
 * "csr SpMM v1"); each can be overridden at build time like the others.
 *
 * Threads a block of every SpMM kernel: 8 warps, as the SpMV kernels (no shared memory). */
#ifndef SPX_CSR_CUDA_SPMM_BLOCK
#define SPX_CSR_CUDA_SPMM_BLOCK 256
#endif
/* Row-major X: a row's lanes are g column lanes (the power of two >= k, at most 32) times
 * `slots` nonzeros read at once; slots is the power of two >= mean row / SPMM_NZ_PER_SLOT
 * (at most 32 / g). 8: the SpMV's lane-group measurement (SPX_CSR_CUDA_NZ_PER_LANE above:
 * a group's fixed cost per row is repaid only past ~8 nonzeros a lane) carried over, a slot
 * of g lanes standing for the SpMV's lane. On a 7-point stencil at k = 8 that gives 8 lanes
 * a row, 4 rows a warp, each lane's load one of a 64-byte run. */
#ifndef SPX_CSR_CUDA_SPMM_NZ_PER_SLOT
#define SPX_CSR_CUDA_SPMM_NZ_PER_SLOT 8
#endif
/* Row-major X, k > 32: a warp's lane takes columns lane, lane + 32, ..: up to ROW_MAX_C of
 * them (8 fp64 sums, 16 registers), so a warp covers 256 columns with one pass over the row's
 * entries; wider blocks are cut into chunks of 32 * c columns over the grid's y. */
#ifndef SPX_CSR_CUDA_SPMM_ROW_MAX_C
#define SPX_CSR_CUDA_SPMM_ROW_MAX_C 8
#endif
/* Column-major X: lanes a row = the power of two >= mean row / COL_NZ_PER_LANE (1..32); each
 * lane keeps up to COL_NZ_PER_LANE of the row's (column, value) pairs in registers and reads
 * X for COL_TILE columns at a time from them, so A is read once for all the columns of a
 * chunk (rows longer than lanes * COL_NZ_PER_LANE re-read their entries each tile, from L1).
 * 4 and 8: registers (4 + 8 for the pairs, 16 for the fp64 sums) kept under ~64 a thread so
 * that an SM still holds 1024 threads for the gathers' latency. COL_CHUNK: columns a block
 * takes (the grid's y cuts wider blocks), so A is read once for k <= 64. */
#ifndef SPX_CSR_CUDA_SPMM_COL_NZ_PER_LANE
#define SPX_CSR_CUDA_SPMM_COL_NZ_PER_LANE 4
#endif
#ifndef SPX_CSR_CUDA_SPMM_COL_TILE
#define SPX_CSR_CUDA_SPMM_COL_TILE 8
#endif
#ifndef SPX_CSR_CUDA_SPMM_COL_CHUNK
#define SPX_CSR_CUDA_SPMM_COL_CHUNK 64
#endif
/* Long rows: a row of more than LONG_MIN entries is not summed by its lane group (which would
 * walk it alone while the rest of the grid has finished) but cut into pieces of LONG_PIECE
 * entries, a warp a piece, whose sums are added into Y atomically after the main kernel has
 * set the row to b*Y. LONG_MIN = 4 pieces: below it a row costs at most ~4x a piece's time on
 * one group. LONG_PIECE: 8 entries a lane of a warp (the SpMV's NZ_PER_LANE). The pieces are
 * listed on the plan's first SpMM (the row pointers walked on the host once) and kept. */
#ifndef SPX_CSR_CUDA_SPMM_LONG_PIECE
#define SPX_CSR_CUDA_SPMM_LONG_PIECE 256
#endif
#ifndef SPX_CSR_CUDA_SPMM_LONG_MIN
#define SPX_CSR_CUDA_SPMM_LONG_MIN (4 * SPX_CSR_CUDA_SPMM_LONG_PIECE)
#endif

#endif
