/* src/spgemm/spx/spx_dense_panel.cu: the spx GPU SpGEMM's dense panels (ApSpGEMM §4.2, §5.1
 * "DGEMM" and "SpMM"; spx_dense_panel.h says what they are): the survey of A's and B's dense
 * rows and of A's sparse rows reaching B's, the decision, the lists, the gathers into dense
 * panels, the cuBLAS GEMM and the addition of its result into C. */
#include <stdint.h>
#include <string.h>

#include "spgemm/spx/spx_dense_panel.h"
#include "spgemm/spx/spx_tuning.h"

/* Threads per block of the panels' kernels; grid-stride blocks per SM. */
#define PANEL_BLOCK 256
#define PANEL_BLOCKS_PER_SM 8
/* The sparse rows' survey: the most steps a group of lanes takes on one row; longer rows are
 * walked by the whole warp (a guess: a warp's other groups wait while one walks). */
#define PANEL_GROUP_STEPS 32

/* Row lists are walked by 2D grids: blockIdx.y (grid-stride) picks a listed row, blockIdx.x
 * (grid-stride, with the threads) its entries; a dense row of 800k entries is spread over the
 * GPU, not left to one warp or block (ncu, H100, the power-law matrix of exponent 1.5: a warp
 * a row gathered A_dd in 8 ms a run). */

/* The entries of A's listed rows rows_a[0..na) whose B row is longer than b_min, counted into
 * s->block_nnz, those B rows' lengths summed into s->block_products. */
__global__ void __launch_bounds__(PANEL_BLOCK)
    spx_panel_survey_kernel(const int32_t *__restrict__ rows_a, int32_t na, const int32_t *__restrict__ arp,
                            const int32_t *__restrict__ aci, const int32_t *__restrict__ brp, int32_t b_min,
                            spx_gpu_panel_survey *__restrict__ s)
{
    unsigned long long nnz = 0, prod = 0;
    for (int64_t r = blockIdx.y; r < na; r += gridDim.y) {
        const int32_t i = rows_a[r];
        for (int64_t q = arp[i] + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; q < arp[i + 1];
             q += (int64_t)gridDim.x * blockDim.x) {
            const int32_t j = aci[q], len = brp[j + 1] - brp[j];
            if (len > b_min) nnz++, prod += (unsigned long long)len;
        }
    }
    for (int off = 16; off > 0; off >>= 1) {
        nnz += __shfl_xor_sync(0xffffffffu, nnz, off);
        prod += __shfl_xor_sync(0xffffffffu, prod, off);
    }
    if ((threadIdx.x & 31) == 0 && nnz) atomicAdd(&s->block_nnz, nnz), atomicAdd(&s->block_products, prod);
}

/* The rows of rp (rows rows) longer than min: counted into *count, and with list their ids
 * at the places the count hands out (any order), with pos each row's place there (pos set to
 * -1 beforehand by the caller). */
__global__ void __launch_bounds__(PANEL_BLOCK)
    spx_panel_rows_kernel(int32_t rows, const int32_t *__restrict__ rp, int32_t min, int32_t *__restrict__ list,
                          int32_t *__restrict__ pos, unsigned long long *__restrict__ count)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += (int64_t)gridDim.x * blockDim.x)
        if (rp[i + 1] - rp[i] > min) {
            const unsigned long long at = atomicAdd(count, 1ull);
            if (list) list[at] = (int32_t)i;
            if (pos) pos[i] = (int32_t)at;
        }
}

/* Records row i of A, whose entries in B rows longer than b_min are nnz and stand for prod
 * products, when prod exceeds min_products: with list, its id at base plus the place *count
 * hands out; without, counted into s (rows_sparse, sparse_nnz, sparse_products). */
__device__ __forceinline__ void spx_panel_sparse_take(int64_t i, long long prod, long long nnz, long long min_products,
                                                      int32_t *__restrict__ list, int64_t base,
                                                      unsigned long long *__restrict__ count,
                                                      spx_gpu_panel_survey *__restrict__ s)
{
    if (prod <= min_products) return;
    if (list) {
        list[base + (int64_t)atomicAdd(count, 1ull)] = (int32_t)i;
        return;
    }
    atomicAdd(&s->rows_sparse, 1ull);
    atomicAdd(&s->sparse_nnz, (unsigned long long)nnz);
    atomicAdd(&s->sparse_products, (unsigned long long)prod);
}

/* The entries of A's row entries [a0, a1) in B rows longer than b_min (*nnz) and the products
 * they stand for (returned), summed over the lanes of a group of L (a power of two) that walk
 * them from lane sub; every lane of the warp calls it (the shuffles). */
__device__ __forceinline__ long long spx_panel_dense_products(const int32_t *__restrict__ aci,
                                                              const int32_t *__restrict__ brp, int32_t b_min,
                                                              int32_t a0, int32_t a1, int sub, int L, long long *nnz)
{
    long long prod = 0, n = 0;
    for (int64_t q = a0 + sub; q < a1; q += L) { /* 64-bit: a0 + 32 may pass 2^31 */
        const int32_t j = aci[q], len = brp[j + 1] - brp[j];
        if (len > b_min) prod += len, n++;
    }
    for (int off = L >> 1; off > 0; off >>= 1) {
        prod += __shfl_xor_sync(0xffffffffu, prod, off);
        n += __shfl_xor_sync(0xffffffffu, n, off);
    }
    *nnz = n;
    return prod;
}

/* A's sparse rows (at most a_min entries) whose products in B rows longer than b_min exceed
 * min_products, recorded by spx_panel_sparse_take; rows whose products in all of B (prods,
 * the pre-analysis's; NULL: every sparse row is walked) do not exceed min_products are not
 * walked. L lanes a row (a power of two up to 32; a warp takes 32 / L rows at a time,
 * grid-stride); a row of more than PANEL_GROUP_STEPS * L entries is skipped by its group and
 * walked by the whole warp (the power-law matrices' rows reach 50,000 entries below a_min: 8
 * lanes a row took 3-5 ms a plan there, H100). */
__global__ void __launch_bounds__(PANEL_BLOCK)
    spx_panel_sparse_rows_kernel(int32_t m, const int32_t *__restrict__ arp, const int32_t *__restrict__ aci,
                                 const int32_t *__restrict__ brp, int32_t a_min, int32_t b_min,
                                 const int64_t *__restrict__ prods, long long min_products, int L,
                                 int32_t *__restrict__ list, int64_t base, unsigned long long *__restrict__ count,
                                 spx_gpu_panel_survey *__restrict__ s)
{
    const int lane = threadIdx.x & 31, sub = lane & (L - 1), per_warp = 32 / L;
    const int64_t warps = (int64_t)gridDim.x * (blockDim.x >> 5);
    for (int64_t r0 = (((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5) * per_warp; r0 < m;
         r0 += warps * per_warp) { /* the same in every lane: the shuffles see the whole warp */
        const int64_t i = r0 + lane / L;
        const int32_t a0 = i < m ? arp[i] : 0, a1 = i < m ? arp[i + 1] : 0;
        const bool sparse = i < m && a1 - a0 <= a_min && (!prods || prods[i] > min_products);
        const bool wide = sparse && a1 - a0 > PANEL_GROUP_STEPS * L;
        long long nnz = 0;
        const long long prod = spx_panel_dense_products(aci, brp, b_min, a0, sparse && !wide ? a1 : a0, sub, L, &nnz);
        if (sub == 0 && sparse && !wide) spx_panel_sparse_take(i, prod, nnz, min_products, list, base, count, s);
        for (unsigned wides = __ballot_sync(0xffffffffu, wide && sub == 0); wides; wides &= wides - 1) {
            const int src = __ffs(wides) - 1;
            const int64_t w = __shfl_sync(0xffffffffu, i, src);
            const int32_t w0 = __shfl_sync(0xffffffffu, a0, src), w1 = __shfl_sync(0xffffffffu, a1, src);
            long long wnnz = 0;
            const long long wprod = spx_panel_dense_products(aci, brp, b_min, w0, w1, lane, 32, &wnnz);
            if (lane == 0) spx_panel_sparse_take(w, wprod, wnnz, min_products, list, base, count, s);
        }
    }
}

/* pos[list[r]] = r for r < n (pos set to -1 beforehand by the caller). */
__global__ void __launch_bounds__(PANEL_BLOCK)
    spx_panel_places_kernel(const int32_t *__restrict__ list, int32_t n, int32_t *__restrict__ pos)
{
    for (int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; r < n; r += (int64_t)gridDim.x * blockDim.x)
        pos[list[r]] = (int32_t)r;
}

/* A_dd (rows_a x rows_b, row-major, zeroed): row r holds A's row rows_a[r] at the places of
 * its dense B rows (2D grid). */
template <typename V>
__global__ void __launch_bounds__(PANEL_BLOCK)
    spx_panel_gather_a_kernel(const int32_t *__restrict__ rows_a, int32_t na, const int32_t *__restrict__ arp,
                              const int32_t *__restrict__ aci, const V *__restrict__ av,
                              const int32_t *__restrict__ pos_b, int32_t nb, V *__restrict__ a_dd)
{
    for (int64_t r = blockIdx.y; r < na; r += gridDim.y) {
        const int32_t i = rows_a[r];
        for (int64_t q = arp[i] + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; q < arp[i + 1];
             q += (int64_t)gridDim.x * blockDim.x) {
            const int32_t p = pos_b[aci[q]];
            if (p >= 0) a_dd[r * nb + p] = av[q];
        }
    }
}

/* B_d (rows_b x n, row-major, zeroed): row p holds B's row rows_b[p] (2D grid). */
template <typename V>
__global__ void __launch_bounds__(PANEL_BLOCK)
    spx_panel_gather_b_kernel(const int32_t *__restrict__ rows_b, int32_t nb, const int32_t *__restrict__ brp,
                              const int32_t *__restrict__ bci, const V *__restrict__ bv, int32_t n,
                              V *__restrict__ b_d)
{
    for (int64_t p = blockIdx.y; p < nb; p += gridDim.y) {
        const int32_t j = rows_b[p];
        for (int64_t q = brp[j] + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; q < brp[j + 1];
             q += (int64_t)gridDim.x * blockDim.x)
            b_d[p * n + bci[q]] = bv[q];
    }
}

/* C's row rows_a[r] += G's row r at its columns (2D grid). */
template <typename V>
__global__ void __launch_bounds__(PANEL_BLOCK)
    spx_panel_add_kernel(const int32_t *__restrict__ rows_a, int32_t na, int32_t n, const V *__restrict__ g,
                         const int64_t *__restrict__ crow, const int32_t *__restrict__ cci, V *__restrict__ cv)
{
    for (int64_t r = blockIdx.y; r < na; r += gridDim.y) {
        const int32_t i = rows_a[r];
        const V *gr = g + r * n;
        for (int64_t e = crow[i] + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < crow[i + 1];
             e += (int64_t)gridDim.x * blockDim.x)
            cv[e] += gr[cci[e]];
    }
}

/* The 2D grid over rows listed rows: y one a row (at most 65535, grid-stride beyond), x enough
 * blocks for PANEL_BLOCKS_PER_SM blocks an SM over all of them. */
static dim3 row_grid(const spx_ctx *ctx, int32_t rows)
{
    const unsigned y = rows < 1 ? 1u : rows > 65535 ? 65535u : (unsigned)rows;
    const unsigned all = spx_cuda_grid_stride_blocks(ctx, INT32_MAX, PANEL_BLOCK, PANEL_BLOCKS_PER_SM);
    return dim3((all + y - 1) / y, y, 1);
}

void spx_gpu_panels_none(spx_gpu_panels *P)
{
    memset(P, 0, sizeof *P);
    P->a_min = P->b_min = INT32_MAX;
}

/* The list block carved from base (NULL: sized only): the survey's counts, a counter, A's
 * panel rows (room for cap); the bytes. */
static size_t list_layout(spx_gpu_panels *P, int64_t cap, void *base)
{
    carver c = {(unsigned char *)base, 0};
    P->d_survey = (spx_gpu_panel_survey *)carve(&c, sizeof(spx_gpu_panel_survey));
    P->d_counter = (unsigned long long *)carve(&c, sizeof(unsigned long long));
    P->d_rows_a = (int32_t *)carve(&c, (size_t)cap * sizeof(int32_t));
    return c.used;
}

/* The panels' block carved from base (NULL: sized only), for m rows of A, k rows of B, C's n
 * columns and values of vbytes; the bytes. */
static size_t panel_layout(spx_gpu_panels *P, int32_t m, int32_t k, int32_t n, size_t vbytes, void *base)
{
    carver c = {(unsigned char *)base, 0};
    const size_t na = (size_t)P->rows_a, nb = (size_t)P->rows_b;
    P->d_pos_a = (int32_t *)carve(&c, (size_t)m * sizeof(int32_t));
    P->d_rows_b = (int32_t *)carve(&c, nb * sizeof(int32_t));
    P->d_pos_b = (int32_t *)carve(&c, (size_t)k * sizeof(int32_t));
    P->d_a = carve(&c, na * nb * vbytes);
    P->d_b = carve(&c, nb * (size_t)n * vbytes);
    P->d_g = carve(&c, na * (size_t)n * vbytes);
    return c.used;
}

/* The cost rule: whether the products taken off the sparse path outweigh what the panels move
 * and compute (spx_tuning.h, SPX_GPU_PANEL_*). */
static bool panels_pay(const spx_gpu_panels *P, int32_t n, size_t vbytes)
{
    const double na = P->rows_a, nb = P->rows_b, v = (double)vbytes;
    const double moved = v * (na * nb + 3.0 * nb * n + 2.0 * na * n) + 2.0 * na * nb * n / SPX_GPU_PANEL_FLOPS_PER_BYTE;
    return (double)P->survey.block_products * SPX_GPU_PANEL_PRODUCT_BYTES > moved;
}

/* The fewest products in B's dense rows for which a sparse row of A pays for its row of G (2 n
 * values moved, at SPX_GPU_PANEL_PRODUCT_BYTES a product); FORCE: any. */
static long long sparse_row_min_products(spx_gpu_panel_mode mode, int32_t n, size_t vbytes)
{
    if (mode == SPX_GPU_PANELS_FORCE) return 0;
    return (long long)(2.0 * (double)n * (double)vbytes / SPX_GPU_PANEL_PRODUCT_BYTES);
}

/* Queues A's sparse rows past min_products in B's dense rows (prods: the rows' products in
 * all of B, or NULL): listed after base (list), or counted into P->d_survey (list NULL). */
static spx_status sparse_rows(spx_ctx *ctx, const spx_spgemm_operands *ops, int32_t m, const int64_t *prods,
                              long long min_products, spx_gpu_panels *P, int32_t *list, int64_t base)
{
    const int lanes = spx_gpu_row_lanes(ops->A.nnz, m, 1);
    spx_panel_sparse_rows_kernel<<<spx_cuda_grid_stride_blocks(ctx, m, PANEL_BLOCK, PANEL_BLOCKS_PER_SM), PANEL_BLOCK,
                                   0, spx_cuda_stream(ctx)>>>(m, ops->A.rowptr, ops->A.colind, ops->B.rowptr, P->a_min,
                                                              P->b_min, prods, min_products, lanes, list, base,
                                                              P->d_counter, P->d_survey);
    SPX_CUDA_LAUNCHED(ctx, "spx_panel_sparse_rows_kernel");
    return SPX_OK;
}

/* Surveys the panel rows on the device: lists A's dense rows and counts them, counts B's dense
 * rows and A's sparse rows past min_products in B's (with their entries and products there),
 * then the dense rows' entries in B's dense rows and their products (block_*): P->survey, two
 * downloads (one when B or A has no dense row). The sparse rows are listed only when taken. */
static spx_status survey(spx_ctx *ctx, const spx_spgemm_operands *ops, int32_t m, int32_t k, const int64_t *prods,
                         long long min_products, spx_gpu_panels *P)
{
    spx_status s = spx_cuda_malloc_async(ctx, &P->d_list, list_layout(P, m, NULL));
    if (s) return s; /* nothing counted: no panels */
    list_layout(P, m, P->d_list);
    const cudaStream_t st = spx_cuda_stream(ctx);
    SPX_CUDA_RET(ctx, cudaMemsetAsync(P->d_survey, 0, sizeof *P->d_survey, st));
    spx_panel_rows_kernel<<<spx_cuda_grid_stride_blocks(ctx, m, PANEL_BLOCK, PANEL_BLOCKS_PER_SM), PANEL_BLOCK, 0,
                            st>>>(m, ops->A.rowptr, P->a_min, P->d_rows_a, NULL, &P->d_survey->rows_a);
    SPX_CUDA_LAUNCHED(ctx, "spx_panel_rows_kernel");
    spx_panel_rows_kernel<<<spx_cuda_grid_stride_blocks(ctx, k, PANEL_BLOCK, PANEL_BLOCKS_PER_SM), PANEL_BLOCK, 0,
                            st>>>(k, ops->B.rowptr, P->b_min, NULL, NULL, &P->d_survey->rows_b);
    SPX_CUDA_LAUNCHED(ctx, "spx_panel_rows_kernel");
    if ((s = sparse_rows(ctx, ops, m, prods, min_products, P, NULL, 0))) return s;
    if ((s = spx_cuda_d2h(ctx, &P->survey, P->d_survey, sizeof P->survey))) return s;
    P->rows_b = (int32_t)P->survey.rows_b;
    if (!P->rows_b || !P->survey.rows_a) return SPX_OK;
    SPX_CUDA_RET(ctx, cudaMemsetAsync(P->d_survey, 0, sizeof *P->d_survey, st));
    spx_panel_survey_kernel<<<row_grid(ctx, (int32_t)P->survey.rows_a), PANEL_BLOCK, 0, st>>>(
        P->d_rows_a, (int32_t)P->survey.rows_a, ops->A.rowptr, ops->A.colind, ops->B.rowptr, P->b_min, P->d_survey);
    SPX_CUDA_LAUNCHED(ctx, "spx_panel_survey_kernel");
    spx_gpu_panel_survey dense;
    if ((s = spx_cuda_d2h(ctx, &dense, P->d_survey, sizeof dense))) return s;
    P->survey.block_nnz = dense.block_nnz, P->survey.block_products = dense.block_products;
    return SPX_OK;
}

/* Whether the panels of P->rows_a rows with the block P->survey describes are taken: the block
 * has an entry, fits, and (default algorithm) pays; *bytes their block's. */
static bool panels_taken(spx_gpu_panels *P, int32_t m, int32_t k, int32_t n, size_t vbytes, spx_gpu_panel_mode mode,
                         size_t room, size_t *bytes)
{
    *bytes = panel_layout(P, m, k, n, vbytes, NULL);
    return P->rows_a && P->rows_b && P->survey.block_nnz && *bytes <= SPX_GPU_PANEL_MAX_BYTES && *bytes <= room &&
           (mode == SPX_GPU_PANELS_FORCE || panels_pay(P, n, vbytes));
}

/* Decides the panels' rows: A's dense rows and the surveyed sparse ones when they are taken,
 * else the dense rows alone when those are; *bytes the block's. */
static bool choose_rows(spx_gpu_panels *P, int32_t m, int32_t k, int32_t n, size_t vbytes, spx_gpu_panel_mode mode,
                        size_t room, size_t *bytes)
{
    const spx_gpu_panel_survey found = P->survey;
    P->rows_sparse = (int32_t)found.rows_sparse;
    P->rows_a = (int32_t)(found.rows_a + found.rows_sparse);
    P->survey.block_nnz += found.sparse_nnz, P->survey.block_products += found.sparse_products;
    if (P->rows_sparse && panels_taken(P, m, k, n, vbytes, mode, room, bytes)) return true;
    P->survey = found, P->rows_sparse = 0, P->rows_a = (int32_t)found.rows_a; /* block_*: the dense rows' */
    return panels_taken(P, m, k, n, vbytes, mode, room, bytes);
}

/* Lists B's dense rows into the block (their places into d_pos_b, -1 elsewhere), the taken
 * sparse rows of A after its dense ones, and the panel rows' places into d_pos_a (-1
 * elsewhere). */
static spx_status list_rows(spx_ctx *ctx, const spx_spgemm_operands *ops, int32_t m, int32_t k, const int64_t *prods,
                            long long min_products, spx_gpu_panels *P)
{
    const cudaStream_t st = spx_cuda_stream(ctx);
    SPX_CUDA_RET(ctx, cudaMemsetAsync(P->d_counter, 0, sizeof *P->d_counter, st));
    SPX_CUDA_RET(ctx, cudaMemsetAsync(P->d_pos_b, 0xff, (size_t)k * sizeof(int32_t), st)); /* -1 */
    spx_panel_rows_kernel<<<spx_cuda_grid_stride_blocks(ctx, k, PANEL_BLOCK, PANEL_BLOCKS_PER_SM), PANEL_BLOCK, 0,
                            st>>>(k, ops->B.rowptr, P->b_min, P->d_rows_b, P->d_pos_b, P->d_counter);
    SPX_CUDA_LAUNCHED(ctx, "spx_panel_rows_kernel");
    if (P->rows_sparse) {
        SPX_CUDA_RET(ctx, cudaMemsetAsync(P->d_counter, 0, sizeof *P->d_counter, st));
        spx_status s = sparse_rows(ctx, ops, m, prods, min_products, P, P->d_rows_a, (int64_t)P->survey.rows_a);
        if (s) return s;
    }
    SPX_CUDA_RET(ctx, cudaMemsetAsync(P->d_pos_a, 0xff, (size_t)m * sizeof(int32_t), st)); /* -1 */
    spx_panel_places_kernel<<<spx_cuda_grid_stride_blocks(ctx, P->rows_a, PANEL_BLOCK, PANEL_BLOCKS_PER_SM),
                              PANEL_BLOCK, 0, st>>>(P->d_rows_a, P->rows_a, P->d_pos_a);
    SPX_CUDA_LAUNCHED(ctx, "spx_panel_places_kernel");
    return SPX_OK;
}

spx_status spx_gpu_panels_plan(spx_ctx *ctx, const spx_spgemm_operands *ops, const int64_t *row_products, int32_t m,
                               int32_t k, int32_t n, spx_precision prec, spx_gpu_panel_mode mode, size_t room,
                               spx_gpu_panels *P)
{
    spx_gpu_panels_none(P);
    if (mode == SPX_GPU_PANELS_OFF || !m || !k || !n) return SPX_OK;
    P->a_min = spx_gpu_dense_min(k), P->b_min = spx_gpu_dense_min(n);
    const size_t vbytes = spx_precision_bytes(prec);
    const long long min_products = sparse_row_min_products(mode, n, vbytes);
    spx_status s = survey(ctx, ops, m, k, row_products, min_products, P);
    size_t bytes = 0;
    const bool take = !s && choose_rows(P, m, k, n, vbytes, mode, room, &bytes);
    bool blas_failed = false;
    if (take) { /* cuBLAS's handle made here, so that a failure turns the panels off */
        if ((s = spx_cuda_blas_open(ctx))) blas_failed = true;
        else if (!(s = spx_cuda_malloc_async(ctx, &P->d_block, bytes))) {
            panel_layout(P, m, k, n, vbytes, P->d_block);
            s = list_rows(ctx, ops, m, k, row_products, min_products, P);
        }
        P->on = !s;
    }
    if (!P->on) spx_gpu_panels_free(ctx, P); /* the stream waited for by the downloads, or failed */
    /* the panels are optional: a device that refuses their memory, or cuBLAS's handle, leaves
       the plan on the sparse path; a failed kernel launch or copy is still the plan's error */
    return s == SPX_ERR_DEVICE_ALLOC || blas_failed ? SPX_OK : s;
}

/* The gathers and the GEMM in precision V. G row-major (|Ad| x n) is, column-major, the n x |Ad|
 * matrix B_d^T A_dd^T: B_d row-major is B_d^T column-major (ld n), A_dd row-major is A_dd^T
 * column-major (ld |Bd|). */
template <typename V>
static spx_status multiply(spx_ctx *ctx, const spx_gpu_panels *P, const spx_spgemm_operands *ops, int32_t n)
{
    const cudaStream_t st = spx_cuda_stream(ctx);
    const int32_t na = P->rows_a, nb = P->rows_b;
    SPX_CUDA_RET(ctx, cudaMemsetAsync(P->d_a, 0, (size_t)na * nb * sizeof(V), st));
    SPX_CUDA_RET(ctx, cudaMemsetAsync(P->d_b, 0, (size_t)nb * n * sizeof(V), st));
    spx_panel_gather_a_kernel<V><<<row_grid(ctx, na), PANEL_BLOCK, 0, st>>>(
        P->d_rows_a, na, ops->A.rowptr, ops->A.colind, (const V *)ops->A.val, P->d_pos_b, nb, (V *)P->d_a);
    SPX_CUDA_LAUNCHED(ctx, "spx_panel_gather_a_kernel");
    spx_panel_gather_b_kernel<V><<<row_grid(ctx, nb), PANEL_BLOCK, 0, st>>>(
        P->d_rows_b, nb, ops->B.rowptr, ops->B.colind, (const V *)ops->B.val, n, (V *)P->d_b);
    SPX_CUDA_LAUNCHED(ctx, "spx_panel_gather_b_kernel");
    return spx_cuda_gemm(ctx, sizeof(V) == sizeof(float) ? SPX_FP32 : SPX_FP64, n, na, nb, P->d_b, n, P->d_a, nb,
                         P->d_g, n);
}

spx_status spx_gpu_panels_multiply(spx_ctx *ctx, const spx_gpu_panels *P, const spx_spgemm_operands *ops, int32_t n,
                                   spx_precision prec)
{
    if (!P->on) return SPX_OK;
    return prec == SPX_FP32 ? multiply<float>(ctx, P, ops, n) : multiply<double>(ctx, P, ops, n);
}

spx_status spx_gpu_panels_add(spx_ctx *ctx, const spx_gpu_panels *P, int32_t n, spx_precision prec,
                              const int64_t *crow, const int32_t *cci, void *cv)
{
    if (!P->on) return SPX_OK;
    const dim3 grid = row_grid(ctx, P->rows_a);
    if (prec == SPX_FP32)
        spx_panel_add_kernel<float><<<grid, PANEL_BLOCK, 0, spx_cuda_stream(ctx)>>>(
            P->d_rows_a, P->rows_a, n, (const float *)P->d_g, crow, cci, (float *)cv);
    else
        spx_panel_add_kernel<double><<<grid, PANEL_BLOCK, 0, spx_cuda_stream(ctx)>>>(
            P->d_rows_a, P->rows_a, n, (const double *)P->d_g, crow, cci, (double *)cv);
    SPX_CUDA_LAUNCHED(ctx, "spx_panel_add_kernel");
    return SPX_OK;
}

void spx_gpu_panels_free(spx_ctx *ctx, spx_gpu_panels *P)
{
    spx_cuda_free_async(ctx, P->d_list); /* behind the panels' kernels on the context's stream */
    spx_cuda_free_async(ctx, P->d_block);
    spx_gpu_panels_none(P);
}
