/* tests/test_solve_persistent.c: the persistent path (issue 49: a CG or BiCGSTAB solve as one
 * cooperative kernel on a csr plan). On the CPU, always: the rule that picks it or the graph
 * (every reason, both forced paths, auto's nonzero bound), its launch shape's arithmetic, the
 * option's check, and a CPU solve reporting the host path whatever was asked. With a GPU: the
 * persistent path against the graph path on the same solve (CG on Laplacians and bcsstk15 with
 * Jacobi, BiCGSTAB on cage8 and a Laplacian, fp32): the same status and iteration count, x
 * within a stated tolerance (the sums are added in another order, so the bits may differ); two
 * persistent runs give the same bits (x, history, residual); the cap; every breakdown of both
 * methods and BiCGSTAB's half step, each as the graph path ends it; n = 0 and 1; what falls back
 * to the graph and says why (another format, a callback, check_every under auto); the result's
 * fields (path, one read, no iteration past the end, the kernel's time).
 * SPX_SOLVE_TEST_QUICK=1 leaves out the larger matrices (the sanitizers' run, gpu-check.sh). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "solve/solve_persist.h"
#include "solve/solve_tuning.h"
#include "solve_check.h"

/* ---- on the CPU: the rule and the shape ---- */

/* Facts under which the persistent kernel can run: CG on a csr plan, a device that holds it. */
static solve_path_facts good_facts(spx_solve_path asked)
{
    solve_path_facts f = {.asked = asked, .device = 1, .method = 1, .nnz = 117816};
    f.shape = (solve_persist_shape){.coop = 1, .resident = 528, .grid = 62, .group = 4};
    return f;
}

/* Checks that facts f give path want with a reason containing part. */
static void check_rule(const char *what, const solve_path_facts *f, spx_solve_path want, const char *part)
{
    char why[160];
    const spx_solve_path got = solve_path_choose(f, why, sizeof why);
    CHECK_MSG(got == want && strstr(why, part), "%s: %s (%s), want %s with '%s'", what, spx_solve_path_str(got), why,
              spx_solve_path_str(want), part);
}

/* Every branch of the rule: what forces either path, what blocks the kernel, auto's bounds. */
static void test_rule(void)
{
    solve_path_facts f = good_facts(SPX_SOLVE_PATH_AUTO);
    char want[96];
    snprintf(want, sizeof want, "auto: csr, 117816 nonzeros <= %lld (62 blocks", (long long)SOLVE_PERSIST_MAX_NNZ);
    check_rule("auto, small csr", &f, SPX_SOLVE_PATH_PERSISTENT, want);
    f.nnz = SOLVE_PERSIST_MAX_NNZ;
    check_rule("auto at the bound", &f, SPX_SOLVE_PATH_PERSISTENT, "auto: csr");
    f.nnz = SOLVE_PERSIST_MAX_NNZ + 1;
    snprintf(want, sizeof want, "auto: %lld nonzeros > %lld", (long long)SOLVE_PERSIST_MAX_NNZ + 1,
             (long long)SOLVE_PERSIST_MAX_NNZ);
    check_rule("auto past the bound", &f, SPX_SOLVE_PATH_GRAPH, want);
    f = good_facts(SPX_SOLVE_PATH_AUTO);
    f.check_every = 5;
    check_rule("auto, check_every 5", &f, SPX_SOLVE_PATH_GRAPH, "check_every 5 asks for the host's reads every 5");
    f = good_facts(SPX_SOLVE_PATH_GRAPH);
    check_rule("graph asked", &f, SPX_SOLVE_PATH_GRAPH, "asked");
    f = good_facts(SPX_SOLVE_PATH_PERSISTENT);
    f.nnz = SOLVE_PERSIST_MAX_NNZ * 4;
    f.check_every = 3;
    check_rule("persistent asked, large, check_every", &f, SPX_SOLVE_PATH_PERSISTENT, "asked (62 blocks of 256 threads, 4 lanes");
    const struct {
        const char *what, *part;
        int method, callback, coop, resident;
        const char *not_csr;
    } blocked[] = {
        {"no kernel", "the method has no persistent kernel", 0, 0, 1, 528, NULL},
        {"not csr", "the plan's format is ehyb, not csr", 1, 0, 1, 528, "the plan's format is ehyb, not csr"},
        {"callback", "a callback sees every iteration", 1, 1, 1, 528, NULL},
        {"no cooperative launch", "the device cannot launch cooperative kernels (cudaDevAttrCooperativeLaunch = 0)", 1, 0,
         0, 528, NULL},
        {"no block fits", "no block of the kernel fits on an SM (occupancy 0)", 1, 0, 1, 0, NULL},
    };
    for (size_t i = 0; i < sizeof blocked / sizeof blocked[0]; i++)
        for (int a = 0; a < 2; a++) {
            f = good_facts(a ? SPX_SOLVE_PATH_PERSISTENT : SPX_SOLVE_PATH_AUTO);
            f.method = blocked[i].method;
            f.callback = blocked[i].callback;
            f.shape.coop = blocked[i].coop;
            f.shape.resident = blocked[i].resident;
            f.not_csr = blocked[i].not_csr;
            char what[96], part[160];
            snprintf(what, sizeof what, "%s, %s", a ? "persistent asked" : "auto", blocked[i].what);
            snprintf(part, sizeof part, "%s %s", a ? "persistent asked, but" : "auto:", blocked[i].part);
            check_rule(what, &f, SPX_SOLVE_PATH_GRAPH, part);
        }
    f = good_facts(SPX_SOLVE_PATH_PERSISTENT);
    f.device = 0;
    check_rule("the CPU", &f, SPX_SOLVE_PATH_HOST, "not a CUDA plan's solve");
    CHECK(!strcmp(spx_solve_path_str(SPX_SOLVE_PATH_AUTO), "auto") && !strcmp(spx_solve_path_str(SPX_SOLVE_PATH_GRAPH), "graph") &&
          !strcmp(spx_solve_path_str(SPX_SOLVE_PATH_PERSISTENT), "persistent") &&
          !strcmp(spx_solve_path_str(SPX_SOLVE_PATH_HOST), "host") &&
          !strcmp(spx_solve_path_str((spx_solve_path)9), "unknown solve path"));
}

/* The lanes a row and the grid: csr vector's rule (8 nonzeros a lane), capped by the work. */
static void test_shape_arithmetic(void)
{
    static const struct {
        int64_t n, nnz;
        int group;
    } g[] = {{3948, 117816, 4}, {4884, 290378, 8}, {64000, 438400, 1}, {10, 80, 1}, {10, 81, 2}, {10, 3000, 32},
             {0, 0, 1}, {1, 1, 1}, {216000, 5832000, 4}};
    for (size_t i = 0; i < sizeof g / sizeof g[0]; i++)
        CHECK_MSG(solve_persist_group(g[i].n, g[i].nnz) == g[i].group, "group of %lld rows, %lld nonzeros: %d, want %d",
                  (long long)g[i].n, (long long)g[i].nnz, solve_persist_group(g[i].n, g[i].nnz), g[i].group);
    CHECK(solve_persist_grid(528, 3948, 4) == 62);          /* 15792 threads */
    CHECK(solve_persist_grid(528, 1000000, 1) == 528);       /* capped by what is resident */
    CHECK(solve_persist_grid(528, 0, 1) == 1 && solve_persist_grid(528, 1, 32) == 1);
    CHECK(solve_persist_grid(528, 256, 1) == 1 && solve_persist_grid(528, 257, 1) == 2);
}

/* On the CPU every path asked runs the host's steps and says so; a path out of range is refused. */
static void test_options_cpu(spx_ctx *ctx)
{
    spx_csr *A = gen(ctx, "gen:poisson3d:n=6,laplace=1");
    if (!A) return;
    outcome ref, o;
    solve(ctx, A, &(cfg){.backend = SPX_BACKEND_CPU}, &ref);
    for (int p = SPX_SOLVE_PATH_AUTO; p <= SPX_SOLVE_PATH_PERSISTENT; p++) {
        solve(ctx, A, &(cfg){.backend = SPX_BACKEND_CPU, .path = (spx_solve_path)p}, &o);
        CHECK_MSG(o.st == SPX_OK && o.r.status == SPX_SOLVE_CONVERGED && o.r.path == SPX_SOLVE_PATH_HOST &&
                      strstr(o.r.path_reason, "not a CUDA plan's solve") && o.r.iterations == ref.r.iterations &&
                      o.r.kernel_seconds == 0.0 && !memcmp(o.x, ref.x, (size_t)A->m * sizeof *o.x),
                  "cpu, %s asked: %s, path %s (%s), %d iterations", spx_solve_path_str((spx_solve_path)p),
                  spx_solve_status_str(o.r.status), spx_solve_path_str(o.r.path), o.r.path_reason, o.r.iterations);
        free(o.x);
    }
    free(ref.x);
    for (int bad = 0; bad < 2; bad++) {
        solve(ctx, A, &(cfg){.backend = SPX_BACKEND_CPU, .path = bad ? SPX_SOLVE_PATH_HOST : (spx_solve_path)-1}, &o);
        CHECK_MSG(o.st == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "is not auto, graph or persistent"),
                  "path %d: status %d, %s", bad ? (int)SPX_SOLVE_PATH_HOST : -1, o.st, spx_ctx_last_error(ctx));
        free(o.x);
    }
    spx_csr_destroy(&A);
}

/* ---- with a GPU: the path against the graph, and against itself ---- */

/* Whether two doubles have the same bits. */
static int same_bits(double a, double b) { return !memcmp(&a, &b, sizeof a); }

/* max |a - b| over m entries (NaN counts as infinite). */
static double max_diff(const double *a, const double *b, int32_t m)
{
    double d = 0.0;
    for (int32_t i = 0; i < m; i++)
        if (!(fabs(a[i] - b[i]) <= d)) d = isnan(a[i] - b[i]) ? INFINITY : fabs(a[i] - b[i]);
    return d;
}

/* max |a_i| over m entries. */
static double max_abs(const double *a, int32_t m)
{
    double v = 0.0;
    for (int32_t i = 0; i < m; i++)
        if (fabs(a[i]) > v) v = fabs(a[i]);
    return v;
}

/* The result fields of a run on the persistent path: one read at the end, no iteration past the
 * end (a breakdown may stop the iteration it started before its record), no graph, the kernel's
 * device time. */
static void check_persistent_fields(const char *what, const outcome *o)
{
    const spx_solve_result *r = &o->r;
    const int past = r->status >= SPX_SOLVE_BREAKDOWN_RHO;
    CHECK_MSG(o->st == SPX_OK && r->path == SPX_SOLVE_PATH_PERSISTENT && r->graph == 0 && r->checks == 1 &&
                  r->check_every == 0 && r->iterations_run >= r->iterations && r->iterations_run <= r->iterations + past &&
                  r->kernel_seconds > 0.0 && r->graph_seconds == 0.0,
              "%s: path %s (%s), graph %d, %d checks every %d, %d run for %d, kernel %g s", what, spx_solve_path_str(r->path),
              r->path_reason, r->graph, r->checks, r->check_every, r->iterations_run, r->iterations, r->kernel_seconds);
}

/* A solve on the persistent path against the graph path: the same status, the count within 1,
 * x within x_tol plus the two solutions' own distance to ones when err_scaled (b =
 * A*ones); then a second persistent run with the same bits (x, history, residual, reason). */
static void compare_paths(spx_ctx *ctx, const char *name, const spx_csr *A, cfg c, double x_tol, int err_scaled)
{
    outcome *g = malloc(sizeof *g), *p = malloc(sizeof *p), *q = malloc(sizeof *q);
    char what[160];
    snprintf(what, sizeof what, "cuda %s %s%s %s", c.bicgstab ? "bicgstab" : "cg", name, c.jacobi ? "+jacobi" : "",
             c.precision == SPX_FP32 ? "fp32" : "fp64");
    c.path = SPX_SOLVE_PATH_GRAPH;
    solve(ctx, A, &c, g);
    c.path = SPX_SOLVE_PATH_PERSISTENT;
    solve(ctx, A, &c, p);
    solve(ctx, A, &c, q);
    check_persistent_fields(what, p);
    /* the sums' order differs between the paths, so a solve whose residual crosses the tolerance
     * within rounding stops one iteration apart (H100, 2026-12-07: bcsstk15 + Jacobi, persistent
     * 519, graph 520, CuPy 519) */
    const int slack = 1;
    CHECK_MSG(g->st == SPX_OK && g->r.path == SPX_SOLVE_PATH_GRAPH && p->r.status == g->r.status &&
                  abs(p->r.iterations - g->r.iterations) <= slack,
              "%s: persistent %s after %d (%s), graph %s after %d", what, spx_solve_status_str(p->r.status), p->r.iterations,
              p->r.reason, spx_solve_status_str(g->r.status), g->r.iterations);
    if (p->x && g->x) {
        const double tol = x_tol + (err_scaled ? (p->max_err > g->max_err ? p->max_err : g->max_err) : 0.0);
        const double d = max_diff(p->x, g->x, A->m);
        CHECK_MSG(d <= tol, "%s: max |x_persistent - x_graph| = %.3e > %.3e (errors against ones %.2e, %.2e)", what, d, tol,
                  p->max_err, g->max_err);
        printf("%s: %d iterations (graph %d), max |x_p - x_g| = %.2e (bound %.2e), kernel %.3f ms, path: %s\n", what,
               p->r.iterations, g->r.iterations, d, tol, p->r.kernel_seconds * 1e3, p->r.path_reason);
    }
    CHECK_MSG(p->x && q->x && !memcmp(p->x, q->x, (size_t)A->m * sizeof *p->x) && same_bits(p->r.rel_residual, q->r.rel_residual) &&
                  p->r.iterations == q->r.iterations && p->r.history_len == q->r.history_len &&
                  p->r.history_len == p->r.iterations + 1 && !strcmp(p->r.reason, q->r.reason) &&
                  !memcmp(p->history, q->history, (size_t)p->r.history_len * sizeof(double)),
              "%s: two persistent runs differ (%d / %d iterations, history %d / %d)", what, p->r.iterations, q->r.iterations,
              p->r.history_len, q->r.history_len);
    CHECK_MSG(p->r.history_len - g->r.history_len == p->r.iterations - g->r.iterations &&
                  p->history[p->r.iterations] == p->r.rel_residual &&
                  p->history[0] == g->history[0],
              "%s: history of %d entries (graph %d), last %.3e for %.3e", what, p->r.history_len, g->r.history_len,
              p->history[p->r.iterations], p->r.rel_residual);
    free(g->x);
    free(p->x);
    free(q->x);
    free(g);
    free(p);
    free(q);
}

/* The persistent path against the graph on converging solves. Tolerances on x: the Laplacians
 * (condition ~60, ~30 iterations) take 1e-9 in fp64, where the other order of the sums moves x
 * by ~1e-13; bcsstk15 (condition ~1e9, ~500 iterations) and cage8 (BiCGSTAB, whose iterates
 * are less smooth in the rounding) take the two solutions' own error against ones: the rounding
 * is amplified to that level, so no tighter bound is honest; fp32 takes its error too plus
 * 1e-6. */
static void test_against_graph(spx_ctx *ctx, int quick)
{
    spx_csr *P = gen(ctx, "gen:poisson3d:n=12,laplace=1"), *S = gen(ctx, "gen:stencil27:n=10,laplace=1");
    if (P) {
        compare_paths(ctx, "poisson3d n=12", P, (cfg){.backend = SPX_BACKEND_CUDA}, 1e-9, 0);
        compare_paths(ctx, "poisson3d n=12", P, (cfg){.backend = SPX_BACKEND_CUDA, .jacobi = 1}, 1e-9, 0);
        compare_paths(ctx, "poisson3d n=12", P, (cfg){.backend = SPX_BACKEND_CUDA, .algo = "vector"}, 1e-9, 0);
        compare_paths(ctx, "poisson3d n=12", P, (cfg){.backend = SPX_BACKEND_CUDA, .precision = SPX_FP32, .tol = 1e-5}, 1e-6, 1);
        compare_paths(ctx, "poisson3d n=12", P,
                      (cfg){.backend = SPX_BACKEND_CUDA, .precision = SPX_FP32, .tol = 1e-5, .jacobi = 1}, 1e-6, 1);
    }
    if (S) compare_paths(ctx, "stencil27 n=10", S, (cfg){.backend = SPX_BACKEND_CUDA, .jacobi = 1}, 1e-9, 0);
    if (P) {
        compare_paths(ctx, "poisson3d n=12", P, (cfg){.backend = SPX_BACKEND_CUDA, .bicgstab = 1}, 1e-9, 1);
        compare_paths(ctx, "poisson3d n=12", P,
                      (cfg){.backend = SPX_BACKEND_CUDA, .bicgstab = 1, .precision = SPX_FP32, .tol = 1e-5, .jacobi = 1}, 1e-6, 1);
    }
    spx_csr *B = quick ? NULL : shared(ctx, SHARED("bcsstk15")), *C = shared(ctx, SHARED("cage8"));
    if (B) compare_paths(ctx, "bcsstk15", B, (cfg){.backend = SPX_BACKEND_CUDA, .jacobi = 1, .max_iter = 800}, 1e-12, 1);
    for (int j = 0; C && j < 2; j++)
        compare_paths(ctx, "cage8", C, (cfg){.backend = SPX_BACKEND_CUDA, .bicgstab = 1, .jacobi = j}, 1e-12, 1);
    spx_csr_destroy(&P);
    spx_csr_destroy(&S);
    spx_csr_destroy(&B);
    spx_csr_destroy(&C);
}

/* BiCGSTAB's breakdowns on literal matrices (test_solve.c's exact cases) and its half step. */
static const struct {
    int32_t m;
    double a[9], b[3];
} bi_lit[] = {
    {2, {0, 1, -1, 0}, {1, 2}},                          /* skew: (r0^, v) = 0 */
    {2, {1, 1, 0, 0}, {1, 1}},                           /* singular: t = 0 */
    {3, {1, 2, -2, 1, -1, 1, 1, -1, 0}, {2, 0, -2}},     /* (t, s) = 0 */
    {3, {1, 2, 0, 2, 1, 2, 1, -2, 1}, {0, -1, 0}},       /* rho = 0 at 2 */
    {3, {2, 0, 0, 0, 2, 0, 0, 0, 2}, {2, 2, 2}},         /* 2I: converged at the half step */
    {3, {2, 0, 0, 0, 3, 0, 0, 0, 4}, {2, 3, 4}},         /* the same with Jacobi */
};

/* The cap, and the breakdowns: CG on -L stops at p'Ap <= 0 in iteration 1 (the kernel's first
 * finisher), with Jacobi at (r, z) <= 0 in the first step (the kernel launched, nothing run); a
 * random symmetric matrix breaks down later; BiCGSTAB's cap, breakdowns and half step. Each as
 * the graph path ends it. */
static void test_ends(spx_ctx *ctx)
{
    spx_csr *L = gen(ctx, "gen:poisson2d:n=30,laplace=1"), *N = gen(ctx, "gen:poisson2d:n=20,laplace=1"),
            *R = gen(ctx, "gen:poisson2d:n=20"), *D[6];
    for (int64_t i = 0; N && i < N->nnz; i++) N->val[i] = -N->val[i];
    for (int i = 0; i < 6; i++) D[i] = dense(ctx, bi_lit[i].m, bi_lit[i].a);
    const struct {
        const char *what;
        spx_csr *A;
        int bicgstab, jacobi, max_iter;
        const double *b;
        spx_solve_status want;
        const char *reason;
    } k[] = {
        {"cap 7", L, 0, 0, 7, NULL, SPX_SOLVE_MAX_ITER, "after 7 iterations (the cap)"},
        {"cap 1 jacobi", L, 0, 1, 1, NULL, SPX_SOLVE_MAX_ITER, "after 1 iterations (the cap)"},
        {"-L", N, 0, 0, 0, NULL, SPX_SOLVE_BREAKDOWN_PAP, "at iteration 1: A is not symmetric positive definite"},
        {"-L jacobi", N, 0, 1, 0, NULL, SPX_SOLVE_BREAKDOWN_RHO, "at iteration 0: the preconditioner is not positive definite"},
        {"random symmetric", R, 0, 0, 0, NULL, SPX_SOLVE_BREAKDOWN_PAP, "A is not symmetric positive definite"},
        {"bicgstab cap 7", L, 1, 0, 7, NULL, SPX_SOLVE_MAX_ITER, "after 7 iterations (the cap)"},
        {"bicgstab skew", D[0], 1, 0, 0, bi_lit[0].b, SPX_SOLVE_BREAKDOWN_RV, "(r0^, v) = 0 at iteration 1"},
        {"bicgstab singular", D[1], 1, 0, 0, bi_lit[1].b, SPX_SOLVE_BREAKDOWN_OMEGA, "t = A s^ = 0"},
        {"bicgstab (t, s) = 0", D[2], 1, 0, 0, bi_lit[2].b, SPX_SOLVE_BREAKDOWN_OMEGA, "omega = (t, s) / (t, t) = 0"},
        {"bicgstab rho = 0", D[3], 1, 0, 0, bi_lit[3].b, SPX_SOLVE_BREAKDOWN_RHO, "at iteration 2, 0 to rounding"},
        {"bicgstab half step", D[4], 1, 0, 0, bi_lit[4].b, SPX_SOLVE_CONVERGED, "after 1 iterations"},
        {"bicgstab+jacobi half step", D[5], 1, 1, 0, bi_lit[5].b, SPX_SOLVE_CONVERGED, "after 1 iterations"},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        if (!k[i].A) continue;
        outcome p, g;
        cfg c = {.backend = SPX_BACKEND_CUDA, .bicgstab = k[i].bicgstab, .jacobi = k[i].jacobi, .max_iter = k[i].max_iter,
                 .b = k[i].b, .path = SPX_SOLVE_PATH_PERSISTENT};
        solve(ctx, k[i].A, &c, &p);
        c.path = SPX_SOLVE_PATH_GRAPH;
        solve(ctx, k[i].A, &c, &g);
        char what[96];
        snprintf(what, sizeof what, "cuda persistent %s", k[i].what);
        CHECK_MSG(p.st == SPX_OK && p.r.status == k[i].want && strstr(p.r.reason, k[i].reason) && g.r.status == p.r.status &&
                      g.r.iterations == p.r.iterations && p.r.spmvs == g.r.spmvs && p.x && g.x &&
                      max_diff(p.x, g.x, k[i].A->m) <= 1e-12 * (1.0 + max_abs(g.x, k[i].A->m)),
                  "%s: %s after %d (%d SpMVs): %s; graph %s after %d (%d SpMVs)", what, spx_solve_status_str(p.r.status),
                  p.r.iterations, p.r.spmvs, p.r.reason, spx_solve_status_str(g.r.status), g.r.iterations, g.r.spmvs);
        check_persistent_fields(what, &p);
        if (k[i].want == SPX_SOLVE_BREAKDOWN_RHO && !k[i].bicgstab)
            CHECK_MSG(p.r.iterations_run == 0, "%s: %d iterations run", what, p.r.iterations_run);
        free(p.x);
        free(g.x);
    }
    spx_csr_destroy(&L);
    spx_csr_destroy(&N);
    spx_csr_destroy(&R);
    for (int i = 0; i < 6; i++) spx_csr_destroy(&D[i]);
}

/* n = 0 (b = 0: converged at once, nothing launched) and n = 1 (one iteration, one block), with
 * and without Jacobi; x of n = 1 exact. */
static void test_edges(spx_ctx *ctx)
{
    spx_csr *E = NULL;
    CHECK_OK(ctx, spx_csr_alloc(ctx, 0, 0, 0, &E));
    const double four = 4.0;
    spx_csr *One = dense(ctx, 1, &four);
    for (int j = 0; j < 2; j++) {
        outcome o;
        if (E) {
            solve(ctx, E, &(cfg){.backend = SPX_BACKEND_CUDA, .jacobi = j, .path = SPX_SOLVE_PATH_PERSISTENT}, &o);
            CHECK_MSG(o.st == SPX_OK && o.r.status == SPX_SOLVE_CONVERGED && o.r.iterations == 0 && o.r.iterations_run == 0 &&
                          o.r.path == SPX_SOLVE_PATH_PERSISTENT && o.r.kernel_seconds == 0.0,
                      "cuda persistent n = 0%s: %s after %d (%d run), path %s", j ? " jacobi" : "",
                      spx_solve_status_str(o.r.status), o.r.iterations, o.r.iterations_run, spx_solve_path_str(o.r.path));
            free(o.x);
        }
        if (One) {
            solve(ctx, One, &(cfg){.backend = SPX_BACKEND_CUDA, .jacobi = j, .path = SPX_SOLVE_PATH_PERSISTENT}, &o);
            CHECK_MSG(o.st == SPX_OK && o.r.status == SPX_SOLVE_CONVERGED && o.r.iterations == 1 && o.x && o.x[0] == 1.0,
                      "cuda persistent n = 1%s: %s after %d, x %.17g", j ? " jacobi" : "", spx_solve_status_str(o.r.status),
                      o.r.iterations, o.x ? o.x[0] : NAN);
            check_persistent_fields(j ? "cuda persistent n = 1 jacobi" : "cuda persistent n = 1", &o);
            free(o.x);
        }
    }
    spx_csr_destroy(&E);
    spx_csr_destroy(&One);
}

/* A callback that never stops the solve. */
static int never_stop(void *user, int k, double rel) { return 0; }

/* What keeps the kernel from running falls back to the graph and says why; auto takes the
 * kernel on a small csr plan and leaves it under check_every. */
static void test_fallbacks(spx_ctx *ctx)
{
    spx_csr *A = gen(ctx, "gen:poisson3d:n=10,laplace=1");
    if (!A) return;
    const struct {
        const char *what;
        cfg c;
        spx_solve_path want;
        const char *reason;
    } k[] = {
        {"auto", {.backend = SPX_BACKEND_CUDA}, SPX_SOLVE_PATH_PERSISTENT, "auto: csr"},
        {"auto, check_every 4", {.backend = SPX_BACKEND_CUDA, .check_every = 4}, SPX_SOLVE_PATH_GRAPH, "check_every 4"},
        {"persistent, check_every 4", {.backend = SPX_BACKEND_CUDA, .check_every = 4, .path = SPX_SOLVE_PATH_PERSISTENT},
         SPX_SOLVE_PATH_PERSISTENT, "asked"},
        {"graph", {.backend = SPX_BACKEND_CUDA, .path = SPX_SOLVE_PATH_GRAPH}, SPX_SOLVE_PATH_GRAPH, "asked"},
        {"cusparse", {.backend = SPX_BACKEND_CUDA, .format = "cusparse", .path = SPX_SOLVE_PATH_PERSISTENT},
         SPX_SOLVE_PATH_GRAPH, "persistent asked, but the plan's format is cusparse, not csr"},
        {"bicgstab", {.backend = SPX_BACKEND_CUDA, .bicgstab = 1}, SPX_SOLVE_PATH_PERSISTENT, "auto: csr"},
        {"bicgstab, cusparse", {.backend = SPX_BACKEND_CUDA, .bicgstab = 1, .format = "cusparse"}, SPX_SOLVE_PATH_GRAPH,
         "auto: the plan's format is cusparse, not csr"},
        {"callback", {.backend = SPX_BACKEND_CUDA, .callback = never_stop, .path = SPX_SOLVE_PATH_PERSISTENT},
         SPX_SOLVE_PATH_GRAPH, "persistent asked, but a callback sees every iteration"},
    };
    spx_format_desc d;
    int have_cusparse = 0;
    for (int f = 0; f < spx_format_count(); f++)
        if (spx_format_describe(f, &d) == SPX_OK && !strcmp(d.name, "cusparse")) have_cusparse = d.available && d.has_cuda;
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        if (k[i].c.format && !have_cusparse) continue;
        outcome o;
        solve(ctx, A, &k[i].c, &o);
        CHECK_MSG(o.st == SPX_OK && o.r.status == SPX_SOLVE_CONVERGED && o.r.path == k[i].want && strstr(o.r.path_reason, k[i].reason),
                  "cuda %s: %s, path %s (%s)", k[i].what, spx_solve_status_str(o.r.status), spx_solve_path_str(o.r.path),
                  o.r.path_reason);
        CHECK_MSG(o.r.path == SPX_SOLVE_PATH_PERSISTENT || (o.r.kernel_seconds == 0.0 && o.r.checks >= 1),
                  "cuda %s: kernel %g s, %d checks on the graph path", k[i].what, o.r.kernel_seconds, o.r.checks);
        printf("cuda %s: path %s: %s\n", k[i].what, spx_solve_path_str(o.r.path), o.r.path_reason);
        free(o.x);
    }
    spx_csr_destroy(&A);
}

/* Everything on the GPU; the device memory held before and after must be the same. */
static void test_gpu(spx_ctx *ctx, int quick)
{
    spx_mem_stats before, after;
    spx_ctx_mem_stats(ctx, &before);
    test_against_graph(ctx, quick);
    test_ends(ctx);
    test_edges(ctx);
    test_fallbacks(ctx);
    spx_ctx_mem_stats(ctx, &after);
    CHECK_MSG(after.device_bytes == before.device_bytes, "device memory held after the tests: %zu -> %zu", before.device_bytes,
              after.device_bytes);
}

int main(void)
{
    spx_ctx *ctx = NULL;
    test_rule();
    test_shape_arithmetic();
    if (spx_ctx_create(&ctx, &(spx_ctx_opts){.backend = SPX_BACKEND_CPU})) return 1;
    test_options_cpu(ctx);
    spx_ctx_destroy(&ctx);
    if (!(ctx = gpu_ctx())) return check_report();
    const double t0 = spx_wtime();
    test_gpu(ctx, getenv("SPX_SOLVE_TEST_QUICK") != NULL);
    printf("gpu part %.2f s\n", spx_wtime() - t0);
    spx_ctx_destroy(&ctx);
    return check_report();
}
