/* tools/dist/cmd_dist.c: `mpirun -np P spx spmv|solve SRC --distributed`: the matrix read or
 * generated in parallel (spx_dist_load), the distributed SpMV timed or the distributed solver
 * run, the usual report on rank 0 with a per-rank table (rows, nonzeros, ghost columns,
 * neighbours, halo bytes, compute, exchange and wait times, and the scaling model's prediction
 * beside them: docs/distributed.md), verified against the serial result computed on rank 0
 * (--partition metis renumbers the rows: vectors are mapped by their original indices).
 * Every rank returns the same exit code; errors are printed by every rank, identically. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dist/cli_dist.h"
#include "spx/dist/dist.h"

#define DIST_STR2(x) #x
#define DIST_STR(x) DIST_STR2(x)

/* One rank's line of the table (doubles only, gathered as MPI_DOUBLE). */
typedef struct rank_row {
    double rows, nnz, ghosts, send_nb, recv_nb, halo_bytes, local_bytes, mem_bw;
    double compute_s, exchange_s, wait_s; /* per SpMV */
} rank_row;
#define RANK_ROW_DOUBLES ((int)(sizeof(rank_row) / sizeof(double)))

/* The run: MPI, this rank, the context, the options, the matrix and the link's figures. */
typedef struct dist_run {
    int rank, size;
    cli_opts o;
    spx_ctx *ctx;
    spx_dist_matrix *A;
    spx_dist_info info;
    int64_t *orig; /* the original global row of each local row (spx_dist_get_rows) */
    double link_bw, latency; /* ranks 0-1 over the matrix's transport (0 with one rank) */
} dist_run;

const char *cli_dist_status(void)
{
    return "built (MPI " DIST_STR(MPI_VERSION) "." DIST_STR(MPI_SUBVERSION) ")";
}

/* Every rank's code agreed: the largest (an error on any rank is every rank's). */
static int agree_rc(int rc)
{
    int all = rc;
    MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return all;
}

/* x[i] for global index i: deterministic, in [-1, 1], the same whatever the rank count. */
static double x_value(int64_t i)
{
    return (double)((uint64_t)(i + 1) * 2654435761u % 2001u) / 1000.0 - 1.0;
}

/* The OpenMP threads of one rank: the node's processors over the ranks on it (at least 1), so
 * that ranks sharing a node do not oversubscribe it. Collective. */
static int node_share_threads(void)
{
    MPI_Comm node;
    int ranks = 1;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &ranks);
    MPI_Comm_free(&node);
    const int t = omp_get_num_procs() / ranks;
    return t > 0 ? t : 1;
}

/* MPI, the options, the context (one GPU per rank for CUDA), the matrix and, with model, the
 * link's figures: CLI_OK, or the code every rank returns after printing the same error. */
static int dist_begin(int argc, char **argv, const char *allowed, int model, dist_run *r)
{
    int inited = 0, provided = 0;
    setvbuf(stderr, NULL, _IOLBF, 0); /* one write per line: the ranks' lines never interleave */
    MPI_Initialized(&inited);
    if (!inited) MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &r->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &r->size);
    int rc = cli_parse(argc, argv, 2, allowed, &r->o);
    if (!r->o.threads) r->o.threads = node_share_threads(); /* ranks sharing a node share its cores */
    if (!rc && r->o.n_positional != 1) rc = cli_error("usage: mpirun -np P spx %s SRC --distributed [options]", argv[1]);
    r->o.device = spx_dist_device(MPI_COMM_WORLD);
    if (!rc && !(r->ctx = cli_ctx(&r->o))) rc = CLI_ERROR;
    if ((rc = agree_rc(rc))) return rc;
    spx_plan_opts po = {.format = r->o.format, .algo = r->o.algo, .backend = r->o.backend, .precision = r->o.precision};
    spx_dist_opts dopts = {.partition = r->o.partition};
    spx_status s = spx_dist_load_ex(MPI_COMM_WORLD, r->ctx, r->o.positional[0], &po, &dopts, &r->A);
    if (s) return agree_rc(cli_fail(r->ctx, r->o.positional[0], s));
    if (r->o.transport && (s = spx_dist_set_transport(r->A, r->o.transport)))
        return agree_rc(cli_fail(r->ctx, "--transport", s));
    spx_dist_get_info(r->A, &r->info);
    if (agree_rc(!(r->orig = malloc((size_t)(r->info.nrows ? r->info.nrows : 1) * sizeof *r->orig))))
        return cli_error("--distributed: no memory for the row map");
    spx_dist_get_rows(r->A, r->orig);
    if (model && !r->o.no_model && (s = spx_dist_measure_link(r->A, &r->latency, &r->link_bw)))
        return agree_rc(cli_fail(r->ctx, "link", s));
    return CLI_OK;
}

/* Frees the run and finalizes MPI; returns rc. */
static int dist_end(dist_run *r, int rc)
{
    free(r->orig);
    spx_dist_destroy(&r->A);
    spx_ctx_destroy(&r->ctx);
    MPI_Finalize();
    return rc;
}

/* This rank's line of the table: its sizes, its halo, its bytes and bandwidth, its times per
 * SpMV since the last reset. */
static rank_row my_row(const dist_run *r, double mem_bw, double local_bytes)
{
    spx_dist_times t;
    spx_dist_get_times(r->A, &t);
    const double k = t.spmvs ? (double)t.spmvs : 1.0;
    return (rank_row){.rows = (double)r->info.nrows, .nnz = (double)r->info.nnz, .ghosts = (double)r->info.ghosts,
                      .send_nb = r->info.send_neighbours, .recv_nb = r->info.recv_neighbours,
                      .halo_bytes = 8.0 * (double)(r->info.send_values + r->info.recv_values), .local_bytes = local_bytes,
                      .mem_bw = mem_bw, .compute_s = t.compute_s / k, .exchange_s = t.exchange_s / k, .wait_s = t.wait_s / k};
}

/* The model's time per SpMV of one rank: local bytes / memory bandwidth + halo bytes (sent,
 * one way) / link bandwidth + latency per neighbour message. */
static double model_s(const dist_run *r, const rank_row *w)
{
    double t = w->mem_bw > 0 ? w->local_bytes / w->mem_bw : 0.0;
    if (r->link_bw > 0) t += 0.5 * w->halo_bytes / r->link_bw + r->latency * (w->send_nb > w->recv_nb ? w->send_nb : w->recv_nb);
    return t;
}

/* Gathers every rank's line to rank 0 and prints the table there, with the model. */
static void print_table(const dist_run *r, const rank_row *mine)
{
    rank_row *all = r->rank == 0 ? calloc((size_t)r->size, sizeof *all) : NULL;
    MPI_Gather(mine, RANK_ROW_DOUBLES, MPI_DOUBLE, all, RANK_ROW_DOUBLES, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (!all) return;
    if (r->link_bw > 0)
        printf("link        latency %.2f us, bandwidth %.2f GB/s (ranks 0-1, over the transport above: %s)\n",
               r->latency * 1e6, r->link_bw * 1e-9, r->info.backend == SPX_BACKEND_CUDA && r->o.transport && !strcmp(r->o.transport, "nccl")
                   ? "NCCL exchanges of device buffers" : "MPI ping-pong");
    printf("%4s %10s %12s %8s %7s %10s %10s %9s %10s %10s %9s %10s\n", "rank", "rows", "nnz", "ghosts", "nbrs", "halo B",
           "local MB", "mem GB/s", "compute ms", "exch ms", "wait ms", "model ms");
    for (int k = 0; k < r->size; k++) {
        const rank_row *w = &all[k];
        char model[32] = "-";
        if (w->mem_bw > 0) snprintf(model, sizeof model, "%.4f", model_s(r, w) * 1e3);
        printf("%4d %10.0f %12.0f %8.0f %3.0f/%-3.0f %10.0f %10.3f %9.2f %10.4f %10.4f %9.4f %10s\n", k, w->rows, w->nnz,
               w->ghosts, w->send_nb, w->recv_nb, w->halo_bytes, w->local_bytes * 1e-6, w->mem_bw * 1e-9,
               w->compute_s * 1e3, w->exchange_s * 1e3, w->wait_s * 1e3, model);
    }
    free(all);
}

/* The matrix's global x (all n entries) into x (n doubles). */
static void global_x(int64_t n, double *x)
{
    for (int64_t i = 0; i < n; i++) x[i] = x_value(i);
}

/* Gathers the local parts y (info.nrows each) into all (m entries) on rank 0, each value at its
 * original row (r->orig); returns 0 when rank 0 had no memory for it. Collective. */
static int gather_rows(const dist_run *r, const double *y, double *all)
{
    const size_t m = (size_t)(r->info.m ? r->info.m : 1);
    int *cnt = r->rank == 0 ? calloc((size_t)r->size, sizeof *cnt) : NULL, *disp = r->rank == 0 ? calloc((size_t)r->size, sizeof *disp) : NULL;
    double *val = r->rank == 0 ? malloc(m * sizeof *val) : NULL;
    int64_t *row = r->rank == 0 ? malloc(m * sizeof *row) : NULL;
    const int ok = agree_rc(r->rank == 0 && (!cnt || !disp || !val || !row)) == 0;
    int mine = (int)r->info.nrows;
    if (ok) {
        MPI_Gather(&mine, 1, MPI_INT, cnt, 1, MPI_INT, 0, MPI_COMM_WORLD);
        for (int k = 1; cnt && k < r->size; k++) disp[k] = disp[k - 1] + cnt[k - 1];
        MPI_Gatherv(y, mine, MPI_DOUBLE, val, cnt, disp, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        MPI_Gatherv(r->orig, mine, MPI_INT64_T, row, cnt, disp, MPI_INT64_T, 0, MPI_COMM_WORLD);
        for (int64_t k = 0; r->rank == 0 && k < r->info.m; k++) all[row[k]] = val[k];
    }
    free(cnt);
    free(disp);
    free(val);
    free(row);
    return ok;
}

/* Rank 0: the serial matrix (spx_load, as `spx spmv` reads it) for the checks; NULL elsewhere.
 * The code agreed. */
static int serial_matrix(const dist_run *r, spx_csr **A)
{
    int rc = CLI_OK;
    if (r->rank == 0) rc = cli_load(r->ctx, r->o.positional[0], &r->o, A);
    return agree_rc(rc);
}

/* Local vectors of the matrix's backend: *x (info.ncols, set to x_value of its global
 * indices) and *y (info.nrows); the status agreed. */
static spx_status make_xy(const dist_run *r, spx_vec **x, spx_vec **y)
{
    const spx_backend b = r->info.backend;
    double *h = malloc((size_t)(r->info.ncols ? r->info.ncols : 1) * sizeof *h);
    spx_status s = h ? SPX_OK : SPX_ERR_NOMEM;
    for (int64_t i = 0; h && i < r->info.ncols; i++) /* a square matrix's x is mapped like its rows */
        h[i] = x_value(r->info.m == r->info.n ? r->orig[i] : r->info.col_lo + i);
    if (!s) s = spx_vec_create(r->ctx, b, SPX_FP64, r->info.ncols, x);
    if (!s) s = spx_vec_set(*x, h);
    if (!s) s = spx_vec_create(r->ctx, b, SPX_FP64, r->info.nrows, y);
    free(h);
    return agree_rc(s) ? SPX_ERR_ARG : SPX_OK;
}

/* The time per SpMV of reps calls back to back (the slowest rank's), the times reset first. */
static double time_spmvs(dist_run *r, spx_vec *x, spx_vec *y, int reps, int *failed)
{
    int bad = 0;
    for (int k = 0; k < 3; k++) bad |= spx_dist_spmv(r->A, 1.0, x, 0.0, y) != SPX_OK;
    spx_dist_reset_times(r->A);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (int k = 0; k < reps; k++) bad |= spx_dist_spmv(r->A, 1.0, x, 0.0, y) != SPX_OK;
    double sync = 0.0; /* a reduction waits for a CUDA stream: the last product is in the time */
    bad |= spx_vec_nrm2(y, &sync) != SPX_OK;
    double t = (MPI_Wtime() - t0) / reps, tmax = t;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    *failed = agree_rc(bad);
    return tmax;
}

/* Rank 0: the relative error of the gathered y against the serial reference y = A x. */
static double check_spmv(const dist_run *r, const spx_csr *A, const double *yall)
{
    double *x = malloc((size_t)(A->n ? A->n : 1) * sizeof *x), *ref = malloc((size_t)(A->m ? A->m : 1) * sizeof *ref);
    double err = INFINITY;
    if (x && ref) {
        global_x(A->n, x);
        spx_csr_spmv_ref(A, 1.0, x, 0.0, ref);
        err = spx_rel_error(yall, SPX_FP64, ref, A->m);
    }
    free(x);
    free(ref);
    return err;
}

/* The largest model time over the ranks (rank 0, from the gathered lines). */
static double model_max(const dist_run *r, const rank_row *mine)
{
    double t = model_s(r, mine), tmax = t;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    return tmax;
}

/* The header lines of both reports (rank 0). */
static void print_head(const dist_run *r)
{
    const spx_dist_info *i = &r->info;
    printf("matrix      %s (%lld x %lld) on %d ranks, %s\n", r->o.positional[0], (long long)i->m, (long long)i->n, r->size,
           strcmp(i->partition, "metis") ? "rows balanced to equal nonzeros"
                                         : "rows in METIS parts (k-way, nonzero-weighted), renumbered into blocks");
    printf("blocks      rank 0: diagonal %s, off-diagonal %s  backend %s  precision fp64\n", i->format_diag, i->format_offd,
           spx_backend_str(i->backend));
    printf("transport   %s\n", i->transport);
}

int cli_dist_spmv(int argc, char **argv)
{
    dist_run r = {0};
    int rc = dist_begin(argc, argv, "--distributed --no-model --transport: --partition: --format: --algo: --backend: --precision: --reps: --threads:", 1, &r);
    if (rc) return dist_end(&r, rc);
    spx_vec *x = NULL, *y = NULL;
    spx_csr *S = NULL;
    double *yh = NULL, *yall = NULL;
    int failed = 0;
    if (make_xy(&r, &x, &y)) {
        rc = agree_rc(cli_error("spmv --distributed: cannot make the vectors"));
        goto done;
    }
    const double t = time_spmvs(&r, x, y, r.o.reps ? r.o.reps : 50, &failed);
    if (failed) {
        rc = agree_rc(cli_fail(r.ctx, "spmv --distributed", SPX_ERR_ARG));
        goto done;
    }
    MPI_Barrier(MPI_COMM_WORLD); /* every rank measures its share of the memory bandwidth at once */
    const rank_row mine = my_row(&r, r.o.no_model ? 0.0 : cli_measure_bandwidth(r.ctx, r.info.backend), r.info.bytes_per_spmv);
    yh = malloc((size_t)(r.info.nrows ? r.info.nrows : 1) * sizeof *yh);
    if (r.rank == 0) yall = malloc((size_t)(r.info.m ? r.info.m : 1) * sizeof *yall);
    if (agree_rc(!yh || (r.rank == 0 && !yall) || spx_vec_get(y, yh))) {
        rc = agree_rc(cli_error("spmv --distributed: cannot gather y"));
        goto done;
    }
    if (!gather_rows(&r, yh, yall)) {
        rc = agree_rc(cli_error("spmv --distributed: cannot gather y"));
        goto done;
    }
    if ((rc = serial_matrix(&r, &S))) goto done;
    double err = r.rank == 0 ? check_spmv(&r, S, yall) : 0.0;
    const int verified = err <= 1e-12;
    double nnz = (double)r.info.nnz, nnz_all = nnz;
    MPI_Allreduce(&nnz, &nnz_all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    const double model = model_max(&r, &mine);
    if (r.rank == 0) {
        print_head(&r);
        printf("time        %.6f ms per SpMV (the slowest rank; %d back-to-back calls)  GFLOPS %.3f\n", t * 1e3,
               r.o.reps ? r.o.reps : 50, 2.0 * nnz_all / t * 1e-9);
        if (!r.o.no_model)
            printf("model       %.6f ms per SpMV (the slowest rank's local bytes / memory bandwidth + halo / link + latency x "
                   "neighbours)\n", model * 1e3);
    }
    print_table(&r, &mine);
    if (r.rank == 0) {
        printf("rel error   %.3e against the serial y = A*x\n", err);
        printf("verified: %s\n", verified ? "yes" : "no");
    }
    int v = verified;
    MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    rc = v ? CLI_OK : CLI_VERIFY_FAILED;
done:
    free(yh);
    free(yall);
    spx_csr_destroy(&S);
    spx_vec_destroy(&x);
    spx_vec_destroy(&y);
    return dist_end(&r, rc);
}

/* The solve's settings from the options: method, preconditioner, tolerance, iteration cap. */
typedef struct solve_setup {
    const char *method, *precond;
    spx_solve_opts so;
} solve_setup;

/* Checks --method and --precond and fills s; prints the error. */
static int solve_options(const cli_opts *o, solve_setup *s)
{
    if (cli_solve_choice(o, &s->method, &s->precond)) return CLI_ERROR;
    s->so = (spx_solve_opts){.tol = o->tol, .max_iter = o->maxit,
                             .precond = strcmp(s->precond, "jacobi") ? SPX_PRECOND_NONE : SPX_PRECOND_JACOBI};
    return CLI_OK;
}

/* Rank 0: the serial solve of the same system (b = A*ones, x0 = 0, the same options, format
 * and backend) into x (A->n entries) and *res. */
static int serial_solve(spx_ctx *ctx, const spx_csr *A, const cli_opts *o, const solve_setup *s, double *x, spx_solve_result *res)
{
    spx_plan *p = NULL;
    spx_vec *bv = NULL, *xv = NULL, *d = NULL;
    double *ones = malloc((size_t)(A->n ? A->n : 1) * sizeof *ones), *b = malloc((size_t)(A->m ? A->m : 1) * sizeof *b);
    spx_plan_opts po = {.format = o->format, .algo = o->algo, .backend = o->backend};
    spx_status st = ones && b ? spx_plan_create(ctx, A, &po, &p) : SPX_ERR_NOMEM;
    for (int64_t i = 0; !st && i < A->n; i++) ones[i] = 1.0;
    if (!st) spx_csr_spmv_ref(A, 1.0, ones, 0.0, b);
    spx_plan_info pi;
    if (!st) st = spx_plan_get_info(p, &pi);
    if (!st) st = spx_vec_create(ctx, pi.backend, SPX_FP64, A->m, &bv);
    if (!st) st = spx_vec_set(bv, b);
    if (!st) st = spx_vec_create(ctx, pi.backend, SPX_FP64, A->n, &xv);
    spx_solve_opts so = s->so;
    if (!st && so.precond == SPX_PRECOND_JACOBI && !(st = spx_solve_inv_diag(ctx, A, p, &d))) so.inv_diag = d;
    if (!st) st = !strcmp(s->method, "cg") ? spx_solve_cg(p, bv, xv, &so, res) : spx_solve_bicgstab(p, bv, xv, &so, res);
    if (!st) st = spx_vec_get(xv, x);
    free(ones);
    free(b);
    spx_vec_destroy(&d);
    spx_vec_destroy(&xv);
    spx_vec_destroy(&bv);
    spx_plan_destroy(&p);
    return st ? cli_fail(ctx, "serial solve", st) : CLI_OK;
}

/* The global ||v|| of local parts (for the true residual). */
static double global_norm(const spx_vec *v)
{
    double n = 0.0, s = 0.0;
    spx_vec_nrm2(v, &n);
    n *= n;
    MPI_Allreduce(&n, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sqrt(s);
}

/* b = A*ones and x = 0 (local parts), r scratch; then the solve into *res: the status agreed. */
static spx_status run_solve(dist_run *r, const solve_setup *s, spx_vec *b, spx_vec *x, spx_vec *w, spx_solve_result *res)
{
    spx_vec *d = NULL;
    spx_solve_opts so = s->so;
    spx_status st = spx_vec_fill(w, 1.0);
    if (!st) st = spx_dist_spmv(r->A, 1.0, w, 0.0, b);
    if (!st) st = spx_vec_fill(x, 0.0);
    if (agree_rc(st)) return SPX_ERR_ARG;
    if (so.precond == SPX_PRECOND_JACOBI) {
        if ((st = spx_dist_inv_diag(r->A, &d))) return st;
        so.inv_diag = d;
    }
    spx_dist_reset_times(r->A);
    st = !strcmp(s->method, "cg") ? spx_dist_solve_cg(r->A, b, x, &so, res) : spx_dist_solve_bicgstab(r->A, b, x, &so, res);
    spx_vec_destroy(&d);
    return st;
}

int cli_dist_solve(int argc, char **argv)
{
    dist_run r = {0};
    solve_setup s;
    int rc = dist_begin(argc, argv,
                        "--distributed --transport: --partition: --method: --precond: --tol: --maxit: --format: --algo: --backend: --threads:", 0, &r);
    if (!rc) rc = agree_rc(solve_options(&r.o, &s));
    if (!rc && r.info.m != r.info.n)
        rc = agree_rc(cli_error("%s: a solve needs a square matrix, this one is %lld x %lld", r.o.positional[0],
                                (long long)r.info.m, (long long)r.info.n));
    if (rc) return dist_end(&r, rc);
    spx_vec *b = NULL, *x = NULL, *w = NULL;
    spx_csr *S = NULL;
    double *xh = NULL, *xall = NULL, *xs = NULL;
    spx_solve_result res = {0}, sres = {0};
    const spx_backend be = r.info.backend;
    spx_status st = spx_vec_create(r.ctx, be, SPX_FP64, r.info.nrows, &b);
    if (!st) st = spx_vec_create(r.ctx, be, SPX_FP64, r.info.nrows, &x);
    if (!st) st = spx_vec_create(r.ctx, be, SPX_FP64, r.info.nrows, &w);
    if (agree_rc(st) || (st = run_solve(&r, &s, b, x, w, &res))) {
        rc = agree_rc(cli_fail(r.ctx, "solve --distributed", st ? st : SPX_ERR_NOMEM));
        goto done;
    }
    const rank_row mine = my_row(&r, 0.0, r.info.bytes_per_spmv);
    /* the true residual ||b - A x|| / ||b|| */
    spx_vec_copy(w, b);
    spx_dist_spmv(r.A, -1.0, x, 1.0, w);
    const double bnorm = global_norm(b), true_rel = bnorm > 0 ? global_norm(w) / bnorm : 0.0;
    xh = malloc((size_t)(r.info.nrows ? r.info.nrows : 1) * sizeof *xh);
    if (r.rank == 0) {
        xall = malloc((size_t)(r.info.m ? r.info.m : 1) * sizeof *xall);
        xs = malloc((size_t)(r.info.m ? r.info.m : 1) * sizeof *xs);
    }
    if (agree_rc(!xh || (r.rank == 0 && (!xall || !xs)) || spx_vec_get(x, xh))) {
        rc = agree_rc(cli_error("solve --distributed: cannot gather x"));
        goto done;
    }
    if (!gather_rows(&r, xh, xall)) {
        rc = agree_rc(cli_error("solve --distributed: cannot gather x"));
        goto done;
    }
    if ((rc = serial_matrix(&r, &S)) || (rc = agree_rc(r.rank == 0 ? serial_solve(r.ctx, S, &r.o, &s, xs, &sres) : CLI_OK)))
        goto done;
    const double xdiff = r.rank == 0 ? spx_rel_error(xall, SPX_FP64, xs, r.info.m) : 0.0;
    const double tol = res.status == SPX_SOLVE_CONVERGED ? s.so.tol : 0.0;
    const int slack = sres.iterations / 20 > 2 ? sres.iterations / 20 : 2;
    int verified = res.status == SPX_SOLVE_CONVERGED && sres.status == SPX_SOLVE_CONVERGED &&
                   true_rel <= 10.0 * (tol > 0 ? tol : SPX_SOLVE_DEFAULT_TOL) && abs(res.iterations - sres.iterations) <= slack;
    if (r.rank == 0) {
        print_head(&r);
        printf("solver      %s, preconditioner %s\n", s.method, s.precond);
        printf("result      %s: %s\n", spx_solve_status_str(res.status), res.reason);
        printf("iterations  %d (%d SpMVs), serial %d\n", res.iterations, res.spmvs, sres.iterations);
        printf("residual    %.3e recursive, %.3e true (||b - A x|| / ||b||)\n", res.rel_residual, true_rel);
        printf("time        %.3f ms, %.4f ms per iteration\n", res.iter_seconds * 1e3,
               res.iterations ? res.iter_seconds * 1e3 / res.iterations : 0.0);
        printf("vs serial   ||x - x_serial|| / ||x_serial|| = %.3e\n", xdiff);
    }
    print_table(&r, &mine);
    if (r.rank == 0) printf("verified: %s\n", verified ? "yes" : "no");
    MPI_Bcast(&verified, 1, MPI_INT, 0, MPI_COMM_WORLD);
    rc = res.status != SPX_SOLVE_CONVERGED || !verified ? CLI_VERIFY_FAILED : CLI_OK;
done:
    free(xh);
    free(xall);
    free(xs);
    spx_csr_destroy(&S);
    spx_vec_destroy(&w);
    spx_vec_destroy(&x);
    spx_vec_destroy(&b);
    return dist_end(&r, rc);
}
