/* tests/test_threads.c: the threading contract (scripts/test.sh also runs it under
 * ThreadSanitizer): part 1, several threads at once, each with its own CPU context, read Matrix
 * Market files, generate, write and re-read a matrix, and plan and run every CPU format; part 2,
 * one CPU plan on one context run by several threads at once, each into its own y; part 3, an
 * out-of-core SpGEMM whose two sides (a host thread for the GPU side, here a CPU stand-in, and
 * the caller's OpenMP team) share one panel queue and write one C. Every context asks for 2
 * OpenMP threads, so OpenMP regions run concurrently too. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "spgemm/ooc/ooc.h"
#include "spx/spx.h"

enum { N_THREADS = 4, OMP_THREADS = 2, SHARED_REPS = 3 };

/* One thread's tally: check.h's counters are plain ints, so threads count here and main sums. */
typedef struct tally {
    int passed, failed;
} tally;

/* Counts a failed check and prints it as one line (lines of several threads do not mix). */
static void tally_fail(tally *t, int line, const char *cond, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    t->failed++;
    fprintf(stderr, "%s:%d: CHECK failed: %s: %s\n", __FILE__, line, cond, msg);
}

#define TCHECK(t, cond, ...)                                                                       \
    do {                                                                                           \
        if (cond)                                                                                  \
            (t)->passed++;                                                                         \
        else                                                                                       \
            tally_fail((t), __LINE__, #cond, __VA_ARGS__);                                         \
    } while (0)

/* Adds a thread's tally to check.h's counters (main thread only). */
static void tally_add(const tally *t)
{
    check_passed += t->passed;
    check_failed += t->failed;
}

/* A value in [-1, 1) exact in fp32, from a 64-bit LCG state. */
static double next_value(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(float)((double)(*s >> 11) * 0x1.0p-53 * 2.0 - 1.0);
}

/* The error bound of a format's SpMV against the reference (as tests/format_check.h). */
static double tolerance(const spx_csr *A, spx_precision prec)
{
    spx_features f;
    spx_features_compute(A, &f);
    return prec == SPX_FP64 ? 1e-12 : 1e-6 * sqrt(f.row_max > 100 ? (double)f.row_max : 100.0);
}

/* The reference matrix of a plan: A itself for fp64, a copy with values rounded to float for
 * fp32 (so only the arithmetic differs); NULL when the copy fails. */
static spx_csr *reference_matrix(spx_ctx *ctx, const spx_csr *A, spx_precision prec)
{
    spx_csr *R = NULL;
    if (spx_csr_copy(ctx, A, &R)) return NULL;
    if (prec == SPX_FP32)
        for (int64_t k = 0; k < R->nnz; k++) R->val[k] = (float)R->val[k];
    return R;
}

/* y = a*A*x + b*y through the plan in its precision, on host double arrays. */
static spx_status run_spmv(spx_plan *p, spx_precision prec, double a, const double *x, double b, double *y,
                           int64_t m, int64_t n)
{
    if (prec == SPX_FP64) return spx_plan_spmv(p, a, x, b, y);
    float *xf = malloc(sizeof(float) * (size_t)(n + 1)), *yf = malloc(sizeof(float) * (size_t)(m + 1));
    spx_status s = SPX_ERR_NOMEM;
    if (xf && yf) {
        for (int64_t j = 0; j < n; j++) xf[j] = (float)x[j];
        for (int64_t i = 0; i < m; i++) yf[i] = (float)y[i];
        s = spx_plan_spmv_f32(p, (float)a, xf, (float)b, yf);
        for (int64_t i = 0; i < m; i++) y[i] = yf[i];
    }
    free(xf);
    free(yf);
    return s;
}

/* Runs the plan with b = 0 (y poisoned with NaN) and with b != 0 on an x drawn from seed and
 * checks both against the reference SpMV of R. Writes only its own arrays and reads no error
 * message, so threads sharing the plan may call it at once. */
static void check_spmv(tally *t, spx_plan *p, const spx_csr *R, spx_precision prec, uint64_t seed,
                       const char *label)
{
    int64_t m = R->m, n = R->n;
    double *x = malloc(sizeof(double) * (size_t)(n + 1)), *y = malloc(sizeof(double) * (size_t)(m + 1));
    double *ref = malloc(sizeof(double) * (size_t)(m + 1));
    TCHECK(t, x && y && ref, "%s: out of memory", label);
    if (x && y && ref) {
        double tol = tolerance(R, prec);
        for (int64_t j = 0; j < n; j++) x[j] = next_value(&seed);
        for (int64_t i = 0; i < m; i++) y[i] = NAN;
        spx_csr_spmv_ref(R, 1.0, x, 0.0, ref);
        spx_status s = run_spmv(p, prec, 1.0, x, 0.0, y, m, n);
        double e = s ? INFINITY : spx_rel_error(y, SPX_FP64, ref, m);
        TCHECK(t, e <= tol, "%s: b=0 rel error %.3e > %.1e (%s)", label, e, tol, spx_status_str(s));
        for (int64_t i = 0; i < m; i++) ref[i] = y[i] = next_value(&seed);
        spx_csr_spmv_ref(R, -1.5, x, 0.5, ref);
        s = run_spmv(p, prec, -1.5, x, 0.5, y, m, n);
        e = s ? INFINITY : spx_rel_error(y, SPX_FP64, ref, m);
        TCHECK(t, e <= tol, "%s: b!=0 rel error %.3e > %.1e (%s)", label, e, tol, spx_status_str(s));
    }
    free(x);
    free(y);
    free(ref);
}

/* Plans A in one format and precision on ctx, checks the round trip to CSR and the SpMV. */
static void check_format(tally *t, spx_ctx *ctx, const spx_csr *A, const char *format, spx_precision prec,
                         const char *what)
{
    char label[256];
    snprintf(label, sizeof label, "%s [%s cpu %s]", what, format, prec == SPX_FP32 ? "fp32" : "fp64");
    spx_csr *R = reference_matrix(ctx, A, prec), *B = NULL;
    spx_plan *p = NULL;
    spx_plan_opts o = {.format = format, .backend = SPX_BACKEND_CPU, .precision = prec};
    spx_status s = R ? spx_plan_create(ctx, A, &o, &p) : SPX_ERR_NOMEM;
    TCHECK(t, s == SPX_OK, "%s: plan: %s", label, spx_ctx_last_error(ctx));
    if (!s) {
        s = spx_plan_to_csr(p, &B);
        TCHECK(t, s == SPX_OK && spx_csr_equal(B, R), "%s: round trip differs (%s)", label,
               spx_status_str(s));
        check_spmv(t, p, R, prec, 42, label);
    }
    spx_plan_destroy(&p);
    spx_csr_destroy(&B);
    spx_csr_destroy(&R);
}

/* Runs check_format for every registered format built here with a CPU path, fp64 and fp32
 * (a format not built, ehyb without METIS, is the formats tests' to report). */
static void check_all_formats(tally *t, spx_ctx *ctx, const spx_csr *A, const char *what)
{
    for (int f = 0; f < spx_format_count(); f++) {
        spx_format_desc d;
        TCHECK(t, spx_format_describe(f, &d) == SPX_OK, "format %d", f);
        if (!d.has_cpu || !d.available) continue;
        check_format(t, ctx, A, d.name, SPX_FP64, what);
        check_format(t, ctx, A, d.name, SPX_FP32, what);
    }
}

/* What one part-1 thread works on. */
typedef struct worker {
    int id;
    const char *good_file;   /* in tests/data/good */
    const char *shared_file; /* in SPX_SHARED_MATRICES, read when that folder exists */
    const char *gen_spec;    /* written and read back: over 4 MiB of text, a parallel read */
    const char *tmp_dir;
    int have_shared;
    tally t;
} worker;

/* Reads a Matrix Market file and checks every CPU format on it. */
static void check_file(tally *t, spx_ctx *ctx, const char *path)
{
    spx_csr *A = NULL;
    spx_status s = spx_mtx_read(ctx, path, NULL, &A, NULL);
    TCHECK(t, s == SPX_OK, "%s: %s", path, spx_ctx_last_error(ctx));
    if (!s) check_all_formats(t, ctx, A, path);
    spx_csr_destroy(&A);
}

/* Writes A to a file of its own, reads it back in parallel and checks it is A again. */
static void check_write_read(worker *w, spx_ctx *ctx, const spx_csr *A)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/t%d.mtx", w->tmp_dir, w->id);
    spx_status s = spx_mtx_write(ctx, path, A);
    TCHECK(&w->t, s == SPX_OK, "%s: write: %s", path, spx_ctx_last_error(ctx));
    spx_csr *B = NULL;
    spx_read_stats st = {0};
    if (!s) s = spx_mtx_read(ctx, path, NULL, &B, &st);
    TCHECK(&w->t, s == SPX_OK, "%s: read: %s", path, spx_ctx_last_error(ctx));
    TCHECK(&w->t, s || (spx_csr_equal(A, B) && st.threads == OMP_THREADS),
           "%s: read back differs or was not parallel (%d threads)", path, st.threads);
    spx_csr_destroy(&B);
    remove(path);
}

/* A failing call records its own message in its own context. */
static void check_own_error(worker *w, spx_ctx *ctx)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/missing-%d.mtx", w->tmp_dir, w->id);
    spx_csr *A = NULL;
    spx_status s = spx_mtx_read(ctx, path, NULL, &A, NULL);
    TCHECK(&w->t, s != SPX_OK && A == NULL, "%s: read succeeded", path);
    TCHECK(&w->t, strstr(spx_ctx_last_error(ctx), path) != NULL, "last error '%s' does not name %s",
           spx_ctx_last_error(ctx), path);
}

/* The threads of a part meet at these barriers: at the start, between stages and before they
 * end. So they run at once and none exits early (an exiting OpenMP root hands its workers to the
 * next root, which orders the two threads for TSan and would hide a race between them), and no
 * thread runs so far ahead that TSan's per-thread history (history_size) forgets an access
 * before another thread races with it (TSan drops such a race unreported). Each barrier is
 * waited on once per part: TSan orders a wait after all earlier arrivals at the same barrier. */
enum { N_GATES = 4 };
static pthread_barrier_t gates[N_GATES];

/* Waits until every thread of the part has reached barrier i. */
static void gate(int i) { pthread_barrier_wait(&gates[i]); }

/* Starts fn on n args stride bytes apart and joins them. A thread that cannot start ends the
 * test: the others would wait for it at the first gate forever. */
static void run_threads(void *(*fn)(void *), void *args, size_t stride, int n)
{
    pthread_t th[N_THREADS];
    for (int i = 0; i < n; i++)
        if (pthread_create(&th[i], NULL, fn, (char *)args + (size_t)i * stride)) {
            fprintf(stderr, "%s:%d: cannot start thread %d\n", __FILE__, __LINE__, i);
            exit(1);
        }
    for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
}

/* Reads the thread's file from tests/data/good and its shared matrix, if any; checks both. */
static void check_files(worker *w, spx_ctx *ctx)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/good/%s", SPX_TEST_DATA, w->good_file);
    check_file(&w->t, ctx, path);
    if (!w->have_shared) return;
    snprintf(path, sizeof path, "%s/%s", SPX_SHARED_MATRICES, w->shared_file);
    check_file(&w->t, ctx, path);
}

/* Generates the thread's matrix and checks every CPU format on it; NULL if generation failed. */
static spx_csr *check_generated(worker *w, spx_ctx *ctx)
{
    spx_csr *A = NULL;
    spx_status s = spx_gen(ctx, w->gen_spec, &A);
    TCHECK(&w->t, s == SPX_OK, "%s: %s", w->gen_spec, spx_ctx_last_error(ctx));
    if (!s) check_all_formats(&w->t, ctx, A, w->gen_spec);
    return A;
}

/* Part 1, one thread: its own context; read files; generate, plan, run; write and re-read. */
static void *worker_main(void *arg)
{
    worker *w = arg;
    spx_ctx *ctx = NULL;
    spx_csr *A = NULL;
    spx_ctx_opts co = {.backend = SPX_BACKEND_CPU, .threads = OMP_THREADS};
    gate(0);
    TCHECK(&w->t, spx_ctx_create(&ctx, &co) == SPX_OK, "thread %d: context", w->id);
    if (ctx) check_files(w, ctx);
    gate(1);
    if (ctx) A = check_generated(w, ctx);
    gate(2);
    if (A) check_write_read(w, ctx, A);
    if (ctx) check_own_error(w, ctx);
    spx_csr_destroy(&A);
    spx_ctx_destroy(&ctx);
    gate(N_GATES - 1);
    return NULL;
}

/* Part 1: N_THREADS threads, each with its own context, all at once. */
static void test_contexts_per_thread(const char *tmp_dir)
{
    static const char *good[N_THREADS] = {"coord_real_general.mtx", "coord_real_symmetric.mtx",
                                          "coord_pattern_general.mtx", "gz_small.mtx.gz"};
    static const char *shared[N_THREADS] = {"494_bus.mtx.gz", "dwt_419.mtx.gz", "rajat11.mtx.gz",
                                            "can_96.mtx.gz"};
    static const char *specs[N_THREADS] = {"gen:uniform:m=20000,k=8", "gen:powerlaw:m=30000,k=6,seed=3",
                                           "gen:poisson2d:n=180", "gen:rmat:scale=14,ef=10"};
    int have_shared = access(SPX_SHARED_MATRICES, R_OK) == 0;
    if (!have_shared) fprintf(stderr, "note: %s not found; shared matrices skipped\n", SPX_SHARED_MATRICES);
    worker w[N_THREADS];
    for (int i = 0; i < N_THREADS; i++)
        w[i] = (worker){i, good[i], shared[i], specs[i], tmp_dir, have_shared, {0, 0}};
    run_threads(worker_main, w, sizeof w[0], N_THREADS);
    for (int i = 0; i < N_THREADS; i++) tally_add(&w[i].t);
}

/* What one part-2 thread works on: a plan shared with the others. */
typedef struct sharer {
    int id;
    spx_plan *p;
    const spx_csr *R;
    spx_precision prec;
    const char *label;
    tally t;
} sharer;

/* A call the plan refuses (x and y alias): its message goes to the shared context. */
static void check_refused(sharer *s, const char *label)
{
    double v[2] = {0, 0};
    float f[2] = {0, 0};
    spx_status st = s->prec == SPX_FP64 ? spx_plan_spmv(s->p, 1.0, v, 0.0, v)
                                        : spx_plan_spmv_f32(s->p, 1.0f, f, 0.0f, f);
    TCHECK(&s->t, st == SPX_ERR_ARG, "%s: aliased x and y accepted (%s)", label, spx_status_str(st));
}

/* Part 2, one thread, between the gates: SHARED_REPS checked SpMVs on the shared plan with its
 * own x and y, each followed by a refused call (the error writes must not race either). */
static void *sharer_main(void *arg)
{
    sharer *s = arg;
    char label[256];
    snprintf(label, sizeof label, "%s, thread %d", s->label, s->id);
    gate(0);
    for (int r = 0; r < SHARED_REPS; r++) {
        check_spmv(&s->t, s->p, s->R, s->prec, 1000u * (unsigned)s->id + (unsigned)r, label);
        check_refused(s, label);
    }
    gate(N_GATES - 1);
    return NULL;
}

/* Runs one plan from N_THREADS threads at once; sums their tallies. */
static void run_shared(spx_plan *p, const spx_csr *R, spx_precision prec, const char *label)
{
    sharer s[N_THREADS];
    for (int i = 0; i < N_THREADS; i++) s[i] = (sharer){i, p, R, prec, label, {0, 0}};
    run_threads(sharer_main, s, sizeof s[0], N_THREADS);
    for (int i = 0; i < N_THREADS; i++) tally_add(&s[i].t);
}

/* Part 2: for every CPU format and precision, one plan on one context run by all threads. */
static void test_shared_plan(void)
{
    static const char *spec = "gen:powerlaw:m=4000,k=8";
    spx_ctx *ctx = NULL;
    spx_ctx_opts co = {.backend = SPX_BACKEND_CPU, .threads = OMP_THREADS};
    spx_csr *A = NULL;
    CHECK(spx_ctx_create(&ctx, &co) == SPX_OK);
    if (!ctx) return;
    CHECK_OK(ctx, spx_gen(ctx, spec, &A));
    for (int f = 0; A && f < spx_format_count(); f++) {
        spx_format_desc d;
        CHECK(spx_format_describe(f, &d) == SPX_OK);
        for (int k = 0; d.has_cpu && d.available && k < 2; k++) {
            spx_precision prec = k ? SPX_FP32 : SPX_FP64;
            char label[256];
            snprintf(label, sizeof label, "shared %s plan [%s cpu %s]", spec, d.name, k ? "fp32" : "fp64");
            spx_csr *R = reference_matrix(ctx, A, prec);
            spx_plan *p = NULL;
            spx_plan_opts o = {.format = d.name, .backend = SPX_BACKEND_CPU, .precision = prec};
            CHECK(R != NULL);
            if (R) CHECK_OK(ctx, spx_plan_create(ctx, A, &o, &p));
            if (p) run_shared(p, R, prec, label);
            spx_plan_destroy(&p);
            spx_csr_destroy(&R);
        }
    }
    spx_csr_destroy(&A);
    spx_ctx_destroy(&ctx);
}

/* Part 3: the out-of-core schedule on two threads (gustavson standing in for the GPU side),
 * twice over one C, K measured: C as the in-core product's, bit for bit. */
static void test_ooc_sides(void)
{
    spx_ctx *ctx = NULL;
    spx_ctx_opts co = {.backend = SPX_BACKEND_CPU, .threads = OMP_THREADS};
    spx_csr *A = NULL, *C = NULL, *R = NULL;
    CHECK(spx_ctx_create(&ctx, &co) == SPX_OK);
    if (!ctx) return;
    CHECK_OK(ctx, spx_gen(ctx, "gen:rmat:scale=11,ef=8", &A));
    spx_spgemm_opts io = {.backend = SPX_BACKEND_CPU};
    spx_spgemm_plan *plan = NULL;
    if (A) CHECK_OK(ctx, spx_spgemm_plan_create(ctx, A, A, &io, &plan));
    if (plan) CHECK_OK(ctx, spx_spgemm_run(plan, &R));
    spx_spgemm_plan_destroy(&plan);
    const spx_spgemm_input in = {.A = A, .B = A, .precision = SPX_FP64};
    const spx_ooc_opts oo = {SPX_PANELS_HETERO, SPX_BUDGET_NONE, 0, spx_spgemm_gustavson(), SIZE_MAX, 1, 1};
    spx_phase_log log;
    memset(&log, 0, sizeof log);
    spx_ooc *o = NULL;
    int64_t products = 0, nnz_c = 0;
    if (R) CHECK_OK(ctx, spx_ooc_create(ctx, &in, &oo, &log, &o, &products, &nnz_c));
    if (o) CHECK_OK(ctx, spx_csr_alloc(ctx, A->m, A->n, nnz_c, &C));
    for (int run = 0; C && run < 2; run++) {
        CHECK_OK(ctx, spx_ooc_run(ctx, o, &log, C));
        CHECK(C->nnz == R->nnz && !memcmp(C->rowptr, R->rowptr, ((size_t)R->m + 1) * sizeof *R->rowptr) &&
              !memcmp(C->colind, R->colind, (size_t)R->nnz * sizeof *R->colind) &&
              !memcmp(C->val, R->val, (size_t)R->nnz * sizeof *R->val));
    }
    spx_ooc_destroy(ctx, o);
    spx_csr_destroy(&C);
    spx_csr_destroy(&R);
    spx_csr_destroy(&A);
    spx_ctx_destroy(&ctx);
}

/* Makes the main thread OpenMP's first root (gtid 0), alive until exit. LLVM 14's libomp, with an
 * OMPT tool such as archer (the TSan stage) loaded, reads root 0's state in every
 * __kmpc_end_critical; were root 0 a worker that has exited, that read would crash. */
static void register_main_with_openmp(void)
{
    int n = 0;
#pragma omp parallel num_threads(OMP_THREADS) reduction(+ : n)
    n++;
    CHECK(n >= 1);
}

int main(void)
{
    register_main_with_openmp();
    for (int i = 0; i < N_GATES; i++)
        if (pthread_barrier_init(&gates[i], NULL, N_THREADS)) return 1;
    const char *base = getenv("TMPDIR");
    char tmp_dir[4096];
    snprintf(tmp_dir, sizeof tmp_dir, "%s/spx_threads_XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmp_dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_contexts_per_thread(tmp_dir);
    test_shared_plan();
    test_ooc_sides();
    rmdir(tmp_dir);
    for (int i = 0; i < N_GATES; i++) pthread_barrier_destroy(&gates[i]);
    return check_report();
}
