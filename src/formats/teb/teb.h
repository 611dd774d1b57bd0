/* src/formats/teb/teb.h: the `teb` format (threshold-exchange-order blocks, Wang et al., JFCST
 * 2023): its layout, shared by the CPU path and the CUDA kernels, and the selection and merge
 * it is built by (docs/formats/teb.md). */
#ifndef SPX_FORMATS_TEB_H
#define SPX_FORMATS_TEB_H

#include <stdint.h>
#include "spx/spx.h"
#include "core/phase.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The algorithms (CUDA kernels; the CPU runs one loop over blocks for all of them). */
typedef enum spx_teb_algo {
    SPX_TEB_AUTO = 0,
    SPX_TEB_THREAD,    /* the paper's Algorithm 3: one thread per row of the block */
    SPX_TEB_WARP_LONG, /* a block's long rows get a warp (or several) each, then a thread a row */
    SPX_TEB_ALGO_COUNT
} spx_teb_algo;

/* Names of the algorithms, indexed by spx_teb_algo; NULL-terminated. */
extern const char *const spx_teb_algo_names[];

/* The row-length histogram the selection runs on: the d distinct nonzero row lengths in
 * descending order, with how many rows have each (empty rows are not counted). */
typedef struct spx_teb_hist {
    int64_t d;
    int64_t *len; /* d, strictly descending, > 0 */
    int64_t *cnt; /* d, > 0 */
    int64_t rows; /* sum of cnt: the non-empty rows */
    int64_t nnz;  /* sum of len * cnt */
} spx_teb_hist;

/* What the selection chose (or what a caller forced: bln and k only). */
typedef struct spx_teb_choice {
    int64_t bln;          /* block count bLN */
    double k;             /* Threshold = NNZ / bLN * k (eq. 3-4) */
    double threshold;
    double var;           /* S^2 of the blocks' nonzero counts (eq. 5) */
    int64_t bln_critical; /* eq. 7 on the critical grid; 0 = never held */
    int64_t bln_lo, bln_hi; /* the candidate range (teb_tuning.h) */
    int n_candidates;     /* block counts evaluated, critical grid included */
    int64_t steps;        /* simulation steps over all candidates: the selection's cost */
} spx_teb_choice;

/* Invariants: nnz <= INT32_MAX (int32 offsets, as the csr format). Rows are stored in the
 * merge's order: reordered row r is original row row_orig[r] (a permutation of 0..m-1) and
 * holds nonzeros [row_off[r], row_off[r+1]) of colind/val (row_off[0] = 0, non-decreasing,
 * row_off[m] = nnz; columns sorted within a row as in the source). Block b holds reordered
 * rows [blk_row[b], blk_row[b+1]) (blk_row[0] = 0, non-decreasing, blk_row[n_blocks] = m):
 * first its long rows (length >= SPX_TEB_LONG_ROW) up to blk_long[b], then its short
 * non-empty rows, then its share of the empty rows. A block's nonzeros stay within
 * floor(threshold) unless its first row alone exceeds it (the paper's last block, which takes
 * every row still left, is split further: overflow_blocks more blocks). n_blocks =
 * choice.bln + overflow_blocks >= 1 when m > 0, 0 when m = 0.
 * Exactly one of val64 / val32 is set, matching precision; algo is never AUTO after build. */
typedef struct spx_teb_fmt {
    int32_t m, n;
    int64_t nnz;
    spx_precision precision;
    spx_teb_algo algo;
    int32_t n_blocks;
    int64_t overflow_blocks; /* blocks beyond choice.bln holding the rows Algorithm 2 left */
    int32_t *blk_row;  /* n_blocks + 1 (Blo_Idx) */
    int32_t *blk_long; /* n_blocks */
    int32_t *row_off;  /* m + 1 (RowNNZ_Sum) */
    int32_t *row_orig; /* m */
    int32_t *colind;   /* nnz (Col_Idx) */
    double *val64;     /* nnz (Values) */
    float *val32;
    spx_teb_choice choice;
    int64_t max_row, empty_rows, long_rows;
    int64_t block_max; /* the largest block's nonzeros */
    double block_var;  /* S^2 of the blocks' nonzeros, from the layout (= choice.var) */
    double eq_var;     /* S^2 of a plain split into bLN blocks of equal rows */
    int64_t eq_max;    /* ... and its largest block */
} spx_teb_fmt;

/* ---- selection (teb_select.c) ---------------------------------------------------------- */

/* Threshold (eq. 3-4): NNZ / bLN * k; a row joins a block while sum + len <= floor of it. */
double spx_teb_threshold(int64_t nnz, int64_t bln, double k);
/* S^2 (eq. 5) of the blocks Algorithm 2 forms with bln and k, from the histogram alone in
 * O(d + bln): rem is scratch of h->d entries; *steps grows by the work done. */
double spx_teb_simulate(const spx_teb_hist *h, int64_t bln, double k, int64_t *rem, int64_t *steps);
/* The decision tree (Fig. 11): k for bln given bLN_critical (0: eq. 7 never held). */
double spx_teb_k_for(int64_t nnz, int64_t bln, int64_t bln_critical);
/* The candidate range of block counts for this histogram (teb_tuning.h's GPU bounds). */
void spx_teb_range(const spx_teb_hist *h, int64_t *lo, int64_t *hi);
/* Algorithm 1 and the bLN search: bLN_critical on a geometric grid, then the bLN of least
 * S^2 among the candidates eq. 10 keeps; parallel over candidates with threads threads. */
spx_status spx_teb_select(spx_ctx *ctx, const spx_teb_hist *h, int threads, spx_teb_choice *out);

/* ---- layout (teb_build.c) -------------------------------------------------------------- */

/* Counting sort of the rows by length, descending, ties by index (stable), empty rows last:
 * ord (m entries, caller's) gets the order; *h the histogram (free with spx_teb_hist_free). */
spx_status spx_teb_sort_rows(spx_ctx *ctx, const int64_t *rowptr, int32_t m, int32_t *ord, spx_teb_hist *h);
void spx_teb_hist_free(spx_ctx *ctx, spx_teb_hist *h);
/* Builds the layout of A (phases "select", "merge", "convert" into log, which may be NULL);
 * force (NULL: select) fixes bln and k, as in the paper's worked example. */
spx_status spx_teb_fmt_build(spx_ctx *ctx, const spx_csr *A, spx_precision prec, const char *algo,
                             const spx_teb_choice *force, spx_phase_log *log, spx_teb_fmt **out);
void spx_teb_fmt_destroy(spx_ctx *ctx, spx_teb_fmt *F);
/* Reordered arrays (one of val64 / val32 set) back to a library CSR in the original order;
 * shared by the host layout's and the GPU's round trip. */
spx_status spx_teb_arrays_to_csr(spx_ctx *ctx, int32_t m, int32_t n, int64_t nnz, const int32_t *row_off,
                                 const int32_t *row_orig, const int32_t *colind, const double *val64,
                                 const float *val32, spx_csr **out);
/* Minimum bytes of one SpMV with b = 0 on a layout of these sizes. */
double spx_teb_bytes(int64_t m, int64_t n, int64_t nnz, int64_t n_blocks, spx_precision prec);
/* y = a*A*x + b*y on the host layout: OpenMP over blocks. */
spx_status spx_teb_fmt_spmv_cpu(spx_ctx *ctx, const spx_teb_fmt *F, spx_precision prec, double a, const void *x,
                                double b, void *y);
/* Y = a*A*X + b*Y on the host layout (src/spmv/format.h's spx_spmm_args): the SpMV's blocks, a
 * row of Y at a time. */
struct spx_spmm_args;
spx_status spx_teb_fmt_spmm_cpu(spx_ctx *ctx, const spx_teb_fmt *F, const struct spx_spmm_args *a);

#ifdef __cplusplus
}
#endif
#endif
