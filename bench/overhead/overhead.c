/* bench/overhead/overhead.c: the median time of one spx_plan_spmv call from C on a 1024-row
 * matrix (gen:poisson2d:n=32, csr, CPU, 1 thread), 10,000 calls after 1,000 warm-ups: the
 * baseline bench/overhead/overhead.py's Python call is compared with (issue 16: <= 5 us more).
 * Built with -DOVERHEAD_CUDA (and the CUDA runtime: run.sh --backend cuda), the device variant:
 * the same matrix on a CUDA context, x and y in device memory (cudaMalloc), each
 * spx_plan_spmv_device call followed by a cudaStreamSynchronize of the default stream (the
 * context's: none set), both inside the timing, as overhead.py --backend cuda does with CuPy
 * arrays; also the median of a bare synchronize of the idle stream, the floor both carry. That
 * variant exits 77 ("skipped") where libspx has no CUDA backend or no GPU is usable. */
#define _POSIX_C_SOURCE 200809L
#ifdef OVERHEAD_CUDA
#include <cuda_runtime.h>
#endif
#include <spx/spx.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { WARMUP = 1000, CALLS = 10000 };

/* Seconds on the monotonic clock. */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* qsort order of doubles. */
static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of t[0..CALLS) (sorts t). */
static double median(double *t)
{
    qsort(t, CALLS, sizeof *t, cmp_double);
    return t[CALLS / 2];
}

#ifndef OVERHEAD_CUDA
int main(void)
{
    spx_ctx *ctx = NULL;
    spx_csr *A = NULL;
    spx_plan *p = NULL;
    spx_ctx_opts co = {.backend = SPX_BACKEND_CPU, .threads = 1};
    spx_plan_opts po = {.format = "csr"};
    if (spx_ctx_create(&ctx, &co) || spx_gen(ctx, "gen:poisson2d:n=32", &A) || spx_plan_create(ctx, A, &po, &p)) {
        fprintf(stderr, "error: %s\n", ctx ? spx_ctx_last_error(ctx) : "no context");
        return 1;
    }
    double *x = malloc((size_t)A->n * sizeof *x), *y = malloc((size_t)A->m * sizeof *y);
    double *t = malloc(CALLS * sizeof *t);
    for (int32_t i = 0; i < A->n; i++) x[i] = 1.0;
    for (int i = 0; i < WARMUP; i++) spx_plan_spmv(p, 1.0, x, 0.0, y);
    for (int i = 0; i < CALLS; i++) {
        const double t0 = now();
        spx_plan_spmv(p, 1.0, x, 0.0, y);
        t[i] = now() - t0;
    }
    printf("C       median %.2f us per spx_plan_spmv (%d rows, %d calls)\n", 1e6 * median(t), A->m, CALLS);
    free(x);
    free(y);
    free(t);
    spx_plan_destroy(&p);
    spx_csr_destroy(&A);
    spx_ctx_destroy(&ctx);
    return 0;
}
#else
/* The largest |y[i] - (row sum i of A)| (y = A*1 on the device), or -1 when y cannot be read. */
static double row_sum_error(const spx_csr *A, const double *y)
{
    double *yh = malloc((size_t)A->m * sizeof *yh), worst = 0;
    if (!yh || cudaMemcpy(yh, y, (size_t)A->m * sizeof *y, cudaMemcpyDeviceToHost) != cudaSuccess) {
        free(yh);
        return -1;
    }
    for (int32_t i = 0; i < A->m; i++) {
        double ref = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) ref += A->val[k];
        const double d = yh[i] > ref ? yh[i] - ref : ref - yh[i];
        if (d > worst) worst = d;
    }
    free(yh);
    return worst;
}

int main(void)
{
    if (!spx_cuda_compiled()) {
        printf("C CUDA  skipped: libspx was built without its CUDA backend\n");
        return 77;
    }
    spx_ctx *ctx = NULL;
    spx_csr *A = NULL;
    spx_plan *p = NULL;
    spx_ctx_opts co = {.backend = SPX_BACKEND_CUDA, .threads = 1};
    spx_plan_opts po = {.format = "csr", .backend = SPX_BACKEND_CUDA};
    spx_backend b = SPX_BACKEND_AUTO;
    if (spx_ctx_create(&ctx, &co) || spx_ctx_resolve_backend(ctx, SPX_BACKEND_CUDA, &b)) {
        printf("C CUDA  skipped: no usable GPU (%s)\n", ctx ? spx_ctx_last_error(ctx) : "no context");
        spx_ctx_destroy(&ctx);
        return 77;
    }
    if (spx_gen(ctx, "gen:poisson2d:n=32", &A) || spx_plan_create(ctx, A, &po, &p)) {
        fprintf(stderr, "error: %s\n", spx_ctx_last_error(ctx));
        return 1;
    }
    double *x = NULL, *y = NULL, *t = malloc(CALLS * sizeof *t), *ones = malloc((size_t)A->n * sizeof *ones);
    if (!t || !ones || cudaMalloc((void **)&x, (size_t)A->n * sizeof *x) != cudaSuccess ||
        cudaMalloc((void **)&y, (size_t)A->m * sizeof *y) != cudaSuccess) {
        fprintf(stderr, "error: vectors: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    for (int32_t i = 0; i < A->n; i++) ones[i] = 1.0;
    if (cudaMemcpy(x, ones, (size_t)A->n * sizeof *x, cudaMemcpyHostToDevice) != cudaSuccess) {
        fprintf(stderr, "error: copying x: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    const cudaStream_t stream = 0; /* the context's stream (none set: the default stream) */
    for (int i = 0; i < WARMUP; i++) {
        if (spx_plan_spmv_device(p, 1.0, x, 0.0, y)) {
            fprintf(stderr, "error: %s\n", spx_ctx_last_error(ctx));
            return 1;
        }
        cudaStreamSynchronize(stream);
    }
    for (int i = 0; i < CALLS; i++) {
        const double t0 = now();
        spx_plan_spmv_device(p, 1.0, x, 0.0, y);
        cudaStreamSynchronize(stream);
        t[i] = now() - t0;
    }
    const double call = median(t);
    for (int i = 0; i < CALLS; i++) {
        const double t0 = now();
        cudaStreamSynchronize(stream);
        t[i] = now() - t0;
    }
    const double sync = median(t);
    const double err = row_sum_error(A, y); /* y = A*1: the row sums */
    if (err < 0 || err > 1e-12) {
        fprintf(stderr, "error: y = A*1 %s\n", err < 0 ? "could not be copied back" : "differs from A's row sums");
        return 1;
    }
    printf("C CUDA  median %.2f us per spx_plan_spmv_device + cudaStreamSynchronize (%d rows, %d calls); "
           "bare sync %.2f us (cudaStreamSynchronize)\n",
           1e6 * call, A->m, CALLS, 1e6 * sync);
    free(ones);
    free(t);
    cudaFree(x);
    cudaFree(y);
    spx_plan_destroy(&p);
    spx_csr_destroy(&A);
    spx_ctx_destroy(&ctx);
    return 0;
}
#endif
