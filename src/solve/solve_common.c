/* src/solve/solve_common.c: the solvers' shared part: argument checks, work vectors, the initial
 * residual, per-iteration bookkeeping, breakdowns, the preconditioner, the end of a run. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cuda/gateway.h"
#include "solve/solve_common.h"
#include "vec/vec_internal.h"

const char *spx_solve_status_str(spx_solve_status s)
{
    switch (s) {
    case SPX_SOLVE_CONVERGED: return "converged";
    case SPX_SOLVE_MAX_ITER: return "max iterations reached";
    case SPX_SOLVE_STOPPED: return "stopped by the callback";
    case SPX_SOLVE_BREAKDOWN_RHO: return "breakdown: rho = 0";
    case SPX_SOLVE_BREAKDOWN_PAP: return "breakdown: p'Ap <= 0";
    case SPX_SOLVE_BREAKDOWN_RV: return "breakdown: (r0^, v) = 0";
    case SPX_SOLVE_BREAKDOWN_OMEGA: return "breakdown: omega = 0";
    case SPX_SOLVE_BREAKDOWN_NONFINITE: return "breakdown: NaN or Inf";
    }
    return "unknown solve status";
}

/* SPX_OK when v can be the solve's vector `what`: its context, the plan's backend and
 * precision, length n; else SPX_ERR_ARG with a message. */
static spx_status check_vec(const solve_run *s, const spx_vec *v, const char *what)
{
    if (spx_vec_ctx(v) != s->ctx) return spx_fail(s->ctx, SPX_ERR_ARG, "%s: %s belongs to another context than b", s->fn, what);
    if (spx_vec_backend(v) != s->backend)
        return spx_fail(s->ctx, SPX_ERR_ARG, "%s: the plan runs on %s, %s is a %s vector", s->fn, spx_backend_str(s->backend),
                        what, spx_backend_str(spx_vec_backend(v)));
    if (spx_vec_precision(v) != s->precision)
        return spx_fail(s->ctx, SPX_ERR_ARG, "%s: the plan is %s, %s is %s", s->fn, spx_precision_str(s->precision), what,
                        spx_precision_str(spx_vec_precision(v)));
    if (spx_vec_length(v) != s->n)
        return spx_fail(s->ctx, SPX_ERR_ARG, "%s: the plan is %lld x %lld, %s has %lld entries", s->fn, (long long)s->n,
                        (long long)s->n, what, (long long)spx_vec_length(v));
    return SPX_OK;
}

/* The options with defaults resolved into s->o; SPX_ERR_ARG for values out of range. */
static spx_status resolve_opts(solve_run *s, const spx_solve_opts *opts)
{
    static const spx_solve_opts none = {0};
    s->o = opts ? *opts : none;
    spx_solve_opts *o = &s->o;
    if (!(o->tol >= 0.0) || isinf(o->tol))
        return spx_fail(s->ctx, SPX_ERR_ARG, "%s: tol must be finite and >= 0, not %g", s->fn, o->tol);
    if (o->tol == 0.0) o->tol = SPX_SOLVE_DEFAULT_TOL;
    if (o->max_iter < 0) return spx_fail(s->ctx, SPX_ERR_ARG, "%s: max_iter %d < 0", s->fn, o->max_iter);
    if (o->max_iter == 0) o->max_iter = SPX_SOLVE_DEFAULT_MAX_ITER;
    if (o->history_cap < 0 || (o->history_cap > 0 && !o->history))
        return spx_fail(s->ctx, SPX_ERR_ARG, "%s: history_cap %d needs a history buffer", s->fn, o->history_cap);
    if (o->precond == SPX_PRECOND_NONE) {
        if (o->inv_diag) return spx_fail(s->ctx, SPX_ERR_ARG, "%s: inv_diag given without precond = SPX_PRECOND_JACOBI", s->fn);
        return SPX_OK;
    }
    if (o->precond != SPX_PRECOND_JACOBI) return spx_fail(s->ctx, SPX_ERR_ARG, "%s: unknown precond %d", s->fn, (int)o->precond);
    if (!o->inv_diag) return spx_fail(s->ctx, SPX_ERR_ARG, "%s: Jacobi needs opts.inv_diag (made by spx_solve_inv_diag)", s->fn);
    return check_vec(s, o->inv_diag, "inv_diag");
}

/* spx_plan_apply as a space's operator; user is the plan. */
static spx_status plan_apply(void *user, double a, const spx_vec *x, double b, spx_vec *y)
{
    return spx_plan_apply(user, a, x, b, y);
}

/* spx_vec_dot as a space's inner product. */
static spx_status plan_dot(void *user, const spx_vec *x, const spx_vec *y, double *out)
{
    return spx_vec_dot(x, y, out);
}

/* spx_vec_nrm2 as a space's norm. */
static spx_status plan_nrm2(void *user, const spx_vec *x, double *out)
{
    return spx_vec_nrm2(x, out);
}

spx_status solve_plan_space(spx_ctx *ctx, const char *fn, spx_plan *A, solve_space *out)
{
    if (!A) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "%s: NULL argument", fn) : SPX_ERR_ARG;
    spx_plan_info info;
    spx_status st = spx_plan_get_info(A, &info);
    if (st) return ctx ? spx_fail(ctx, st, "%s: the plan cannot be read", fn) : st;
    if (info.m != info.n)
        return ctx ? spx_fail(ctx, SPX_ERR_ARG, "%s: a solve needs a square matrix, the plan is %d x %d", fn, info.m, info.n)
                   : SPX_ERR_ARG;
    *out = (solve_space){.apply = plan_apply, .dot = plan_dot, .nrm2 = plan_nrm2, .user = A, .n = info.n,
                         .backend = info.backend, .precision = info.precision};
    return SPX_OK;
}

/* Checks the arguments of fn and fills *s (defaults resolved, *res zeroed); SPX_ERR_ARG with
 * a message in the vectors' context otherwise. */
static spx_status solve_begin(solve_run *s, const char *fn, const solve_space *sp, const spx_vec *b, spx_vec *x,
                              const spx_solve_opts *opts, spx_solve_result *res)
{
    memset(s, 0, sizeof *s);
    s->fn = fn;
    s->t_start = spx_now();
    s->ctx = spx_vec_ctx(b ? b : x);
    if (!sp || !b || !x || !res) return s->ctx ? spx_fail(s->ctx, SPX_ERR_ARG, "%s: NULL argument", fn) : SPX_ERR_ARG;
    memset(res, 0, sizeof *res);
    s->sp = sp;
    s->b = b;
    s->x = x;
    s->res = res;
    s->backend = sp->backend;
    s->precision = sp->precision;
    s->n = sp->n;
    spx_status st;
    if ((st = check_vec(s, b, "b")) || (st = check_vec(s, x, "x"))) return st;
    if (b == x) return spx_fail(s->ctx, SPX_ERR_ARG, "%s: x and b must be different vectors", fn);
    return resolve_opts(s, opts);
}

/* Frees v[0..count) (NULL entries accepted). */
static void solve_work_destroy(spx_vec **v, int count)
{
    for (int i = 0; i < count; i++) spx_vec_destroy(&v[i]);
}

/* count zero-filled work vectors shaped like x into v[0..count); none held after a failure. */
static spx_status solve_work_create(solve_run *s, spx_vec **v, int count)
{
    for (int i = 0; i < count; i++) v[i] = NULL;
    for (int i = 0; i < count; i++) {
        spx_status st = spx_vec_create(s->ctx, s->backend, s->precision, s->n, &v[i]);
        if (st) {
            solve_work_destroy(v, count);
            return st;
        }
    }
    return SPX_OK;
}

int solve_breakdown(solve_run *s, spx_solve_status st, const char *fmt, ...)
{
    s->res->status = st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->res->reason, sizeof s->res->reason, fmt, ap);
    va_end(ap);
    return 1;
}

int solve_nonfinite(solve_run *s, double v, const char *what, int k)
{
    if (isfinite(v)) return 0;
    return solve_breakdown(s, SPX_SOLVE_BREAKDOWN_NONFINITE,
                           "%s = %g at iteration %d: NaN or Inf in A, b, x0 or the preconditioner, or an overflow", what, v, k);
}

int solve_record(solve_run *s, int k, double rel)
{
    spx_solve_result *r = s->res;
    r->iterations = k;
    r->rel_residual = rel;
    if (k < s->o.history_cap) {
        s->o.history[k] = rel;
        r->history_len = k + 1;
    }
    const int stop = s->o.callback && s->o.callback(s->o.user, k, rel); /* every record, the last too */
    if (solve_nonfinite(s, rel, "||r||/||b||", k)) return 1;
    if (rel <= s->o.tol) {
        r->status = SPX_SOLVE_CONVERGED;
        snprintf(r->reason, sizeof r->reason, "||r||/||b|| = %.3e <= tol %.3e after %d iterations", rel, s->o.tol, k);
        return 1;
    }
    if (stop) return solve_breakdown(s, SPX_SOLVE_STOPPED, "at iteration %d (||r||/||b|| = %.3e)", k, rel);
    return 0;
}

/* ||b||, then r = b - A x and its record as k = 0; *done = 1 when the solve is over already
 * (b = 0: x = 0, converged; a non-finite norm; converged or stopped at once). */
static spx_status solve_initial(solve_run *s, spx_vec *r, int *done)
{
    spx_status st = SPX_OK;
    *done = 1;
    s->t_iter = spx_now();
    SOLVE_TRY(solve_nrm2(s, s->b, &s->bnorm));
    if (solve_nonfinite(s, s->bnorm, "||b||", 0)) return SPX_OK;
    if (s->bnorm == 0.0) { /* the exact solution, whatever x0 was */
        SOLVE_TRY(spx_vec_fill(s->x, 0.0));
        s->res->status = SPX_SOLVE_CONVERGED;
        snprintf(s->res->reason, sizeof s->res->reason, "b = 0, so x = 0 in 0 iterations");
        s->res->history_len = s->o.history_cap > 0;
        if (s->o.history_cap > 0) s->o.history[0] = 0.0;
        return SPX_OK;
    }
    SOLVE_TRY(spx_vec_copy(r, s->b));
    SOLVE_TRY(s->sp->apply(s->sp->user, -1.0, s->x, 1.0, r)); /* r = b - A x0 */
    s->res->spmvs = 1;
    SOLVE_TRY(solve_nrm2(s, r, &s->r0norm));
    *done = solve_record(s, 0, s->r0norm / s->bnorm);
done:
    return st;
}

spx_status solve_apply(solve_run *s, const spx_vec *in, spx_vec *out)
{
    s->res->spmvs++;
    return s->sp->apply(s->sp->user, 1.0, in, 0.0, out);
}

spx_status solve_dot(solve_run *s, const spx_vec *x, const spx_vec *y, double *out)
{
    return s->sp->dot(s->sp->user, x, y, out);
}

spx_status solve_nrm2(solve_run *s, const spx_vec *x, double *out)
{
    return s->sp->nrm2(s->sp->user, x, out);
}

spx_status solve_precond(solve_run *s, const spx_vec *r, spx_vec *z)
{
    if (s->o.precond == SPX_PRECOND_NONE) return SPX_OK;
    return spx_vec_mul(s->o.inv_diag, r, z);
}

/* Ends the run (before its work vectors are freed): SPX_SOLVE_MAX_ITER when hit_cap, the
 * CUDA stream drained, the times; returns st. */
static spx_status solve_end(solve_run *s, spx_status st, int hit_cap)
{
    spx_solve_result *r = s->res;
    if (st == SPX_OK && s->backend == SPX_BACKEND_CUDA) st = spx_cuda_sync(s->ctx); /* the last updates of x */
    if (st == SPX_OK && hit_cap) {
        r->status = SPX_SOLVE_MAX_ITER;
        snprintf(r->reason, sizeof r->reason, "||r||/||b|| = %.3e > tol %.3e after %d iterations (the cap)", r->rel_residual,
                 s->o.tol, r->iterations);
    }
    const double now = spx_now();
    r->seconds = now - s->t_start;
    r->iter_seconds = s->t_iter > 0.0 ? now - s->t_iter : 0.0;
    return st;
}

spx_status solve_drive(const char *fn, solve_iterate_fn iterate, int work_plain, int work_jacobi, const solve_space *sp,
                       const spx_vec *b, spx_vec *x, const spx_solve_opts *opts, spx_solve_result *res)
{
    solve_run s;
    spx_vec *w[SOLVE_MAX_WORK] = {NULL};
    spx_status st = solve_begin(&s, fn, sp, b, x, opts, res);
    const int nwork = s.o.precond == SPX_PRECOND_NONE ? work_plain : work_jacobi;
    if (!st) st = solve_work_create(&s, w, nwork);
    if (sp && sp->agree) st = sp->agree(sp->user, st);
    if (st) {
        solve_work_destroy(w, nwork);
        return st;
    }
    int done = 0, hit_cap = 0;
    st = solve_initial(&s, w[0], &done);
    if (!st && !done) st = iterate(&s, w, &hit_cap);
    st = solve_end(&s, st, hit_cap);
    solve_work_destroy(w, nwork);
    return st;
}
