/* src/formats/cusparse/cusparse_cuda.cu: the vendor baseline on the GPU: cusparseSpMV on the csr
 * layout (32-bit indices, CSR_ALG1 or CSR_ALG2), with its buffer sizing and preprocessing done
 * at plan time and nothing allocated per call. */
#include <stdio.h>
#include <string.h>

#include <cusparse.h>

#include "cuda/runtime.cuh"
#include "formats/csr/csr_cuda.h"
#include "formats/cusparse/cusparse.h"
#include "spmv/format.h"

/* The baseline's GPU state (plan-owned). */
typedef struct cusparse_dev {
    int32_t m, n, nnz;
    spx_precision prec;
    int alg; /* 1 or 2 */
    int32_t *rowptr, *colind;
    void *val;
    void *buffer; /* cusparseSpMV's external buffer, kept from preprocess on */
    cusparseHandle_t handle;
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t x, y; /* values set per call (cusparseDnVecSetValues) */
    cudaStream_t stream;       /* the stream the handle runs on */
    char kernel[48];
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

static cusparseSpMVAlg_t spmv_alg(int alg) { return alg == 2 ? CUSPARSE_SPMV_CSR_ALG2 : CUSPARSE_SPMV_CSR_ALG1; }

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
    d->alg = alg == 2 ? 2 : 1;
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
        snprintf(d->kernel, sizeof d->kernel, "cusparse_csr_alg%d", d->alg);
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
    int alg = opts && opts->algo && !strcmp(opts->algo, "alg2") ? 2 : 1;
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

static const char *cusparse_algo(const void *dev) { return ((const cusparse_dev *)dev)->alg == 2 ? "alg2" : "alg1"; }

/* The csr layout's minimum bytes (int32 row pointers). */
static double cusparse_bytes(const void *dev)
{
    const cusparse_dev *d = (const cusparse_dev *)dev;
    return spx_csr_traffic_bytes(d->m, d->n, d->nnz, (int)spx_precision_bytes(d->prec), 4, 0);
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
    const float a32 = (float)args->alpha, b32 = (float)args->beta;
    const void *a = d->prec == SPX_FP32 ? (const void *)&a32 : (const void *)&args->alpha;
    const void *b = d->prec == SPX_FP32 ? (const void *)&b32 : (const void *)&args->beta;
    const cudaStream_t st = spx_cuda_stream(ctx);
    if (st != d->stream) { /* the context's stream changed since the plan was made */
        SPX_CUSPARSE_RET(ctx, cusparseSetStream(d->handle, st));
        d->stream = st;
    }
    SPX_CUSPARSE_RET(ctx, cusparseDnVecSetValues(d->x, (void *)args->x));
    SPX_CUSPARSE_RET(ctx, cusparseDnVecSetValues(d->y, args->y));
    SPX_CUSPARSE_RET(ctx, cusparseSpMV(d->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, a, d->A, d->x, b, d->y, vt,
                                       spmv_alg(d->alg), d->buffer));
    return SPX_OK;
}

static void cusparse_free(spx_ctx *ctx, void *dev)
{
    cusparse_dev *d = (cusparse_dev *)dev;
    if (!d) return;
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
    {cusparse_spmv, cusparse_kernel}, /* ops: spmv, spmv_kernel; no spmm kernel yet (the plan runs k SpMVs) */
};

extern "C" const spx_format_cuda *spx_cusparse_cuda(void) { return &cusparse_cuda; }
