/* src/formats/ehyb/ehyb_build_cuda.cu: the ehyb layout built on the device from the uploaded CSR
 * and its parts, the twin of ehyb_build.c: in-part counts (one thread a row), the column order
 * (a stable radix sort by part), the row order (one radix sort of a key that packs the bucket,
 * the descending in-part count and the descending ER count over the rows in ascending order,
 * which is the host's qsort order), the slices' offsets (scans), and the fill (one thread a row
 * position of a slice, padding then entries; in plan order the entries of each row come from a
 * segmented sort by new column). The arrays equal the host's bit for bit. */
#include <cub/device/device_segmented_sort.cuh>

#include "formats/ehyb/ehyb_dev.cuh"
#include "formats/ehyb/ehyb_tuning.h"

namespace {

/* Bits of the ER count in the row key: a row in a part has fewer than SPX_EHYB_ER_LONG_ROW. */
constexpr int ER_BITS = 6;
static_assert(SPX_EHYB_ER_LONG_ROW <= (1 << ER_BITS), "ehyb: the row key's ER field is too narrow");

/* The counts the host's count_in_part and plan_slices take (sums over rows). */
struct row_sums {
    unsigned long long in_all, in_long, long_all, er_rows, max_len;
};

/* Adds v over the warp into *dst (every lane of the warp calls it). */
__device__ void warp_add(unsigned long long *dst, unsigned long long v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0 && v) atomicAdd(dst, v);
}

/* in_cnt[i] (entries of row i inside its part), the row's bucket (its part, nparts when long)
 * and the sums. */
__global__ void count_kernel(const int32_t *__restrict__ rowptr, const int32_t *__restrict__ colind, int32_t m,
                             const int32_t *__restrict__ row_part, const int32_t *__restrict__ col_part,
                             int32_t nparts, int32_t *in_cnt, int32_t *bucket, row_sums *sums)
{
    unsigned long long in_all = 0, in_long = 0, long_all = 0, er_rows = 0;
    unsigned max_len = 0;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t base = blockIdx.x * (int64_t)blockDim.x; base < m; base += stride) {
        const int64_t i = base + threadIdx.x;
        if (i < m) {
            const int32_t p = row_part[i], len = rowptr[i + 1] - rowptr[i];
            int32_t c = 0;
            for (int32_t k = rowptr[i]; k < rowptr[i + 1]; k++) c += col_part[colind[k]] == p;
            const bool is_long = len - c >= SPX_EHYB_ER_LONG_ROW;
            in_cnt[i] = c;
            bucket[i] = is_long ? nparts : p;
            in_all += c;
            if (is_long) {
                in_long += c;
                long_all += len;
            } else {
                er_rows += len > c;
            }
            max_len = max_len > (unsigned)len ? max_len : (unsigned)len;
        }
    }
    warp_add(&sums->in_all, in_all);
    warp_add(&sums->in_long, in_long);
    warp_add(&sums->long_all, long_all);
    warp_add(&sums->er_rows, er_rows);
    for (int o = 16; o > 0; o >>= 1) {
        const unsigned other = __shfl_down_sync(0xffffffffu, max_len, o);
        max_len = max_len > other ? max_len : other;
    }
    if ((threadIdx.x & 31) == 0) atomicMax(&sums->max_len, (unsigned long long)max_len);
}

/* The row key: bucket, then descending in-part count, then descending ER count (long rows:
 * the bucket alone, so they keep ascending row order). */
__global__ void row_key_kernel(const int32_t *__restrict__ rowptr, int32_t m, const int32_t *__restrict__ in_cnt,
                               const int32_t *__restrict__ bucket, int32_t nparts, int len_bits, int32_t max_len,
                               uint64_t *key, int32_t *row)
{
    EHYB_GRID_STRIDE(i, m)
    {
        const uint64_t b = (uint64_t)bucket[i] << (len_bits + ER_BITS);
        const int32_t c = in_cnt[i], out = rowptr[i + 1] - rowptr[i] - c;
        key[i] = bucket[i] == nparts ? b
                                     : b | (uint64_t)(max_len - c) << ER_BITS | (uint64_t)((1 << ER_BITS) - 1 - out);
        row[i] = (int32_t)i;
    }
}

/* Slices of each part (ceil(rows / R)) and the longest segment. */
__global__ void part_slices_kernel(int32_t nparts, const int32_t *row_start, const int32_t *col_start, int32_t R,
                                   int32_t *slices, unsigned long long *seg_max)
{
    EHYB_GRID_STRIDE(p, nparts)
    {
        slices[p] = (row_start[p + 1] - row_start[p] + R - 1) / R;
        atomicMax(seg_max, (unsigned long long)(col_start[p + 1] - col_start[p]));
    }
}

/* The part of slice s: the last p with part_slice[p] <= s. */
__device__ int32_t part_of_slice(const int32_t *part_slice, int32_t nparts, int64_t s)
{
    int32_t lo = 0, hi = nparts - 1;
    while (lo < hi) {
        const int32_t mid = (lo + hi + 1) / 2;
        if (part_slice[mid] <= s) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* Slots of a slice whose longest row has len entries (spx_ehyb_slice_slots). */
__device__ int64_t slice_slots(int64_t len, int32_t G) { return 32 * ((len + G - 1) / G); }

/* Each slice's ELL and ER slot counts (the host's plan_slices). */
__global__ void slice_sizes_kernel(int32_t n_slices, const int32_t *part_slice, int32_t nparts,
                                   const int32_t *row_start, const int32_t *row_perm, const int32_t *rowptr,
                                   const int32_t *in_cnt, int32_t R, int32_t G, int64_t *ell_sz, int64_t *er_sz)
{
    EHYB_GRID_STRIDE(s, n_slices)
    {
        const int32_t p = part_of_slice(part_slice, nparts, s);
        const int32_t first = row_start[p] + (int32_t)(s - part_slice[p]) * R;
        const int32_t last = min(first + R, row_start[p + 1]);
        int32_t er_max = 0;
        for (int32_t r = first; r < last; r++) {
            const int32_t i = row_perm[r];
            er_max = max(er_max, rowptr[i + 1] - rowptr[i] - in_cnt[i]);
        }
        ell_sz[s] = slice_slots(in_cnt[row_perm[first]], G);
        er_sz[s] = slice_slots(er_max, G);
    }
}

/* The fill's operands. */
template <typename VT>
struct fill_view {
    const int32_t *rowptr, *colind, *order; /* order: the entries of each row by new column (plan order), or NULL */
    const VT *val;
    const int32_t *col_part, *col_new, *row_start, *col_start, *row_perm, *part_slice;
    const int64_t *ell_ptr, *er_ptr;
    int32_t nparts, n_slices, R, G;
    bool plan_order;
    uint16_t *ell_col;
    VT *ell_val;
    int32_t *er_col;
    VT *er_val;
};

/* Row position q of slice s (one thread): its lanes' slots padded (ELL: offset = the segment
 * length, ER: -1, values 0), then the row's entries in column order (new columns in plan
 * order) into ELL when in the part, else ER (the host's fill_part). */
template <typename VT>
__global__ void fill_kernel(fill_view<VT> v)
{
    EHYB_GRID_STRIDE(t, (int64_t)v.n_slices * v.R)
    {
        const int64_t s = t / v.R;
        const int32_t q = (int32_t)(t % v.R), p = part_of_slice(v.part_slice, v.nparts, s);
        const int32_t c0 = v.col_start[p];
        const uint16_t pad = (uint16_t)(v.col_start[p + 1] - c0);
        const int64_t e0 = v.ell_ptr[s], r0 = v.er_ptr[s];
        for (int64_t k = e0 + (int64_t)q * v.G; k < v.ell_ptr[s + 1]; k += 32)
            for (int32_t g = 0; g < v.G; g++) {
                v.ell_col[k + g] = pad;
                v.ell_val[k + g] = (VT)0;
            }
        for (int64_t k = r0 + (int64_t)q * v.G; k < v.er_ptr[s + 1]; k += 32)
            for (int32_t g = 0; g < v.G; g++) {
                v.er_col[k + g] = -1;
                v.er_val[k + g] = (VT)0;
            }
        const int32_t r = v.row_start[p] + (int32_t)(s - v.part_slice[p]) * v.R + q;
        if (r >= v.row_start[p + 1]) continue;
        const int32_t i = v.row_perm[r];
        int64_t ke = 0, kr = 0;
        for (int32_t k = v.rowptr[i]; k < v.rowptr[i + 1]; k++) {
            const int32_t e = v.order ? v.order[k] : k, j = v.colind[e];
            if (v.col_part[j] == p) {
                const int64_t slot = e0 + 32 * (ke / v.G) + (int64_t)q * v.G + ke % v.G;
                ke++;
                v.ell_col[slot] = (uint16_t)(v.col_new[j] - c0);
                v.ell_val[slot] = v.val[e];
            } else {
                const int64_t slot = r0 + 32 * (kr / v.G) + (int64_t)q * v.G + kr % v.G;
                kr++;
                v.er_col[slot] = v.plan_order ? v.col_new[j] : j;
                v.er_val[slot] = v.val[e];
            }
        }
    }
}

/* key[k] = the new column of entry k (the segmented sort's keys in plan order). */
__global__ void new_col_kernel(int64_t nnz, const int32_t *colind, const int32_t *col_new, int32_t *key, int32_t *idx)
{
    EHYB_GRID_STRIDE(k, nnz)
    {
        key[k] = col_new[colind[k]];
        idx[k] = (int32_t)k;
    }
}

/* The long rows' list and lengths. */
__global__ void long_rows_kernel(int32_t n_long, const int32_t *row_perm, int32_t first, const int32_t *rowptr,
                                 int32_t *long_row, int64_t *len)
{
    EHYB_GRID_STRIDE(li, n_long)
    {
        const int32_t i = row_perm[first + li];
        long_row[li] = i;
        len[li] = rowptr[i + 1] - rowptr[i];
    }
}

/* Long row li's entries in CSR order, a warp a row. */
template <typename VT>
__global__ void long_fill_kernel(int32_t n_long, const int32_t *long_row, const int64_t *long_ptr,
                                 const int32_t *rowptr, const int32_t *colind, const VT *val, int32_t *long_col,
                                 VT *long_val)
{
    const int64_t warps = (int64_t)gridDim.x * blockDim.x / 32;
    for (int64_t li = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / 32; li < n_long; li += warps) {
        const int32_t i = long_row[li];
        for (int32_t k = rowptr[i] + (threadIdx.x & 31); k < rowptr[i + 1]; k += 32) {
            long_col[long_ptr[li] + k - rowptr[i]] = colind[k];
            long_val[long_ptr[li] + k - rowptr[i]] = val[k];
        }
    }
}

/* The build's temporaries (device), freed together. */
struct build_tmp {
    int32_t *in_cnt, *bucket, *col_new, *keys32, *rows, *cnt, *slices, *order, *order_keys, *sorted_keys;
    uint64_t *key, *skey;
    int64_t *ell_sz, *er_sz, *long_len;
    row_sums *sums;
    unsigned long long *seg_max;
};

void tmp_free(spx_ctx *ctx, build_tmp *w)
{
    void *p[] = {w->in_cnt, w->bucket, w->col_new, w->keys32, w->rows, w->cnt, w->slices, w->order, w->order_keys,
                 w->sorted_keys, w->key, w->skey, w->ell_sz, w->er_sz, w->long_len, w->sums, w->seg_max};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) spx_cuda_free(ctx, p[i]);
}

spx_status dmalloc(spx_ctx *ctx, void *pp, size_t bytes)
{
    return spx_cuda_malloc(ctx, (void **)pp, bytes ? bytes : 1);
}

/* start[0..count] = where each of `count` keys' runs begins in the stable order (histogram of
 * the n keys, then its exclusive scan); cnt is scratch of count + 1. */
spx_status starts_of(spx_ctx *ctx, const int32_t *key, int32_t n, int32_t count, int32_t *cnt, int32_t *start,
                     ehyb_scratch *t)
{
    const cudaStream_t st = spx_cuda_stream(ctx);
    SPX_CUDA_RET(ctx, cudaMemsetAsync(cnt, 0, ((size_t)count + 1) * sizeof *cnt, st));
    if (n > 0) {
        spx_histogram_kernel<<<ehyb_build_grid(ctx, n), EHYB_BUILD_BLOCK, 0, st>>>(n, key, cnt);
        SPX_CUDA_LAUNCHED(ctx, "ehyb histogram");
    }
    return ehyb_scan(ctx, cnt, start, (int64_t)count + 1, t);
}

/* A device array of count T, its field of L set as it is made (so the caller frees it). */
template <typename T>
spx_status layout_array(spx_ctx *ctx, T **field, int64_t count)
{
    return dmalloc(ctx, field, (size_t)count * sizeof(T));
}

/* The in-part counts, buckets and sums; L's entry counts, lanes and vector order. */
spx_status count_rows(spx_ctx *ctx, const spx_dev_csr *A, const spx_ehyb_parts *P, int want_plan_order,
                      spx_ehyb_fmt *L, build_tmp *w, row_sums *h)
{
    const int32_t m = A->m;
    SPX_CUDA_RET(ctx, cudaMemsetAsync(w->sums, 0, sizeof *w->sums, spx_cuda_stream(ctx)));
    if (m > 0) {
        count_kernel<<<ehyb_build_grid(ctx, m), EHYB_BUILD_BLOCK, 0, spx_cuda_stream(ctx)>>>(
            A->rowptr, A->colind, m, P->row_part, P->col_part, L->nparts, w->in_cnt, w->bucket, w->sums);
        SPX_CUDA_LAUNCHED(ctx, "ehyb in-part counts");
    }
    spx_status s = spx_cuda_d2h(ctx, h, w->sums, sizeof *h);
    if (s) return s;
    L->ell_nnz = (int64_t)(h->in_all - h->in_long);
    L->long_nnz = (int64_t)h->long_all;
    L->er_nnz = A->nnz - L->ell_nnz - L->long_nnz;
    L->out_nnz = A->nnz - (int64_t)h->in_all;
    L->n_er_rows = (int32_t)h->er_rows;
    L->lanes = spx_ehyb_lanes_per_row(m, m > 0 ? (double)A->nnz / m : 0.0, L->P, spx_ehyb_block_threads(L->blocks_per_sm));
    L->plan_order = want_plan_order && spx_ehyb_plan_order_fits(A->m, A->n, L->long_nnz);
    return SPX_OK;
}

/* col_perm, col_start and col_new: columns stably by part (the host's sort_by_part). */
spx_status order_columns(spx_ctx *ctx, const spx_dev_csr *A, const spx_ehyb_parts *P, spx_ehyb_fmt *L,
                         build_tmp *w, ehyb_scratch *t)
{
    const int32_t n = A->n;
    const cudaStream_t st = spx_cuda_stream(ctx);
    spx_status s = starts_of(ctx, P->col_part, n, L->nparts, w->cnt, L->col_start, t);
    if (s || n == 0 || L->plan_order) return s; /* plan order: order_rows numbers the columns as the rows */
    spx_iota_kernel<<<ehyb_build_grid(ctx, n), EHYB_BUILD_BLOCK, 0, st>>>(n, w->rows);
    SPX_CUDA_LAUNCHED(ctx, "ehyb column numbers");
    if ((s = ehyb_sort_pairs(ctx, P->col_part, w->sorted_keys, w->rows, L->col_perm, n, ehyb_bits_below(L->nparts), t)))
        return s;
    spx_invert_kernel<<<ehyb_build_grid(ctx, n), EHYB_BUILD_BLOCK, 0, st>>>(n, L->col_perm, w->col_new);
    SPX_CUDA_LAUNCHED(ctx, "ehyb column renumbering");
    return SPX_OK;
}

/* row_perm and row_start: rows by bucket, in a part by descending in-part then ER count, then
 * ascending row (the host's renumber); in plan order the columns take the rows' numbering. */
spx_status order_rows(spx_ctx *ctx, const spx_dev_csr *A, spx_ehyb_fmt *L, build_tmp *w, const row_sums *h,
                      ehyb_scratch *t)
{
    const int32_t m = A->m;
    const cudaStream_t st = spx_cuda_stream(ctx);
    const int len_bits = ehyb_bits_below((int64_t)h->max_len + 1), part_bits = ehyb_bits_below((int64_t)L->nparts + 1);
    if (part_bits + len_bits + ER_BITS > 64)
        return spx_fail(ctx, SPX_ERR_UNSUPPORTED, "ehyb device build: %d parts and rows of %llu entries exceed the "
                        "64-bit row key (build on the host)", L->nparts, h->max_len);
    /* row_start from the buckets (parts, then the long rows' bucket nparts) */
    int32_t *bucket_start = w->slices; /* nparts + 2, reused later for the slices */
    spx_status s = starts_of(ctx, w->bucket, m, L->nparts + 1, w->cnt, bucket_start, t);
    if (!s) s = spx_cuda_d2d_async(ctx, L->row_start, bucket_start, ((size_t)L->nparts + 1) * sizeof(int32_t));
    if (s || m == 0) return s;
    row_key_kernel<<<ehyb_build_grid(ctx, m), EHYB_BUILD_BLOCK, 0, st>>>(A->rowptr, m, w->in_cnt, w->bucket, L->nparts,
                                                                   len_bits, (int32_t)h->max_len, w->key, w->rows);
    SPX_CUDA_LAUNCHED(ctx, "ehyb row keys");
    if ((s = ehyb_sort_pairs(ctx, w->key, w->skey, w->rows, L->row_perm, m, part_bits + len_bits + ER_BITS, t))) return s;
    if (!L->plan_order) return SPX_OK;
    if ((s = spx_cuda_d2d_async(ctx, L->col_perm, L->row_perm, (size_t)A->n * sizeof(int32_t)))) return s;
    spx_invert_kernel<<<ehyb_build_grid(ctx, A->n), EHYB_BUILD_BLOCK, 0, st>>>(A->n, L->col_perm, w->col_new);
    SPX_CUDA_LAUNCHED(ctx, "ehyb plan-order renumbering");
    return SPX_OK;
}

/* part_slice, seg_max, the slices' offsets, and the slot arrays (the host's plan_slices). */
spx_status plan_slices(spx_ctx *ctx, const spx_dev_csr *A, spx_ehyb_fmt *L, build_tmp *w, ehyb_scratch *t)
{
    const cudaStream_t st = spx_cuda_stream(ctx);
    const int32_t R = spx_ehyb_slice_rows(L);
    unsigned long long seg_max = 0;
    SPX_CUDA_RET(ctx, cudaMemsetAsync(w->seg_max, 0, sizeof *w->seg_max, st));
    SPX_CUDA_RET(ctx, cudaMemsetAsync(w->slices, 0, ((size_t)L->nparts + 1) * sizeof(int32_t), st));
    if (L->nparts > 0) {
        part_slices_kernel<<<ehyb_build_grid(ctx, L->nparts), EHYB_BUILD_BLOCK, 0, st>>>(L->nparts, L->row_start,
                                                                                   L->col_start, R, w->slices,
                                                                                   w->seg_max);
        SPX_CUDA_LAUNCHED(ctx, "ehyb part slices");
    }
    spx_status s = ehyb_scan(ctx, w->slices, L->part_slice, (int64_t)L->nparts + 1, t);
    if (!s) s = spx_cuda_d2h(ctx, &L->n_ell_slices, L->part_slice + L->nparts, sizeof L->n_ell_slices);
    if (!s) s = spx_cuda_d2h(ctx, &seg_max, w->seg_max, sizeof seg_max);
    if (s) return s;
    L->seg_max = (int32_t)seg_max;
    const int64_t ns = L->n_ell_slices;
    if ((s = dmalloc(ctx, &w->ell_sz, (size_t)(ns + 1) * sizeof(int64_t))) ||
        (s = dmalloc(ctx, &w->er_sz, (size_t)(ns + 1) * sizeof(int64_t))) ||
        (s = layout_array(ctx, &L->ell_ptr, ns + 1)) || (s = layout_array(ctx, &L->er_ptr, ns + 1)))
        return s;
    SPX_CUDA_RET(ctx, cudaMemsetAsync(w->ell_sz + ns, 0, sizeof(int64_t), st));
    SPX_CUDA_RET(ctx, cudaMemsetAsync(w->er_sz + ns, 0, sizeof(int64_t), st));
    if (ns > 0) {
        slice_sizes_kernel<<<ehyb_build_grid(ctx, ns), EHYB_BUILD_BLOCK, 0, st>>>(
            (int32_t)ns, L->part_slice, L->nparts, L->row_start, L->row_perm, A->rowptr, w->in_cnt, R, L->lanes,
            w->ell_sz, w->er_sz);
        SPX_CUDA_LAUNCHED(ctx, "ehyb slice sizes");
    }
    if ((s = ehyb_scan(ctx, w->ell_sz, L->ell_ptr, ns + 1, t)) || (s = ehyb_scan(ctx, w->er_sz, L->er_ptr, ns + 1, t)) ||
        (s = spx_cuda_d2h(ctx, &L->ell_slots, L->ell_ptr + ns, sizeof L->ell_slots)) ||
        (s = spx_cuda_d2h(ctx, &L->er_slots, L->er_ptr + ns, sizeof L->er_slots)))
        return s;
    const size_t vb = spx_ehyb_vbytes(L);
    if ((s = layout_array(ctx, &L->ell_col, L->ell_slots)) || (s = dmalloc(ctx, &L->ell_val, (size_t)L->ell_slots * vb)) ||
        (s = layout_array(ctx, &L->er_col, L->er_slots)) || (s = dmalloc(ctx, &L->er_val, (size_t)L->er_slots * vb)))
        return s;
    return SPX_OK;
}

/* The entries of each row by new column (plan order): w->order. */
spx_status order_entries(spx_ctx *ctx, const spx_dev_csr *A, build_tmp *w, ehyb_scratch *t)
{
    const cudaStream_t st = spx_cuda_stream(ctx);
    const int64_t nnz = A->nnz;
    spx_status s;
    if ((s = dmalloc(ctx, &w->order, (size_t)nnz * sizeof(int32_t))) ||
        (s = dmalloc(ctx, &w->order_keys, (size_t)nnz * sizeof(int32_t))) ||
        (s = dmalloc(ctx, &w->keys32, (size_t)nnz * sizeof(int32_t))))
        return s;
    int32_t *idx = NULL; /* the entries' own numbers, the sort's values */
    if ((s = dmalloc(ctx, &idx, (size_t)nnz * sizeof(int32_t)))) return s;
    new_col_kernel<<<ehyb_build_grid(ctx, nnz), EHYB_BUILD_BLOCK, 0, st>>>(nnz, A->colind, w->col_new, w->keys32, idx);
    cudaError_t e = cudaGetLastError();
    size_t bytes = 0;
    if (e == cudaSuccess)
        e = cub::DeviceSegmentedSort::SortPairs(NULL, bytes, w->keys32, w->order_keys, idx, w->order, (int)nnz, A->m,
                                                A->rowptr, A->rowptr + 1, st);
    if (e == cudaSuccess && !(s = spx_cuda_grow_scratch(ctx, &t->p, &t->bytes, bytes))) {
        bytes = t->bytes;
        e = cub::DeviceSegmentedSort::SortPairs(t->p, bytes, w->keys32, w->order_keys, idx, w->order, (int)nnz, A->m,
                                                A->rowptr, A->rowptr + 1, st);
    }
    if (!s) s = spx_cuda_sync(ctx);
    spx_cuda_free(ctx, idx);
    if (e != cudaSuccess) return spx_cuda_fail_at(ctx, e, "ehyb: the entries' order by new column", __FILE__, __LINE__);
    return s;
}

/* The slices' contents (the host's fill_part). */
template <typename VT>
spx_status fill_slices(spx_ctx *ctx, const spx_dev_csr *A, const spx_ehyb_parts *P, spx_ehyb_fmt *L, build_tmp *w)
{
    const int64_t threads = (int64_t)L->n_ell_slices * spx_ehyb_slice_rows(L);
    if (threads == 0) return SPX_OK;
    const fill_view<VT> v = {A->rowptr, A->colind, L->plan_order ? w->order : NULL, (const VT *)A->val,
                             P->col_part, w->col_new, L->row_start, L->col_start, L->row_perm, L->part_slice,
                             L->ell_ptr, L->er_ptr, L->nparts, L->n_ell_slices, spx_ehyb_slice_rows(L), L->lanes,
                             L->plan_order != 0, L->ell_col, (VT *)L->ell_val, L->er_col, (VT *)L->er_val};
    fill_kernel<VT><<<ehyb_build_grid(ctx, threads), EHYB_BUILD_BLOCK, 0, spx_cuda_stream(ctx)>>>(v);
    SPX_CUDA_LAUNCHED(ctx, "ehyb slice fill");
    return SPX_OK;
}

/* The long rows: list, offsets and entries (the host's plan_long and fill_long_row). */
template <typename VT>
spx_status fill_long(spx_ctx *ctx, const spx_dev_csr *A, spx_ehyb_fmt *L, build_tmp *w, ehyb_scratch *t)
{
    const cudaStream_t st = spx_cuda_stream(ctx);
    int32_t first = 0;
    spx_status s = spx_cuda_d2h(ctx, &first, L->row_start + L->nparts, sizeof first);
    if (s) return s;
    L->n_long = A->m - first;
    const int32_t nl = L->n_long;
    if ((s = layout_array(ctx, &L->long_row, nl)) || (s = layout_array(ctx, &L->long_ptr, (int64_t)nl + 1)) ||
        (s = layout_array(ctx, &L->long_col, L->long_nnz)) ||
        (s = dmalloc(ctx, &L->long_val, (size_t)L->long_nnz * spx_ehyb_vbytes(L))) ||
        (s = dmalloc(ctx, &w->long_len, ((size_t)nl + 1) * sizeof(int64_t))))
        return s;
    SPX_CUDA_RET(ctx, cudaMemsetAsync(w->long_len + nl, 0, sizeof(int64_t), st));
    if (nl > 0) {
        long_rows_kernel<<<ehyb_build_grid(ctx, nl), EHYB_BUILD_BLOCK, 0, st>>>(nl, L->row_perm, first, A->rowptr,
                                                                          L->long_row, w->long_len);
        SPX_CUDA_LAUNCHED(ctx, "ehyb long rows");
    }
    if ((s = ehyb_scan(ctx, w->long_len, L->long_ptr, (int64_t)nl + 1, t)) || nl == 0) return s;
    long_fill_kernel<VT><<<ehyb_build_grid(ctx, (int64_t)nl * 32), EHYB_BUILD_BLOCK, 0, st>>>(
        nl, L->long_row, L->long_ptr, A->rowptr, A->colind, (const VT *)A->val, L->long_col, (VT *)L->long_val);
    SPX_CUDA_LAUNCHED(ctx, "ehyb long fill");
    return SPX_OK;
}

/* The steps after the counts, in the host's order. */
spx_status build_steps(spx_ctx *ctx, const spx_dev_csr *A, const spx_ehyb_parts *P, int want_plan_order,
                       spx_ehyb_fmt *L, build_tmp *w, ehyb_scratch *t)
{
    const int32_t m = A->m, n = A->n, np1 = L->nparts + 1;
    row_sums h;
    spx_status s;
    if ((s = dmalloc(ctx, &w->in_cnt, (size_t)m * 4)) || (s = dmalloc(ctx, &w->bucket, (size_t)m * 4)) ||
        (s = dmalloc(ctx, &w->col_new, (size_t)n * 4)) || (s = dmalloc(ctx, &w->rows, (size_t)(m > n ? m : n) * 4)) ||
        (s = dmalloc(ctx, &w->sorted_keys, (size_t)n * 4)) || (s = dmalloc(ctx, &w->cnt, ((size_t)np1 + 1) * 4)) ||
        (s = dmalloc(ctx, &w->slices, ((size_t)np1 + 1) * 4)) || (s = dmalloc(ctx, &w->key, (size_t)m * 8)) ||
        (s = dmalloc(ctx, &w->skey, (size_t)m * 8)) || (s = dmalloc(ctx, &w->sums, sizeof *w->sums)) ||
        (s = dmalloc(ctx, &w->seg_max, sizeof *w->seg_max)) || (s = layout_array(ctx, &L->row_start, np1)) ||
        (s = layout_array(ctx, &L->col_start, np1)) || (s = layout_array(ctx, &L->part_slice, np1)) ||
        (s = layout_array(ctx, &L->row_perm, m)) || (s = layout_array(ctx, &L->col_perm, n)))
        return s;
    if ((s = count_rows(ctx, A, P, want_plan_order, L, w, &h)) || (s = order_columns(ctx, A, P, L, w, t)) ||
        (s = order_rows(ctx, A, L, w, &h, t)) || (s = plan_slices(ctx, A, L, w, t)) ||
        (L->plan_order && A->nnz > 0 && (s = order_entries(ctx, A, w, t))))
        return s;
    if (L->precision == SPX_FP32) {
        if (!(s = fill_slices<float>(ctx, A, P, L, w))) s = fill_long<float>(ctx, A, L, w, t);
    } else {
        if (!(s = fill_slices<double>(ctx, A, P, L, w))) s = fill_long<double>(ctx, A, L, w, t);
    }
    return s;
}

} /* namespace */

spx_status ehyb_dev_layout(spx_ctx *ctx, const spx_dev_csr *A, const spx_ehyb_parts *P, int want_plan_order,
                           spx_ehyb_fmt *L, ehyb_scratch *t)
{
    build_tmp w = {};
    spx_status s = build_steps(ctx, A, P, want_plan_order, L, &w, t);
    if (!s) s = spx_cuda_sync(ctx);
    tmp_free(ctx, &w);
    return s;
}
