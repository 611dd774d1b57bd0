/* tests/test_spgemm_ooc_gpu.c: the out-of-core SpGEMM on the GPU: hetero (GPU and CPU) and
 * GPU-only panels under budgets tight enough for dozens of panels against the independent
 * reference (structure exact, values within rounding) and against the in-core CPU product,
 * fp64 and fp32, A*A and A*A^T; the device peak within the budget, nothing left on the device;
 * auto mode switching to panels past the budget and staying in-core within it; a budget too
 * small (one panel, or B) a clear error, and the in-core path under a too-small limit a device
 * allocation error; value updates (B re-uploaded); B split by columns (past its budget, and
 * asked for); a product whose C is over 10x the budget.
 * The GPU side's switches: C bit for bit the same with and without page-locking and with the
 * GPU's row pointers counted or taken from the CPU, nothing left page-locked after a run, a
 * failed plan or a failed run (device allocations refused in turn). SPX_GPU_TEST_QUICK leaves
 * out the large product and the fp32 and A*A^T variants (for compute-sanitizer). Skips (77)
 * without a CUDA build or device. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/gateway.h"
#include "spgemm_ooc_check.h"

/* A page-locking threshold that locks the larger ranges of these tests' products and leaves
 * the smaller ones pageable (spx_spgemm_opts.pin_min_bytes). */
#define OC_PIN_MIN ((size_t)4 << 20)

static const spx_precision precisions[] = {SPX_FP64, SPX_FP32};

/* The device bytes the context holds now. */
static size_t device_held(spx_ctx *ctx)
{
    spx_mem_stats st;
    return spx_ctx_mem_stats(ctx, &st) ? 0 : st.device_bytes;
}

/* Whether [p, p + bytes) page-locks whole now (none of it still is), undone at once. */
static int lockable(spx_ctx *ctx, void *p, size_t bytes)
{
    if (!p || !bytes) return 1;
    const int ok = spx_cuda_host_register(ctx, p, bytes);
    if (ok) spx_cuda_host_unregister(p);
    return ok;
}

/* Whether none of M's arrays is page-locked, not even in part. */
static int none_locked(spx_ctx *ctx, const spx_csr *M)
{
    return M && lockable(ctx, M->rowptr, ((size_t)M->m + 1) * sizeof *M->rowptr) &&
           lockable(ctx, M->colind, (size_t)M->nnz * sizeof *M->colind) &&
           lockable(ctx, M->val, (size_t)M->nnz * sizeof *M->val);
}

/* One split under budget: the reference's structure and values, the in-core CPU product's
 * structure, >= 8 panels (every one the GPU's when split is SPX_PANELS_GPU; in hetero, on a
 * small product the CPU may take them all before the GPU's lane starts: no share is
 * asserted, that would test timing), the device peak within the budget, the timeline,
 * nothing left. */
static void check_split(spx_ctx *ctx, const spx_csr *A, int tr, spx_precision p, spx_spgemm_panels split,
                        size_t budget, int b_blocks, const sc_ref *ref, const spx_csr *R, const char *what)
{
    static spx_spgemm_panel_event ev[8192];
    char label[192];
    snprintf(label, sizeof label, "%s [%s %s%s, budget %zu, B blocks %d]", what, split == SPX_PANELS_GPU ? "gpu" : "hetero",
             spx_precision_str(p), tr ? " B^T" : "", budget, b_blocks);
    const size_t held0 = device_held(ctx);
    spx_csr *C = NULL;
    spx_spgemm_info info;
    int n_ev = 0;
    spx_status s = oc_product(ctx, A, A, tr, p, split, budget, 0, b_blocks, &C, &info, ev, 8192, &n_ev);
    CHECK_MSG(s == SPX_OK && sc_matches(C, ref, p, label) && oc_close(C, R, p == SPX_FP32 ? 1e-5 : 1e-12), "%s: %s: %s",
              label, spx_status_str(s), spx_ctx_last_error(ctx));
    if (!s) {
        CHECK_MSG(info.panels >= 8 && info.device_peak_bytes <= budget &&
                      (info.device_peak_bytes > 0 || info.panels_gpu == 0) &&
                      info.backend == SPX_BACKEND_CUDA && info.gpu_lanes >= 1 && info.gpu_idle_s >= 0 &&
                      info.panels_gpu + info.panels_cpu == info.panels &&
                      (split != SPX_PANELS_GPU || info.panels_gpu == info.panels) &&
                      (b_blocks == 1   ? info.b_col_blocks == 1
                       : b_blocks == 0 ? info.b_col_blocks > 1
                                       : info.b_col_blocks >= b_blocks && info.b_col_blocks <= b_blocks + 1),
                  "%s: %d panels (GPU %d, CPU %d), device peak %zu, B in %d blocks", label, info.panels,
                  info.panels_gpu, info.panels_cpu, info.device_peak_bytes, info.b_col_blocks);
        oc_check_timeline(ev, n_ev, &info, A->m, label);
        printf("%s: %d panels, B in %d blocks, GPU %d CPU %d stolen %d, K %.2f R %.2f run %.2f, peak %zu, GPU "
               "transfer %.2f ms compute %.2f ms (lanes summed) idle %.2f ms\n",
               label, info.panels, info.b_col_blocks, info.panels_gpu, info.panels_cpu, info.panels_stolen,
               info.k_ratio, info.gpu_share, info.gpu_share_run, info.device_peak_bytes, info.gpu_transfer_s * 1e3,
               info.gpu_compute_s * 1e3, info.gpu_idle_s * 1e3);
    }
    CHECK_MSG(device_held(ctx) == held0, "%s: %zu device bytes left", label, device_held(ctx) - held0);
    spx_csr_destroy(&C);
}

/* Every split of one product at a budget just above the smallest, with room for ~40 panels. */
static void check_product(spx_ctx *ctx, const spx_csr *A, int tr, spx_precision p, const char *what)
{
    char msg[OC_MSG_LEN];
    spx_csr *R = NULL;
    CHECK_OK(ctx, oc_cpu_product(ctx, A, A, tr, p, &R));
    const size_t min = oc_min_budget(ctx, A, A, tr, p, 1, msg, sizeof msg);
    if (!R || !min) {
        spx_csr_destroy(&R);
        return;
    }
    const size_t budget = min + (size_t)R->nnz * (sizeof(int32_t) + spx_precision_bytes(p)) / 40;
    sc_ref ref;
    sc_ref_make(A, A, tr, &ref);
    check_split(ctx, A, tr, p, SPX_PANELS_HETERO, budget, 1, &ref, R, what);
    check_split(ctx, A, tr, p, SPX_PANELS_GPU, budget, 1, &ref, R, what);
    spx_csr *C = NULL; /* the third side of the comparison: CPU-only panels, the same budget */
    CHECK_OK(ctx, oc_product(ctx, A, A, tr, p, SPX_PANELS_CPU, budget, 0, 1, &C, NULL, NULL, 0, NULL));
    CHECK_MSG(oc_identical(C, R), "%s [cpu panels]: differs from the in-core CPU product", what);
    spx_csr_destroy(&C);
    sc_ref_free(&ref);
    spx_csr_destroy(&R);
}

static void test_generated(spx_ctx *ctx)
{
    static const char *specs[] = {"gen:poisson2d:n=60", "gen:poisson3d:n=14", "gen:rmat:scale=11,ef=8",
                                  "gen:uniform:m=4000,k=8", "gen:powerlaw:m=3000,k=6"};
    const int variants = getenv("SPX_GPU_TEST_QUICK") ? 1 : 2;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        spx_csr *A = NULL;
        CHECK_OK(ctx, spx_gen(ctx, specs[i], &A));
        for (int p = 0; A && p < variants; p++)
            for (int tr = 0; tr < variants; tr++) check_product(ctx, A, tr, precisions[p], specs[i]);
        spx_csr_destroy(&A);
    }
}

/* The edge cases (empty, rectangular, dense rows and columns) in hetero and GPU panels without
 * a limit, beside the in-core spx product. */
static void test_edge_cases(spx_ctx *ctx)
{
    for (int c = 0; c < SC_N_CASES; c++) {
        spx_csr *A = NULL, *B = NULL;
        if (!sc_case_make(ctx, c, &A, &B)) continue;
        sc_check(ctx, A, B, 0, SPX_BACKEND_CUDA, "spx", NULL, SPX_FP64, sc_cases[c].name);
        sc_ref ref;
        sc_ref_make(A, B, 0, &ref);
        for (int g = 0; g < 2; g++) {
            spx_csr *C = NULL;
            spx_status s = oc_product(ctx, A, B, 0, SPX_FP64, g ? SPX_PANELS_GPU : SPX_PANELS_HETERO, 0, 0, 1, &C, NULL,
                                      NULL, 0, NULL);
            CHECK_MSG(s == SPX_OK && sc_matches(C, &ref, SPX_FP64, sc_cases[c].name), "%s [%s panels]: %s: %s",
                      sc_cases[c].name, g ? "gpu" : "hetero", spx_status_str(s), spx_ctx_last_error(ctx));
            spx_csr_destroy(&C);
        }
        sc_ref_free(&ref);
        spx_csr_destroy(&A);
        spx_csr_destroy(&B);
    }
}

/* Auto: panels past the budget (hetero), in-core within it. */
static void test_auto(spx_ctx *ctx)
{
    spx_csr *A = NULL, *R = NULL, *C = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:rmat:scale=12,ef=8", &A));
    if (A) CHECK_OK(ctx, oc_product(ctx, A, A, 0, SPX_FP64, SPX_PANELS_OFF, 0, 0, 1, &R, NULL, NULL, 0, NULL));
    char msg[OC_MSG_LEN];
    const size_t min = R ? oc_min_budget(ctx, A, A, 0, SPX_FP64, 1, msg, sizeof msg) : 0;
    spx_spgemm_info info;
    for (int big = 0; min && big < 2; big++) {
        const size_t limit = big ? (size_t)1 << 31 : min + (size_t)R->nnz;
        spx_spgemm_opts o = {.backend = SPX_BACKEND_CUDA, .device_mem_limit = limit};
        spx_spgemm_plan *plan = NULL;
        CHECK_OK(ctx, spx_spgemm_plan_create(ctx, A, A, &o, &plan));
        if (plan) CHECK_OK(ctx, spx_spgemm_run(plan, &C));
        if (plan) spx_spgemm_plan_get_info(plan, &info);
        CHECK_MSG(plan && oc_close(C, R, 1e-12) && !strcmp(info.panel_mode, big ? "in-core" : "panels") &&
                      (big || !strcmp(info.panel_split, "hetero")) && info.device_peak_bytes <= limit,
                  "auto, limit %zu: mode %s %s, peak %zu", limit, info.panel_mode, info.panel_split,
                  info.device_peak_bytes);
        spx_csr_destroy(&C);
        spx_spgemm_plan_destroy(&plan);
    }
    spx_csr_destroy(&R);
    spx_csr_destroy(&A);
}

/* Budgets too small: for panels a clear error naming the budget; in-core (panels off) a
 * device allocation refused by the budget; nothing left on the device. */
static void test_too_small(spx_ctx *ctx)
{
    spx_csr *A = NULL, *C = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:poisson2d:n=100", &A));
    if (!A) return;
    const size_t held0 = device_held(ctx);
    spx_status s = oc_product(ctx, A, A, 0, SPX_FP64, SPX_PANELS_HETERO, 100000, 0, 1, &C, NULL, NULL, 0, NULL);
    CHECK_MSG(s == SPX_ERR_DEVICE_ALLOC && strstr(spx_ctx_last_error(ctx), "device budget"), "hetero, 100 kB: %s: %s",
              spx_status_str(s), spx_ctx_last_error(ctx));
    s = oc_product(ctx, A, A, 0, SPX_FP64, SPX_PANELS_OFF, 100000, 0, 1, &C, NULL, NULL, 0, NULL);
    CHECK_MSG(s == SPX_ERR_DEVICE_ALLOC && strstr(spx_ctx_last_error(ctx), "device budget"), "in-core, 100 kB: %s: %s",
              spx_status_str(s), spx_ctx_last_error(ctx));
    CHECK(C == NULL && device_held(ctx) == held0);
    spx_csr_destroy(&A);
}

/* A plan with options o, run; A's values changed (B's too: A*A), update_values and a run
 * into the same C: the reference of the new values, nothing left page-locked. */
static void check_updated(spx_ctx *ctx, spx_csr *A, const spx_spgemm_opts *o, const char *what)
{
    spx_csr *C = NULL;
    spx_spgemm_plan *plan = NULL;
    CHECK_OK(ctx, spx_spgemm_plan_create(ctx, A, A, o, &plan));
    if (plan) CHECK_OK(ctx, spx_spgemm_run(plan, &C));
    for (int64_t q = 0; q < A->nnz; q++) A->val[q] = 0.25 * (double)(q % 11) - 0.5;
    if (plan) CHECK_OK(ctx, spx_spgemm_plan_update_values(plan));
    if (plan) CHECK_OK(ctx, spx_spgemm_run(plan, &C));
    sc_ref ref;
    sc_ref_make(A, A, 0, &ref);
    CHECK_MSG(sc_matches(C, &ref, SPX_FP64, what) && none_locked(ctx, A) && none_locked(ctx, C), "%s", what);
    sc_ref_free(&ref);
    spx_csr_destroy(&C);
    spx_spgemm_plan_destroy(&plan);
}

/* New values of A and B on hetero panels, every range page-locked: the next run into the
 * same C uses them (B re-uploaded), nothing left page-locked. */
static void test_update_values(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:uniform:m=3000,k=6", &A));
    if (!A) return;
    char msg[OC_MSG_LEN];
    const size_t min = oc_min_budget(ctx, A, A, 0, SPX_FP64, 1, msg, sizeof msg);
    const spx_spgemm_opts o = {.device_mem_limit = min + 100000, .panels = SPX_PANELS_HETERO, .pin_min_bytes = 1};
    check_updated(ctx, A, &o, "hetero panels after update_values");
    spx_csr_destroy(&A);
}

/* The seconds of the info's phase `name`; -1 when it has none. */
static double phase_of(const spx_spgemm_info *in, const char *name)
{
    for (int i = 0; i < in->n_phases; i++)
        if (!strcmp(in->phases[i].name, name)) return in->phases[i].seconds;
    return -1;
}

/* A's values made small nonzero integers: every sum of products is exact whatever its order
 * (on either side), so that results compare bit for bit; no zero, whose products' signs
 * (-0 or +0) would depend on the order of the sum. */
static void integer_values(spx_csr *A)
{
    for (int64_t q = 0; q < A->nnz; q++) A->val[q] = (double)(q % 7 < 3 ? q % 7 - 3 : q % 7 - 2);
}

/* The GPU side's switches of one run: page-lock ranges of pin_min bytes and more (SIZE_MAX:
 * none), take C's row pointers from the CPU (take_rows) or count them on the GPU. */
typedef struct gpu_switches {
    size_t pin_min;
    int take_rows;
} gpu_switches;

/* A*A in `split` panels under budget (fp p), page-locking ranges of pin_min bytes and more
 * (SIZE_MAX: none), the GPU taking C's row pointers from the CPU (take_rows) or counting. */
static spx_status oc_product_switched(spx_ctx *ctx, const spx_csr *A, spx_precision p, spx_spgemm_panels split,
                                      size_t budget, size_t pin_min, int take_rows, spx_csr **C, spx_spgemm_info *info)
{
    const spx_spgemm_opts o = {.precision = p, .device_mem_limit = budget, .panels = split,
                               .pin_min_bytes = pin_min == SIZE_MAX ? 0 : pin_min, .gpu_counts_rows = !take_rows};
    return oc_run(ctx, A, A, &o, C, info, NULL, 0, NULL);
}

/* A*A in `split` panels under budget with the switches sw; C
 * and info out; afterwards nothing of A or C page-locked, and the phase "pin" reported
 * exactly when pinning was on. */
static spx_status switched_run(spx_ctx *ctx, const spx_csr *A, spx_precision p, spx_spgemm_panels split, size_t budget,
                               gpu_switches sw, spx_csr **C, const char *what)
{
    spx_spgemm_info info;
    spx_status s = oc_product_switched(ctx, A, p, split, budget, sw.pin_min, sw.take_rows, C, &info);
    CHECK_MSG(s == SPX_OK, "%s: %s: %s", what, spx_status_str(s), spx_ctx_last_error(ctx));
    if (s) return s;
    CHECK_MSG(none_locked(ctx, A) && none_locked(ctx, *C), "%s: A or C left page-locked", what);
    const double pin = phase_of(&info, "pin");
    CHECK_MSG(sw.pin_min == SIZE_MAX ? pin < 0 : pin >= 0, "%s: pin phase %.6f s", what, pin);
    return s;
}

/* One product, split and precision under every switch against both off (the path before
 * either): bit for bit when `exact` (integer values), or when the GPU's sums repeat bit for
 * bit run to run (GPU-only panels; checked by a second run) and the switch keeps the GPU
 * counting C's rows (taking the CPU's row pointers, the GPU does not know the products and
 * skips its warp rows, spx_gpu.cu's warp_bin: another summation order); else within rounding. */
static void check_switches(spx_ctx *ctx, const spx_csr *A, spx_precision p, spx_spgemm_panels split, size_t budget,
                           int exact, const char *what)
{
    static const gpu_switches sws[] = {{1, 0}, {1, 1}, {OC_PIN_MIN, 1}, {SIZE_MAX, 1}};
    const gpu_switches off = {SIZE_MAX, 0};
    char label[192];
    snprintf(label, sizeof label, "%s [%s %s, %s values]", what, split == SPX_PANELS_GPU ? "gpu" : "hetero",
             spx_precision_str(p), exact ? "integer" : "generated");
    spx_csr *base[2] = {NULL, NULL}; /* both off, twice: whether the GPU's sums repeat */
    const int ran = !switched_run(ctx, A, p, split, budget, off, &base[0], label) &&
                    !switched_run(ctx, A, p, split, budget, off, &base[1], label);
    const int repeats = ran && oc_identical(base[0], base[1]);
    CHECK_MSG(!ran || !exact || repeats, "%s: two runs without the switches differ", label);
    if (ran && !exact && !repeats) printf("%s: GPU sums differ run to run: compared within rounding\n", label);
    for (size_t i = 0; ran && i < sizeof sws / sizeof sws[0]; i++) {
        spx_csr *C = NULL;
        if (!switched_run(ctx, A, p, split, budget, sws[i], &C, label))
            CHECK_MSG(exact || (repeats && sws[i].take_rows == off.take_rows)
                          ? oc_identical(C, base[0])
                          : oc_close(C, base[0], p == SPX_FP32 ? 1e-5 : 1e-12),
                      "%s: pin_min %zu, take_rows %d: C differs from the run without either", label, sws[i].pin_min,
                      sws[i].take_rows);
        spx_csr_destroy(&C);
    }
    for (int b = 0; b < 2; b++) spx_csr_destroy(&base[b]);
}

/* The switches on generated values (GPU-only panels: one side's sums) and on integer values
 * (both splits: exact), at a budget with room for ~40 panels. */
static void test_switches(spx_ctx *ctx)
{
    spx_csr *A = NULL, *R = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:rmat:scale=12,ef=8", &A));
    const int variants = getenv("SPX_GPU_TEST_QUICK") ? 1 : 2;
    char msg[OC_MSG_LEN];
    for (int exact = 0; A && exact < 2; exact++) {
        if (exact) integer_values(A);
        for (int pi = 0; pi < variants; pi++) {
            const spx_precision p = precisions[pi];
            const size_t min = oc_min_budget(ctx, A, A, 0, p, 1, msg, sizeof msg);
            CHECK_OK(ctx, oc_cpu_product(ctx, A, A, 0, p, &R));
            if (!min || !R) break;
            const size_t budget = min + (size_t)R->nnz * (sizeof(int32_t) + spx_precision_bytes(p)) / 40;
            check_switches(ctx, A, p, SPX_PANELS_GPU, budget, exact, "rmat 12 A*A");
            if (exact) check_switches(ctx, A, p, SPX_PANELS_HETERO, budget, exact, "rmat 12 A*A");
            spx_csr_destroy(&R);
        }
    }
    spx_csr_destroy(&R);
    spx_csr_destroy(&A);
}

/* A device allocator whose n-th request is refused: blocks from an owner context, under a
 * lock (the GPU lanes allocate from threads of their own). */
typedef struct refusing_pool {
    spx_ctx *owner;
    pthread_mutex_t lock;
    long calls, refuse_at; /* refuse_at: the request refused (0: none) */
} refusing_pool;

static int refusing_alloc(void *user, void **ptr, size_t bytes)
{
    refusing_pool *h = user;
    pthread_mutex_lock(&h->lock);
    const int refused = ++h->calls == h->refuse_at;
    const int rc = refused || spx_cuda_malloc(h->owner, ptr, bytes) != SPX_OK;
    pthread_mutex_unlock(&h->lock);
    return rc;
}

static void refusing_free(void *user, void *ptr)
{
    refusing_pool *h = user;
    pthread_mutex_lock(&h->lock);
    spx_cuda_free(h->owner, ptr);
    pthread_mutex_unlock(&h->lock);
}

/* Plans with every device allocation refused in turn (the K sample's panels among them) until
 * one succeeds: after each failure nothing of A page-locked and nothing left on the device.
 * The plan that succeeded is *plan. */
static void refuse_plans(spx_ctx *ctx, refusing_pool *pool, const spx_csr *A, const spx_spgemm_opts *o,
                         spx_spgemm_plan **plan)
{
    for (long n = 1; !*plan && n < 200; n++) {
        pthread_mutex_lock(&pool->lock);
        pool->refuse_at = pool->calls + n;
        pthread_mutex_unlock(&pool->lock);
        spx_status s = spx_spgemm_plan_create(ctx, A, A, o, plan);
        CHECK_MSG(s == SPX_OK || (none_locked(ctx, A) && device_held(pool->owner) == 0),
                  "plan, request %ld refused: %s; A page-locked or %zu device bytes left", n, spx_status_str(s),
                  device_held(pool->owner));
    }
    pool->refuse_at = 0;
}

/* Runs into a reused C with the lanes' device allocations refused in turn: after each failure
 * nothing of A or C page-locked and only B left on the device; then a run as the first. */
static void refuse_runs(spx_ctx *ctx, refusing_pool *pool, const spx_csr *A, spx_spgemm_plan *plan)
{
    spx_csr *C = NULL, *C0 = NULL;
    CHECK_OK(ctx, spx_spgemm_run(plan, &C0));
    const size_t held = device_held(pool->owner);
    int failed = 0;
    for (long n = 1; C0 && n < 64; n += 1 + n / 4) {
        if (!C) CHECK_OK(ctx, spx_spgemm_run(plan, &C));
        pthread_mutex_lock(&pool->lock);
        pool->refuse_at = pool->calls + n;
        pthread_mutex_unlock(&pool->lock);
        spx_status s = C ? spx_spgemm_run(plan, &C) : SPX_ERR_ARG;
        pool->refuse_at = 0;
        failed += s != SPX_OK;
        CHECK_MSG(none_locked(ctx, A) && none_locked(ctx, C) && device_held(pool->owner) == held,
                  "run, request %ld refused: %s; A or C page-locked, or %zu device bytes held (plan %zu)", n,
                  spx_status_str(s), device_held(pool->owner), held);
    }
    if (C) CHECK_OK(ctx, spx_spgemm_run(plan, &C));
    CHECK_MSG(failed > 0 && oc_identical(C, C0), "runs refused: %d failed, then C %s", failed,
              oc_identical(C, C0) ? "as before" : "differs");
    spx_csr_destroy(&C);
    spx_csr_destroy(&C0);
}

/* Page-locking every range (pin_min 1) through failures: plans (hetero, K measured: the
 * sample's GPU panels on the plan's context) and runs (the lanes, the GPU's share fixed at
 * 0.5), on a context whose device allocator refuses one request in turn. */
static void test_pin_failures(void)
{
    refusing_pool pool = {.lock = PTHREAD_MUTEX_INITIALIZER};
    spx_device_allocator da = {refusing_alloc, refusing_free, &pool};
    spx_ctx *ctx = NULL;
    spx_csr *A = NULL;
    spx_spgemm_plan *plan = NULL;
    CHECK(spx_ctx_create(&pool.owner, &(spx_ctx_opts){.backend = SPX_BACKEND_CUDA}) == SPX_OK);
    if (pool.owner) CHECK_OK(pool.owner, spx_cuda_init(pool.owner));
    CHECK(spx_ctx_create(&ctx, &(spx_ctx_opts){.backend = SPX_BACKEND_CUDA, .device_alloc = &da}) == SPX_OK);
    if (ctx) CHECK_OK(ctx, spx_gen(ctx, "gen:uniform:m=3000,k=6", &A));
    char msg[OC_MSG_LEN];
    const size_t min = A ? oc_min_budget(ctx, A, A, 0, SPX_FP64, 1, msg, sizeof msg) : 0;
    if (min) {
        integer_values(A);
        const spx_spgemm_opts o = {.device_mem_limit = min + 100000, .panels = SPX_PANELS_HETERO, .pin_min_bytes = 1};
        refuse_plans(ctx, &pool, A, &o, &plan);
        CHECK_MSG(plan != NULL, "no plan with every device request granted");
        spx_spgemm_plan_destroy(&plan);
        /* the runs with the GPU's share fixed: with K measured, a GPU lane may take no panel
         * (the queue's cost check) and then no lane allocation would be refused */
        spx_spgemm_opts half = o;
        half.gpu_share = 0.5;
        CHECK_OK(ctx, spx_spgemm_plan_create(ctx, A, A, &half, &plan));
        if (plan) refuse_runs(ctx, &pool, A, plan);
    }
    spx_spgemm_plan_destroy(&plan);
    spx_csr_destroy(&A);
    spx_ctx_destroy(&ctx);
    CHECK_MSG(!pool.owner || device_held(pool.owner) == 0, "%zu device bytes left", device_held(pool.owner));
    spx_ctx_destroy(&pool.owner);
}

/* The run of A*A in `split` panels under budget with each switch on and off (C within
 * rounding of R), its seconds, transfers, compute and GPU idle printed for comparison. */
static void report_switches(spx_ctx *ctx, const spx_csr *A, const spx_csr *R, spx_spgemm_panels split, size_t budget)
{
    for (int sw = 0; sw < 4; sw++) {
        const size_t pin_min = sw & 1 ? SIZE_MAX : OC_PIN_MIN;
        const int take_rows = !(sw & 2);
        spx_csr *C = NULL;
        spx_spgemm_info info;
        spx_status s = oc_product_switched(ctx, A, SPX_FP64, split, budget, pin_min, take_rows, &C, &info);
        CHECK_MSG(s == SPX_OK && oc_close(C, R, 1e-12), "switches %d: %s: %s", sw, spx_status_str(s),
                  spx_ctx_last_error(ctx));
        if (!s)
            printf("  %s, %s: run %.3f s, GPU transfer %.1f ms (pin %.1f) compute %.1f ms idle %.1f ms "
                   "(lanes summed)\n",
                   pin_min == SIZE_MAX ? "pageable   " : "page-locked", take_rows ? "CPU's rows" : "GPU counts",
                   info.run_seconds, info.gpu_transfer_s * 1e3, phase_of(&info, "pin") * 1e3, info.gpu_compute_s * 1e3,
                   info.gpu_idle_s * 1e3);
        spx_csr_destroy(&C);
    }
}

/* C over 10x the budget: completes on hetero and GPU-only panels, the device peak within the
 * budget, C as the in-core CPU product's. */
static void test_c_over_budget(spx_ctx *ctx)
{
    spx_csr *A = NULL, *R = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:rmat:scale=15,ef=16", &A));
    if (A) CHECK_OK(ctx, oc_product(ctx, A, A, 0, SPX_FP64, SPX_PANELS_OFF, 0, 0, 1, &R, NULL, NULL, 0, NULL));
    char msg[OC_MSG_LEN];
    const size_t min = R ? oc_min_budget(ctx, A, A, 0, SPX_FP64, 1, msg, sizeof msg) : 0;
    const size_t c_bytes = R ? (size_t)R->nnz * 12 : 0, budget = min + c_bytes / 40;
    for (int g = 0; min && g < 2; g++) {
        spx_csr *C = NULL;
        spx_spgemm_info info;
        spx_status s = oc_product(ctx, A, A, 0, SPX_FP64, g ? SPX_PANELS_GPU : SPX_PANELS_HETERO, budget, 0, 1, &C, &info,
                                  NULL, 0, NULL);
        CHECK_MSG(s == SPX_OK && c_bytes > 10 * budget && oc_close(C, R, 1e-12) && info.device_peak_bytes <= budget,
                  "C %zu bytes, budget %zu: %s: %s", c_bytes, budget, spx_status_str(s), spx_ctx_last_error(ctx));
        if (!s)
            printf("rmat 15 A*A (C %zu bytes) in %s panels, budget %zu: %d panels, peak %zu, run %.3f s\n", c_bytes,
                   g ? "gpu" : "hetero", budget, info.panels, info.device_peak_bytes, info.run_seconds);
        spx_csr_destroy(&C);
        report_switches(ctx, A, R, g ? SPX_PANELS_GPU : SPX_PANELS_HETERO, budget);
    }
    spx_csr_destroy(&R);
    spx_csr_destroy(&A);
}

/* B split by columns on the GPU (a product whose B rows are long, so that blocks beat B
 * resident): at a budget B resident does not fit (auto splits it) and with 4 blocks asked
 * for at a budget it would fit, hetero and GPU-only, fp64 and fp32: as check_split (the
 * reference, the CPU product's structure, the device peak within the budget, the timeline,
 * nothing left), B reported in blocks; new values reach the blocks. */
static void test_b_columns(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:uniform:m=3000,k=40", &A));
    for (int p = 0; A && p < 2; p++) {
        const size_t resident = oc_min_budget(ctx, A, A, 0, precisions[p], 1, NULL, 0);
        const size_t least = oc_min_budget(ctx, A, A, 0, precisions[p], 0, NULL, 0);
        CHECK_MSG(least > 0 && least < resident, "smallest budget %zu, B resident %zu", least, resident);
        spx_csr *R = NULL;
        CHECK_OK(ctx, oc_cpu_product(ctx, A, A, 0, precisions[p], &R));
        sc_ref ref;
        sc_ref_make(A, A, 0, &ref);
        const size_t below = (least + resident) / 2;
        for (int g = 0; R && g < 2; g++) {
            const spx_spgemm_panels split = g ? SPX_PANELS_GPU : SPX_PANELS_HETERO;
            check_split(ctx, A, 0, precisions[p], split, below, 0, &ref, R, "uniform 3000 x 40, B split");
            check_split(ctx, A, 0, precisions[p], split, resident + resident / 2, 4, &ref, R,
                        "uniform 3000 x 40, B in 4 blocks asked");
        }
        sc_ref_free(&ref);
        spx_csr_destroy(&R);
        if (p) continue;
        const spx_spgemm_opts o = {.device_mem_limit = below, .panels = SPX_PANELS_GPU};
        check_updated(ctx, A, &o, "GPU panels, B in blocks, after update_values");
    }
    spx_csr_destroy(&A);
}

int main(void)
{
    spx_ctx *ctx = NULL;
    spx_ctx_opts co = {.backend = SPX_BACKEND_CUDA};
    spx_backend b;
    if (!spx_cuda_compiled() || spx_ctx_create(&ctx, &co) || spx_ctx_resolve_backend(ctx, SPX_BACKEND_CUDA, &b)) {
        printf("no CUDA build or device: skipped\n");
        spx_ctx_destroy(&ctx);
        return 77;
    }
    test_generated(ctx);
    test_edge_cases(ctx);
    test_auto(ctx);
    test_too_small(ctx);
    test_update_values(ctx);
    test_b_columns(ctx);
    test_switches(ctx);
    if (!getenv("SPX_GPU_TEST_QUICK")) test_c_over_budget(ctx);
    spx_ctx_destroy(&ctx);
    test_pin_failures();
    return check_report();
}
