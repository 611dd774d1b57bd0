/* src/spgemm/ooc/ooc_tuning.h: the out-of-core SpGEMM's constants, each with its source. None
 * is measured on the GPU machine yet: the first GPU run should check them (docs/spgemm.md,
 * "Beyond GPU memory"). */
#ifndef SPX_SPGEMM_OOC_TUNING_H
#define SPX_SPGEMM_OOC_TUNING_H

/* Device bytes of the spx GPU SpGEMM per row of a panel beside A's and C's arrays: A's int32
 * row pointer (4) and its int64 upload staging (8), C's int64 row counts / pointers (8), the
 * products per row (8), the column ranges (8), the symbolic and numeric row lists (4 + 4):
 * src/spgemm/spx/spx_gpu.cu and src/matrix/dev_csr_cuda.cu, counted as if all were held at once
 * (they are not: an upper bound; with the CPU's row pointers given, analyse_rows, the
 * products, ranges and the symbolic row list are not held at all). */
#define SPX_OOC_DEV_BYTES_PER_ROW 44
/* Device bytes a panel's computation holds beside its arrays: the binning statistics (41 bins
 * of counts, sums, maxima and cursors) and CUB's scan scratch: both a few kB; 1 MiB leaves
 * room (an upper bound, not measured). */
#define SPX_OOC_DEV_FIXED_BYTES (1u << 20)
/* A row of A*B with more products than this may not fit a shared-memory hash table (H100/H200:
 * 227 kB a block, 2 slots of 4 + 8 bytes a key in fp64: ~9.6k keys; 8192 is the power of two
 * below; the products bound both the symbolic table and C's row), so the GPU may take a
 * fallback: one n-wide accumulator (column marks and values) is then reserved for every lane.
 * Only the global fallback (n wider than the dense fallback's bitmap, ~1.2M columns) uses
 * it; the dense one holds only its split rows' workspace (n / 4 bytes and a list of
 * nnz(A) / 32768 rows, inside SPX_OOC_DEV_FIXED_BYTES): the reserve is an upper bound. */
#define SPX_OOC_SHARED_ROW_MAX 8192
/* When B does not fit the budget resident, it is split by columns and each GPU lane keeps
 * this share of its room (its budget less the fixed workspace) for one block of B, the
 * blocks made the fewest (halving their nonzeros) that fit it; the rest is the panels'. Every
 * GPU panel reads all of B, block by block, so larger panels (a smaller share) mean fewer
 * uploads of B, and smaller blocks more launches per panel. A fixed share keeps the panels'
 * room growing with the budget. 4: a guess, not measured. */
#define SPX_OOC_B_BLOCK_SHARE 4
/* Without a device budget (none set, no device) the panels still split the work: at least
 * this many panels of about equal products, so that the two sides can share and steal (the
 * paper's panels are its 4.2 splitting's; 16 is a guess: a wrong K costs at most a panel). */
#define SPX_OOC_MIN_PANELS 16
/* When neither the options nor the context give a device budget: the device's free memory
 * less this share, left for the CUDA runtime's own allocations and fragmentation (a guess). */
#define SPX_OOC_FREE_RESERVE 0.05
/* K's plan-time sample: the first rows of the median-affinity panel, up to this fraction of
 * its products (at least one row): the GPU runs it twice (the first warms it up), the CPU
 * once. Smaller samples time launch latency more than work. A guess. */
#define SPX_OOC_SAMPLE_FRACTION 0.25
/* The GPU share R when K cannot be measured (a sample without products): ApSpGEMM §6.4 found
 * R = 0.60-0.65 best on its two machines. */
#define SPX_OOC_DEFAULT_GPU_SHARE 0.6
/* GPU lanes: host threads each driving a context and stream of its own, each with a panel in
 * flight, so that one lane's upload or download runs while another's kernels do (ApSpGEMM
 * Fig. 9's overlap of the upload of panel i+1, the compute of panel i and the download of
 * panel i-1, by panels in flight rather than by phases). Every panel is sized to its lane's
 * share of the budget beside B, whatever the split, so that hetero, GPU-only and CPU-only runs
 * compute the same panels. 2: a panel's transfers beside another's compute (the copy engines,
 * one per direction, would allow 3). Not measured. The lanes share the context's host threads:
 * they copy their large transfers through the staging ring (src/cuda/staged_copy.cu; H200
 * machine, 2026-11-26, hetero R-MAT 18 in 512 MiB: 8 threads a lane 0.548 s, 4 threads 0.602 s,
 * beside the CPU side's team). */
#define SPX_OOC_GPU_LANES 2
/* In hetero runs the CPU side's team has the context's threads divided by this. Every byte of
 * C that a GPU panel makes crosses host memory three times (DMA into the staging ring, read,
 * written into C), so the CPU's panels slow the GPU's transfers: H200 machine (16 cores),
 * 2026-11-26, 512 MiB, two runs each, hetero run s with a CPU team of 14 (threads less the
 * lanes, before) / 8 / 4 threads: poisson3d n=150 0.136-0.151 / 0.133-0.146 / 0.151-0.162,
 * R-MAT 16 0.185-0.195 / 0.177-0.184 / 0.152-0.165, R-MAT 18 0.553-0.565 / 0.482-0.490 /
 * 0.477-0.522; GPU-only in the same run 0.149-0.161, 0.156-0.162, 0.385-0.408. */
#define SPX_OOC_HETERO_CPU_THREADS_DIV 2
/* ... unless the GPU's planned share R is below this: then the GPU's panels move little over
 * the host's memory, and the CPU side's team is all the context's threads but one a GPU lane.
 * With B in column blocks the GPU side is slow (K 0.036 on uniform 20000 x 40 under 6 MiB,
 * H100, 2026-11-27) and the half team made hetero lose to the CPU alone: 0.121 s against
 * 0.083 s. 0.25: a guess between those runs and the R = 0.56-0.82 of the runs above. */
#define SPX_OOC_SMALL_GPU_SHARE 0.25

#endif
