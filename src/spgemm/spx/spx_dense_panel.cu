/* src/spgemm/spx/spx_dense_panel.cu: the spx GPU SpGEMM's dense x dense panels (ApSpGEMM
 * §4.2, §5.1 "DGEMM"; spx_dense_panel.h says what they are): the survey of A's and B's dense
 * rows, the decision, the lists, the gathers into dense panels, the cuBLAS GEMM and the
 * addition of its result into C. */
#include <stdint.h>
#include <string.h>

#include "spgemm/spx/spx_dense_panel.h"
#include "spgemm/spx/spx_tuning.h"

/* Threads per block of the panels' kernels; grid-stride blocks per SM. */
#define PANEL_BLOCK 256
#define PANEL_BLOCKS_PER_SM 8

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
 * dense rows (room for cap); the bytes. */
static size_t list_layout(spx_gpu_panels *P, int64_t cap, void *base)
{
    carver c = {(unsigned char *)base, 0};
    P->d_survey = (spx_gpu_panel_survey *)carve(&c, sizeof(spx_gpu_panel_survey));
    P->d_counter = (unsigned long long *)carve(&c, sizeof(unsigned long long));
    P->d_rows_a = (int32_t *)carve(&c, (size_t)cap * sizeof(int32_t));
    return c.used;
}

/* The panels' block carved from base (NULL: sized only), for k rows of B, C's n columns and
 * values of vbytes; the bytes. */
static size_t panel_layout(spx_gpu_panels *P, int32_t k, int32_t n, size_t vbytes, void *base)
{
    carver c = {(unsigned char *)base, 0};
    const size_t na = (size_t)P->rows_a, nb = (size_t)P->rows_b;
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

/* Counts B's dense rows and lists A's (into P->d_rows_a, counted) on the device, then the
 * entries of A's dense rows in B's dense rows (when both exist): P->survey, two downloads. */
static spx_status survey(spx_ctx *ctx, const spx_spgemm_operands *ops, int32_t m, int32_t k, spx_gpu_panels *P)
{
    int64_t cap = ops->A.nnz / ((int64_t)P->a_min + 1) + 1; /* rows of more than a_min entries */
    if (cap > m) cap = m;
    spx_status s = spx_cuda_malloc(ctx, &P->d_list, list_layout(P, cap, NULL));
    if (s) return s; /* nothing counted: no panels */
    list_layout(P, cap, P->d_list);
    const cudaStream_t st = spx_cuda_stream(ctx);
    SPX_CUDA_RET(ctx, cudaMemsetAsync(P->d_survey, 0, sizeof *P->d_survey, st));
    spx_panel_rows_kernel<<<spx_cuda_grid_stride_blocks(ctx, m, PANEL_BLOCK, PANEL_BLOCKS_PER_SM), PANEL_BLOCK, 0,
                            st>>>(m, ops->A.rowptr, P->a_min, P->d_rows_a, NULL, &P->d_survey->rows_a);
    SPX_CUDA_LAUNCHED(ctx, "spx_panel_rows_kernel");
    spx_panel_rows_kernel<<<spx_cuda_grid_stride_blocks(ctx, k, PANEL_BLOCK, PANEL_BLOCKS_PER_SM), PANEL_BLOCK, 0,
                            st>>>(k, ops->B.rowptr, P->b_min, NULL, NULL, &P->d_survey->rows_b);
    SPX_CUDA_LAUNCHED(ctx, "spx_panel_rows_kernel");
    if ((s = spx_cuda_d2h(ctx, &P->survey, P->d_survey, sizeof P->survey))) return s;
    P->rows_a = (int32_t)P->survey.rows_a, P->rows_b = (int32_t)P->survey.rows_b;
    if (!P->rows_a || !P->rows_b) return SPX_OK;
    spx_panel_survey_kernel<<<row_grid(ctx, P->rows_a), PANEL_BLOCK, 0, st>>>(
        P->d_rows_a, P->rows_a, ops->A.rowptr, ops->A.colind, ops->B.rowptr, P->b_min, P->d_survey);
    SPX_CUDA_LAUNCHED(ctx, "spx_panel_survey_kernel");
    return spx_cuda_d2h(ctx, &P->survey, P->d_survey, sizeof P->survey);
}

/* Lists B's dense rows into the block (their places into d_pos_b, -1 elsewhere). */
static spx_status list_b_rows(spx_ctx *ctx, const spx_spgemm_operands *ops, int32_t k, spx_gpu_panels *P)
{
    const cudaStream_t st = spx_cuda_stream(ctx);
    SPX_CUDA_RET(ctx, cudaMemsetAsync(P->d_counter, 0, sizeof *P->d_counter, st));
    SPX_CUDA_RET(ctx, cudaMemsetAsync(P->d_pos_b, 0xff, (size_t)k * sizeof(int32_t), st)); /* -1 */
    spx_panel_rows_kernel<<<spx_cuda_grid_stride_blocks(ctx, k, PANEL_BLOCK, PANEL_BLOCKS_PER_SM), PANEL_BLOCK, 0,
                            st>>>(k, ops->B.rowptr, P->b_min, P->d_rows_b, P->d_pos_b, P->d_counter);
    SPX_CUDA_LAUNCHED(ctx, "spx_panel_rows_kernel");
    return SPX_OK;
}

spx_status spx_gpu_panels_plan(spx_ctx *ctx, const spx_spgemm_operands *ops, int32_t m, int32_t k, int32_t n,
                               spx_precision prec, spx_gpu_panel_mode mode, size_t room, spx_gpu_panels *P)
{
    spx_gpu_panels_none(P);
    if (mode == SPX_GPU_PANELS_OFF || !m || !k || !n) return SPX_OK;
    P->a_min = spx_gpu_dense_min(k), P->b_min = spx_gpu_dense_min(n);
    spx_status s = survey(ctx, ops, m, k, P);
    const size_t vbytes = spx_precision_bytes(prec);
    const size_t bytes = s ? 0 : panel_layout(P, k, n, vbytes, NULL);
    /* taken when the block has an entry, fits, and (default algorithm) pays */
    const bool take = !s && P->survey.block_nnz && bytes <= SPX_GPU_PANEL_MAX_BYTES && bytes <= room &&
                      (mode == SPX_GPU_PANELS_FORCE || panels_pay(P, n, vbytes));
    bool blas_failed = false;
    if (take) { /* cuBLAS's handle made here, so that a failure turns the panels off */
        if ((s = spx_cuda_blas_open(ctx))) blas_failed = true;
        else if (!(s = spx_cuda_malloc(ctx, &P->d_block, bytes))) {
            panel_layout(P, k, n, vbytes, P->d_block);
            s = list_b_rows(ctx, ops, k, P);
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
    spx_cuda_free(ctx, P->d_list);
    spx_cuda_free(ctx, P->d_block);
    spx_gpu_panels_none(P);
}
