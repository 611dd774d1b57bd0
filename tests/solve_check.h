/* tests/solve_check.h: what the solver tests share (tests/test_solve.c, test_solve_steps.c): a
 * solve described by a small struct run through the public API on a plan of any format,
 * backend and precision (b = A*ones unless given, vectors in the plan's numbering when it has
 * one), its outcome (result, true residual, error, x in the caller's order, history), and the
 * matrices (generated, shared, literal). */
#ifndef SPX_TESTS_SOLVE_CHECK_H
#define SPX_TESTS_SOLVE_CHECK_H

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cuda/gateway.h"
#include "spx/spx.h"

#define HIST_CAP 4096
#define TOL 1e-8
#define SHARED(name) SPX_SHARED_MATRICES "/" name ".mtx.gz"

/* One solve to run. Zero fields: csr (its default algorithm), fp64, CG, no preconditioner, the
 * default tolerance and cap, b = A*ones, x0 = 0, the history kept. */
typedef struct cfg {
    spx_backend backend;
    spx_precision precision;
    const char *format;
    int bicgstab, jacobi;
    double tol;
    int max_iter;
    const double *b, *x0; /* m entries each, or NULL */
    int history_cap;      /* 0: HIST_CAP */
    int (*callback)(void *user, int k, double rel);
    int plan_order; /* SPX_ORDER_PLAN: vectors and Jacobi in the plan's numbering */
    const char *algo;  /* the format's algorithm (NULL: its default) */
    int check_every;   /* spx_solve_opts.check_every (0: automatic) */
    spx_solve_path path; /* spx_solve_opts.path (0: auto) */
} cfg;

/* What one solve gave. */
typedef struct outcome {
    spx_status st; /* of the first call that failed (plan, vectors, Jacobi, solve), else SPX_OK */
    spx_solve_result r;
    double true_rel; /* ||b - A x|| / ||b|| by the reference SpMV */
    double max_err;  /* max |x_i - 1| (b = A*ones) */
    double *x;       /* m entries (malloc'ed; NULL when the solve failed) */
    int plan_order;  /* the plan took vectors in its own numbering */
    double history[HIST_CAP];
} outcome;

/* The backend's name for messages. */
static inline const char *bname(spx_backend b) { return spx_backend_str(b); }

/* A*ones into a new malloc'ed array (the reference SpMV). */
static inline double *a_ones(const spx_csr *A)
{
    double *ones = malloc(((size_t)A->n + 1) * sizeof *ones), *b = malloc(((size_t)A->m + 1) * sizeof *b);
    for (int32_t i = 0; i < A->n; i++) ones[i] = 1.0;
    spx_csr_spmv_ref(A, 1.0, ones, 0.0, b);
    free(ones);
    return b;
}

/* A vector of the plan's shape holding host (zeros when NULL). */
static inline spx_status vec_of(spx_ctx *ctx, const cfg *c, int64_t n, const double *host, spx_vec **out)
{
    spx_status s = spx_vec_create(ctx, c->backend, c->precision, n, out);
    return s || !host ? s : spx_vec_set(*out, host);
}

/* The true residual and the error against ones of o->x. */
static inline void measure(const spx_csr *A, const double *b, int b_is_ones_image, outcome *o)
{
    double *y = malloc(((size_t)A->m + 1) * sizeof *y);
    spx_csr_spmv_ref(A, 1.0, o->x, 0.0, y);
    o->true_rel = spx_rel_error(y, SPX_FP64, b, A->m);
    o->max_err = 0.0;
    for (int32_t i = 0; b_is_ones_image && i < A->m; i++)
        if (!(fabs(o->x[i] - 1.0) <= o->max_err)) o->max_err = fabs(o->x[i] - 1.0);
    free(y);
}

/* v (m entries, or NULL) in the numbering perm (NULL: v itself) into a new array *out (NULL
 * when there is nothing to permute); returns what to use. */
static inline const double *in_order(const int32_t *perm, const double *v, int32_t m, double **out)
{
    *out = NULL;
    if (!perm || !v) return v;
    *out = malloc(((size_t)m + 1) * sizeof **out);
    for (int32_t i = 0; i < m; i++) (*out)[i] = v[perm[i]];
    return *out;
}

/* Runs the solve c describes on A (square) in ctx into *o (the caller frees o->x; in the
 * caller's order whatever the plan's). */
static inline void solve(spx_ctx *ctx, const spx_csr *A, const cfg *c, outcome *o)
{
    memset(o, 0, offsetof(outcome, history));
    spx_plan *plan = NULL;
    spx_vec *b = NULL, *x = NULL, *d = NULL;
    double *bh = c->b ? NULL : a_ones(A), *bp = NULL, *xp = NULL;
    const double *bv = c->b ? c->b : bh;
    const int32_t *perm = NULL;
    spx_plan_opts po = {.format = c->format ? c->format : "csr", .algo = c->algo, .backend = c->backend,
                        .precision = c->precision, .order = c->plan_order ? SPX_ORDER_PLAN : SPX_ORDER_CALLER};
    spx_solve_opts so = {.tol = c->tol,
                         .max_iter = c->max_iter,
                         .history = o->history,
                         .history_cap = c->history_cap ? c->history_cap : HIST_CAP,
                         .callback = c->callback,
                         .check_every = c->check_every,
                         .path = c->path};
    spx_status s = spx_plan_create(ctx, A, &po, &plan);
    if (!s) s = spx_plan_permutation(plan, &perm);
    o->plan_order = perm != NULL;
    if (!s) s = vec_of(ctx, c, A->m, in_order(perm, bv, A->m, &bp), &b);
    if (!s) s = vec_of(ctx, c, A->m, in_order(perm, c->x0, A->m, &xp), &x);
    if (!s && c->jacobi && !(s = spx_solve_inv_diag(ctx, A, plan, &d))) {
        so.precond = SPX_PRECOND_JACOBI;
        so.inv_diag = d;
    }
    if (!s) s = c->bicgstab ? spx_solve_bicgstab(plan, b, x, &so, &o->r) : spx_solve_cg(plan, b, x, &so, &o->r);
    double *got = NULL; /* x as the plan has it: o->x itself unless it renumbers */
    if (!s && (o->x = malloc(((size_t)A->m + 1) * sizeof *o->x)) &&
        (got = perm ? malloc(((size_t)A->m + 1) * sizeof *got) : o->x) && !(s = spx_vec_get(x, got))) {
        for (int32_t i = 0; perm && i < A->m; i++) o->x[perm[i]] = got[i]; /* back to the caller's order */
        measure(A, bv, c->b == NULL, o);
    }
    if (got != o->x) free(got);
    o->st = s;
    free(bp);
    free(xp);
    spx_vec_destroy(&b);
    spx_vec_destroy(&x);
    spx_vec_destroy(&d);
    spx_plan_destroy(&plan);
    free(bh);
}

/* A CUDA context for a test's GPU part, or NULL: no device or no CUDA in this build (the reason
 * printed), or a context that cannot be made on a present device (a failed check). */
static inline spx_ctx *gpu_ctx(void)
{
    spx_ctx *ctx = NULL;
    if (!spx_cuda_compiled() || spx_cuda_device_count() == 0) {
        printf("GPU part skipped: %s\n", spx_cuda_compiled() ? "no CUDA device" : "CUDA not compiled in");
        return NULL;
    }
    if (spx_ctx_create(&ctx, &(spx_ctx_opts){.backend = SPX_BACKEND_CUDA})) {
        CHECK(!"CUDA context");
        return NULL;
    }
    return ctx;
}

/* A generated matrix (NULL after a failed CHECK). */
static inline spx_csr *gen(spx_ctx *ctx, const char *spec)
{
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_gen(ctx, spec, &A));
    return A;
}

/* A shared matrix, or NULL (with a note) when the folder is absent. */
static inline spx_csr *shared(spx_ctx *ctx, const char *path)
{
    spx_csr *A = NULL;
    if (spx_mtx_read(ctx, path, NULL, &A, NULL) != SPX_OK) {
        printf("note: %s not read (%s): skipped\n", path, spx_ctx_last_error(ctx));
        return NULL;
    }
    return A;
}

/* A literal small matrix (row-major dense m x m, m <= 4, zeros left out); NULL after a failed
 * allocation. */
static inline spx_csr *dense(spx_ctx *ctx, int32_t m, const double *a)
{
    int64_t nnz = 0;
    for (int32_t i = 0; i < m * m; i++) nnz += a[i] != 0.0;
    spx_csr *A = NULL;
    if (spx_csr_alloc(ctx, m, m, nnz, &A)) return NULL;
    A->rowptr[0] = 0;
    for (int32_t i = 0; i < m; i++) {
        A->rowptr[i + 1] = A->rowptr[i];
        for (int32_t j = 0; j < m; j++)
            if (a[i * m + j] != 0.0) {
                A->colind[A->rowptr[i + 1]] = j;
                A->val[A->rowptr[i + 1]++] = a[i * m + j];
            }
    }
    return A;
}

#endif
