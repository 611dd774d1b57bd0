/* src/spgemm/spx/spx_gpu.cu: the spx GPU SpGEMM after ApSpGEMM (§4.1-§5.1), in the plan's
 * phases. analyse: A and B borrowed (the plan's operands on the device) or uploaded, the
 * pre-analysis kernels (products per row of C, nonzeros per column of A, rows above the
 * sparsity threshold P, the rows' column ranges) and the per-bin statistics of the products,
 * all on the device; one small download. reorder: the rows binned on the device by the table
 * they need, a hash table or, where the row's columns lie in a narrow range, a span table (the
 * paper's dynamic binning; bins in descending size, the rowind reordering), a thread-group size
 * per bin by Algorithm 2 on the host from the bins' statistics; a phase's bins run on several
 * streams. symbolic: row counts by the shared-memory kernels or a fallback (dense or global),
 * C's row pointers by a device scan (nnz(C) read back with the lengths' statistics; the dense
 * fallback's split rows, when any, listed and read back too), the dense panels decided
 * (spx_dense_panel.h), and the rows binned again by their exact length for the numeric phase
 * (queued: the plan does not wait for it). numeric: the panels' GEMM, the same kernels summing,
 * the rows written sorted, the panels' result added; into C's device arrays (exact size, kept
 * for the next run) then downloaded with its row pointers, or (numeric_dev) straight into the
 * device CSR the plan hands in. analyse_rows (the out-of-core panels): C's row pointers given
 * by the caller stand for analyse and symbolic: uploaded, then only the numeric phase's
 * binning. Every device allocation is stream-ordered (spx_cuda_malloc_async: the context's
 * memory pool on its stream, so that a warm context's call makes no cudaMalloc, cudaFree or
 * cudaMemGetInfo, each 10-100 us on an H100, and no free waits for the device) and freed on
 * every path: the plan's arrays in one block (what analyse and symbolic use stays until the
 * plan goes), C's arrays and the global fallback's accumulators on their own. */
#include <stdio.h>
#include <string.h>

#include <cub/device/device_scan.cuh>

#include "cuda/convert_kernels.cuh"
#include "spgemm/spgemm_dev.cuh"
#include "spgemm/spx/spx_dense_panel.h"
#include "spgemm/spx/spx_kernels.cuh"

/* The tuning constants' limits (spx_tuning.h). The split kernels launch without asking for
 * more than the default 48 KB of shared memory: the hot slots (an fp64 sum and a flag each)
 * and the walk's ~4.1 KB of static memory. */
static_assert(SPX_GPU_HOT_COLS >= 0 && SPX_GPU_HOT_COLS * (8 + 4) + 5 * 1024 <= 48 * 1024,
              "SPX_GPU_HOT_COLS: the split kernels' shared memory");
/* a 512-slot bin's rows (over 128 entries) never fit a warp's 128 products */
static_assert(SPX_GPU_WARP_MAX_SLOTS <= 256, "SPX_GPU_WARP_MAX_SLOTS: at most 4 products a lane");
/* the row kernel's bitmap is whole 32-bit words: slots * COLS / 32 of them cover slots * COLS */
static_assert(SPX_GPU_BITMAP_COLS_PER_SLOT >= 0 && SPX_GPU_BITMAP_COLS_PER_SLOT % 32 == 0,
              "SPX_GPU_BITMAP_COLS_PER_SLOT: a multiple of 32 (0: no bitmaps)");

/* One launch: rows [first, first + count) of a row list, their table and thread groups. */
typedef struct gpu_bin {
    int32_t first, count;
    int slots;        /* hash table slots per row, or span table columns (span); 0: the fallback */
    bool span;        /* the rows take span tables (spx_spgemm_span_kernel) */
    bool bits;        /* the rows' hash tables are read out by a bitmap of their range (numeric) */
    int group, sub;   /* lanes per row (Algorithm 2), lanes per B row within it */
    int groups;       /* row groups per block */
    size_t smem;      /* dynamic shared memory per block */
    unsigned grid;
    int64_t work_max; /* the bin's largest bound (products or length) */
} gpu_bin;

/* A row list (the binned order) and its launches. */
typedef struct gpu_bins {
    int32_t *d_rows; /* device, the rows with work, bin after bin */
    int n;
    gpu_bin bin[SPX_GPU_BINS];
} gpu_bins;

typedef struct gpu_state {
    spx_spgemm_operands ops;
    spx_precision prec;
    int32_t m, k, n;
    double avg_b_row;  /* B's nonzeros per row: lanes per B row */
    void *d_keep;      /* device block of the plan's arrays (d_crow .. d_scan: keep_layout) */
    void *d_split;     /* device block of the split rows' workspace (split_workspace), NULL none */
    int2 *h_split;     /* host: the split rows of the last dense launch (row, entries of A) */
    int num_split;     /* the numeric bins' split rows, listed in h_split; -1: not listed yet */
    int num_hot;       /* the split rows' hot columns (split_ws), -1: not surveyed yet */
    int64_t *d_crow;   /* keep, m + 1: symbolic counts, then C's row pointers */
    spx_gpu_bin_stats *d_stats; /* keep: the binning kernels' statistics and cursors */
    unsigned int *d_ticket;     /* keep: the dense fallback's next row */
    int2 *d_range;     /* keep, m: the rows' column ranges for span tables (NULL when C's row
                          pointers were given: no pre-analysis, no span tables) */
    int32_t *d_num_rows;        /* keep, m: the numeric phase's row list */
    int64_t *d_prod;   /* temp (analyse and symbolic), m: products per row of C */
    int32_t *d_colcnt; /* temp, k: A's column counts */
    int32_t *d_sym_rows;        /* temp, m: the symbolic phase's row list */
    void *d_scan;      /* temp: the scan of the counts' scratch, scan_bytes */
    size_t scan_bytes;
    int32_t *d_cci;    /* device, nnz(C): C's columns and values, from the first run on */
    void *d_cv;
    spx_gpu_bin_stats sym;      /* host: the products' statistics (analyse), for the symbolic bins */
    gpu_bins num;      /* the numeric phase's bins (by exact row length) */
    int64_t span_rows; /* rows in span bins, symbolic and numeric (for the kernel's name) */
    int64_t bits_rows; /* rows in bitmap bins (numeric; for the kernel's name) */
    int64_t nnz_c, dense_rows, dense_cols; /* the §4.2 counts: kept for the plan's state, not reported yet */
    int64_t products;  /* the pre-analysis's total (0 when C's row pointers were given) */
    spx_gpu_panel_mode panel_mode; /* from the algorithm: default (the cost rule), sparse, dense */
    spx_gpu_panels panels;         /* the dense panels (spx_dense_panel.h) */
    /* the bins' side streams (the context's, lent) and the plan's fork and join events
     * (SPX_GPU_BIN_STREAMS - 1 each, had by the first phase with several bins; sides 0: none
     * had, or none could be: one stream) */
    cudaStream_t side[SPX_GPU_BIN_STREAMS];
    cudaStream_t stream; /* the context's stream the plan's last work was queued on */
    cudaEvent_t fork, join[SPX_GPU_BIN_STREAMS];
    int sides;
    int sm_count, max_threads_sm;
    size_t smem_limit; /* dynamic shared memory a block may have */
    char kernel[64];
} gpu_state;

static int64_t pow2_at_least(int64_t x)
{
    int64_t c = 1;
    while (c < x) c <<= 1;
    return c;
}

static int pow2_at_most(int64_t x)
{
    int c = 1;
    while ((int64_t)c * 2 <= x && c < (1 << 30)) c <<= 1;
    return c;
}

/* Lanes that stride one B row: B's mean row length rounded to a power of two, 1 to cap. */
static int b_row_lanes(const gpu_state *S, int cap)
{
    const int lanes = (int)pow2_at_least((int64_t)(S->avg_b_row + 0.5));
    return lanes < 1 ? 1 : lanes > cap ? cap : lanes;
}

static size_t value_bytes(const gpu_state *S, int numeric) { return numeric ? spx_precision_bytes(S->prec) : 0; }

/* Shared bytes of one row group with a hash table of `slots` slots. */
static size_t group_bytes(const gpu_state *S, int numeric, int slots)
{
    return (size_t)slots * (sizeof(int32_t) + value_bytes(S, numeric)) + sizeof(int);
}

/* The same with the bitmap of SPX_GPU_BITMAP_COLS_PER_SLOT columns a slot. */
static size_t bits_group_bytes(const gpu_state *S, int numeric, int slots)
{
    return group_bytes(S, numeric, slots) + (size_t)slots * SPX_GPU_BITMAP_COLS_PER_SLOT / 8;
}

/* Shared bytes of one row group of bin b (hash table, with a bitmap or not, or span table). */
static size_t bin_group_bytes(const gpu_state *S, int numeric, const gpu_bin *b)
{
    const int vbytes = (int)value_bytes(S, numeric);
    return b->span   ? spx_gpu_span_group_bytes(b->slots, vbytes)
           : b->bits ? bits_group_bytes(S, numeric, b->slots)
                     : group_bytes(S, numeric, b->slots);
}

/* Shared bytes of the dense fallback's block: n bits, and in numeric a rank per 64-bit word. */
static size_t dense_bytes(const gpu_state *S, int numeric)
{
    const size_t words = ((size_t)S->n + 63) / 64;
    return words * (sizeof(unsigned long long) + (numeric ? sizeof(int32_t) : 0));
}

/* Whether the dense fallback takes the rows whose table does not fit (n bits fit a block). */
static int dense_fits(const gpu_state *S, int numeric)
{
    const size_t reserve = sizeof(spx_gpu_dense_scan_t::TempStorage) + sizeof(spx_gpu_dense_shared) + 64; /* static */
    return SPX_GPU_DENSE_FALLBACK && S->smem_limit > reserve && dense_bytes(S, numeric) <= S->smem_limit - reserve;
}

/* The smallest table that goes to the dense fallback though shared memory holds it; 0: none. */
static int64_t dense_from_slots(const gpu_state *S, int numeric)
{
    if (!SPX_GPU_DENSE_TABLE_DIV || !dense_fits(S, numeric)) return 0;
    const int64_t by_n = S->n / SPX_GPU_DENSE_TABLE_DIV;
    return by_n > SPX_GPU_DENSE_MIN_TABLE ? by_n : SPX_GPU_DENSE_MIN_TABLE;
}

/* The largest table (a power of two, at most 2^24 slots) one row group may have in shared
 * memory (below dense_from_slots); 0 when not even SPX_GPU_MIN_SLOTS fit. A row's bin
 * (spx_gpu_bin_of) compares its table with it: a larger one is the fallback bin's. */
static int64_t fit_slots(const gpu_state *S, int numeric)
{
    const int64_t dense_from = dense_from_slots(S, numeric);
    int64_t fit = 0;
    for (int64_t s = SPX_GPU_MIN_SLOTS; s <= (1 << 24) && group_bytes(S, numeric, (int)s) <= S->smem_limit; s <<= 1) {
        if (dense_from && s >= dense_from) break;
        fit = s;
    }
    return fit;
}

/* The largest span table (columns, SPX_GPU_SPAN_MIN_COLS << c) one row group may have in
 * shared memory; 0 without the rows' ranges. */
static int64_t fit_cols(const gpu_state *S, int numeric)
{
    int64_t fit = 0;
    for (int c = 0; S->d_range && c < SPX_GPU_TABLE_CLASSES; c++) {
        const int64_t cols = (int64_t)SPX_GPU_SPAN_MIN_COLS << c;
        if (spx_gpu_span_group_bytes(cols, (int)value_bytes(S, numeric)) > S->smem_limit) break;
        fit = cols;
    }
    return fit;
}

/* The largest hash table with its bitmap (numeric, the rows' ranges known) one row group may
 * have in shared memory, at most fit_slots; 0: no bitmaps. */
static int64_t fit_bits_slots(const gpu_state *S, int numeric)
{
    const int64_t most = SPX_GPU_BITMAP_COLS_PER_SLOT && numeric && S->d_range ? fit_slots(S, numeric) : 0;
    int64_t fit = 0;
    for (int64_t s = SPX_GPU_MIN_SLOTS; s <= most && bits_group_bytes(S, numeric, (int)s) <= S->smem_limit; s <<= 1)
        fit = s;
    return fit;
}

/* The binning rule of the symbolic (numeric 0) or numeric phase. */
static spx_gpu_bin_rule bin_rule(const gpu_state *S, int numeric)
{
    spx_gpu_bin_rule r;
    r.n = S->n, r.fit_slots = fit_slots(S, numeric), r.fit_cols = fit_cols(S, numeric);
    r.fit_bits_slots = fit_bits_slots(S, numeric);
    r.bits_per_slot = r.fit_bits_slots ? SPX_GPU_BITMAP_COLS_PER_SLOT : 0;
    r.vbytes = (int)value_bytes(S, numeric);
    r.span_pct = numeric ? SPX_GPU_SPAN_NUM_PCT : SPX_GPU_SPAN_SYM_PCT;
    r.sorted_pct = numeric ? SPX_GPU_SPAN_NUM_SORTED_PCT : SPX_GPU_SPAN_SYM_PCT;
    r.panel_pos = numeric && S->panels.on ? S->panels.d_pos_a : NULL; /* the panels' rows: the dense kernel */
    return r;
}

/* Groups per block for groups of M lanes and the bin's table. */
static int groups_per_block(const gpu_state *S, int numeric, const gpu_bin *b, int M)
{
    const size_t per = bin_group_bytes(S, numeric, b);
    int64_t g = SPX_GPU_MAX_BLOCK / M;
    const int64_t fit = (int64_t)(SPX_GPU_GROUP_SMEM_TARGET / per);
    if (fit < g) g = fit;
    return g < 1 ? 1 : (int)g;
}

/* Blocks of this shape resident on the device at once. */
static int64_t resident_blocks(const gpu_state *S, int threads, size_t smem)
{
    int64_t by_threads = S->max_threads_sm / (threads > 0 ? threads : 1);
    int64_t by_smem = smem ? (int64_t)(S->smem_limit / smem) : by_threads;
    int64_t b = by_threads < by_smem ? by_threads : by_smem;
    return (b < 1 ? 1 : b) * S->sm_count;
}

/* Blocks of a grid-stride launch over `blocks` items: at most one resident wave. */
static unsigned one_wave(const gpu_state *S, int64_t blocks, int threads, size_t smem)
{
    const int64_t res = resident_blocks(S, threads, smem);
    return (unsigned)(blocks < res ? blocks : res);
}

/* Products a lane holds in the warp rows of bin b: 2 up to 128 slots (rows of at most 64), else 4. */
static int warp_regs(const gpu_bin *b) { return b->slots <= 128 ? 2 : 4; }

/* Whether bin b's numeric rows may be summed by a warp in registers (SPX_GPU_WARP_SORT): C
 * made of few repeated products (SPX_GPU_WARP_MAX_COMPRESSION; C's row pointers given, the
 * products are not known: no). Groups are not widened for it: at 32 lanes a row, the road
 * network's rows of ~4 entries ran 2.1x slower (H200, luxembourg_osm·ᵀ numeric 0.063 -> 0.135
 * ms), poisson3d n=100's 25-entry rows 1.06x faster; wider ones are narrowed to a warp
 * (shape_bin, SPX_GPU_WARP_ONE). */
static bool warp_rows(const gpu_state *S, const gpu_bin *b)
{
    return SPX_GPU_WARP_SORT && !b->span && !b->bits && b->slots && b->slots <= SPX_GPU_WARP_MAX_SLOTS &&
           S->n < spx_gpu_warp_max_cols(warp_regs(b)) && S->products > 0 &&
           (double)S->products <= SPX_GPU_WARP_MAX_COMPRESSION * (double)S->nnz_c;
}

/* warp_rows, and the bin's row groups whole warps. */
static bool warp_bin(const gpu_state *S, const gpu_bin *b) { return warp_rows(S, b) && b->group % 32 == 0; }

/* Shapes bin b's launch: M from the bin's mean work, then ApSpGEMM's Algorithm 2: doubled
 * while a thread's iterations on the longest row (work_max / M) exceed ~2 x the rows each
 * group handles, halved while far below, until it settles or turns back. */
static void shape_bin(const gpu_state *S, int numeric, gpu_bin *b, int64_t work_sum)
{
    const int Mmax = !b->span && b->slots < SPX_GPU_MAX_BLOCK ? b->slots : SPX_GPU_MAX_BLOCK;
    int M = pow2_at_most(work_sum / (b->count > 0 ? b->count : 1));
    if (M > Mmax) M = Mmax;
    int last = 0;
    for (int step = 0; step < SPX_GPU_ALG2_STEPS; step++) {
        const int G = groups_per_block(S, numeric, b, M);
        const int64_t blocks = (b->count + G - 1) / G;
        const int64_t res = resident_blocks(S, G * M, G * bin_group_bytes(S, numeric, b));
        const int64_t groups = (blocks < res ? blocks : res) * G;
        const int64_t rows_per_group = (b->count + groups - 1) / groups, target = 2 * rows_per_group;
        const int64_t iter = (b->work_max + M - 1) / M;
        int dir = iter > target * SPX_GPU_ALG2_SLACK && M < Mmax ? 1 : iter * SPX_GPU_ALG2_SLACK < target && M > 1 ? -1 : 0;
        if (dir == 0 || dir == -last) break;
        M = dir > 0 ? M * 2 : M / 2;
        last = dir;
    }
    /* numeric: the row is sorted in its table (O(slots log^2 slots) or slots^2 steps over the
     * group's lanes), which Algorithm 2 does not weigh: enough lanes that each holds a few
     * slots; a span table is cleared and read out instead: a few columns a lane */
    const int sort_lanes = b->slots / (b->span ? SPX_GPU_SPAN_COLS_PER_LANE : SPX_GPU_SORT_SLOTS_PER_LANE);
    if (numeric && M < sort_lanes) M = sort_lanes < Mmax ? sort_lanes : Mmax;
    /* numeric rows a warp may sum in registers: one warp a row (SPX_GPU_WARP_ONE) */
    if (SPX_GPU_WARP_ONE && numeric && M > 32 && warp_rows(S, b)) M = 32;
    /* symbolic: the tables, not the threads, bound the rows an SM holds; lanes enough that
     * those rows fill it with warps (a span table's bits are small: Algorithm 2 alone) */
    const int table_lanes = SPX_GPU_SYM_SLOTS_PER_LANE && !b->span ? b->slots / SPX_GPU_SYM_SLOTS_PER_LANE : 0;
    if (!numeric && M < table_lanes) M = table_lanes < Mmax ? table_lanes : Mmax;
    b->group = M;
    b->groups = groups_per_block(S, numeric, b, M);
    b->smem = b->groups * bin_group_bytes(S, numeric, b);
    b->sub = b_row_lanes(S, M);
    const int64_t blocks = (b->count + b->groups - 1) / b->groups;
    const int64_t res = resident_blocks(S, b->groups * M, b->smem);
    b->grid = (unsigned)(blocks < res ? blocks : res);
}

/* Launch grid of the binning kernels over rows [0, m). */
static unsigned bin_grid(const spx_ctx *ctx, const gpu_state *S)
{
    return spx_cuda_grid_stride_blocks(ctx, S->m, SPX_GPU_ANALYSE_BLOCK, SPX_GPU_ANALYSE_BLOCKS_PER_SM);
}

/* Queues the per-bin statistics of the rows' work (w[i], or w[i + 1] - w[i] when diff) into
 * S->d_stats, which the caller has zeroed. */
static spx_status launch_bin_stats(spx_ctx *ctx, const gpu_state *S, int numeric, const int64_t *w, int diff)
{
    if (!S->m) return SPX_OK;
    spx_spgemm_bin_stats_kernel<<<bin_grid(ctx, S), SPX_GPU_ANALYSE_BLOCK, 0, spx_cuda_stream(ctx)>>>(
        S->m, w, diff, S->d_range, bin_rule(S, numeric), S->d_stats);
    SPX_CUDA_LAUNCHED(ctx, "spx_spgemm_bin_stats_kernel");
    return SPX_OK;
}

/* Bins the rows with work > 0 (w[i], or w[i + 1] - w[i] when diff; device) from their
 * statistics st (downloaded, their cursors zeroed on the device): bins in descending table
 * size, the fallback first (the rowind order), each shaped on the host; the row ids scattered
 * into rows (device, room for m) as out->d_rows, each bin from its offset on (an exclusive scan
 * of st's counts, passed with the launch). Queued, not waited for. */
static spx_status make_bins(spx_ctx *ctx, gpu_state *S, int numeric, const int64_t *w, int diff,
                            const spx_gpu_bin_stats *st, int32_t *rows, gpu_bins *out)
{
    spx_gpu_bin_starts starts;
    int64_t total = 0;
    memset(out, 0, sizeof *out);
    for (int c = SPX_GPU_BINS - 1; c >= 0; c--) { /* spx_gpu_bin_of's bins; the last: the fallback */
        starts.at[c] = (unsigned long long)total;
        if (!st->count[c]) continue;
        gpu_bin *b = &out->bin[out->n++];
        b->first = (int32_t)total, b->count = (int32_t)st->count[c], b->work_max = (int64_t)st->max[c];
        const int kind = c / SPX_GPU_TABLE_CLASSES, cls = c % SPX_GPU_TABLE_CLASSES; /* the fallback: kind 3 */
        b->span = kind == 1, b->bits = kind == 2;
        b->slots = c == SPX_GPU_BINS - 1 ? 0 : b->span ? SPX_GPU_SPAN_MIN_COLS << cls : SPX_GPU_MIN_SLOTS << cls;
        if (b->slots) shape_bin(S, numeric, b, (int64_t)st->sum[c]);
        if (b->span) S->span_rows += b->count;
        if (b->bits) S->bits_rows += b->count;
        total += (int64_t)st->count[c];
    }
    if (!total) return SPX_OK;
    out->d_rows = rows;
    spx_spgemm_bin_scatter_kernel<<<bin_grid(ctx, S), SPX_GPU_ANALYSE_BLOCK, 0, spx_cuda_stream(ctx)>>>(
        S->m, w, diff, S->d_range, bin_rule(S, numeric), starts, S->d_stats->cursor, out->d_rows);
    SPX_CUDA_LAUNCHED(ctx, "spx_spgemm_bin_scatter_kernel");
    return SPX_OK;
}

/* Launches one shared-memory bin. */
template <bool NUMERIC, typename V>
static spx_status launch_rows(spx_ctx *ctx, const gpu_state *S, const gpu_bins *L, const gpu_bin *b, cudaStream_t st,
                              int64_t *counts, int32_t *cci, V *cv)
{
    const spx_dev_csr *A = &S->ops.A, *B = &S->ops.B;
    const bool warp = NUMERIC && warp_bin(S, b);
    auto kernel = NUMERIC && b->bits     ? spx_spgemm_rows_kernel<NUMERIC, V, 0, NUMERIC>
                  : !warp                ? spx_spgemm_rows_kernel<NUMERIC, V, 0, false>
                  : warp_regs(b) == 2    ? spx_spgemm_rows_kernel<NUMERIC, V, NUMERIC ? 2 : 0, false>
                                         : spx_spgemm_rows_kernel<NUMERIC, V, NUMERIC ? 4 : 0, false>;
    spx_status s = spx_cuda_allow_max_smem(ctx, kernel);
    if (s) return s;
    kernel<<<b->grid, b->groups * b->group, b->smem, st>>>(
        A->rowptr, A->colind, (const V *)A->val, B->rowptr, B->colind, (const V *)B->val, S->d_range,
        L->d_rows + b->first, b->count, b->group, b->sub, b->slots, counts, S->d_crow, cci, cv);
    SPX_CUDA_LAUNCHED(ctx, "spx_spgemm_rows_kernel");
    return SPX_OK;
}

/* Launches one span-table bin. */
template <bool NUMERIC, typename V>
static spx_status launch_span(spx_ctx *ctx, const gpu_state *S, const gpu_bins *L, const gpu_bin *b, cudaStream_t st,
                              int64_t *counts, int32_t *cci, V *cv)
{
    const spx_dev_csr *A = &S->ops.A, *B = &S->ops.B;
    auto kernel = spx_spgemm_span_kernel<NUMERIC, V>;
    spx_status s = spx_cuda_allow_max_smem(ctx, kernel);
    if (s) return s;
    kernel<<<b->grid, b->groups * b->group, b->smem, st>>>(
        A->rowptr, A->colind, (const V *)A->val, B->rowptr, B->colind, (const V *)B->val, S->d_range,
        L->d_rows + b->first, b->count, b->group, b->sub, b->slots, counts, S->d_crow, cci, cv);
    SPX_CUDA_LAUNCHED(ctx, "spx_spgemm_span_kernel");
    return SPX_OK;
}

/* Runs the fallback bin in rounds of as many rows as the pool holds n-wide accumulators. */
template <bool NUMERIC, typename V>
static spx_status launch_fallback(spx_ctx *ctx, const gpu_state *S, const gpu_bins *L, const gpu_bin *b,
                                  int64_t *counts, int32_t *cci, V *cv)
{
    const spx_dev_csr *A = &S->ops.A, *B = &S->ops.B;
    const size_t per_row = (size_t)S->n * (sizeof(int32_t) + (NUMERIC ? sizeof(V) : 0));
    size_t pool = SPX_GPU_FALLBACK_POOL_BYTES, room = spx_device_budget_room(ctx);
    if (room < pool) pool = room; /* under a device budget (out-of-core panels): what is left of it */
    int64_t slots = per_row ? (int64_t)(pool / per_row) : 1;
    if (slots < 1) slots = 1;
    if (slots > b->count) slots = b->count;
    int32_t *marker = NULL;
    V *vals = NULL;
    spx_status s = spx_cuda_malloc_async(ctx, (void **)&marker, (size_t)slots * S->n * sizeof(int32_t));
    if (!s && NUMERIC) s = spx_cuda_malloc_async(ctx, (void **)&vals, (size_t)slots * S->n * sizeof(V));
    if (s) goto done;
    SPX_CUDA_GOTO(ctx, s, cudaMemsetAsync(marker, 0xff, (size_t)slots * S->n * sizeof(int32_t), spx_cuda_stream(ctx)));
    if (NUMERIC) SPX_CUDA_GOTO(ctx, s, cudaMemsetAsync(vals, 0, (size_t)slots * S->n * sizeof(V), spx_cuda_stream(ctx)));
    for (int64_t r = 0; r < b->count; r += slots) {
        const unsigned grid = (unsigned)(b->count - r < slots ? b->count - r : slots);
        spx_spgemm_fallback_kernel<NUMERIC, V><<<grid, SPX_GPU_FALLBACK_BLOCK, 0, spx_cuda_stream(ctx)>>>(
            A->rowptr, A->colind, (const V *)A->val, B->rowptr, B->colind, (const V *)B->val, L->d_rows + b->first + r,
            S->n, marker, vals, counts, S->d_crow, cci, cv);
        SPX_CUDA_LAUNCHED_GOTO(ctx, s, "spx_spgemm_fallback_kernel");
    }
done: /* freed behind the kernels on the context's stream: no wait */
    spx_cuda_free_async(ctx, marker);
    spx_cuda_free_async(ctx, vals);
    return s;
}

/* The split rows' workspace, carved from S->d_split (made on first use, kept with the plan: a
 * few MB, n at most 1.8M columns): the list of split rows and its count, the bitmap of n bits,
 * the words' populations and ranks, the ranks' scan scratch, the hot columns' map (n), list
 * and count (SPX_GPU_HOT_COLS). */
typedef struct split_ws {
    int2 *list;
    unsigned int *count;
    unsigned long long *bits;
    int32_t *pop, *rank;
    void *scan;
    size_t scan_bytes;
    int32_t *hot, *hot_cols;
    unsigned int *hot_count;
    int32_t n; /* C's columns */
    int words;
    int64_t cap; /* rows the list holds: more than cap - 1 rows of more than the split's entries cannot be */
} split_ws;

/* The split workspace's arrays carved from base (NULL: sized only); returns its bytes. */
static size_t split_layout(split_ws *w, void *base)
{
    carver c = {(unsigned char *)base, 0};
    const size_t words = (size_t)w->words;
    w->list = (int2 *)carve(&c, (size_t)w->cap * sizeof(int2));
    w->count = (unsigned int *)carve(&c, sizeof(unsigned int));
    w->bits = (unsigned long long *)carve(&c, words * sizeof(unsigned long long));
    w->pop = (int32_t *)carve(&c, words * sizeof(int32_t));
    w->rank = (int32_t *)carve(&c, words * sizeof(int32_t));
    w->scan = carve(&c, w->scan_bytes);
    w->hot = NULL, w->hot_cols = NULL, w->hot_count = NULL;
    if (SPX_GPU_HOT_COLS) {
        w->hot = (int32_t *)carve(&c, (size_t)w->n * sizeof(int32_t));
        w->hot_cols = (int32_t *)carve(&c, (size_t)SPX_GPU_HOT_COLS * sizeof(int32_t));
        w->hot_count = (unsigned int *)carve(&c, sizeof(unsigned int));
    }
    return c.used;
}

/* Carves (allocating on first use) the split rows' workspace into *w. */
static spx_status split_workspace(spx_ctx *ctx, gpu_state *S, split_ws *w)
{
    w->n = S->n;
    w->words = (int)(((int64_t)S->n + 63) >> 6);
    /* k rows of more than S entries hold nnz(A) >= k (S + 1) entries: k < nnz(A) / S + 1 */
    w->cap = SPX_GPU_SPLIT_A_ENTRIES ? S->ops.A.nnz / SPX_GPU_SPLIT_A_ENTRIES + 1 : 1;
    w->scan_bytes = 0;
    SPX_CUDA_RET(ctx, cub::DeviceScan::ExclusiveSum(NULL, w->scan_bytes, (const int32_t *)NULL, (int32_t *)NULL,
                                                    w->words, spx_cuda_stream(ctx)));
    if (w->scan_bytes < 16) w->scan_bytes = 16; /* a NULL scratch would make CUB only size its work */
    spx_status s = S->d_split ? SPX_OK : spx_cuda_malloc_async(ctx, &S->d_split, split_layout(w, NULL));
    if (s) return s;
    if (!S->h_split && !(S->h_split = (int2 *)spx_malloc_array(ctx, (size_t)w->cap, sizeof(int2))))
        return spx_fail_nomem(ctx, "spx GPU SpGEMM split rows");
    split_layout(w, S->d_split);
    return SPX_OK;
}

/* The kernel's name: the precision, "+span" when span tables took rows in either phase, "+bits"
 * when numeric hash tables were read out by bitmaps, "+dense" with dense panels ("+spmm" when
 * sparse rows of A are among their rows), "+hot" when the split rows have hot columns. */
static void name_kernel(gpu_state *S)
{
    snprintf(S->kernel, sizeof S->kernel, "spx_spgemm_rows_%s%s%s%s%s%s", S->prec == SPX_FP32 ? "fp32" : "fp64",
             S->span_rows ? "+span" : "", S->bits_rows ? "+bits" : "", S->panels.on ? "+dense" : "",
             S->panels.on && S->panels.rows_sparse ? "+spmm" : "", S->num_hot > 0 ? "+hot" : "");
}

/* The split rows' hot columns (SPX_GPU_HOT_COLS), once a plan: B's columns of more than
 * spx_gpu_dense_min(k) entries by a sample of every SPX_GPU_HOT_SAMPLE-th entry, their slots
 * into w->hot (n) and w->hot_cols; S->num_hot from one download. Past SPX_GPU_HOT_COLS such
 * columns, the slots go in the count's order, not to the densest (speed only). The kernel's
 * name says "+hot" from then on: after the first run when C's row pointers were given. */
static spx_status survey_hot_columns(spx_ctx *ctx, gpu_state *S, split_ws *w)
{
    if (S->num_hot >= 0) return SPX_OK;
    S->num_hot = 0;
    const int64_t samples = (S->ops.B.nnz + SPX_GPU_HOT_SAMPLE - 1) / SPX_GPU_HOT_SAMPLE;
    if (!SPX_GPU_HOT_COLS || !samples) return SPX_OK;
    const cudaStream_t st = spx_cuda_stream(ctx);
    SPX_CUDA_RET(ctx, cudaMemsetAsync(w->hot, 0, (size_t)S->n * sizeof *w->hot, st));
    SPX_CUDA_RET(ctx, cudaMemsetAsync(w->hot_count, 0, sizeof *w->hot_count, st));
    spx_spgemm_hot_count_kernel<<<spx_cuda_grid_stride_blocks(ctx, samples, SPX_GPU_ANALYSE_BLOCK,
                                                              SPX_GPU_ANALYSE_BLOCKS_PER_SM),
                                  SPX_GPU_ANALYSE_BLOCK, 0, st>>>(S->ops.B.nnz, S->ops.B.colind, SPX_GPU_HOT_SAMPLE,
                                                                  w->hot);
    SPX_CUDA_LAUNCHED(ctx, "spx_spgemm_hot_count_kernel");
    spx_spgemm_hot_list_kernel<<<spx_cuda_grid_stride_blocks(ctx, S->n, SPX_GPU_ANALYSE_BLOCK,
                                                             SPX_GPU_ANALYSE_BLOCKS_PER_SM),
                                 SPX_GPU_ANALYSE_BLOCK, 0, st>>>(S->n, spx_gpu_dense_min(S->k) / SPX_GPU_HOT_SAMPLE,
                                                                 SPX_GPU_HOT_COLS, w->hot, w->hot_cols, w->hot_count);
    SPX_CUDA_LAUNCHED(ctx, "spx_spgemm_hot_list_kernel");
    unsigned int count = 0;
    spx_status s = spx_cuda_d2h(ctx, &count, w->hot_count, sizeof count);
    if (s) return s;
    S->num_hot = (int64_t)count < SPX_GPU_HOT_COLS ? (int)count : SPX_GPU_HOT_COLS;
    name_kernel(S);
    return SPX_OK;
}

/* The rows of bin b with more than SPX_GPU_SPLIT_A_ENTRIES entries of A, listed on the device
 * and downloaded into S->h_split (a wait, before the bin's kernels are queued; the numeric
 * bins' list is kept for the plan's next runs); *n 0 when there can be none
 * (SPX_GPU_SPLIT_A_ENTRIES 0, or A too small). */
static spx_status select_split_rows(spx_ctx *ctx, gpu_state *S, int numeric, const gpu_bins *L, const gpu_bin *b,
                                    split_ws *w, int *n)
{
    *n = 0;
    if (!SPX_GPU_SPLIT_A_ENTRIES || S->ops.A.nnz <= SPX_GPU_SPLIT_A_ENTRIES) return SPX_OK;
    spx_status s = split_workspace(ctx, S, w);
    if (s) return s;
    if (numeric && S->num_split >= 0) {
        *n = S->num_split;
        return SPX_OK;
    }
    SPX_CUDA_RET(ctx, cudaMemsetAsync(w->count, 0, sizeof *w->count, spx_cuda_stream(ctx)));
    spx_spgemm_split_select_kernel<<<spx_cuda_grid_stride_blocks(ctx, b->count, SPX_GPU_ANALYSE_BLOCK,
                                                                 SPX_GPU_ANALYSE_BLOCKS_PER_SM),
                                     SPX_GPU_ANALYSE_BLOCK, 0, spx_cuda_stream(ctx)>>>(
        L->d_rows + b->first, b->count, S->ops.A.rowptr, SPX_GPU_SPLIT_A_ENTRIES, w->list, (unsigned int)w->cap,
        w->count);
    SPX_CUDA_LAUNCHED(ctx, "spx_spgemm_split_select_kernel");
    unsigned int count = 0;
    if ((s = spx_cuda_d2h(ctx, &count, w->count, sizeof count))) return s;
    if (count > (unsigned int)w->cap) count = (unsigned int)w->cap; /* cannot be: the kernel drops none */
    if (count && (s = spx_cuda_d2h(ctx, S->h_split, w->list, (size_t)count * sizeof(int2)))) return s;
    *n = (int)count;
    if (numeric) S->num_split = *n;
    return count ? survey_hot_columns(ctx, S, w) : SPX_OK;
}

/* Queues the split rows S->h_split[0..n) (spx_spgemm_split_*), one after another through the
 * workspace's bitmap: marked by a block a chunk of SPX_GPU_SPLIT_CHUNK entries of A, then
 * counted into counts (symbolic) or ranked by a scan, written and summed into C (numeric). */
template <bool NUMERIC, typename V>
static spx_status launch_split_rows(spx_ctx *ctx, const gpu_state *S, const split_ws *w, int n, int64_t *counts,
                                    int32_t *cci, V *cv)
{
    const spx_dev_csr *A = &S->ops.A, *B = &S->ops.B;
    const cudaStream_t st = spx_cuda_stream(ctx);
    const int sub = b_row_lanes(S, 32);
    const unsigned wgrid =
        spx_cuda_grid_stride_blocks(ctx, w->words, SPX_GPU_ANALYSE_BLOCK, SPX_GPU_ANALYSE_BLOCKS_PER_SM);
    const spx_gpu_hot hot = {w->hot, w->hot_cols, S->num_hot > 0 ? S->num_hot : 0};
    const size_t mark_smem = (size_t)hot.n * sizeof(int), add_smem = (size_t)hot.n * (sizeof(V) + sizeof(int));
    for (int r = 0; r < n; r++) {
        const int32_t i = S->h_split[r].x;
        const unsigned chunks = (unsigned)((S->h_split[r].y + SPX_GPU_SPLIT_CHUNK - 1) / SPX_GPU_SPLIT_CHUNK);
        SPX_CUDA_RET(ctx, cudaMemsetAsync(w->bits, 0, (size_t)w->words * sizeof *w->bits, st));
        spx_spgemm_split_mark_kernel<<<chunks, SPX_GPU_DENSE_BLOCK, mark_smem, st>>>(
            A->rowptr, A->colind, B->rowptr, B->colind, i, sub, hot, w->bits);
        SPX_CUDA_LAUNCHED(ctx, "spx_spgemm_split_mark_kernel");
        if (!NUMERIC) {
            spx_spgemm_split_count_kernel<<<wgrid, SPX_GPU_ANALYSE_BLOCK, 0, st>>>(w->bits, w->words, i, counts);
            SPX_CUDA_LAUNCHED(ctx, "spx_spgemm_split_count_kernel");
            continue;
        }
        spx_spgemm_split_pop_kernel<<<wgrid, SPX_GPU_ANALYSE_BLOCK, 0, st>>>(w->bits, w->words, w->pop);
        SPX_CUDA_LAUNCHED(ctx, "spx_spgemm_split_pop_kernel");
        size_t bytes = w->scan_bytes;
        SPX_CUDA_RET(ctx, cub::DeviceScan::ExclusiveSum(w->scan, bytes, w->pop, w->rank, w->words, st));
        spx_spgemm_split_columns_kernel<V><<<wgrid, SPX_GPU_ANALYSE_BLOCK, 0, st>>>(w->bits, w->rank, w->words, i,
                                                                                    S->d_crow, cci, cv);
        SPX_CUDA_LAUNCHED(ctx, "spx_spgemm_split_columns_kernel");
        spx_spgemm_split_add_kernel<V><<<chunks, SPX_GPU_DENSE_BLOCK, add_smem, st>>>(
            A->rowptr, A->colind, (const V *)A->val, B->rowptr, B->colind, (const V *)B->val, i, sub,
            S->panels.d_pos_a, S->panels.b_min, hot, w->bits, w->rank, S->d_crow, cv);
        SPX_CUDA_LAUNCHED(ctx, "spx_spgemm_split_add_kernel");
    }
    return SPX_OK;
}

/* Runs the fallback bin with the dense fallback (spx_spgemm_dense_kernel), one wave of
 * blocks taking its rows by a ticket, its rows of more than SPX_GPU_SPLIT_A_ENTRIES entries of
 * A left to launch_split_rows after it. */
template <bool NUMERIC, typename V>
static spx_status launch_dense(spx_ctx *ctx, gpu_state *S, const gpu_bins *L, const gpu_bin *b, int64_t *counts,
                               int32_t *cci, V *cv)
{
    const spx_dev_csr *A = &S->ops.A, *B = &S->ops.B;
    const size_t smem = dense_bytes(S, NUMERIC);
    const int sub = b_row_lanes(S, 32);
    auto kernel = spx_spgemm_dense_kernel<NUMERIC, V>;
    split_ws w;
    int n_split = 0;
    spx_status s = spx_cuda_allow_max_smem(ctx, kernel);
    if (!s) s = select_split_rows(ctx, S, NUMERIC, L, b, &w, &n_split);
    if (s) return s;
    SPX_CUDA_RET(ctx, cudaMemsetAsync(S->d_ticket, 0, sizeof *S->d_ticket, spx_cuda_stream(ctx)));
    kernel<<<one_wave(S, b->count, SPX_GPU_DENSE_BLOCK, smem), SPX_GPU_DENSE_BLOCK, smem, spx_cuda_stream(ctx)>>>(
        A->rowptr, A->colind, (const V *)A->val, B->rowptr, B->colind, (const V *)B->val, L->d_rows + b->first,
        b->count, S->n, sub, n_split ? SPX_GPU_SPLIT_A_ENTRIES : INT32_MAX, S->panels.d_pos_a, S->panels.b_min,
        S->d_ticket, counts, S->d_crow, cci, cv);
    SPX_CUDA_LAUNCHED(ctx, "spx_spgemm_dense_kernel");
    return n_split ? launch_split_rows<NUMERIC, V>(ctx, S, &w, n_split, counts, cci, cv) : SPX_OK;
}

/* The side streams (the context's: spx_cuda_side_streams) and the plan's events, had once (as
 * many as can be, up to SPX_GPU_BIN_STREAMS - 1); false when none could be: the bins then share
 * the context's stream. */
static bool make_sides(spx_ctx *ctx, gpu_state *S)
{
    if (S->sides) return true;
    const int lent = spx_cuda_side_streams(ctx, SPX_GPU_BIN_STREAMS - 1, S->side);
    if (!lent || cudaEventCreateWithFlags(&S->fork, cudaEventDisableTiming) != cudaSuccess) {
        cudaGetLastError(); /* a failed creation leaves no error behind */
        return false;
    }
    int made = 0;
    while (made < lent && cudaEventCreateWithFlags(&S->join[made], cudaEventDisableTiming) == cudaSuccess) made++;
    cudaGetLastError();
    if (!made) cudaEventDestroy(S->fork);
    S->sides = made;
    return made > 0;
}

/* Every bin of L, symbolic (counts) or numeric (cci, cv), in L's order, spread over the
 * context's stream and the side streams (forked from it, joined back into it); the fallback
 * bin first, on the context's stream: the dense fallback's rows are the longest (H100, with
 * it last in run 13 against first in run 12: R-MAT 16 numeric 11.1 -> 11.6 ms, the power-law
 * matrix 46.1 -> 48.9). The global fallback's accumulators go back to the pool behind its
 * kernels on the context's stream: the bins after it are launched without a wait. */
template <bool NUMERIC, typename V>
static spx_status run_bins(spx_ctx *ctx, gpu_state *S, const gpu_bins *L, int64_t *counts, int32_t *cci, V *cv)
{
    const cudaStream_t home = spx_cuda_stream(ctx);
    const bool spread = SPX_GPU_BIN_STREAMS > 1 && L->n > 1 && make_sides(ctx, S);
    const int ways = spread ? S->sides + 1 : 1;
    spx_status s = SPX_OK;
    if (spread) {
        SPX_CUDA_RET(ctx, cudaEventRecord(S->fork, home));
        for (int j = 0; j < S->sides; j++) SPX_CUDA_RET(ctx, cudaStreamWaitEvent(S->side[j], S->fork, 0));
    }
    for (int i = 0; !s && i < L->n; i++) {
        const gpu_bin *b = &L->bin[i];
        const cudaStream_t st = i % ways ? S->side[i % ways - 1] : home;
        s = b->span    ? launch_span<NUMERIC, V>(ctx, S, L, b, st, counts, cci, cv)
            : b->slots ? launch_rows<NUMERIC, V>(ctx, S, L, b, st, counts, cci, cv)
            : dense_fits(S, NUMERIC) ? launch_dense<NUMERIC, V>(ctx, S, L, b, counts, cci, cv)
                                     : launch_fallback<NUMERIC, V>(ctx, S, L, b, counts, cci, cv);
    }
    for (int j = 0; spread && j < S->sides; j++) { /* joined even after a failure: nothing left behind */
        cudaError_t e = cudaEventRecord(S->join[j], S->side[j]);
        if (e == cudaSuccess) e = cudaStreamWaitEvent(home, S->join[j], 0);
        if (e != cudaSuccess && !s) s = spx_cuda_fail_at(ctx, e, "joining the bin streams", __FILE__, __LINE__);
    }
    return s;
}

static void gpu_destroy(spx_ctx *ctx, void *state);

/* Device properties the shaping reads. */
static void read_device(spx_ctx *ctx, gpu_state *S)
{
    const spx_cuda_state *st = spx_cuda_state_of(ctx);
    S->sm_count = st && st->sm_count > 0 ? st->sm_count : 1;
    S->max_threads_sm = st && st->max_threads_per_sm > 0 ? st->max_threads_per_sm : 2048;
    S->smem_limit = st && st->smem_per_block_optin > 0 ? (size_t)st->smem_per_block_optin : 48 * 1024;
}

/* The plan's arrays carved from base (NULL: sized only): C's row pointers, the statistics, the
 * ticket, the numeric row list and, with ranges, the rows' column ranges; then, with temp, what
 * analyse and symbolic use (the products per row, A's column counts, the symbolic row list, the
 * scan's scratch of S->scan_bytes), kept with the rest until the plan goes, so that no free
 * (which waits for the device) falls between the phases of one product; returns the bytes. */
static size_t keep_layout(gpu_state *S, bool ranges, bool temp, void *base)
{
    carver c = {(unsigned char *)base, 0};
    const size_t m = (size_t)S->m, k = (size_t)S->k;
    S->d_crow = (int64_t *)carve(&c, (m + 1) * sizeof(int64_t));
    S->d_stats = (spx_gpu_bin_stats *)carve(&c, sizeof(spx_gpu_bin_stats));
    S->d_ticket = (unsigned int *)carve(&c, sizeof(unsigned int));
    S->d_num_rows = (int32_t *)carve(&c, m * sizeof(int32_t));
    S->d_range = ranges ? (int2 *)carve(&c, m * sizeof(int2)) : NULL;
    if (!temp) return c.used;
    S->d_prod = (int64_t *)carve(&c, m * sizeof(int64_t));
    S->d_colcnt = (int32_t *)carve(&c, k * sizeof(int32_t));
    S->d_sym_rows = (int32_t *)carve(&c, m * sizeof(int32_t));
    S->d_scan = carve(&c, S->scan_bytes);
    return c.used;
}

/* S->d_keep, carved by keep_layout in one allocation; with temp, the scan's scratch sized by
 * CUB for m + 1 counts first. */
static spx_status alloc_keep(spx_ctx *ctx, gpu_state *S, bool ranges, bool temp)
{
    size_t scan = 0;
    if (temp)
        SPX_CUDA_RET(ctx, cub::DeviceScan::ExclusiveSum(NULL, scan, (int64_t *)NULL, (int64_t)S->m + 1,
                                                        spx_cuda_stream(ctx)));
    S->scan_bytes = scan < 16 ? 16 : scan; /* a NULL scratch would make CUB only size its work */
    spx_status s = spx_cuda_malloc_async(ctx, &S->d_keep, keep_layout(S, ranges, temp, NULL));
    if (!s) keep_layout(S, ranges, temp, S->d_keep);
    return s;
}

/* Lanes a row of A gets in the pre-analysis: A's mean row length rounded up to a power of two,
 * within [SPX_GPU_ANALYSE_MIN_LANES, 32]. */
static int analyse_lanes(const gpu_state *S)
{
    return spx_gpu_row_lanes(S->ops.A.nnz, S->m, SPX_GPU_ANALYSE_MIN_LANES);
}

/* Queues spx_spgemm_analyse_rows_kernel with L lanes a row. */
static spx_status launch_analyse_rows(spx_ctx *ctx, gpu_state *S, int L)
{
    const spx_dev_csr *A = &S->ops.A, *B = &S->ops.B;
    auto kernel = L <= 2    ? spx_spgemm_analyse_rows_kernel<2>
                  : L <= 4  ? spx_spgemm_analyse_rows_kernel<4>
                  : L <= 8  ? spx_spgemm_analyse_rows_kernel<8>
                  : L <= 16 ? spx_spgemm_analyse_rows_kernel<16>
                            : spx_spgemm_analyse_rows_kernel<32>;
    const unsigned grid = spx_cuda_grid_stride_blocks(ctx, (long long)S->m * L, SPX_GPU_ANALYSE_BLOCK,
                                                      SPX_GPU_ANALYSE_BLOCKS_PER_SM);
    kernel<<<grid, SPX_GPU_ANALYSE_BLOCK, 0, spx_cuda_stream(ctx)>>>(S->m, A->rowptr, A->colind, B->rowptr,
                                                                      B->colind, S->d_prod, S->d_colcnt, S->d_range,
                                                                      spx_gpu_dense_min(S->k), &S->d_stats->dense_rows);
    SPX_CUDA_LAUNCHED(ctx, "spx_spgemm_analyse_rows_kernel");
    return SPX_OK;
}

/* §4.1 on the GPU: products per row (kept on the device in S->d_prod for binning), the rows'
 * column ranges (S->d_range, kept for both binnings), A's column counts (the dense columns,
 * more than one entry, counted on the device), rows above P counted (§4.2), and the products'
 * per-bin statistics; S->sym and *products (their total) from one download of the statistics. */
static spx_status pre_analysis(spx_ctx *ctx, gpu_state *S, int64_t *products)
{
    const spx_dev_csr *A = &S->ops.A;
    int32_t *d_colcnt = S->d_colcnt;
    spx_status s = SPX_OK;
    SPX_CUDA_GOTO(ctx, s, cudaMemsetAsync(S->d_stats, 0, sizeof *S->d_stats, spx_cuda_stream(ctx)));
    if (S->k) SPX_CUDA_GOTO(ctx, s, cudaMemsetAsync(d_colcnt, 0, (size_t)S->k * sizeof *d_colcnt, spx_cuda_stream(ctx)));
    if (S->m) {
        if ((s = launch_analyse_rows(ctx, S, analyse_lanes(S)))) goto done;
        if (A->nnz > SPX_GPU_LONG_A_ROW) {
            const long long chunks = (A->nnz + SPX_GPU_LONG_A_ROW - 1) / SPX_GPU_LONG_A_ROW;
            spx_spgemm_long_rows_kernel<<<spx_cuda_grid_stride_blocks(ctx, chunks * 32, SPX_GPU_ANALYSE_BLOCK,
                                                                      SPX_GPU_ANALYSE_BLOCKS_PER_SM),
                                          SPX_GPU_ANALYSE_BLOCK, 0, spx_cuda_stream(ctx)>>>(
                S->m, A->nnz, A->rowptr, A->colind, S->ops.B.rowptr, S->d_prod, d_colcnt);
            SPX_CUDA_LAUNCHED_GOTO(ctx, s, "spx_spgemm_long_rows_kernel");
        }
    }
    if (S->k) {
        const unsigned cgrid =
            spx_cuda_grid_stride_blocks(ctx, S->k, SPX_GPU_ANALYSE_BLOCK, SPX_GPU_ANALYSE_BLOCKS_PER_SM);
        spx_spgemm_dense_cols_kernel<<<cgrid, SPX_GPU_ANALYSE_BLOCK, 0, spx_cuda_stream(ctx)>>>(
            S->k, d_colcnt, &S->d_stats->dense_cols);
        SPX_CUDA_LAUNCHED_GOTO(ctx, s, "spx_spgemm_dense_cols_kernel");
    }
    if ((s = launch_bin_stats(ctx, S, 0, S->d_prod, 0)) || (s = spx_cuda_d2h(ctx, &S->sym, S->d_stats, sizeof S->sym)))
        goto done;
    *products = 0;
    for (int c = 0; c < SPX_GPU_BINS; c++) *products += (int64_t)S->sym.sum[c];
    S->products = *products;
    S->dense_rows = (int64_t)S->sym.dense_rows;
    S->dense_cols = (int64_t)S->sym.dense_cols;
done:
    return s;
}

/* A new state for in's product: the device's properties read, A and B borrowed or uploaded
 * (phase "upload"), the plan's arrays allocated on the device (alloc_keep, phase "alloc");
 * nothing left on failure. */
static spx_status gpu_open(spx_ctx *ctx, const spx_spgemm_input *in, spx_phase_log *log, bool ranges, bool temp,
                           gpu_state **out)
{
    gpu_state *S = (gpu_state *)spx_calloc_array(ctx, 1, sizeof *S);
    if (!S) return spx_fail_nomem(ctx, "spx GPU SpGEMM state");
    S->prec = in->precision;
    S->num_split = -1;
    S->num_hot = -1;
    spx_gpu_panels_none(&S->panels);
    S->panel_mode = !in->algo ? SPX_GPU_PANELS_AUTO
                    : !strcmp(in->algo, "sparse") ? SPX_GPU_PANELS_OFF
                    : !strcmp(in->algo, "dense")  ? SPX_GPU_PANELS_FORCE
                                                  : SPX_GPU_PANELS_AUTO;
    read_device(ctx, S);
    snprintf(S->kernel, sizeof S->kernel, "spx_spgemm_rows_%s", S->prec == SPX_FP32 ? "fp32" : "fp64");
    const double t0 = spx_now();
    spx_status s = spx_spgemm_dev_upload(ctx, in, &S->ops);
    if (!in->dev_a || !in->dev_b) spx_phase_add(log, "upload", spx_now() - t0);
    S->m = S->ops.A.m, S->k = S->ops.A.n, S->n = S->ops.B.n;
    S->avg_b_row = S->ops.B.m ? (double)S->ops.B.nnz / S->ops.B.m : 0.0;
    const double t1 = spx_now();
    if (!s) s = alloc_keep(ctx, S, ranges, temp);
    spx_phase_add(log, "alloc", spx_now() - t1);
    if (s) {
        gpu_destroy(ctx, S);
        return s;
    }
    *out = S;
    return SPX_OK;
}

/* *state = S when s is SPX_OK, else S freed; returns s. */
static spx_status hand_out(spx_ctx *ctx, gpu_state *S, spx_status s, void **state)
{
    if (s) gpu_destroy(ctx, S);
    else *state = S;
    return s;
}

static spx_status gpu_analyse(spx_ctx *ctx, const spx_spgemm_input *in, spx_phase_log *log, void **state,
                              int64_t *products)
{
    gpu_state *S = NULL;
    spx_status s = gpu_open(ctx, in, log, true, true, &S);
    if (s) return s;
    const double t0 = spx_now();
    s = pre_analysis(ctx, S, products);
    spx_phase_add(log, "analyse", spx_now() - t0);
    return hand_out(ctx, S, s, state);
}

/* The per-bin statistics of C's exact row lengths (d_crow's differences) and nnz(C) (d_crow[m]),
 * downloaded together into *st; S->nnz_c set from them. */
static spx_status length_stats(spx_ctx *ctx, gpu_state *S, spx_gpu_bin_stats *st)
{
    SPX_CUDA_RET(ctx, cudaMemsetAsync(S->d_stats, 0, sizeof *S->d_stats, spx_cuda_stream(ctx)));
    SPX_CUDA_RET(ctx, cudaMemcpyAsync(&S->d_stats->nnz_c, S->d_crow + S->m, sizeof(int64_t), cudaMemcpyDeviceToDevice,
                                      spx_cuda_stream(ctx)));
    spx_status s = launch_bin_stats(ctx, S, 1, S->d_crow, 1);
    if (!s) s = spx_cuda_d2h(ctx, st, S->d_stats, sizeof *st);
    if (!s) S->nnz_c = (int64_t)st->nnz_c;
    return s;
}

/* Symbolic counts into d_crow[0..m) (0 for rows without products), exclusive-scanned in place
 * on the device over m + 1 entries into C's row pointers; then their statistics and nnz(C)
 * (length_stats: one download) into *st. */
template <typename V>
static spx_status count_rows(spx_ctx *ctx, gpu_state *S, const gpu_bins *L, spx_gpu_bin_stats *st)
{
    size_t bytes = S->scan_bytes;
    const int64_t items = (int64_t)S->m + 1;
    spx_status s = SPX_OK;
    SPX_CUDA_RET(ctx, cudaMemsetAsync(S->d_crow, 0, (size_t)items * sizeof(int64_t), spx_cuda_stream(ctx)));
    if ((s = run_bins<false, V>(ctx, S, L, S->d_crow, nullptr, nullptr))) return s;
    SPX_CUDA_RET(ctx, cub::DeviceScan::ExclusiveSum(S->d_scan, bytes, S->d_crow, items, spx_cuda_stream(ctx)));
    return length_stats(ctx, S, st);
}

/* The numeric phase's bins from C's exact row lengths in d_crow and their statistics st (phase
 * "reorder"; the rows' scatter, the plan's last step, is queued, not waited for: the first run
 * follows it on the stream, follow_stream); the kernel's name says "+span" when span tables
 * took rows in either phase. */
static spx_status numeric_bins(spx_ctx *ctx, gpu_state *S, const spx_gpu_bin_stats *st, spx_phase_log *log)
{
    const double t0 = spx_now();
    spx_status s = make_bins(ctx, S, 1, S->d_crow, 1, st, S->d_num_rows, &S->num);
    S->stream = spx_cuda_stream(ctx);
    spx_phase_add(log, "reorder", spx_now() - t0);
    name_kernel(S);
    return s;
}

/* Device bytes the dense panels may take: half of what the budget's room and the device's
 * free memory leave beside C's arrays (allocated after them, by the first run); the other half
 * is the margin of the plan's in-core fit test (95 % of free memory). */
static size_t panel_room(spx_ctx *ctx, const gpu_state *S)
{
    size_t free_b = 0, total_b = 0;
    if (spx_cuda_mem_info(ctx, &free_b, &total_b)) return 0;
    const size_t budget = spx_device_budget_room(ctx);
    const size_t room = budget < free_b ? budget : free_b;
    const size_t c_bytes = (size_t)S->nnz_c * (sizeof(int32_t) + spx_precision_bytes(S->prec));
    return room > c_bytes ? (room - c_bytes) / 2 : 0;
}

/* The dense panels decided and listed (phase "reorder": the paper's splitting), when A has rows
 * above P (only then: a B with dense rows under an A without any is not surveyed) and the
 * dense fallback (which skips their products) takes n columns; when taken, the numeric
 * lengths' statistics *st made again (their rows now bin as the fallback). */
static spx_status plan_panels(spx_ctx *ctx, gpu_state *S, spx_gpu_bin_stats *st, spx_phase_log *log)
{
    if (!S->dense_rows || !dense_fits(S, 1)) return SPX_OK;
    const double t0 = spx_now();
    spx_status s = spx_gpu_panels_plan(ctx, &S->ops, S->d_prod, S->m, S->k, S->n, S->prec, S->panel_mode,
                                       panel_room(ctx, S), &S->panels);
    if (!s && S->panels.on) s = length_stats(ctx, S, st);
    spx_phase_add(log, "reorder", spx_now() - t0);
    return s;
}

/* Plan: the rows binned by their products (reorder; the scatter is queued, its time lands in
 * symbolic), counted (symbolic: C's row pointers, nnz(C) and the lengths' statistics), the
 * dense panels decided (reorder), binned again by their exact lengths for the numeric phase
 * (reorder); then the analyse and symbolic arrays freed. */
static spx_status gpu_symbolic(spx_ctx *ctx, void *state, spx_phase_log *log, int64_t *nnz_c)
{
    gpu_state *S = (gpu_state *)state;
    gpu_bins sym;
    spx_gpu_bin_stats st;
    double t0 = spx_now();
    spx_status s = make_bins(ctx, S, 0, S->d_prod, 0, &S->sym, S->d_sym_rows, &sym);
    spx_phase_add(log, "reorder", spx_now() - t0);
    if (s) return s;
    t0 = spx_now();
    s = S->prec == SPX_FP32 ? count_rows<float>(ctx, S, &sym, &st) : count_rows<double>(ctx, S, &sym, &st);
    spx_phase_add(log, "symbolic", spx_now() - t0);
    if (s) return s;
    *nnz_c = S->nnz_c;
    s = plan_panels(ctx, S, &st, log);
    return s ? s : numeric_bins(ctx, S, &st, log);
}

/* In place of analyse and symbolic, C's row pointers given (rowptr, m + 1 from 0): uploaded
 * into d_crow (phase "upload") and the rows binned by their lengths, as gpu_symbolic's last
 * step; no pre-analysis, no counting. The numeric phase is then the same but for the warp
 * rows (the products are not known: warp_bin), so sums may differ in rounding. */
static spx_status gpu_analyse_rows(spx_ctx *ctx, const spx_spgemm_input *in, const int64_t *rowptr,
                                   spx_phase_log *log, void **state)
{
    gpu_state *S = NULL;
    spx_status s = gpu_open(ctx, in, log, false, false, &S);
    if (s) return s;
    const double t0 = spx_now();
    s = spx_cuda_h2d(ctx, S->d_crow, rowptr, ((size_t)S->m + 1) * sizeof *S->d_crow);
    spx_phase_add(log, "upload", spx_now() - t0);
    spx_gpu_bin_stats st;
    if (!s) s = length_stats(ctx, S, &st); /* nnz(C) = rowptr[m], as given */
    if (!s) s = numeric_bins(ctx, S, &st, log);
    return hand_out(ctx, S, s, state);
}

/* New values of A and B (same patterns): uploaded again, the old copies freed once the new
 * ones are there; the bins and C's row pointers stay. */
static spx_status gpu_update_values(spx_ctx *ctx, void *state, const spx_spgemm_input *in, spx_phase_log *log)
{
    gpu_state *S = (gpu_state *)state;
    spx_spgemm_operands fresh;
    const double t0 = spx_now();
    spx_status s = spx_spgemm_dev_upload(ctx, in, &fresh);
    if (!s) {
        spx_spgemm_dev_free(ctx, &S->ops);
        S->ops = fresh;
    }
    spx_phase_add(log, "upload", spx_now() - t0);
    return s;
}

/* Frees C's device arrays (the next run allocates them again), stream-ordered: the kernels that
 * may still use them, after a failure too, are on the context's stream (the side streams are
 * joined into it; with the caller's hooks spx_cuda_free_async waits for it first). */
static void release_c(spx_ctx *ctx, gpu_state *S)
{
    spx_cuda_free_async(ctx, S->d_cci);
    spx_cuda_free_async(ctx, S->d_cv);
    S->d_cci = NULL, S->d_cv = NULL;
}

/* The plan's last work (the numeric bins' scatter) is left queued on the stream the plan was
 * made on: a run on another stream (spx_ctx_set_stream between them) waits for it first. */
static void follow_stream(spx_ctx *ctx, gpu_state *S)
{
    const cudaStream_t now = spx_cuda_stream(ctx);
    if (S->stream != now && cudaStreamSynchronize(S->stream) != cudaSuccess) (void)cudaGetLastError();
    S->stream = now;
}

/* Queues the numeric phase into C's columns cci and values cv (device, nnz(C) each): the dense
 * panels' GEMM, every bin, the panels' result added. */
template <typename V>
static spx_status numeric_kernels(spx_ctx *ctx, gpu_state *S, int32_t *cci, V *cv)
{
    follow_stream(ctx, S);
    spx_status s = spx_gpu_panels_multiply(ctx, &S->panels, &S->ops, S->n, S->prec);
    if (!s) s = run_bins<true, V>(ctx, S, &S->num, nullptr, cci, cv);
    return s ? s : spx_gpu_panels_add(ctx, &S->panels, S->n, S->prec, S->d_crow, cci, cv);
}

/* The numeric phase into C (host, sized by the plan): C's device arrays allocated on the
 * first run and kept for the next (SPX_GPU_KEEP_C; freed on a failure), every bin run, then
 * C's row pointers, columns and values downloaded. */
template <typename V>
static spx_status numeric_into(spx_ctx *ctx, gpu_state *S, spx_phase_log *log, spx_csr *C)
{
    double t0 = spx_now();
    spx_status s = SPX_OK;
    if (!S->d_cci) s = spx_cuda_malloc_async(ctx, (void **)&S->d_cci, (size_t)S->nnz_c * sizeof *S->d_cci);
    if (!s && !S->d_cv) s = spx_cuda_malloc_async(ctx, &S->d_cv, (size_t)S->nnz_c * sizeof(V));
    if (!s) s = numeric_kernels<V>(ctx, S, S->d_cci, (V *)S->d_cv);
    if (!s) s = spx_cuda_sync(ctx);
    spx_phase_add(log, "numeric", spx_now() - t0);
    t0 = spx_now();
    if (!s) {
        s = spx_cuda_d2h(ctx, C->rowptr, S->d_crow, ((size_t)S->m + 1) * sizeof *C->rowptr);
        if (!s) s = spx_spgemm_dev_download(ctx, S->d_cci, S->d_cv, S->prec, S->nnz_c, C);
    }
    spx_phase_add(log, "download", spx_now() - t0);
    if (!SPX_GPU_KEEP_C || s) release_c(ctx, S);
    return s;
}

/* The numeric phase in the plan's precision. */
static spx_status gpu_numeric(spx_ctx *ctx, void *state, spx_phase_log *log, spx_csr *C)
{
    gpu_state *S = (gpu_state *)state;
    return S->prec == SPX_FP32 ? numeric_into<float>(ctx, S, log, C) : numeric_into<double>(ctx, S, log, C);
}

/* The numeric phase straight into the device CSR C (allocated by the plan): its columns and
 * values written by the kernels, its row pointers copied from d_crow (narrowed for int32 ones);
 * one wait at the end. */
template <typename V>
static spx_status numeric_dev_into(spx_ctx *ctx, gpu_state *S, spx_phase_log *log, spx_csr_dev *C)
{
    const double t0 = spx_now();
    spx_status s = numeric_kernels<V>(ctx, S, C->colind, (V *)C->val);
    const size_t rows = (size_t)S->m + 1;
    if (!s && C->rowptr_type == SPX_INDEX_INT64) s = spx_cuda_d2d_async(ctx, C->rowptr, S->d_crow, rows * sizeof(int64_t));
    else if (!s) s = spx_cuda_cast(ctx, (const int64_t *)S->d_crow, (int32_t *)C->rowptr, (int64_t)rows);
    if (!s) s = spx_cuda_sync(ctx);
    spx_phase_add(log, "numeric", spx_now() - t0);
    return s;
}

static spx_status gpu_numeric_dev(spx_ctx *ctx, void *state, spx_phase_log *log, spx_csr_dev *C)
{
    gpu_state *S = (gpu_state *)state;
    return S->prec == SPX_FP32 ? numeric_dev_into<float>(ctx, S, log, C) : numeric_dev_into<double>(ctx, S, log, C);
}

static void gpu_destroy(spx_ctx *ctx, void *state)
{
    gpu_state *S = (gpu_state *)state;
    if (!S) return;
    follow_stream(ctx, S); /* the plan's last scatter, when queued on another stream than the context's now */
    release_c(ctx, S);
    spx_spgemm_dev_free(ctx, &S->ops);
    spx_cuda_free_async(ctx, S->d_keep); /* behind the plan's work on the context's stream */
    spx_cuda_free_async(ctx, S->d_split);
    spx_gpu_panels_free(ctx, &S->panels);
    spx_free(ctx, S->h_split);
    for (int j = 0; j < S->sides; j++) cudaEventDestroy(S->join[j]); /* the streams are the context's */
    if (S->sides) cudaEventDestroy(S->fork);
    spx_free(ctx, S);
}

static const char *gpu_kernel(const void *state) { return state ? ((const gpu_state *)state)->kernel : "none"; }

/* The algorithms: default (dense panels by the cost rule), sparse (never), dense (whenever A's
 * dense rows reach B's and the panels fit, with every sparse row reaching them when those fit
 * too). */
static const char *const spx_gpu_algos[] = {"default", "sparse", "dense", NULL};

static const spx_spgemm_impl spx_gpu_impl = {
    "spx",
    "spx GPU (ApSpGEMM §4-§5.1): GPU pre-analysis and binning by table size, hash in shared memory, dense (bitmap) or "
    "global fallback, dense panels (dense and sparse rows of A x dense rows of B) by cuBLAS",
    spx_gpu_algos,
    SPX_BACKEND_CUDA,
    0,
    gpu_analyse,
    gpu_symbolic,
    gpu_update_values,
    gpu_numeric,
    gpu_destroy,
    gpu_kernel,
    NULL, /* numeric_rows */
    NULL, /* row_pointers */
    gpu_analyse_rows,
    gpu_numeric_dev,
};

extern "C" const spx_spgemm_impl *spx_spgemm_spx(void) { return &spx_gpu_impl; }
