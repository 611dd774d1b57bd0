/* src/cuda/gateway.h: every CUDA entry point the C core calls, as C functions. Built from
 * the .cu files when CUDA is found, else from src/cuda_stub.c (all SPX_ERR_NOT_COMPILED).
 * Device pointers cross this line as void*. */
#ifndef SPX_CUDA_GATEWAY_H
#define SPX_CUDA_GATEWAY_H

#include <stddef.h>
#include "spmv/format.h"
#include "spgemm/impl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when this build contains the CUDA backend. */
int spx_cuda_built(void);
/* Number of usable devices (0 when none or no driver); never fails. */
int spx_cuda_device_count(void);
/* Binds ctx to its device and reads its properties (idempotent). */
spx_status spx_cuda_init(spx_ctx *ctx);
/* Frees the context's CUDA state. */
void spx_cuda_release(spx_ctx *ctx);
spx_status spx_cuda_query(spx_ctx *ctx, spx_device_info *out);

/* Device memory, accounted in the context: an allocation over the device budget or the
 * device's free memory (or one a test injected a failure into) fails with
 * SPX_ERR_DEVICE_ALLOC and a message, leaving no CUDA error behind. */
spx_status spx_cuda_malloc(spx_ctx *ctx, void **p, size_t bytes);
void spx_cuda_free(spx_ctx *ctx, void *p);
/* The device's free and total memory (cudaMemGetInfo). */
spx_status spx_cuda_mem_info(spx_ctx *ctx, size_t *free_bytes, size_t *total_bytes);
/* A new non-blocking stream (a cudaStream_t) on the context's device, and its release. */
spx_status spx_cuda_stream_create(spx_ctx *ctx, void **stream);
void spx_cuda_stream_destroy(void *stream);
/* Copies on the context's stream, not synchronised (host memory must stay valid until the
 * stream reaches them; pinned buffers make host copies truly asynchronous). */
spx_status spx_cuda_d2d_async(spx_ctx *ctx, void *dst, const void *src, size_t bytes);
spx_status spx_cuda_h2d_async(spx_ctx *ctx, void *dst, const void *src, size_t bytes);
spx_status spx_cuda_d2h_async(spx_ctx *ctx, void *dst, const void *src, size_t bytes);
/* Pinned (page-locked) host memory, counted against the host budget; free with its size. */
spx_status spx_cuda_pinned_alloc(spx_ctx *ctx, void **p, size_t bytes);
void spx_cuda_pinned_free(spx_ctx *ctx, void *p, size_t bytes);
/* Page-locks the caller's host range [p, p + bytes) in place (cudaHostRegister), so copies to
 * and from it run at the link's speed (H100: 53 GB/s against 8-13 GB/s pageable, for ~38 GB/s
 * of registration); 1 when done, 0 when not (no CUDA, nothing to lock, or the driver refused:
 * the range stays pageable and still works). Undo with spx_cuda_host_unregister. */
int spx_cuda_host_register(spx_ctx *ctx, void *p, size_t bytes);
void spx_cuda_host_unregister(void *p);
/* The device ordinal a device pointer belongs to; -1 for other pointers. */
int spx_cuda_pointer_device(const void *p);
/* Tests: occupies the context's stream for about `seconds` (one spinning thread). */
spx_status spx_cuda_spin(spx_ctx *ctx, double seconds);

/* Copies on the context's stream (these synchronise). Between pageable host memory and the
 * device, large ones go through the context's staging ring (src/cuda/staged_copy.cu). */
spx_status spx_cuda_h2d(spx_ctx *ctx, void *dst, const void *src, size_t bytes);
spx_status spx_cuda_d2h(spx_ctx *ctx, void *dst, const void *src, size_t bytes);
/* Makes the context's staging ring now (as its first large copy would) when the host budget
 * of `budget` (NULL: the context's own) has room; returns the host bytes the ring holds, 0
 * when there is none. */
size_t spx_cuda_stage_make(spx_ctx *ctx, const spx_ctx *budget);
/* Frees the context's staging ring, if any; its copies stay direct from then on. */
void spx_cuda_stage_drop(spx_ctx *ctx);
spx_status spx_cuda_sync(spx_ctx *ctx);

/* Event timer on the context's stream. */
typedef struct spx_cuda_timer spx_cuda_timer;
spx_status spx_cuda_timer_create(spx_ctx *ctx, spx_cuda_timer **t);
spx_status spx_cuda_timer_start(spx_ctx *ctx, spx_cuda_timer *t);
/* Records the stop event, waits for it, returns the elapsed seconds. */
spx_status spx_cuda_timer_stop(spx_ctx *ctx, spx_cuda_timer *t, double *seconds);
void spx_cuda_timer_destroy(spx_ctx *ctx, spx_cuda_timer *t);

/* Evicts the L2 by writing a buffer twice its size (for cold measurements). */
spx_status spx_cuda_flush_l2(spx_ctx *ctx);
/* Device-to-device copy bandwidth, bytes read + written per second, median of runs. */
spx_status spx_cuda_copy_bandwidth(spx_ctx *ctx, double *bytes_per_s);

/* COO -> CSR on the GPU (radix sort by (row, col), duplicates summed), host in and out;
 * *sort_seconds is the device time of the sort and compression (CUDA events). */
spx_status spx_cuda_coo_to_csr(spx_ctx *ctx, const spx_coo *A, spx_csr **out,
                               double *sort_seconds);

/* The CSR on the device as formats' device builds receive it (int64 row pointers and fp64
 * values converted there); its release; and a device CSR back to a host CSR. */
spx_status spx_cuda_dev_csr_upload(spx_ctx *ctx, const spx_csr *A, spx_precision prec, spx_dev_csr *out);
void spx_cuda_dev_csr_free(spx_ctx *ctx, spx_dev_csr *A);
/* *out: a copy of the caller's device CSR A as device builds receive it (as
 * spx_cuda_dev_csr_upload's, its own allocations), made on the device: queued, not waited for. */
spx_status spx_cuda_dev_csr_copy(spx_ctx *ctx, const spx_csr_dev *A, spx_precision prec, spx_dev_csr *out);
spx_status spx_cuda_dev_csr_download(spx_ctx *ctx, const spx_dev_csr *A, spx_csr **out);
/* *unsorted = 1 when some row of the device CSR A has its columns out of ascending order
 * (spx_csr_wrap accepts any order; one pass over the entries), else 0. */
spx_status spx_cuda_dev_csr_unsorted(spx_ctx *ctx, const spx_dev_csr *A, int *unsorted);
/* The features of the CSR on the device (src/matrix/features.c's measures, computed there; the
 * same on every run): spx_features_compute_sampled_threads's (src/matrix/features.h), the
 * sums to rounding. Uses D->scratch when set (no allocation). */
spx_status spx_cuda_features(spx_ctx *ctx, const spx_dev_csr *D, spx_features *out);

/* The public device CSR (spx_csr_dev, src/cuda/csr_dev.cu). Checks A's arrays (device memory
 * of the context's device, aligned) and its invariants on the device, as spx_csr_dev_wrap
 * promises (SPX_ERR_ARG naming the first offending row); *unsorted_row: the first row whose
 * columns do not strictly increase, -1 none. Waits for the context's stream. */
spx_status spx_cuda_csr_dev_check(spx_ctx *ctx, const spx_csr_dev *A, int32_t *unsorted_row);
/* *out: the fields of a new m x n device CSR of nnz entries, its arrays in one allocation at
 * out->rowptr (owns 1; contents uninitialised). */
spx_status spx_cuda_csr_dev_alloc(spx_ctx *ctx, int32_t m, int32_t n, int64_t nnz, spx_index_type rowptr_type,
                                  spx_precision prec, spx_csr_dev *out);
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
 * new allocation *block (NULL when nothing was converted; the caller frees it with
 * spx_cuda_free). SPX_ERR_OVERFLOW past 2^31 - 1 nonzeros. */
spx_status spx_cuda_csr_dev_view(spx_ctx *ctx, const spx_csr_dev *A, spx_precision prec, spx_dev_csr *out,
                                 void **block);
/* Copies n values of precision prec from the device into dst (fp64; fp32 widened on the
 * host). */
spx_status spx_cuda_download_values(spx_ctx *ctx, double *dst, const void *src, spx_precision prec, int64_t n);

/* Every format's GPU half, from src/spmv/formats.def (NULL in builds without CUDA). */
#define SPX_FORMAT(name) const spx_format_cuda *spx_##name##_cuda(void);
#include "spmv/formats.def"
#undef SPX_FORMAT

/* Every SpGEMM implementation's GPU table, from src/spgemm/impls.def (NULL in builds
 * without CUDA: src/spgemm/spgemm_stub.c). */
#define SPX_SPGEMM_ON_GPU_CPU(name)
#define SPX_SPGEMM_ON_GPU_CUDA(name) SPX_SPGEMM_GETTER(name)
#define SPX_SPGEMM_IMPL(name, site) SPX_SPGEMM_ON_GPU_##site(name)
#include "spgemm/impls.def"
#undef SPX_SPGEMM_IMPL

#ifdef __cplusplus
}
#endif
#endif
