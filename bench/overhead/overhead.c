/* bench/overhead/overhead.c: the median time of one spx_plan_spmv call from C on a 1024-row
 * matrix (gen:poisson2d:n=32, csr, CPU, 1 thread), 10,000 calls after 1,000 warm-ups: the
 * baseline bench/overhead/overhead.py's Python call is compared with (issue 16: <= 5 us more). */
#define _POSIX_C_SOURCE 200809L
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
    qsort(t, CALLS, sizeof *t, cmp_double);
    printf("C       median %.2f us per spx_plan_spmv (%d rows, %d calls)\n", 1e6 * t[CALLS / 2], A->m, CALLS);
    free(x);
    free(y);
    free(t);
    spx_plan_destroy(&p);
    spx_csr_destroy(&A);
    spx_ctx_destroy(&ctx);
    return 0;
}
