/* src/matrix/csr_dev.h: the CSR on the device inside the library: what it shares about the
 * public device CSR (spx_csr_dev) beyond its API (the header check every entry point that takes
 * one runs, the host struct made around fields the GPU code filled); the device CSR as the
 * kernels take it (spx_dev_csr: int32 row pointers, the plan's precision), which formats' device
 * builds and SpGEMM's GPU methods start from; and their GPU entry points (src/matrix/ *_cuda.cu;
 * src/matrix/csr_dev_stub.c without CUDA: SPX_ERR_NOT_COMPILED). Above the device runtime
 * (src/cuda/gateway.h), below every operation. */
#ifndef SPX_MATRIX_CSR_DEV_H
#define SPX_MATRIX_CSR_DEV_H

#include "core/ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A CSR matrix on the device, as a format's device build receives it: int32 row pointers
 * (nnz <= INT32_MAX), int32 columns, values in the plan's precision. A build may take the
 * arrays (setting them to NULL); the plan frees what is left. */
typedef struct spx_dev_csr {
    int32_t m, n;
    int64_t nnz;
    spx_precision precision;
    int32_t *rowptr, *colind;
    void *val;
    void *scratch; /* SPX_DEV_CSR_SCRATCH_BYTES after the row pointers, in their allocation, for
                      a short pass over the uploaded CSR before the build (the features' sums:
                      no allocation of its own, ~0.1-0.4 ms each on an H100); NULL unless made
                      by spx_cuda_dev_csr_upload, not valid once rowptr is taken or freed */
} spx_dev_csr;

/* Bytes of spx_dev_csr.scratch. */
#define SPX_DEV_CSR_SCRATCH_BYTES ((size_t)32768)


/* SPX_ERR_ARG (or SPX_ERR_OVERFLOW) with a message unless A's sizes and types are valid and
 * its arrays present (rowptr always, colind and val when nnz > 0). Host-side only. */
spx_status spx_csr_dev_check_header(spx_ctx *ctx, const spx_csr_dev *A);
/* *out: a new host struct holding *fields, on ctx; when that fails, an owned block is freed
 * (nothing is left behind) and SPX_ERR_NOMEM returned. */
spx_status spx_csr_dev_adopt(spx_ctx *ctx, const spx_csr_dev *fields, spx_csr_dev **out);

/* COO -> CSR on the GPU (src/matrix/coo_to_csr_cuda.cu: radix sort by (row, col), duplicates
 * summed), host in and out;
 * *sort_seconds is the device time of the sort and compression (CUDA events). */
spx_status spx_cuda_coo_to_csr(spx_ctx *ctx, const spx_coo *A, spx_csr **out,
                               double *sort_seconds);

/* The CSR on the device as formats' device builds receive it (int64 row pointers and fp64
 * values converted there); its release; and a device CSR back to a host CSR
 * (src/matrix/dev_csr_cuda.cu). */
spx_status spx_cuda_dev_csr_upload(spx_ctx *ctx, const spx_csr *A, spx_precision prec, spx_dev_csr *out);
void spx_cuda_dev_csr_free(spx_ctx *ctx, spx_dev_csr *A);
/* *out: a copy of the caller's device CSR A as device builds receive it (as
 * spx_cuda_dev_csr_upload's, its own allocations), made on the device: queued, not waited for. */
spx_status spx_cuda_dev_csr_copy(spx_ctx *ctx, const spx_csr_dev *A, spx_precision prec, spx_dev_csr *out);
spx_status spx_cuda_dev_csr_download(spx_ctx *ctx, const spx_dev_csr *A, spx_csr **out);
/* *unsorted = 1 when some row of the device CSR A has its columns out of ascending order
 * (spx_csr_wrap accepts any order; one pass over the entries), else 0. */
spx_status spx_cuda_dev_csr_unsorted(spx_ctx *ctx, const spx_dev_csr *A, int *unsorted);
/* The public device CSR (spx_csr_dev) on the GPU (src/matrix/csr_dev_cuda.cu). Checks A's arrays (device memory
 * of the context's device, aligned) and its invariants on the device, as spx_csr_dev_wrap
 * promises (SPX_ERR_ARG naming the first offending row); *unsorted_row: the first row whose
 * columns do not strictly increase, -1 none. Waits for the context's stream. */
spx_status spx_cuda_csr_dev_check(spx_ctx *ctx, const spx_csr_dev *A, int32_t *unsorted_row);
/* *out: the fields of a new m x n device CSR of nnz entries, its arrays in one allocation at
 * out->rowptr (owns 1; contents uninitialised): from the context's pool on its stream when
 * pooled (spx_cuda_malloc_async: a result made by the stream's work, such as SpGEMM's C), else
 * spx_cuda_malloc. spx_csr_dev_destroy frees either (spx_cuda_free: once the device is done). */
spx_status spx_cuda_csr_dev_alloc(spx_ctx *ctx, int32_t m, int32_t n, int64_t nnz, spx_index_type rowptr_type,
                                  spx_precision prec, int pooled, spx_csr_dev *out);
/* *out: a device copy of the host CSR A (as spx_cuda_csr_dev_alloc's), checked on the device
 * with spx_csr_check's messages (and unsorted_row found) before it is handed out. */
spx_status spx_cuda_csr_dev_upload(spx_ctx *ctx, const spx_csr *A, spx_index_type rowptr_type, spx_precision prec,
                                   spx_csr_dev *out);
/* Copies the host CSR A's arrays (values_only: its values) into the device CSR D of the same
 * size and pattern, converting their types; no check; waits. */
spx_status spx_cuda_csr_dev_fill(spx_ctx *ctx, const spx_csr *A, spx_csr_dev *D, int values_only);
/* Queues view's values = A's (cast to view's precision) when view holds a converted copy of
 * them (spx_cuda_csr_dev_view); nothing when it reads A's own. */
spx_status spx_cuda_csr_dev_revalue(spx_ctx *ctx, const spx_csr_dev *A, const spx_dev_csr *view);
/* Copies the device CSR A into the host CSR C of the same size (int64 row pointers, fp64). */
spx_status spx_cuda_csr_dev_download(spx_ctx *ctx, const spx_csr_dev *A, spx_csr *C);
/* *out: A as the device kernels take it (int32 row pointers, values in prec): A's own arrays
 * where they have those types, else converted copies queued on the context's stream into one
 * new stream-ordered allocation *block (NULL when nothing was converted; the caller frees it
 * with spx_cuda_free_async once the work reading it is queued). SPX_ERR_OVERFLOW past 2^31 - 1
 * nonzeros. */
spx_status spx_cuda_csr_dev_view(spx_ctx *ctx, const spx_csr_dev *A, spx_precision prec, spx_dev_csr *out,
                                 void **block);

#ifdef __cplusplus
}
#endif
#endif
