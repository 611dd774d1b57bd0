/* src/spgemm/cusparse/cusparse_spgemm.cu: the vendor baseline: cusparseSpGEMM (ALG1 default,
 * ALG2, ALG3) in the plan's phases: analyse = upload and descriptors; symbolic = work
 * estimation (plus memory estimation for ALG2/3) and compute, which gives nnz(C); numeric =
 * C's arrays, copy, download (a run after update_values computes again on the same buffers);
 * numeric_dev = copy into the device CSR the plan hands in.
 * INSUFFICIENT_RESOURCES or a refused device allocation becomes SPX_ERR_DEVICE_ALLOC with
 * "failed: insufficient resources, needed N bytes" and the plan is not made; never a crash. */
#include <stdio.h>
#include <string.h>

#include <cusparse.h>

#include "cuda/convert_kernels.cuh"
#include "spgemm/spgemm_dev.cuh"

/* ALG2/ALG3's chunk fraction for cusparseSpGEMM_estimateMemory (NVIDIA's sample value). */
#define SPX_CUSPARSE_SPGEMM_CHUNK_FRACTION 0.2f

typedef struct cusp_state {
    spx_spgemm_operands ops;
    spx_precision prec;
    int alg; /* 1, 2, 3 */
    int32_t m, n;
    int64_t nnz_c;
    int stale; /* values changed since the last compute */
    cusparseHandle_t handle;
    cusparseSpMatDescr_t A, B, C;
    cusparseSpGEMMDescr_t desc;
    void *buf1, *buf2;
    size_t bytes1, bytes2, bytes3;
    int32_t *c_rowptr; /* device, m + 1 (needed by the descriptor from compute on) */
    char kernel[48];
} cusp_state;

static const char *const cusp_algos[] = {"alg1", "alg2", "alg3", NULL};

/* "failed: insufficient resources, needed N bytes" (the largest buffer asked for so far), or
 * the plain cuSPARSE error otherwise. */
static spx_status cusp_fail(spx_ctx *ctx, const cusp_state *d, cusparseStatus_t st, const char *what, int line)
{
    (void)cudaGetLastError();
    size_t need = d->bytes1 > d->bytes2 ? d->bytes1 : d->bytes2;
    if (d->bytes3 > need) need = d->bytes3;
    if (st == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES || st == CUSPARSE_STATUS_ALLOC_FAILED)
        return spx_fail(ctx, SPX_ERR_DEVICE_ALLOC,
                        "cuSPARSE SpGEMM alg%d: failed: insufficient resources, needed %zu bytes (%s: %s)", d->alg,
                        need, what, cusparseGetErrorName(st));
    return spx_fail(ctx, SPX_ERR_CUDA, "cuSPARSE SpGEMM alg%d: %s failed: %s (%s) at spgemm/cusparse:%d", d->alg, what,
                    cusparseGetErrorName(st), cusparseGetErrorString(st), line);
}

#define CUSP_GOTO(call)                                                                        \
    do {                                                                                       \
        cusparseStatus_t st_ = (call);                                                         \
        if (st_ != CUSPARSE_STATUS_SUCCESS) {                                                  \
            s = cusp_fail(ctx, d, st_, #call, __LINE__);                                       \
            goto done;                                                                         \
        }                                                                                      \
    } while (0)

/* A device buffer for cuSPARSE; a refusal is reported as insufficient resources. */
static spx_status cusp_malloc(spx_ctx *ctx, const cusp_state *d, void **p, size_t bytes, const char *what)
{
    spx_status s = spx_cuda_malloc(ctx, p, bytes);
    if (s != SPX_ERR_DEVICE_ALLOC) return s;
    char msg[SPX_ERRMSG_LEN];
    snprintf(msg, sizeof msg, "%s", spx_ctx_last_error(ctx));
    return spx_fail(ctx, s, "cuSPARSE SpGEMM alg%d: failed: insufficient resources, needed %zu bytes (%s): %.300s",
                    d->alg, bytes, what, msg);
}

static cudaDataType vtype(spx_precision p) { return p == SPX_FP32 ? CUDA_R_32F : CUDA_R_64F; }

static cusparseSpGEMMAlg_t alg_of(int alg)
{
    return alg == 3 ? CUSPARSE_SPGEMM_ALG3 : alg == 2 ? CUSPARSE_SPGEMM_ALG2 : CUSPARSE_SPGEMM_ALG1;
}

/* alpha = 1, beta = 0 in the plan's precision. */
typedef struct cusp_scalars {
    double one64, zero64;
    float one32, zero32;
} cusp_scalars;
static const cusp_scalars SCALARS = {1.0, 0.0, 1.0f, 0.0f};
#define ONE(d) ((d)->prec == SPX_FP32 ? (const void *)&SCALARS.one32 : (const void *)&SCALARS.one64)
#define ZERO(d) ((d)->prec == SPX_FP32 ? (const void *)&SCALARS.zero32 : (const void *)&SCALARS.zero64)
#define OPN CUSPARSE_OPERATION_NON_TRANSPOSE

static void cusp_destroy(spx_ctx *ctx, void *state);

/* Descriptors of A, B and an empty C. */
static spx_status make_descriptors(spx_ctx *ctx, cusp_state *d)
{
    spx_status s = SPX_OK;
    const spx_dev_csr *A = &d->ops.A, *B = &d->ops.B;
    const cudaDataType vt = vtype(d->prec);
    CUSP_GOTO(cusparseCreate(&d->handle));
    CUSP_GOTO(cusparseSetStream(d->handle, spx_cuda_stream(ctx)));
    CUSP_GOTO(cusparseCreateCsr(&d->A, A->m, A->n, A->nnz, A->rowptr, A->colind, A->val, CUSPARSE_INDEX_32I,
                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, vt));
    CUSP_GOTO(cusparseCreateCsr(&d->B, B->m, B->n, B->nnz, B->rowptr, B->colind, B->val, CUSPARSE_INDEX_32I,
                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, vt));
    CUSP_GOTO(cusparseCreateCsr(&d->C, A->m, B->n, 0, NULL, NULL, NULL, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                CUSPARSE_INDEX_BASE_ZERO, vt));
    CUSP_GOTO(cusparseSpGEMM_createDescr(&d->desc));
done:
    return s;
}

static spx_status cusp_analyse(spx_ctx *ctx, const spx_spgemm_input *in, spx_phase_log *log, void **state,
                               int64_t *products)
{
    cusp_state *d = (cusp_state *)spx_calloc_array(ctx, 1, sizeof *d);
    if (!d) return spx_fail_nomem(ctx, "cuSPARSE SpGEMM state");
    d->prec = in->precision;
    d->alg = in->algo && !strcmp(in->algo, "alg3") ? 3 : in->algo && !strcmp(in->algo, "alg2") ? 2 : 1;
    double t0 = spx_now();
    spx_status s = spx_spgemm_dev_upload(ctx, in, &d->ops);
    if (!in->dev_a || !in->dev_b) spx_phase_add(log, "upload", spx_now() - t0);
    d->m = d->ops.A.m;
    d->n = d->ops.B.n;
    t0 = spx_now();
    if (!s && d->ops.A.nnz && d->ops.B.nnz) s = make_descriptors(ctx, d);
    spx_phase_add(log, "analyse", spx_now() - t0);
    /* the products, counted on the device (cuSPARSE reports them only for ALG2/3): for the
     * report, outside the phases that time cuSPARSE */
    if (!s) s = spx_spgemm_dev_products(ctx, &d->ops.A, &d->ops.B, products);
    if (s) {
        cusp_destroy(ctx, d);
        return s;
    }
    snprintf(d->kernel, sizeof d->kernel, "cusparse_spgemm_alg%d", d->alg);
    *state = d;
    return SPX_OK;
}

/* Work estimation: its buffer sized, allocated, filled. */
static spx_status work_estimation(spx_ctx *ctx, cusp_state *d)
{
    spx_status s = SPX_OK;
    const cudaDataType vt = vtype(d->prec);
    CUSP_GOTO(cusparseSpGEMM_workEstimation(d->handle, OPN, OPN, ONE(d), d->A, d->B, ZERO(d), d->C, vt,
                                            alg_of(d->alg), d->desc, &d->bytes1, NULL));
    if ((s = cusp_malloc(ctx, d, &d->buf1, d->bytes1, "work estimation buffer"))) goto done;
    CUSP_GOTO(cusparseSpGEMM_workEstimation(d->handle, OPN, OPN, ONE(d), d->A, d->B, ZERO(d), d->C, vt,
                                            alg_of(d->alg), d->desc, &d->bytes1, d->buf1));
done:
    return s;
}

/* The compute buffer's size: asked of compute (ALG1) or of estimateMemory (ALG2/3). */
static spx_status compute_size(spx_ctx *ctx, cusp_state *d)
{
    spx_status s = SPX_OK;
    void *buf3 = NULL;
    const cudaDataType vt = vtype(d->prec);
    if (d->alg == 1) {
        CUSP_GOTO(cusparseSpGEMM_compute(d->handle, OPN, OPN, ONE(d), d->A, d->B, ZERO(d), d->C, vt, alg_of(d->alg),
                                         d->desc, &d->bytes2, NULL));
        goto done;
    }
    CUSP_GOTO(cusparseSpGEMM_estimateMemory(d->handle, OPN, OPN, ONE(d), d->A, d->B, ZERO(d), d->C, vt,
                                            alg_of(d->alg), d->desc, SPX_CUSPARSE_SPGEMM_CHUNK_FRACTION, &d->bytes3,
                                            NULL, NULL));
    if ((s = cusp_malloc(ctx, d, &buf3, d->bytes3, "memory estimation buffer"))) goto done;
    CUSP_GOTO(cusparseSpGEMM_estimateMemory(d->handle, OPN, OPN, ONE(d), d->A, d->B, ZERO(d), d->C, vt,
                                            alg_of(d->alg), d->desc, SPX_CUSPARSE_SPGEMM_CHUNK_FRACTION, &d->bytes3,
                                            buf3, &d->bytes2));
done:
    spx_cuda_free(ctx, buf3);
    return s;
}

/* compute on the allocated buffer (the product itself). */
static spx_status compute(spx_ctx *ctx, cusp_state *d)
{
    spx_status s = SPX_OK;
    CUSP_GOTO(cusparseSpGEMM_compute(d->handle, OPN, OPN, ONE(d), d->A, d->B, ZERO(d), d->C, vtype(d->prec),
                                     alg_of(d->alg), d->desc, &d->bytes2, d->buf2));
done:
    return s;
}

static spx_status cusp_symbolic(spx_ctx *ctx, void *state, spx_phase_log *log, int64_t *nnz_c)
{
    cusp_state *d = (cusp_state *)state;
    spx_status s = SPX_OK;
    int64_t rows = 0, cols = 0, nnz = 0;
    const double t0 = spx_now();
    if (!d->desc) { /* an operand without entries: C has none, cuSPARSE is not called */
        *nnz_c = 0;
        snprintf(d->kernel, sizeof d->kernel, "none(empty operand; cusparse not called)");
        return SPX_OK;
    }
    if ((s = work_estimation(ctx, d)) || (s = compute_size(ctx, d)) ||
        (s = cusp_malloc(ctx, d, &d->buf2, d->bytes2, "compute buffer")) || (s = compute(ctx, d)))
        goto done;
    CUSP_GOTO(cusparseSpMatGetSize(d->C, &rows, &cols, &nnz));
    if (nnz > INT32_MAX) {
        s = spx_fail(ctx, SPX_ERR_OVERFLOW, "cuSPARSE SpGEMM alg%d: C has %lld nonzeros, beyond its int32 indices",
                     d->alg, (long long)nnz);
        goto done;
    }
    d->nnz_c = nnz;
    *nnz_c = nnz;
    s = spx_cuda_sync(ctx);
done:
    spx_phase_add(log, "symbolic", spx_now() - t0);
    return s;
}

static spx_status cusp_update_values(spx_ctx *ctx, void *state, const spx_spgemm_input *in, spx_phase_log *log)
{
    cusp_state *d = (cusp_state *)state;
    if (!d->desc) return SPX_OK;
    if (d->ops.a_borrowed && d->ops.b_borrowed) { /* the descriptors read the plan's arrays, updated there */
        d->stale = 1;
        return SPX_OK;
    }
    spx_status s = SPX_OK;
    const double t0 = spx_now();
    spx_dev_csr A = {0}, B = {0};
    if ((s = spx_cuda_dev_csr_upload(ctx, in->A, d->prec, &A)) || (s = spx_cuda_dev_csr_upload(ctx, in->B, d->prec, &B)))
        goto done;
    SPX_CUDA_GOTO(ctx, s, cudaMemcpyAsync(d->ops.A.val, A.val, (size_t)A.nnz * spx_precision_bytes(d->prec),
                                          cudaMemcpyDeviceToDevice, spx_cuda_stream(ctx)));
    SPX_CUDA_GOTO(ctx, s, cudaMemcpyAsync(d->ops.B.val, B.val, (size_t)B.nnz * spx_precision_bytes(d->prec),
                                          cudaMemcpyDeviceToDevice, spx_cuda_stream(ctx)));
    s = spx_cuda_sync(ctx);
    d->stale = 1;
done:
    spx_cuda_dev_csr_free(ctx, &A);
    spx_cuda_dev_csr_free(ctx, &B);
    spx_phase_add(log, "upload", spx_now() - t0);
    return s;
}

static spx_status cusp_numeric(spx_ctx *ctx, void *state, spx_phase_log *log, spx_csr *C)
{
    cusp_state *d = (cusp_state *)state;
    spx_status s = SPX_OK;
    int32_t *ci = NULL, *rp = NULL;
    void *cv = NULL;
    double t0 = spx_now();
    if (!d->desc) { /* C has no entries */
        memset(C->rowptr, 0, ((size_t)C->m + 1) * sizeof *C->rowptr);
        return SPX_OK;
    }
    if ((s = cusp_malloc(ctx, d, (void **)&d->c_rowptr, ((size_t)d->m + 1) * sizeof(int32_t), "C row pointers")) ||
        (s = cusp_malloc(ctx, d, (void **)&ci, (size_t)d->nnz_c * sizeof(int32_t), "C columns")) ||
        (s = cusp_malloc(ctx, d, &cv, (size_t)d->nnz_c * spx_precision_bytes(d->prec), "C values")))
        goto done;
    CUSP_GOTO(cusparseCsrSetPointers(d->C, d->c_rowptr, ci, cv));
    if (d->stale && (s = compute(ctx, d))) goto done;
    CUSP_GOTO(cusparseSpGEMM_copy(d->handle, OPN, OPN, ONE(d), d->A, d->B, ZERO(d), d->C, vtype(d->prec),
                                  alg_of(d->alg), d->desc));
    if ((s = spx_cuda_sync(ctx))) goto done;
    d->stale = 1; /* the next run computes again: C's arrays are new */
    spx_phase_add(log, "numeric", spx_now() - t0);
    t0 = spx_now();
    rp = (int32_t *)spx_malloc_array(ctx, (size_t)d->m + 1, sizeof *rp);
    if (!rp) {
        s = spx_fail_nomem(ctx, "spgemm: C row pointers");
        goto done;
    }
    if ((s = spx_cuda_d2h(ctx, rp, d->c_rowptr, ((size_t)d->m + 1) * sizeof *rp)) ||
        (s = spx_spgemm_dev_download(ctx, ci, cv, d->prec, d->nnz_c, C)))
        goto done;
    for (int64_t i = 0; i <= d->m; i++) C->rowptr[i] = rp[i];
    spx_phase_add(log, "download", spx_now() - t0);
done:
    spx_free(ctx, rp);
    spx_cuda_free(ctx, ci);
    spx_cuda_free(ctx, cv);
    spx_cuda_free(ctx, d->c_rowptr);
    d->c_rowptr = NULL;
    return s;
}

/* The numeric phase into the device CSR C (allocated by the plan): cuSPARSE's copy writes C's
 * arrays themselves (its int32 row pointers into a scratch array, then widened, for int64 ones);
 * one wait at the end. */
static spx_status cusp_numeric_dev(spx_ctx *ctx, void *state, spx_phase_log *log, spx_csr_dev *C)
{
    cusp_state *d = (cusp_state *)state;
    spx_status s = SPX_OK;
    int32_t *rp = C->rowptr_type == SPX_INDEX_INT32 ? (int32_t *)C->rowptr : NULL;
    const double t0 = spx_now();
    if (!d->desc) { /* C has no entries */
        SPX_CUDA_GOTO(ctx, s, cudaMemsetAsync(C->rowptr, 0, ((size_t)C->m + 1) * (rp ? 4 : 8), spx_cuda_stream(ctx)));
        s = spx_cuda_sync(ctx);
        goto done;
    }
    if (!rp && (s = cusp_malloc(ctx, d, (void **)&d->c_rowptr, ((size_t)d->m + 1) * sizeof(int32_t), "C row pointers")))
        goto done;
    CUSP_GOTO(cusparseCsrSetPointers(d->C, rp ? rp : d->c_rowptr, C->colind, C->val));
    if (d->stale && (s = compute(ctx, d))) goto done;
    CUSP_GOTO(cusparseSpGEMM_copy(d->handle, OPN, OPN, ONE(d), d->A, d->B, ZERO(d), d->C, vtype(d->prec),
                                  alg_of(d->alg), d->desc));
    if (!rp) s = spx_cuda_cast(ctx, (const int32_t *)d->c_rowptr, (int64_t *)C->rowptr, (int64_t)d->m + 1);
    if (!s) s = spx_cuda_sync(ctx);
    d->stale = 1; /* the next run computes again: C's arrays are new */
done:
    spx_phase_add(log, "numeric", spx_now() - t0);
    spx_cuda_free(ctx, d->c_rowptr);
    d->c_rowptr = NULL;
    return s;
}

static void cusp_destroy(spx_ctx *ctx, void *state)
{
    cusp_state *d = (cusp_state *)state;
    if (!d) return;
    if (d->desc) (void)cusparseSpGEMM_destroyDescr(d->desc);
    if (d->A) (void)cusparseDestroySpMat(d->A);
    if (d->B) (void)cusparseDestroySpMat(d->B);
    if (d->C) (void)cusparseDestroySpMat(d->C);
    if (d->handle) (void)cusparseDestroy(d->handle);
    spx_cuda_free(ctx, d->buf1);
    spx_cuda_free(ctx, d->buf2);
    spx_cuda_free(ctx, d->c_rowptr);
    spx_spgemm_dev_free(ctx, &d->ops);
    spx_free(ctx, d);
}

static const char *cusp_kernel(const void *state) { return state ? ((const cusp_state *)state)->kernel : "none"; }

static const spx_spgemm_impl cusparse_impl = {
    "cusparse",
    "cuSPARSE cusparseSpGEMM (work estimation, compute, copy), the vendor baseline",
    cusp_algos,
    SPX_BACKEND_CUDA,
    SPX_SPGEMM_BASELINE,
    cusp_analyse,
    cusp_symbolic,
    cusp_update_values,
    cusp_numeric,
    cusp_destroy,
    cusp_kernel,
    NULL, /* numeric_rows */
    NULL, /* row_pointers */
    NULL, /* analyse_rows */
    cusp_numeric_dev,
};

extern "C" const spx_spgemm_impl *spx_spgemm_cusparse(void) { return &cusparse_impl; }
