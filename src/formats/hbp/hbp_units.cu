/* src/formats/hbp/hbp_units.cu: the hbp unit kernel's work units, made on the device from the
 * device layout at plan time (hbp_units.h): per panel, its entries N and groups give k =
 * ceil(N / U) units (at least one, at most one per group); a scan places them; each unit
 * starts at the group where the panel's running entry count reaches j * N / k (binary search
 * over begin_nnz). Split panels (k > 1) get H rows of the row buffer, placed by a second
 * scan. */
#include <string.h>

#include "cuda/check.cuh"
#include "cuda/runtime.cuh"
#include "formats/hbp/hbp_cuda.h"
#include "formats/hbp/hbp_cuda_tuning.h"
#include "formats/hbp/hbp_search.cuh"
#include "formats/hbp/hbp_units.h"

namespace {

/* The device layout's arrays the units are cut from. */
struct units_src {
    const int64_t *__restrict__ panel_tile, *__restrict__ tile_group, *__restrict__ group_nnz;
    int64_t n_panels, n_groups, target;
    int32_t H;
};

/* Panel p's groups [*ga, *gb) and entries. */
__device__ __forceinline__ int64_t panel_groups(const units_src &s, int64_t p, int64_t *ga, int64_t *gb)
{
    *ga = __ldg(s.tile_group + __ldg(s.panel_tile + p));
    *gb = __ldg(s.tile_group + __ldg(s.panel_tile + p + 1));
    return __ldg(s.group_nnz + *gb) - __ldg(s.group_nnz + *ga);
}

/* Per panel: cnt[p] = its units, buf[p] = its row-buffer rows (H when split, else 0);
 * cnt[n_panels] = buf[n_panels] = 0, for the scans. */
__global__ void __launch_bounds__(SPX_HBP_BUILD_BLOCK) hbp_units_count_kernel(units_src s, int64_t *cnt, int64_t *buf)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p <= s.n_panels; p += stride) {
        if (p == s.n_panels) {
            cnt[p] = buf[p] = 0;
            continue;
        }
        int64_t ga, gb;
        const int64_t n = panel_groups(s, p, &ga, &gb);
        int64_t k = (n + s.target - 1) / s.target;
        if (k > gb - ga) k = gb - ga;
        if (k < 1) k = 1;
        cnt[p] = k;
        buf[p] = k > 1 ? s.H : 0;
    }
}

/* Per panel: its units' first groups and panel, its row-buffer offset (or -1); the closing
 * unit_group[n_units] = n_groups. */
__global__ void __launch_bounds__(SPX_HBP_BUILD_BLOCK)
    hbp_units_fill_kernel(units_src s, const int64_t *__restrict__ buf, spx_hbp_units u)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p < s.n_panels; p += stride) {
        int64_t ga, gb;
        const int64_t n = panel_groups(s, p, &ga, &gb), base = __ldg(s.group_nnz + ga);
        const int64_t u0 = u.panel_unit[p], k = u.panel_unit[p + 1] - u0;
        for (int64_t j = 0; j < k; j++) {
            const int64_t want = base + j * n / k;
            int64_t lo = ga, hi = gb; /* the first g in [ga, gb] with group_nnz[g] >= want */
            while (lo < hi) {
                const int64_t mid = lo + ((hi - lo) >> 1);
                if (__ldg(s.group_nnz + mid) < want)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            u.unit_group[u0 + j] = lo;
            u.unit_panel[u0 + j] = (int32_t)p;
        }
        u.panel_ybuf[p] = k > 1 ? __ldg(buf + p) : -1;
        if (p == s.n_panels - 1) u.unit_group[u.n_units] = s.n_groups;
    }
}

unsigned grid_of(const spx_ctx *ctx, int64_t items)
{
    return spx_cuda_grid_stride_blocks(ctx, items, SPX_HBP_BUILD_BLOCK, SPX_HBP_BUILD_BLOCKS_PER_SM);
}

/* Per panel: its unit count into cnt, its row-buffer rows into buf. */
spx_status units_count(spx_ctx *ctx, const units_src &src, int64_t *cnt, int64_t *buf)
{
    hbp_units_count_kernel<<<grid_of(ctx, src.n_panels + 1), SPX_HBP_BUILD_BLOCK, 0, spx_cuda_stream(ctx)>>>(src, cnt,
                                                                                                          buf);
    SPX_CUDA_LAUNCHED(ctx, "hbp_units_count_kernel");
    return SPX_OK;
}

/* The units once the per-panel counts are in cnt and buf (scanned in place into offsets). */
spx_status units_fill(spx_ctx *ctx, const units_src &src, int64_t *cnt, int64_t *buf, void **temp, size_t *tb,
                      spx_hbp_units *u)
{
    const int64_t P = src.n_panels;
    const cudaStream_t st = spx_cuda_stream(ctx);
    spx_status s = spx_cuda_malloc(ctx, (void **)&u->panel_unit, (size_t)(P + 1) * sizeof(int64_t));
    if (!s) s = spx_hbp_dev_scan64(ctx, cnt, u->panel_unit, P + 1, temp, tb);
    if (!s) s = spx_hbp_dev_scan64(ctx, buf, cnt, P + 1, temp, tb); /* cnt now holds the buffer offsets */
    if (!s) s = spx_cuda_d2h(ctx, &u->n_units, u->panel_unit + P, sizeof u->n_units);
    if (!s) s = spx_cuda_d2h(ctx, &u->ybuf_len, cnt + P, sizeof u->ybuf_len);
    if (!s) s = spx_cuda_malloc(ctx, (void **)&u->unit_group, (size_t)(u->n_units + 1) * sizeof(int64_t));
    if (!s) s = spx_cuda_malloc(ctx, (void **)&u->unit_panel, (size_t)u->n_units * sizeof(int32_t));
    if (!s) s = spx_cuda_malloc(ctx, (void **)&u->panel_ybuf, (size_t)P * sizeof(int64_t));
    if (!s) s = spx_cuda_malloc(ctx, (void **)&u->ybuf, (size_t)u->ybuf_len * sizeof(double));
    if (!s) s = spx_cuda_malloc(ctx, (void **)&u->arrivals, (size_t)P * sizeof(unsigned));
    if (s) return s;
    SPX_CUDA_RET(ctx, cudaMemsetAsync(u->ybuf, 0, (size_t)u->ybuf_len * sizeof(double), st));
    SPX_CUDA_RET(ctx, cudaMemsetAsync(u->arrivals, 0, (size_t)P * sizeof(unsigned), st));
    hbp_units_fill_kernel<<<grid_of(ctx, P), SPX_HBP_BUILD_BLOCK, 0, st>>>(src, cnt, *u);
    SPX_CUDA_LAUNCHED(ctx, "hbp_units_fill_kernel");
    return spx_cuda_sync(ctx);
}

/* *count += the tiles holding at least min_nnz entries. */
__global__ void __launch_bounds__(SPX_HBP_BUILD_BLOCK)
    hbp_dense_tiles_kernel(const int64_t *__restrict__ tile_group, const int64_t *__restrict__ group_nnz, int64_t n_tiles,
                           int64_t min_nnz, unsigned long long *count)
{
    unsigned long long c = 0;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < n_tiles; t += stride)
        c += hbp_tile_nnz(tile_group, group_nnz, t) >= min_nnz;
    if (c) atomicAdd(count, c);
}

/* Launches the count of dense tiles into the device counter c (cleared first). */
spx_status dense_tiles_launch(spx_ctx *ctx, const spx_hbp_fmt *L, int64_t min_nnz, unsigned long long *c)
{
    SPX_CUDA_RET(ctx, cudaMemsetAsync(c, 0, sizeof *c, spx_cuda_stream(ctx)));
    hbp_dense_tiles_kernel<<<grid_of(ctx, L->n_tiles), SPX_HBP_BUILD_BLOCK, 0, spx_cuda_stream(ctx)>>>(
        L->tile_group, L->group_nnz, L->n_tiles, min_nnz, c);
    SPX_CUDA_LAUNCHED(ctx, "hbp_dense_tiles_kernel");
    return SPX_OK;
}

} /* namespace */

extern "C" spx_status spx_hbp_dense_tiles(spx_ctx *ctx, const spx_hbp_fmt *L, int64_t min_nnz, int64_t *count)
{
    *count = 0;
    if (L->n_tiles == 0) return SPX_OK;
    unsigned long long *c = NULL, h = 0;
    spx_status s = spx_cuda_malloc(ctx, (void **)&c, sizeof *c);
    if (!s) s = dense_tiles_launch(ctx, L, min_nnz, c);
    if (!s) s = spx_cuda_d2h(ctx, &h, c, sizeof h);
    spx_cuda_free(ctx, c);
    *count = (int64_t)h;
    return s;
}

extern "C" spx_status spx_hbp_units_make(spx_ctx *ctx, const spx_hbp_fmt *L, int64_t target_nnz, spx_hbp_units *out)
{
    memset(out, 0, sizeof *out);
    out->target_nnz = target_nnz > 0 ? target_nnz : 1;
    if (L->n_panels == 0) return SPX_OK;
    units_src src = {L->panel_tile, L->tile_group, L->group_nnz, L->n_panels, L->n_groups, out->target_nnz, L->H};
    int64_t *cnt = NULL, *buf = NULL;
    void *temp = NULL;
    size_t tb = 0;
    spx_status s = spx_cuda_malloc(ctx, (void **)&cnt, (size_t)(L->n_panels + 1) * sizeof(int64_t));
    if (!s) s = spx_cuda_malloc(ctx, (void **)&buf, (size_t)(L->n_panels + 1) * sizeof(int64_t));
    if (!s) s = units_count(ctx, src, cnt, buf);
    if (!s) s = units_fill(ctx, src, cnt, buf, &temp, &tb, out);
    spx_cuda_free(ctx, cnt);
    spx_cuda_free(ctx, buf);
    spx_cuda_free(ctx, temp);
    if (s) spx_hbp_units_free(ctx, out);
    return s;
}

extern "C" void spx_hbp_units_free(spx_ctx *ctx, spx_hbp_units *u)
{
    void *p[] = {u->unit_group, u->unit_panel, u->panel_unit, u->panel_ybuf, u->ybuf, u->arrivals};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) spx_cuda_free(ctx, p[i]);
    memset(u, 0, sizeof *u);
}
