/* tests/test_spgemm_ooc_gpu.c: the out-of-core SpGEMM on the GPU: hetero (GPU and CPU) and
 * GPU-only panels under budgets tight enough for dozens of panels against the independent
 * reference (structure exact, values within rounding) and against the in-core CPU product,
 * fp64 and fp32, A*A and A*A^T; the device peak within the budget, nothing left on the device;
 * auto mode switching to panels past the budget and staying in-core within it; a budget too
 * small (one panel, or B) a clear error, and the in-core path under a too-small limit a device
 * allocation error; value updates (B re-uploaded); a product whose C is over 10x the budget.
 * SPX_GPU_TEST_QUICK leaves out the large product and the fp32 and A*A^T variants (for
 * compute-sanitizer). Skips (77) without a CUDA build or device. */
#include <stdlib.h>
#include <string.h>

#include "spgemm_ooc_check.h"

static const spx_precision precisions[] = {SPX_FP64, SPX_FP32};

/* The device bytes the context holds now. */
static size_t device_held(spx_ctx *ctx)
{
    spx_mem_stats st;
    return spx_ctx_mem_stats(ctx, &st) ? 0 : st.device_bytes;
}

/* One split under budget: the reference's structure and values, the in-core CPU product's
 * structure, >= 8 panels, the device peak within the budget, the timeline, nothing left. */
static void check_split(spx_ctx *ctx, const spx_csr *A, int tr, spx_precision p, spx_spgemm_panels split,
                        size_t budget, const sc_ref *ref, const spx_csr *R, const char *what)
{
    static spx_spgemm_panel_event ev[8192];
    char label[192];
    snprintf(label, sizeof label, "%s [%s %s%s, budget %zu]", what, split == SPX_PANELS_GPU ? "gpu" : "hetero",
             spx_precision_str(p), tr ? " B^T" : "", budget);
    const size_t held0 = device_held(ctx);
    spx_csr *C = NULL;
    spx_spgemm_info info;
    int n_ev = 0;
    spx_status s = oc_product(ctx, A, A, tr, p, split, budget, 0, &C, &info, ev, 8192, &n_ev);
    CHECK_MSG(s == SPX_OK && sc_matches(C, ref, p, label) && oc_close(C, R, p == SPX_FP32 ? 1e-5 : 1e-12), "%s: %s: %s",
              label, spx_status_str(s), spx_ctx_last_error(ctx));
    if (!s) {
        CHECK_MSG(info.panels >= 8 && info.device_peak_bytes <= budget && info.device_peak_bytes > 0 &&
                      info.backend == SPX_BACKEND_CUDA && info.gpu_lanes >= 1 && info.gpu_idle_s >= 0 &&
                      (split != SPX_PANELS_GPU || info.panels_gpu == info.panels) && info.panels_gpu > 0,
                  "%s: %d panels (GPU %d, CPU %d), device peak %zu", label, info.panels, info.panels_gpu,
                  info.panels_cpu, info.device_peak_bytes);
        oc_check_timeline(ev, n_ev, &info, A->m, label);
        printf("%s: %d panels, GPU %d CPU %d stolen %d, K %.2f R %.2f run %.2f, peak %zu, GPU transfer %.2f ms "
               "compute %.2f ms (lanes summed) idle %.2f ms\n",
               label, info.panels, info.panels_gpu, info.panels_cpu, info.panels_stolen, info.k_ratio, info.gpu_share,
               info.gpu_share_run, info.device_peak_bytes, info.gpu_transfer_s * 1e3, info.gpu_compute_s * 1e3,
               info.gpu_idle_s * 1e3);
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
    const size_t min = oc_min_budget(ctx, A, A, tr, p, msg, sizeof msg);
    if (!R || !min) {
        spx_csr_destroy(&R);
        return;
    }
    const size_t budget = min + (size_t)R->nnz * (sizeof(int32_t) + spx_precision_bytes(p)) / 40;
    sc_ref ref;
    sc_ref_make(A, A, tr, &ref);
    check_split(ctx, A, tr, p, SPX_PANELS_HETERO, budget, &ref, R, what);
    check_split(ctx, A, tr, p, SPX_PANELS_GPU, budget, &ref, R, what);
    spx_csr *C = NULL; /* the third side of the comparison: CPU-only panels, the same budget */
    CHECK_OK(ctx, oc_product(ctx, A, A, tr, p, SPX_PANELS_CPU, budget, 0, &C, NULL, NULL, 0, NULL));
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
            spx_status s = oc_product(ctx, A, B, 0, SPX_FP64, g ? SPX_PANELS_GPU : SPX_PANELS_HETERO, 0, 0, &C, NULL,
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
    if (A) CHECK_OK(ctx, oc_product(ctx, A, A, 0, SPX_FP64, SPX_PANELS_OFF, 0, 0, &R, NULL, NULL, 0, NULL));
    char msg[OC_MSG_LEN];
    const size_t min = R ? oc_min_budget(ctx, A, A, 0, SPX_FP64, msg, sizeof msg) : 0;
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
    spx_status s = oc_product(ctx, A, A, 0, SPX_FP64, SPX_PANELS_HETERO, 100000, 0, &C, NULL, NULL, 0, NULL);
    CHECK_MSG(s == SPX_ERR_DEVICE_ALLOC && strstr(spx_ctx_last_error(ctx), "device budget"), "hetero, 100 kB: %s: %s",
              spx_status_str(s), spx_ctx_last_error(ctx));
    s = oc_product(ctx, A, A, 0, SPX_FP64, SPX_PANELS_OFF, 100000, 0, &C, NULL, NULL, 0, NULL);
    CHECK_MSG(s == SPX_ERR_DEVICE_ALLOC && strstr(spx_ctx_last_error(ctx), "device budget"), "in-core, 100 kB: %s: %s",
              spx_status_str(s), spx_ctx_last_error(ctx));
    CHECK(C == NULL && device_held(ctx) == held0);
    spx_csr_destroy(&A);
}

/* New values of A and B on hetero panels: the next run uses them (B re-uploaded). */
static void test_update_values(spx_ctx *ctx)
{
    spx_csr *A = NULL, *C = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:uniform:m=3000,k=6", &A));
    if (!A) return;
    char msg[OC_MSG_LEN];
    const size_t min = oc_min_budget(ctx, A, A, 0, SPX_FP64, msg, sizeof msg);
    spx_spgemm_opts o = {.device_mem_limit = min + 100000, .panels = SPX_PANELS_HETERO};
    spx_spgemm_plan *plan = NULL;
    CHECK_OK(ctx, spx_spgemm_plan_create(ctx, A, A, &o, &plan));
    if (plan) CHECK_OK(ctx, spx_spgemm_run(plan, &C));
    for (int64_t q = 0; q < A->nnz; q++) A->val[q] = 0.25 * (double)(q % 11) - 0.5;
    if (plan) CHECK_OK(ctx, spx_spgemm_plan_update_values(plan));
    if (plan) CHECK_OK(ctx, spx_spgemm_run(plan, &C));
    sc_ref ref;
    sc_ref_make(A, A, 0, &ref);
    CHECK(sc_matches(C, &ref, SPX_FP64, "hetero panels after update_values"));
    sc_ref_free(&ref);
    spx_csr_destroy(&C);
    spx_spgemm_plan_destroy(&plan);
    spx_csr_destroy(&A);
}

/* C over 10x the budget: completes on hetero and GPU-only panels, the device peak within the
 * budget, C as the in-core CPU product's. */
static void test_c_over_budget(spx_ctx *ctx)
{
    spx_csr *A = NULL, *R = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:rmat:scale=15,ef=16", &A));
    if (A) CHECK_OK(ctx, oc_product(ctx, A, A, 0, SPX_FP64, SPX_PANELS_OFF, 0, 0, &R, NULL, NULL, 0, NULL));
    char msg[OC_MSG_LEN];
    const size_t min = R ? oc_min_budget(ctx, A, A, 0, SPX_FP64, msg, sizeof msg) : 0;
    const size_t c_bytes = R ? (size_t)R->nnz * 12 : 0, budget = min + c_bytes / 40;
    for (int g = 0; min && g < 2; g++) {
        spx_csr *C = NULL;
        spx_spgemm_info info;
        spx_status s = oc_product(ctx, A, A, 0, SPX_FP64, g ? SPX_PANELS_GPU : SPX_PANELS_HETERO, budget, 0, &C, &info,
                                  NULL, 0, NULL);
        CHECK_MSG(s == SPX_OK && c_bytes > 10 * budget && oc_close(C, R, 1e-12) && info.device_peak_bytes <= budget,
                  "C %zu bytes, budget %zu: %s: %s", c_bytes, budget, spx_status_str(s), spx_ctx_last_error(ctx));
        if (!s)
            printf("rmat 15 A*A (C %zu bytes) in %s panels, budget %zu: %d panels, peak %zu, run %.3f s\n", c_bytes,
                   g ? "gpu" : "hetero", budget, info.panels, info.device_peak_bytes, info.run_seconds);
        spx_csr_destroy(&C);
    }
    spx_csr_destroy(&R);
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
    if (!getenv("SPX_GPU_TEST_QUICK")) test_c_over_budget(ctx);
    spx_ctx_destroy(&ctx);
    return check_report();
}
