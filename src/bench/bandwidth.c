/* src/bench/bandwidth.c: the machine's memory bandwidth, measured in the same run as the
 * SpMV results so every figure can be given as a fraction of it; and the device record. */
#include <omp.h>

#include "core/ctx.h"
#include "cuda/gateway.h"

/* Elements per STREAM array: 3 x 256 MB, far beyond any CPU cache. */
#define STREAM_N ((size_t)32 * 1024 * 1024)
/* Triad runs; the median is reported, the statistic every SpMV figure uses too (STREAM
 * itself reports the best run, which on a shared machine flatters the denominator). */
#define STREAM_TRIES 7

spx_status spx_bench_host_bandwidth(spx_ctx *ctx, double *bytes_per_s)
{
    if (!ctx || !bytes_per_s) return SPX_ERR_ARG;
    double *a = spx_malloc_array(ctx, STREAM_N, sizeof *a);
    double *b = spx_malloc_array(ctx, STREAM_N, sizeof *b);
    double *c = spx_malloc_array(ctx, STREAM_N, sizeof *c);
    spx_status s = SPX_OK;
    if (!a || !b || !c) {
        s = spx_fail_nomem(ctx, "bandwidth arrays");
        goto done;
    }
    int nt = spx_ctx_threads(ctx);
    long n = (long)STREAM_N;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (long i = 0; i < n; i++) { /* first touch by the threads that use them */
        a[i] = 1.0;
        b[i] = 2.0 + (double)(i & 7);
        c[i] = 0.5;
    }
    double bw[STREAM_TRIES];
    for (int t = 0; t < STREAM_TRIES; t++) {
        double t0 = spx_now();
#pragma omp parallel for num_threads(nt) schedule(static)
        for (long i = 0; i < n; i++) a[i] = b[i] + 0.5 * c[i]; /* triad: 2 reads, 1 write */
        double dt = spx_now() - t0;
        bw[t] = 3.0 * sizeof(double) * (double)STREAM_N / dt;
    }
    for (int i = 1; i < STREAM_TRIES; i++) /* insertion sort of a handful */
        for (int j = i; j > 0 && bw[j - 1] > bw[j]; j--) {
            double tmp = bw[j];
            bw[j] = bw[j - 1];
            bw[j - 1] = tmp;
        }
    *bytes_per_s = bw[STREAM_TRIES / 2];
done:
    spx_free(ctx, a);
    spx_free(ctx, b);
    spx_free(ctx, c);
    return s;
}

spx_status spx_bench_device_bandwidth(spx_ctx *ctx, double *bytes_per_s)
{
    if (!ctx || !bytes_per_s) return SPX_ERR_ARG;
    spx_status s = spx_cuda_init(ctx);
    return s ? s : spx_cuda_copy_bandwidth(ctx, bytes_per_s);
}

spx_status spx_device_query(spx_ctx *ctx, spx_device_info *out)
{
    if (!ctx || !out) return SPX_ERR_ARG;
    spx_status s = spx_cuda_init(ctx);
    return s ? s : spx_cuda_query(ctx, out);
}
