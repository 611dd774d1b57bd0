/* src/formats/ehyb/ehyb_tuning.h: the ehyb format's host-side constants: partitioning, part
 * sizing, the METIS options and the CPU plan's stand-in device. Each says where it comes
 * from; "guess" marks the ones still to be measured on the GPU (docs/formats/ehyb.md). */
#ifndef SPX_FORMATS_EHYB_TUNING_H
#define SPX_FORMATS_EHYB_TUNING_H

/* Lanes per row: G = the smallest power of two >= mean row length / this, from 1 to
 * SPX_EHYB_MAX_LANES (a slice holds 32 / G rows). The paper maps one lane to a row (§3.2),
 * which leaves a FEM matrix of 40-70 entries a row latency-bound: each lane walks its row
 * alone (H100, 91072cc: ehyb 0.50x ALG1 on bcsstk29, csr vector 1.67x). 4 against teb's 8
 * (H100, ehyb's own batch times on the 16 FEM matrices, two interleaved runs,
 * bench/NOTES.md 2026-11-26): geomean 3-4 % less, finan512 12.9 -> 9.5 us (half the ER
 * padding), bcsstk15 5.9 -> 6.9 us. */
#ifndef SPX_EHYB_NZ_PER_LANE
#define SPX_EHYB_NZ_PER_LANE 4
#endif

/* ... and at most this many: 32 lanes on bcsstk33 (68 entries a row) took 11.6-12.1 us
 * against 10.8-11.3 with 16 (same runs). */
#define SPX_EHYB_MAX_LANES 16

/* ... but lanes only while the rows do not already fill the device: m x G at most this many
 * times the lanes its block slots hold. H100 (bench/NOTES.md, 2026-11-26): stencil27 n = 60
 * (216K rows, 3.2 such waves at G = 4) gained from G = 4 (0.94x -> 0.98x ALG1), n = 160 (4.1M
 * rows, 15 waves at G = 1) lost 12 % with it. */
#ifndef SPX_EHYB_LANE_WAVES
#define SPX_EHYB_LANE_WAVES 4
#endif

/* The 16-bit column offsets of the sliced-ELL part (§3.4) address 65536 cells: a part's x
 * segment is at most this long, the last cell being the 0 that padding slots point at
 * (a longer part is split, never truncated). */
#define SPX_EHYB_SEG_LIMIT 65535

/* A CPU plan has no device to ask: it lays the matrix out for an H100 SXM (132 SMs, 227 KiB
 * of opt-in shared memory per block), so the CPU oracle checks the layout a GPU plan of the
 * machine we measure on gets. */
#define SPX_EHYB_CPU_DEFAULT_SMS 132
#define SPX_EHYB_CPU_DEFAULT_SMEM (227 * 1024)

/* Blocks of the slice kernel that share one SM in the narrow shape (the wide one is below):
 * the x segment gets smem_per_block_optin / this, and the parts number SMs x this x K. The paper uses the whole of it (one block per
 * SM); more lets one block's segment load overlap the others' slices and fills the SM's warp
 * slots (512-thread blocks: 4 fill an sm_90 SM), at the price of more rows outside their
 * part. Measured on the H200 (bench/NOTES.md, 2026-11-25), 4 against 2: poisson3d n = 100
 * 0.98x against 0.88x ALG1 (ER 7.5 % against 5.8 %), stencil27 n = 60 and the FEM matrices
 * unchanged; -D overrides it. */
#ifndef SPX_EHYB_BLOCKS_PER_SM
#define SPX_EHYB_BLOCKS_PER_SM 4
#endif

/* The wide shape: blocks an SM where the narrow shape would have a part for every block slot
 * (parts >= SMs x SPX_EHYB_BLOCKS_PER_SM: a matrix of more than ~135K rows on 132 SMs). Twice
 * the threads a block and twice the segment: half the parts, fewer entries outside them, the
 * same warps an SM. H200, 2026-11-28 (bench/results/2026-11-28-nvidia-h200-ehyb-er-unroll/run5),
 * 1024 x 2 against 512 x 4 for every matrix, plan order: stencil27 n=160 METIS 0.392 -> 0.370
 * ms fp64, 0.252 -> 0.237 fp32; poisson3d n=300 grow 0.726 -> 0.697, 0.455 -> 0.446; the FEM16
 * set (under 75K rows: fewer parts than slots, several blocks a part) 4 % slower by batch
 * time, so it keeps the narrow shape. */
#ifndef SPX_EHYB_WIDE_BLOCKS_PER_SM
#define SPX_EHYB_WIDE_BLOCKS_PER_SM 2
#endif

/* Threads an sm_90 SM holds: a shape's blocks are SM_THREADS / blocks-an-SM threads each (512
 * or 1024), so either shape fills the SM's 64 warp slots at 32 registers a thread. */
#define SPX_EHYB_SM_THREADS 2048

/* Shared memory kept back per block for the kernel's own variables (the slice counter). */
#define SPX_EHYB_SMEM_RESERVE 256
/* Shared memory the CUDA runtime reserves per resident block on sm_80 and later (an SM's
 * 228 KiB = the 227 KiB opt-in + this): BLOCKS_PER_SM blocks fit when each takes at most
 * (opt-in + 1 KiB) / BLOCKS_PER_SM - 1 KiB. */
#define SPX_EHYB_SMEM_SYSTEM 1024

/* Fewest rows a part is made with (smaller matrices get fewer than K x P parts): below ~8
 * slices a block spends more on loading its segment than on its rows. Guess, to measure. */
#define SPX_EHYB_MIN_PART_ROWS 256

/* A row with at least this many entries outside its part leaves the slices for the long-row
 * list (the whole row, a warp per row, CSR order): a slice's ER part is as wide as its
 * widest row's, so one row of 10^6 out-of-part entries would otherwise pad the other rows of
 * its slice to 10^6 slots each. Guess: a warp per row pays from about two rounds of 32
 * lanes; to measure. */
#define SPX_EHYB_ER_LONG_ROW 64

/* The voronoi partitioner's mean cell as a share of the segment cap, in percent: cells of
 * random seeds vary in size (a cell over the cap is split in row order, which cuts it along
 * a plane), so the mean stays below the cap. Guess, to measure against the ER fraction. */
#ifndef SPX_EHYB_VORONOI_FILL_PCT
#define SPX_EHYB_VORONOI_FILL_PCT 80
#endif
/* Breadth-first rounds of the voronoi partitioner before the rows no cell reached get
 * contiguous blocks: a cell of 14K rows of a 3D mesh is ~15 rounds across, of a 2D mesh ~70;
 * a banded matrix of path-like rows would need thousands, and blocks suit it anyway. */
#define SPX_EHYB_VORONOI_MAX_ROUNDS 128

/* Preprocessing loops over fewer items than this run on one thread: a parallel region's
 * start and barrier cost more than the work (and far more on a loaded machine). */
#define SPX_EHYB_PARALLEL_MIN 16384

#endif
