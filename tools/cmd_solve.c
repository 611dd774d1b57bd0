/* tools/cmd_solve.c: `spx solve SRC`: solves A x = b (b = A*ones without --rhs) by CG or
 * BiCGSTAB on one format, reports the iterations, the solver's status, the true residual
 * (recomputed by the reference SpMV), the times and, on the GPU, the time per iteration against
 * its floor (the SpMVs back to back plus the iteration's vector bytes at the copy bandwidth,
 * both measured in this run) and after how many iterations the format's plan repays itself
 * against the cuSPARSE baseline (both measured in this run). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dist/cli_dist.h"
#include "svg.h"

/* The residuals the history keeps at most (the first ones; 32 MiB): the solver fills a buffer
 * given up front, so a callback (which makes the GPU solver's host read every iteration) is
 * not needed, and a huge --maxit does not make a huge allocation. */
#define SOLVE_HISTORY_CAP (1 << 22)

/* The residual history: the solver's opts.history. */
typedef struct history {
    double *v;
    int len, cap;
    int failed; /* the buffer could not be had, or the solve ran past its cap: incomplete */
} history;

/* The baseline comparison (CUDA plans of a format other than the baseline). */
typedef struct break_even {
    const char *na;             /* why there is none; NULL when measured */
    char base[64];              /* "cusparse/alg1" */
    double plan_fmt, plan_base; /* seconds, by the bench protocol */
    double spmv_fmt, spmv_base; /* seconds per SpMV: batch (back-to-back) times */
    double iterations;          /* to repay the extra plan time; 0 at once; -1 never */
} break_even;

/* The floor of a GPU iteration (issue 49): the format's SpMV back to back (the bench protocol's
 * batch time, this run) times the SpMVs per iteration, plus the bytes the iteration's vector
 * steps move at the device's copy bandwidth (this run). */
typedef struct floor_fig {
    const char *na;   /* why there is none; NULL when measured */
    double spmv_s;    /* one SpMV back to back */
    double call_s;    /* one SpMV called alone (the bench protocol's call time) */
    double bw;        /* device copy bandwidth, bytes/s */
    double vector_s;  /* the iteration's vector bytes / bw */
    double floor_s;   /* spmvs per iteration * spmv_s + vector_s */
} floor_fig;

/* Everything `spx solve` reports. */
typedef struct solve_report {
    const char *src, *method, *precond;
    int32_t m;
    int64_t nnz;
    double tol;
    int maxit;
    int check_every; /* --check-every (0: automatic) */
    spx_solve_path path; /* --solver-path (auto, graph, persistent) */
    int have_rhs;
    spx_plan_info plan;
    double precond_s; /* building the Jacobi vector */
    spx_solve_result res;
    double true_rel; /* ||b - A x|| / ||b|| by the reference SpMV */
    double max_err;  /* max |x - 1| without --rhs; NaN with it */
    history hist;
    break_even be;
    floor_fig fl;
} solve_report;

/* The history buffer for up to maxit iterations (k = 0 to maxit), at most SOLVE_HISTORY_CAP. */
static void history_make(history *h, int maxit)
{
    h->cap = maxit < SOLVE_HISTORY_CAP ? maxit + 1 : SOLVE_HISTORY_CAP;
    h->v = malloc((size_t)h->cap * sizeof *h->v);
    if (!h->v) h->cap = 0, h->failed = 1;
}

/* Checks the solve options (method, preconditioner) and fills their report fields. */
static int check_options(const cli_opts *o, solve_report *rep)
{
    if (cli_solve_choice(o, &rep->method, &rep->precond)) return CLI_ERROR;
    rep->tol = o->tol > 0 ? o->tol : SPX_SOLVE_DEFAULT_TOL;
    rep->maxit = o->maxit > 0 ? o->maxit : SPX_SOLVE_DEFAULT_MAX_ITER;
    rep->check_every = o->check_every;
    rep->path = o->solver_path;
    return CLI_OK;
}

/* Reads the array vector at path (the library's strict reader) into out[0..want); a file of
 * another length is refused naming option, file and both lengths. */
static int read_vector(spx_ctx *ctx, const char *opt, const char *path, int64_t want, double *out)
{
    int64_t n = 0;
    double *v = NULL;
    spx_status s = spx_vec_read_mtx(ctx, path, &n, &v);
    if (s) return cli_fail(ctx, opt, s); /* the message names the file and line */
    if (n == want) memcpy(out, v, (size_t)n * sizeof *out);
    spx_free(ctx, v);
    if (n == want) return CLI_OK;
    return cli_error("%s %s: the vector has %lld entries, the matrix has %lld rows", opt, path, (long long)n,
                     (long long)want);
}

/* b (from --rhs, else A*ones by the reference SpMV) and x0 (from --x0, else 0) on the host. */
static int host_vectors(spx_ctx *ctx, const spx_csr *A, const cli_opts *o, double *b, double *x0)
{
    if (o->rhs_path) {
        if (read_vector(ctx, "--rhs", o->rhs_path, A->m, b)) return CLI_ERROR;
    } else {
        for (int32_t i = 0; i < A->m; i++) x0[i] = 1.0;
        spx_csr_spmv_ref(A, 1.0, x0, 0.0, b);
    }
    if (o->x0_path) return read_vector(ctx, "--x0", o->x0_path, A->m, x0);
    memset(x0, 0, (size_t)A->m * sizeof *x0);
    return CLI_OK;
}

/* A vector of the plan's backend and precision holding host[0..n). */
static spx_status device_vector(spx_ctx *ctx, const spx_plan_info *p, const double *host, spx_vec **out)
{
    spx_status s = spx_vec_create(ctx, p->backend, p->precision, p->m, out);
    return s ? s : spx_vec_set(*out, host);
}

/* out[i] = v[perm[i]] (into the plan's numbering) or, with back, out[perm[i]] = v[i] (out of
 * it), i < m. */
static void permute_vector(const int32_t *perm, const double *v, double *out, int32_t m, int back)
{
    for (int32_t i = 0; i < m; i++) {
        if (back)
            out[perm[i]] = v[i];
        else
            out[i] = v[perm[i]];
    }
}

/* Runs the solver on the plan: b and x0 uploaded (in the plan's numbering when it keeps
 * vectors in its own order; scratch: m doubles), Jacobi built when asked, x back in x_host. */
static int run_solver(spx_ctx *ctx, const spx_csr *A, spx_plan *plan, const double *b_host, double *x_host,
                      double *scratch, solve_report *rep)
{
    spx_vec *b = NULL, *x = NULL, *d = NULL;
    history_make(&rep->hist, rep->maxit);
    spx_solve_opts so = {.tol = rep->tol, .max_iter = rep->maxit, .history = rep->hist.v, .history_cap = rep->hist.cap,
                         .check_every = rep->check_every, .path = rep->path};
    const char *what = "solve";
    const int32_t *perm = NULL;
    spx_plan_permutation(plan, &perm);
    if (perm) permute_vector(perm, b_host, scratch, A->m, 0);
    spx_status s = device_vector(ctx, &rep->plan, perm ? scratch : b_host, &b);
    if (perm) permute_vector(perm, x_host, scratch, A->m, 0);
    if (!s) s = device_vector(ctx, &rep->plan, perm ? scratch : x_host, &x);
    if (!s && !strcmp(rep->precond, "jacobi")) {
        const double t0 = spx_wtime();
        what = rep->src;
        s = spx_solve_inv_diag(ctx, A, plan, &d);
        rep->precond_s = spx_wtime() - t0;
        so.precond = SPX_PRECOND_JACOBI;
        so.inv_diag = d;
    }
    if (!s) {
        what = "solve";
        s = !strcmp(rep->method, "cg") ? spx_solve_cg(plan, b, x, &so, &rep->res)
                                       : spx_solve_bicgstab(plan, b, x, &so, &rep->res);
    }
    if (!s) s = spx_vec_get(x, perm ? scratch : x_host);
    if (!s && perm) permute_vector(perm, scratch, x_host, A->m, 1);
    rep->hist.len = rep->res.history_len;
    if (rep->hist.len == rep->hist.cap && rep->res.iterations + 1 > rep->hist.cap) rep->hist.failed = 1; /* cut short */
    spx_vec_destroy(&b);
    spx_vec_destroy(&x);
    spx_vec_destroy(&d);
    return s ? cli_fail(ctx, what, s) : CLI_OK;
}

/* The true relative residual ||b - A x|| / ||b|| (extended precision) and, for b = A*ones, the
 * largest |x_i - 1|. y is scratch of m entries. */
static void check_solution(const spx_csr *A, const double *b, const double *x, double *y, solve_report *rep)
{
    spx_csr_spmv_ref(A, 1.0, x, 0.0, y);
    rep->true_rel = spx_rel_error(y, SPX_FP64, b, A->m);
    rep->max_err = NAN;
    if (rep->have_rhs) return;
    rep->max_err = 0.0;
    for (int32_t i = 0; i < A->m; i++) {
        const double e = fabs(x[i] - 1.0);
        if (!(e <= rep->max_err)) rep->max_err = e; /* NaN sticks */
    }
}

/* Plans and times one format (the bench protocol: verified, batch times; vectors in order, as
 * the solve had them) into *r; 0 on failure. */
static int bench_one(spx_ctx *ctx, const spx_bench_case *c, const char *format, const char *algo, spx_precision p,
                     spx_vector_order order, spx_bench_result *r)
{
    spx_plan_opts po = {.format = format, .algo = algo, .backend = SPX_BACKEND_CUDA, .precision = p, .order = order};
    spx_bench_opts bo = {.plan_reps = 1};
    if (spx_bench_spmv(ctx, c, &po, &bo, r) != SPX_OK || r->status || !r->verified || !(r->t_batch > 0)) {
        fprintf(stderr, "warning: timing %s/%s for the break-even failed: %s\n", format, algo,
                r->status ? r->msg : spx_ctx_last_error(ctx));
        return 0;
    }
    return 1;
}

/* Iterations after which the format's extra plan time is repaid by its faster SpMVs
 * (spmvs_per_iter of them per iteration): 0 at once, -1 never. */
static double repay_iterations(const break_even *be, int spmvs_per_iter)
{
    const double extra = be->plan_fmt - be->plan_base, gain = (be->spmv_base - be->spmv_fmt) * spmvs_per_iter;
    if (extra <= 0) return 0;
    if (gain <= 0) return -1;
    return ceil(extra / gain);
}

/* SpMVs per iteration of the method. */
static int spmvs_per_iteration(const solve_report *rep) { return strcmp(rep->method, "cg") ? 2 : 1; }

/* The break-even against the baseline (d, algo) from the format's measurement rf: the
 * baseline planned and timed here by the same protocol; be->na says why not. */
static void measure_break_even(spx_ctx *ctx, const spx_bench_case *c, const spx_bench_result *rf, solve_report *rep)
{
    break_even *be = &rep->be;
    spx_format_desc d;
    const char *algo = NULL;
    spx_bench_result rb;
    if (!cli_baseline(&d, &algo) || !d.available || !d.has_cuda)
        be->na = "n/a (no baseline in this build)";
    else if (!strcmp(rep->plan.format, d.name))
        be->na = "n/a (this format is the baseline)";
    else if (!rf)
        be->na = "n/a (the timing failed)";
    if (be->na) return;
    snprintf(be->base, sizeof be->base, "%s/%s", d.name, algo);
    if (!bench_one(ctx, c, d.name, algo, rep->plan.precision, SPX_ORDER_CALLER, &rb)) {
        be->na = "n/a (the timing failed)";
        return;
    }
    be->plan_fmt = rf->plan.plan_seconds;
    be->plan_base = rb.plan.plan_seconds;
    be->spmv_fmt = rf->t_batch;
    be->spmv_base = rb.t_batch;
    be->iterations = repay_iterations(be, spmvs_per_iteration(rep));
}

/* The floor of an iteration from the format's measurement rf and the copy bandwidth measured
 * here; fl->na says why not. */
static void measure_floor(spx_ctx *ctx, const spx_bench_result *rf, solve_report *rep)
{
    floor_fig *fl = &rep->fl;
    if (!rf) {
        fl->na = "n/a (the SpMV timing failed)";
        return;
    }
    if (spx_bench_device_bandwidth(ctx, &fl->bw) != SPX_OK || !(fl->bw > 0)) {
        fl->na = "n/a (the copy bandwidth could not be measured)";
        return;
    }
    fl->spmv_s = rf->t_batch;
    fl->call_s = rf->t_median;
    fl->vector_s = rep->res.iter_vector_bytes / fl->bw;
    fl->floor_s = spmvs_per_iteration(rep) * fl->spmv_s + fl->vector_s;
}

/* On the GPU, after the solve: the format planned and timed again by the bench protocol (the
 * floor's SpMV), the copy bandwidth, and the baseline for the break-even; on the CPU the
 * floor and the break-even are n/a. */
static void measure_after(spx_ctx *ctx, const spx_csr *A, solve_report *rep)
{
    spx_bench_case *c = NULL;
    spx_bench_result rf;
    if (rep->plan.backend != SPX_BACKEND_CUDA) {
        rep->be.na = "n/a (no baseline on the CPU)";
        rep->fl.na = "n/a (measured on the GPU only)";
        return;
    }
    const int ok = spx_bench_case_create(ctx, A, 1, &c) == SPX_OK &&
                   bench_one(ctx, c, rep->plan.format, rep->plan.algo, rep->plan.precision,
                             rep->plan.plan_order ? SPX_ORDER_PLAN : SPX_ORDER_CALLER, &rf);
    measure_floor(ctx, ok ? &rf : NULL, rep);
    if (c) measure_break_even(ctx, c, ok ? &rf : NULL, rep);
    else rep->be.na = "n/a (the timing failed)";
    spx_bench_case_destroy(&c);
}

/* Seconds per iteration of the solve, NaN without iterations: the persistent kernel's device
 * time (CUDA events around its one launch), else the iteration phase less the one capture of
 * the iteration as a CUDA graph (reported on its own: graph_s). */
static double per_iteration(const solve_report *rep)
{
    const spx_solve_result *r = &rep->res;
    if (r->iterations <= 0) return NAN;
    if (r->path == SPX_SOLVE_PATH_PERSISTENT) return r->kernel_seconds / r->iterations;
    return (r->iter_seconds - r->graph_seconds) / r->iterations;
}

/* The whole time: plan, preconditioner, solve. */
static double total_seconds(const solve_report *rep) { return rep->plan.plan_seconds + rep->precond_s + rep->res.seconds; }

/* The break-even line of the text report. */
static void print_break_even(const solve_report *rep)
{
    const break_even *be = &rep->be;
    if (be->na) {
        printf("break-even  %s\n", be->na);
        return;
    }
    printf("break-even  ");
    if (be->iterations < 0)
        printf("never: the SpMV is not faster than %s's", be->base);
    else if (be->iterations == 0)
        printf("at once: the plan is not slower than %s's", be->base);
    else
        printf("%.0f iterations vs %s (this solve: %d, %s)", be->iterations, be->base, rep->res.iterations,
               rep->res.iterations >= be->iterations ? "repaid" : "not repaid");
    printf("\n            plan %.3f ms vs %.3f ms; SpMV %.6f ms vs %.6f ms (batch times, this run)\n", be->plan_fmt * 1e3,
           be->plan_base * 1e3, be->spmv_fmt * 1e3, be->spmv_base * 1e3);
}

/* The per-iteration time against its floor. */
static void print_floor(const solve_report *rep)
{
    const floor_fig *fl = &rep->fl;
    if (fl->na) {
        printf("floor       %s\n", fl->na);
        return;
    }
    printf("floor       %.6f ms per iteration = %d x SpMV %.6f ms (back to back; %.6f ms alone) + vectors %.0f bytes at "
           "%.1f GB/s (device copy); both this run\n",
           fl->floor_s * 1e3, spmvs_per_iteration(rep), fl->spmv_s * 1e3, fl->call_s * 1e3, rep->res.iter_vector_bytes,
           fl->bw * 1e-9);
    if (rep->res.iterations > 0) printf("            per iteration %.2fx the floor\n", per_iteration(rep) / fl->floor_s);
}

/* How the iterations ran: the persistent kernel, or the graph and the host's reads of the
 * scalars; and why that path. */
static void print_path(const solve_report *rep)
{
    const spx_solve_result *r = &rep->res;
    char every[48] = "every iteration";
    if (r->check_every > 1) snprintf(every, sizeof every, "every %d iterations", r->check_every);
    if (r->path == SPX_SOLVE_PATH_PERSISTENT)
        printf("path        persistent: the whole solve one cooperative kernel; scalars on the device, read once at the "
               "end (%d reads; %d iterations run)\n"
               "            the kernel %.3f ms (device time, the time per iteration's)\n",
               r->checks, r->iterations_run, r->kernel_seconds * 1e3);
    else if (rep->plan.backend == SPX_BACKEND_CUDA)
        printf("path        %s; scalars on the device, read %s (%d reads; %d iterations run, %d past the end)\n"
               "            the graph's capture %.3f ms, once (left out of the time per iteration)\n",
               r->graph ? "each iteration a replayed CUDA graph" : "plain launches (the SpMV could not be captured)", every,
               r->checks, r->iterations_run, r->iterations_run - r->iterations, r->graph_seconds * 1e3);
    else
        printf("path        fused OpenMP steps, scalars read %s\n", every);
    if (rep->plan.backend == SPX_BACKEND_CUDA) printf("            %s path: %s\n", spx_solve_path_str(r->path), r->path_reason);
}

/* The readable report on stdout. */
static void print_text(const solve_report *rep)
{
    const spx_plan_info *p = &rep->plan;
    const spx_solve_result *r = &rep->res;
    printf("matrix      %s (%d x %d, %lld nnz)\n", rep->src, rep->m, rep->m, (long long)rep->nnz);
    printf("solver      %s, precond %s, tol %.3g, maxit %d; b = %s\n", rep->method, rep->precond, rep->tol, rep->maxit,
           rep->have_rhs ? "--rhs" : "A*ones (exact x = ones)");
    printf("format      %s/%s  kernel %s  backend %s  precision %s\n", p->format, p->algo, p->kernel, spx_backend_str(p->backend),
           spx_precision_str(p->precision));
    printf("status      %s: %s\n", spx_solve_status_str(r->status), r->reason);
    printf("iterations  %d (%d SpMVs)\n", r->iterations, r->spmvs);
    printf("residual    true ||b - Ax||/||b|| = %.3e (reference SpMV); recursive %.3e\n", rep->true_rel, r->rel_residual);
    if (!rep->have_rhs) printf("max error   |x - 1| = %.3e\n", rep->max_err);
    printf("time        total %.3f ms = plan %.3f ms", total_seconds(rep) * 1e3, p->plan_seconds * 1e3);
    if (rep->precond_s > 0) printf(" + jacobi %.3f ms", rep->precond_s * 1e3);
    printf(" + solve %.3f ms; ", r->seconds * 1e3);
    if (r->iterations > 0)
        printf("%.6f ms per iteration\n", per_iteration(rep) * 1e3);
    else
        printf("no iterations\n");
    print_floor(rep);
    print_path(rep);
    print_break_even(rep);
}

/* The history as a JSON array. */
static void json_history(FILE *f, const history *h)
{
    fputc('[', f);
    for (int i = 0; i < h->len; i++) {
        if (i) fputc(',', f);
        if (isfinite(h->v[i]))
            fprintf(f, "%.9g", h->v[i]);
        else
            fputs("null", f);
    }
    fputc(']', f);
}

/* The break-even figures as JSON members (null where not measured). */
static void json_break_even(FILE *f, int *first, const break_even *be)
{
    const double na = NAN;
    json_kv_str(f, first, "baseline", be->na ? "" : be->base);
    json_kv_num(f, first, "plan_s_format", be->na ? na : be->plan_fmt);
    json_kv_num(f, first, "plan_s_baseline", be->na ? na : be->plan_base);
    json_kv_num(f, first, "t_spmv_s_format", be->na ? na : be->spmv_fmt);
    json_kv_num(f, first, "t_spmv_s_baseline", be->na ? na : be->spmv_base);
    json_kv_num(f, first, "break_even_iterations", be->na ? na : be->iterations);
    json_kv_str(f, first, "break_even_note", be->na ? be->na : "");
}

/* The floor and the iteration path as JSON members (null where not measured). */
static void json_floor(FILE *f, int *first, const solve_report *rep)
{
    const floor_fig *fl = &rep->fl;
    const spx_solve_result *r = &rep->res;
    const double na = NAN;
    json_kv_num(f, first, "floor_s", fl->na ? na : fl->floor_s);
    json_kv_num(f, first, "floor_spmv_s", fl->na ? na : fl->spmv_s);
    json_kv_num(f, first, "floor_vector_s", fl->na ? na : fl->vector_s);
    json_kv_num(f, first, "t_spmv_call_s", fl->na ? na : fl->call_s);
    json_kv_num(f, first, "copy_bandwidth_bytes_per_s", fl->na ? na : fl->bw);
    json_kv_num(f, first, "iter_over_floor", fl->na || r->iterations <= 0 ? na : per_iteration(rep) / fl->floor_s);
    json_kv_str(f, first, "floor_note", fl->na ? fl->na : "");
    json_kv_num(f, first, "iter_vector_bytes", r->iter_vector_bytes);
    json_kv_int(f, first, "graph", r->graph);
    json_kv_num(f, first, "graph_s", r->graph_seconds);
    json_kv_int(f, first, "check_every", r->check_every);
    json_kv_int(f, first, "checks", r->checks);
    json_kv_int(f, first, "iterations_run", r->iterations_run);
    json_kv_str(f, first, "path", spx_solve_path_str(r->path));
    json_kv_str(f, first, "path_reason", r->path_reason);
    json_kv_num(f, first, "kernel_s", r->kernel_seconds);
}

/* The report's figures as JSON members. */
static void json_members(FILE *f, int *first, const solve_report *rep)
{
    const spx_plan_info *p = &rep->plan;
    const spx_solve_result *r = &rep->res;
    json_kv_str(f, first, "op", "solve");
    json_kv_str(f, first, "matrix", rep->src);
    json_kv_int(f, first, "m", rep->m);
    json_kv_int(f, first, "nnz", rep->nnz);
    json_kv_str(f, first, "method", rep->method);
    json_kv_str(f, first, "precond", rep->precond);
    json_kv_num(f, first, "tol", rep->tol);
    json_kv_int(f, first, "maxit", rep->maxit);
    json_kv_str(f, first, "rhs", rep->have_rhs ? "file" : "A*ones");
    json_kv_str(f, first, "format", p->format);
    json_kv_str(f, first, "algo", p->algo);
    json_kv_str(f, first, "kernel", p->kernel);
    json_kv_str(f, first, "order", p->plan_order ? "plan" : "caller");
    json_kv_str(f, first, "backend", spx_backend_str(p->backend));
    json_kv_str(f, first, "precision", spx_precision_str(p->precision));
    json_kv_str(f, first, "status", spx_solve_status_str(r->status));
    json_kv_int(f, first, "converged", r->status == SPX_SOLVE_CONVERGED);
    json_kv_str(f, first, "reason", r->reason);
    json_kv_int(f, first, "iterations", r->iterations);
    json_kv_int(f, first, "spmvs", r->spmvs);
    json_kv_num(f, first, "rel_residual_recursive", r->rel_residual);
    json_kv_num(f, first, "rel_residual_true", rep->true_rel);
    json_kv_num(f, first, "max_error", rep->max_err);
    json_kv_num(f, first, "plan_s", p->plan_seconds);
    json_kv_num(f, first, "precond_s", rep->precond_s);
    json_kv_num(f, first, "solve_s", r->seconds);
    json_kv_num(f, first, "iter_s", per_iteration(rep));
    json_kv_num(f, first, "total_s", total_seconds(rep));
    json_floor(f, first, rep);
    json_break_even(f, first, &rep->be);
}

/* Writes {"env": ..., "result": {..., "history": [...]}} to path through a temporary file. */
static int write_json(spx_ctx *ctx, const char *path, const solve_report *rep)
{
    char tmp[4096];
    FILE *f = cli_open_out(path, tmp, sizeof tmp);
    if (!f) return CLI_ERROR;
    int first = 1;
    fputs("{\"env\":", f);
    json_env(f, ctx, rep->plan.backend, 0, 0);
    fputs(",\"result\":{", f);
    json_members(f, &first, rep);
    json_key(f, &first, "history");
    json_history(f, &rep->hist);
    fputs("}}\n", f);
    return cli_commit_out(f, tmp, path);
}

/* Writes {"matrix", "method", "precond", "history": [...]} to path through a temporary file. */
static int write_history(const char *path, const solve_report *rep)
{
    char tmp[4096];
    FILE *f = cli_open_out(path, tmp, sizeof tmp);
    if (!f) return CLI_ERROR;
    int first = 1;
    fputc('{', f);
    json_kv_str(f, &first, "matrix", rep->src);
    json_kv_str(f, &first, "method", rep->method);
    json_kv_str(f, &first, "precond", rep->precond);
    json_key(f, &first, "history");
    json_history(f, &rep->hist);
    fputs("}\n", f);
    return cli_commit_out(f, tmp, path);
}

/* The residual history ||r_k|| / ||b|| against k as an SVG line chart (log scale). */
static int write_plot(const char *path, const solve_report *rep)
{
    const int n = rep->hist.len;
    double *k = malloc((size_t)(n > 0 ? n : 1) * sizeof *k);
    if (!k) return cli_error("out of memory for the residual plot");
    for (int i = 0; i < n; i++) k[i] = i;
    char title[512], name[64];
    snprintf(title, sizeof title, "%s: %s%s, %d x %d", rep->src, rep->method,
             strcmp(rep->precond, "none") ? " + jacobi" : "", rep->m, rep->m);
    snprintf(name, sizeof name, "%s/%s", rep->plan.format, rep->plan.algo);
    const svg_series line = {name, k, rep->hist.v, n};
    const int rc = svg_line_chart(path, title, "iteration", "||r|| / ||b||", 1, &line, 1);
    free(k);
    return rc;
}

/* The outputs asked for: -o x, --json, --history, --plot. */
static int write_outputs(spx_ctx *ctx, const cli_opts *o, const double *x, const solve_report *rep)
{
    if (o->plot_path && write_plot(o->plot_path, rep)) return CLI_ERROR;
    if (o->out_path && cli_write_vector(ctx, o->out_path, rep->m, x)) return CLI_ERROR;
    if (o->json_path && write_json(ctx, o->json_path, rep)) return CLI_ERROR;
    if (o->history_path && write_history(o->history_path, rep)) return CLI_ERROR;
    if (rep->hist.failed && !rep->hist.v) fprintf(stderr, "warning: out of memory for the residual history: none written\n");
    else if (rep->hist.failed)
        fprintf(stderr, "warning: the residual history holds only its first %d entries\n", rep->hist.len);
    return CLI_OK;
}

/* Plans A (format, algorithm, backend, precision of the options) into *plan and rep->plan. */
static int make_plan(spx_ctx *ctx, const spx_csr *A, const cli_opts *o, spx_plan **plan, solve_report *rep)
{
    const int auto_fmt = !o->format || !strcmp(o->format, "auto");
    spx_plan_opts po = {.format = auto_fmt ? NULL : o->format, .algo = o->algo, .backend = o->backend,
                        .precision = o->precision, .order = o->order};
    spx_status s = spx_plan_create(ctx, A, &po, plan);
    if (!s) s = spx_plan_get_info(*plan, &rep->plan);
    return s ? cli_fail(ctx, "plan", s) : CLI_OK;
}

/* Loads, plans, solves, checks and reports; A, the host arrays and the plan are freed here. */
static int solve_source(spx_ctx *ctx, const cli_opts *o, solve_report *rep)
{
    spx_csr *A = NULL;
    spx_plan *plan = NULL;
    double *b = NULL, *x = NULL, *y = NULL;
    int rc = cli_load(ctx, o->positional[0], o, &A);
    if (!rc && A->m != A->n) rc = cli_error("%s: a solve needs a square matrix, this one is %d x %d", rep->src, A->m, A->n);
    if (!rc) {
        rep->m = A->m;
        rep->nnz = A->nnz;
        const size_t len = (size_t)(A->m > 0 ? A->m : 1);
        b = malloc(len * sizeof *b), x = malloc(len * sizeof *x), y = malloc(len * sizeof *y);
        if (!b || !x || !y) rc = cli_error("out of memory for the vectors of %d entries", A->m);
    }
    if (!rc) rc = host_vectors(ctx, A, o, b, x);
    if (!rc) rc = make_plan(ctx, A, o, &plan, rep);
    if (!rc) rc = run_solver(ctx, A, plan, b, x, y, rep);
    spx_plan_destroy(&plan); /* before the baseline's plans: the device memory back */
    if (!rc) {
        check_solution(A, b, x, y, rep);
        measure_after(ctx, A, rep);
        print_text(rep);
        rc = write_outputs(ctx, o, x, rep);
    }
    if (!rc && rep->res.status != SPX_SOLVE_CONVERGED) rc = CLI_VERIFY_FAILED;
    free(b);
    free(x);
    free(y);
    spx_csr_destroy(&A);
    return rc;
}

/* The usage, for --help. */
static int print_help(void)
{
    printf("usage: spx solve SRC [--rhs FILE] [--x0 FILE] [--method cg|bicgstab] [--precond none|jacobi] [--tol T]\n"
           "       [--maxit N] [--format F|auto] [--algo A] [--backend cpu|cuda|auto] [--precision fp64|fp32]\n"
           "       [-o X.mtx] [--json FILE] [--history FILE.json] [--plot FILE.svg] [--threads N] [--strict]\n"
           "       [--order caller|plan (plan: the iteration in the plan's numbering, e.g. ehyb's)]\n"
           "       [--check-every N (the host reads the solver's scalars every N iterations; default: measured)]\n"
           "       [--solver-path auto|graph|persistent (CUDA: each iteration a replayed graph, or on csr the whole\n"
           "        solve one cooperative kernel; auto: the kernel on csr plans of at most 2^21 nonzeros)]\n"
           "Solves A x = b (b = A*ones without --rhs, so x = ones) from x0 (0 without --x0) until\n"
           "||r||/||b|| <= T (default %g) or N iterations (default %d). Vectors are Matrix Market arrays\n"
           "(m rows, 1 column). Exit 0 converged, 1 not converged (the report is still printed and\n"
           "written), 2 bad usage or input. docs/solvers.md has the details.\n",
           SPX_SOLVE_DEFAULT_TOL, SPX_SOLVE_DEFAULT_MAX_ITER);
    return CLI_OK;
}

int cmd_solve(int argc, char **argv)
{
    if (argc == 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) return print_help();
    if (cli_has_flag(argc, argv, 2, "--distributed")) return cli_dist_solve(argc, argv);
    cli_opts o = {0};
    if (cli_parse(argc, argv, 2,
                  "--rhs: --x0: --method: --precond: --tol: --maxit: --check-every: --solver-path: --format: --algo: --backend: --precision: --order: --threads: "
                  "--strict -o: --json: --history: --plot:",
                  &o))
        return CLI_ERROR;
    if (o.n_positional != 1) return cli_error("usage: spx solve SRC [options] (see `spx --help`)");
    solve_report rep = {.src = o.positional[0], .have_rhs = o.rhs_path != NULL};
    if (check_options(&o, &rep) || cli_check_outputs(&o)) return CLI_ERROR;
    spx_ctx *ctx = cli_ctx(&o);
    if (!ctx) return CLI_ERROR;
    const int rc = solve_source(ctx, &o, &rep);
    free(rep.hist.v);
    spx_ctx_destroy(&ctx);
    return rc;
}
