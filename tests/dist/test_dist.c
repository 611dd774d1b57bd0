/* tests/dist/test_dist.c: the distributed module against the serial library, run by CTest under
 * mpiexec with 1 to 4 ranks (tests/dist/CMakeLists.txt): the parallel reader gives exactly the
 * serial CSR rows for every shared matrix and every file of tests/data/good, and fails on every
 * bad file of tests/data/bad with the serial reader's status and message on every rank;
 * distributed SpMV equals the serial product on generated and shared matrices and on the edge
 * cases (more ranks than rows, no ghost columns, every column a ghost, rectangular, a dense row
 * and a dense column); CG and BiCGSTAB (with and without Jacobi) match the serial solvers. The
 * metis partition (when the build has METIS, else skipped with the reason): SpMV and CG equal
 * the serial ones through the row map, every row is held once, the R-MAT halo is not larger
 * than the row blocks', and the refusals (rectangular, unknown name) agree on every rank. */
#define _POSIX_C_SOURCE 200809L /* access */
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "spx/dist/dist.h"
#include "spx/spx.h"

static int rank_, size_;
/* The backend every plan and vector runs on: CPU, or CUDA when SPX_TEST_DIST_BACKEND=cuda (the
 * GPU machine: ranks share its GPUs, spx_dist_device). */
static spx_backend be_ = SPX_BACKEND_CPU;
/* The halo's transport for the SpMV and solver checks: SPX_TEST_DIST_TRANSPORT (nccl with CUDA
 * on the GPU machine), else the default (MPI). */
static const char *transport_;

/* Whether every rank passed b (so the ranks agree on what to check next). */
static int all_true(int b)
{
    int all = 0;
    MPI_Allreduce(&b, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all;
}

/* Whether every rank holds the same string s (compared with rank 0's). */
static int same_everywhere(const char *s)
{
    char buf[512] = {0};
    snprintf(buf, sizeof buf, "%s", s);
    MPI_Bcast(buf, sizeof buf, MPI_CHAR, 0, MPI_COMM_WORLD);
    return all_true(strncmp(buf, s, sizeof buf - 1) == 0);
}

/* Whether local (rows lo..) equals those rows of the serial A exactly: pattern and bits. */
static int rows_equal(const spx_csr *A, int64_t lo, const spx_csr *local)
{
    if (local->n != A->n || lo + local->m > A->m) return 0;
    const int64_t base = A->rowptr[lo];
    for (int64_t i = 0; i <= local->m; i++)
        if (local->rowptr[i] != A->rowptr[lo + i] - base) return 0;
    return local->nnz == 0 || (memcmp(local->colind, A->colind + base, (size_t)local->nnz * sizeof *A->colind) == 0 &&
                               memcmp(local->val, A->val + base, (size_t)local->nnz * sizeof *A->val) == 0);
}

/* Files above this many bytes are left out of the reads when the test runs with "small" (the
 * ASan build: the small files cross every line and chunk boundary as well, in a fraction of
 * the time). */
static long max_file_bytes = -1;

/* The files of folder dir whose names end in .mtx or .mtx.gz (sorted; NULL-terminated; free
 * with free_list), within max_file_bytes when it is set. */
static char **list_mtx(const char *dir)
{
    char **v = calloc(1024, sizeof *v);
    int n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && v && n < 1023 && (e = readdir(d));) {
        const size_t l = strlen(e->d_name);
        if ((l > 4 && !strcmp(e->d_name + l - 4, ".mtx")) || (l > 7 && !strcmp(e->d_name + l - 7, ".mtx.gz"))) {
            v[n] = malloc(strlen(dir) + l + 2);
            sprintf(v[n], "%s/%s", dir, e->d_name);
            struct stat sb;
            if (max_file_bytes < 0 || stat(v[n], &sb) != 0 || sb.st_size <= max_file_bytes) {
                n++;
                continue;
            }
            free(v[n]);
            v[n] = NULL;
        }
    }
    if (d) closedir(d);
    for (int i = 1; i < n; i++) /* insertion sort: every rank the same order */
        for (int j = i; j > 0 && strcmp(v[j - 1], v[j]) > 0; j--) {
            char *t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return v;
}

static void free_list(char **v)
{
    for (int i = 0; v && v[i]; i++) free(v[i]);
    free(v);
}

/* The parallel read of every file in dir equals the serial read, rows by rows, on every rank. */
static void check_reads(spx_ctx *ctx, const char *dir)
{
    char **files = list_mtx(dir);
    int n = 0;
    for (int i = 0; files && files[i]; i++, n++) {
        spx_csr *A = NULL, *local = NULL;
        int64_t lo = -1;
        spx_status s1 = spx_mtx_read(ctx, files[i], NULL, &A, NULL);
        spx_status s2 = spx_dist_read_csr(MPI_COMM_WORLD, ctx, files[i], &lo, &local);
        CHECK_MSG(s1 == SPX_OK && s2 == SPX_OK, "%s: serial %d, distributed %d: %s", files[i], s1, s2, spx_ctx_last_error(ctx));
        if (!s1 && !s2) CHECK_MSG(rows_equal(A, lo, local), "%s: rank %d's rows from %lld differ from the serial read", files[i], rank_, (long long)lo);
        int64_t rows = local ? local->m : 0, all = 0;
        MPI_Allreduce(&rows, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        CHECK_MSG(!A || all == A->m, "%s: the ranks hold %lld rows of %d", files[i], (long long)all, A ? A->m : -1);
        spx_csr_destroy(&A);
        spx_csr_destroy(&local);
    }
    if (rank_ == 0) printf("parallel read == serial read: %d files of %s on %d ranks\n", n, dir, size_);
    free_list(files);
}

/* Every bad file fails the parallel read on every rank with the serial reader's status and
 * message (and nothing hangs: CTest's timeout stands guard). */
static void check_bad_reads(spx_ctx *ctx, const char *dir)
{
    char **files = list_mtx(dir);
    for (int i = 0; files && files[i]; i++) {
        spx_csr *A = NULL, *local = NULL;
        int64_t lo = 0;
        char serial[512];
        spx_status s1 = spx_mtx_read(ctx, files[i], NULL, &A, NULL);
        snprintf(serial, sizeof serial, "%s", spx_ctx_last_error(ctx));
        spx_status s2 = spx_dist_read_csr(MPI_COMM_WORLD, ctx, files[i], &lo, &local);
        const char *msg = spx_ctx_last_error(ctx);
        if (s1 == SPX_OK) { /* accepted by default (e.g. duplicates): then both must agree */
            CHECK_MSG(s2 == SPX_OK && rows_equal(A, lo, local), "%s: serial accepts it, distributed %d", files[i], s2);
        } else {
            CHECK_MSG(s2 == s1 && !strcmp(msg, serial), "%s: serial %d '%s', distributed %d '%s'", files[i], s1, serial, s2, msg);
            CHECK_MSG(same_everywhere(msg), "%s: the ranks' messages differ", files[i]);
        }
        spx_csr_destroy(&A);
        spx_csr_destroy(&local);
    }
    free_list(files);
}

/* The global rows of D's local rows (spx_dist_get_rows; malloc'd, in.nrows entries). */
static int64_t *local_rows(spx_dist_matrix *D, const spx_dist_info *in)
{
    int64_t *g = malloc(((size_t)in->nrows + 1) * sizeof *g);
    CHECK(g && spx_dist_get_rows(D, g) == SPX_OK);
    return g;
}

/* v's entries at the global indices idx[0..n) into out (a local part from a global vector). */
static void pick(const double *v, const int64_t *idx, int64_t n, double *out)
{
    for (int64_t i = 0; i < n; i++) out[i] = v[idx[i]];
}

/* y = A x distributed against the serial oracle for the global A; x[i] = a function of i; the
 * local parts mapped by spx_dist_get_rows (x too when square, else by col_lo). */
static int spmv_matches(spx_ctx *ctx, const spx_csr *A, spx_dist_matrix *D, const char *what)
{
    spx_dist_info in;
    spx_dist_get_info(D, &in);
    double *x = malloc(((size_t)A->n + 1) * sizeof *x), *ref = malloc(((size_t)A->m + 1) * sizeof *ref);
    double *y = malloc(((size_t)in.nrows + 1) * sizeof *y), *xl = malloc(((size_t)in.ncols + 1) * sizeof *xl);
    int64_t *rows = local_rows(D, &in);
    for (int64_t i = 0; i < A->n; i++) x[i] = sin(0.37 * (double)i) + 0.25;
    spx_csr_spmv_ref(A, 1.0, x, 0.0, ref);
    if (A->m == A->n) pick(x, rows, in.ncols, xl);
    else memcpy(xl, x + in.col_lo, (size_t)in.ncols * sizeof *xl);
    spx_vec *xv = NULL, *yv = NULL;
    CHECK_OK(ctx, spx_vec_create(ctx, be_, SPX_FP64, in.ncols, &xv));
    CHECK_OK(ctx, spx_vec_create(ctx, be_, SPX_FP64, in.nrows, &yv));
    CHECK_OK(ctx, spx_vec_set(xv, xl));
    CHECK_OK(ctx, spx_vec_fill(yv, NAN)); /* b = 0 must not read y */
    CHECK_OK(ctx, spx_dist_spmv(D, 1.0, xv, 0.0, yv));
    CHECK_OK(ctx, spx_dist_spmv(D, 0.5, xv, 0.5, yv)); /* y = 0.5 A x + 0.5 A x */
    CHECK_OK(ctx, spx_vec_get(yv, y));
    double e2 = 0.0, r2 = 0.0, loc[2], all[2];
    for (int64_t i = 0; i < in.nrows; i++) {
        e2 += (y[i] - ref[rows[i]]) * (y[i] - ref[rows[i]]);
        r2 += ref[rows[i]] * ref[rows[i]];
    }
    loc[0] = e2;
    loc[1] = r2;
    MPI_Allreduce(loc, all, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    const double rel = all[1] > 0 ? sqrt(all[0] / all[1]) : sqrt(all[0]);
    CHECK_MSG(rel <= 1e-13, "%s: distributed SpMV rel error %.3e on %d ranks", what, rel, size_);
    spx_vec_destroy(&xv);
    spx_vec_destroy(&yv);
    free(x);
    free(xl);
    free(ref);
    free(y);
    free(rows);
    return rel <= 1e-13;
}

/* Whether src can be loaded here: a gen: spec, or a file that exists (../shared may be absent
 * on the GPU machine: its matrices are then skipped, said once on rank 0). */
static int have(const char *src)
{
    if (!strncmp(src, "gen:", 4) || access(src, R_OK) == 0) return 1;
    if (rank_ == 0) printf("skipped: %s (not found)\n", src);
    return 0;
}

/* A from a source, loaded serially and distributed (parallel read or generation): SpMV equal. */
static void check_source(spx_ctx *ctx, const char *src)
{
    if (!have(src)) return;
    spx_csr *A = NULL;
    spx_dist_matrix *D = NULL;
    CHECK_OK(ctx, spx_load(ctx, src, NULL, &A));
    CHECK_OK(ctx, spx_dist_load(MPI_COMM_WORLD, ctx, src, NULL, &D));
    if (D && transport_) CHECK_OK(ctx, spx_dist_set_transport(D, transport_));
    if (A && D) spmv_matches(ctx, A, D, src);
    if (D) { /* the off-diagonal block keeps every row, or only its rows with entries when few */
        spx_dist_info in;
        spx_dist_get_info(D, &in);
        CHECK_MSG(in.offd_rows == in.nrows || 2 * in.offd_rows <= in.nrows, "%s rank %d: %lld off-diagonal rows of %lld", src,
                  rank_, (long long)in.offd_rows, (long long)in.nrows);
        if (!strcmp(src, "gen:poisson3d:n=12") && size_ == 2) /* 144 rows touch the other rank's planes */
            CHECK_MSG(in.offd_rows < in.nrows, "%s rank %d: off-diagonal rows not compressed", src, rank_);
        double lat = -1, bw = -1; /* the link over the matrix's transport: figures with 2+ ranks, zeros alone */
        CHECK_OK(ctx, spx_dist_measure_link(D, &lat, &bw));
        CHECK_MSG(size_ > 1 ? lat > 0 && bw > 0 : lat == 0 && bw == 0, "%s rank %d: link %g s, %g B/s", src, rank_, lat, bw);
    }
    spx_dist_destroy(&D);
    spx_csr_destroy(&A);
}

/* Block plans asked for in plan order (ehyb/grow renumbers its square diagonal blocks) keep the
 * caller's order: the halo and the ranks' vectors use it, so the SpMV still matches. */
static void check_plan_order_ignored(spx_ctx *ctx)
{
    const char *src = "gen:poisson3d:n=12";
    const spx_plan_opts po = {.format = "ehyb", .algo = "grow", .order = SPX_ORDER_PLAN};
    spx_csr *A = NULL;
    spx_dist_matrix *D = NULL;
    CHECK_OK(ctx, spx_load(ctx, src, NULL, &A));
    CHECK_OK(ctx, spx_dist_load(MPI_COMM_WORLD, ctx, src, &po, &D));
    if (A && D) spmv_matches(ctx, A, D, "gen:poisson3d:n=12 (ehyb/grow, plan order asked)");
    spx_dist_destroy(&D);
    spx_csr_destroy(&A);
}

/* The distributed matrix of the rows [start[rank], start[rank+1]) of A (every rank holds A). */
static spx_dist_matrix *from_rows(spx_ctx *ctx, const spx_csr *A, const int64_t *start)
{
    const int64_t lo = start[rank_], hi = start[rank_ + 1];
    int64_t *rp = malloc(((size_t)(hi - lo) + 1) * sizeof *rp);
    for (int64_t i = lo; i <= hi; i++) rp[i - lo] = A->rowptr[i]; /* offsets into A's arrays: rowptr[0] need not be 0 */
    spx_dist_matrix *D = NULL;
    CHECK_OK(ctx, spx_dist_create_from_rows(MPI_COMM_WORLD, ctx, A->n, (int32_t)(hi - lo), rp, A->colind, A->val, NULL, &D));
    free(rp);
    return D;
}

/* A built from triplets (row, col, val) through COO -> CSR. */
static spx_csr *build(spx_ctx *ctx, int32_t m, int32_t n, int64_t nnz, const int32_t *r, const int32_t *c, const double *v)
{
    spx_coo coo = {.m = m, .n = n, .nnz = nnz, .row = (int32_t *)r, .col = (int32_t *)c, .val = (double *)v, .ctx = ctx};
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_coo_to_csr(ctx, &coo, 0, NULL, &A));
    return A;
}

/* Rows in equal blocks (start: size + 1). */
static void equal_rows(int64_t m, int64_t *start)
{
    for (int r = 0; r <= size_; r++) start[r] = m * r / size_;
}

/* A CUDA matrix over MPI with device buffers: taken when every rank's MPI reports CUDA support
 * (then the info names it and the SpMV still matches the serial one), else refused on every
 * rank with the same reason, the matrix left host-staged; "mpi" picks whichever applies. */
static void check_mpi_device(spx_ctx *ctx, spx_dist_matrix *D)
{
    spx_dist_info in;
    const spx_status s = spx_dist_set_transport(D, "mpi-device");
    CHECK_MSG(s == SPX_OK || (s == SPX_ERR_UNSUPPORTED && same_everywhere(spx_ctx_last_error(ctx))), "mpi-device: %s: %s",
              spx_status_str(s), spx_ctx_last_error(ctx));
    if (s) printf("mpi-device refused (expected without a CUDA-aware MPI): %s\n", spx_ctx_last_error(ctx));
    spx_dist_get_info(D, &in);
    CHECK_MSG(strstr(in.transport, s ? "host-staged" : "device buffers") != NULL, "transport %s", in.transport);
    CHECK_OK(ctx, spx_dist_set_transport(D, "mpi-host"));
    spx_dist_get_info(D, &in);
    CHECK(strstr(in.transport, "host-staged") != NULL);
    CHECK_OK(ctx, spx_dist_set_transport(D, "mpi"));
    spx_dist_get_info(D, &in);
    CHECK(strstr(in.transport, s ? "host-staged" : "device buffers") != NULL);
}

/* The §edge cases through spx_dist_create_from_rows. */
static void check_edges(spx_ctx *ctx)
{
    enum { MAXE = 4096 };
    int32_t *r = malloc(MAXE * sizeof *r), *c = malloc(MAXE * sizeof *c);
    double *v = malloc(MAXE * sizeof *v);
    int64_t start[8], k;
    spx_dist_info in;
    /* more ranks than rows: a 2 x 2 matrix, empty ranks beyond the second */
    k = 0;
    r[k] = 0, c[k] = 0, v[k++] = 2.0;
    r[k] = 0, c[k] = 1, v[k++] = -1.0;
    r[k] = 1, c[k] = 0, v[k++] = -1.0;
    r[k] = 1, c[k] = 1, v[k++] = 3.0;
    spx_csr *A = build(ctx, 2, 2, k, r, c, v);
    equal_rows(2, start);
    spx_dist_matrix *D = from_rows(ctx, A, start);
    if (D) spmv_matches(ctx, A, D, "2 x 2 (empty ranks)");
    spx_dist_destroy(&D);
    spx_csr_destroy(&A);
    /* no ghost columns anywhere: a diagonal matrix */
    k = 0;
    for (int i = 0; i < 12; i++) r[k] = i, c[k] = i, v[k++] = 1.0 + i;
    A = build(ctx, 12, 12, k, r, c, v);
    equal_rows(12, start);
    D = from_rows(ctx, A, start);
    if (D) {
        spx_dist_get_info(D, &in);
        CHECK(in.ghosts == 0 && in.send_neighbours == 0 && in.recv_neighbours == 0);
        spmv_matches(ctx, A, D, "diagonal (no ghosts)");
    }
    spx_dist_destroy(&D);
    spx_csr_destroy(&A);
    /* every column a ghost: row i reads columns i + 12/P and i + 12/P + 1 (mod 12), all in the
       next rank's block (12 rows: 12, 6, 4 or 3 per rank) */
    k = 0;
    for (int i = 0; i < 12; i++) {
        r[k] = i, c[k] = (i + 12 / size_) % 12, v[k++] = 1.0 + i;
        if (size_ > 1 && 12 / size_ > 1) r[k] = i, c[k] = (i / (12 / size_) * (12 / size_) + 12 / size_ + (i + 1) % (12 / size_)) % 12, v[k++] = -0.5;
    }
    A = build(ctx, 12, 12, k, r, c, v);
    D = from_rows(ctx, A, start);
    if (D) {
        spx_dist_get_info(D, &in);
        if (size_ > 1) CHECK_MSG(in.nnz_diag == 0 && in.nnz_offd == in.nnz && in.offd_rows == in.nrows,
                                 "rank %d: %lld diagonal-block entries, %lld off-diagonal rows", rank_, (long long)in.nnz_diag,
                                 (long long)in.offd_rows);
        spmv_matches(ctx, A, D, "every column a ghost");
    }
    spx_dist_destroy(&D);
    spx_csr_destroy(&A);
    /* rectangular, both ways: 30 x 17 and 17 x 30, a band with wrap-around */
    for (int t = 0; t < 2; t++) {
        const int32_t m = t ? 17 : 30, n = t ? 30 : 17;
        k = 0;
        for (int i = 0; i < m; i++)
            for (int d = 0; d < 3; d++) r[k] = i, c[k] = (i * 7 + d * 5) % n, v[k++] = 1.0 + i - d;
        A = build(ctx, m, n, k, r, c, v);
        equal_rows(m, start);
        D = from_rows(ctx, A, start);
        if (D) spmv_matches(ctx, A, D, t ? "17 x 30" : "30 x 17");
        spx_dist_destroy(&D);
        spx_csr_destroy(&A);
    }
    /* one dense row (row 0) and one dense column (column 7) over a tridiagonal 50 x 50, and an
       uneven partition: rank 0 holds the dense row alone */
    k = 0;
    for (int i = 0; i < 50; i++) {
        for (int j = i - 1; j <= i + 1; j++)
            if (j >= 0 && j < 50) r[k] = i, c[k] = j, v[k++] = i == j ? 4.0 : -1.0;
        r[k] = 0, c[k] = i, v[k++] = 0.01 * i;
        r[k] = i, c[k] = 7, v[k++] = 0.02 * i;
    }
    A = build(ctx, 50, 50, k, r, c, v);
    start[0] = 0;
    for (int q = 1; q <= size_; q++) start[q] = q == size_ ? 50 : 1 + (int64_t)49 * (q - 1) / (size_ - 1 > 0 ? size_ - 1 : 1);
    D = from_rows(ctx, A, start);
    if (D) spmv_matches(ctx, A, D, "dense row and column");
    spx_dist_destroy(&D);
    spx_csr_destroy(&A);
    free(r);
    free(c);
    free(v);
}

/* The distributed solver against the serial one on src (b = A*ones, x0 = 0), the rows cut by
 * partition (NULL: the default), the vectors mapped by spx_dist_get_rows. */
static void check_solve(spx_ctx *ctx, const char *src, int bicgstab, int jacobi, const char *partition)
{
    if (!have(src)) return;
    spx_csr *A = NULL;
    spx_dist_matrix *D = NULL;
    spx_plan *p = NULL;
    spx_dist_opts dopts = {.partition = partition};
    CHECK_OK(ctx, spx_load(ctx, src, NULL, &A));
    CHECK_OK(ctx, spx_dist_load_ex(MPI_COMM_WORLD, ctx, src, NULL, &dopts, &D));
    if (D && transport_) CHECK_OK(ctx, spx_dist_set_transport(D, transport_));
    CHECK_OK(ctx, spx_plan_create(ctx, A, NULL, &p));
    if (!A || !D || !p) goto done;
    spx_dist_info in;
    spx_dist_get_info(D, &in);
    double *ones = malloc(((size_t)A->n + 1) * sizeof *ones), *b = malloc(((size_t)A->m + 1) * sizeof *b);
    double *xs = malloc(((size_t)A->m + 1) * sizeof *xs), *xd = malloc(((size_t)in.nrows + 1) * sizeof *xd);
    double *bl = malloc(((size_t)in.nrows + 1) * sizeof *bl);
    int64_t *rows = local_rows(D, &in);
    for (int64_t i = 0; i < A->n; i++) ones[i] = 1.0;
    spx_csr_spmv_ref(A, 1.0, ones, 0.0, b);
    pick(b, rows, in.nrows, bl);
    spx_vec *bs = NULL, *xsv = NULL, *bd = NULL, *xdv = NULL, *ds = NULL, *dd = NULL;
    spx_solve_result rs, rd;
    spx_solve_opts os = {.tol = 1e-10, .precond = jacobi ? SPX_PRECOND_JACOBI : SPX_PRECOND_NONE}, od = os;
    CHECK_OK(ctx, spx_vec_create(ctx, be_, SPX_FP64, A->m, &bs));
    CHECK_OK(ctx, spx_vec_create(ctx, be_, SPX_FP64, A->m, &xsv));
    CHECK_OK(ctx, spx_vec_create(ctx, be_, SPX_FP64, in.nrows, &bd));
    CHECK_OK(ctx, spx_vec_create(ctx, be_, SPX_FP64, in.nrows, &xdv));
    CHECK_OK(ctx, spx_vec_set(bs, b));
    CHECK_OK(ctx, spx_vec_set(bd, bl));
    if (jacobi) {
        CHECK_OK(ctx, spx_solve_inv_diag(ctx, A, p, &ds));
        CHECK_OK(ctx, spx_dist_inv_diag(D, &dd));
        os.inv_diag = ds;
        od.inv_diag = dd;
    }
    CHECK_OK(ctx, bicgstab ? spx_solve_bicgstab(p, bs, xsv, &os, &rs) : spx_solve_cg(p, bs, xsv, &os, &rs));
    CHECK_OK(ctx, bicgstab ? spx_dist_solve_bicgstab(D, bd, xdv, &od, &rd) : spx_dist_solve_cg(D, bd, xdv, &od, &rd));
    CHECK_OK(ctx, spx_vec_get(xsv, xs));
    CHECK_OK(ctx, spx_vec_get(xdv, xd));
    double e = 0.0, all = 0.0;
    for (int64_t i = 0; i < in.nrows; i++) e = fmax(e, fabs(xd[i] - xs[rows[i]]));
    MPI_Allreduce(&e, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    CHECK_MSG(rd.status == SPX_SOLVE_CONVERGED && rs.status == SPX_SOLVE_CONVERGED && abs(rd.iterations - rs.iterations) <= 2 &&
                  all <= 1e-6,
              "%s %s%s (partition %s) on %d ranks: %d vs %d iterations (%s / %s), max |x - x_serial| %.3e", src,
              bicgstab ? "bicgstab" : "cg", jacobi ? "+jacobi" : "", in.partition, size_, rd.iterations, rs.iterations, spx_solve_status_str(rd.status),
              spx_solve_status_str(rs.status), all);
    if (rank_ == 0)
        printf("%s %s%s (partition %s): %d iterations distributed, %d serial, max |x - x_serial| = %.2e\n", src,
               bicgstab ? "bicgstab" : "cg", jacobi ? "+jacobi" : "", in.partition, rd.iterations, rs.iterations, all);
    spx_vec_destroy(&bs);
    spx_vec_destroy(&xsv);
    spx_vec_destroy(&bd);
    spx_vec_destroy(&xdv);
    spx_vec_destroy(&ds);
    spx_vec_destroy(&dd);
    free(ones);
    free(b);
    free(xs);
    free(xd);
    free(bl);
    free(rows);
done:
    spx_plan_destroy(&p);
    spx_dist_destroy(&D);
    spx_csr_destroy(&A);
}

/* One rank's bad vector (the last rank's b one entry short) fails the solve on every rank with
 * that rank's message, and nobody hangs; then a rectangular matrix is refused everywhere. */
static void check_solve_errors(spx_ctx *ctx)
{
    spx_dist_matrix *D = NULL;
    CHECK_OK(ctx, spx_dist_load(MPI_COMM_WORLD, ctx, "gen:poisson3d:n=6,laplace=1", NULL, &D));
    if (!D) return;
    spx_dist_info in;
    spx_dist_get_info(D, &in);
    const int short_b = rank_ == size_ - 1 && in.nrows > 0;
    spx_vec *b = NULL, *x = NULL;
    spx_solve_result res;
    CHECK_OK(ctx, spx_vec_create(ctx, be_, SPX_FP64, in.nrows - short_b, &b));
    CHECK_OK(ctx, spx_vec_create(ctx, be_, SPX_FP64, in.nrows, &x));
    CHECK_OK(ctx, spx_vec_fill(b, 1.0));
    spx_status st = spx_dist_solve_cg(D, b, x, NULL, &res);
    CHECK_MSG(st == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "b has"), "a short b on one rank: %d '%s'", st,
              spx_ctx_last_error(ctx));
    CHECK(same_everywhere(spx_ctx_last_error(ctx)));
    spx_vec_destroy(&b);
    spx_vec_destroy(&x);
    spx_dist_destroy(&D);
    CHECK_OK(ctx, spx_dist_load(MPI_COMM_WORLD, ctx, "gen:poisson3d:n=4", NULL, &D));
    if (D && be_ == SPX_BACKEND_CPU) { /* NCCL and device buffers need a CUDA matrix: refused, the same way everywhere */
        CHECK(spx_dist_set_transport(D, "nccl") == SPX_ERR_UNSUPPORTED && same_everywhere(spx_ctx_last_error(ctx)));
        CHECK(spx_dist_set_transport(D, "mpi-device") == SPX_ERR_UNSUPPORTED && same_everywhere(spx_ctx_last_error(ctx)));
        CHECK(spx_dist_set_transport(D, "carrier-pigeon") == SPX_ERR_ARG && spx_dist_set_transport(D, "mpi") == SPX_OK &&
              spx_dist_set_transport(D, "mpi-host") == SPX_OK);
    }
    if (D && be_ == SPX_BACKEND_CUDA) check_mpi_device(ctx, D);
    spx_dist_destroy(&D);
    CHECK_OK(ctx, spx_dist_load(MPI_COMM_WORLD, ctx, "gen:uniform:m=40,n=30,k=3", NULL, &D));
    CHECK_OK(ctx, spx_vec_create(ctx, be_, SPX_FP64, 1, &b));
    CHECK_OK(ctx, spx_vec_create(ctx, be_, SPX_FP64, 1, &x));
    CHECK(D && spx_dist_solve_bicgstab(D, b, x, NULL, &res) == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "square"));
    spx_vec_destroy(&b);
    spx_vec_destroy(&x);
    spx_dist_destroy(&D);
}

/* Whether this build has the metis partition: a small load says (without METIS: skipped, with
 * the reason, which every rank gives alike). */
static int metis_built(spx_ctx *ctx)
{
    spx_dist_opts o = {.partition = "metis"};
    spx_dist_matrix *D = NULL;
    const spx_status st = spx_dist_load_ex(MPI_COMM_WORLD, ctx, "gen:poisson3d:n=3", NULL, &o, &D);
    spx_dist_destroy(&D);
    if (st == SPX_ERR_UNSUPPORTED) {
        const char *why = spx_ctx_last_error(ctx);
        CHECK_MSG(strstr(why, "METIS") && same_everywhere(why), "metis refused without the reason: '%s'", why);
        if (rank_ == 0) printf("skipped: the metis partition: %s\n", why);
        return 0;
    }
    CHECK_OK(ctx, st);
    return st == SPX_OK;
}

/* Every row of D's m is held by exactly one rank, by the row maps of all ranks. */
static void check_cover(spx_dist_matrix *D, const char *what)
{
    spx_dist_info in;
    spx_dist_get_info(D, &in);
    int64_t *rows = local_rows(D, &in);
    int *seen = calloc((size_t)in.m + 1, sizeof *seen), *all = calloc((size_t)in.m + 1, sizeof *all), bad = 0, once = 1;
    for (int64_t i = 0; i < in.nrows; i++) {
        if (rows[i] < 0 || rows[i] >= in.m) bad = 1;
        else seen[rows[i]]++;
    }
    MPI_Allreduce(seen, all, (int)in.m, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int64_t i = 0; i < in.m; i++) once &= all[i] == 1;
    CHECK_MSG(all_true(!bad) && once, "%s: the metis rows do not cover 0..%lld once", what, (long long)in.m);
    free(rows);
    free(seen);
    free(all);
}

/* src with the metis partition: SpMV equals the serial one through the row map, every row once. */
static void check_metis_source(spx_ctx *ctx, const char *src)
{
    if (!have(src)) return;
    spx_csr *A = NULL;
    spx_dist_matrix *D = NULL;
    spx_dist_opts o = {.partition = "metis"};
    char what[512];
    snprintf(what, sizeof what, "%s (metis)", src);
    CHECK_OK(ctx, spx_load(ctx, src, NULL, &A));
    CHECK_OK(ctx, spx_dist_load_ex(MPI_COMM_WORLD, ctx, src, NULL, &o, &D));
    if (D && transport_) CHECK_OK(ctx, spx_dist_set_transport(D, transport_));
    if (A && D) {
        spmv_matches(ctx, A, D, what);
        check_cover(D, what);
    }
    spx_dist_destroy(&D);
    spx_csr_destroy(&A);
}

/* The ghost columns of D summed over the ranks (-1 without D). */
static int64_t total_ghosts(const spx_dist_matrix *D)
{
    spx_dist_info in = {.ghosts = -1};
    if (D) spx_dist_get_info(D, &in);
    int64_t all = 0;
    MPI_Allreduce(&in.ghosts, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    return D ? all : -1;
}

/* The metis halo (ghosts summed over the ranks) is not larger than the row blocks' on src. */
static void check_metis_halo(spx_ctx *ctx, const char *src)
{
    spx_dist_matrix *R = NULL, *M = NULL;
    spx_dist_opts o = {.partition = "metis"};
    CHECK_OK(ctx, spx_dist_load(MPI_COMM_WORLD, ctx, src, NULL, &R));
    CHECK_OK(ctx, spx_dist_load_ex(MPI_COMM_WORLD, ctx, src, NULL, &o, &M));
    const int64_t gr = total_ghosts(R), gm = total_ghosts(M);
    if (rank_ == 0) printf("%s on %d ranks: ghosts summed, rows %lld, metis %lld\n", src, size_, (long long)gr, (long long)gm);
    CHECK_MSG(R && M && gm <= gr, "%s: metis halo %lld > rows halo %lld", src, (long long)gm, (long long)gr);
    spx_dist_destroy(&R);
    spx_dist_destroy(&M);
}

/* The refusals agree on every rank: an unknown partition (any build), metis on a rectangular
 * matrix (builds with METIS). */
static void check_partition_errors(spx_ctx *ctx, int metis)
{
    spx_dist_matrix *D = NULL;
    spx_dist_opts o = {.partition = "zigzag"};
    CHECK(spx_dist_load_ex(MPI_COMM_WORLD, ctx, "gen:poisson3d:n=4", NULL, &o, &D) == SPX_ERR_ARG && !D &&
          strstr(spx_ctx_last_error(ctx), "zigzag") && same_everywhere(spx_ctx_last_error(ctx)));
    if (!metis) return;
    o.partition = "metis";
    spx_status st = spx_dist_load_ex(MPI_COMM_WORLD, ctx, "gen:uniform:m=40,n=30,k=3", NULL, &o, &D);
    CHECK_MSG(st == SPX_ERR_ARG && !D && strstr(spx_ctx_last_error(ctx), "square") && same_everywhere(spx_ctx_last_error(ctx)),
              "metis on 40 x 30: %d '%s'", st, spx_ctx_last_error(ctx));
}

/* The metis partition: SpMV on generated, shared and tiny matrices (more ranks than rows), CG,
 * the R-MAT halo against the row blocks', the refusals; skipped with the reason without METIS. */
static void check_metis(spx_ctx *ctx)
{
    const int built = metis_built(ctx);
    check_partition_errors(ctx, built);
    if (!built) return;
    const char *srcs[] = {"gen:poisson3d:n=12", "gen:rmat:scale=10,ef=8,sym=1", SPX_SHARED_MATRICES "/bcsstk15.mtx.gz",
                          SPX_TEST_DATA "/good/coord_real_symmetric.mtx", SPX_TEST_DATA "/good/empty_0x0.mtx"};
    for (size_t i = 0; i < sizeof srcs / sizeof srcs[0]; i++) check_metis_source(ctx, srcs[i]);
    check_metis_halo(ctx, "gen:rmat:scale=12,ef=8,sym=1");
    check_solve(ctx, "gen:poisson3d:n=12,laplace=1", 0, 0, "metis");
    check_solve(ctx, SPX_SHARED_MATRICES "/bcsstk15.mtx.gz", 0, 1, "metis");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    spx_ctx *ctx = NULL;
    const char *be = getenv("SPX_TEST_DIST_BACKEND");
    if (be && !strcmp(be, "cuda")) be_ = SPX_BACKEND_CUDA;
    transport_ = getenv("SPX_TEST_DIST_TRANSPORT");
    spx_ctx_opts co = {.backend = be_, .threads = 1, .device = spx_dist_device(MPI_COMM_WORLD)};
    if (spx_ctx_create(&ctx, &co) != SPX_OK) return 1;
    if (rank_ == 0) printf("%d ranks, backend %s\n", size_, spx_backend_str(be_));
    const char *only = argc > 1 ? argv[1] : "all"; /* "read", "spmv", "solve", "metis" or "all" */
    if (argc > 2 && !strcmp(argv[2], "small")) max_file_bytes = 100000;
    if (!strcmp(only, "read") || !strcmp(only, "all")) {
        check_reads(ctx, SPX_TEST_DATA "/good");
        check_bad_reads(ctx, SPX_TEST_DATA "/bad");
        check_reads(ctx, SPX_SHARED_MATRICES);
    }
    if (!strcmp(only, "spmv") || !strcmp(only, "all")) {
        check_edges(ctx);
        const char *srcs[] = {"gen:poisson3d:n=12", "gen:rmat:scale=10,ef=8", "gen:uniform:m=300,n=170,k=5",
                              SPX_SHARED_MATRICES "/bcsstk15.mtx.gz", SPX_SHARED_MATRICES "/cage10.mtx.gz",
                              SPX_SHARED_MATRICES "/lesmis.mtx.gz"};
        for (size_t i = 0; i < sizeof srcs / sizeof srcs[0]; i++) check_source(ctx, srcs[i]);
        check_plan_order_ignored(ctx);
    }
    if (!strcmp(only, "solve") || !strcmp(only, "all")) {
        check_solve(ctx, "gen:poisson3d:n=12,laplace=1", 0, 0, NULL);
        check_solve(ctx, "gen:poisson3d:n=12,laplace=1", 0, 1, NULL);
        check_solve(ctx, "gen:poisson3d:n=12,laplace=1", 1, 0, NULL);
        check_solve(ctx, SPX_SHARED_MATRICES "/cage10.mtx.gz", 1, 1, NULL);
        check_solve(ctx, SPX_SHARED_MATRICES "/bcsstk15.mtx.gz", 0, 1, NULL);
        check_solve_errors(ctx);
    }
    if (!strcmp(only, "metis") || !strcmp(only, "all")) check_metis(ctx);
    spx_mem_stats ms;
    /* every block given back; on CUDA the context keeps its device state (properties and the
     * table of live device blocks, which grows and is not shrunk) until spx_ctx_destroy */
    const size_t cuda_state_max = be_ == SPX_BACKEND_CUDA ? 4096 : 0;
    CHECK(spx_ctx_mem_stats(ctx, &ms) == SPX_OK && ms.host_bytes <= cuda_state_max && ms.device_bytes == 0);
    if (ms.host_bytes > cuda_state_max || ms.device_bytes)
        fprintf(stderr, "rank %d: %zu host and %zu device bytes still held by the context\n", rank_, ms.host_bytes,
                ms.device_bytes);
    spx_ctx_destroy(&ctx);
    int failed = check_failed, any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank_ == 0 || failed) check_report();
    MPI_Finalize();
    return any ? 1 : 0;
}
