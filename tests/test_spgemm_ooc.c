/* tests/test_spgemm_ooc.c: the out-of-core SpGEMM on the CPU (CI has no GPU): CPU-only panels
 * under budgets tight enough for dozens of panels give C bit for bit as the in-core CPU
 * product (fp64 and fp32, A*A and A*A^T, 1 to 3 threads, generated matrices and the edge
 * cases); the smallest budget's neighbour is a clear error (B, or one row's panel, too big);
 * value updates and a reused C; the timeline; auto mode staying in-core on the CPU; argument
 * errors; and the two-sided (hetero) schedule with a CPU stand-in for the GPU side (its own
 * thread, gustavson per panel, nothing page-locked), K measured or forced, so CI runs the
 * stealing, with B resident or split by columns (the stand-in's panels block by block); the
 * queue's cost checks on both sides, and every panel taken once under made-up schedules. */
#define _GNU_SOURCE /* sched_yield */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>

#include "spgemm/ooc/bblocks.h"
#include "spgemm/ooc/ooc.h"
#include "spgemm/ooc/queue.h"
#include "spgemm_ooc_check.h"

static const spx_precision precisions[] = {SPX_FP64, SPX_FP32};

/* The in-core CPU product (the reference the panels must match bit for bit). */
static spx_csr *in_core(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, int tr, spx_precision p)
{
    spx_csr *R = NULL;
    CHECK_OK(ctx, oc_cpu_product(ctx, A, B, tr, p, &R));
    return R;
}

/* One product in CPU panels at a budget just above the smallest, with room for about 40
 * panels of C: bit for bit the in-core result, at least `want` panels, the timeline
 * consistent; the smallest budget less one byte is a clear error naming one row's panel. */
static void check_tight(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, int tr, spx_precision p, int want,
                        const char *what)
{
    char msg[OC_MSG_LEN] = "", label[160];
    snprintf(label, sizeof label, "%s [%s%s]", what, spx_precision_str(p), tr ? " B^T" : "");
    spx_csr *R = in_core(ctx, A, B, tr, p), *C = NULL;
    const size_t min = oc_min_budget(ctx, A, B, tr, p, 1, msg, sizeof msg);
    CHECK_MSG(min > 0 && strstr(msg, "SPX_ERR_DEVICE_ALLOC") && strstr(msg, "device budget") && strstr(msg, "row "),
              "%s: smallest budget %zu, below it: %s", label, min, msg);
    const size_t room = R ? (size_t)R->nnz * (sizeof(int32_t) + spx_precision_bytes(p)) / 40 : 0;
    spx_spgemm_info info;
    spx_spgemm_panel_event ev[4096];
    int n_ev = 0;
    CHECK_OK(ctx, oc_product(ctx, A, B, tr, p, SPX_PANELS_CPU, min + room, 0, 1, &C, &info, ev, 4096, &n_ev));
    CHECK_MSG(oc_identical(C, R), "%s: panels differ from the in-core product", label);
    if (C) {
        CHECK_MSG(!strcmp(info.panel_mode, "panels") && !strcmp(info.panel_split, "cpu") &&
                      info.panels >= want && info.panels_cpu == info.panels &&
                      info.device_mem_limit == min + room && info.device_peak_bytes == 0,
                  "%s: mode %s/%s, %d panels (%d CPU), limit %zu", label, info.panel_mode, info.panel_split,
                  info.panels, info.panels_cpu, info.device_mem_limit);
        oc_check_timeline(ev, n_ev, &info, A->m, label);
    }
    spx_csr_destroy(&C);
    spx_csr_destroy(&R);
}

static void test_generated(spx_ctx *ctx)
{
    /* powerlaw: its longest row alone takes much of the smallest budget, hence fewer panels */
    static const struct {
        const char *spec;
        int want;
    } cases[] = {{"gen:poisson2d:n=60", 32}, {"gen:poisson3d:n=12", 32}, {"gen:rmat:scale=10,ef=8", 32},
                 {"gen:uniform:m=3000,k=8", 32}, {"gen:powerlaw:m=2000,k=6", 8}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        spx_csr *A = NULL;
        CHECK_OK(ctx, spx_gen(ctx, cases[i].spec, &A));
        for (int p = 0; A && p < 2; p++)
            for (int tr = 0; tr < 2; tr++) check_tight(ctx, A, A, tr, precisions[p], cases[i].want, cases[i].spec);
        spx_csr_destroy(&A);
    }
}

/* The edge cases (empty, rectangular, dense rows and columns) in CPU panels: the reference's
 * structure and values. */
static void test_edge_cases(spx_ctx *ctx)
{
    for (int c = 0; c < SC_N_CASES; c++) {
        spx_csr *A = NULL, *B = NULL;
        if (!sc_case_make(ctx, c, &A, &B)) continue;
        for (int tr = 0; tr < 2; tr++) {
            const spx_csr *R = tr ? A : B;
            if ((tr ? R->n : R->m) != A->n) continue;
            sc_ref ref;
            sc_ref_make(A, R, tr, &ref);
            spx_csr *C = NULL;
            spx_status s = oc_product(ctx, A, R, tr, SPX_FP64, SPX_PANELS_CPU, 0, 0, 1, &C, NULL, NULL, 0, NULL);
            CHECK_MSG(s == SPX_OK && sc_matches(C, &ref, SPX_FP64, sc_cases[c].name), "%s%s: %s: %s", sc_cases[c].name,
                      tr ? " B^T" : "", spx_status_str(s), spx_ctx_last_error(ctx));
            spx_csr_destroy(&C);
            sc_ref_free(&ref);
        }
        spx_csr_destroy(&A);
        spx_csr_destroy(&B);
    }
}

/* 1 to 3 threads: the same bits; and 7 threads on hub rows (the in-core product's chunks
 * taken by whichever thread is free, the panels' row ranges split by work). */
static void test_threads(void)
{
    for (int t = 1; t <= 3; t++) {
        spx_ctx *ctx = NULL;
        spx_ctx_opts co = {.backend = SPX_BACKEND_CPU, .threads = t};
        if (spx_ctx_create(&ctx, &co)) continue;
        spx_csr *A = NULL;
        CHECK_OK(ctx, spx_gen(ctx, "gen:rmat:scale=11,ef=8", &A));
        char what[64];
        snprintf(what, sizeof what, "rmat 11, %d threads", t);
        if (A) check_tight(ctx, A, A, 0, SPX_FP64, 32, what);
        spx_csr_destroy(&A);
        spx_ctx_destroy(&ctx);
    }
    spx_ctx *ctx = NULL;
    spx_ctx_opts co = {.backend = SPX_BACKEND_CPU, .threads = 7};
    if (spx_ctx_create(&ctx, &co)) return;
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:powerlaw:m=5000,k=6,alpha=1.5", &A));
    if (A) check_tight(ctx, A, A, 0, SPX_FP64, 2, "hub rows, 7 threads");
    spx_csr_destroy(&A);
    spx_ctx_destroy(&ctx);
}

/* A budget too small: with B resident asked for (b_col_blocks 1), the message names B and the
 * budget; by default, B's smallest column block. */
static void test_budget_errors(spx_ctx *ctx)
{
    spx_csr *A = NULL, *C = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:poisson2d:n=40", &A));
    if (!A) return;
    spx_status s = oc_product(ctx, A, A, 0, SPX_FP64, SPX_PANELS_CPU, 1000, 0, 1, &C, NULL, NULL, 0, NULL);
    const char *msg = spx_ctx_last_error(ctx);
    CHECK_MSG(s == SPX_ERR_DEVICE_ALLOC && strstr(msg, "device budget 1.0 kB") && strstr(msg, "B (1600 x 1600"),
              "%s: %s", spx_status_str(s), msg);
    s = oc_product(ctx, A, A, 0, SPX_FP64, SPX_PANELS_CPU, 1000, 0, 0, &C, NULL, NULL, 0, NULL);
    msg = spx_ctx_last_error(ctx);
    CHECK_MSG(s == SPX_ERR_DEVICE_ALLOC && strstr(msg, "device budget 1.0 kB") && strstr(msg, "block of B's columns (B 1600 x 1600"),
              "%s: %s", spx_status_str(s), msg);
    CHECK(C == NULL);
    spx_csr_destroy(&A);
}

/* New values of A, then a run into the same C: the reference of the new values. */
static void test_update_and_reuse(spx_ctx *ctx)
{
    spx_csr *A = NULL, *C = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:uniform:m=1500,k=6", &A));
    if (!A) return;
    char msg[OC_MSG_LEN];
    const size_t min = oc_min_budget(ctx, A, A, 0, SPX_FP64, 1, msg, sizeof msg);
    spx_spgemm_opts o = {.backend = SPX_BACKEND_CPU, .device_mem_limit = min + 20000, .panels = SPX_PANELS_CPU};
    spx_spgemm_plan *plan = NULL;
    CHECK_OK(ctx, spx_spgemm_plan_create(ctx, A, A, &o, &plan));
    if (plan) CHECK_OK(ctx, spx_spgemm_run(plan, &C));
    for (int64_t q = 0; q < A->nnz; q++) A->val[q] = 0.25 * (double)(q % 13) - 1.0;
    spx_csr *keep = C;
    if (plan) CHECK_OK(ctx, spx_spgemm_plan_update_values(plan));
    if (plan) CHECK_OK(ctx, spx_spgemm_run(plan, &C));
    sc_ref ref;
    sc_ref_make(A, A, 0, &ref);
    CHECK(C == keep && sc_matches(C, &ref, SPX_FP64, "updated values in panels"));
    spx_spgemm_info info;
    if (plan && !spx_spgemm_plan_get_info(plan, &info)) CHECK(info.runs == 2 && info.panels > 1);
    sc_ref_free(&ref);
    spx_csr_destroy(&C);
    spx_spgemm_plan_destroy(&plan);
    spx_csr_destroy(&A);
}

/* Auto on the CPU backend stays in-core whatever the limit; the options' errors. */
static void test_modes_and_errors(spx_ctx *ctx)
{
    spx_csr *A = NULL, *C = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:poisson2d:n=30", &A));
    if (!A) return;
    spx_spgemm_info info;
    CHECK_OK(ctx, oc_product(ctx, A, A, 0, SPX_FP64, SPX_PANELS_AUTO, 1000, 0, 1, &C, &info, NULL, 0, NULL));
    CHECK(C && !strcmp(info.panel_mode, "in-core") && info.panels == 0);
    spx_csr_destroy(&C);
    sc_check(ctx, A, A, 0, SPX_BACKEND_CPU, "gustavson", NULL, SPX_FP64, "the in-core reference itself");
    spx_spgemm_plan *plan = NULL;
    spx_spgemm_opts bad[] = {{.method = "cusparse", .panels = SPX_PANELS_CPU},
                             {.backend = SPX_BACKEND_CPU, .panels = (spx_spgemm_panels)99},
                             {.backend = SPX_BACKEND_CPU, .panels = SPX_PANELS_CPU, .gpu_share = 1.5}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        spx_status s = spx_spgemm_plan_create(ctx, A, A, &bad[i], &plan);
        CHECK_MSG(s == SPX_ERR_ARG && plan == NULL, "bad options %zu: %s", i, spx_status_str(s));
        spx_spgemm_plan_destroy(&plan);
    }
    spx_backend b;
    if (spx_ctx_resolve_backend(ctx, SPX_BACKEND_CUDA, &b) != SPX_OK) { /* no GPU here */
        spx_spgemm_opts gpu = {.panels = SPX_PANELS_HETERO};
        spx_status s = spx_spgemm_plan_create(ctx, A, A, &gpu, &plan);
        CHECK_MSG(s != SPX_OK && plan == NULL, "hetero panels without a GPU: %s", spx_status_str(s));
        spx_spgemm_plan_destroy(&plan);
    }
    spx_csr_destroy(&A);
}

/* A*B through the two-sided schedule with gustavson standing in for the GPU side (a thread of
 * its own): the plan (split, GPU share, budget, B's column blocks), `runs` runs into one C,
 * new values of A (and B, when it is A) before the last run when `update`; *C, the last
 * run's *info and up to cap timeline events (*n_ev of them, when ev). */
static spx_status standin_product(spx_ctx *ctx, spx_csr *A, const spx_csr *B, spx_precision p, spx_spgemm_panels split,
                                  double share, size_t budget, int b_blocks, int runs, int update, spx_csr **C,
                                  spx_spgemm_info *info, spx_spgemm_panel_event *ev, int cap, int *n_ev)
{
    const spx_spgemm_input in = {.A = A, .B = B, .precision = p};
    const spx_ooc_opts oo = {split, budget, share, spx_spgemm_gustavson(), SIZE_MAX, 1, b_blocks};
    spx_phase_log log;
    memset(&log, 0, sizeof log);
    spx_ooc *o = NULL;
    int64_t products = 0, nnz_c = 0;
    spx_status s = spx_ooc_create(ctx, &in, &oo, &log, &o, &products, &nnz_c);
    if (!s) s = spx_csr_alloc(ctx, A->m, B->n, nnz_c, C);
    for (int run = 0; !s && run < runs; run++) {
        if (update && run == runs - 1) {
            for (int64_t q = 0; q < A->nnz; q++) A->val[q] = 0.5 * (double)(q % 7) - 1.25;
            s = spx_ooc_update_values(ctx, o, &in, &log);
        }
        if (!s) s = spx_ooc_run(ctx, o, &log, *C);
    }
    for (int i = 0; !s && i < log.n; i++) /* a CPU stand-in page-locks nothing */
        CHECK_MSG(strcmp(log.phases[i].name, "pin"), "hetero stand-in: a pin phase of %.6f s", log.phases[i].seconds);
    memset(info, 0, sizeof *info);
    if (!s) spx_ooc_info(o, info);
    if (!s && ev) *n_ev = spx_ooc_timeline(o, ev, cap);
    spx_ooc_destroy(ctx, o);
    return s;
}

/* The two-sided schedule with the stand-in: C bit for bit the in-core one (run twice into the
 * same C), every panel computed once, by one side or the other; K measured (share in (0, 1))
 * or forced; B resident (b_blocks 1) or in column blocks (b_blocks 0 with a budget B does not
 * fit resident, or N). */
static void check_hetero(spx_ctx *ctx, spx_csr *A, spx_precision p, spx_spgemm_panels split, double share,
                         size_t budget, int b_blocks)
{
    spx_csr *C = NULL, *R = in_core(ctx, A, A, 0, p);
    spx_spgemm_info info;
    static spx_spgemm_panel_event ev[4096];
    int n_ev = 0;
    CHECK_OK(ctx, standin_product(ctx, A, A, p, split, share, budget, b_blocks, 2, 0, &C, &info, ev, 4096, &n_ev));
    char what[96];
    snprintf(what, sizeof what, "hetero stand-in (split %d, share %.2f, B blocks %d)", (int)split, share, b_blocks);
    CHECK_MSG(oc_identical(C, R), "%s differs", what);
    if (C) {
        oc_check_timeline(ev, n_ev, &info, A->m, what);
        const int share_ok = split == SPX_PANELS_GPU ? info.gpu_share == 1 && info.panels_cpu == 0
                             : share > 0           ? info.gpu_share == share
                                                   : info.gpu_share > 0 && info.gpu_share < 1 && info.k_ratio > 0;
        if (getenv("SPX_TEST_VERBOSE"))
            printf("%s: %d panels, GPU %d, CPU %d, stolen %d, K %.3f, R %.3f, run %.3f, B in %d blocks\n", what,
                   info.panels, info.panels_gpu, info.panels_cpu, info.panels_stolen, info.k_ratio, info.gpu_share,
                   info.gpu_share_run, info.b_col_blocks);
        const int blocks_ok = b_blocks == 1   ? info.b_col_blocks == 1
                              : b_blocks == 0 ? info.b_col_blocks > 1
                                              : info.b_col_blocks >= b_blocks && info.b_col_blocks <= b_blocks + 1;
        CHECK_MSG(info.panels >= 8 && share_ok && blocks_ok,
                  "%s: %d panels (GPU %d, CPU %d), share %.3f, K %.3f, B in %d blocks", what, info.panels,
                  info.panels_gpu, info.panels_cpu, info.gpu_share, info.k_ratio, info.b_col_blocks);
    }
    spx_csr_destroy(&C);
    spx_csr_destroy(&R);
}

static void test_hetero_standin(void)
{
    spx_ctx *ctx = NULL;
    spx_ctx_opts co = {.backend = SPX_BACKEND_CPU, .threads = 3};
    if (spx_ctx_create(&ctx, &co)) return;
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:rmat:scale=12,ef=8", &A));
    char msg[OC_MSG_LEN];
    for (int p = 0; A && p < 2; p++) {
        const size_t min = oc_min_budget(ctx, A, A, 0, precisions[p], 1, msg, sizeof msg);
        check_hetero(ctx, A, precisions[p], SPX_PANELS_HETERO, 0, min + 50000, 1);
        check_hetero(ctx, A, precisions[p], SPX_PANELS_HETERO, 0.5, min + 50000, 1);
        check_hetero(ctx, A, precisions[p], SPX_PANELS_HETERO, 1.0, SPX_BUDGET_NONE, 1);
        check_hetero(ctx, A, precisions[p], SPX_PANELS_GPU, 0, min + 50000, 1);
    }
    spx_csr_destroy(&A);
    spx_ctx_destroy(&ctx);
}

/* B split by columns, on a product whose B rows are long (so that blocks beat B resident):
 * the smallest budget by default is below B resident's, and below it the error names B's
 * block; CPU panels there name their blocks and are bit for bit the in-core product; the
 * stand-in's panels computed block by block, on every panel (GPU) and shared (hetero, K
 * measured), at the smallest budget's neighbourhood and with N blocks asked for without a
 * budget, bit for bit, new values reaching the blocks; the edge cases asked for 3 blocks (those
 * whose B has entries in one column only stay whole; the widest are left out, made for the
 * GPU's fallbacks: each piece's CPU accumulators span n columns). */
#define SC_BLOCKS_MAX_COLS 100000
static void test_b_columns(void)
{
    spx_ctx *ctx = NULL;
    spx_ctx_opts co = {.backend = SPX_BACKEND_CPU, .threads = 3};
    if (spx_ctx_create(&ctx, &co)) return;
    spx_csr *A = NULL, *C = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:uniform:m=600,k=32", &A));
    char msg[OC_MSG_LEN] = "";
    for (int p = 0; A && p < 2; p++) {
        const size_t resident = oc_min_budget(ctx, A, A, 0, precisions[p], 1, NULL, 0);
        const size_t least = oc_min_budget(ctx, A, A, 0, precisions[p], 0, msg, sizeof msg);
        CHECK_MSG(least > 0 && least < resident && strstr(msg, "block of B's columns"),
                  "[%s] smallest budget %zu, B resident %zu; below: %s", spx_precision_str(precisions[p]), least,
                  resident, msg);
        spx_csr *R = in_core(ctx, A, A, 0, precisions[p]);
        spx_spgemm_info info;
        CHECK_OK(ctx, oc_product(ctx, A, A, 0, precisions[p], SPX_PANELS_CPU, least, 0, 0, &C, &info, NULL, 0, NULL));
        CHECK_MSG(oc_identical(C, R) && info.b_col_blocks > 1, "CPU panels at the smallest budget: B in %d blocks",
                  info.b_col_blocks);
        spx_csr_destroy(&C);
        spx_csr_destroy(&R);
        check_hetero(ctx, A, precisions[p], SPX_PANELS_GPU, 0, (least + resident) / 2, 0);
        check_hetero(ctx, A, precisions[p], SPX_PANELS_HETERO, 0, resident - 1, 0);
        check_hetero(ctx, A, precisions[p], SPX_PANELS_GPU, 0, SPX_BUDGET_NONE, 5);
        CHECK_OK(ctx, standin_product(ctx, A, A, precisions[p], SPX_PANELS_GPU, 0, SPX_BUDGET_NONE, 4, 2, 1, &C, &info,
                                      NULL, 0, NULL));
        R = in_core(ctx, A, A, 0, precisions[p]); /* A's new values */
        CHECK_MSG(oc_identical(C, R) && info.b_col_blocks >= 4 && info.b_col_blocks <= 5, "[%s] new values in B's blocks",
                  spx_precision_str(precisions[p]));
        spx_csr_destroy(&C);
        spx_csr_destroy(&R);
    }
    for (int c = 0; c < SC_N_CASES; c++) {
        spx_csr *E = NULL, *F = NULL;
        if (sc_cases[c].n > SC_BLOCKS_MAX_COLS || !sc_case_make(ctx, c, &E, &F)) continue;
        sc_ref ref;
        sc_ref_make(E, F, 0, &ref);
        spx_spgemm_info info;
        spx_status s = standin_product(ctx, E, F, SPX_FP64, SPX_PANELS_GPU, 0, SPX_BUDGET_NONE, 3, 1, 0, &C, &info,
                                       NULL, 0, NULL);
        CHECK_MSG(s == SPX_OK && sc_matches(C, &ref, SPX_FP64, sc_cases[c].name), "%s [B in 3 blocks]: %s: %s",
                  sc_cases[c].name, spx_status_str(s), spx_ctx_last_error(ctx));
        spx_csr_destroy(&C);
        sc_ref_free(&ref);
        spx_csr_destroy(&E);
        spx_csr_destroy(&F);
    }
    spx_csr_destroy(&A);
    spx_ctx_destroy(&ctx);
}

/* B's column cut on counts with empty columns around heavy ones: the blocks cover the columns
 * in order, none is without entries, and a block over the share is one heavy column (with
 * empty ones beside it). */
static void test_bcut(spx_ctx *ctx)
{
    /* columns' entries: 0 0 9 0 1 1 1 0 0 12 0 2 2 0 */
    static const int64_t counts[] = {0, 0, 9, 0, 1, 1, 1, 0, 0, 12, 0, 2, 2, 0};
    const int32_t n = (int32_t)(sizeof counts / sizeof counts[0]);
    int64_t colptr[sizeof counts / sizeof counts[0] + 1] = {0};
    for (int32_t j = 0; j < n; j++) colptr[j + 1] = colptr[j] + counts[j];
    for (int64_t share = 1; share <= 30; share++) {
        spx_ooc_bcut c = {1, NULL, NULL, 0};
        CHECK_OK(ctx, spx_ooc_bcut_make(ctx, colptr, 5, n, share, SPX_FP64, &c));
        int bad = !c.cut || c.cut[0] != 0 || c.cut[c.blocks] != n;
        for (int j = 0; c.cut && !bad && j < c.blocks; j++) {
            int heavy = 0;
            for (int32_t col = c.cut[j]; col < c.cut[j + 1]; col++) heavy += counts[col] > share;
            bad += c.cut[j] >= c.cut[j + 1] || c.nnz[j] != colptr[c.cut[j + 1]] - colptr[c.cut[j]] || c.nnz[j] == 0 ||
                   (c.nnz[j] > share && !(heavy == 1 && c.nnz[j] == colptr[c.cut[j + 1]] - colptr[c.cut[j]] &&
                                          c.nnz[j] <= 12));
        }
        CHECK_MSG(!bad, "share %lld: %d blocks, a bad cut", (long long)share, c.blocks);
        spx_ooc_bcut_free(ctx, &c);
    }
}

/* Starts q over order[0..n) with the GPU's planned positions [0, split), then sets its costs. */
static void queue_start(spx_ooc_queue *q, const int *order, int n, int split, int *done, const int64_t *work,
                        double gpu_cost, double cpu_cost, int lanes)
{
    CHECK(spx_ooc_queue_init(q, order, n, split, done) == 0);
    spx_ooc_queue_costs(q, work, gpu_cost, cpu_cost, lanes);
}

/* The queue's cost check: a GPU side far slower than the CPU side takes no panel and the CPU
 * side takes them all; with equal costs the GPU side leaves the last panel (the CPU would end
 * it as soon); without costs every take is allowed. */
static void test_queue_costs(void)
{
    const int order[4] = {0, 1, 2, 3};
    const int64_t work[4] = {10, 10, 10, 10};
    const double gpu_cost[3] = {100.0, 1.0, 0.0}; /* seconds per product; the CPU's 1.0 */
    const int gpu_takes[3] = {0, 3, 4};
    for (int c = 0; c < 3; c++) {
        int done[4], stolen = 0, gpu = 0, cpu = 0;
        spx_ooc_queue q;
        queue_start(&q, order, 4, 2, done, work, gpu_cost[c], 1.0, 1);
        while (spx_ooc_queue_take(&q, 1, &stolen) >= 0) gpu++;
        while (spx_ooc_queue_take(&q, 0, &stolen) >= 0) cpu++;
        CHECK_MSG(gpu == gpu_takes[c] && gpu + cpu == 4, "GPU cost %.0f: GPU took %d, CPU %d", gpu_cost[c], gpu, cpu);
        spx_ooc_queue_destroy(&q);
    }
}

/* The CPU side's cost check, and costs taken from finished panels: a CPU side far slower than
 * the lanes takes nothing while a lane takes, and the lanes then take all; once the lanes have
 * stopped, the CPU side takes all whatever its
 * cost; a CPU side as fast as the GPU on the sample but measured 100x slower on its first
 * panel stops there; a lane measured 100x slower stops at its first panel, and a lane leaves
 * the panels to a CPU measured 1000x faster; the last panel, which the CPU side leaves to two
 * lanes, is taken by a lane that would have refused it; the CPU side weighs the lanes' count;
 * a panel far below the mean does not set a side's cost. */
static void test_queue_both_sides(void)
{
    const int order[4] = {0, 1, 2, 3};
    const int64_t work[4] = {10, 10, 10, 10};
    int done[4], stolen = 0, p, gpu = 0, cpu = 0;
    spx_ooc_queue q;

    queue_start(&q, order, 4, 2, done, work, 1.0, 100.0, 2); /* CPU 100x slower, 2 lanes */
    CHECK_MSG(spx_ooc_queue_take(&q, 0, &stolen) < 0 && !q.cpu_taking, "a CPU 100x slower took a panel");
    while (spx_ooc_queue_take(&q, 1, &stolen) >= 0) gpu++;
    CHECK_MSG(gpu == 4, "the lanes took %d of 4 after the CPU side stopped", gpu);
    spx_ooc_queue_destroy(&q);

    queue_start(&q, order, 4, 2, done, work, 1000.0, 1.0, 1); /* the lane stops first */
    CHECK_MSG(spx_ooc_queue_take(&q, 1, &stolen) < 0 && q.lanes_taking == 0, "a lane 1000x slower took a panel");
    CHECK((p = spx_ooc_queue_take(&q, 0, &stolen)) == 3);
    spx_ooc_queue_finish(&q, p, 0, 1e6); /* the CPU measured far slower: no lane is left */
    cpu = 1;
    while (spx_ooc_queue_take(&q, 0, &stolen) >= 0) cpu++;
    CHECK_MSG(cpu == 4, "with no lane left the CPU took %d of 4", cpu);
    spx_ooc_queue_destroy(&q);

    queue_start(&q, order, 4, 2, done, work, 1.0, 1.0, 1); /* the CPU measured slow */
    CHECK((p = spx_ooc_queue_take(&q, 0, &stolen)) == 3);
    spx_ooc_queue_finish(&q, p, 0, 1000.0); /* 100 s a product */
    CHECK_MSG(spx_ooc_queue_take(&q, 0, &stolen) < 0, "a CPU measured 100x slower took another panel");
    gpu = 0;
    while (spx_ooc_queue_take(&q, 1, &stolen) >= 0) gpu++;
    CHECK_MSG(gpu == 3, "the lane took %d of the 3 left", gpu);
    spx_ooc_queue_destroy(&q);

    queue_start(&q, order, 4, 2, done, work, 1.0, 1.0, 1); /* the lane measured slow */
    CHECK((p = spx_ooc_queue_take(&q, 1, &stolen)) == 0);
    spx_ooc_queue_finish(&q, p, 1, 1000.0);
    CHECK_MSG(spx_ooc_queue_take(&q, 1, &stolen) < 0 && q.lanes_taking == 0, "a lane measured 100x slower took another");
    cpu = 0;
    while (spx_ooc_queue_take(&q, 0, &stolen) >= 0) cpu++;
    CHECK_MSG(cpu == 3, "the CPU took %d of the 3 left", cpu);
    spx_ooc_queue_destroy(&q);

    queue_start(&q, order, 4, 2, done, work, 1.0, 1.0, 1); /* the CPU measured fast */
    CHECK((p = spx_ooc_queue_take(&q, 0, &stolen)) == 3);
    spx_ooc_queue_finish(&q, p, 0, 1e-3);
    CHECK_MSG(spx_ooc_queue_take(&q, 1, &stolen) < 0, "a lane took a panel from a CPU measured 1000x faster");
    spx_ooc_queue_destroy(&q);

    queue_start(&q, order, 1, 0, done, work, 1.0, 1.0, 2); /* a tie for the last panel, 2 lanes */
    CHECK_MSG(spx_ooc_queue_take(&q, 0, &stolen) < 0, "the CPU took a panel two lanes end sooner");
    CHECK_MSG(spx_ooc_queue_take(&q, 1, &stolen) == 0, "a lane refused the last panel after the CPU side stopped");
    spx_ooc_queue_destroy(&q);

    for (int lanes = 1; lanes <= 2; lanes++) { /* the lanes' remainder shrinks with their count */
        queue_start(&q, order, 4, 2, done, work, 1.0, 3.0, lanes); /* CPU 30 s for its panel, lanes 40 s / lanes */
        p = spx_ooc_queue_take(&q, 0, &stolen);
        CHECK_MSG((p >= 0) == (lanes == 1), "%d lanes: the CPU side %s", lanes, p >= 0 ? "took" : "refused");
        spx_ooc_queue_destroy(&q);
    }

    const int64_t uneven[4] = {1, 1000, 1000, 1000}; /* a panel of one product: its time is fixed costs */
    queue_start(&q, order, 4, 2, done, uneven, 1.0, 1.0, 1);
    CHECK((p = spx_ooc_queue_take(&q, 1, &stolen)) == 0);
    spx_ooc_queue_finish(&q, p, 1, 1000.0); /* 1000 s a product, over 1 product only */
    CHECK_MSG(spx_ooc_queue_take(&q, 1, &stolen) == 1, "a lane's cost was taken from a one-product panel");
    spx_ooc_queue_destroy(&q);
}

/* A side of the liveness test: takes panels until given -1, each "finished" in a made-up time. */
typedef struct queue_side {
    spx_ooc_queue *q;
    int gpu;
    uint64_t rng;
    double scale; /* seconds a product of this side, about */
} queue_side;

/* The next number of a 64-bit LCG. */
static uint64_t lcg(uint64_t *x) { return *x = *x * 6364136223846793005ull + 1442695040888963407ull; }

static void *queue_side_loop(void *arg)
{
    queue_side *sd = arg;
    int p, stolen;
    while ((p = spx_ooc_queue_take(sd->q, sd->gpu, &stolen)) >= 0) {
        if (lcg(&sd->rng) >> 62 == 0) sched_yield();
        spx_ooc_queue_finish(sd->q, p, sd->gpu, sd->scale * (0.01 + (double)(lcg(&sd->rng) >> 54) / 10.0));
    }
    return NULL;
}

/* Every panel is taken exactly once whatever the costs, the sides' made-up times, the lanes
 * (0-2, on threads, one of them sometimes inline before the CPU side, as run_sides falls back)
 * and panels without products; a fixed seed, nothing timed. */
static void test_queue_liveness(void)
{
    const double costs[5] = {0, 1e-6, 1, 100, 1e6};
    uint64_t seed = 20261127;
    int bad = 0;
    for (int it = 0; it < 2000; it++) {
        const int n = (int)(lcg(&seed) >> 33) % 12, lanes = (int)(lcg(&seed) >> 33) % 3;
        const int inline_lane = (int)(lcg(&seed) >> 33) % 3; /* 1 + the lane run inline, 0: none */
        int order[12], done[12], seen[12] = {0};
        int64_t work[12];
        for (int i = 0; i < n; i++) order[i] = i, work[i] = lcg(&seed) >> 62 ? (int64_t)(lcg(&seed) >> 54) + 1 : 0;
        spx_ooc_queue q;
        const int split = n ? (int)(lcg(&seed) >> 33) % (n + 1) : 0;
        const double gpu_cost = costs[(lcg(&seed) >> 33) % 5], cpu_cost = costs[(lcg(&seed) >> 33) % 5];
        queue_start(&q, order, n, split, done, work, gpu_cost, cpu_cost, lanes);
        queue_side g[2], c = {&q, 0, lcg(&seed), costs[1 + (lcg(&seed) >> 33) % 4]};
        pthread_t th[2];
        int started[2] = {0, 0};
        for (int l = 0; l < lanes; l++) {
            g[l] = (queue_side){&q, 1, lcg(&seed), costs[1 + (lcg(&seed) >> 33) % 4]};
            if (inline_lane != l + 1) started[l] = pthread_create(&th[l], NULL, queue_side_loop, &g[l]) == 0;
            if (!started[l]) queue_side_loop(&g[l]);
        }
        queue_side_loop(&c);
        for (int l = 0; l < lanes; l++)
            if (started[l]) pthread_join(th[l], NULL);
        int ok = q.n_done == n;
        for (int i = 0; i < q.n_done && i < n; i++) seen[done[i]]++;
        for (int i = 0; i < n; i++) ok &= seen[i] == 1;
        if (!ok && bad++ < 3) CHECK_MSG(0, "iteration %d: %d panels, %d lanes, %d done", it, n, lanes, q.n_done);
        spx_ooc_queue_destroy(&q);
    }
    CHECK_MSG(bad == 0, "%d of 2000 schedules left or repeated a panel", bad);
}

int main(void)
{
    spx_ctx *ctx = NULL;
    spx_ctx_opts co = {.backend = SPX_BACKEND_CPU};
    if (spx_ctx_create(&ctx, &co)) return 1;
    test_generated(ctx);
    test_edge_cases(ctx);
    test_budget_errors(ctx);
    test_update_and_reuse(ctx);
    test_modes_and_errors(ctx);
    test_bcut(ctx);
    spx_ctx_destroy(&ctx);
    test_threads();
    test_hetero_standin();
    test_b_columns();
    test_queue_costs();
    test_queue_both_sides();
    test_queue_liveness();
    return check_report();
}
