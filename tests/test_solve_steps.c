/* tests/test_solve_steps.c: the solvers' fused steps and the host's reads of their scalar block
 * (issue 49), on the CPU and, when a device is present, on CUDA through the same functions: the
 * outcome does not depend on how often the host reads the scalars (check_every 1, 3, 5, 128 and
 * automatic give the same status, count, SpMVs, reason, residual, history and x, bit for bit) on
 * converging solves, every breakdown, the cap, b with a NaN, x0 = the solution and BiCGSTAB's
 * half step; a callback makes the host read every iteration; check_every out of range is
 * refused; the result's new fields; fp32 and Jacobi, so every step kernel runs in both precisions
 * with and without the preconditioner. SPX_SOLVE_TEST_QUICK=1 leaves out the larger matrices (the
 * sanitizers' run, scripts/gpu-check.sh). On CUDA: csr's iteration runs as a replayed graph, two runs
 * give the same bits, and every format's path, graph and check figures are printed. The cases ask
 * for the graph path (the one whose reads they test; tests/test_solve_persistent.c tests the
 * persistent kernel, which auto takes on small csr plans). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cuda/gateway.h"
#include "solve/solve_tuning.h"
#include "solve_check.h"

/* The intervals compared with a read every iteration (0: automatic). */
static const int EVERY[] = {3, 5, SPX_SOLVE_MAX_CHECK_EVERY, 0};
#define N_EVERY 4

/* One case: a matrix (made by the test), the solve, and the outcome a read every iteration gives. */
typedef struct step_case {
    const char *what;
    spx_csr *A;
    cfg c;
    spx_solve_status want; /* the status the case is built to end with */
} step_case;

/* Whether two doubles have the same bits (NaN included). */
static int same_bits(double a, double b) { return !memcmp(&a, &b, sizeof a); }

/* Checks that o (read every `every` iterations) is ref (read every iteration) bit for bit. */
static void check_same(const char *what, int every, const outcome *ref, const outcome *o, int32_t m)
{
    const spx_solve_result *a = &ref->r, *b = &o->r;
    CHECK_MSG(o->st == SPX_OK && b->status == a->status && b->iterations == a->iterations && b->spmvs == a->spmvs &&
                  !strcmp(b->reason, a->reason) && same_bits(b->rel_residual, a->rel_residual),
              "%s, check_every %d: %s after %d (%d SpMVs): %s; every iteration: %s after %d (%d SpMVs): %s", what, every,
              spx_solve_status_str(b->status), b->iterations, b->spmvs, b->reason, spx_solve_status_str(a->status),
              a->iterations, a->spmvs, a->reason);
    CHECK_MSG(b->history_len == a->history_len &&
                  !memcmp(o->history, ref->history, (size_t)(a->history_len > 0 ? a->history_len : 0) * sizeof(double)),
              "%s, check_every %d: the history differs (%d and %d entries)", what, every, b->history_len, a->history_len);
    CHECK_MSG(o->x && ref->x && !memcmp(o->x, ref->x, (size_t)m * sizeof *o->x), "%s, check_every %d: x differs", what,
              every);
}

/* The result's reading figures: the interval asked for (or 1), the iterations launched (past
 * the end at most one interval, or the automatic interval's probe). */
static void check_figures(const char *what, int every, const outcome *o, spx_backend b)
{
    const spx_solve_result *r = &o->r;
    const int m = r->check_every, past = m > SOLVE_PROBE_ITERS ? m : SOLVE_PROBE_ITERS;
    CHECK_MSG(m >= 1 && m <= SPX_SOLVE_MAX_CHECK_EVERY && (every == 0 || m == every),
              "%s: check_every %d reported for %d asked", what, m, every);
    CHECK_MSG(r->iterations_run >= r->iterations && r->iterations_run <= r->iterations + past,
              "%s, check_every %d: %d iterations launched for %d", what, every, r->iterations_run, r->iterations);
    CHECK_MSG(b == SPX_BACKEND_CUDA || r->graph == 0, "%s: a graph on the CPU", what);
    CHECK_MSG(r->iter_vector_bytes > 0.0 || r->iterations == 0, "%s: no vector bytes per iteration", what);
}

/* Runs c with every interval of EVERY and compares with a read every iteration. */
static void check_intervals(spx_ctx *ctx, const step_case *k)
{
    outcome *ref = malloc(sizeof *ref), *o = malloc(sizeof *o);
    cfg c = k->c;
    char what[160];
    snprintf(what, sizeof what, "%s %s", bname(c.backend), k->what);
    c.check_every = 1;
    solve(ctx, k->A, &c, ref);
    CHECK_MSG(ref->st == SPX_OK && ref->r.status == k->want, "%s: %s (want %s): %s", what, spx_solve_status_str(ref->r.status),
              spx_solve_status_str(k->want), ref->r.reason);
    check_figures(what, 1, ref, c.backend);
    for (int e = 0; e < N_EVERY; e++) {
        c.check_every = EVERY[e];
        solve(ctx, k->A, &c, o);
        check_same(what, EVERY[e], ref, o, k->A->m);
        check_figures(what, EVERY[e], o, c.backend);
        free(o->x);
    }
    free(ref->x);
    free(ref);
    free(o);
}

/* A diagonal matrix diag(d0, d1, d2). */
static spx_csr *diagonal(spx_ctx *ctx, double d0, double d1, double d2)
{
    const double a[9] = {d0, 0, 0, 0, d1, 0, 0, 0, d2};
    return dense(ctx, 3, a);
}

/* The cases on backend b (algo: csr's algorithm there); quick: small matrices only (the
 * sanitizers' run); a case whose matrix is missing has A NULL. The caller frees the matrices. */
static int make_cases(spx_ctx *ctx, spx_backend b, const char *algo, int quick, step_case *k)
{
    static const struct {
        int32_t m;
        double a[9], b[3];
        spx_solve_status st;
        const char *what;
    } lit[] = { /* BiCGSTAB's breakdowns (test_solve.c's exact cases) */
        {2, {0, 1, -1, 0}, {1, 2}, SPX_SOLVE_BREAKDOWN_RV, "bicgstab skew ((r0^, v) = 0)"},
        {2, {1, 1, 0, 0}, {1, 1}, SPX_SOLVE_BREAKDOWN_OMEGA, "bicgstab singular (t = 0)"},
        {3, {1, 2, -2, 1, -1, 1, 1, -1, 0}, {2, 0, -2}, SPX_SOLVE_BREAKDOWN_OMEGA, "bicgstab (t, s) = 0"},
        {3, {1, 2, 0, 2, 1, 2, 1, -2, 1}, {0, -1, 0}, SPX_SOLVE_BREAKDOWN_RHO, "bicgstab rho = 0 at 2"},
    };
    const cfg base = {.backend = b, .algo = algo, .path = SPX_SOLVE_PATH_GRAPH};
    int n = 0;
    spx_csr *L = gen(ctx, "gen:poisson2d:n=30,laplace=1"), *N = gen(ctx, "gen:poisson2d:n=20,laplace=1");
    for (int64_t i = 0; N && i < N->nnz; i++) N->val[i] = -N->val[i];
    k[n++] = (step_case){"cg poisson2d", L, base, SPX_SOLVE_CONVERGED};
    k[n] = (step_case){"cg+jacobi bcsstk16", quick ? NULL : shared(ctx, SHARED("bcsstk16")), base, SPX_SOLVE_CONVERGED};
    k[n++].c.jacobi = 1;
    k[n] = (step_case){"bicgstab cage8", shared(ctx, SHARED("cage8")), base, SPX_SOLVE_CONVERGED};
    k[n++].c.bicgstab = 1;
    k[n] = (step_case){"bicgstab+jacobi cage8", shared(ctx, SHARED("cage8")), base, SPX_SOLVE_CONVERGED};
    k[n].c.bicgstab = k[n].c.jacobi = 1;
    n++;
    k[n++] = (step_case){"cg on -L (p'Ap at 1)", N, base, SPX_SOLVE_BREAKDOWN_PAP};
    k[n] = (step_case){"cg+jacobi on -L ((r, z) at 0)", gen(ctx, "gen:poisson2d:n=20,laplace=1"), base, SPX_SOLVE_BREAKDOWN_RHO};
    for (int64_t i = 0; k[n].A && i < k[n].A->nnz; i++) k[n].A->val[i] = -k[n].A->val[i];
    k[n++].c.jacobi = 1;
    k[n++] = (step_case){"cg random symmetric", gen(ctx, "gen:poisson2d:n=20"), base, SPX_SOLVE_BREAKDOWN_PAP};
    for (int i = 0; i < 4; i++) {
        k[n] = (step_case){lit[i].what, dense(ctx, lit[i].m, lit[i].a), base, lit[i].st};
        k[n].c.bicgstab = 1;
        k[n++].c.b = lit[i].b;
    }
    k[n] = (step_case){"cg cap 7", gen(ctx, "gen:poisson2d:n=30,laplace=1"), base, SPX_SOLVE_MAX_ITER};
    k[n++].c.max_iter = 7;
    k[n] = (step_case){"bicgstab cap 7", gen(ctx, "gen:poisson2d:n=30,laplace=1"), base, SPX_SOLVE_MAX_ITER};
    k[n].c.bicgstab = 1;
    k[n++].c.max_iter = 7;
    k[n] = (step_case){"bicgstab half step on 2I", diagonal(ctx, 2, 2, 2), base, SPX_SOLVE_CONVERGED};
    k[n++].c.bicgstab = 1;
    k[n] = (step_case){"bicgstab+jacobi half step", diagonal(ctx, 2, 3, 4), base, SPX_SOLVE_CONVERGED};
    k[n].c.bicgstab = k[n].c.jacobi = 1;
    n++;
    for (int m = 0; m < 2; m++) { /* fp32, Jacobi: CG on a Laplacian, BiCGSTAB on cage8 */
        k[n] = (step_case){m ? "bicgstab+jacobi fp32 cage8" : "cg+jacobi fp32 poisson3d",
                           m ? shared(ctx, SHARED("cage8")) : gen(ctx, "gen:poisson3d:n=12,laplace=1"), base,
                           SPX_SOLVE_CONVERGED};
        k[n].c.precision = SPX_FP32;
        k[n].c.bicgstab = m;
        k[n].c.jacobi = 1;
        k[n++].c.tol = 1e-5;
    }
    k[n] = (step_case){"cg fp32 poisson3d", gen(ctx, "gen:poisson3d:n=12,laplace=1"), base, SPX_SOLVE_CONVERGED};
    k[n].c.precision = SPX_FP32;
    k[n++].c.tol = 1e-5;
    return n;
}

/* The outcome is the same whatever the interval between the host's reads. */
static void test_intervals(spx_ctx *ctx, spx_backend b, const char *algo, int quick)
{
    step_case k[24];
    const int n = make_cases(ctx, b, algo, quick, k);
    for (int i = 0; i < n; i++)
        if (k[i].A) check_intervals(ctx, &k[i]);
    for (int i = 0; i < n; i++) spx_csr_destroy(&k[i].A);
}

/* Counts the callback's calls and the records it saw in order. */
typedef struct calls {
    int n, in_order;
} calls;

/* A callback that never stops. */
static int count_calls(void *user, int k, double rel)
{
    calls *c = user;
    c->in_order &= k == c->n;
    c->n++;
    return 0;
}

/* A callback makes the host read every iteration whatever check_every says; b = 0, x0 = the
 * solution and NaN in b come out as before; check_every out of range is refused. */
static void test_callback_and_edges(spx_ctx *ctx, spx_backend b, const char *algo)
{
    spx_csr *L = gen(ctx, "gen:poisson2d:n=30,laplace=1");
    if (!L) return;
    spx_plan *p = NULL;
    spx_vec *bv = NULL, *x = NULL;
    CHECK_OK(ctx, spx_plan_create(ctx, L, &(spx_plan_opts){.backend = b, .algo = algo}, &p));
    CHECK_OK(ctx, spx_vec_create(ctx, b, SPX_FP64, L->m, &bv));
    CHECK_OK(ctx, spx_vec_create(ctx, b, SPX_FP64, L->m, &x));
    if (p && bv && x) {
        CHECK_OK(ctx, spx_vec_fill(bv, 1.0));
        calls c = {0, 1};
        spx_solve_result r;
        spx_solve_opts so = {.callback = count_calls, .user = &c, .check_every = 5};
        CHECK_OK(ctx, spx_solve_bicgstab(p, bv, x, &so, &r));
        CHECK_MSG(r.status == SPX_SOLVE_CONVERGED && r.check_every == 1 && c.n == r.iterations + 1 && c.in_order &&
                      r.iterations_run == r.iterations,
                  "%s callback with check_every 5: read every %d, %d calls for %d iterations (%d launched)", bname(b),
                  r.check_every, c.n, r.iterations, r.iterations_run);
        so = (spx_solve_opts){.check_every = -1};
        CHECK(spx_solve_cg(p, bv, x, &so, &r) == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "check_every"));
        so.check_every = SPX_SOLVE_MAX_CHECK_EVERY + 1;
        CHECK(spx_solve_cg(p, bv, x, &so, &r) == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "check_every"));
    }
    double *nan_b = a_ones(L), *ones = malloc((size_t)L->m * sizeof *ones);
    for (int32_t i = 0; i < L->m; i++) ones[i] = 1.0;
    nan_b[L->m / 2] = NAN;
    for (int e = 0; e < N_EVERY; e++) {
        outcome o;
        solve(ctx, L, &(cfg){.backend = b, .algo = algo, .check_every = EVERY[e], .b = nan_b}, &o);
        CHECK_MSG(o.st == SPX_OK && o.r.status == SPX_SOLVE_BREAKDOWN_NONFINITE && o.r.iterations == 0 && o.r.iterations_run == 0 &&
                      strstr(o.r.reason, "||b||"),
                  "%s NaN in b, check_every %d: %s: %s", bname(b), EVERY[e], spx_solve_status_str(o.r.status), o.r.reason);
        free(o.x);
        solve(ctx, L, &(cfg){.backend = b, .algo = algo, .check_every = EVERY[e], .x0 = ones}, &o);
        CHECK_MSG(o.st == SPX_OK && o.r.status == SPX_SOLVE_CONVERGED && o.r.iterations == 0 && o.r.iterations_run == 0 &&
                      o.r.spmvs == 1,
                  "%s x0 = solution, check_every %d: %s after %d", bname(b), EVERY[e], spx_solve_status_str(o.r.status),
                  o.r.iterations);
        free(o.x);
    }
    free(nan_b);
    free(ones);
    spx_vec_destroy(&bv);
    spx_vec_destroy(&x);
    spx_plan_destroy(&p);
    spx_csr_destroy(&L);
}

/* CUDA: csr's iteration is captured and replayed; two runs with the automatic interval give
 * the same bits; every format's figures printed (a format whose SpMV cannot be captured falls
 * back to plain launches and still solves). */
static void test_cuda_graph(spx_ctx *ctx, const char *algo)
{
    spx_csr *A = gen(ctx, "gen:poisson3d:n=16,laplace=1");
    if (!A) return;
    for (int m = 0; m < 2; m++) {
        outcome *o1 = malloc(sizeof *o1), *o2 = malloc(sizeof *o2);
        const cfg c = {.backend = SPX_BACKEND_CUDA, .algo = algo, .bicgstab = m, .jacobi = 1, .path = SPX_SOLVE_PATH_GRAPH};
        solve(ctx, A, &c, o1);
        solve(ctx, A, &c, o2);
        CHECK_MSG(o1->st == SPX_OK && o1->r.status == SPX_SOLVE_CONVERGED && o1->r.graph == 1 && o1->r.checks >= 1,
                  "cuda csr/%s %s: %s, graph %d, %d checks", algo, m ? "bicgstab" : "cg", spx_solve_status_str(o1->r.status),
                  o1->r.graph, o1->r.checks);
        check_same(m ? "cuda bicgstab, two runs" : "cuda cg, two runs", 0, o1, o2, A->m);
        printf("cuda csr/%s %s+jacobi: %d iterations, read every %d (%d reads, %d launched), graph %d\n", algo,
               m ? "bicgstab" : "cg", o1->r.iterations, o1->r.check_every, o1->r.checks, o1->r.iterations_run, o1->r.graph);
        free(o1->x);
        free(o2->x);
        free(o1);
        free(o2);
    }
    for (int f = 0; f < spx_format_count(); f++) {
        spx_format_desc d;
        spx_format_describe(f, &d);
        if (!d.available || !d.has_cuda) continue;
        outcome o;
        solve(ctx, A, &(cfg){.backend = SPX_BACKEND_CUDA, .format = d.name}, &o);
        CHECK_MSG(o.st == SPX_OK && o.r.status == SPX_SOLVE_CONVERGED, "cuda %s: %s", d.name, spx_solve_status_str(o.r.status));
        printf("cuda %s cg: %d iterations, path %s, graph %d, read every %d (%d reads, %d launched)\n", d.name,
               o.r.iterations, spx_solve_path_str(o.r.path), o.r.graph, o.r.check_every, o.r.checks, o.r.iterations_run);
        free(o.x);
    }
    spx_csr_destroy(&A);
}

/* Everything above on backend b (csr's algorithm algo: one without atomics on CUDA, so the
 * SpMV itself gives the same bits every run); SPX_SOLVE_TEST_QUICK set: small matrices only. */
static void test_backend(spx_ctx *ctx, spx_backend b, const char *algo)
{
    spx_mem_stats before, after;
    spx_ctx_mem_stats(ctx, &before);
    test_intervals(ctx, b, algo, getenv("SPX_SOLVE_TEST_QUICK") != NULL);
    test_callback_and_edges(ctx, b, algo);
    if (b == SPX_BACKEND_CUDA) test_cuda_graph(ctx, algo);
    spx_ctx_mem_stats(ctx, &after);
    CHECK_MSG(after.device_bytes == before.device_bytes && (b == SPX_BACKEND_CUDA || after.host_bytes == before.host_bytes),
              "%s: memory held after the tests: host %zu -> %zu, device %zu -> %zu", bname(b), before.host_bytes,
              after.host_bytes, before.device_bytes, after.device_bytes);
}

int main(void)
{
    spx_ctx *ctx = NULL;
    if (spx_ctx_create(&ctx, &(spx_ctx_opts){.backend = SPX_BACKEND_CPU})) return 1;
    double t0 = spx_wtime();
    test_backend(ctx, SPX_BACKEND_CPU, NULL);
    printf("cpu part %.2f s\n", spx_wtime() - t0);
    spx_ctx_destroy(&ctx);
    if (!(ctx = gpu_ctx())) return check_report();
    t0 = spx_wtime();
    test_backend(ctx, SPX_BACKEND_CUDA, "vector");
    printf("gpu part %.2f s\n", spx_wtime() - t0);
    spx_ctx_destroy(&ctx);
    return check_report();
}
