/* src/formats/hbp/hbp_cuda.h: the hbp layout built on the device from the uploaded CSR (HBP
 * Algorithm 2 on the GPU, hbp_build_cuda.cu), read back and freed (hbp_cuda.cu); C entry
 * points for the format's GPU half and the tests (hbp_stub.c stands in without CUDA). */
#ifndef SPX_FORMATS_HBP_CUDA_H
#define SPX_FORMATS_HBP_CUDA_H

#include "formats/hbp/hbp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Builds the tiled layout of A (on the device) into L, for the tiled algorithms (hash,
 * hash_atomic, sort; `band`, `hot`, `wide` and `auto`, which is one of them, are refused:
 * spx_hbp_bands_dev_build and spx_hbp_wide_dev_build build those): L's header and figures on
 * the host, its arrays on the device, identical to spx_hbp_fmt_build's for the same algo, H
 * and W (0, 0: the shape rule's for feat, within the device's shared memory and
 * SPX_HBP_SMEM_BUDGET). The
 * Fig. 6 "before" figures are NaN (not computed). Phases "count", "hash" or "sort", "convert"
 * go to log (may be NULL). On failure L holds no device memory. */
spx_status spx_hbp_dev_build(spx_ctx *ctx, const spx_dev_csr *A, const spx_features *feat, const char *algo,
                             int32_t H, int32_t W, spx_phase_log *log, spx_hbp_fmt *L);

/* A host copy of the device layout L (header, figures and every array). */
spx_status spx_hbp_dev_download(spx_ctx *ctx, const spx_hbp_fmt *L, spx_hbp_fmt **out);

/* out[0..n) = exclusive prefix sums of in[0..n) (int64, device) on the context's stream; CUB's
 * scratch is grown in *temp (*temp_bytes its size; the caller frees *temp, also on failure). */
spx_status spx_hbp_dev_scan64(spx_ctx *ctx, const int64_t *in, int64_t *out, int64_t n, void **temp,
                              size_t *temp_bytes);

/* Frees L's device arrays and clears their pointers (L itself is the caller's). */
void spx_hbp_dev_free(spx_ctx *ctx, spx_hbp_fmt *L);

/* The band layout on the device (hbp_bands_cuda.cu): one csr GPU state per band. */
typedef struct spx_hbp_bands_dev spx_hbp_bands_dev;
/* Uploads host bands B (each band through the csr format's upload). */
spx_status spx_hbp_bands_upload(spx_ctx *ctx, const spx_hbp_bands *B, spx_phase_log *log, spx_hbp_bands_dev **out);
/* Cuts A (on the device; columns numbered per mode, feat for the rule; renumbered rows, and
 * rows whose columns are out of order, are first sorted into a copy) into bands of width W (0:
 * the rules') on the device: the same numbering, bands, csr algorithms and entries as
 * spx_hbp_bands_build's. A's arrays stay the caller's. Phase "convert" (and the bands' csr
 * "analyse") go to log (may be NULL). */
spx_status spx_hbp_bands_dev_build(spx_ctx *ctx, const spx_dev_csr *A, int32_t W, const spx_features *feat,
                                   spx_hbp_hot_mode mode, spx_phase_log *log, spx_hbp_bands_dev **out);
/* y = a*A*x + b*y on device arrays: band 0 with b, the others adding into y. */
spx_status spx_hbp_bands_dev_spmv(spx_ctx *ctx, spx_hbp_bands_dev *D, const spx_spmv_args *args);
/* The device bands as host CSRs, parts[k] band k (count of them, local columns) and, where
 * hot, *col_of a host copy of the numbering (else NULL); the caller frees both. */
spx_status spx_hbp_bands_dev_download(spx_ctx *ctx, const spx_hbp_bands_dev *D, spx_csr **parts, int32_t **col_of);
/* The device bands back to one host CSR. */
spx_status spx_hbp_bands_dev_to_csr(spx_ctx *ctx, const spx_hbp_bands_dev *D, spx_csr **out);
/* The bands' headers (shapes, sizes, row statistics, csr algorithms; no arrays). */
const spx_hbp_bands *spx_hbp_bands_dev_header(const spx_hbp_bands_dev *D);
/* The kernel the bands run ("hbp_bands<K>_<band 0's csr kernel>", hbp_hot<K>_... where hot). */
const char *spx_hbp_bands_dev_kernel(const spx_hbp_bands_dev *D);
void spx_hbp_bands_dev_free(spx_ctx *ctx, spx_hbp_bands_dev *D);

/* The wide tiles on the device (hbp_wide_cuda.cu): the header with device arrays. */
typedef struct spx_hbp_wide_dev spx_hbp_wide_dev;
/* Uploads the host layout L. */
spx_status spx_hbp_wide_upload(spx_ctx *ctx, const spx_hbp_wide *L, spx_phase_log *log, spx_hbp_wide_dev **out);
/* Builds the wide tiles of A (on the device; A's arrays stay the caller's): the same arrays as
 * spx_hbp_wide_build's. Phase "convert" goes to log (may be NULL). */
spx_status spx_hbp_wide_dev_build(spx_ctx *ctx, const spx_dev_csr *A, spx_phase_log *log, spx_hbp_wide_dev **out);
/* y = a*A*x + b*y on device arrays, on the context's stream, no allocation. */
spx_status spx_hbp_wide_dev_spmv(spx_ctx *ctx, spx_hbp_wide_dev *D, const spx_spmv_args *args);
/* A host copy of the device layout (header and every array). */
spx_status spx_hbp_wide_dev_download(spx_ctx *ctx, const spx_hbp_wide_dev *D, spx_hbp_wide **out);
/* The device layout back to a host CSR. */
spx_status spx_hbp_wide_dev_to_csr(spx_ctx *ctx, const spx_hbp_wide_dev *D, spx_csr **out);
/* The header (device array pointers: not for the host to read). */
const spx_hbp_wide *spx_hbp_wide_dev_header(const spx_hbp_wide_dev *D);
/* The kernel the SpMV runs ("hbp_wide_fp64"). */
const char *spx_hbp_wide_dev_kernel(const spx_hbp_wide_dev *D);
void spx_hbp_wide_dev_free(spx_ctx *ctx, spx_hbp_wide_dev *D);

#ifdef __cplusplus
}
#endif
#endif
