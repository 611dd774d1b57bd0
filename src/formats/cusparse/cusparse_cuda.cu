/* src/formats/cusparse/cusparse_cuda.cu: the vendor baseline on the GPU: cusparseSpMV on the csr
 * layout (32-bit indices, CSR_ALG1 or CSR_ALG2; an alg3 plan's SpMV is ALG1, cuSPARSE having no
 * third), with its buffer sizing and preprocessing done at plan time and nothing allocated per
 * call; and cusparseSpMM (CSR_ALG1, ALG2 or ALG3 by the plan's algorithm), sized and
 * preprocessed on the first call of a (k, layout, leading dimensions) and kept for the next. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cusparse.h>

#include "cuda/runtime.cuh"
#include "formats/csr/csr_cuda.h"
#include "formats/csr/csr_spmm_cuda.h"
#include "formats/cusparse/cusparse.h"
#include "spmv/format.h"

/* The baseline's GPU state (plan-owned). */
typedef struct cusparse_dev {
    int32_t m, n, nnz;
    spx_precision prec;
    int alg; /* 1, 2 or 3 (SpMV: 3 runs ALG1) */
    int32_t *rowptr, *colind;
    void *val;
    void *buffer; /* cusparseSpMV's external buffer, kept from preprocess on */
    cusparseHandle_t handle;
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t x, y; /* values set per call (cusparseDnVecSetValues) */
    cudaStream_t stream;       /* the stream the handle runs on */
    char kernel[48];
    /* SpMM: its own matrix descriptor (a preprocess makes one buffer "active" per descriptor,
     * apart from the SpMV's), the blocks' descriptors and buffer for the configuration last
     * sized (mm_ready), reused while calls keep it; the pointers are set every call. */
    cusparseSpMatDescr_t Amm;
    cusparseDnMatDescr_t X, Y;
    int mm_ready;
    int64_t mm_k, mm_ldx, mm_ldy;
    spx_dense_layout mm_layout;
    void *mm_buffer;
    size_t mm_bytes;
} cusparse_dev;

/* Records "what: CUSPARSE_STATUS_X (message) at file:line" and returns the mapped status. */
static spx_status cusparse_fail_at(spx_ctx *ctx, cusparseStatus_t st, const char *what, const char *file, int line)
{
    (void)cudaGetLastError();
    return spx_fail(ctx, st == CUSPARSE_STATUS_ALLOC_FAILED ? SPX_ERR_DEVICE_ALLOC : SPX_ERR_CUDA,
                    "cuSPARSE: %s failed: %s (%s) at %s:%d", what, cusparseGetErrorName(st),
                    cusparseGetErrorString(st), spx_cuda_short_path(file), line);
}

#define SPX_CUSPARSE_RET(ctx, call)                                                            \
    do {                                                                                       \
        cusparseStatus_t spx_st_ = (call);                                                     \
        if (spx_st_ != CUSPARSE_STATUS_SUCCESS)                                                \
            return cusparse_fail_at((ctx), spx_st_, #call, __FILE__, __LINE__);                \
    } while (0)

#define SPX_CUSPARSE_GOTO(ctx, s, call)                                                        \
    do {                                                                                       \
        cusparseStatus_t spx_st_ = (call);                                                     \
        if (spx_st_ != CUSPARSE_STATUS_SUCCESS) {                                              \
            (s) = cusparse_fail_at((ctx), spx_st_, #call, __FILE__, __LINE__);                 \
            goto done;                                                                         \
        }                                                                                      \
    } while (0)

static cudaDataType value_type(spx_precision p) { return p == SPX_FP32 ? CUDA_R_32F : CUDA_R_64F; }

/* The SpMV algorithm of the plan's: ALG1 for alg3, which cuSPARSE has for SpMM only. */
static cusparseSpMVAlg_t spmv_alg(int alg) { return alg == 2 ? CUSPARSE_SPMV_CSR_ALG2 : CUSPARSE_SPMV_CSR_ALG1; }

/* The SpMM algorithm of the plan's. */
static cusparseSpMMAlg_t spmm_alg(int alg)
{
    return alg == 3 ? CUSPARSE_SPMM_CSR_ALG3 : alg == 2 ? CUSPARSE_SPMM_CSR_ALG2 : CUSPARSE_SPMM_CSR_ALG1;
}

/* Handle, descriptors, buffer size, buffer, preprocess. The vector descriptors are made on
 * placeholder vectors freed at the end: every SpMV sets the caller's pointers first. */
static spx_status analyse(spx_ctx *ctx, cusparse_dev *d)
{
    const cudaDataType vt = value_type(d->prec);
    const size_t vb = d->prec == SPX_FP32 ? sizeof(float) : sizeof(double);
    const double one64 = 1.0, zero64 = 0.0;
    const float one32 = 1.0f, zero32 = 0.0f;
    const void *one = d->prec == SPX_FP32 ? (const void *)&one32 : (const void *)&one64;
    const void *zero = d->prec == SPX_FP32 ? (const void *)&zero32 : (const void *)&zero64;
    size_t bytes = 0;
    char *vecs = NULL;
    spx_status s = spx_cuda_malloc(ctx, (void **)&vecs, ((size_t)d->n + (size_t)d->m) * vb);
    if (s) return s;
    d->stream = spx_cuda_stream(ctx);
    SPX_CUSPARSE_GOTO(ctx, s, cusparseCreate(&d->handle));
    SPX_CUSPARSE_GOTO(ctx, s, cusparseSetStream(d->handle, d->stream));
    SPX_CUSPARSE_GOTO(ctx, s, cusparseCreateCsr(&d->A, d->m, d->n, d->nnz, d->rowptr, d->colind, d->val,
                                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, vt));
    SPX_CUSPARSE_GOTO(ctx, s, cusparseCreateDnVec(&d->x, d->n, vecs, vt));
    SPX_CUSPARSE_GOTO(ctx, s, cusparseCreateDnVec(&d->y, d->m, vecs + (size_t)d->n * vb, vt));
    SPX_CUSPARSE_GOTO(ctx, s, cusparseSpMV_bufferSize(d->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, one, d->A, d->x,
                                                      zero, d->y, vt, spmv_alg(d->alg), &bytes));
    if ((s = spx_cuda_malloc(ctx, &d->buffer, bytes))) goto done;
    SPX_CUSPARSE_GOTO(ctx, s, cusparseSpMV_preprocess(d->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, one, d->A, d->x,
                                                      zero, d->y, vt, spmv_alg(d->alg), d->buffer));
    s = spx_cuda_sync(ctx);
done:
    spx_cuda_free(ctx, vecs);
    return s;
}

static void cusparse_free(spx_ctx *ctx, void *dev);

/* A new GPU state for an m x n matrix with nnz entries (arrays not yet set). */
static cusparse_dev *state_new(spx_ctx *ctx, int32_t m, int32_t n, int64_t nnz, spx_precision prec, int alg)
{
    cusparse_dev *d = (cusparse_dev *)spx_calloc_array(ctx, 1, sizeof *d);
    if (!d) return NULL;
    d->m = m;
    d->n = n;
    d->nnz = (int32_t)nnz;
    d->prec = prec;
    d->alg = alg >= 1 && alg <= 3 ? alg : 1;
    return d;
}

/* With the arrays on the device: cuSPARSE's analysis, the kernel name; frees d on failure. */
static spx_status finish(spx_ctx *ctx, cusparse_dev *d, spx_phase_log *log, void **dev)
{
    spx_status s = SPX_OK;
    if (d->m == 0 || d->nnz == 0) { /* nothing for cuSPARSE to do: y = b*y by our own kernel */
        snprintf(d->kernel, sizeof d->kernel, "csr_empty(y=b*y; cusparse not called)");
    } else {
        const double t0 = spx_now();
        s = analyse(ctx, d);
        spx_phase_add(log, "analyse", spx_now() - t0);
        snprintf(d->kernel, sizeof d->kernel, "cusparse_csr_alg%d", d->alg == 2 ? 2 : 1); /* what spmv_alg runs */
    }
    if (s) {
        cusparse_free(ctx, d);
        return s;
    }
    *dev = d;
    return SPX_OK;
}

/* Uploads the host csr layout, then analyses. */
static spx_status cusparse_upload(spx_ctx *ctx, const void *impl, spx_phase_log *log, void **dev)
{
    const spx_cusparse_host *H = (const spx_cusparse_host *)impl;
    if (!ctx || !H || !H->csr || !dev)
        return ctx ? spx_fail(ctx, SPX_ERR_ARG, "cusparse upload: NULL argument") : SPX_ERR_ARG;
    const spx_csr_fmt *F = H->csr;
    if (F->nnz > INT32_MAX)
        return spx_fail(ctx, SPX_ERR_OVERFLOW, "cusparse upload: %lld nonzeros exceed the int32 range",
                        (long long)F->nnz);
    spx_status s = spx_cuda_init(ctx);
    if (s) return s;
    cusparse_dev *d = state_new(ctx, F->m, F->n, F->nnz, F->precision, H->alg);
    if (!d) return spx_fail_nomem(ctx, "cusparse GPU state");
    const double t0 = spx_now();
    s = spx_csr_fmt_upload(ctx, F, &d->rowptr, &d->colind, &d->val);
    spx_phase_add(log, "upload", spx_now() - t0);
    if (s) {
        cusparse_free(ctx, d);
        return s;
    }
    return finish(ctx, d, log, dev);
}

/* Builds on the device: takes the uploaded CSR's arrays as they are (cuSPARSE reads int32
 * CSR directly), then analyses. No host layout exists. */
static spx_status cusparse_build(spx_ctx *ctx, spx_dev_csr *A, const spx_features *feat, const spx_plan_opts *opts,
                                 spx_phase_log *log, void **dev)
{
    const int alg = spx_cusparse_alg_number(opts ? opts->algo : NULL);
    cusparse_dev *d = state_new(ctx, A->m, A->n, A->nnz, A->precision, alg);
    if (!d) return spx_fail_nomem(ctx, "cusparse GPU state");
    d->rowptr = A->rowptr;
    d->colind = A->colind;
    d->val = A->val;
    A->rowptr = A->colind = NULL;
    A->val = NULL;
    return finish(ctx, d, log, dev);
}

/* The device arrays back to a host CSR. */
static spx_status cusparse_to_csr(spx_ctx *ctx, const void *dev, spx_csr **out)
{
    const cusparse_dev *d = (const cusparse_dev *)dev;
    spx_dev_csr view = {d->m, d->n, d->nnz, d->prec, d->rowptr, d->colind, d->val, NULL};
    return spx_cuda_dev_csr_download(ctx, &view, out);
}

static const char *cusparse_algo(const void *dev)
{
    static const char *const names[] = {"alg1", "alg2", "alg3"};
    return names[((const cusparse_dev *)dev)->alg - 1];
}

/* The csr layout's minimum bytes (int32 row pointers). */
static double cusparse_bytes(const void *dev)
{
    const cusparse_dev *d = (const cusparse_dev *)dev;
    return spx_csr_traffic_bytes(d->m, d->n, d->nnz, (int)spx_precision_bytes(d->prec), 4, 0);
}

/* Puts the handle on the context's stream if that changed since the plan was made. */
static spx_status bind_stream(spx_ctx *ctx, cusparse_dev *d)
{
    const cudaStream_t st = spx_cuda_stream(ctx);
    if (st != d->stream) {
        SPX_CUSPARSE_RET(ctx, cusparseSetStream(d->handle, st));
        d->stream = st;
    }
    return SPX_OK;
}

/* A call's a and b as cuSPARSE reads them: pointers to values of the plan's type (fp32 copies
 * kept here for an fp32 plan; the struct must outlive the call). */
typedef struct scalars {
    float a32, b32;
    const void *a, *b;
} scalars;

/* Fills *s for coefficients a and b (kept at their addresses for an fp64 plan). */
static void scalars_of(const cusparse_dev *d, const double *a, const double *b, scalars *s)
{
    s->a32 = (float)*a;
    s->b32 = (float)*b;
    s->a = d->prec == SPX_FP32 ? (const void *)&s->a32 : (const void *)a;
    s->b = d->prec == SPX_FP32 ? (const void *)&s->b32 : (const void *)b;
}

/* y = a*A*x + b*y through cusparseSpMV on the context's stream. */
static spx_status cusparse_spmv(spx_ctx *ctx, void *dev, const spx_spmv_args *args)
{
    cusparse_dev *d = (cusparse_dev *)dev;
    if (!ctx || !d || !args) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "cusparse spmv: NULL argument") : SPX_ERR_ARG;
    if (args->precision != d->prec) return spx_fail(ctx, SPX_ERR_ARG, "cusparse spmv: precision differs from the plan's");
    if (d->m == 0) return SPX_OK;
    if (!args->y || (d->nnz > 0 && !args->x)) return spx_fail(ctx, SPX_ERR_ARG, "cusparse spmv: NULL vector");
    if (d->nnz == 0) return spx_cuda_scale_y(ctx, d->prec, d->m, args->beta, args->y);
    const cudaDataType vt = value_type(d->prec);
    scalars ab;
    scalars_of(d, &args->alpha, &args->beta, &ab);
    spx_status s = bind_stream(ctx, d);
    if (s) return s;
    SPX_CUSPARSE_RET(ctx, cusparseDnVecSetValues(d->x, (void *)args->x));
    SPX_CUSPARSE_RET(ctx, cusparseDnVecSetValues(d->y, args->y));
    SPX_CUSPARSE_RET(ctx, cusparseSpMV(d->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, ab.a, d->A, d->x, ab.b, d->y, vt,
                                       spmv_alg(d->alg), d->buffer));
    return SPX_OK;
}

/* ---- SpMM ---- */

/* Whether a's blocks have the configuration d's SpMM descriptors and buffer were made for. */
static int mm_same(const cusparse_dev *d, const spx_spmm_args *a)
{
    return d->mm_ready && d->mm_k == a->k && d->mm_layout == a->layout && d->mm_ldx == a->ldx && d->mm_ldy == a->ldy;
}

/* Forgets the configuration: its block descriptors go, the buffer stays for the next. */
static void mm_drop(cusparse_dev *d)
{
    if (d->X) (void)cusparseDestroyDnMat(d->X);
    if (d->Y) (void)cusparseDestroyDnMat(d->Y);
    d->X = d->Y = NULL;
    d->mm_ready = 0;
}

/* The SpMM's matrix descriptor (made once) and a's block descriptors. */
static spx_status mm_descriptors(spx_ctx *ctx, cusparse_dev *d, const spx_spmm_args *a)
{
    const cudaDataType vt = value_type(d->prec);
    const cusparseOrder_t order = a->layout == SPX_DENSE_ROW_MAJOR ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL;
    if (!d->Amm)
        SPX_CUSPARSE_RET(ctx, cusparseCreateCsr(&d->Amm, d->m, d->n, d->nnz, d->rowptr, d->colind, d->val,
                                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, vt));
    SPX_CUSPARSE_RET(ctx, cusparseCreateDnMat(&d->X, d->n, a->k, a->ldx, (void *)a->x, vt, order));
    SPX_CUSPARSE_RET(ctx, cusparseCreateDnMat(&d->Y, d->m, a->k, a->ldy, a->y, vt, order));
    return SPX_OK;
}

/* cusparseSpMM for a's configuration: descriptors, buffer size (a larger buffer when needed),
 * preprocess for ALG1 and ALG3 (the algorithms it helps; cuSPARSE documents no effect on the
 * others). A configuration cuSPARSE refuses (CUSPARSE_STATUS_NOT_SUPPORTED) is SPX_ERR_UNSUPPORTED,
 * named: never another algorithm in its place. */
static spx_status mm_setup(spx_ctx *ctx, cusparse_dev *d, const spx_spmm_args *a, const void *alpha, const void *beta)
{
    const cudaDataType vt = value_type(d->prec);
    const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    size_t bytes = 0;
    mm_drop(d);
    spx_status s = mm_descriptors(ctx, d, a);
    if (s) return s;
    const cusparseStatus_t st =
        cusparseSpMM_bufferSize(d->handle, op, op, alpha, d->Amm, d->X, beta, d->Y, vt, spmm_alg(d->alg), &bytes);
    if (st == CUSPARSE_STATUS_NOT_SUPPORTED)
        return spx_fail(ctx, SPX_ERR_UNSUPPORTED,
                        "cuSPARSE SpMM CSR_ALG%d does not take %s-major blocks of %lld columns (ld %lld and %lld): "
                        "CUSPARSE_STATUS_NOT_SUPPORTED",
                        d->alg, spx_dense_layout_str(a->layout), (long long)a->k, (long long)a->ldx, (long long)a->ldy);
    if (st != CUSPARSE_STATUS_SUCCESS) return cusparse_fail_at(ctx, st, "cusparseSpMM_bufferSize", __FILE__, __LINE__);
    if (!d->mm_buffer || bytes > d->mm_bytes) {
        spx_cuda_free(ctx, d->mm_buffer);
        d->mm_buffer = NULL;
        d->mm_bytes = 0;
        if ((s = spx_cuda_malloc(ctx, &d->mm_buffer, bytes ? bytes : 1))) return s;
        d->mm_bytes = bytes;
    }
    if (d->alg != 2)
        SPX_CUSPARSE_RET(ctx, cusparseSpMM_preprocess(d->handle, op, op, alpha, d->Amm, d->X, beta, d->Y, vt,
                                                      spmm_alg(d->alg), d->mm_buffer));
    d->mm_k = a->k;
    d->mm_layout = a->layout;
    d->mm_ldx = a->ldx;
    d->mm_ldy = a->ldy;
    d->mm_ready = 1;
    return SPX_OK;
}

/* Bytes to which CSR_ALG3's row-major kernel aligns its loads of X and Y (measured: on an H100,
 * CUDA 13, csrmm_v3_kernel reads 16 bytes at a time and faults with cudaErrorMisalignedAddress on
 * fp64 blocks whose lines are 88 bytes apart, bench/results/2026-12-08-nvidia-h100-session). */
#define CUSPARSE_ALG3_ROW_ALIGN 16

/* SPX_OK, or SPX_ERR_UNSUPPORTED naming why, when a's blocks are ones CSR_ALG3 reads out of
 * alignment (row-major lines or base pointers not on CUSPARSE_ALG3_ROW_ALIGN bytes). */
static spx_status alg3_alignment(spx_ctx *ctx, const cusparse_dev *d, const spx_spmm_args *a)
{
    if (d->alg != 3 || a->layout != SPX_DENSE_ROW_MAJOR) return SPX_OK;
    const uint64_t align = CUSPARSE_ALG3_ROW_ALIGN, vb = (uint64_t)spx_precision_bytes(d->prec);
    const int lines_ok = ((uint64_t)a->ldx * vb) % align == 0 && ((uint64_t)a->ldy * vb) % align == 0;
    const int base_ok = (uintptr_t)a->x % align == 0 && (uintptr_t)a->y % align == 0;
    if (lines_ok && base_ok) return SPX_OK;
    return spx_fail(ctx, SPX_ERR_UNSUPPORTED,
                    "cuSPARSE SpMM CSR_ALG3 does not take row-major blocks off %d-byte boundaries (ld %lld and %lld "
                    "of %d-byte values, or the data): its kernel reads %d bytes at a time and faults there",
                    (int)align, (long long)a->ldx, (long long)a->ldy, (int)vb, (int)align);
}

/* Y = a*A*X + b*Y through cusparseSpMM on the context's stream (set up on the first call of a
 * configuration, then reused: only the blocks' pointers are set per call). */
static spx_status cusparse_spmm(spx_ctx *ctx, void *dev, const spx_spmm_args *a)
{
    cusparse_dev *d = (cusparse_dev *)dev;
    if (!ctx || !d || !a) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "cusparse spmm: NULL argument") : SPX_ERR_ARG;
    if (a->precision != d->prec) return spx_fail(ctx, SPX_ERR_ARG, "cusparse spmm: precision differs from the plan's");
    if (d->m == 0) return SPX_OK;
    if (d->nnz == 0) return spx_cuda_spmm_scale_y(ctx, d->m, a);
    scalars ab;
    scalars_of(d, &a->alpha, &a->beta, &ab);
    const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    spx_status s = alg3_alignment(ctx, d, a);
    if (!s) s = bind_stream(ctx, d);
    if (!s && !mm_same(d, a)) s = mm_setup(ctx, d, a, ab.a, ab.b);
    if (s) return s;
    SPX_CUSPARSE_RET(ctx, cusparseDnMatSetValues(d->X, (void *)a->x));
    SPX_CUSPARSE_RET(ctx, cusparseDnMatSetValues(d->Y, a->y));
    SPX_CUSPARSE_RET(ctx, cusparseSpMM(d->handle, op, op, ab.a, d->Amm, d->X, ab.b, d->Y, value_type(d->prec),
                                       spmm_alg(d->alg), d->mm_buffer));
    return SPX_OK;
}

/* The SpMM a call runs: the plan's cuSPARSE algorithm on the blocks' layout (whatever k). */
static void cusparse_spmm_kernel(const void *dev, int64_t k, spx_dense_layout layout, char *name, size_t cap)
{
    const cusparse_dev *d = (const cusparse_dev *)dev;
    (void)k;
    if (d->m == 0 || d->nnz == 0)
        snprintf(name, cap, "csr_spmm_empty(Y=b*Y; cusparse not called)");
    else
        snprintf(name, cap, "cusparse_spmm_csr_alg%d_%s", d->alg, layout == SPX_DENSE_ROW_MAJOR ? "row" : "col");
}

static void cusparse_free(spx_ctx *ctx, void *dev)
{
    cusparse_dev *d = (cusparse_dev *)dev;
    if (!d) return;
    if (d->X) (void)cusparseDestroyDnMat(d->X);
    if (d->Y) (void)cusparseDestroyDnMat(d->Y);
    if (d->Amm) (void)cusparseDestroySpMat(d->Amm);
    spx_cuda_free(ctx, d->mm_buffer);
    if (d->x) (void)cusparseDestroyDnVec(d->x);
    if (d->y) (void)cusparseDestroyDnVec(d->y);
    if (d->A) (void)cusparseDestroySpMat(d->A);
    if (d->handle) (void)cusparseDestroy(d->handle);
    spx_cuda_free(ctx, d->rowptr);
    spx_cuda_free(ctx, d->colind);
    spx_cuda_free(ctx, d->val);
    spx_cuda_free(ctx, d->buffer);
    spx_free(ctx, d);
}

static const char *cusparse_kernel(const void *dev)
{
    return dev ? ((const cusparse_dev *)dev)->kernel : "none";
}

/* The baseline's GPU half (slots in spx_cuda_layout's and spx_cuda_ops' order). */
static const spx_format_cuda cusparse_cuda = {
    { /* layout */
        cusparse_upload, /* upload */
        cusparse_build,  /* build: on the device, from the uploaded CSR */
        cusparse_to_csr, /* to_csr */
        cusparse_free,   /* free */
        cusparse_algo,   /* algo_name */
        cusparse_bytes,  /* bytes_per_spmv */
    },
    {cusparse_spmv, cusparse_kernel, cusparse_spmm, cusparse_spmm_kernel}, /* ops: spmv, spmv_kernel, spmm, spmm_kernel */
};

extern "C" const spx_format_cuda *spx_cusparse_cuda(void) { return &cusparse_cuda; }
