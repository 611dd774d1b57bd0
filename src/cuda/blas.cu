/* src/cuda/blas.cu: the gateway's cuBLAS, loaded at first use (dlopen), one handle a context.
 * Linked at load time, libcublas and libcublasLt (~0.7 GB of libraries) cost every spx
 * process ~150 MB of resident memory, CPU runs too (tests/test_cli_budget.sh holds `spx info`
 * under 100 MB); only a plan that takes the SpGEMM's dense panels needs them. */
#include <dlfcn.h>
#include <stdio.h>

#include <cublas_v2.h>

#include "cuda/runtime.cuh"

#define SPX_BLAS_STR2(x) #x
#define SPX_BLAS_STR(x) SPX_BLAS_STR2(x)
/* The library of the toolkit spx was built with, then any. */
static const char *const blas_sonames[] = {"libcublas.so." SPX_BLAS_STR(CUBLAS_VER_MAJOR), "libcublas.so", NULL};

/* The library, its handle and the entry points spx calls. */
struct spx_cuda_blas_lib {
    void *lib;
    cublasHandle_t handle;
    decltype(&cublasCreate_v2) create;
    decltype(&cublasDestroy_v2) destroy;
    decltype(&cublasSetStream_v2) set_stream;
    decltype(&cublasDgemm_v2) dgemm;
    decltype(&cublasSgemm_v2) sgemm;
    decltype(&cublasGetStatusString) status_str;
};

/* Loads the library and its entry points into b; 0 when one is missing. */
static int load(spx_cuda_blas_lib *b)
{
    for (int i = 0; blas_sonames[i] && !b->lib; i++) b->lib = dlopen(blas_sonames[i], RTLD_NOW | RTLD_LOCAL);
    if (!b->lib) return 0;
    b->create = (decltype(b->create))dlsym(b->lib, "cublasCreate_v2");
    b->destroy = (decltype(b->destroy))dlsym(b->lib, "cublasDestroy_v2");
    b->set_stream = (decltype(b->set_stream))dlsym(b->lib, "cublasSetStream_v2");
    b->dgemm = (decltype(b->dgemm))dlsym(b->lib, "cublasDgemm_v2");
    b->sgemm = (decltype(b->sgemm))dlsym(b->lib, "cublasSgemm_v2");
    b->status_str = (decltype(b->status_str))dlsym(b->lib, "cublasGetStatusString");
    return b->create && b->destroy && b->set_stream && b->dgemm && b->sgemm && b->status_str;
}

extern "C" void spx_cuda_blas_close(spx_ctx *ctx, spx_cuda_blas_lib *b)
{
    if (!b) return;
    if (b->handle) (void)b->destroy(b->handle);
    if (b->lib) dlclose(b->lib);
    spx_free(ctx, b);
}

extern "C" spx_status spx_cuda_blas_open(spx_ctx *ctx)
{
    spx_status s = spx_cuda_init(ctx);
    if (s) return s;
    spx_cuda_state *st = (spx_cuda_state *)ctx->cuda;
    if (st->blas) return SPX_OK;
    spx_cuda_blas_lib *b = (spx_cuda_blas_lib *)spx_calloc_array(ctx, 1, sizeof *b);
    if (!b) return spx_fail_nomem(ctx, "cuBLAS state");
    if (!load(b)) {
        const char *why = dlerror();
        spx_cuda_blas_close(ctx, b);
        return spx_fail(ctx, SPX_ERR_CUDA, "cuBLAS: %s could not be loaded: %s", blas_sonames[0],
                        why ? why : "an entry point is missing");
    }
    const cublasStatus_t e = b->create(&b->handle);
    if (e != CUBLAS_STATUS_SUCCESS) {
        const char *what = b->status_str(e);
        b->handle = NULL;
        spx_status f = spx_fail(ctx, SPX_ERR_CUDA, "cuBLAS: cublasCreate failed: %s", what);
        spx_cuda_blas_close(ctx, b);
        return f;
    }
    st->blas = b;
    return SPX_OK;
}

extern "C" spx_status spx_cuda_gemm(spx_ctx *ctx, spx_precision p, int m, int n, int k, const void *A, int lda,
                                    const void *B, int ldb, void *C, int ldc)
{
    spx_status s = spx_cuda_blas_open(ctx);
    if (s) return s;
    const spx_cuda_blas_lib *b = ((const spx_cuda_state *)ctx->cuda)->blas;
    cublasStatus_t e = b->set_stream(b->handle, spx_cuda_stream(ctx));
    if (e == CUBLAS_STATUS_SUCCESS) {
        if (p == SPX_FP32) {
            const float one = 1.0f, zero = 0.0f;
            e = b->sgemm(b->handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, (const float *)A, lda, (const float *)B,
                         ldb, &zero, (float *)C, ldc);
        } else {
            const double one = 1.0, zero = 0.0;
            e = b->dgemm(b->handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, (const double *)A, lda,
                         (const double *)B, ldb, &zero, (double *)C, ldc);
        }
    }
    if (e != CUBLAS_STATUS_SUCCESS)
        return spx_fail(ctx, SPX_ERR_CUDA, "cuBLAS: GEMM %d x %d x %d failed: %s", m, n, k, b->status_str(e));
    return SPX_OK;
}
