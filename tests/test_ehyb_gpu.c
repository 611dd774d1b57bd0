/* tests/test_ehyb_gpu.c: the ehyb layout built on the GPU (algorithm voronoi: the partitioner
 * in ehyb_voronoi_cuda.cu, the layout in ehyb_build_cuda.cu) against the host build for the
 * same device, array by array (downloaded), fp64 and fp32, caller's and plan order: DESIGN §8
 * edge cases, generated meshes (shuffled too), a power-law matrix with long rows, a banded
 * matrix whose cells stop at the round limit, a rectangular one (block split), a mesh large
 * enough that cells exceed the segment and are split, and shared FEM matrices; plus the phases
 * and statistics of a device-built plan, its SpMV in plan order through its permutation, and
 * the refusal to build METIS on the device.
 * SPX_GPU_TEST_QUICK=1 skips the large mesh (the sanitizers' runs). (SpMV on device-built
 * plans is checked by test_gpu, which iterates the registry.)
 * Skips (77) without a GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format_check.h"
#include "matrices.h"
#include "cuda/gateway.h"
#include "formats/ehyb/ehyb.h"
#include "partition/partition.h"
#include "spmv/format.h"
#include "spx/spx.h"

/* Whether the log holds a phase of that name. */
static int has_phase(const spx_phase_log *log, const char *name)
{
    for (int i = 0; i < log->n; i++)
        if (!strcmp(log->phases[i].name, name)) return 1;
    return 0;
}

/* The header fields and every array of the host layout F and the downloaded device layout G
 * are identical. */
static void compare_layouts(spx_ehyb_fmt *F, spx_ehyb_fmt *G, const char *label)
{
    int head = F->m == G->m && F->n == G->n && F->nnz == G->nnz && F->precision == G->precision &&
               F->algo == G->algo && F->split == G->split && F->K == G->K && F->P == G->P &&
               F->nparts == G->nparts && F->seg_cap == G->seg_cap && F->blocks_per_sm == G->blocks_per_sm &&
               F->seg_max == G->seg_max && F->plan_order == G->plan_order && F->lanes == G->lanes &&
               F->n_ell_slices == G->n_ell_slices && F->ell_slots == G->ell_slots && F->n_er_rows == G->n_er_rows &&
               F->er_slots == G->er_slots && F->n_long == G->n_long && F->long_nnz == G->long_nnz &&
               F->ell_nnz == G->ell_nnz && F->er_nnz == G->er_nnz && F->out_nnz == G->out_nnz &&
               F->edge_cut == G->edge_cut;
    CHECK_MSG(head,
              "%s: headers differ (parts %d/%d, slices %d/%d, ell slots %lld/%lld, er slots %lld/%lld, long %d/%d, "
              "cut %lld/%lld, order %d/%d)",
              label, F->nparts, G->nparts, F->n_ell_slices, G->n_ell_slices, (long long)F->ell_slots,
              (long long)G->ell_slots, (long long)F->er_slots, (long long)G->er_slots, F->n_long, G->n_long,
              (long long)F->edge_cut, (long long)G->edge_cut, F->plan_order, G->plan_order);
    if (!head) return;
    static const char *const names[SPX_EHYB_N_ARRAYS] = {
        "row_start", "col_start", "row_perm", "col_perm", "part_slice", "ell_ptr", "ell_col", "ell_val",
        "er_ptr",    "er_col",    "er_val",   "long_row", "long_ptr",  "long_col", "long_val"};
    spx_ehyb_array af[SPX_EHYB_N_ARRAYS], ag[SPX_EHYB_N_ARRAYS];
    spx_ehyb_fmt_arrays(F, af);
    spx_ehyb_fmt_arrays(G, ag);
    for (int i = 0; i < SPX_EHYB_N_ARRAYS; i++)
        CHECK_MSG(af[i].bytes == 0 || !memcmp(*af[i].ptr, *ag[i].ptr, af[i].bytes),
                  "%s: %s differs between host and device builds", label, names[i]);
}

/* The host build of A with algorithm voronoi for this context's device. */
static spx_ehyb_fmt *host_build(spx_ctx *ctx, const spx_csr *A, spx_precision prec, int plan_order)
{
    spx_device_info info;
    if (spx_cuda_query(ctx, &info)) return NULL;
    const spx_ehyb_target tg = {info.sm_count, info.smem_per_block_optin};
    spx_ehyb_parts parts = {0};
    double tg_s = 0, tp_s = 0;
    spx_ehyb_fmt *F = NULL;
    if (!spx_ehyb_partition(ctx, A, SPX_EHYB_VORONOI, &tg, prec, &parts, &tg_s, &tp_s))
        spx_ehyb_fmt_build(ctx, A, &parts, prec, SPX_EHYB_VORONOI, plan_order, &F);
    spx_ehyb_parts_free(ctx, &parts);
    return F;
}

/* Builds A on the host and on the device in prec and order, and compares them. */
static void compare_one(spx_ctx *ctx, const spx_csr *A, spx_precision prec, int plan_order, const char *what)
{
    char label[200];
    snprintf(label, sizeof label, "%s %s %s", what, prec == SPX_FP32 ? "fp32" : "fp64", plan_order ? "plan" : "caller");
    const spx_format_cuda *cu = spx_format_cuda_of(spx_format_find("ehyb"));
    spx_ehyb_fmt *F = host_build(ctx, A, prec, plan_order), *G = NULL;
    CHECK_MSG(F != NULL, "%s: host build: %s", label, spx_ctx_last_error(ctx));
    spx_dev_csr D;
    memset(&D, 0, sizeof D);
    spx_phase_log log = {0};
    void *dev = NULL;
    const spx_plan_opts o = {.format = "ehyb", .algo = "voronoi", .precision = prec, .backend = SPX_BACKEND_CUDA,
                             .order = plan_order ? SPX_ORDER_PLAN : SPX_ORDER_CALLER};
    CHECK_OK(ctx, spx_cuda_dev_csr_upload(ctx, A, prec, &D));
    spx_status s = cu->layout.build(ctx, &D, NULL, &o, &log, &dev);
    CHECK_MSG(s == SPX_OK, "%s: device build: %s: %s", label, spx_status_str(s), spx_ctx_last_error(ctx));
    if (!s) {
        /* the GPU state begins with the device layout (ehyb.h) */
        CHECK_OK(ctx, spx_ehyb_dev_download(ctx, (const spx_ehyb_fmt *)dev, &G));
        CHECK_MSG(has_phase(&log, "partition") && has_phase(&log, "reorder"), "%s: phases missing (%d recorded)",
                  label, log.n);
    }
    if (F && G) compare_layouts(F, G, label);
    if (G) CHECK_MSG(spx_ehyb_fmt_check(ctx, G) == SPX_OK, "%s: device layout: %s", label, spx_ctx_last_error(ctx));
    if (dev) cu->layout.free(ctx, dev);
    spx_cuda_dev_csr_free(ctx, &D);
    spx_ehyb_fmt_destroy(ctx, F);
    spx_ehyb_fmt_destroy(ctx, G);
}

/* Both orders in prec (and both precisions when both_prec). */
static void compare_all(spx_ctx *ctx, const spx_csr *A, int both_prec, const char *what)
{
    for (int plan = 0; plan < 2; plan++) {
        compare_one(ctx, A, SPX_FP64, plan, what);
        if (both_prec) compare_one(ctx, A, SPX_FP32, plan, what);
    }
}

/* DESIGN §8 edge cases (0 x 0, empty rows, a dense row, rectangular, ...). */
static void test_edge_cases(spx_ctx *ctx)
{
    for (int c = 0; c < TM_N_EDGE; c++) {
        spx_csr *A = tm_make(ctx, tm_edge_cases[c].m, tm_edge_cases[c].n, tm_edge_cases[c].len, 11 + (uint64_t)c);
        CHECK_MSG(A != NULL, "%s: could not make the matrix", tm_edge_cases[c].name);
        if (A) compare_all(ctx, A, c % 3 == 0, tm_edge_cases[c].name);
        spx_csr_destroy(&A);
    }
}

/* Generated matrices: meshes in order and shuffled, long rows, a path (the round limit's
 * blocks), rectangular (the block split), a diagonal (no edge: blocks), and a mesh whose cells
 * outgrow the segment (split in row order). */
static void test_generated(spx_ctx *ctx)
{
    static const char *specs[] = {"gen:poisson3d:n=30",          "gen:stencil27:n=24,shuffle=1",
                                  "gen:poisson2d:n=300",         "gen:powerlaw:m=20000,k=12",
                                  "gen:rmat:scale=13,ef=8",      "gen:banded:m=200000,bw=1",
                                  "gen:uniform:m=3000,n=200000,k=9", "gen:banded:m=5000,bw=0",
                                  "gen:poisson3d:n=160"};
    const char *q = getenv("SPX_GPU_TEST_QUICK"); /* as test_gpu: under the sanitizers */
    const int quick = q && *q && strcmp(q, "0");
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        const int large = i + 1 == sizeof specs / sizeof specs[0];
        if (large && quick) {
            printf("note: %s skipped (SPX_GPU_TEST_QUICK)\n", specs[i]);
            continue;
        }
        spx_csr *A = NULL;
        CHECK_OK(ctx, spx_gen(ctx, specs[i], &A));
        if (A && large) {
            compare_one(ctx, A, SPX_FP32, 1, specs[i]);
        } else if (A) {
            compare_all(ctx, A, 1, specs[i]);
        }
        spx_csr_destroy(&A);
    }
}

/* Shared FEM matrices. */
static void test_shared(spx_ctx *ctx)
{
    static const char *names[] = {"bcsstk29.mtx.gz", "finan512_pattern.mtx.gz", "wing.mtx.gz", "fe_body.mtx.gz"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", SPX_SHARED_MATRICES, names[i]);
        spx_csr *A = NULL;
        if (spx_mtx_read(ctx, path, NULL, &A, NULL) != SPX_OK) {
            printf("note: %s not read (%s): skipped\n", names[i], spx_ctx_last_error(ctx));
            continue;
        }
        compare_all(ctx, A, 1, names[i]);
        spx_csr_destroy(&A);
    }
}

/* A plan built on the device: reports it, its stats, and the build's phases; METIS refuses to
 * build on the device, and by default builds on the host. */
static void test_plans(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:poisson3d:n=40", &A));
    if (!A) return;
    spx_plan_opts o = {.format = "ehyb", .algo = "voronoi", .backend = SPX_BACKEND_CUDA};
    spx_plan *p = NULL;
    CHECK_OK(ctx, spx_plan_create(ctx, A, &o, &p));
    spx_plan_info pi;
    if (p && !spx_plan_get_info(p, &pi)) {
        CHECK_MSG(pi.built_on_device && !strcmp(pi.algo, "voronoi"), "voronoi plan: built on device %d, algo %s",
                  pi.built_on_device, pi.algo);
        int er = 0, parts = 0;
        for (int i = 0; i < pi.n_stats; i++) {
            er |= !strcmp(pi.stats[i].key, "er_fraction") && pi.stats[i].value > 0 && pi.stats[i].value < 1;
            parts |= !strcmp(pi.stats[i].key, "parts") && pi.stats[i].value >= 1;
        }
        CHECK_MSG(er && parts, "voronoi plan: stats incomplete");
    }
    spx_plan_destroy(&p);
    if (spx_partition_have_metis()) {
        o.algo = "metis";
        o.build = SPX_BUILD_DEVICE;
        CHECK(spx_plan_create(ctx, A, &o, &p) == SPX_ERR_UNSUPPORTED);
        CHECK_MSG(strstr(spx_ctx_last_error(ctx), "metis") != NULL, "refusal names the algorithm: %s",
                  spx_ctx_last_error(ctx));
        o.build = SPX_BUILD_AUTO;
        CHECK_OK(ctx, spx_plan_create(ctx, A, &o, &p));
        if (p && !spx_plan_get_info(p, &pi)) CHECK(!pi.built_on_device);
        spx_plan_destroy(&p);
    }
    spx_csr_destroy(&A);
}

/* A device-built plan in plan order: its permutation is the host build's row_perm, and its SpMV
 * on x renumbered by it gives A*x renumbered by it (fp64, b = 0 and b != 0). */
static void test_plan_order_spmv(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:stencil27:n=30", &A));
    if (!A) return;
    const spx_plan_opts o = {.format = "ehyb", .algo = "voronoi", .backend = SPX_BACKEND_CUDA,
                             .order = SPX_ORDER_PLAN, .build = SPX_BUILD_DEVICE};
    spx_plan *p = NULL;
    const int32_t *perm = NULL;
    spx_ehyb_fmt *F = host_build(ctx, A, SPX_FP64, 1);
    const int32_t m = A->m;
    double *x = malloc((size_t)m * sizeof *x), *xp = malloc((size_t)m * sizeof *xp);
    double *y = malloc((size_t)m * sizeof *y), *yp = malloc((size_t)m * sizeof *yp);
    CHECK_OK(ctx, spx_plan_create(ctx, A, &o, &p));
    if (p) CHECK_OK(ctx, spx_plan_permutation(p, &perm));
    CHECK_MSG(perm != NULL && F && F->plan_order, "device-built plan in plan order reports no permutation");
    if (perm && F) CHECK_MSG(!memcmp(perm, F->row_perm, (size_t)m * sizeof *perm), "permutation differs from the host's");
    for (int pass = 0; perm && x && xp && y && yp && pass < 2; pass++) {
        const double b = pass ? 0.5 : 0.0;
        for (int32_t i = 0; i < m; i++) {
            x[i] = 1.0 + (double)((i * 7919) % 1000) / 1000.0;
            y[i] = (double)(i % 13) - 6.0;
        }
        for (int32_t i = 0; i < m; i++) {
            xp[i] = x[perm[i]];
            yp[i] = y[perm[i]];
        }
        for (int32_t i = 0; i < m; i++) { /* y = A*x + b*y in the caller's order */
            double sum = 0;
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) sum += A->val[k] * x[A->colind[k]];
            y[i] = sum + b * y[i];
        }
        CHECK_OK(ctx, spx_plan_spmv(p, 1.0, xp, b, yp));
        double err = 0, norm = 0;
        for (int32_t i = 0; i < m; i++) {
            err = fmax(err, fabs(yp[i] - y[perm[i]]));
            norm = fmax(norm, fabs(y[perm[i]]));
        }
        CHECK_MSG(err <= 1e-12 * (norm + 1), "plan-order SpMV (b = %g): max error %g", b, err);
    }
    free(x);
    free(xp);
    free(y);
    free(yp);
    spx_plan_destroy(&p);
    spx_ehyb_fmt_destroy(ctx, F);
    spx_csr_destroy(&A);
}

int main(void)
{
    spx_ctx *ctx = NULL;
    int rc = fc_gpu_ctx(&ctx);
    if (rc) return rc;
    test_edge_cases(ctx);
    test_generated(ctx);
    test_shared(ctx);
    test_plans(ctx);
    test_plan_order_spmv(ctx);
    spx_ctx_destroy(&ctx);
    return check_report();
}
