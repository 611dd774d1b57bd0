/* src/formats/hbp/hbp_tuning.h: the hbp format's tuning constants (tile shape rule, hash
 * parameters) shared by the host and device builds. None is measured yet: each says what it
 * is a guess from and what to measure on the GPU (docs/formats/hbp.md, "to measure"). */
#ifndef SPX_FORMATS_HBP_TUNING_H
#define SPX_FORMATS_HBP_TUNING_H

/* Tile rows by default: the paper's H = 512 (16 groups of 32 rows per tile). */
#define SPX_HBP_DEFAULT_H 512
/* Shared memory for one tile's x segment: the paper's 32 KB (W = 4096 fp64, 8192 fp32). */
#define SPX_HBP_XSEG_BYTES (32 * 1024)
/* Shared memory per block the layout may assume (the unit kernel's accumulators, H doubles,
 * plus the x segment). Below every supported device's opt-in limit (H100/H200: 227 KB), so a
 * host build and a device build choose the same shape; a device with less is refused at upload. */
#define SPX_HBP_SMEM_BUDGET (96 * 1024)
/* Bytes of one panel accumulator (the kernels sum in fp64 for either precision). */
#define SPX_HBP_ACC_BYTES 8

/* Sparse tiles (beyond the paper): when a row's expected entries in a tile, row_mean * W /
 * spread (spread = n * min(1, 3 * diag_distance): the columns a row's entries spread over, n
 * for a uniform matrix, a band's width near the diagonal),
 * fall below SPX_HBP_SPARSE_ROW_FILL, W doubles (x read through L2, no shared-memory staging)
 * up to SPX_HBP_MAX_W until it reaches it, then H doubles up to SPX_HBP_SPARSE_MAX_H until a
 * tile expects SPX_HBP_SPARSE_TILE_NNZ entries. Uniform 16.8M x 8: 512 x 4096 expects 1 entry
 * a tile; the rule gives 4096 x 32768 (64). The row fill was 1/4 at first; measured as a
 * build variant in one H100 run (2026-11-25): 4 took uniform 200k from 0.40x to 0.95x of
 * cuSPARSE ALG1 and powerlaw 200k from 0.26x to 0.47x (a row's 8 entries in one or two tiles
 * instead of eight slots of one), the shared matrices >= 100k nonzeros 0.71x -> 0.76x; it cost
 * poisson3d n=100 0.63x -> 0.44x through a 64 KB x segment reserved per CTA (occupancy),
 * which the unit kernel now reserves only when some tile is dense enough to stage. */
#ifndef SPX_HBP_SPARSE_ROW_FILL
#define SPX_HBP_SPARSE_ROW_FILL 4.0
#endif
#define SPX_HBP_SPARSE_MAX_H 4096
#define SPX_HBP_SPARSE_TILE_NNZ 64.0

/* Row panels a matrix should give at least (the unit kernel splits a panel only past 8 x H
 * entries, so small matrices need short panels for enough CTAs): H halves
 * (down to 32) until m / H reaches it. 4 CTAs on each of an H100/H200's 132 SMs. Measured on
 * the H200 (2026-11-24, commit 8989695) before the rule: bcsstk33 (8738 rows) had 18 panels of
 * 512 rows, 18 CTAs for 132 SMs, and ran at 0.14x of cuSPARSE ALG1. */
#define SPX_HBP_MIN_PANELS 528

/* The hash (§III-B): aggregation bucket = min(len >> a, SPX_HBP_BUCKETS - 1); a is the
 * smallest shift putting SPX_HBP_AGG_QUANTILE of the (tile, row) lengths below the last
 * bucket (the paper: "most rows into 0..8"). */
#define SPX_HBP_BUCKETS 8
#define SPX_HBP_AGG_QUANTILE_NUM 9 /* 9/10 of the rows */
#define SPX_HBP_AGG_QUANTILE_DEN 10
/* The aggregation bucket of a row with len entries in a tile (a macro: host and device). */
#define SPX_HBP_BUCKET(len, a) ((((len) >> (a)) < SPX_HBP_BUCKETS - 1) ? ((len) >> (a)) : (SPX_HBP_BUCKETS - 1))

/* Pieces (beyond the paper): a row's run of entries in one tile longer than SPX_HBP_PIECE_MAX
 * is stored as ceil(len / SPX_HBP_PIECE_MAX) slots of near-equal length (the shorter ones
 * first, so a row's pieces stay in column order in either slot order), each summed by its
 * own lane. A group's lanes then step to at most this many entries, instead of to its
 * longest row: measured on the H200 (2026-11-24, 8989695), lane utilisation after hashing was
 * 5.5 % on powerlaw 4M and 16 % on R-MAT 23 with whole rows in one lane. Guess 32 (one warp's
 * width: a row longer than that spreads over several lanes); measure 16..128. */
#ifndef SPX_HBP_PIECE_MAX
#define SPX_HBP_PIECE_MAX 32
#endif
/* Pieces of a run of len entries, and the length and offset of piece j of them (host and
 * device): the first k - len % k pieces get len / k entries, the rest one more. */
#define SPX_HBP_PIECES(len) (((len) + SPX_HBP_PIECE_MAX - 1) / SPX_HBP_PIECE_MAX)
#define SPX_HBP_PIECE_LEN(len, k, j) ((len) / (k) + ((j) >= (k) - (len) % (k)))
#define SPX_HBP_PIECE_OFF(len, k, j) \
    ((j) * ((len) / (k)) + ((j) > (k) - (len) % (k) ? (j) - ((k) - (len) % (k)) : 0))

/* Bands (beyond the paper, hbp_bands.h): column blocks sized to the L2 cache, one band after
 * the other. A prototype on the H100 (2026-11-26, bench/NOTES.md "hbp bands"; uniform m x m,
 * 8 per row, a thread per row) ran 16.8M rows (x 134 MB) in 4.79 ms in one pass, 2.70 / 2.09 /
 * 1.99 / 2.35 ms in 4 / 6 / 8 / 12 bands (x segments of 34 / 22 / 17 / 11 MB), and 8.4M rows
 * (x 67 MB) 2.04 ms in one pass, 0.83 / 0.82 / 0.90 ms in 4 / 6 / 8 bands: the best segments
 * are 1/4 to 1/3 of the 50 MB L2. SPX_HBP_BAND_L2_BYTES is the H100's and H200's L2 (the
 * devices' cudaDeviceProp.l2CacheSize), fixed so a host build and a device build cut the
 * same bands. */
#define SPX_HBP_BAND_L2_BYTES (50LL << 20)
#ifndef SPX_HBP_BAND_SEGMENT_BYTES
#define SPX_HBP_BAND_SEGMENT_BYTES (SPX_HBP_BAND_L2_BYTES / 3)
#endif
/* Rows whose entries spread over more than this fraction of the columns (diag_distance:
 * 1/3 for a uniform matrix) get x segments of SPX_HBP_BAND_SEGMENT_BYTES; rows that stay
 * near the diagonal (stencils: poisson3d n=300 0.003, stencil27 n=160 0.004) reuse x locally
 * and get two bands. Guess between the two kinds; measure on graphs of moderate spread. */
#define SPX_HBP_BAND_MIN_SPREAD 0.05
/* The csr algorithm every band runs (an spx_csr_algo value): SPX_CSR_AUTO lets csr's `auto`
 * choose from each band's row statistics (and, for the only band, its columns: colblock is
 * then allowed, spx_hbp_band_row_stats). A/B builds forcing scalar, vector, merge and stream
 * (H100, 2026-11-26, bench/NOTES.md) found none faster than auto by more than 3 % on any of 8
 * matrices (stream on poisson3d n=300: 1.21 against 1.25 ms), and scalar, vector, merge far
 * slower on skewed ones. */
#ifndef SPX_HBP_BAND_CSR_ALGO
#define SPX_HBP_BAND_CSR_ALGO SPX_CSR_AUTO
#endif
/* Band widths are multiples of this many columns (x segments start 128-byte aligned). */
#define SPX_HBP_BAND_ALIGN 32

/* Hot columns (beyond the paper, hbp_bands.h): the bands cut columns renumbered by
 * descending entry count where the top 1/SPX_HBP_HOT_TOP_DEN of the non-empty columns hold at
 * least SPX_HBP_HOT_MIN_SHARE of the entries (x larger than one segment, entries spread): 4
 * times their share were the counts even. R-MAT at scale 20 (Graph500 parameters, vertices
 * permuted): 48 % of the columns are empty and the top 1/16 of the others hold about 2/3 of
 * the entries; uniform columns (Poisson counts of mean 8, computed) about 1/9, of mean 1
 * about 1/7. A guess between the kinds. Hot bands are SPX_HBP_HOT_SEGMENT_BYTES of x, or half the
 * columns where that is more: the L2's size, as R-MAT 23's 3.85M used columns (31 MB of fp64
 * x) ran faster in one band than in two of 17.5 MB (H100, 2026-11-28, bench/NOTES.md: 1.34
 * against 1.39 ms, ALG1 1.61). */
#define SPX_HBP_HOT_TOP_DEN 16
#define SPX_HBP_HOT_MIN_SHARE 0.25
#ifndef SPX_HBP_HOT_SEGMENT_BYTES
#define SPX_HBP_HOT_SEGMENT_BYTES SPX_HBP_BAND_L2_BYTES
#endif

/* Wide tiles (beyond the paper, hbp_wide.h): a CTA owns a row panel of H rows and sums its
 * tiles (column blocks of W columns, x read through L2) into H accumulators in shared memory.
 * H: at most SPX_HBP_WIDE_MAX_H, halved (down to 32) until the matrix has
 * SPX_HBP_WIDE_MIN_PANELS panels (8 CTAs on each of 132 SMs). W: the largest power of two whose
 * x segment fits SPX_HBP_WIDE_SEGMENT_MB and that the packed offset (32 - log2 H bits) can
 * address. Measured on the H100 (2026-11-28, bench/NOTES.md; uniform 16.8M x 8 fp64, paced
 * wave): H 4096 / 8 MB 3.27 ms (6 CTAs an SM by shared memory), 2048 / 8 MB 2.01, 2048 / 16 MB
 * 1.91, 1024 / 16 MB 2.10; R-MAT 23 2.40, 2.14, 2.31 for the last three. A panel of more than
 * max(SPX_HBP_WIDE_UNIT_MIN_NNZ, min(SPX_HBP_WIDE_UNIT_MEANS x the mean panel's entries, nnz /
 * SPX_HBP_WIDE_MIN_PANELS)) entries is shared by several CTAs (atomics into y): a hub row's
 * panel, or a matrix of few panels, spreads over the SMs (guesses). */
#ifndef SPX_HBP_WIDE_MAX_H
#define SPX_HBP_WIDE_MAX_H 2048
#endif
#define SPX_HBP_WIDE_MIN_PANELS 1056
#ifndef SPX_HBP_WIDE_SEGMENT_MB
#define SPX_HBP_WIDE_SEGMENT_MB 16
#endif
#define SPX_HBP_WIDE_SEGMENT_BYTES ((long long)SPX_HBP_WIDE_SEGMENT_MB << 20)
#define SPX_HBP_WIDE_UNIT_MIN_NNZ 65536
#define SPX_HBP_WIDE_UNIT_MEANS 4
/* `auto`'s plain bands are one band (the csr layout, no column split) where the band rule would
 * cut at most this many: x within two segments (2/3 of the L2) or rows near the diagonal. H200,
 * 2026-11-28 (bench/NOTES.md, with the matrix loads evict-first), csr auto on the whole matrix
 * against two bands: powerlaw 4M 0.282 / 0.293 ms fp64, 0.218 / 0.257 fp32; uniform 4M x 8
 * 0.300 / 0.374 fp64, 0.244 / 0.318 fp32; R-MAT 23 fp64 (4 bands) 1.289 / 1.354. Stencils
 * (H100, 2026-11-25): poisson3d n=300 bands 0.91x ALG1 where csr auto is 1.4x. */
#define SPX_HBP_AUTO_ONE_BAND_MAX 2
/* `auto` takes the wide tiles where the band rule would cut x into at least this many bands
 * (every band after the first reads and writes y again), else the bands. Measured on the H100
 * (2026-11-28): uniform 16.8M fp64 (8 bands) wide 1.91 ms against bands 2.15; uniform fp32 (4
 * bands) 1.48 against 1.40, R-MAT 23 fp64 (4 bands) 2.14 against 1.56, powerlaw 4M (2 bands)
 * 0.9-1.5 against 0.35: wide wins at 8, loses at 4 and below. 6 sits between; no matrix with 5-7
 * bands was measured. */
#define SPX_HBP_WIDE_MIN_BANDS 6
/* The same where the rows are even (not skewed by csr's test, spx_csr_rows_skewed): a wave's
 * pacing waits on its slowest unit, and even rows make no slow unit. H200, 2026-11-29
 * (bench/results/2026-11-29-nvidia-h200-hbp-final/run2): uniform 16.8M fp32 (4 bands)
 * wide 1.254-1.260 ms against bands 1.384-1.386 in two processes (1.73x against 1.58x ALG1).
 * The H100 had had bands ahead there (1.40 against 1.48 ms, 2026-11-28, before the evict-first
 * matrix loads); R-MAT 23 fp64 (4 bands, skewed) stays on the bands (and there, hot columns). */
#define SPX_HBP_WIDE_MIN_BANDS_EVEN 4

/* Host build: panels per OpenMP chunk (dynamic schedule). */
#define SPX_HBP_CPU_PANEL_CHUNK 4

#endif
