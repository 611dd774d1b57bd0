/* src/formats/ehyb/ehyb.h: the `ehyb` format's layout (explicit-caching hybrid: METIS parts,
 * x segments cached in shared memory, 16-bit sliced ELL plus an ER part), shared by its
 * partitioner, build, CPU path and CUDA kernels. docs/formats/ehyb.md has a worked example. */
#ifndef SPX_FORMATS_EHYB_H
#define SPX_FORMATS_EHYB_H

#include <stddef.h>
#include <stdint.h>

#include "spx/spx.h"
#include "core/ctx.h"
#include "formats/ehyb/ehyb_tuning.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Lanes of a warp: the slots of one step of a slice (the kernels map lane l of a warp to slot
 * 32 * step + l). Not tunable. */
#define SPX_EHYB_WARP 32

/* The partitioners (the format's algorithms; "metis" is the default). */
typedef enum spx_ehyb_algo {
    SPX_EHYB_METIS = 0, /* METIS_PartGraphKway on the symmetrized pattern (§3.1) */
    SPX_EHYB_BFS,       /* breadth-first order of the same graph cut into equal blocks */
    SPX_EHYB_GROW,      /* greedy graph growing: each part a breadth-first ball from a seed */
    SPX_EHYB_VORONOI,   /* graph Voronoi cells of hashed seeds, data-parallel: built on the GPU too */
    SPX_EHYB_ALGO_COUNT
} spx_ehyb_algo;

/* Names of the algorithms, indexed by spx_ehyb_algo; NULL-terminated. */
extern const char *const spx_ehyb_algo_names[];

/* How rows and columns were assigned to parts. */
typedef enum spx_ehyb_split {
    SPX_EHYB_SPLIT_GRAPH = 0, /* the partitioner's parts (square matrix with edges) */
    SPX_EHYB_SPLIT_BLOCKS     /* contiguous row and column blocks: rectangular matrices, a
                                 pattern without off-diagonal edges, or a single part */
} spx_ehyb_split;

/* The device the layout is sized for: P = SMs, the shared memory one block may use. */
typedef struct spx_ehyb_target {
    int32_t sms;
    int64_t smem_per_block;
} spx_ehyb_target;

/* The layout. "new" row/column numbers are the renumbered ones (each part contiguous);
 * "original" ones are the caller's. Invariants:
 * - row_perm (m) and col_perm (n) are bijections new -> original.
 * - Part p owns new rows [row_start[p], row_start[p+1]) and new columns (its x segment)
 *   [col_start[p], col_start[p+1]); row_start[nparts] = m - n_long (the long rows follow
 *   the parts), col_start[nparts] = n; every segment is at most seg_max <= seg_cap <=
 *   SPX_EHYB_SEG_LIMIT long.
 * - Within a part, rows are in descending order of in-part entries (ell_len), ties by
 *   descending count of short ER entries (er_len, below), then by original row.
 * - Slices: a row is summed by `lanes` (G = 1, 2, 4 .. 32; the build takes at most
 *   SPX_EHYB_MAX_LANES) adjacent lanes of a warp, so a slice holds R = 32 / G rows: part p
 *   has slices [part_slice[p], part_slice[p+1]), slice j of the part holding new rows
 *   row_start[p] + R*j .. + R-1 (those below row_start[p+1]).
 *   The row at position q of its slice owns lanes q*G .. q*G + G-1; its k-th entry (in
 *   column order) is on lane q*G + k % G, step k / G: slot base + 32 * (k / G) + q*G + k % G.
 *   A lane's real entries precede its padding.
 * - ELL (in-part entries): slice s occupies slots [ell_ptr[s], ell_ptr[s+1]), 32 * width of
 *   them, width = ceil(the slice's longest ell_len / G). ell_col is the entry's offset in the
 *   part's segment (new column - col_start[p] < segment length L). Padding slots hold offset
 *   L and value 0: the kernel keeps a 0 in shared memory after the segment, so padding adds
 *   0 * 0 whatever x holds, and L marks padding for the round trip (hence L <=
 *   SPX_EHYB_SEG_LIMIT = 65535).
 * - ER (out-of-part entries of rows with 1 .. SPX_EHYB_ER_LONG_ROW - 1 of them, er_len):
 *   in the same slices and lanes as the row's ELL entries, so one lane group sums the whole
 *   row and y is written once: slice s occupies slots [er_ptr[s], er_ptr[s+1]), 32 * width,
 *   width = ceil(the slice's longest er_len / G); er_col is the original column, -1 for
 *   padding (value 0, x not read).
 * - Long rows (SPX_EHYB_ER_LONG_ROW or more out-of-part entries) are in no part and no
 *   slice: they are the new rows row_start[nparts] .. m - 1 (long_row[i] =
 *   row_perm[row_start[nparts] + i], original numbers ascending), each whole row (all its
 *   entries, original columns) at [long_ptr[i], long_ptr[i+1]) in CSR order, summed by a
 *   warp of the same launch.
 * - Within a row, ELL entries are in ascending new column order and ER entries in ascending
 *   er_col order. ELL + ER + long = A exactly (values rounded for fp32).
 * - Values are float or double per precision (ell_val, er_val, long_val).
 * - plan_order (the paper's setting, vectors kept renumbered: SPX_ORDER_PLAN): x and y are in
 *   the new numbering, so the kernels read neither permutation. Only for a square matrix
 *   without long rows (rows and columns then share the parts); then col_perm == row_perm,
 *   col_start == row_start, and
 *   er_col holds new column numbers (caller's order: original ones). */
typedef struct spx_ehyb_fmt {
    int32_t m, n;
    int64_t nnz;
    spx_precision precision;
    spx_ehyb_algo algo;
    spx_ehyb_split split;
    /* partition (§3.3, eq. 1-2) */
    int32_t K, P, nparts;
    int32_t seg_cap; /* longest segment the target's shared memory (and 16 bits) allow */
    int32_t blocks_per_sm; /* the kernel's shape: SPX_EHYB_BLOCKS_PER_SM or _WIDE_ (ehyb_tuning.h) */
    int32_t seg_max; /* longest segment of this layout (the kernel's shared memory) */
    int32_t *row_start, *col_start; /* nparts + 1 each */
    int32_t *row_perm, *col_perm;   /* m, n */
    int32_t plan_order;             /* 1: x and y in the new numbering (see above) */
    int32_t lanes;        /* G: lanes per row; a slice holds 32 / G rows */
    /* slices: in-part entries (ELL) */
    int32_t n_ell_slices;
    int64_t ell_slots;
    int32_t *part_slice; /* nparts + 1 */
    int64_t *ell_ptr;    /* n_ell_slices + 1 */
    uint16_t *ell_col;   /* ell_slots */
    void *ell_val;       /* ell_slots */
    /* the same slices' out-of-part entries of rows with few of them (ER) */
    int32_t n_er_rows; /* rows with short ER entries */
    int64_t er_slots;
    int64_t *er_ptr; /* n_ell_slices + 1 */
    int32_t *er_col; /* er_slots */
    void *er_val;    /* er_slots */
    /* long rows, whole */
    int32_t n_long;
    int64_t long_nnz;
    int32_t *long_row;  /* n_long */
    int64_t *long_ptr;  /* n_long + 1 */
    int32_t *long_col;  /* long_nnz */
    void *long_val;     /* long_nnz */
    /* figures for the stats */
    int64_t ell_nnz, er_nnz; /* entries in ELL and ER slots (long rows' are long_nnz) */
    int64_t out_nnz;         /* entries outside their row's part, long rows' included */
    int64_t edge_cut;        /* the partitioner's cut (undirected edges between parts) */
} spx_ehyb_fmt;

/* One array of the layout: the address of its pointer field and its size in bytes. */
typedef struct spx_ehyb_array {
    void **ptr;
    size_t bytes;
} spx_ehyb_array;

#define SPX_EHYB_N_ARRAYS 15

/* Lists F's arrays with their sizes from F's counts (upload, download and free walk it). */
void spx_ehyb_fmt_arrays(spx_ehyb_fmt *F, spx_ehyb_array out[SPX_EHYB_N_ARRAYS]);

/* Rows of one slice: 32 / lanes. */
static inline int32_t spx_ehyb_slice_rows(const spx_ehyb_fmt *F) { return SPX_EHYB_WARP / F->lanes; }

/* The slots of a slice (ELL or ER) whose longest row there has len entries: 32 x ceil(len / G). */
static inline int64_t spx_ehyb_slice_slots(const spx_ehyb_fmt *F, int64_t len)
{
    return SPX_EHYB_WARP * ((len + F->lanes - 1) / F->lanes);
}

/* The slot of the k-th entry of the row at position q of a slice whose ELL or ER slots start
 * at base (the layout rule above). */
static inline int64_t spx_ehyb_slot(const spx_ehyb_fmt *F, int64_t base, int32_t q, int64_t k)
{
    return base + SPX_EHYB_WARP * (k / F->lanes) + (int64_t)q * F->lanes + k % F->lanes;
}

/* Value bytes of the layout's precision. */
static inline size_t spx_ehyb_vbytes(const spx_ehyb_fmt *F) { return F->precision == SPX_FP32 ? 4 : 8; }

/* The parts of a matrix: for each original row and column its part, and the counts. */
typedef struct spx_ehyb_parts {
    int32_t K, P, nparts, seg_cap;
    int32_t blocks_per_sm; /* the shape the segments were sized for */
    spx_ehyb_split split;
    int64_t edge_cut;
    int32_t *row_part; /* m */
    int32_t *col_part; /* n (the same array as row_part for a graph split) */
} spx_ehyb_parts;

/* The longest x segment (elements) a block may cache on target in prec, blocks_per_sm blocks
 * sharing an SM. */
int32_t spx_ehyb_seg_cap(const spx_ehyb_target *t, spx_precision prec, int32_t blocks_per_sm);
/* Threads of one slice-kernel block in the shape of blocks_per_sm blocks an SM. */
static inline int32_t spx_ehyb_block_threads(int32_t blocks_per_sm) { return SPX_EHYB_SM_THREADS / blocks_per_sm; }

/* The mean cell size (rows) of the voronoi partitioner for n rows that part_count would cut
 * into nparts parts of at most seg_cap: n / nparts, at most SPX_EHYB_VORONOI_FILL_PCT % of
 * seg_cap, at least 1. */
int32_t spx_ehyb_voronoi_mean(int32_t n, int32_t nparts, int32_t seg_cap);
/* The voronoi partitioner (ehyb_voronoi.h's rules) on square A's pattern: part[v] for every
 * row, numbered densely 0 .. *nparts - 1 in ascending label order (not yet split to seg_cap). */
spx_status spx_ehyb_voronoi_parts(spx_ctx *ctx, const spx_csr *A, int32_t mean, int32_t *part, int32_t *nparts);

/* The part sizing of an m x n matrix of nnz entries on target in prec (§3.3, eq. 1-2): K, P,
 * the part count before any split, seg_cap, the shape, and whether the graph split applies
 * (square, more than one part, entries); no arrays. */
void spx_ehyb_parts_shape(int32_t m, int32_t n, int64_t nnz, const spx_ehyb_target *tg, spx_precision prec,
                          spx_ehyb_parts *R);
/* Assigns every row and column of A to a part (§3.1, §3.3): K x P parts sized so that a
 * part's segment fits seg_cap, by algo or the block fallback; parts longer than seg_cap are
 * split. Adds the "graph" and "partition" phases' seconds to *t_graph, *t_part. */
spx_status spx_ehyb_partition(spx_ctx *ctx, const spx_csr *A, spx_ehyb_algo algo, const spx_ehyb_target *tg,
                              spx_precision prec, spx_ehyb_parts *out, double *t_graph, double *t_part);
void spx_ehyb_parts_free(spx_ctx *ctx, spx_ehyb_parts *P);

/* Builds the layout of A from its parts (renumbering, in-part row sort, ELL and ER); in plan
 * order when want_plan_order and the layout allows it (F->plan_order says which). */
spx_status spx_ehyb_fmt_build(spx_ctx *ctx, const spx_csr *A, const spx_ehyb_parts *parts, spx_precision prec,
                              spx_ehyb_algo algo, int want_plan_order, spx_ehyb_fmt **out);
/* Lanes per row of an m-row matrix with mean row length `mean` on a device of P block slots
 * of `threads` each: the smallest power of two >= mean / SPX_EHYB_NZ_PER_LANE, from 1 to
 * SPX_EHYB_MAX_LANES, but no more than keeps m x G within SPX_EHYB_LANE_WAVES times the lanes
 * the device holds (P x threads). */
int32_t spx_ehyb_lanes_per_row(int32_t m, double mean, int32_t P, int32_t threads);
/* Whether a layout can run in plan order: a square matrix (its rows and columns then share the
 * parts: the graph's, or the same contiguous blocks) with no long row. Shared by both builds. */
int spx_ehyb_plan_order_fits(int32_t m, int32_t n, int64_t long_nnz);
/* The layout's statistics (spx info --format ehyb) from its counts alone: host or device layout. */
struct spx_stat_list;
void spx_ehyb_fmt_stats(const spx_ehyb_fmt *F, struct spx_stat_list *l);
/* A device layout (the GPU state of spx_ehyb_cuda()'s upload and build begins with one: the
 * counts with device arrays) downloaded into a new host layout: the GPU round trip, the tests. */
spx_status spx_ehyb_dev_download(spx_ctx *ctx, const spx_ehyb_fmt *L, spx_ehyb_fmt **out);
/* Frees the host layout (NULL accepted). */
void spx_ehyb_fmt_destroy(spx_ctx *ctx, spx_ehyb_fmt *F);
/* The layout back to a library CSR in original numbering (fp32 values widened). */
spx_status spx_ehyb_fmt_to_csr(spx_ctx *ctx, const spx_ehyb_fmt *F, spx_csr **out);
/* Checks the invariants above (the tests call it); SPX_ERR_VERIFY with the first breach. */
spx_status spx_ehyb_fmt_check(spx_ctx *ctx, const spx_ehyb_fmt *F);
/* Minimum bytes of one SpMV with b = 0 on this layout (what the CUDA kernels read and write). */
double spx_ehyb_fmt_bytes(const spx_ehyb_fmt *F);
/* y = a*A*x + b*y on the host layout: OpenMP over parts (each row's ELL and ER entries, lane
 * by lane as the GPU sums them), then the long rows. */
spx_status spx_ehyb_fmt_spmv_cpu(spx_ctx *ctx, const spx_ehyb_fmt *F, spx_precision prec, double a, const void *x,
                                 double b, void *y);

#ifdef __cplusplus
}
#endif
#endif
