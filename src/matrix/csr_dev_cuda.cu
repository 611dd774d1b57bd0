/* src/matrix/csr_dev_cuda.cu: the public device CSR (spx_csr_dev) on the GPU: its arrays checked
 * where they are (pointer kinds, then the CSR invariants in one pass of two kernels and one
 * small download), allocated in one block, uploaded from a host CSR with the same check,
 * downloaded, and viewed as the kernels take a CSR (int32 row pointers, the plan's precision),
 * converted on the device only where the types differ. */
#include <stdint.h>
#include <string.h>

#include "core/host_copy.h"
#include "cuda/convert_kernels.cuh"
#include "matrix/csr_dev.h"

namespace {

constexpr unsigned long long NONE = ~0ull;

/* Entries a thread of entries_check_kernel checks, consecutive (parallel over entries, not rows,
 * so a row of millions of entries does not hold one thread). */
constexpr int CHECK_ITEMS = 8;

/* What the check found (device; the min fields start at NONE). */
struct csr_report {
    unsigned long long ptr_row;      /* the first row i with rowptr[i + 1] < rowptr[i] */
    unsigned long long col_entry;    /* the first entry whose column is outside [0, n) */
    unsigned long long col_row;      /* its row */
    unsigned long long unsorted_row; /* the first row whose columns do not strictly increase */
    long long first, last;           /* rowptr[0], rowptr[m] */
};

/* Row pointers: decreasing steps, and the two ends. */
template <typename P>
__global__ void __launch_bounds__(SPX_CONVERT_BLOCK)
    rowptr_check_kernel(int32_t m, const P *__restrict__ rowptr, csr_report *r)
{
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int64_t i = t; i < m; i += (int64_t)gridDim.x * blockDim.x)
        if (rowptr[i + 1] < rowptr[i]) atomicMin(&r->ptr_row, (unsigned long long)i);
    if (t == 0) {
        r->first = (long long)rowptr[0];
        r->last = (long long)rowptr[m];
    }
}

/* The row of entry e: the last r in [0, m) with rowptr[r] <= e (row pointers checked sound). */
template <typename P>
__device__ __forceinline__ int32_t row_of_entry(const P *__restrict__ rowptr, int32_t m, int64_t e)
{
    int32_t lo = 0, hi = m - 1;
    while (lo < hi) {
        const int32_t mid = lo + ((hi - lo + 1) >> 1);
        if ((int64_t)rowptr[mid] <= e) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* Columns in range and strictly increasing within each row; nothing when the row pointers
 * failed (rowptr_check_kernel, earlier on the stream): the entries cannot be placed in rows. */
template <typename P>
__global__ void __launch_bounds__(SPX_CONVERT_BLOCK)
    entries_check_kernel(int32_t m, int32_t n, int64_t nnz, const P *__restrict__ rowptr,
                         const int32_t *__restrict__ colind, csr_report *r)
{
    if (r->ptr_row != NONE || r->first != 0 || r->last != nnz) return;
    const int64_t chunks = (nnz + CHECK_ITEMS - 1) / CHECK_ITEMS;
    for (int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; c < chunks; c += (int64_t)gridDim.x * blockDim.x) {
        const int64_t e0 = c * CHECK_ITEMS, e1 = min(nnz, e0 + CHECK_ITEMS);
        int32_t row = row_of_entry(rowptr, m, e0);
        for (int64_t e = e0; e < e1; e++) {
            while (e >= (int64_t)rowptr[row + 1]) row++;
            const int32_t col = colind[e];
            if (col < 0 || col >= n) {
                atomicMin(&r->col_entry, (unsigned long long)e);
                atomicMin(&r->col_row, (unsigned long long)row);
            }
            if (e > (int64_t)rowptr[row] && colind[e - 1] >= col) atomicMin(&r->unsorted_row, (unsigned long long)row);
        }
    }
}

/* The two check kernels on the context's stream into r (set to NONE first). */
template <typename P>
spx_status launch_check(spx_ctx *ctx, int32_t m, int32_t n, int64_t nnz, const P *rowptr, const int32_t *colind,
                        csr_report *r)
{
    const cudaStream_t st = spx_cuda_stream(ctx);
    SPX_CUDA_RET(ctx, cudaMemsetAsync(r, 0xff, sizeof *r, st));
    rowptr_check_kernel<P><<<spx_cuda_grid_stride_blocks(ctx, m, SPX_CONVERT_BLOCK, SPX_CONVERT_BLOCKS_PER_SM),
                             SPX_CONVERT_BLOCK, 0, st>>>(m, rowptr, r);
    SPX_CUDA_LAUNCHED(ctx, "rowptr_check_kernel");
    if (nnz == 0) return SPX_OK;
    const int64_t chunks = (nnz + CHECK_ITEMS - 1) / CHECK_ITEMS;
    entries_check_kernel<P><<<spx_cuda_grid_stride_blocks(ctx, chunks, SPX_CONVERT_BLOCK, SPX_CONVERT_BLOCKS_PER_SM),
                              SPX_CONVERT_BLOCK, 0, st>>>(m, n, nnz, rowptr, colind, r);
    SPX_CUDA_LAUNCHED(ctx, "entries_check_kernel");
    return SPX_OK;
}

/* The check's verdict in spx_csr_check's words (the first offence in its order); an entry out
 * of range has its column read back (one more small download, on this path only). */
spx_status verdict(spx_ctx *ctx, const csr_report *h, int64_t nnz, int32_t n, const int32_t *colind,
                   int32_t *unsorted_row)
{
    if (h->first != 0) return spx_fail(ctx, SPX_ERR_ARG, "CSR rowptr[0] = %lld, expected 0", h->first);
    if (h->ptr_row != NONE) return spx_fail(ctx, SPX_ERR_ARG, "CSR rowptr decreases at row %llu", h->ptr_row);
    if (h->last != nnz) return spx_fail(ctx, SPX_ERR_ARG, "CSR rowptr[m] = %lld, nnz = %lld", h->last, (long long)nnz);
    if (h->col_entry != NONE) {
        int32_t col = 0;
        spx_status s = spx_cuda_d2h(ctx, &col, colind + h->col_entry, sizeof col);
        if (s) return s;
        return spx_fail(ctx, SPX_ERR_ARG, "CSR column index %d out of range 0..%d (row %llu, entry %llu)", col, n - 1,
                        h->col_row, h->col_entry);
    }
    *unsorted_row = h->unsorted_row == NONE ? -1 : (int32_t)h->unsorted_row;
    return SPX_OK;
}

/* Checks the m x n CSR (rowptr of type P, colind) on the device: the kernels, one download of
 * the report into *h (r: its device home), the verdict. */
template <typename P>
spx_status check_on_device(spx_ctx *ctx, int32_t m, int32_t n, int64_t nnz, const P *rowptr, const int32_t *colind,
                           csr_report *r, int32_t *unsorted_row)
{
    csr_report h;
    spx_status s = launch_check(ctx, m, n, nnz, rowptr, colind, r);
    if (!s) s = spx_cuda_d2h(ctx, &h, r, sizeof h);
    return s ? s : verdict(ctx, &h, nnz, n, colind, unsorted_row);
}

/* SPX_ERR_ARG unless p is device memory of the context's device aligned to `align` bytes. */
spx_status check_pointer(spx_ctx *ctx, const void *p, size_t align, const char *name)
{
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return spx_fail(ctx, SPX_ERR_ARG, "device CSR: %s (%p) is not memory CUDA knows: pass device memory", name, p);
    }
    if (a.type == cudaMemoryTypeManaged)
        return spx_fail(ctx, SPX_ERR_ARG, "device CSR: %s is managed memory: pass plain device memory (cudaMalloc)",
                        name);
    if (a.type != cudaMemoryTypeDevice)
        return spx_fail(ctx, SPX_ERR_ARG, "device CSR: %s is host memory: pass device memory of device %d", name,
                        ctx->device);
    if (a.device != ctx->device)
        return spx_fail(ctx, SPX_ERR_ARG, "device CSR: %s is on device %d, the context's device is %d", name, a.device,
                        ctx->device);
    if ((uintptr_t)p % align)
        return spx_fail(ctx, SPX_ERR_ARG, "device CSR: %s (%p) is not aligned to its %zu-byte type", name, p, align);
    return SPX_OK;
}

size_t index_bytes(spx_index_type t) { return t == SPX_INDEX_INT64 ? sizeof(int64_t) : sizeof(int32_t); }

/* The arrays of a device CSR carved from base (NULL: sized only; rowptr 256-aligned first);
 * returns the block's bytes. */
size_t csr_layout(spx_csr_dev *D, void *base)
{
    unsigned char *b = (unsigned char *)base;
    const size_t align = 256, rp = ((size_t)D->m + 1) * index_bytes(D->rowptr_type);
    const size_t ci = (size_t)D->nnz * sizeof(int32_t), at_ci = (rp + align - 1) / align * align;
    const size_t at_val = at_ci + (ci + align - 1) / align * align;
    D->rowptr = b;
    D->colind = b ? (int32_t *)(b + at_ci) : NULL;
    D->val = b ? (void *)(b + at_val) : NULL;
    return at_val + (size_t)D->nnz * spx_precision_bytes(D->precision);
}

/* What an upload copies: the pattern (row pointers and columns) or not, values always; checked
 * on the device or not. */
struct upload_what {
    bool pattern, check;
};

/* The staging block of an upload into D carved from base (NULL: sized only): the report when
 * checked, int64 row pointers when the pattern goes to int32 ones, fp64 values when D's are
 * fp32; returns its bytes. */
size_t stage_layout(const spx_csr_dev *D, upload_what w, void *base, csr_report **rep, int64_t **rowptr, double **val)
{
    unsigned char *b = (unsigned char *)base;
    const size_t align = 256, head = w.check ? (sizeof(csr_report) + align - 1) / align * align : 0;
    const size_t rp = w.pattern && D->rowptr_type == SPX_INDEX_INT32 ? ((size_t)D->m + 1) * sizeof(int64_t) : 0;
    const size_t at_val = head + (rp + align - 1) / align * align;
    const size_t vals = D->precision == SPX_FP32 ? (size_t)D->nnz * sizeof(double) : 0;
    *rep = b && w.check ? (csr_report *)b : NULL;
    *rowptr = b && rp ? (int64_t *)(b + head) : NULL;
    *val = b && vals ? (double *)(b + at_val) : NULL;
    return at_val + vals;
}

/* A's arrays (w.pattern: all three, else the values) copied into D's through the staging block:
 * row pointers as int64 and values as fp64 land where D keeps them or in the stage; then (w.check)
 * the check; then the narrowing casts (harmless on a matrix the check refuses: the caller frees
 * D); one wait at the end (the report's download, or a sync). */
spx_status upload_into(spx_ctx *ctx, const spx_csr *A, spx_csr_dev *D, upload_what w, void *stage)
{
    csr_report *rep;
    int64_t *rp64;
    double *v64;
    stage_layout(D, w, stage, &rep, &rp64, &v64);
    int64_t *rowptr = rp64 ? rp64 : (int64_t *)D->rowptr;
    double *val = v64 ? v64 : (double *)D->val;
    spx_status s = SPX_OK;
    if (w.pattern) s = spx_cuda_h2d(ctx, rowptr, A->rowptr, ((size_t)A->m + 1) * sizeof(int64_t));
    if (!s && w.pattern) s = spx_cuda_h2d(ctx, D->colind, A->colind, (size_t)A->nnz * sizeof(int32_t));
    if (!s) s = spx_cuda_h2d(ctx, val, A->val, (size_t)A->nnz * sizeof(double));
    if (!s && w.check) s = launch_check(ctx, A->m, A->n, A->nnz, (const int64_t *)rowptr, D->colind, rep);
    if (!s && rp64) s = spx_cuda_cast(ctx, (const int64_t *)rp64, (int32_t *)D->rowptr, (int64_t)A->m + 1);
    if (!s && v64) s = spx_cuda_cast(ctx, (const double *)v64, (float *)D->val, A->nnz);
    if (s || !w.check) return s ? s : spx_cuda_sync(ctx);
    csr_report h;
    s = spx_cuda_d2h(ctx, &h, rep, sizeof h);
    return s ? s : verdict(ctx, &h, A->nnz, A->n, D->colind, &D->unsorted_row);
}

/* upload_into through a staging block of its own, freed after (after a failure, once nothing
 * queued can still use it: a caller's allocator need not wait; the error already reported
 * stays the message). */
spx_status upload_staged(spx_ctx *ctx, const spx_csr *A, spx_csr_dev *D, upload_what w)
{
    void *stage = NULL;
    csr_report *rep;
    int64_t *rp;
    double *val;
    spx_status s = spx_cuda_malloc(ctx, &stage, stage_layout(D, w, NULL, &rep, &rp, &val));
    if (!s) s = upload_into(ctx, A, D, w, stage);
    if (s && cudaStreamSynchronize(spx_cuda_stream(ctx)) != cudaSuccess) (void)cudaGetLastError();
    spx_cuda_free(ctx, stage);
    return s;
}

} /* namespace */

extern "C" spx_status spx_cuda_csr_dev_check(spx_ctx *ctx, const spx_csr_dev *A, int32_t *unsorted_row)
{
    spx_status s = spx_cuda_init(ctx);
    const size_t vb = spx_precision_bytes(A->precision), ib = index_bytes(A->rowptr_type);
    if (!s) s = check_pointer(ctx, A->rowptr, ib, "rowptr");
    if (!s && A->nnz) s = check_pointer(ctx, A->colind, sizeof(int32_t), "colind");
    if (!s && A->nnz) s = check_pointer(ctx, A->val, vb, "val");
    csr_report *r = NULL; /* from the context's pool: a wrap is part of every call from device operands */
    if (!s) s = spx_cuda_malloc_async(ctx, (void **)&r, sizeof *r);
    if (!s)
        s = A->rowptr_type == SPX_INDEX_INT64
                ? check_on_device(ctx, A->m, A->n, A->nnz, (const int64_t *)A->rowptr, A->colind, r, unsorted_row)
                : check_on_device(ctx, A->m, A->n, A->nnz, (const int32_t *)A->rowptr, A->colind, r, unsorted_row);
    spx_cuda_free_async(ctx, r);
    return s;
}

extern "C" spx_status spx_cuda_csr_dev_alloc(spx_ctx *ctx, int32_t m, int32_t n, int64_t nnz,
                                             spx_index_type rowptr_type, spx_precision prec, int pooled,
                                             spx_csr_dev *out)
{
    spx_csr_dev D;
    memset(&D, 0, sizeof D);
    D.m = m, D.n = n, D.nnz = nnz, D.rowptr_type = rowptr_type, D.precision = prec;
    D.unsorted_row = -1, D.ctx = ctx, D.owns = 1;
    void *block = NULL;
    const size_t bytes = csr_layout(&D, NULL);
    spx_status s = pooled ? spx_cuda_malloc_async(ctx, &block, bytes) : spx_cuda_malloc(ctx, &block, bytes);
    if (s) return s;
    csr_layout(&D, block);
    *out = D;
    return SPX_OK;
}

extern "C" spx_status spx_cuda_csr_dev_upload(spx_ctx *ctx, const spx_csr *A, spx_index_type rowptr_type,
                                              spx_precision prec, spx_csr_dev *out)
{
    spx_csr_dev D;
    spx_status s = spx_cuda_csr_dev_alloc(ctx, A->m, A->n, A->nnz, rowptr_type, prec, 0, &D);
    if (s) return s;
    s = upload_staged(ctx, A, &D, upload_what{true, true});
    if (s) spx_cuda_free(ctx, D.rowptr);
    else *out = D;
    return s;
}

extern "C" spx_status spx_cuda_csr_dev_fill(spx_ctx *ctx, const spx_csr *A, spx_csr_dev *D, int values_only)
{
    return upload_staged(ctx, A, D, upload_what{!values_only, false});
}

extern "C" spx_status spx_cuda_csr_dev_revalue(spx_ctx *ctx, const spx_csr_dev *A, const spx_dev_csr *view)
{
    if (view->val == A->val || A->nnz == 0) return SPX_OK;
    return view->precision == SPX_FP32 ? spx_cuda_cast(ctx, (const double *)A->val, (float *)view->val, A->nnz)
                                       : spx_cuda_cast(ctx, (const float *)A->val, (double *)view->val, A->nnz);
}

extern "C" spx_status spx_cuda_download_values(spx_ctx *ctx, double *dst, const void *src, spx_precision prec, int64_t n)
{
    if (n == 0) return SPX_OK;
    if (prec == SPX_FP64) return spx_cuda_d2h(ctx, dst, src, (size_t)n * sizeof(double));
    float *stage = (float *)spx_malloc_array(ctx, (size_t)n, sizeof(float));
    if (!stage) return spx_fail_nomem(ctx, "fp32 values downloaded");
    spx_status s = spx_cuda_d2h(ctx, stage, src, (size_t)n * sizeof(float));
    if (!s) spx_host_widen(dst, stage, (size_t)n, spx_ctx_threads(ctx));
    spx_free(ctx, stage);
    return s;
}

extern "C" spx_status spx_cuda_csr_dev_download(spx_ctx *ctx, const spx_csr_dev *A, spx_csr *C)
{
    spx_status s = spx_cuda_init(ctx);
    const size_t rows = (size_t)A->m + 1;
    if (!s && A->rowptr_type == SPX_INDEX_INT64) {
        s = spx_cuda_d2h(ctx, C->rowptr, A->rowptr, rows * sizeof(int64_t));
    } else if (!s) {
        int32_t *rp = (int32_t *)spx_malloc_array(ctx, rows, sizeof *rp);
        s = rp ? spx_cuda_d2h(ctx, rp, A->rowptr, rows * sizeof *rp) : spx_fail_nomem(ctx, "int32 row pointers downloaded");
        for (size_t i = 0; !s && i < rows; i++) C->rowptr[i] = rp[i];
        spx_free(ctx, rp);
    }
    if (!s && A->nnz) s = spx_cuda_d2h(ctx, C->colind, A->colind, (size_t)A->nnz * sizeof(int32_t));
    return s ? s : spx_cuda_download_values(ctx, C->val, A->val, A->precision, A->nnz);
}

extern "C" spx_status spx_cuda_csr_dev_view(spx_ctx *ctx, const spx_csr_dev *A, spx_precision prec, spx_dev_csr *out,
                                            void **block)
{
    *block = NULL;
    if (A->nnz > INT32_MAX)
        return spx_fail(ctx, SPX_ERR_OVERFLOW, "device CSR: %lld nonzeros exceed the kernels' int32 row pointers",
                        (long long)A->nnz);
    spx_dev_csr D = {A->m, A->n, A->nnz, prec, (int32_t *)A->rowptr, A->colind, A->val, NULL};
    const int narrow = A->rowptr_type == SPX_INDEX_INT64, convert = A->precision != prec;
    if (!narrow && !convert) {
        *out = D;
        return SPX_OK;
    }
    const size_t align = 256, rp = narrow ? ((size_t)A->m + 1) * sizeof(int32_t) : 0;
    const size_t at_val = (rp + align - 1) / align * align;
    unsigned char *b = NULL;
    spx_status s =
        spx_cuda_malloc_async(ctx, (void **)&b, at_val + (convert ? (size_t)A->nnz * spx_precision_bytes(prec) : 0));
    if (s) return s;
    if (narrow) {
        D.rowptr = (int32_t *)b;
        s = spx_cuda_cast(ctx, (const int64_t *)A->rowptr, D.rowptr, (int64_t)A->m + 1);
    }
    if (!s && convert) {
        D.val = b + at_val;
        s = prec == SPX_FP32 ? spx_cuda_cast(ctx, (const double *)A->val, (float *)D.val, A->nnz)
                             : spx_cuda_cast(ctx, (const float *)A->val, (double *)D.val, A->nnz);
    }
    if (s) {
        spx_cuda_free_async(ctx, b);
        return s;
    }
    *block = b;
    *out = D;
    return SPX_OK;
}
