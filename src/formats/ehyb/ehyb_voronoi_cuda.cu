/* src/formats/ehyb/ehyb_voronoi_cuda.cu: ehyb's `voronoi` partitioner on the device, the twin
 * of ehyb_voronoi.c (and of ehyb_partition.c's oversize split, block fallback and
 * off-diagonal check): hashed seeds, synchronous
 * breadth-first rounds (one launch each, double-buffered labels, the host reading back how
 * many rows each round labelled), blocks for the rows no cell reached, labels numbered densely
 * through a mark array and a scan, then parts over the segment cap split in row order after a
 * stable sort by part. No step depends on thread order: the parts equal the host's. */
#include "formats/ehyb/ehyb_dev.cuh"
#include "formats/ehyb/ehyb_tuning.h"
#define SPX_EHYB_VORONOI_FN static __host__ __device__ __forceinline__
#include "formats/ehyb/ehyb_voronoi.h"

namespace {

/* label[v] = v for the seeds, NONE for the others. */
__global__ void seed_kernel(int32_t n, uint64_t threshold, int32_t *label)
{
    EHYB_GRID_STRIDE(v, n)
        label[v] = spx_ehyb_voronoi_is_seed((int32_t)v, threshold) ? (int32_t)v : SPX_EHYB_VORONOI_NONE;
}

/* One round (ehyb_voronoi.c's voronoi_round): next[v] = cur[v], or for an unlabelled row the
 * best label among its columns'; *labelled += the rows labelled now (a warp's count at once). */
__global__ void round_kernel(const int32_t *__restrict__ rowptr, const int32_t *__restrict__ colind, int32_t n,
                             const int32_t *__restrict__ cur, int32_t *__restrict__ next,
                             unsigned long long *labelled)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t base = blockIdx.x * (int64_t)blockDim.x; base < n; base += stride) {
        const int64_t v = base + threadIdx.x;
        bool got = false;
        if (v < n) {
            int32_t best = cur[v];
            if (best == SPX_EHYB_VORONOI_NONE) {
                for (int32_t k = rowptr[v]; k < rowptr[v + 1]; k++) {
                    const int32_t l = cur[colind[k]];
                    if (l != SPX_EHYB_VORONOI_NONE && spx_ehyb_voronoi_better(l, best)) best = l;
                }
                got = best != SPX_EHYB_VORONOI_NONE;
            }
            next[v] = best;
        }
        const unsigned ballot = __ballot_sync(0xffffffffu, got);
        if ((threadIdx.x & 31) == 0 && ballot) atomicAdd(labelled, (unsigned long long)__popc(ballot));
    }
}

/* Rows no cell reached take their block's label; every label marks its slot (label - lo). */
__global__ void mark_kernel(int32_t n, int32_t mean, int32_t lo, int32_t *label, int32_t *mark)
{
    EHYB_GRID_STRIDE(v, n) {
        int32_t l = label[v];
        if (l == SPX_EHYB_VORONOI_NONE) label[v] = l = spx_ehyb_voronoi_block_label((int32_t)v, mean);
        mark[l - lo] = 1;
    }
}

/* part[v] = the dense number of v's label (rank: the marks' exclusive scan). */
__global__ void rank_kernel(int32_t n, int32_t lo, const int32_t *rank, int32_t *part)
{
    EHYB_GRID_STRIDE(v, n)
        part[v] = rank[part[v] - lo];
}

/* pieces[p] = how many parts of at most cap part p becomes (1 when it fits). */
__global__ void pieces_kernel(int32_t np, int32_t cap, const int32_t *cnt, int32_t *pieces)
{
    EHYB_GRID_STRIDE(p, np)
        pieces[p] = cnt[p] > cap ? (int32_t)(((int64_t)cnt[p] + cap - 1) / cap) : 1;
}

/* The split (ehyb_partition.c's split_oversize): the t-th row of the stable order by part is the
 * r-th of its part p in row order, and goes to base[p] + r * pieces[p] / cnt[p]. */
__global__ void split_kernel(int32_t n, const int32_t *sorted_part, const int32_t *sorted_row, const int32_t *start,
                             const int32_t *cnt, const int32_t *pieces, const int32_t *base, int32_t *part)
{
    EHYB_GRID_STRIDE(t, n) {
        const int32_t p = sorted_part[t];
        const int64_t r = t - start[p];
        part[sorted_row[t]] = base[p] + (int32_t)(r * pieces[p] / cnt[p]);
    }
}

/* The breadth-first rounds from the seeds in part: at the end part holds every label a cell
 * gave (NONE where none reached). other is scratch of n. */
spx_status grow_cells(spx_ctx *ctx, const spx_dev_csr *A, int32_t mean, int32_t *part, int32_t *other)
{
    const int32_t n = A->m;
    const cudaStream_t st = spx_cuda_stream(ctx);
    const unsigned grid = ehyb_build_grid(ctx, n);
    unsigned long long *labelled = NULL;
    spx_status s = spx_cuda_malloc(ctx, (void **)&labelled, sizeof *labelled);
    if (s) return s;
    int32_t *cur = part, *next = other;
    seed_kernel<<<grid, EHYB_BUILD_BLOCK, 0, st>>>(n, spx_ehyb_voronoi_threshold(mean), part);
    SPX_CUDA_LAUNCHED_GOTO(ctx, s, "ehyb voronoi seeds");
    for (int r = 0; r < SPX_EHYB_VORONOI_MAX_ROUNDS; r++) {
        unsigned long long got = 0;
        SPX_CUDA_GOTO(ctx, s, cudaMemsetAsync(labelled, 0, sizeof *labelled, st));
        round_kernel<<<grid, EHYB_BUILD_BLOCK, 0, st>>>(A->rowptr, A->colind, n, cur, next, labelled);
        SPX_CUDA_LAUNCHED_GOTO(ctx, s, "ehyb voronoi round");
        if ((s = spx_cuda_d2h(ctx, &got, labelled, sizeof got))) goto done;
        int32_t *sw = cur;
        cur = next;
        next = sw;
        if (!got) break;
    }
    if (cur != part) s = spx_cuda_d2d_async(ctx, part, cur, (size_t)n * sizeof *part);
done:
    spx_cuda_free(ctx, labelled);
    return s;
}

/* The labels of every row (seeds, rounds, blocks) numbered densely into part; *nparts. */
spx_status dense_cells(spx_ctx *ctx, const spx_dev_csr *A, int32_t mean, int32_t *part, int32_t *nparts,
                       ehyb_scratch *t)
{
    const int32_t n = A->m;
    const cudaStream_t st = spx_cuda_stream(ctx);
    const unsigned grid = ehyb_build_grid(ctx, n);
    const int32_t lo = spx_ehyb_voronoi_block_label(n - 1, mean);
    const int64_t range = (int64_t)n - lo;
    int32_t *other = NULL, *mark = NULL, *rank = NULL;
    spx_status s = spx_cuda_malloc(ctx, (void **)&other, (size_t)n * sizeof *other);
    if (!s) s = spx_cuda_malloc(ctx, (void **)&mark, (size_t)(range + 1) * sizeof *mark);
    if (!s) s = spx_cuda_malloc(ctx, (void **)&rank, (size_t)(range + 1) * sizeof *rank);
    if (!s) s = grow_cells(ctx, A, mean, part, other);
    if (s) goto done;
    SPX_CUDA_GOTO(ctx, s, cudaMemsetAsync(mark, 0, (size_t)(range + 1) * sizeof *mark, st));
    mark_kernel<<<grid, EHYB_BUILD_BLOCK, 0, st>>>(n, mean, lo, part, mark);
    SPX_CUDA_LAUNCHED_GOTO(ctx, s, "ehyb voronoi marks");
    if ((s = ehyb_scan(ctx, mark, rank, range + 1, t))) goto done;
    rank_kernel<<<grid, EHYB_BUILD_BLOCK, 0, st>>>(n, lo, rank, part);
    SPX_CUDA_LAUNCHED_GOTO(ctx, s, "ehyb voronoi ranks");
    s = spx_cuda_d2h(ctx, nparts, rank + range, sizeof *nparts);
done:
    spx_cuda_free(ctx, other);
    spx_cuda_free(ctx, mark);
    spx_cuda_free(ctx, rank);
    return s;
}

/* Parts of more than cap rows split into equal pieces in row order, renumbered densely
 * (split_oversize of ehyb_partition.c); *nparts becomes the new count. */
spx_status split_oversize(spx_ctx *ctx, int32_t n, int32_t cap, int32_t *part, int32_t *nparts, ehyb_scratch *t)
{
    const int32_t np = *nparts;
    const cudaStream_t st = spx_cuda_stream(ctx);
    const size_t np_bytes = ((size_t)np + 1) * sizeof(int32_t), n_bytes = (size_t)n * sizeof(int32_t);
    int32_t *cnt = NULL, *pieces = NULL, *base = NULL, *start = NULL, *rows = NULL, *skeys = NULL, *srows = NULL;
    int32_t total = 0;
    spx_status s = spx_cuda_malloc(ctx, (void **)&cnt, np_bytes);
    if (!s) s = spx_cuda_malloc(ctx, (void **)&pieces, np_bytes);
    if (!s) s = spx_cuda_malloc(ctx, (void **)&base, np_bytes);
    if (!s) s = spx_cuda_malloc(ctx, (void **)&start, np_bytes);
    if (s) goto done;
    SPX_CUDA_GOTO(ctx, s, cudaMemsetAsync(cnt, 0, np_bytes, st));
    spx_histogram_kernel<<<ehyb_build_grid(ctx, n), EHYB_BUILD_BLOCK, 0, st>>>(n, part, cnt);
    SPX_CUDA_LAUNCHED_GOTO(ctx, s, "ehyb part sizes");
    pieces_kernel<<<ehyb_build_grid(ctx, np + 1), EHYB_BUILD_BLOCK, 0, st>>>(np + 1, cap, cnt, pieces);
    SPX_CUDA_LAUNCHED_GOTO(ctx, s, "ehyb part pieces");
    /* base[np]: the parts after the split */
    if ((s = ehyb_scan(ctx, pieces, base, (int64_t)np + 1, t)) || (s = spx_cuda_d2h(ctx, &total, base + np, sizeof total)))
        goto done;
    if (total == np) goto done; /* nothing over the cap: the parts stay */
    if ((s = ehyb_scan(ctx, cnt, start, (int64_t)np + 1, t)) || (s = spx_cuda_malloc(ctx, (void **)&rows, n_bytes)) ||
        (s = spx_cuda_malloc(ctx, (void **)&skeys, n_bytes)) || (s = spx_cuda_malloc(ctx, (void **)&srows, n_bytes)))
        goto done;
    spx_iota_kernel<<<ehyb_build_grid(ctx, n), EHYB_BUILD_BLOCK, 0, st>>>(n, rows);
    SPX_CUDA_LAUNCHED_GOTO(ctx, s, "ehyb rows");
    if ((s = ehyb_sort_pairs(ctx, part, skeys, rows, srows, n, ehyb_bits_below(np), t))) goto done;
    split_kernel<<<ehyb_build_grid(ctx, n), EHYB_BUILD_BLOCK, 0, st>>>(n, skeys, srows, start, cnt, pieces, base, part);
    SPX_CUDA_LAUNCHED_GOTO(ctx, s, "ehyb part split");
    *nparts = total;
done:
    spx_cuda_free(ctx, cnt);
    spx_cuda_free(ctx, pieces);
    spx_cuda_free(ctx, base);
    spx_cuda_free(ctx, start);
    spx_cuda_free(ctx, rows);
    spx_cuda_free(ctx, skeys);
    spx_cuda_free(ctx, srows);
    return s;
}

/* *flag = 1 when some entry lies off the diagonal. */
__global__ void off_diagonal_kernel(const int32_t *__restrict__ rowptr, const int32_t *__restrict__ colind, int32_t m,
                                    int *flag)
{
    EHYB_GRID_STRIDE(i, m)
        for (int32_t k = rowptr[i]; k < rowptr[i + 1]; k++)
            if (colind[k] != i) {
                *flag = 1;
                break;
            }
}

/* part[i] = i * nparts / count (ehyb_partition.c's block_parts). */
__global__ void blocks_kernel(int32_t count, int32_t nparts, int32_t *part)
{
    EHYB_GRID_STRIDE(i, count)
        part[i] = (int32_t)(i * nparts / count);
}

} /* namespace */

spx_status ehyb_dev_has_off_diagonal(spx_ctx *ctx, const spx_dev_csr *A, int *has)
{
    int *flag = NULL;
    spx_status s = spx_cuda_malloc(ctx, (void **)&flag, sizeof *flag);
    if (s) return s;
    *has = 0;
    SPX_CUDA_GOTO(ctx, s, cudaMemsetAsync(flag, 0, sizeof *flag, spx_cuda_stream(ctx)));
    if (A->m > 0) {
        off_diagonal_kernel<<<ehyb_build_grid(ctx, A->m), EHYB_BUILD_BLOCK, 0, spx_cuda_stream(ctx)>>>(A->rowptr, A->colind,
                                                                                                   A->m, flag);
        SPX_CUDA_LAUNCHED_GOTO(ctx, s, "ehyb off-diagonal check");
    }
    s = spx_cuda_d2h(ctx, has, flag, sizeof *has);
done:
    spx_cuda_free(ctx, flag);
    return s;
}

spx_status ehyb_dev_blocks(spx_ctx *ctx, int32_t count, int32_t nparts, int32_t *part)
{
    if (count == 0) return SPX_OK;
    blocks_kernel<<<ehyb_build_grid(ctx, count), EHYB_BUILD_BLOCK, 0, spx_cuda_stream(ctx)>>>(count, nparts, part);
    SPX_CUDA_LAUNCHED(ctx, "ehyb block parts");
    return SPX_OK;
}

spx_status ehyb_dev_voronoi(spx_ctx *ctx, const spx_dev_csr *A, int32_t mean, int32_t seg_cap, int32_t *part,
                            int32_t *nparts, ehyb_scratch *t)
{
    spx_status s = dense_cells(ctx, A, mean, part, nparts, t);
    return s ? s : split_oversize(ctx, A->m, seg_cap, part, nparts, t);
}
