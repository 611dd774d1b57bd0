/* tests/install/main.c: a program built outside the tree against an installed libspx by
 * tests/test_install.sh: one CPU SpMV on the 10x10 grid's Laplacian, checked by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spx/spx.h>

#define GRID 10
#define ROWS (GRID * GRID)

/* Reports a failed call with the context's message; returns 1 for main's exit status. */
static int fail(const spx_ctx *ctx, const char *what, spx_status s)
{
    fprintf(stderr, "install check: %s: %s: %s\n", what, spx_status_str(s),
            ctx ? spx_ctx_last_error(ctx) : "");
    return 1;
}

/* y = A x for the Dirichlet Laplacian of the GRID x GRID grid (4 on the diagonal, -1 for each
 * neighbour inside the grid), x_k = k + 1, worked out on the grid itself. */
static double expected(int k)
{
    int i = k / GRID, j = k % GRID;
    double y = 4.0 * (k + 1);
    if (i > 0) y -= k - GRID + 1;
    if (i < GRID - 1) y -= k + GRID + 1;
    if (j > 0) y -= k - 1 + 1;
    if (j < GRID - 1) y -= k + 1 + 1;
    return y;
}

int main(void)
{
    spx_ctx *ctx = NULL;
    spx_csr *A = NULL;
    spx_plan *plan = NULL;
    spx_plan_info info;
    double x[ROWS], y[ROWS];
    int rc = 1;
    spx_status s = spx_ctx_create(&ctx, &(spx_ctx_opts){.backend = SPX_BACKEND_CPU});
    if (s != SPX_OK) return fail(ctx, "spx_ctx_create", s);
    if ((s = spx_gen(ctx, "gen:poisson2d:n=10,laplace=1", &A)) != SPX_OK) {
        rc = fail(ctx, "spx_gen", s);
        goto done;
    }
    /* 5 entries a row less one for each of the 4 * GRID grid-boundary sides */
    if (A->m != ROWS || A->n != ROWS || A->nnz != 5 * ROWS - 4 * GRID) {
        fprintf(stderr, "install check: %d x %d with %lld entries, not %d x %d with %d\n", A->m,
                A->n, (long long)A->nnz, ROWS, ROWS, 5 * ROWS - 4 * GRID);
        goto done;
    }
    s = spx_plan_create(ctx, A, &(spx_plan_opts){.format = "csr"}, &plan);
    if (s != SPX_OK) {
        rc = fail(ctx, "spx_plan_create", s);
        goto done;
    }
    for (int k = 0; k < ROWS; k++) {
        x[k] = k + 1;
        y[k] = -1.0;
    }
    if ((s = spx_plan_spmv(plan, 1.0, x, 0.0, y)) != SPX_OK) {
        rc = fail(ctx, "spx_plan_spmv", s);
        goto done;
    }
    if ((s = spx_plan_get_info(plan, &info)) != SPX_OK) {
        rc = fail(ctx, "spx_plan_get_info", s);
        goto done;
    }
    if (strcmp(info.format, "csr") != 0 || info.backend != SPX_BACKEND_CPU) {
        fprintf(stderr, "install check: plan is %s on %s, not csr on cpu\n", info.format,
                spx_backend_str(info.backend));
        goto done;
    }
    rc = 0;
    for (int k = 0; k < ROWS; k++) {
        if (y[k] != expected(k)) { /* integers: every sum is exact */
            fprintf(stderr, "install check: y[%d] = %.17g, expected %.17g\n", k, y[k], expected(k));
            rc = 1;
        }
    }
    if (rc == 0)
        printf("install check: ok: libspx %s, %d x %d, %lld entries, y = A x exact, CUDA %s\n",
               SPX_VERSION, A->m, A->n, (long long)A->nnz,
               spx_cuda_compiled() ? "built" : "not built");
done:
    spx_plan_destroy(&plan);
    spx_csr_destroy(&A);
    spx_ctx_destroy(&ctx);
    return rc;
}
