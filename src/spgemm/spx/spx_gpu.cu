/* src/spgemm/spx/spx_gpu.cu: the spx GPU SpGEMM after ApSpGEMM (§4.1-§5.1), in the plan's
 * phases. analyse: upload A and B, the pre-analysis kernel (products per row of C, nonzeros
 * per column of A), rows above the sparsity threshold P counted. symbolic: rows binned by the
 * hash table they need (the paper's dynamic binning; bins in descending size, the rowind
 * reordering), a thread-group size per bin by Algorithm 2, row counts by the shared-memory
 * kernel or the global fallback, C's row pointers exactly from them, and the rows binned
 * again by their exact length for the numeric phase. numeric: C's arrays (exact size), the
 * same kernels summing, the rows written sorted, C downloaded. Every device allocation goes
 * through spx_cuda_malloc and is freed on every path. */
#include <stdio.h>
#include <string.h>

#include "spgemm/spgemm_dev.cuh"
#include "spgemm/spx/spx_kernels.cuh"

/* Bins: one per table size 2^5 .. 2^MAX_LOG2 in shared memory, plus the fallback. */
#define GPU_MAX_BINS 40

/* One launch: rows [first, first + count) of a row list, their table and thread groups. */
typedef struct gpu_bin {
    int32_t first, count;
    int slots;        /* table slots per row; 0: the global fallback */
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
    gpu_bin bin[GPU_MAX_BINS];
} gpu_bins;

typedef struct gpu_state {
    spx_spgemm_operands ops;
    spx_precision prec;
    int32_t m, k, n;
    double avg_b_row;  /* B's nonzeros per row: lanes per B row */
    int64_t *h_prod;   /* host, m: products per row of C */
    int64_t *h_crow;   /* host, m + 1: C's row pointers */
    int64_t *d_crow;   /* device, m + 1 */
    gpu_bins num;      /* the numeric phase's bins (by exact row length) */
    int64_t nnz_c, dense_rows, dense_cols, fallback_rows;
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

static size_t value_bytes(const gpu_state *S, int numeric) { return numeric ? spx_precision_bytes(S->prec) : 0; }

/* Shared bytes of one row group with a table of `slots` slots. */
static size_t group_bytes(const gpu_state *S, int numeric, int slots)
{
    return (size_t)slots * (sizeof(int32_t) + value_bytes(S, numeric)) + sizeof(int);
}

/* Table slots for a row bounded by w distinct columns; 0 when it does not fit shared memory. */
static int slots_for(const gpu_state *S, int numeric, int64_t w)
{
    const int64_t keys = w < S->n ? w : S->n;
    int64_t slots = pow2_at_least(keys * SPX_GPU_SLOTS_PER_KEY);
    if (slots < SPX_GPU_MIN_SLOTS) slots = SPX_GPU_MIN_SLOTS;
    return slots <= (1 << 24) && group_bytes(S, numeric, (int)slots) <= S->smem_limit ? (int)slots : 0;
}

/* Groups per block for groups of M lanes and the bin's table. */
static int groups_per_block(const gpu_state *S, int numeric, const gpu_bin *b, int M)
{
    const size_t per = group_bytes(S, numeric, b->slots);
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

/* Shapes bin b's launch: M from the bin's mean work, then ApSpGEMM's Algorithm 2: doubled
 * while a thread's iterations on the longest row (work_max / M) exceed ~2 x the rows each
 * group handles, halved while far below, until it settles or turns back. */
static void shape_bin(const gpu_state *S, int numeric, gpu_bin *b, int64_t work_sum)
{
    const int Mmax = b->slots < SPX_GPU_MAX_BLOCK ? b->slots : SPX_GPU_MAX_BLOCK;
    int M = pow2_at_most(work_sum / (b->count > 0 ? b->count : 1));
    if (M > Mmax) M = Mmax;
    int last = 0;
    for (int step = 0; step < SPX_GPU_ALG2_STEPS; step++) {
        const int G = groups_per_block(S, numeric, b, M);
        const int64_t blocks = (b->count + G - 1) / G, res = resident_blocks(S, G * M, G * group_bytes(S, numeric, b->slots));
        const int64_t groups = (blocks < res ? blocks : res) * G;
        const int64_t rows_per_group = (b->count + groups - 1) / groups, target = 2 * rows_per_group;
        const int64_t iter = (b->work_max + M - 1) / M;
        int dir = iter > target * SPX_GPU_ALG2_SLACK && M < Mmax ? 1 : iter * SPX_GPU_ALG2_SLACK < target && M > 1 ? -1 : 0;
        if (dir == 0 || dir == -last) break;
        M = dir > 0 ? M * 2 : M / 2;
        last = dir;
    }
    b->group = M;
    b->groups = groups_per_block(S, numeric, b, M);
    b->smem = b->groups * group_bytes(S, numeric, b->slots);
    int sub = (int)pow2_at_least((int64_t)(S->avg_b_row + 0.5));
    b->sub = sub < 1 ? 1 : sub > M ? M : sub;
    const int64_t blocks = (b->count + b->groups - 1) / b->groups;
    const int64_t res = resident_blocks(S, b->groups * M, b->smem);
    b->grid = (unsigned)(blocks < res ? blocks : res);
}

/* Bins the rows with work w[i] > 0 by table size, largest first (the rowind order), shapes
 * each bin and uploads the row list. */
static spx_status make_bins(spx_ctx *ctx, gpu_state *S, int numeric, const int64_t *w, gpu_bins *out)
{
    int32_t *rows = NULL;
    int64_t count[GPU_MAX_BINS] = {0}, sum[GPU_MAX_BINS] = {0}, maxw[GPU_MAX_BINS] = {0}, at[GPU_MAX_BINS];
    memset(out, 0, sizeof *out);
    for (int32_t i = 0; i < S->m; i++) { /* bin c: 2^(c + 5) slots; the last: fallback */
        if (w[i] <= 0) continue;
        const int slots = slots_for(S, numeric, w[i]);
        int c = GPU_MAX_BINS - 1;
        if (slots)
            for (c = 0; (SPX_GPU_MIN_SLOTS << c) < slots; c++) {}
        count[c]++, sum[c] += w[i];
        if (w[i] > maxw[c]) maxw[c] = w[i];
    }
    int64_t total = 0;
    for (int c = GPU_MAX_BINS - 1; c >= 0; c--) at[c] = total, total += count[c];
    rows = (int32_t *)spx_malloc_array(ctx, (size_t)(total ? total : 1), sizeof *rows);
    if (!rows) return spx_fail_nomem(ctx, "spgemm: row bins");
    for (int32_t i = 0; i < S->m; i++) {
        if (w[i] <= 0) continue;
        const int slots = slots_for(S, numeric, w[i]);
        int c = GPU_MAX_BINS - 1;
        if (slots)
            for (c = 0; (SPX_GPU_MIN_SLOTS << c) < slots; c++) {}
        rows[at[c]++] = i;
    }
    int64_t first = 0;
    for (int c = GPU_MAX_BINS - 1; c >= 0; c--) {
        if (!count[c]) continue;
        gpu_bin *b = &out->bin[out->n++];
        b->first = (int32_t)first, b->count = (int32_t)count[c], b->work_max = maxw[c];
        b->slots = c == GPU_MAX_BINS - 1 ? 0 : SPX_GPU_MIN_SLOTS << c;
        if (b->slots) shape_bin(S, numeric, b, sum[c]);
        first += count[c];
    }
    spx_status s = spx_cuda_malloc(ctx, (void **)&out->d_rows, (size_t)total * sizeof *rows);
    if (!s) s = spx_cuda_h2d(ctx, out->d_rows, rows, (size_t)total * sizeof *rows);
    if (s) {
        spx_cuda_free(ctx, out->d_rows);
        out->d_rows = NULL;
    }
    spx_free(ctx, rows);
    return s;
}

/* Launches one shared-memory bin. */
template <bool NUMERIC, typename V>
static spx_status launch_rows(spx_ctx *ctx, const gpu_state *S, const gpu_bins *L, const gpu_bin *b, int64_t *counts,
                              int32_t *cci, V *cv)
{
    const spx_dev_csr *A = &S->ops.A, *B = &S->ops.B;
    auto kernel = spx_spgemm_rows_kernel<NUMERIC, V>;
    SPX_CUDA_RET(ctx, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)b->smem));
    kernel<<<b->grid, b->groups * b->group, b->smem, spx_cuda_stream(ctx)>>>(
        A->rowptr, A->colind, (const V *)A->val, B->rowptr, B->colind, (const V *)B->val, L->d_rows + b->first,
        b->count, b->group, b->sub, b->slots, counts, S->d_crow, cci, cv);
    SPX_CUDA_LAUNCHED(ctx, "spx_spgemm_rows_kernel");
    return SPX_OK;
}

/* Runs the fallback bin in rounds of as many rows as the pool holds n-wide accumulators. */
template <bool NUMERIC, typename V>
static spx_status launch_fallback(spx_ctx *ctx, const gpu_state *S, const gpu_bins *L, const gpu_bin *b,
                                  int64_t *counts, int32_t *cci, V *cv)
{
    const spx_dev_csr *A = &S->ops.A, *B = &S->ops.B;
    const size_t per_row = (size_t)S->n * (sizeof(int32_t) + (NUMERIC ? sizeof(V) : 0));
    int64_t slots = per_row ? (int64_t)(SPX_GPU_FALLBACK_POOL_BYTES / per_row) : 1;
    if (slots < 1) slots = 1;
    if (slots > b->count) slots = b->count;
    int32_t *marker = NULL;
    V *vals = NULL;
    spx_status s = spx_cuda_malloc(ctx, (void **)&marker, (size_t)slots * S->n * sizeof(int32_t));
    if (!s && NUMERIC) s = spx_cuda_malloc(ctx, (void **)&vals, (size_t)slots * S->n * sizeof(V));
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
    s = spx_cuda_sync(ctx); /* the pool is freed next */
done:
    spx_cuda_free(ctx, marker);
    spx_cuda_free(ctx, vals);
    return s;
}

/* Every bin of L, symbolic (counts) or numeric (cci, cv). */
template <bool NUMERIC, typename V>
static spx_status run_bins(spx_ctx *ctx, const gpu_state *S, const gpu_bins *L, int64_t *counts, int32_t *cci, V *cv)
{
    spx_status s = SPX_OK;
    for (int i = 0; !s && i < L->n; i++)
        s = L->bin[i].slots ? launch_rows<NUMERIC, V>(ctx, S, L, &L->bin[i], counts, cci, cv)
                            : launch_fallback<NUMERIC, V>(ctx, S, L, &L->bin[i], counts, cci, cv);
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

/* §4.1 on the GPU: products per row (downloaded for binning), A's column counts (the dense
 * columns, more than one entry, are counted); rows above P counted (§4.2). */
static spx_status pre_analysis(spx_ctx *ctx, gpu_state *S, int64_t *products)
{
    int64_t *d_prod = NULL;
    int32_t *d_colcnt = NULL, *h_colcnt = NULL;
    const spx_dev_csr *A = &S->ops.A;
    spx_status s = spx_cuda_malloc(ctx, (void **)&d_prod, (size_t)S->m * sizeof *d_prod);
    if (!s) s = spx_cuda_malloc(ctx, (void **)&d_colcnt, (size_t)S->k * sizeof *d_colcnt);
    h_colcnt = (int32_t *)spx_malloc_array(ctx, (size_t)S->k, sizeof *h_colcnt);
    if (!s && !h_colcnt) s = spx_fail_nomem(ctx, "spgemm: column counts");
    if (s) goto done;
    if (S->k) SPX_CUDA_GOTO(ctx, s, cudaMemsetAsync(d_colcnt, 0, (size_t)S->k * sizeof *d_colcnt, spx_cuda_stream(ctx)));
    if (S->m) {
        const unsigned grid = spx_cuda_grid_stride_blocks(ctx, (long long)S->m * 32, SPX_GPU_ANALYSE_BLOCK,
                                                          SPX_GPU_ANALYSE_BLOCKS_PER_SM);
        spx_spgemm_products_kernel<<<grid, SPX_GPU_ANALYSE_BLOCK, 0, spx_cuda_stream(ctx)>>>(
            S->m, A->rowptr, A->colind, S->ops.B.rowptr, d_prod, d_colcnt);
        SPX_CUDA_LAUNCHED_GOTO(ctx, s, "spx_spgemm_products_kernel");
    }
    if ((s = spx_cuda_d2h(ctx, S->h_prod, d_prod, (size_t)S->m * sizeof *d_prod)) ||
        (s = spx_cuda_d2h(ctx, h_colcnt, d_colcnt, (size_t)S->k * sizeof *d_colcnt)))
        goto done;
    *products = 0;
    for (int32_t i = 0; i < S->m; i++) *products += S->h_prod[i];
    for (int32_t c = 0; c < S->k; c++) S->dense_cols += h_colcnt[c] > 1;
done:
    spx_cuda_free(ctx, d_prod);
    spx_cuda_free(ctx, d_colcnt);
    spx_free(ctx, h_colcnt);
    return s;
}

static spx_status gpu_analyse(spx_ctx *ctx, const spx_spgemm_input *in, spx_phase_log *log, void **state,
                              int64_t *products)
{
    gpu_state *S = (gpu_state *)spx_calloc_array(ctx, 1, sizeof *S);
    if (!S) return spx_fail_nomem(ctx, "spx GPU SpGEMM state");
    S->prec = in->precision;
    S->m = in->A->m, S->k = in->A->n, S->n = in->B->n;
    S->avg_b_row = in->B->m ? (double)in->B->nnz / in->B->m : 0.0;
    read_device(ctx, S);
    for (int32_t i = 0; i < S->m && S->k > 0; i++) /* §4.2: S_i = nnz_i / ncols above P */
        S->dense_rows += (double)(in->A->rowptr[i + 1] - in->A->rowptr[i]) / S->k > SPX_GPU_DENSE_ROW_P;
    double t0 = spx_now();
    spx_status s = spx_spgemm_dev_upload(ctx, in, &S->ops);
    spx_phase_add(log, "upload", spx_now() - t0);
    S->h_prod = (int64_t *)spx_malloc_array(ctx, (size_t)S->m, sizeof *S->h_prod);
    S->h_crow = (int64_t *)spx_calloc_array(ctx, (size_t)S->m + 1, sizeof *S->h_crow);
    if (!s && (!S->h_prod || !S->h_crow)) s = spx_fail_nomem(ctx, "spx GPU SpGEMM analysis");
    if (!s) s = spx_cuda_malloc(ctx, (void **)&S->d_crow, ((size_t)S->m + 1) * sizeof *S->d_crow);
    t0 = spx_now();
    if (!s) s = pre_analysis(ctx, S, products);
    spx_phase_add(log, "analyse", spx_now() - t0);
    if (s) {
        gpu_destroy(ctx, S);
        return s;
    }
    snprintf(S->kernel, sizeof S->kernel, "spx_spgemm_rows_%s", S->prec == SPX_FP32 ? "fp32" : "fp64");
    *state = S;
    return SPX_OK;
}

/* Symbolic counts into d_crow[0..m) (0 for rows without products), downloaded and summed
 * into h_crow on the host, uploaded as C's row pointers. */
template <typename V>
static spx_status count_rows(spx_ctx *ctx, gpu_state *S, const gpu_bins *L)
{
    int64_t *counts = S->h_crow + 1;
    spx_status s = SPX_OK;
    if (S->m) SPX_CUDA_RET(ctx, cudaMemsetAsync(S->d_crow, 0, (size_t)S->m * sizeof(int64_t), spx_cuda_stream(ctx)));
    if ((s = run_bins<false, V>(ctx, S, L, S->d_crow, nullptr, nullptr)) ||
        (s = spx_cuda_d2h(ctx, counts, S->d_crow, (size_t)S->m * sizeof(int64_t))))
        return s;
    S->h_crow[0] = 0;
    for (int32_t i = 0; i < S->m; i++) S->h_crow[i + 1] += S->h_crow[i];
    return spx_cuda_h2d(ctx, S->d_crow, S->h_crow, ((size_t)S->m + 1) * sizeof(int64_t));
}

static spx_status gpu_symbolic(spx_ctx *ctx, void *state, spx_phase_log *log, int64_t *nnz_c)
{
    gpu_state *S = (gpu_state *)state;
    gpu_bins sym;
    int64_t *len = NULL;
    double t0 = spx_now();
    spx_status s = make_bins(ctx, S, 0, S->h_prod, &sym);
    spx_phase_add(log, "reorder", spx_now() - t0);
    if (s) return s;
    t0 = spx_now();
    s = S->prec == SPX_FP32 ? count_rows<float>(ctx, S, &sym) : count_rows<double>(ctx, S, &sym);
    spx_cuda_free(ctx, sym.d_rows);
    for (int i = 0; i < sym.n; i++) S->fallback_rows += sym.bin[i].slots ? 0 : sym.bin[i].count;
    spx_phase_add(log, "symbolic", spx_now() - t0);
    if (s) return s;
    t0 = spx_now();
    len = (int64_t *)spx_malloc_array(ctx, (size_t)S->m + 1, sizeof *len);
    if (!len) return spx_fail_nomem(ctx, "spgemm: row lengths");
    for (int32_t i = 0; i < S->m; i++) len[i] = S->h_crow[i + 1] - S->h_crow[i];
    s = make_bins(ctx, S, 1, len, &S->num);
    spx_free(ctx, len);
    spx_phase_add(log, "reorder", spx_now() - t0);
    S->nnz_c = S->h_crow[S->m];
    *nnz_c = S->nnz_c;
    return s;
}

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

template <typename V>
static spx_status numeric_into(spx_ctx *ctx, gpu_state *S, spx_phase_log *log, spx_csr *C)
{
    int32_t *cci = NULL;
    V *cv = NULL;
    double t0 = spx_now();
    spx_status s = spx_cuda_malloc(ctx, (void **)&cci, (size_t)S->nnz_c * sizeof *cci);
    if (!s) s = spx_cuda_malloc(ctx, (void **)&cv, (size_t)S->nnz_c * sizeof *cv);
    if (!s) s = run_bins<true, V>(ctx, S, &S->num, nullptr, cci, cv);
    if (!s) s = spx_cuda_sync(ctx);
    spx_phase_add(log, "numeric", spx_now() - t0);
    t0 = spx_now();
    if (!s) {
        memcpy(C->rowptr, S->h_crow, ((size_t)S->m + 1) * sizeof *C->rowptr);
        s = spx_spgemm_dev_download(ctx, cci, cv, S->prec, S->nnz_c, C);
    }
    spx_phase_add(log, "download", spx_now() - t0);
    spx_cuda_free(ctx, cci);
    spx_cuda_free(ctx, cv);
    return s;
}

static spx_status gpu_numeric(spx_ctx *ctx, void *state, spx_phase_log *log, spx_csr *C)
{
    gpu_state *S = (gpu_state *)state;
    return S->prec == SPX_FP32 ? numeric_into<float>(ctx, S, log, C) : numeric_into<double>(ctx, S, log, C);
}

static void gpu_destroy(spx_ctx *ctx, void *state)
{
    gpu_state *S = (gpu_state *)state;
    if (!S) return;
    spx_spgemm_dev_free(ctx, &S->ops);
    spx_cuda_free(ctx, S->d_crow);
    spx_cuda_free(ctx, S->num.d_rows);
    spx_free(ctx, S->h_prod);
    spx_free(ctx, S->h_crow);
    spx_free(ctx, S);
}

static const char *gpu_kernel(const void *state) { return state ? ((const gpu_state *)state)->kernel : "none"; }

static const spx_spgemm_impl spx_gpu_impl = {
    "spx",
    "spx GPU (ApSpGEMM §4-§5.1): GPU pre-analysis, rows binned by table size, hash in shared memory, global fallback",
    NULL,
    SPX_BACKEND_CUDA,
    0,
    gpu_analyse,
    gpu_symbolic,
    gpu_update_values,
    gpu_numeric,
    gpu_destroy,
    gpu_kernel,
};

extern "C" const spx_spgemm_impl *spx_spgemm_spx(void) { return &spx_gpu_impl; }
