/* tests/test_spgemm_dev.c: SpGEMM from device CSRs with C on the device (spx_spgemm_plan_create_dev,
 * spx_spgemm_run_dev, spx_spgemm_dev). On any machine: the argument checks and their messages
 * (NULLs, another context, a bad header, unsorted rows, shapes, options, *C not NULL), nothing
 * written on a refusal, and a build without CUDA or a device answering SPX_ERR_NOT_COMPILED or
 * SPX_ERR_NO_DEVICE. With a device: every CUDA method and algorithm, fp64 and fp32, int32 and
 * int64 row pointers, A*A and A*B: C's pattern equal to the host path's (host CSRs in, C back on
 * the host) and its values to the independent reference's within rounding (the kernels sum with
 * atomics: two runs may differ in the last bits); A*B^T, the CPU method and the panels from
 * device operands (downloaded once); values converted on the device (phase "view"); runs into
 * the same C and new values; C on the device from a host plan and C on the host from a device
 * plan; bad device and host operands refused with their row, nothing left allocated; every
 * device allocation of spx_spgemm_dev failed in turn (an error, *C untouched, nothing left);
 * and the context's memory pool over whole calls (wrap + spx_spgemm_dev, as `spx bench` times
 * them): repeated calls give the same C bit for bit with nothing left out and the pool no
 * longer growing, every allocation of a warm call failed in turn leaks nothing (bytes, blocks,
 * the pool's), C outlives its plan and is freed safely behind a caller's stream, and the
 * caller's allocator hooks replace the pool. */
#include <string.h>

#include "core/ctx.h"
#include "cuda/gateway.h"
#include "spgemm_check.h"

/* The status spx_spgemm_plan_create_dev gets in this build for operands it must download (the
 * CPU method), where no device answers; part: its message. */
static spx_status no_device_status(const char **part)
{
    if (!spx_cuda_compiled()) return *part = "not compiled", SPX_ERR_NOT_COMPILED;
    return *part = "no CUDA device", SPX_ERR_NO_DEVICE;
}

/* A header-only device CSR of ctx (its pointers never read by the checks below). */
static spx_csr_dev fake_dev(spx_ctx *ctx, int32_t m, int32_t n, int64_t nnz)
{
    static int64_t rowptr_dummy;
    static int32_t colind_dummy;
    static double val_dummy;
    spx_csr_dev D = {.m = m, .n = n, .nnz = nnz, .rowptr_type = SPX_INDEX_INT64, .rowptr = &rowptr_dummy,
                     .colind = &colind_dummy, .val = &val_dummy, .precision = SPX_FP64, .unsorted_row = -1,
                     .ctx = ctx, .owns = 0};
    return D;
}

/* A plan_create_dev that must fail with want and `part` in the message, *out untouched. */
static void expect_refused(spx_ctx *ctx, const spx_csr_dev *A, const spx_csr_dev *B, const spx_spgemm_opts *o,
                           spx_status want, const char *part)
{
    spx_spgemm_plan *sentinel = (spx_spgemm_plan *)&part, *p = sentinel;
    spx_status s = spx_spgemm_plan_create_dev(ctx, A, B, o, &p);
    CHECK_MSG(s == want, "wanted %s, got %s: %s", spx_status_str(want), spx_status_str(s), spx_ctx_last_error(ctx));
    CHECK_MSG(strstr(spx_ctx_last_error(ctx), part) != NULL, "'%s' not in '%s'", part, spx_ctx_last_error(ctx));
    CHECK(p == sentinel);
}

/* The checks before any device work. */
static void test_arguments(spx_ctx *ctx, int device)
{
    spx_ctx *other = NULL;
    CHECK_OK(ctx, spx_ctx_create(&other, NULL));
    spx_csr_dev A = fake_dev(ctx, 5, 4, 3), B = fake_dev(ctx, 4, 6, 2);
    spx_spgemm_plan *p = NULL;
    CHECK(spx_spgemm_plan_create_dev(NULL, &A, &B, NULL, &p) == SPX_ERR_ARG && !p);
    CHECK(spx_spgemm_plan_create_dev(ctx, NULL, &B, NULL, &p) == SPX_ERR_ARG && !p);
    CHECK(strstr(spx_ctx_last_error(ctx), "spx_spgemm_plan_create_dev: NULL argument") != NULL);
    spx_csr_dev X = B;
    X.ctx = other;
    expect_refused(ctx, &A, &X, NULL, SPX_ERR_ARG, "spgemm: B belongs to another context than the plan's");
    X = A, X.m = -2;
    expect_refused(ctx, &X, &B, NULL, SPX_ERR_ARG, "device CSR: negative size -2 x 4");
    X = A, X.rowptr = NULL;
    expect_refused(ctx, &X, &B, NULL, SPX_ERR_ARG, "device CSR: rowptr is NULL");
    X = B, X.unsorted_row = 3;
    expect_refused(ctx, &A, &X, NULL, SPX_ERR_ARG, "spgemm: B row 3 has unsorted or repeated columns");
    expect_refused(ctx, &A, &A, NULL, SPX_ERR_ARG, "inner dimensions differ: A is 5 x 4, B is 5 x 4");
    spx_spgemm_opts o = {.c_rowptr_type = (spx_index_type)9};
    expect_refused(ctx, &A, &B, &o, SPX_ERR_ARG, "c_rowptr_type must be SPX_INDEX_DEFAULT, _INT32 or _INT64, not 9");
    o = (spx_spgemm_opts){.transpose_b = 1};
    expect_refused(ctx, &A, &B, &o, SPX_ERR_ARG, "B^T is 6 x 4");
    spx_csr_dev *C = (spx_csr_dev *)&A;
    CHECK(spx_spgemm_dev(ctx, &A, &B, NULL, &C, NULL) == SPX_ERR_ARG && C == (spx_csr_dev *)&A);
    CHECK(strstr(spx_ctx_last_error(ctx), "*C must be NULL") != NULL);
    CHECK(spx_spgemm_dev(ctx, &A, &B, NULL, NULL, NULL) == SPX_ERR_ARG);
    CHECK(spx_spgemm_run_dev(NULL, &C) == SPX_ERR_ARG);
    if (!device) { /* the CPU method takes a host copy: the download is where this build stops */
        const char *part = "";
        const spx_status want = no_device_status(&part);
        o = (spx_spgemm_opts){.method = "gustavson"};
        expect_refused(ctx, &A, &B, &o, want, part);
        C = NULL;
        CHECK(spx_spgemm_dev(ctx, &A, &B, &o, &C, NULL) == want && C == NULL);
    }
    spx_ctx_destroy(&other);
}

/* ---- with a device ---- */

/* A method and algorithm under test. */
typedef struct dev_method {
    const char *method, *algo;
} dev_method;

static const dev_method METHODS[] = {{"spx", NULL},       {"spx", "sparse"},     {"spx", "dense"},
                                     {"cusparse", "alg1"}, {"cusparse", "alg2"}, {"cusparse", "alg3"}};
#define N_METHODS ((int)(sizeof METHODS / sizeof METHODS[0]))

/* Whether C and R have the same shape and pattern (row pointers and columns). */
static int same_pattern(const spx_csr *C, const spx_csr *R)
{
    return C && R && C->m == R->m && C->n == R->n && C->nnz == R->nnz &&
           !memcmp(C->rowptr, R->rowptr, ((size_t)C->m + 1) * sizeof *C->rowptr) &&
           (!C->nnz || !memcmp(C->colind, R->colind, (size_t)C->nnz * sizeof *C->colind));
}

/* The host path's C (host operands, C downloaded) for o. */
static spx_csr *host_product(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, const spx_spgemm_opts *o)
{
    spx_spgemm_plan *p = NULL;
    spx_csr *C = NULL;
    spx_status s = spx_spgemm_plan_create(ctx, A, B, o, &p);
    if (!s) s = spx_spgemm_run(p, &C);
    CHECK_MSG(s == SPX_OK, "host path: %s", spx_ctx_last_error(ctx));
    spx_spgemm_plan_destroy(&p);
    return C;
}

/* C = A*B (A*B^T) by spx_spgemm_dev from device copies of A and B with row pointers of rt:
 * C's type and pattern (against the host path's, when host is given) and values (against the
 * reference r) checked; returns the info's phase `phase` seconds (-1: absent). */
static double check_dev_product(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, spx_index_type rt,
                                const spx_spgemm_opts *o, const sc_ref *r, const spx_csr *host, const char *phase,
                                const char *what)
{
    spx_csr_dev *dA = NULL, *dB = NULL, *C = NULL;
    spx_csr *H = NULL;
    spx_spgemm_info info;
    double found = -1;
    CHECK_OK(ctx, spx_csr_dev_upload(ctx, A, rt, o->precision, &dA));
    if (B != A) CHECK_OK(ctx, spx_csr_dev_upload(ctx, B, rt, o->precision, &dB));
    spx_status s = dA && (B == A || dB) ? spx_spgemm_dev(ctx, dA, B == A ? dA : dB, o, &C, &info) : SPX_ERR_ARG;
    CHECK_MSG(s == SPX_OK, "%s: %s: %s", what, spx_status_str(s), spx_ctx_last_error(ctx));
    if (C) {
        const spx_index_type want = o->c_rowptr_type ? o->c_rowptr_type : rt;
        CHECK_MSG(C->owns && C->rowptr_type == want && C->precision == o->precision, "%s: C's types", what);
        CHECK(info.inputs_on_device == 1 && info.nnz_c == C->nnz);
        CHECK_OK(ctx, spx_csr_dev_download(C, &H));
        CHECK_MSG(sc_matches(H, r, o->precision, what), "%s: values", what);
        if (host) CHECK_MSG(same_pattern(H, host), "%s: pattern differs from the host path's", what);
        for (int i = 0; phase && i < info.n_phases; i++)
            if (!strcmp(info.phases[i].name, phase)) found = info.phases[i].seconds;
    }
    spx_csr_destroy(&H);
    spx_csr_dev_destroy(&C);
    spx_csr_dev_destroy(&dB);
    spx_csr_dev_destroy(&dA);
    return found;
}

/* Every method, precision and row-pointer type on A*B: the device path against the host
 * path and the reference. */
static void check_all_methods(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, const char *what)
{
    sc_ref r;
    sc_ref_make(A, B, 0, &r);
    for (int t = 0; t < N_METHODS; t++)
        for (int p = 0; p < 2; p++) {
            spx_spgemm_opts o = {.method = METHODS[t].method, .algo = METHODS[t].algo, .backend = SPX_BACKEND_CUDA,
                                 .precision = p ? SPX_FP32 : SPX_FP64};
            spx_csr *host = host_product(ctx, A, B, &o);
            char label[200];
            for (int rt = SPX_INDEX_INT32; rt <= SPX_INDEX_INT64; rt++) {
                snprintf(label, sizeof label, "%s [%s/%s %s, int%d row pointers]", what, METHODS[t].method,
                         METHODS[t].algo ? METHODS[t].algo : "-", spx_precision_str(o.precision),
                         rt == SPX_INDEX_INT32 ? 32 : 64);
                check_dev_product(ctx, A, B, (spx_index_type)rt, &o, &r, host, NULL, label);
            }
            spx_csr_destroy(&host);
        }
    sc_ref_free(&r);
}

static void test_methods(spx_ctx *ctx)
{
    static const char *specs[] = {"gen:poisson2d:n=30", "gen:stencil27:n=8", "gen:powerlaw:m=3000,k=6",
                                  "gen:banded:m=2000,bw=8", "gen:rmat:scale=10,ef=8"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        spx_csr *A = NULL;
        if (spx_gen(ctx, specs[i], &A) == SPX_OK) check_all_methods(ctx, A, A, specs[i]);
        spx_csr_destroy(&A);
    }
    for (int c = 0; c < SC_N_CASES; c++) { /* A*B of distinct shapes, the fallbacks among them */
        spx_csr *A = NULL, *B = NULL;
        if (sc_cases[c].n <= 60000 && sc_case_make(ctx, c, &A, &B)) check_all_methods(ctx, A, B, sc_cases[c].name);
        spx_csr_destroy(&A);
        spx_csr_destroy(&B);
    }
}

/* A*B^T, the CPU method, the panels, fp64 operands in an fp32 plan (converted on the device) and
 * int64 C row pointers from int32 operands: each from device operands. */
static void test_other_paths(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    if (spx_gen(ctx, "gen:powerlaw:m=2000,k=6", &A)) return;
    sc_ref r, rt;
    sc_ref_make(A, A, 0, &r);
    sc_ref_make(A, A, 1, &rt);
    spx_spgemm_opts o = {.transpose_b = 1};
    check_dev_product(ctx, A, A, SPX_INDEX_INT32, &o, &rt, NULL, NULL, "A*A^T from the device");
    sc_check(ctx, A, A, 1, SPX_BACKEND_CUDA, "spx", NULL, SPX_FP64, "A*A^T from the host"); /* B^T uploaded */
    o = (spx_spgemm_opts){.method = "gustavson"};
    check_dev_product(ctx, A, A, SPX_INDEX_INT32, &o, &r, NULL, NULL, "gustavson from the device");
    o = (spx_spgemm_opts){.panels = SPX_PANELS_GPU, .device_mem_limit = 4u << 20};
    check_dev_product(ctx, A, A, SPX_INDEX_INT64, &o, &r, NULL, NULL, "GPU panels from the device");
    o = (spx_spgemm_opts){.c_rowptr_type = SPX_INDEX_INT64};
    check_dev_product(ctx, A, A, SPX_INDEX_INT32, &o, &r, NULL, NULL, "int64 C row pointers from int32 operands");
    /* fp64 operands, fp32 plan: the values converted on the device */
    spx_csr_dev *dA = NULL, *C = NULL;
    spx_csr *H = NULL;
    spx_spgemm_info info;
    CHECK_OK(ctx, spx_csr_dev_upload(ctx, A, SPX_INDEX_INT32, SPX_FP64, &dA));
    o = (spx_spgemm_opts){.precision = SPX_FP32};
    CHECK_OK(ctx, spx_spgemm_dev(ctx, dA, dA, &o, &C, &info));
    int viewed = 0;
    for (int i = 0; i < info.n_phases; i++) viewed |= !strcmp(info.phases[i].name, "view");
    CHECK_MSG(viewed, "no phase 'view' for fp64 operands in an fp32 plan");
    if (C) CHECK_OK(ctx, spx_csr_dev_download(C, &H));
    CHECK(C && C->precision == SPX_FP32 && sc_matches(H, &r, SPX_FP32, "fp64 operands, fp32 plan"));
    spx_csr_destroy(&H);
    spx_csr_dev_destroy(&C);
    spx_csr_dev_destroy(&dA);
    sc_ref_free(&r);
    sc_ref_free(&rt);
    spx_csr_destroy(&A);
}

/* One device plan, runs into the same C, new values written into A's device array; a host plan
 * run into a device C; the device plan run into a host C. */
static void test_runs_and_values(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    if (spx_gen(ctx, "gen:uniform:m=900,k=6", &A)) return;
    for (int t = 0; t < N_METHODS; t++) {
        spx_spgemm_opts o = {.method = METHODS[t].method, .algo = METHODS[t].algo};
        spx_csr_dev *dA = NULL, *C = NULL;
        spx_csr *H = NULL, *A2 = NULL;
        spx_spgemm_plan *p = NULL;
        CHECK_OK(ctx, spx_csr_dev_upload(ctx, A, SPX_INDEX_INT32, SPX_FP64, &dA));
        CHECK_OK(ctx, spx_csr_copy(ctx, A, &A2));
        if (!dA || !A2 || spx_spgemm_plan_create_dev(ctx, dA, dA, &o, &p)) {
            CHECK_MSG(0, "%s: %s", METHODS[t].method, spx_ctx_last_error(ctx));
        } else {
            spx_csr_dev *first = NULL;
            CHECK_OK(ctx, spx_spgemm_run_dev(p, &C));
            first = C;
            for (int64_t q = 0; q < A2->nnz; q++) A2->val[q] = 0.25 * (double)(q % 11) - 0.5;
            CHECK_OK(ctx, spx_cuda_h2d(ctx, dA->val, A2->val, (size_t)A2->nnz * sizeof(double)));
            CHECK_OK(ctx, spx_spgemm_plan_update_values(p));
            CHECK_OK(ctx, spx_spgemm_run_dev(p, &C));
            CHECK(C == first); /* refilled in place */
            sc_ref r;
            sc_ref_make(A2, A2, 0, &r);
            if (C) CHECK_OK(ctx, spx_csr_dev_download(C, &H));
            CHECK_MSG(sc_matches(H, &r, SPX_FP64, "device run after update_values"), "%s/%s", METHODS[t].method,
                      METHODS[t].algo ? METHODS[t].algo : "-");
            spx_csr_destroy(&H);
            CHECK_OK(ctx, spx_spgemm_run(p, &H)); /* the same plan, C on the host */
            CHECK(sc_matches(H, &r, SPX_FP64, "host run of a device plan"));
            sc_ref_free(&r);
            spx_csr_destroy(&H);
        }
        spx_spgemm_plan_destroy(&p);
        spx_csr_dev_destroy(&C);
        CHECK_OK(ctx, spx_spgemm_plan_create(ctx, A, A, &o, &p)); /* a host plan, C on the device */
        if (p) CHECK_OK(ctx, spx_spgemm_run_dev(p, &C));
        sc_ref r;
        sc_ref_make(A, A, 0, &r);
        if (C) CHECK_OK(ctx, spx_csr_dev_download(C, &H));
        CHECK(C && C->rowptr_type == SPX_INDEX_INT64 && sc_matches(H, &r, SPX_FP64, "device run of a host plan"));
        sc_ref_free(&r);
        spx_csr_destroy(&H);
        spx_spgemm_plan_destroy(&p);
        spx_csr_dev_destroy(&C);
        spx_csr_dev_destroy(&dA);
        spx_csr_destroy(&A2);
    }
    spx_csr_destroy(&A);
}

/* Bad operands: an unsorted device operand (its row), a host operand with a column out of range
 * checked on the device as it is uploaded (its row, nothing left allocated). */
static void test_bad_operands(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    if (spx_gen(ctx, "gen:poisson2d:n=10", &A)) return;
    spx_csr_dev *dA = NULL;
    const int32_t keep = A->colind[A->rowptr[7]];
    A->colind[A->rowptr[7]] = A->colind[A->rowptr[7] + 1]; /* row 7 repeats a column */
    CHECK_OK(ctx, spx_csr_dev_upload(ctx, A, SPX_INDEX_INT32, SPX_FP64, &dA));
    CHECK(dA && dA->unsorted_row == 7);
    if (dA) expect_refused(ctx, dA, dA, NULL, SPX_ERR_ARG, "spgemm: A row 7 has unsorted or repeated columns");
    spx_csr_dev_destroy(&dA);
    A->colind[A->rowptr[7]] = keep;
    A->colind[A->rowptr[5] + 1] = A->n + 3; /* row 5: out of range */
    spx_mem_stats before, after;
    spx_ctx_mem_stats(ctx, &before);
    for (int t = 0; t < N_METHODS; t++) {
        spx_spgemm_opts o = {.method = METHODS[t].method, .algo = METHODS[t].algo};
        spx_spgemm_plan *p = NULL;
        CHECK(spx_spgemm_plan_create(ctx, A, A, &o, &p) == SPX_ERR_ARG && !p);
        CHECK_MSG(strstr(spx_ctx_last_error(ctx), "out of range 0..99 (row 5") != NULL, "%s",
                  spx_ctx_last_error(ctx));
    }
    spx_ctx_mem_stats(ctx, &after);
    CHECK(after.device_bytes == before.device_bytes);
    spx_csr_destroy(&A);
}

/* The n-th device allocation of spx_spgemm_dev fails, for every n until none does: an error
 * (DEVICE_ALLOC), *C left NULL and the device holding only the operands again. */
static void test_alloc_failures(void)
{
    for (int t = 0; t < N_METHODS; t++) {
        int done = 0;
        for (long n = 1; n < 60 && !done; n++) {
            spx_ctx *ctx = NULL;
            spx_ctx_opts co = {.backend = SPX_BACKEND_CUDA};
            if (spx_ctx_create(&ctx, &co)) return;
            spx_csr *A = NULL;
            spx_csr_dev *dA = NULL, *C = NULL;
            spx_gen(ctx, "gen:poisson2d:n=30", &A);
            CHECK_OK(ctx, spx_csr_dev_upload(ctx, A, SPX_INDEX_INT32, SPX_FP64, &dA));
            spx_mem_stats before, after;
            spx_ctx_mem_stats(ctx, &before);
            spx_ctx_fail_device_alloc_at(ctx, n);
            spx_spgemm_opts o = {.method = METHODS[t].method, .algo = METHODS[t].algo};
            spx_status s = dA ? spx_spgemm_dev(ctx, dA, dA, &o, &C, NULL) : SPX_ERR_ARG;
            CHECK_MSG(s == SPX_OK || s == SPX_ERR_DEVICE_ALLOC, "%s/%s, fail at %ld: %s: %s", METHODS[t].method,
                      METHODS[t].algo ? METHODS[t].algo : "-", n, spx_status_str(s), spx_ctx_last_error(ctx));
            CHECK(s == SPX_OK ? C != NULL : C == NULL);
            done = s == SPX_OK && ctx->dev_allocs < n;
            spx_csr_dev_destroy(&C);
            spx_ctx_mem_stats(ctx, &after);
            CHECK_MSG(after.device_bytes == before.device_bytes, "%s, fail at %ld: %zu device bytes left",
                      METHODS[t].method, n, after.device_bytes - before.device_bytes);
            spx_csr_dev_destroy(&dA);
            spx_csr_destroy(&A);
            spx_ctx_destroy(&ctx);
        }
        CHECK_MSG(done, "%s/%s never succeeded", METHODS[t].method, METHODS[t].algo ? METHODS[t].algo : "-");
    }
}

/* ---- the context's memory pool: whole calls from device operands ---- */

/* The methods the pool tests take a whole call of, each on a product that exercises its
 * allocations (spx dense: the dense panels' blocks too). */
static const struct pool_case {
    const char *method, *algo, *spec;
} POOL_CASES[] = {{"spx", NULL, "gen:poisson2d:n=30"},
                  {"spx", "dense", "gen:powerlaw:m=20000,k=8,alpha=1.5"},
                  {"cusparse", "alg1", "gen:poisson2d:n=30"}};
#define N_POOL_CASES ((int)(sizeof POOL_CASES / sizeof POOL_CASES[0]))
/* Whole calls in the steady-state check; the pool's size is compared from the third on. */
#define POOL_CALLS 6
#define POOL_WARM_CALL 3
/* How long a caller's stream is held busy before it reads C (test_c_lifetime). */
#define POOL_HOLD_SECONDS 0.05

/* The whole call as `spx bench --op spgemm` times it: A wrapped over dA's arrays (checked on
 * the device), spx_spgemm_dev (plan, run, plan destroyed), the wrap's header destroyed. */
static spx_status whole_call(spx_ctx *ctx, const spx_csr_dev *dA, const spx_spgemm_opts *o, spx_csr_dev **C)
{
    spx_csr_dev *wA = NULL;
    spx_status s = spx_csr_dev_wrap(ctx, dA->m, dA->n, dA->nnz, dA->rowptr_type, dA->rowptr, dA->colind,
                                    dA->precision, dA->val, &wA);
    if (!s) s = spx_spgemm_dev(ctx, wA, wA, o, C, NULL);
    spx_csr_dev_destroy(&wA);
    return s;
}

/* What the context holds on the device: its accounted bytes, its live blocks, and its pool's
 * bytes handed out and reserved (the pool's queued frees done first). */
typedef struct dev_held {
    size_t bytes, blocks, pool_used, pool_reserved;
} dev_held;

static dev_held held_now(spx_ctx *ctx)
{
    dev_held h = {0};
    spx_mem_stats m;
    spx_ctx_mem_stats(ctx, &m);
    h.bytes = m.device_bytes;
    h.blocks = spx_cuda_block_count(ctx);
    CHECK_OK(ctx, spx_cuda_pool_stats(ctx, &h.pool_reserved, &h.pool_used));
    return h;
}

/* Whether the context holds what it held at `was` (the pool's reserve aside) and nothing of the
 * pool is handed out. */
static int held_as(spx_ctx *ctx, dev_held was, const char *what)
{
    const dev_held h = held_now(ctx);
    const int ok = h.bytes == was.bytes && h.blocks == was.blocks && h.pool_used == 0;
    CHECK_MSG(ok, "%s: %zu device bytes in %zu blocks held (%zu, %zu before), %zu bytes of the pool out", what,
              h.bytes, h.blocks, was.bytes, was.blocks, h.pool_used);
    return ok;
}

/* spec's matrix with small-integer values: every sum of products is exact in fp64 whatever its
 * order (the kernels sum with atomics), so two runs' C are equal bit for bit. */
static spx_csr *exact_operand(spx_ctx *ctx, const char *spec)
{
    spx_csr *A = NULL;
    if (spx_gen(ctx, spec, &A)) return NULL;
    for (int64_t q = 0; q < A->nnz; q++) A->val[q] = (double)(q % 5 - 2);
    return A;
}

/* Whether X and Y are the same CSR, values bit for bit. */
static int same_csr(const spx_csr *X, const spx_csr *Y)
{
    return X && Y && same_pattern(X, Y) && (!X->nnz || !memcmp(X->val, Y->val, (size_t)X->nnz * sizeof *X->val));
}

/* Whether X and Y are the same CSR with equal values (-0 equal to +0): the test of a C that an
 * injected failure may have sent down another path (spx/dense: the panels are optional, and a
 * refused panel block leaves the sparse kernels, whose sums of exact operands equal the GEMM's
 * but may cancel to a zero of the other sign: H100, 2026-12-07). */
static int equal_csr(const spx_csr *X, const spx_csr *Y)
{
    if (!X || !Y || !same_pattern(X, Y)) return 0;
    for (int64_t q = 0; q < X->nnz; q++)
        if (X->val[q] != Y->val[q]) return 0;
    return 1;
}

/* C downloaded to the host (NULL when C is NULL or the download fails). */
static spx_csr *host_of(spx_ctx *ctx, const spx_csr_dev *C)
{
    spx_csr *H = NULL;
    if (C) CHECK_OK(ctx, spx_csr_dev_download(C, &H));
    return H;
}

/* One context, POOL_CALLS whole calls of case c: the same C bit for bit each time (and the
 * reference's), everything back after each (bytes, blocks, the pool's), and the pool no larger
 * after the last call than after POOL_WARM_CALL (the steady state takes nothing new). */
static void pool_steady_state(const struct pool_case *c)
{
    spx_ctx *ctx = NULL;
    CHECK_OK(ctx, spx_ctx_create(&ctx, &(spx_ctx_opts){.backend = SPX_BACKEND_CUDA}));
    spx_csr *A = ctx ? exact_operand(ctx, c->spec) : NULL;
    spx_csr_dev *dA = NULL;
    if (A) CHECK_OK(ctx, spx_csr_dev_upload(ctx, A, SPX_INDEX_INT32, SPX_FP64, &dA));
    const spx_spgemm_opts o = {.method = c->method, .algo = c->algo};
    spx_csr *first = NULL;
    size_t warm = 0, last = 0;
    for (int i = 0; dA && i < POOL_CALLS; i++) {
        const dev_held before = held_now(ctx);
        spx_csr_dev *C = NULL;
        CHECK_OK(ctx, whole_call(ctx, dA, &o, &C));
        spx_csr *H = host_of(ctx, C);
        spx_csr_dev_destroy(&C);
        if (i == 0) {
            sc_ref r;
            sc_ref_make(A, A, 0, &r);
            CHECK_MSG(sc_matches(H, &r, SPX_FP64, "pool: first call"), "%s/%s", c->method, c->algo ? c->algo : "-");
            sc_ref_free(&r);
            first = H, H = NULL;
        }
        CHECK_MSG(!H || same_csr(H, first), "%s/%s: call %d's C differs from the first's", c->method,
                  c->algo ? c->algo : "-", i + 1);
        spx_csr_destroy(&H);
        held_as(ctx, before, "pool: after a whole call");
        const size_t reserved = held_now(ctx).pool_reserved;
        if (i + 1 == POOL_WARM_CALL) warm = reserved;
        last = reserved;
    }
    CHECK_MSG(warm > 0 && last == warm, "%s/%s: the pool holds %zu bytes after call %d, %zu after call %d", c->method,
              c->algo ? c->algo : "-", warm, POOL_WARM_CALL, last, POOL_CALLS);
    printf("  pool %s/%s on %s: %d whole calls, C identical, nothing out, pool %zu bytes from call %d on\n",
           c->method, c->algo ? c->algo : "-", c->spec, POOL_CALLS, last, POOL_WARM_CALL);
    spx_csr_destroy(&first);
    spx_csr_dev_destroy(&dA);
    spx_csr_destroy(&A);
    spx_ctx_destroy(&ctx);
}

/* The n-th device allocation of a whole call fails on a warm context, for every n until none
 * does: DEVICE_ALLOC with a message, *C NULL, the context holding what it held before (bytes,
 * blocks, nothing of the pool out), the next call right; at the end, with the operand freed,
 * nothing at all. */
static void pool_injected(const struct pool_case *c)
{
    spx_ctx *ctx = NULL;
    CHECK_OK(ctx, spx_ctx_create(&ctx, &(spx_ctx_opts){.backend = SPX_BACKEND_CUDA}));
    spx_csr *A = ctx ? exact_operand(ctx, c->spec) : NULL, *want = NULL;
    spx_csr_dev *dA = NULL, *C = NULL;
    if (A) CHECK_OK(ctx, spx_csr_dev_upload(ctx, A, SPX_INDEX_INT32, SPX_FP64, &dA));
    const spx_spgemm_opts o = {.method = c->method, .algo = c->algo};
    if (dA) CHECK_OK(ctx, whole_call(ctx, dA, &o, &C)); /* warm: the pool holds the call's memory */
    want = host_of(ctx, C);
    spx_csr_dev_destroy(&C);
    const dev_held before = held_now(ctx);
    int done = 0, failures = 0;
    for (long n = 1; want && n < 80 && !done; n++) {
        spx_ctx_fail_device_alloc_at(ctx, n);
        spx_status s = whole_call(ctx, dA, &o, &C);
        done = s == SPX_OK && ctx->dev_allocs < n;
        spx_ctx_fail_device_alloc_at(ctx, 0);
        failures += s != SPX_OK;
        const int clean_fail = s == SPX_ERR_DEVICE_ALLOC && !C && strstr(spx_ctx_last_error(ctx), "device memory");
        CHECK_MSG(s == SPX_OK || clean_fail, "%s/%s, fail at %ld: %s: %s", c->method, c->algo ? c->algo : "-", n,
                  spx_status_str(s), spx_ctx_last_error(ctx));
        spx_csr *H = host_of(ctx, C);
        CHECK_MSG(!C || equal_csr(H, want), "%s/%s, fail at %ld: C differs", c->method, c->algo ? c->algo : "-", n);
        spx_csr_destroy(&H);
        spx_csr_dev_destroy(&C);
        held_as(ctx, before, "pool: after an injected failure");
        CHECK_OK(ctx, whole_call(ctx, dA, &o, &C)); /* the context still works */
        H = host_of(ctx, C);
        CHECK_MSG(same_csr(H, want), "%s/%s: the call after failing allocation %ld differs", c->method,
                  c->algo ? c->algo : "-", n);
        spx_csr_destroy(&H);
        spx_csr_dev_destroy(&C);
    }
    CHECK_MSG(done, "%s/%s: still failing after 80 injected failures", c->method, c->algo ? c->algo : "-");
    spx_csr_dev_destroy(&dA);
    const dev_held end = held_now(ctx);
    CHECK_MSG(end.bytes == 0 && end.blocks == 0 && end.pool_used == 0, "%s/%s: %zu bytes, %zu blocks left", c->method,
              c->algo ? c->algo : "-", end.bytes, end.blocks);
    printf("  pool %s/%s: %d allocations of a warm whole call failed in turn: clean\n", c->method,
           c->algo ? c->algo : "-", failures);
    spx_csr_destroy(&want);
    spx_csr_destroy(&A);
    spx_ctx_destroy(&ctx);
}

/* C outlives its plan: a plan's C downloaded after the plan is destroyed and other calls reused
 * the pool's memory; then read by a copy queued on another, held stream and destroyed on the
 * context's (default) stream: the copy still reads it whole (the free waits for the device),
 * though the next call may take its memory at once. */
static void test_c_lifetime(spx_ctx *ctx)
{
    spx_csr *A = exact_operand(ctx, "gen:poisson2d:n=30"), *want = NULL, *H = NULL;
    spx_csr_dev *dA = NULL, *C = NULL, *D = NULL;
    spx_spgemm_plan *p = NULL;
    void *stream = NULL, *copy = NULL;
    if (A) CHECK_OK(ctx, spx_csr_dev_upload(ctx, A, SPX_INDEX_INT32, SPX_FP64, &dA));
    if (!dA || spx_spgemm_plan_create_dev(ctx, dA, dA, NULL, &p) || spx_spgemm_run_dev(p, &C)) {
        CHECK_MSG(0, "C lifetime: %s", spx_ctx_last_error(ctx));
        goto done;
    }
    want = host_of(ctx, C);
    spx_spgemm_plan_destroy(&p);
    for (int i = 0; i < 2; i++) { /* calls whose blocks come from what the plan gave back */
        CHECK_OK(ctx, whole_call(ctx, dA, &(spx_spgemm_opts){0}, &D));
        spx_csr_dev_destroy(&D);
    }
    H = host_of(ctx, C);
    CHECK_MSG(same_csr(H, want), "C changed after its plan was destroyed and the pool reused");
    spx_csr_destroy(&H);
    const size_t vbytes = (size_t)C->nnz * sizeof(double);
    CHECK_OK(ctx, spx_cuda_malloc(ctx, &copy, vbytes));
    CHECK_OK(ctx, spx_cuda_stream_create(ctx, &stream));
    if (!copy || !stream) goto done;
    CHECK_OK(ctx, spx_ctx_set_stream(ctx, stream));
    CHECK_OK(ctx, spx_cuda_spin(ctx, POOL_HOLD_SECONDS)); /* the caller's stream, busy */
    CHECK_OK(ctx, spx_cuda_d2d_async(ctx, copy, C->val, vbytes));
    CHECK_OK(ctx, spx_ctx_set_stream(ctx, NULL));
    spx_csr_dev_destroy(&C);
    CHECK_OK(ctx, whole_call(ctx, dA, &(spx_spgemm_opts){0}, &D)); /* may take C's memory */
    double *vals = malloc(vbytes + 8);
    CHECK_OK(ctx, spx_cuda_sync(ctx));
    if (vals) CHECK_OK(ctx, spx_cuda_d2h(ctx, vals, copy, vbytes));
    CHECK_MSG(vals && want && !memcmp(vals, want->val, vbytes),
              "a copy queued on another stream before C's destroy read C changed");
    free(vals);
    printf("C after its plan's destroy, the pool reused: unchanged; destroyed behind a held caller stream: safe\n");
done:
    spx_cuda_stream_destroy(stream);
    spx_cuda_free(ctx, copy);
    spx_spgemm_plan_destroy(&p);
    spx_csr_dev_destroy(&D);
    spx_csr_dev_destroy(&C);
    spx_csr_dev_destroy(&dA);
    spx_csr_destroy(&want);
    spx_csr_destroy(&A);
}

/* The caller's device allocator, for test_pool_hooks: blocks from a second context, counted. */
typedef struct hook_owner {
    spx_ctx *owner;
    long allocs, frees;
} hook_owner;

static int hook_alloc(void *user, void **ptr, size_t bytes)
{
    hook_owner *h = user;
    h->allocs++;
    return spx_cuda_malloc(h->owner, ptr, bytes) == SPX_OK ? 0 : 1;
}

static void hook_free(void *user, void *ptr)
{
    hook_owner *h = user;
    h->frees++;
    spx_cuda_free(h->owner, ptr);
}

/* With the caller's device allocator hooks, a whole call's blocks (the stream-ordered ones
 * too) all come from the hooks and go back to them; the context makes no pool. */
static void test_pool_hooks(void)
{
    hook_owner h = {0};
    CHECK_OK(h.owner, spx_ctx_create(&h.owner, &(spx_ctx_opts){.backend = SPX_BACKEND_CUDA}));
    spx_device_allocator da = {hook_alloc, hook_free, &h};
    spx_ctx *ctx = NULL;
    CHECK_OK(ctx, spx_ctx_create(&ctx, &(spx_ctx_opts){.backend = SPX_BACKEND_CUDA, .device_alloc = &da}));
    spx_csr *A = ctx && h.owner ? exact_operand(ctx, "gen:poisson2d:n=30") : NULL;
    spx_csr_dev *dA = NULL, *C = NULL;
    if (A) CHECK_OK(ctx, spx_csr_dev_upload(ctx, A, SPX_INDEX_INT32, SPX_FP64, &dA));
    const long after_upload = h.allocs;
    for (int i = 0; dA && i < 2; i++) {
        CHECK_OK(ctx, whole_call(ctx, dA, &(spx_spgemm_opts){0}, &C));
        spx_csr *H = host_of(ctx, C);
        sc_ref r;
        sc_ref_make(A, A, 0, &r);
        CHECK(sc_matches(H, &r, SPX_FP64, "whole call through the caller's hooks"));
        sc_ref_free(&r);
        spx_csr_destroy(&H);
        spx_csr_dev_destroy(&C);
    }
    spx_csr_dev_destroy(&dA);
    size_t reserved = 1, used = 1;
    if (ctx) CHECK_OK(ctx, spx_cuda_pool_stats(ctx, &reserved, &used));
    spx_mem_stats owner;
    if (h.owner) spx_ctx_mem_stats(h.owner, &owner);
    CHECK_MSG(h.allocs > after_upload && h.allocs == h.frees && h.owner && owner.device_bytes == 0 && reserved == 0 &&
                  used == 0 && ctx && spx_cuda_block_count(ctx) == 0,
              "hooks: %ld allocations (%ld for the upload), %ld frees; the pool %zu bytes", h.allocs, after_upload,
              h.frees, reserved);
    printf("caller's device hooks: %ld blocks of two whole calls through them, all returned, no pool\n",
           h.allocs - after_upload);
    spx_csr_destroy(&A);
    spx_ctx_destroy(&ctx);
    spx_ctx_destroy(&h.owner);
}

/* The pool of whole calls from device operands: steady state, failures (SPX_GPU_TEST_QUICK,
 * under memcheck: of the first case only), C's lifetime, hooks. */
static void test_pool(spx_ctx *ctx)
{
    const int quick = getenv("SPX_GPU_TEST_QUICK") != NULL;
    printf("the context's memory pool, whole calls (wrap + spx_spgemm_dev):\n");
    for (int c = 0; c < N_POOL_CASES; c++) {
        pool_steady_state(&POOL_CASES[c]);
        if (!quick || c == 0) pool_injected(&POOL_CASES[c]);
    }
    test_c_lifetime(ctx);
    test_pool_hooks();
}

int main(void)
{
    spx_ctx *ctx = NULL;
    spx_ctx_opts co = {.backend = SPX_BACKEND_AUTO};
    CHECK_OK(ctx, spx_ctx_create(&ctx, &co));
    spx_backend b;
    const int device = spx_cuda_compiled() && spx_ctx_resolve_backend(ctx, SPX_BACKEND_CUDA, &b) == SPX_OK;
    /* SPX_GPU_TEST_POOL_ONLY: the pool's cases alone (gpu-check.sh's spgemm-call stage, under
       memcheck in seconds); SPX_GPU_TEST_QUICK: the allocation sweep left out */
    const int pool_only = getenv("SPX_GPU_TEST_POOL_ONLY") != NULL;
    test_arguments(ctx, device);
    if (device && pool_only) {
        test_pool(ctx);
    } else if (device) {
        test_methods(ctx);
        test_other_paths(ctx);
        test_runs_and_values(ctx);
        test_bad_operands(ctx);
        test_pool(ctx);
        if (!getenv("SPX_GPU_TEST_QUICK")) test_alloc_failures();
    } else {
        printf("no CUDA build or device: the device cases skipped\n");
    }
    spx_ctx_destroy(&ctx);
    return check_report();
}
