/* tests/test_solve.c: the solvers (spx_solve_cg, spx_solve_bicgstab), spx_solve_inv_diag and
 * spx_vec_mul, run once per backend through the same functions (CPU always, CUDA when a device
 * is present): CG on generated Laplacians against an independent host CG and on the shared
 * SPD matrices, BiCGSTAB on unsymmetric shared matrices, every format with a path on the
 * backend agreeing (iterations +-1, true residual), fp32, every breakdown, b = 0, NaN in b and
 * x0, the iteration cap, the history and the callback, argument errors, determinism (CPU), no
 * memory left held; then the CUDA iteration counts against the CPU's. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cuda/gateway.h"
#include "matrices.h"
#include "solve_check.h"

/* Iterations of a plain textbook CG (x0 = 0, b = A*ones, fp64, the reference SpMV) to reach
 * ||r|| / ||b|| <= tol: the independent count the library's CG is held to. */
static int host_cg_iterations(const spx_csr *A, double tol)
{
    const size_t n = (size_t)A->m;
    double *b = a_ones(A), *r = malloc(n * sizeof *r), *p = malloc(n * sizeof *p), *q = malloc(n * sizeof *q);
    double rr = 0.0;
    for (size_t i = 0; i < n; i++) rr += b[i] * b[i];
    const double bnorm = sqrt(rr);
    memcpy(r, b, n * sizeof *r);
    memcpy(p, b, n * sizeof *p);
    int k = 0;
    while (sqrt(rr) / bnorm > tol && k < 100000) {
        spx_csr_spmv_ref(A, 1.0, p, 0.0, q);
        double pq = 0.0, rr_new = 0.0;
        for (size_t i = 0; i < n; i++) pq += p[i] * q[i];
        for (size_t i = 0; i < n; i++) r[i] -= rr / pq * q[i];
        for (size_t i = 0; i < n; i++) rr_new += r[i] * r[i];
        for (size_t i = 0; i < n; i++) p[i] = r[i] + rr_new / rr * p[i];
        rr = rr_new;
        k++;
    }
    free(b);
    free(r);
    free(p);
    free(q);
    return k;
}

/* The shared checks of a converged solve: status, residuals within bound, the history. */
static void check_converged(const outcome *o, const char *what, double tol, double true_bound, double err_bound)
{
    const spx_solve_result *r = &o->r;
    CHECK_MSG(o->st == SPX_OK && r->status == SPX_SOLVE_CONVERGED, "%s: %s, %s: %s", what, spx_status_str(o->st),
              spx_solve_status_str(r->status), r->reason);
    if (o->st) return;
    CHECK_MSG(r->rel_residual <= tol && o->true_rel <= true_bound, "%s: recursive %.3e, true %.3e (bound %.1e)", what,
              r->rel_residual, o->true_rel, true_bound);
    CHECK_MSG(o->max_err <= err_bound, "%s: max |x - 1| = %.3e (bound %.1e)", what, o->max_err, err_bound);
    CHECK_MSG(r->history_len == r->iterations + 1 && o->history[0] == 1.0 && o->history[r->iterations] == r->rel_residual,
              "%s: history of %d entries for %d iterations, first %.17g", what, r->history_len, r->iterations, o->history[0]);
    CHECK_MSG(r->seconds >= r->iter_seconds && r->iter_seconds > 0.0, "%s: times %g %g", what, r->seconds, r->iter_seconds);
}

/* Solves the shared matrix at path as c says and checks it converges to TOL (the true residual
 * within 2 TOL, |x - 1| within err_bound), the outcome in *o (its x freed); 0 when the file is
 * absent. */
static int shared_converges(spx_ctx *ctx, const char *path, const cfg *c, double err_bound, outcome *o)
{
    spx_csr *A = shared(ctx, path);
    if (!A) return 0;
    solve(ctx, A, c, o);
    char what[160];
    snprintf(what, sizeof what, "%s %s%s %s", bname(c->backend), c->bicgstab ? "bicgstab" : "cg", c->jacobi ? "+jacobi" : "",
             path);
    check_converged(o, what, TOL, 2 * TOL, err_bound);
    free(o->x);
    o->x = NULL;
    spx_csr_destroy(&A);
    return 1;
}

/* spx_vec_mul: exact products (fp64, and fp32 rounded once), z aliasing an operand, errors. */
static void test_vec_mul(spx_ctx *ctx, spx_backend b)
{
    const int64_t n = 70001;
    double *hx = malloc(n * sizeof *hx), *hy = malloc(n * sizeof *hy), *hz = malloc(n * sizeof *hz);
    uint64_t seed = 5;
    for (int64_t i = 0; i < n; i++) {
        hx[i] = (double)(tm_next(&seed) >> 11) * 0x1p-50 - 4.0;
        hy[i] = (double)(tm_next(&seed) >> 11) * 0x1p-52 - 1.0;
    }
    for (int p = 0; p < 2; p++) {
        const spx_precision prec = p ? SPX_FP32 : SPX_FP64;
        const cfg c = {.backend = b, .precision = prec};
        spx_vec *x = NULL, *y = NULL, *z = NULL, *w = NULL;
        CHECK_OK(ctx, vec_of(ctx, &c, n, hx, &x));
        CHECK_OK(ctx, vec_of(ctx, &c, n, hy, &y));
        CHECK_OK(ctx, vec_of(ctx, &c, n, NULL, &z));
        CHECK_OK(ctx, vec_of(ctx, &c, n - 1, NULL, &w));
        CHECK_OK(ctx, spx_vec_mul(x, y, z));
        CHECK_OK(ctx, spx_vec_get(z, hz));
        int ok = 1;
        for (int64_t i = 0; i < n; i++) {
            const double want = p ? (double)(float)((double)(float)hx[i] * (double)(float)hy[i]) : hx[i] * hy[i];
            ok &= hz[i] == want;
        }
        CHECK_MSG(ok, "%s %s: spx_vec_mul differs from the exact rounded products", bname(b), spx_precision_str(prec));
        CHECK_OK(ctx, spx_vec_mul(x, z, z)); /* z = x .* (x .* y) in place */
        CHECK_OK(ctx, spx_vec_get(z, hz));
        CHECK(hz[n / 2] == (p ? (double)(float)((double)(float)hx[n / 2] *
                                                (double)(float)((double)(float)hx[n / 2] * (double)(float)hy[n / 2]))
                              : hx[n / 2] * (hx[n / 2] * hy[n / 2])));
        CHECK(spx_vec_mul(x, y, w) == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "length mismatch"));
        CHECK(spx_vec_mul(x, NULL, z) == SPX_ERR_ARG);
        spx_vec_destroy(&x);
        spx_vec_destroy(&y);
        spx_vec_destroy(&z);
        spx_vec_destroy(&w);
    }
    free(hx);
    free(hy);
    free(hz);
}

/* The generators' laplace key: -1 off the diagonal, the neighbour count on it; rows sum to 0
 * inside the grid and to more on its boundary. */
static void test_laplace_gen(spx_ctx *ctx)
{
    static const struct {
        const char *spec;
        double diag;
    } cases[] = {{"gen:poisson2d:n=7,laplace=1", 4}, {"gen:poisson3d:n=6,laplace=1", 6}, {"gen:stencil27:n=5,laplace=1", 26}};
    for (int c = 0; c < 3; c++) {
        spx_csr *A = gen(ctx, cases[c].spec);
        int ok = A != NULL, zero_rows = 0;
        for (int32_t i = 0; ok && i < A->m; i++) {
            double sum = 0.0;
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
                ok &= A->val[k] == (A->colind[k] == i ? cases[c].diag : -1.0);
                sum += A->val[k];
            }
            ok &= sum >= 0.0;
            zero_rows += sum == 0.0;
        }
        CHECK_MSG(ok && zero_rows > 0 && zero_rows < A->m, "%s: not the Laplacian's values", cases[c].spec);
        spx_csr_destroy(&A);
    }
}

/* CG on the generated Laplacians: converged to TOL, the true residual and the error small,
 * the iteration count that of a textbook CG (+-1). */
static void test_cg_poisson(spx_ctx *ctx, spx_backend b)
{
    static const char *specs[] = {"gen:poisson2d:n=64,laplace=1", "gen:poisson3d:n=20,laplace=1", "gen:stencil27:n=12,laplace=1"};
    for (int i = 0; i < 3; i++) {
        spx_csr *A = gen(ctx, specs[i]);
        if (!A) continue;
        outcome o;
        solve(ctx, A, &(cfg){.backend = b, .tol = TOL}, &o);
        char what[96];
        snprintf(what, sizeof what, "%s cg %s", bname(b), specs[i]);
        check_converged(&o, what, TOL, 1.01 * TOL, 1e-6);
        const int want = host_cg_iterations(A, TOL);
        CHECK_MSG(abs(o.r.iterations - want) <= 1, "%s: %d iterations, textbook CG %d", what, o.r.iterations, want);
        CHECK_MSG(o.r.spmvs == o.r.iterations + 1, "%s: %d SpMVs for %d iterations", what, o.r.spmvs, o.r.iterations);
        free(o.x);
        spx_csr_destroy(&A);
    }
}

/* CG on the shared SPD matrices (Jacobi where it pays); bcsstk29 and bcsstk33 are pattern-only
 * files whose all-ones values are not positive definite: CG must say so (p'Ap <= 0). */
static void test_cg_shared(spx_ctx *ctx, spx_backend b)
{
    static const struct {
        const char *path;
        int jacobi, max_iter; /* measured on the CPU: 208, 521, 197 iterations */
    } spd[] = {{SHARED("bcsstk09"), 0, 400}, {SHARED("bcsstk15"), 1, 800}, {SHARED("bcsstk16"), 1, 400}};
    outcome o;
    for (int i = 0; i < 3; i++)
        shared_converges(ctx, spd[i].path, &(cfg){.backend = b, .jacobi = spd[i].jacobi, .max_iter = spd[i].max_iter}, 1e-3, &o);
    static const char *pattern_only[] = {SHARED("bcsstk29"), SHARED("bcsstk33")};
    for (int i = 0; i < 2; i++) {
        spx_csr *A = shared(ctx, pattern_only[i]);
        if (!A) continue;
        solve(ctx, A, &(cfg){.backend = b}, &o);
        CHECK_MSG(o.st == SPX_OK && o.r.status == SPX_SOLVE_BREAKDOWN_PAP && o.r.iterations < 10 &&
                      strstr(o.r.reason, "p'Ap = -"),
                  "%s %s (all ones): %s: %s", bname(b), pattern_only[i], spx_solve_status_str(o.r.status), o.r.reason);
        free(o.x);
        spx_csr_destroy(&A);
    }
}

/* BiCGSTAB on unsymmetric shared matrices: cage10 (with and without Jacobi) and Pd, which is
 * ill-conditioned: a residual of 1e-8 leaves |x - 1| at 5e-2 there (measured on the CPU). */
static void test_bicgstab_shared(spx_ctx *ctx, spx_backend b)
{
    static const struct {
        const char *path;
        int jacobi, max_iter; /* measured on the CPU: 13, 8, 210 iterations */
        double err_bound;
    } cases[] = {{SHARED("cage10"), 0, 30, 1e-6}, {SHARED("cage10"), 1, 30, 1e-6}, {SHARED("Pd"), 0, 400, 0.1}};
    for (int i = 0; i < 3; i++) {
        outcome o;
        const cfg c = {.backend = b, .bicgstab = 1, .jacobi = cases[i].jacobi, .max_iter = cases[i].max_iter};
        if (shared_converges(ctx, cases[i].path, &c, cases[i].err_bound, &o))
            CHECK_MSG(o.r.spmvs >= 2 * o.r.iterations && o.r.spmvs <= 2 * o.r.iterations + 1, "%s %s: %d SpMVs, %d iterations",
                      bname(b), cases[i].path, o.r.spmvs, o.r.iterations);
    }
}

/* Whether format d has a path on backend b in this build. */
static int runs_on(const spx_format_desc *d, spx_backend b)
{
    return d->available && (b == SPX_BACKEND_CPU ? d->has_cpu : d->has_cuda);
}

/* Every format with a path on the backend solves like csr: iterations +-1, true residual within
 * bound (CG on a Laplacian, BiCGSTAB on cage8). */
static void test_formats_agree(spx_ctx *ctx, spx_backend b)
{
    spx_csr *L = gen(ctx, "gen:poisson3d:n=16,laplace=1"), *C = shared(ctx, SHARED("cage8"));
    for (int m = 0; m < 2; m++) {
        const spx_csr *A = m ? C : L;
        if (!A) continue;
        outcome ref;
        solve(ctx, A, &(cfg){.backend = b, .bicgstab = m}, &ref);
        CHECK_OK(ctx, ref.st);
        for (int f = 0; f < spx_format_count(); f++) {
            spx_format_desc d;
            spx_format_describe(f, &d);
            if (!runs_on(&d, b)) continue;
            if (m == 0) printf("%s: %s solves like csr\n", bname(b), d.name);
            outcome o;
            solve(ctx, A, &(cfg){.backend = b, .bicgstab = m, .format = d.name}, &o);
            char what[96];
            snprintf(what, sizeof what, "%s %s %s", bname(b), m ? "bicgstab cage8" : "cg poisson3d", d.name);
            check_converged(&o, what, TOL, 2 * TOL, 1e-6);
            CHECK_MSG(abs(o.r.iterations - ref.r.iterations) <= 1, "%s: %d iterations, csr %d", what, o.r.iterations,
                      ref.r.iterations);
            free(o.x);
        }
        free(ref.x);
    }
    spx_csr_destroy(&L);
    spx_csr_destroy(&C);
}

/* Formats that keep vectors in their own order solve there as in the caller's: CG with
 * Jacobi on bcsstk16 and BiCGSTAB with Jacobi on cage10 (diagonals that vary, so a
 * preconditioner in the wrong numbering would show), b = A x* for an x* that varies (so x
 * put back in the wrong order would show), iterations within 1 of the caller's order, the
 * two solutions equal entry by entry. */
static void test_plan_order(spx_ctx *ctx, spx_backend b)
{
    static const struct {
        const char *path;
        int bicgstab, max_iter;
    } cases[] = {{SHARED("bcsstk16"), 0, 400}, {SHARED("cage10"), 1, 30}};
    for (int f = 0; f < spx_format_count(); f++) {
        spx_format_desc d;
        spx_format_describe(f, &d);
        if (!runs_on(&d, b) || !d.has_plan_order) continue;
        for (int i = 0; i < 2; i++) {
            spx_csr *A = shared(ctx, cases[i].path);
            if (!A) continue;
            double *xs = malloc(((size_t)A->m + 1) * sizeof *xs), *bs = malloc(((size_t)A->m + 1) * sizeof *bs);
            for (int32_t r = 0; r < A->m; r++) xs[r] = 1.0 + (double)(r % 17) / 8.0;
            spx_csr_spmv_ref(A, 1.0, xs, 0.0, bs);
            outcome oc, op;
            cfg c = {.backend = b, .format = d.name, .jacobi = 1, .bicgstab = cases[i].bicgstab, .max_iter = cases[i].max_iter,
                     .b = bs};
            solve(ctx, A, &c, &oc);
            c.plan_order = 1;
            solve(ctx, A, &c, &op);
            char what[160];
            snprintf(what, sizeof what, "%s %s %s in plan order", bname(b), d.name, cases[i].path);
            /* a layout that cannot renumber keeps the caller's order (ehyb with entries outside
               its parts, which depends on the device's shared memory and L2: bcsstk16 on an
               H100), and says so; the solve must still be right */
            CHECK_MSG(op.st == SPX_OK && !oc.plan_order, "%s: status %d, plan order %d / %d", what, op.st, op.plan_order,
                      oc.plan_order);
            if (!op.plan_order) printf("%s: the layout kept the caller's order here\n", what);
            CHECK_MSG(op.st == SPX_OK && op.r.status == SPX_SOLVE_CONVERGED && op.true_rel <= 2 * TOL, "%s: %s, true %.2e",
                      what, spx_solve_status_str(op.r.status), op.true_rel);
            CHECK_MSG(oc.st == SPX_OK && abs(op.r.iterations - oc.r.iterations) <= 1, "%s: %d iterations, caller's order %d",
                      what, op.r.iterations, oc.r.iterations);
            double diff = oc.x && op.x ? 0.0 : INFINITY, scale = 0.0;
            for (int32_t r = 0; oc.x && op.x && r < A->m; r++) {
                if (!(fabs(op.x[r] - oc.x[r]) <= diff)) diff = fabs(op.x[r] - oc.x[r]);
                if (fabs(xs[r]) > scale) scale = fabs(xs[r]);
            }
            CHECK_MSG(diff <= 1e-4 * scale, "%s: x differs from the caller's order's by %.2e", what, diff);
            free(oc.x);
            free(op.x);
            free(xs);
            free(bs);
            spx_csr_destroy(&A);
        }
    }
}

/* fp32 plans and vectors: both solvers converge to 1e-5 with the true residual near it. */
static void test_fp32(spx_ctx *ctx, spx_backend b)
{
    spx_csr *L = gen(ctx, "gen:poisson3d:n=20,laplace=1"), *C = shared(ctx, SHARED("cage10"));
    for (int m = 0; m < 2; m++) {
        const spx_csr *A = m ? C : L;
        if (!A) continue;
        outcome o;
        solve(ctx, A, &(cfg){.backend = b, .precision = SPX_FP32, .bicgstab = m, .tol = 1e-5, .max_iter = 200}, &o);
        char what[64];
        snprintf(what, sizeof what, "%s fp32 %s", bname(b), m ? "bicgstab cage10" : "cg poisson3d");
        check_converged(&o, what, 1e-5, 2e-5, 5e-3);
        free(o.x);
    }
    spx_csr_destroy(&L);
    spx_csr_destroy(&C);
}

/* A solve's outcome is the breakdown st at iteration k (iterations = k - 1), never converged. */
static void check_breakdown(const outcome *o, const char *what, spx_solve_status st, int k)
{
    CHECK_MSG(o->st == SPX_OK && o->r.status == st && o->r.iterations == k - 1, "%s: %s (want %s) after %d iterations: %s", what,
              spx_solve_status_str(o->r.status), spx_solve_status_str(st), o->r.iterations, o->r.reason);
}

/* BiCGSTAB's own breakdowns on small matrices whose iterations are exact in floating point
 * (found by an exact rational search): (r0^, v) = 0 on a skew matrix, t = 0 and (t, s) = 0
 * (omega = 0) at iteration 1, rho = 0 at iteration 2. */
static void test_bicgstab_breakdowns(spx_ctx *ctx, spx_backend b)
{
    static const struct {
        int32_t m;
        double a[9], b[3];
        spx_solve_status st;
        int k;
        const char *what, *says;
    } cases[] = {
        {2, {0, 1, -1, 0}, {1, 2}, SPX_SOLVE_BREAKDOWN_RV, 1, "skew", "(r0^, v) = 0"},
        {2, {1, 1, 0, 0}, {1, 1}, SPX_SOLVE_BREAKDOWN_OMEGA, 1, "singular", "t = A s^ = 0"},
        {3,
         {1, 2, -2, 1, -1, 1, 1, -1, 0},
         {2, 0, -2},
         SPX_SOLVE_BREAKDOWN_OMEGA,
         1,
         "(t, s) = 0",
         "omega = (t, s) / (t, t) = 0"},
        {3, {1, 2, 0, 2, 1, 2, 1, -2, 1}, {0, -1, 0}, SPX_SOLVE_BREAKDOWN_RHO, 2, "rho = 0", "0 to rounding"},
    };
    for (int i = 0; i < 4; i++) {
        spx_csr *A = dense(ctx, cases[i].m, cases[i].a);
        outcome o;
        solve(ctx, A, &(cfg){.backend = b, .bicgstab = 1, .b = cases[i].b}, &o);
        char what[64];
        snprintf(what, sizeof what, "%s bicgstab %s", bname(b), cases[i].what);
        check_breakdown(&o, what, cases[i].st, cases[i].k);
        CHECK_MSG(strstr(o.r.reason, cases[i].says), "%s: reason '%s'", what, o.r.reason);
        free(o.x);
        spx_csr_destroy(&A);
    }
}

/* CG's breakdowns: p'Ap <= 0 on -L and on a random symmetric (indefinite) matrix; (r, z) <= 0
 * with Jacobi on -L; x stays the last complete iterate (x0 = 0 after a first-step breakdown). */
static void test_cg_breakdowns(spx_ctx *ctx, spx_backend b)
{
    spx_csr *N = gen(ctx, "gen:poisson2d:n=20,laplace=1"), *R = gen(ctx, "gen:poisson2d:n=20");
    if (!N || !R) goto done;
    for (int64_t k = 0; k < N->nnz; k++) N->val[k] = -N->val[k];
    outcome o;
    solve(ctx, N, &(cfg){.backend = b}, &o);
    check_breakdown(&o, "cg on -L", SPX_SOLVE_BREAKDOWN_PAP, 1);
    int zero = o.x != NULL;
    for (int32_t i = 0; zero && i < N->m; i++) zero = o.x[i] == 0.0;
    CHECK_MSG(zero, "%s cg on -L: x moved although the first step broke down", bname(b));
    free(o.x);
    solve(ctx, N, &(cfg){.backend = b, .jacobi = 1}, &o);
    check_breakdown(&o, "cg+jacobi on -L", SPX_SOLVE_BREAKDOWN_RHO, 1);
    CHECK(strstr(o.r.reason, "not positive definite") != NULL);
    free(o.x);
    solve(ctx, R, &(cfg){.backend = b}, &o); /* measured: p'Ap < 0 at iteration 2 */
    CHECK_MSG(o.st == SPX_OK && o.r.status == SPX_SOLVE_BREAKDOWN_PAP && o.r.iterations < 20, "%s cg random symmetric: %s: %s",
              bname(b), spx_solve_status_str(o.r.status), o.r.reason);
    free(o.x);
done:
    spx_csr_destroy(&N);
    spx_csr_destroy(&R);
}

/* NaN and Inf in b or x0: a NaN/Inf breakdown at iteration 0, never a loop or convergence. */
static void test_nonfinite(spx_ctx *ctx, spx_backend b, const spx_csr *L)
{
    const size_t n = (size_t)L->m;
    double *bad = a_ones(L), *x0 = calloc(n, sizeof *x0);
    const double poison[] = {NAN, INFINITY};
    for (int m = 0; m < 2; m++)
        for (int p = 0; p < 2; p++) {
            bad[n / 2] = poison[p];
            outcome o;
            solve(ctx, L, &(cfg){.backend = b, .bicgstab = m, .b = bad}, &o);
            CHECK_MSG(o.st == SPX_OK && o.r.status == SPX_SOLVE_BREAKDOWN_NONFINITE && o.r.iterations == 0 &&
                          strstr(o.r.reason, "||b||"),
                      "%s %s, %g in b: %s: %s", bname(b), m ? "bicgstab" : "cg", poison[p], spx_solve_status_str(o.r.status),
                      o.r.reason);
            free(o.x);
            bad[n / 2] = 1.0;
            x0[n / 3] = poison[p];
            solve(ctx, L, &(cfg){.backend = b, .bicgstab = m, .x0 = x0}, &o);
            CHECK_MSG(o.st == SPX_OK && o.r.status == SPX_SOLVE_BREAKDOWN_NONFINITE && o.r.iterations == 0,
                      "%s %s, %g in x0: %s: %s", bname(b), m ? "bicgstab" : "cg", poison[p], spx_solve_status_str(o.r.status),
                      o.r.reason);
            free(o.x);
            x0[n / 3] = 0.0;
        }
    free(bad);
    free(x0);
}

/* b = 0 gives x = 0 whatever x0, converged in 0 iterations; x0 = the solution converges at
 * once; tol >= 1 with x0 = 0 too. */
static void test_trivial(spx_ctx *ctx, spx_backend b, const spx_csr *L)
{
    const size_t n = (size_t)L->m;
    double *zeros = calloc(n, sizeof *zeros), *fives = malloc(n * sizeof *fives), *ones = malloc(n * sizeof *ones);
    for (size_t i = 0; i < n; i++) fives[i] = 5.0, ones[i] = 1.0;
    for (int m = 0; m < 2; m++) {
        outcome o;
        solve(ctx, L, &(cfg){.backend = b, .bicgstab = m, .b = zeros, .x0 = fives}, &o);
        int zero = o.x != NULL;
        for (size_t i = 0; zero && i < n; i++) zero = o.x[i] == 0.0;
        CHECK_MSG(o.st == SPX_OK && o.r.status == SPX_SOLVE_CONVERGED && o.r.iterations == 0 && o.r.spmvs == 0 &&
                      o.r.rel_residual == 0.0 && zero && o.r.history_len == 1 && o.history[0] == 0.0,
                  "%s %s b = 0: %s, %d iterations, x zero %d", bname(b), m ? "bicgstab" : "cg", spx_solve_status_str(o.r.status),
                  o.r.iterations, zero);
        free(o.x);
        solve(ctx, L, &(cfg){.backend = b, .bicgstab = m, .x0 = ones}, &o);
        CHECK_MSG(o.st == SPX_OK && o.r.status == SPX_SOLVE_CONVERGED && o.r.iterations == 0 && o.r.spmvs == 1 &&
                      o.r.rel_residual <= 1e-15,
                  "%s x0 = solution: %s after %d", bname(b), spx_solve_status_str(o.r.status), o.r.iterations);
        free(o.x);
        solve(ctx, L, &(cfg){.backend = b, .bicgstab = m, .tol = 1.0}, &o);
        CHECK(o.st == SPX_OK && o.r.status == SPX_SOLVE_CONVERGED && o.r.iterations == 0 && o.r.rel_residual == 1.0);
        free(o.x);
    }
    free(zeros);
    free(fives);
    free(ones);
}

/* Stops at the third iteration. */
static int stop_at_3(void *user, int k, double rel)
{
    int *calls = user;
    (*calls)++;
    return k == 3;
}

/* The cap (MAX_ITER with the history so far), a short history buffer, the callback's stop. */
static void test_cap_history_callback(spx_ctx *ctx, spx_backend b, const spx_csr *L)
{
    for (int m = 0; m < 2; m++) {
        outcome o;
        solve(ctx, L, &(cfg){.backend = b, .bicgstab = m, .max_iter = 5}, &o);
        CHECK_MSG(o.st == SPX_OK && o.r.status == SPX_SOLVE_MAX_ITER && o.r.iterations == 5 && o.r.history_len == 6 &&
                      o.history[5] == o.r.rel_residual && o.r.rel_residual > TOL && strstr(o.r.reason, "the cap"),
                  "%s %s cap 5: %s after %d: %s", bname(b), m ? "bicgstab" : "cg", spx_solve_status_str(o.r.status),
                  o.r.iterations, o.r.reason);
        free(o.x);
        solve(ctx, L, &(cfg){.backend = b, .bicgstab = m, .history_cap = 3}, &o);
        CHECK(o.st == SPX_OK && o.r.status == SPX_SOLVE_CONVERGED && o.r.iterations > 3 && o.r.history_len == 3);
        free(o.x);
    }
    /* the callback: with a user pointer, through the public API directly */
    spx_plan *plan = NULL;
    spx_vec *bv = NULL, *x = NULL;
    int calls = 0;
    spx_solve_result r;
    spx_plan_opts po = {.backend = b};
    CHECK_OK(ctx, spx_plan_create(ctx, L, &po, &plan));
    CHECK_OK(ctx, spx_vec_create(ctx, b, SPX_FP64, L->m, &bv));
    CHECK_OK(ctx, spx_vec_create(ctx, b, SPX_FP64, L->m, &x));
    if (plan && bv && x) {
        CHECK_OK(ctx, spx_vec_fill(bv, 1.0));
        spx_solve_opts so = {.callback = stop_at_3, .user = &calls};
        CHECK_OK(ctx, spx_solve_cg(plan, bv, x, &so, &r));
        CHECK_MSG(r.status == SPX_SOLVE_STOPPED && r.iterations == 3 && calls == 4, "%s callback: %s at %d, %d calls", bname(b),
                  spx_solve_status_str(r.status), r.iterations, calls);
    }
    spx_vec_destroy(&bv);
    spx_vec_destroy(&x);
    spx_plan_destroy(&plan);
}

/* Every argument error is SPX_ERR_ARG with a message that names it. */
static void test_args(spx_ctx *ctx, spx_backend b, const spx_csr *L)
{
    spx_csr *W = tm_make(ctx, 30, 40, tm_len_const8, 3);
    spx_plan *p = NULL, *pw = NULL, *p32 = NULL;
    spx_vec *bv = NULL, *x = NULL, *shortv = NULL, *x32 = NULL, *d = NULL;
    spx_solve_result r;
    CHECK_OK(ctx, spx_plan_create(ctx, L, &(spx_plan_opts){.backend = b}, &p));
    CHECK_OK(ctx, spx_plan_create(ctx, W, &(spx_plan_opts){.backend = b}, &pw));
    CHECK_OK(ctx, spx_plan_create(ctx, L, &(spx_plan_opts){.backend = b, .precision = SPX_FP32}, &p32));
    CHECK_OK(ctx, spx_vec_create(ctx, b, SPX_FP64, L->m, &bv));
    CHECK_OK(ctx, spx_vec_create(ctx, b, SPX_FP64, L->m, &x));
    CHECK_OK(ctx, spx_vec_create(ctx, b, SPX_FP64, L->m - 1, &shortv));
    CHECK_OK(ctx, spx_vec_create(ctx, b, SPX_FP32, L->m, &x32));
    CHECK_OK(ctx, spx_solve_inv_diag(ctx, L, p, &d));
    if (!p || !pw || !p32 || !bv || !x || !shortv || !x32 || !d) goto done;
    static const struct {
        spx_solve_opts o;
        const char *says;
    } bad_opts[] = {
        {{.tol = -1.0}, "tol"},
        {{.tol = NAN}, "tol"},
        {{.max_iter = -3}, "max_iter"},
        {{.history_cap = 5}, "history"},
        {{.precond = SPX_PRECOND_JACOBI}, "inv_diag"},
        {{.precond = (spx_precond)7}, "precond"},
    };
    for (int i = 0; i < 6; i++)
        CHECK_MSG(spx_solve_cg(p, bv, x, &bad_opts[i].o, &r) == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), bad_opts[i].says),
                  "%s bad option %d: %s", bname(b), i, spx_ctx_last_error(ctx));
    spx_solve_opts with_d = {.inv_diag = d};
    CHECK(spx_solve_bicgstab(p, bv, x, &with_d, &r) == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "inv_diag"));
    with_d.precond = SPX_PRECOND_JACOBI;
    with_d.inv_diag = shortv;
    CHECK(spx_solve_cg(p, bv, x, &with_d, &r) == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "inv_diag has"));
    CHECK(spx_solve_cg(pw, bv, x, NULL, &r) == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "square"));
    CHECK(spx_solve_cg(p, shortv, x, NULL, &r) == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "b has"));
    CHECK(spx_solve_bicgstab(p, bv, bv, NULL, &r) == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "different"));
    CHECK(spx_solve_cg(p, bv, x32, NULL, &r) == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "fp32"));
    CHECK(spx_solve_cg(p32, bv, x, NULL, &r) == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "the plan is fp32"));
    CHECK(spx_solve_cg(NULL, bv, x, NULL, &r) == SPX_ERR_ARG && spx_solve_cg(p, bv, x, NULL, NULL) == SPX_ERR_ARG);
    spx_vec *none = NULL;
    CHECK(spx_solve_inv_diag(ctx, W, pw, &none) == SPX_ERR_ARG && none == NULL && strstr(spx_ctx_last_error(ctx), "square"));
    CHECK(spx_solve_inv_diag(ctx, L, pw, &none) == SPX_ERR_ARG && none == NULL);
done:
    spx_vec_destroy(&bv);
    spx_vec_destroy(&x);
    spx_vec_destroy(&shortv);
    spx_vec_destroy(&x32);
    spx_vec_destroy(&d);
    spx_plan_destroy(&p);
    spx_plan_destroy(&pw);
    spx_plan_destroy(&p32);
    spx_csr_destroy(&W);
}

/* Jacobi refuses a zero or missing diagonal entry and a NaN one, naming the row (1-based), and
 * an fp32 inverse that overflows; west0497 lacks A(1,1). */
static void test_jacobi_refusals(spx_ctx *ctx, spx_backend b)
{
    static const struct {
        double a[9];
        spx_precision p;
        const char *says;
    } cases[] = {
        {{2, 1, 0, 1, 2, 1, 0, 1, 0}, SPX_FP64, "row 3 has no diagonal entry A(3,3)"},
        {{2, 1, 0, 1, 2, 1, 0, 1, 1}, SPX_FP64, NULL}, /* the control: accepted */
        {{2, 1, 0, 1, 1e-300, 1, 0, 1, 1}, SPX_FP64, NULL},
        {{2, 1, 0, 1, 1e-300, 1, 0, 1, 1}, SPX_FP32, "row 2 (1-based) is not representable in fp32"},
        {{NAN, 1, 0, 1, 2, 1, 0, 1, 1}, SPX_FP64, "row 1 (1-based) is not finite"},
    };
    for (int i = 0; i < 5; i++) {
        spx_csr *A = dense(ctx, 3, cases[i].a);
        spx_plan *p = NULL;
        spx_vec *d = NULL;
        CHECK_OK(ctx, spx_plan_create(ctx, A, &(spx_plan_opts){.backend = b, .precision = cases[i].p}, &p));
        const spx_status s = spx_solve_inv_diag(ctx, A, p, &d);
        if (cases[i].says)
            CHECK_MSG(s == SPX_ERR_ARG && d == NULL && strstr(spx_ctx_last_error(ctx), cases[i].says), "%s jacobi case %d: %s",
                      bname(b), i, spx_ctx_last_error(ctx));
        else
            CHECK_MSG(s == SPX_OK && d != NULL && spx_vec_length(d) == 3, "%s jacobi case %d: %s", bname(b), i,
                      spx_ctx_last_error(ctx));
        spx_vec_destroy(&d);
        spx_plan_destroy(&p);
        spx_csr_destroy(&A);
    }
    /* an explicit zero stored on the diagonal (dense() leaves zeros out, so build it by hand) */
    static const int64_t rp[] = {0, 2, 4};
    static const int32_t ci[] = {0, 1, 0, 1};
    static const double va[] = {3, 1, 1, 0};
    spx_csr *Z = tm_csr_literal(ctx, 2, 2, rp, ci, va), *west = shared(ctx, SHARED("west0497"));
    spx_plan *p = NULL;
    spx_vec *d = NULL;
    CHECK_OK(ctx, spx_plan_create(ctx, Z, &(spx_plan_opts){.backend = b}, &p));
    CHECK(spx_solve_inv_diag(ctx, Z, p, &d) == SPX_ERR_ARG &&
          strstr(spx_ctx_last_error(ctx), "zero diagonal entry A(2,2) = 0 in row 2"));
    spx_plan_destroy(&p);
    if (west) {
        CHECK_OK(ctx, spx_plan_create(ctx, west, &(spx_plan_opts){.backend = b}, &p));
        CHECK(spx_solve_inv_diag(ctx, west, p, &d) == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "row 1 has no diagonal"));
        spx_plan_destroy(&p);
    }
    spx_csr_destroy(&Z);
    spx_csr_destroy(&west);
}

/* Two runs of the same solve give the same bits (x and history): on the CPU only, since some
 * GPU SpMV kernels add long rows' pieces with atomics. */
static void test_determinism(spx_ctx *ctx, spx_backend b, const spx_csr *L)
{
    for (int m = 0; m < 2; m++) {
        outcome *o1 = malloc(sizeof *o1), *o2 = malloc(sizeof *o2);
        solve(ctx, L, &(cfg){.backend = b, .bicgstab = m, .jacobi = 1}, o1);
        solve(ctx, L, &(cfg){.backend = b, .bicgstab = m, .jacobi = 1}, o2);
        CHECK_MSG(o1->x && o2->x && o1->r.iterations == o2->r.iterations && !memcmp(o1->x, o2->x, (size_t)L->m * sizeof *o1->x) &&
                      !memcmp(o1->history, o2->history, (size_t)o1->r.history_len * sizeof(double)),
                  "%s %s: two runs differ", bname(b), m ? "bicgstab" : "cg");
        free(o1->x);
        free(o2->x);
        free(o1);
        free(o2);
    }
}

/* Everything above on backend b with context ctx; *iters gets CG's count on poisson3d n=20. */
static void test_backend(spx_ctx *ctx, spx_backend b, int *iters)
{
    spx_mem_stats before, after;
    spx_ctx_mem_stats(ctx, &before);
    spx_csr *L = gen(ctx, "gen:poisson2d:n=30,laplace=1");
    test_vec_mul(ctx, b);
    test_cg_poisson(ctx, b);
    test_cg_shared(ctx, b);
    test_bicgstab_shared(ctx, b);
    test_formats_agree(ctx, b);
    test_plan_order(ctx, b);
    test_fp32(ctx, b);
    test_bicgstab_breakdowns(ctx, b);
    test_cg_breakdowns(ctx, b);
    test_jacobi_refusals(ctx, b);
    if (L) {
        test_nonfinite(ctx, b, L);
        test_trivial(ctx, b, L);
        test_cap_history_callback(ctx, b, L);
        test_args(ctx, b, L);
        if (b == SPX_BACKEND_CPU) test_determinism(ctx, b, L);
    }
    spx_csr *P = gen(ctx, "gen:poisson3d:n=20,laplace=1");
    outcome o;
    if (P) solve(ctx, P, &(cfg){.backend = b}, &o);
    *iters = P && o.st == SPX_OK ? o.r.iterations : -1;
    if (P) free(o.x);
    spx_csr_destroy(&P);
    spx_csr_destroy(&L);
    spx_ctx_mem_stats(ctx, &after);
    /* on CUDA the context's own state (device properties, library handles) is made lazily in
       host memory on first use and kept: only the device bytes must come back there */
    const int host_same = b == SPX_BACKEND_CUDA || after.host_bytes == before.host_bytes;
    CHECK_MSG(host_same && after.device_bytes == before.device_bytes,
              "%s: memory held after the tests: host %zu -> %zu, device %zu -> %zu", bname(b), before.host_bytes,
              after.host_bytes, before.device_bytes, after.device_bytes);
}

int main(void)
{
    spx_ctx *ctx = NULL;
    spx_ctx_opts co = {.backend = SPX_BACKEND_CPU};
    if (spx_ctx_create(&ctx, &co)) return 1;
    int cpu_iters = -1, gpu_iters = -1;
    double t0 = spx_wtime();
    test_laplace_gen(ctx);
    test_backend(ctx, SPX_BACKEND_CPU, &cpu_iters);
    printf("cpu part %.2f s\n", spx_wtime() - t0);
    spx_ctx_destroy(&ctx);
    if (!spx_cuda_compiled() || spx_cuda_device_count() == 0) {
        printf("GPU part skipped: %s\n", spx_cuda_compiled() ? "no CUDA device" : "CUDA not compiled in");
        return check_report();
    }
    spx_ctx_opts go = {.backend = SPX_BACKEND_CUDA};
    if (spx_ctx_create(&ctx, &go)) {
        CHECK(!"CUDA context");
        return check_report();
    }
    t0 = spx_wtime();
    test_backend(ctx, SPX_BACKEND_CUDA, &gpu_iters);
    CHECK_MSG(gpu_iters >= 0 && abs(gpu_iters - cpu_iters) <= 1, "cg poisson3d: %d iterations on the GPU, %d on the CPU",
              gpu_iters, cpu_iters);
    printf("gpu part %.2f s\n", spx_wtime() - t0);
    spx_ctx_destroy(&ctx);
    return check_report();
}
