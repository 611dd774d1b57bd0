/* src/solve/solve_common.c: the solvers' shared part: argument checks, work vectors, the initial
 * residual, the iteration as steps on the backend with the host's checks of the scalar block
 * every m iterations (history, callback, the end; m measured on the GPU), the reasons, the
 * preconditioner, the end of a run. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cuda/gateway.h"
#include "solve/solve_common.h"
#include "solve/solve_tuning.h"
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
    if (o->check_every < 0 || o->check_every > SPX_SOLVE_MAX_CHECK_EVERY)
        return spx_fail(s->ctx, SPX_ERR_ARG, "%s: check_every %d is not 0 (automatic) to %d", s->fn, o->check_every,
                        SPX_SOLVE_MAX_CHECK_EVERY);
    if (o->path != SPX_SOLVE_PATH_AUTO && o->path != SPX_SOLVE_PATH_GRAPH && o->path != SPX_SOLVE_PATH_PERSISTENT)
        return spx_fail(s->ctx, SPX_ERR_ARG, "%s: path %d is not auto, graph or persistent", s->fn, (int)o->path);
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
                         .backend = info.backend, .precision = info.precision, .fused = 1, .plan = A};
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

/* ---- the scalar block on the host: its start, the reasons ---- */

/* The block before the initial residual: the options, iteration 1 to come, no record yet. */
static void scalars_start(solve_scalars *sc, const solve_run *s)
{
    memset(sc, 0, sizeof *sc);
    sc->tol = s->o.tol;
    sc->max_iter = s->o.max_iter;
    sc->k = 1;
    sc->status = SOLVE_RUNNING;
    sc->rec_k = -1;
}

/* The name of the scalar a fault names, as the reasons print it. */
static const char *fault_name(int f)
{
    switch (f) {
    case SOLVE_FAULT_BNORM: return "||b||";
    case SOLVE_FAULT_REL: return "||r||/||b||";
    case SOLVE_FAULT_RZ: return "(r, z)";
    case SOLVE_FAULT_PQ: return "p'Ap";
    case SOLVE_FAULT_RHO: return "rho = (r0^, r)";
    case SOLVE_FAULT_RV: return "(r0^, v)";
    case SOLVE_FAULT_SNORM: return "||s||";
    case SOLVE_FAULT_TT: return "(t, t)";
    case SOLVE_FAULT_TS: return "(t, s)";
    default: return "a scalar";
    }
}

/* The reason of a breakdown (status st, the block's fault) into buf. */
static void breakdown_reason(const solve_scalars *sc, int st, char *buf, size_t len)
{
    const int k = sc->fault_k;
    const double v = sc->fault_v;
    if (st == SPX_SOLVE_BREAKDOWN_NONFINITE)
        snprintf(buf, len, "%s = %g at iteration %d: NaN or Inf in A, b, x0 or the preconditioner, or an overflow",
                 fault_name(sc->fault), v, k);
    else if (st == SPX_SOLVE_BREAKDOWN_PAP)
        snprintf(buf, len, "p'Ap = %.3e <= 0 at iteration %d: A is not symmetric positive definite", v, k);
    else if (st == SPX_SOLVE_BREAKDOWN_RHO && sc->fault == SOLVE_FAULT_RZ)
        snprintf(buf, len, "(r, z) = %.3e <= 0 at iteration %d: the preconditioner is not positive definite", v, k);
    else if (st == SPX_SOLVE_BREAKDOWN_RHO)
        snprintf(buf, len,
                 "rho = (r0^, r) = %.3e at iteration %d, 0 to rounding (|rho| <= eps ||r0^|| ||r|| = %.3e): r is "
                 "orthogonal to the shadow residual",
                 v, k, sc->fault_w);
    else if (st == SPX_SOLVE_BREAKDOWN_RV)
        snprintf(buf, len, "(r0^, v) = 0 at iteration %d: alpha is undefined", k);
    else if (sc->fault == SOLVE_FAULT_TS) /* with BREAKDOWN_OMEGA: (t, t) = 0 */
        snprintf(buf, len, "t = A s^ = 0 with s != 0 at iteration %d: A or the preconditioner is singular", k);
    else
        snprintf(buf, len, "omega = (t, s) / (t, t) = 0 at iteration %d: the iteration stagnates", k);
}

/* The result from the final block: status, reason, counts (the callback's stop at record
 * stop_k, -1 none, wins over whatever came after that record). */
static void scalars_result(const solve_scalars *sc, int stop_k, spx_solve_result *r)
{
    r->iterations = sc->rec_k > 0 ? sc->rec_k : 0;
    r->rel_residual = sc->rel;
    r->spmvs += sc->spmvs;
    const int st = sc_running(sc) ? SPX_SOLVE_MAX_ITER : sc->status;
    if (stop_k >= 0 && !(sc->by_record && sc->rec_k == stop_k)) {
        r->status = SPX_SOLVE_STOPPED;
        snprintf(r->reason, sizeof r->reason, "at iteration %d (||r||/||b|| = %.3e)", stop_k, sc->ring[stop_k % SOLVE_RING]);
        return;
    }
    r->status = (spx_solve_status)st;
    if (st == SPX_SOLVE_CONVERGED)
        snprintf(r->reason, sizeof r->reason, "||r||/||b|| = %.3e <= tol %.3e after %d iterations", sc->rel, sc->tol, sc->rec_k);
    else if (st == SPX_SOLVE_MAX_ITER)
        snprintf(r->reason, sizeof r->reason, "||r||/||b|| = %.3e > tol %.3e after %d iterations (the cap)", sc->rel, sc->tol,
                 r->iterations);
    else
        breakdown_reason(sc, st, r->reason, sizeof r->reason);
}

/* ---- the host's checks ---- */

/* The host's reads of the scalar block during one solve. */
typedef struct solve_checks {
    int m;             /* iterations between two checks */
    int fixed;         /* m is the caller's (or 1: a callback, the CPU): no shorter batch near the end */
    int launched;      /* iterations launched */
    int seen;          /* the last record taken (history, callback); -1 none */
    int stop_k;        /* the record the callback stopped at; -1 none */
    int last_k, prev_k; /* the last record at the last two checks (-1 none), for the decay */
    double last_rel, prev_rel;
    int count; /* checks made */
} solve_checks;

/* Takes the records after ch->seen from the block's ring into the history and the callback
 * (which sees every record; its first stop is kept). */
static void take_records(solve_run *s, solve_checks *ch, const solve_scalars *sc)
{
    for (int k = ch->seen + 1; k <= sc->rec_k && ch->stop_k < 0; k++) {
        const double rel = sc->ring[k % SOLVE_RING];
        if (k < s->o.history_cap) {
            s->o.history[k] = rel;
            s->res->history_len = k + 1;
        }
        if (s->o.callback && s->o.callback(s->o.user, k, rel)) ch->stop_k = k;
        ch->seen = k;
    }
    if (sc->rec_k > ch->last_k) {
        ch->prev_k = ch->last_k;
        ch->prev_rel = ch->last_rel;
        ch->last_k = sc->rec_k;
        ch->last_rel = sc->rel;
    }
}

/* The host's check: the device's block copied back (CUDA), its new records taken; *done = 1
 * once the solve has ended or the callback stopped it. */
static spx_status check(solve_iter *it, solve_checks *ch, int *done)
{
    spx_status st = it->dev ? spx_solve_cuda_get(it->dev) : SPX_OK;
    if (st) return st;
    ch->count++;
    take_records(it->s, ch, it->sc);
    *done = !sc_running(it->sc) || ch->stop_k >= 0;
    return SPX_OK;
}

/* Iterations between checks so that one check (t_check seconds, the device idle meanwhile)
 * costs at most SOLVE_CHECK_SHARE of the t_iter-second iterations between two. */
static int check_interval(double t_check, double t_iter)
{
    if (!(t_iter > 0.0)) return SPX_SOLVE_MAX_CHECK_EVERY;
    const double m = ceil(t_check / (SOLVE_CHECK_SHARE * t_iter));
    return m < 1.0 ? 1 : m > SPX_SOLVE_MAX_CHECK_EVERY ? SPX_SOLVE_MAX_CHECK_EVERY : (int)m;
}

/* The next batch of iterations: m, or (automatic m) fewer where the residual's decay between
 * the last two checks says the tolerance comes sooner (at least m / SOLVE_TAIL_DIV, so a wrong
 * guess costs a few checks, no more); never past the cap. */
static int next_batch(const solve_checks *ch, const solve_scalars *sc)
{
    int b = ch->m;
    if (!ch->fixed && ch->prev_k >= 0 && ch->last_rel < ch->prev_rel && ch->last_rel > sc->tol && ch->prev_rel > 0.0) {
        const double decay = log(ch->last_rel / ch->prev_rel) / (ch->last_k - ch->prev_k); /* < 0 */
        const double left = ceil(log(sc->tol / ch->last_rel) / decay);
        const int least = ch->m / SOLVE_TAIL_DIV > 1 ? ch->m / SOLVE_TAIL_DIV : 1;
        if (left < b) b = left < least ? least : (int)left;
    }
    const int left = sc->max_iter - ch->launched;
    return b < left ? b : left;
}

/* Launches count iterations: graph replays, or the method's body. */
static spx_status run_batch(solve_iter *it, int graph, int count, solve_checks *ch)
{
    spx_status st = SPX_OK;
    for (int i = 0; i < count && !st; i++) st = graph ? spx_solve_cuda_replay(it->dev) : it->m->body(it);
    ch->launched += count;
    return st;
}

/* The body as spx_solve_cuda_capture calls it. */
static spx_status body_of(void *arg)
{
    solve_iter *it = arg;
    return it->m->body(it);
}

/* Runs count iterations and checks, timed: *seconds for both. */
static spx_status timed_batch(solve_iter *it, int graph, int count, solve_checks *ch, int *done, double *seconds)
{
    const double t0 = spx_now();
    spx_status st = run_batch(it, graph, count, ch);
    if (!st) st = check(it, ch, done);
    *seconds = spx_now() - t0;
    return st;
}

/* The iterations after the first step, with the checks: on CUDA captured as a graph once and
 * replayed, m measured from a check's own cost (a second read of the block, the stream idle)
 * and a probe of the first iterations. */
static spx_status iterate(solve_iter *it, solve_checks *ch)
{
    int done = 0, graph = 0;
    double t_check = 0.0, t_probe = 0.0;
    spx_status st = SPX_OK;
    SOLVE_TRY(check(it, ch, &done)); /* the first step's outcome */
    if (done) goto done;
    if (!ch->fixed) SOLVE_TRY(timed_batch(it, 0, 0, ch, &done, &t_check)); /* a check's own cost, the stream idle */
    if (it->dev) {
        const double t_graph = spx_now();
        SOLVE_TRY(spx_solve_cuda_capture(it->dev, body_of, it, &graph));
        it->s->res->graph_seconds = spx_now() - t_graph;
    }
    it->s->res->graph = graph;
    if (!ch->fixed) { /* the probe: the first iterations and a check */
        const int left = it->sc->max_iter - ch->launched, probe = left < SOLVE_PROBE_ITERS ? left : SOLVE_PROBE_ITERS;
        SOLVE_TRY(timed_batch(it, graph, probe, ch, &done, &t_probe));
        ch->m = check_interval(t_check, probe > 0 ? (t_probe - t_check) / probe : 0.0);
    }
    while (!done) {
        const int b = next_batch(ch, it->sc);
        if (b <= 0) break;
        SOLVE_TRY(run_batch(it, graph, b, ch));
        SOLVE_TRY(check(it, ch, &done));
    }
done:
    return st;
}

/* The persistent kernel's iterations after the first step (a csr plan): one launch, its device
 * time, the one read of the block and the history copied back by the launch itself. No
 * iteration runs past the end: the kernel stops in the iteration k the block ends in (its
 * SpMVs counted: none when the first step ended the solve). */
static spx_status persist_iterate(solve_iter *it, const solve_persist_job *job, solve_checks *ch)
{
    solve_run *s = it->s;
    spx_status st = solve_persist_launch(it, job, &s->res->kernel_seconds);
    if (st) return st;
    ch->count = 1;
    ch->m = 0;
    ch->launched = it->sc->spmvs > 0 ? it->sc->k : 0;
    ch->seen = it->sc->rec_k;
    const int last = job->history_len - 1 < it->sc->rec_k ? job->history_len - 1 : it->sc->rec_k;
    if (last >= 1) s->res->history_len = last + 1;
    return SPX_OK;
}

/* ---- the run ---- */

/* Records the initial residual rel = ||b - A x0|| / ||b|| as record 0 and takes it (history,
 * callback); *done = 1 when that ends the solve. */
static void record_initial(solve_iter *it, solve_checks *ch, double rel, int *done)
{
    sc_record(it->sc, 0, rel);
    take_records(it->s, ch, it->sc);
    *done = !sc_running(it->sc) || ch->stop_k >= 0;
}

/* ||b||, then r = b - A x and its record as k = 0; *done = 1 when the solve is over already
 * (b = 0: x = 0, converged, *zero set; a non-finite norm; converged or stopped at once). */
static spx_status solve_initial(solve_iter *it, solve_checks *ch, int *done, int *zero)
{
    solve_run *s = it->s;
    spx_vec *r = it->v[SOLVE_V_R];
    spx_status st = SPX_OK;
    *done = 1;
    s->t_iter = spx_now();
    SOLVE_TRY(solve_nrm2(s, s->b, &s->bnorm));
    it->sc->bnorm = s->bnorm;
    if (sc_nonfinite(it->sc, s->bnorm, SOLVE_FAULT_BNORM, 0)) return SPX_OK;
    if (s->bnorm == 0.0) { /* the exact solution, whatever x0 was */
        SOLVE_TRY(spx_vec_fill(s->x, 0.0));
        *zero = 1;
        return SPX_OK;
    }
    SOLVE_TRY(spx_vec_copy(r, s->b));
    SOLVE_TRY(s->sp->apply(s->sp->user, -1.0, s->x, 1.0, r)); /* r = b - A x0 */
    s->res->spmvs = 1;
    SOLVE_TRY(solve_nrm2(s, r, &s->r0norm));
    it->sc->r0norm = s->r0norm;
    record_initial(it, ch, s->r0norm / s->bnorm, done);
done:
    return st;
}

/* The result of b = 0: x = 0 in 0 iterations, converged; no callback. */
static void zero_result(solve_run *s)
{
    spx_solve_result *r = s->res;
    r->status = SPX_SOLVE_CONVERGED;
    snprintf(r->reason, sizeof r->reason, "b = 0, so x = 0 in 0 iterations");
    r->history_len = s->o.history_cap > 0;
    if (s->o.history_cap > 0) s->o.history[0] = 0.0;
}

/* The checks' start: m from the options (a callback: 1; the CPU and the distributed space's
 * host scalars: 1, where a check costs nothing), else measured (CUDA). */
static void checks_start(solve_checks *ch, const solve_run *s, int device)
{
    memset(ch, 0, sizeof *ch);
    ch->seen = ch->stop_k = ch->last_k = ch->prev_k = -1;
    ch->fixed = 1;
    ch->m = 1;
    if (s->o.callback) return;
    if (s->o.check_every > 0)
        ch->m = s->o.check_every;
    else if (device)
        ch->fixed = 0; /* measured in iterate */
}

/* The vectors' data by role. */
static void iter_data(solve_iter *it)
{
    for (int r = 0; r < SOLVE_N_ROLES; r++) it->data[r] = it->v[r] ? spx_vec_data(it->v[r]) : NULL;
}

/* Moves the iteration's scalars to the device (CUDA plans): the block opened there, the host's
 * start copied in and sent; it->sc then the device block's host copy. */
static spx_status to_device(solve_iter *it)
{
    solve_scalars *host = NULL;
    spx_status st = spx_solve_cuda_open(it->s->ctx, it->s->n, &it->dev, &host);
    if (st) return st;
    *host = *it->sc;
    it->sc = host;
    return spx_solve_cuda_put(it->dev);
}

/* The method's iterations from the initial residual on: the first step, then iterate; the
 * result from the final block. */
static spx_status solve_run_method(solve_run *s, const solve_method *m, spx_vec **w)
{
    solve_scalars local;
    solve_iter it = {.s = s, .sc = &local, .m = m};
    solve_checks ch;
    solve_persist_job job;
    const int jacobi = s->o.precond != SPX_PRECOND_NONE;
    int done = 0, zero = 0, persistent = 0;
    spx_status st = SPX_OK;
    it.v[SOLVE_V_X] = s->x;
    it.v[SOLVE_V_D] = (spx_vec *)s->o.inv_diag; /* read only: the steps never write D */
    m->roles(&it, w, jacobi);
    iter_data(&it);
    scalars_start(&local, s);
    checks_start(&ch, s, s->backend == SPX_BACKEND_CUDA && s->sp->fused);
    s->res->iter_vector_bytes = (double)(jacobi ? m->passes_jacobi : m->passes_plain) * (double)s->n *
                                (double)spx_precision_bytes(s->precision);
    SOLVE_TRY(solve_path_pick(&it, &job, &persistent));
    SOLVE_TRY(solve_initial(&it, &ch, &done, &zero));
    if (!done) {
        if (s->backend == SPX_BACKEND_CUDA && s->sp->fused) SOLVE_TRY(to_device(&it));
        SOLVE_TRY(solve_step_run(&it, m->init));
        SOLVE_TRY(persistent ? persist_iterate(&it, &job, &ch) : iterate(&it, &ch));
    }
    if (zero)
        zero_result(s);
    else
        scalars_result(it.sc, ch.stop_k, s->res);
    s->res->check_every = ch.m;
    s->res->checks = ch.count;
    s->res->iterations_run = ch.launched;
done:
    spx_solve_cuda_close(it.dev);
    return st;
}

spx_status solve_step_run(solve_iter *it, solve_step step)
{
    if (it->dev) return spx_solve_cuda_step(it->dev, step, it->s->precision, it->s->n, it->data);
    if (it->s->sp->fused) return solve_cpu_step(it, step);
    return it->m->space_step(it, step);
}

spx_status solve_apply(solve_iter *it, const spx_vec *in, spx_vec *out)
{
    if (!it->dev && !sc_running(it->sc)) return SPX_OK;
    const solve_space *sp = it->s->sp;
    return sp->apply(sp->user, 1.0, in, 0.0, out);
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

/* Ends the run (before its work vectors are freed): the CUDA stream drained, the times;
 * returns st. */
static spx_status solve_end(solve_run *s, spx_status st)
{
    spx_solve_result *r = s->res;
    if (st == SPX_OK && s->backend == SPX_BACKEND_CUDA) st = spx_cuda_sync(s->ctx); /* the last updates of x */
    const double now = spx_now();
    r->seconds = now - s->t_start;
    r->iter_seconds = s->t_iter > 0.0 ? now - s->t_iter : 0.0;
    return st;
}

spx_status solve_drive(const char *fn, const solve_method *m, const solve_space *sp, const spx_vec *b, spx_vec *x,
                       const spx_solve_opts *opts, spx_solve_result *res)
{
    solve_run s;
    spx_vec *w[SOLVE_MAX_WORK] = {NULL};
    spx_status st = solve_begin(&s, fn, sp, b, x, opts, res);
    const int nwork = s.o.precond == SPX_PRECOND_NONE ? m->work_plain : m->work_jacobi;
    if (!st) st = solve_work_create(&s, w, nwork);
    if (sp && sp->agree) st = sp->agree(sp->user, st);
    if (st) {
        solve_work_destroy(w, nwork);
        return st;
    }
    st = solve_end(&s, solve_run_method(&s, m, w));
    solve_work_destroy(w, nwork);
    return st;
}
