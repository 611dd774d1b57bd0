/* src/formats/ehyb/ehyb_dev.cuh: what ehyb's device files share: the CUB scratch and the
 * build's small kernels, the voronoi partitioner on the device (ehyb_voronoi_cuda.cu) and the
 * layout built on the device from its parts (ehyb_build_cuda.cu). Both produce the host's
 * arrays bit for bit (tests/test_ehyb_gpu.c). */
#ifndef SPX_FORMATS_EHYB_DEV_CUH
#define SPX_FORMATS_EHYB_DEV_CUH

#include "cuda/cub_scratch.cuh"
#include "cuda/index_kernels.cuh"
#include "cuda/runtime.cuh"
#include "formats/ehyb/ehyb.h"
#include "spmv/format.h"

/* CUB's scratch, grown as needed and freed once. */
struct ehyb_scratch {
    void *p;
    size_t bytes;
};

/* Frees t's buffer. */
static inline void ehyb_scratch_free(spx_ctx *ctx, ehyb_scratch *t)
{
    spx_cuda_free(ctx, t->p);
    t->p = NULL;
    t->bytes = 0;
}

/* Threads of the build's grid-stride kernels, and their blocks an SM. */
constexpr int EHYB_BUILD_BLOCK = 256;
constexpr int EHYB_BUILD_BLOCKS_PER_SM = 8;

/* A grid-stride loop of i over [0, count). */
#define EHYB_GRID_STRIDE(i, count)                                                             \
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < (count); i += (int64_t)gridDim.x * blockDim.x)

/* Grid-stride blocks over `items` with the build's block size. */
static inline unsigned ehyb_build_grid(const spx_ctx *ctx, int64_t items)
{
    return spx_cuda_grid_stride_blocks(ctx, items, EHYB_BUILD_BLOCK, EHYB_BUILD_BLOCKS_PER_SM);
}

/* Bits that hold every value below `bound` (at least 1, at most 63). */
static inline int ehyb_bits_below(int64_t bound)
{
    int b = 1;
    while (b < 63 && ((int64_t)1 << b) < bound) b++;
    return b;
}

/* Exclusive sum of n values on the context's stream (scratch t). */
template <typename T>
static spx_status ehyb_scan(spx_ctx *ctx, const T *in, T *out, int64_t n, ehyb_scratch *t)
{
    return spx_cuda_exclusive_sum(ctx, in, out, n, &t->p, &t->bytes);
}

/* Stable radix sort of n (key, int32 value) pairs by the key's low end_bit bits (scratch t). */
template <typename K>
static spx_status ehyb_sort_pairs(spx_ctx *ctx, const K *keys, K *skeys, const int32_t *vals, int32_t *svals,
                                  int64_t n, int end_bit, ehyb_scratch *t)
{
    return spx_cuda_sort_pairs(ctx, keys, skeys, vals, svals, n, end_bit, &t->p, &t->bytes);
}

/* The voronoi parts of square A on the device: part[v] (device, A->m) and *nparts as the host's
 * spx_ehyb_voronoi_parts with cells of `mean` rows, then parts over seg_cap split in row order
 * as the host's split. */
spx_status ehyb_dev_voronoi(spx_ctx *ctx, const spx_dev_csr *A, int32_t mean, int32_t seg_cap, int32_t *part,
                            int32_t *nparts, ehyb_scratch *t);

/* *has = whether A has an entry off its diagonal (else any split is as good). */
spx_status ehyb_dev_has_off_diagonal(spx_ctx *ctx, const spx_dev_csr *A, int *has);
/* Contiguous blocks on the device: part[i] = i * nparts / count. */
spx_status ehyb_dev_blocks(spx_ctx *ctx, int32_t count, int32_t nparts, int32_t *part);

/* The layout of A from its parts P (row_part, col_part: device arrays) into L, whose array
 * fields become device arrays (NULL first; freed by the caller on any outcome): the host's
 * spx_ehyb_fmt_build, step for step. */
spx_status ehyb_dev_layout(spx_ctx *ctx, const spx_dev_csr *A, const spx_ehyb_parts *P, int want_plan_order,
                           spx_ehyb_fmt *L, ehyb_scratch *t);

#endif
