/* src/spgemm/spx/spx_dense_panel.h: ApSpGEMM's dense panels (§4.2, §5.1 "DGEMM" and "SpMM")
 * in the spx GPU SpGEMM. A row of A is dense when nnz / k > P, a row of B when nnz / n > P
 * (SPX_GPU_DENSE_ROW_P). The panels' rows of A are its dense rows (Ad: dense x dense) and,
 * beside them, its sparse rows whose products in B's dense rows pay for a row of G (the
 * sparse x dense panel, Fig. 6: such a row's products stand for more than the 2 n values its
 * row of G moves, at SPX_GPU_PANEL_PRODUCT_BYTES each; any such products under algorithm
 * "dense"). Their entries in B's dense rows form a block A_dd (panel rows x |Bd|, stored
 * dense); G = A_dd * B_d (B's dense rows stored dense, |Bd| x n) is one cuBLAS GEMM, row-major
 * (panel rows) x n: its tiles hold each piece of a B_d row in shared memory once for all the
 * rows of the tile, Fig. 6's sharing of a dense column's B row. The sparse kernels then skip
 * exactly those products (the dense fallback's numeric walk, to which panel rows are binned;
 * the marking walk still visits them, for C's structure) and G is added into C's panel rows
 * at their columns. Sparse rows whose Bd products are fewer stay on the sparse path whole: a
 * row of G is n values whatever the row. Plans that count C's rows (in-core, and the
 * out-of-core panels' GPU side when it counts them, by the cost rule); not those given C's
 * row pointers. */
#ifndef SPX_SPGEMM_SPX_DENSE_PANEL_H
#define SPX_SPGEMM_SPX_DENSE_PANEL_H

#include "spgemm/spgemm_dev.cuh"
#include "spgemm/spx/spx_tuning.h"

/* Whether a plan takes dense panels: by the cost rule, never, or whenever they exist and fit. */
typedef enum spx_gpu_panel_mode { SPX_GPU_PANELS_AUTO, SPX_GPU_PANELS_OFF, SPX_GPU_PANELS_FORCE } spx_gpu_panel_mode;

/* What the survey of A and B found (spx_gpu_panels_plan). */
typedef struct spx_gpu_panel_survey {
    unsigned long long rows_a, rows_b;       /* |Ad|, |Bd| */
    unsigned long long rows_sparse;          /* A's sparse rows past the bar in B's dense rows */
    unsigned long long sparse_nnz;           /* their entries in B's dense rows */
    unsigned long long sparse_products;      /* the products those stand for */
    unsigned long long block_nnz;            /* entries of A_dd: Ad's, and the sparse rows' once taken */
    unsigned long long block_products;       /* the products they stand for (sum of their B rows) */
} spx_gpu_panel_survey;

/* A plan's dense panels; on false: none (the thresholds INT32_MAX, nothing allocated). */
typedef struct spx_gpu_panels {
    bool on;
    int32_t a_min, b_min;       /* rows of A / B longer than these are dense */
    int32_t rows_a, rows_b;     /* panel rows of A (|Ad| + rows_sparse), |Bd| */
    int32_t rows_sparse;        /* the sparse ones among them (last in d_rows_a) */
    spx_gpu_panel_survey survey;
    void *d_list;               /* device block: the survey's counts, a counter, the panel rows */
    spx_gpu_panel_survey *d_survey;
    unsigned long long *d_counter;
    int32_t *d_rows_a;          /* rows_a: A's panel rows (G's row r is A's row d_rows_a[r]) */
    void *d_block;              /* device block: the rows' places, B's dense rows, A_dd, B_d, G */
    int32_t *d_pos_a;           /* m: an A row's place in d_rows_a, -1 when not a panel row */
    int32_t *d_rows_b;          /* |Bd|: B's dense rows */
    int32_t *d_pos_b;           /* k: a B row's place in d_rows_b, -1 when not dense */
    void *d_a, *d_b, *d_g;      /* A_dd (rows_a x |Bd|), B_d (|Bd| x n), G (rows_a x n), row-major */
} spx_gpu_panels;

/* The longest row of a matrix of `cols` columns that is not dense (nnz / cols <= P): the one
 * rule of the pre-analysis's count and the survey (whose rows the binning and the kernels'
 * skips follow, through d_pos_a and b_min). */
static inline int32_t spx_gpu_dense_min(int64_t cols)
{
    return (int32_t)(SPX_GPU_DENSE_ROW_P * (double)cols);
}

/* Lanes a row for a walk of A's rows (the pre-analysis's, the panels' survey): the mean row
 * length (nnz / m, rounded up) as a power of two, from least up to a warp. */
static inline int spx_gpu_row_lanes(int64_t nnz, int64_t m, int least)
{
    const int64_t mean = m ? (nnz + m - 1) / m : 1;
    int L = least;
    while (L < 32 && L < mean) L *= 2;
    return L;
}

/* No dense panels (thresholds INT32_MAX). */
void spx_gpu_panels_none(spx_gpu_panels *P);

/* Surveys A's dense rows, B's and A's sparse rows reaching them (on the device; two
 * downloads; row_products, on the device, each row's products in all of B: a sparse row with
 * no more of them than the bar is not walked; NULL: every sparse row is), decides by mode
 * (AUTO: the bytes the panels move against the products they take off the sparse path; never
 * more than room bytes of device memory nor SPX_GPU_PANEL_MAX_BYTES) and, when taken, makes
 * the context's cuBLAS handle, allocates the panels' block and lists B's dense rows and the
 * panel rows' places. P->on says the outcome. The panels are optional: a refused device
 * allocation (or cuBLAS handle) leaves them off and returns SPX_OK. cuBLAS's own workspace is
 * cuBLAS's allocation, outside the context's device accounting. */
spx_status spx_gpu_panels_plan(spx_ctx *ctx, const spx_spgemm_operands *ops, const int64_t *row_products, int32_t m,
                               int32_t k, int32_t n, spx_precision prec, spx_gpu_panel_mode mode, size_t room,
                               spx_gpu_panels *P);

/* Queues G = A_dd * B_d on the context's stream from the operands' current values. */
spx_status spx_gpu_panels_multiply(spx_ctx *ctx, const spx_gpu_panels *P, const spx_spgemm_operands *ops, int32_t n,
                                   spx_precision prec);

/* Queues C's dense rows += G at their columns (crow, cci: C on the device, cv its values). */
spx_status spx_gpu_panels_add(spx_ctx *ctx, const spx_gpu_panels *P, int32_t n, spx_precision prec,
                              const int64_t *crow, const int32_t *cci, void *cv);

/* Frees the panels' block (the context's stream waited for first by the caller). */
void spx_gpu_panels_free(spx_ctx *ctx, spx_gpu_panels *P);

#endif
