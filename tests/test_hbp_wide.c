/* tests/test_hbp_wide.c: hbp's wide tiles (hbp_wide.h) on the host: the layout's invariants
 * (tiles, packed offsets in the source's order, units) on generated matrices, round trip and
 * CPU SpMV, the shape rule, panels split into units, the plan's statistics, and the registry's
 * format checks (fp64, fp32) on DESIGN.md §8's edge cases, generated and shared matrices, with
 * allocation failures injected. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format_check.h"
#include "matrices.h"
#include "formats/hbp/hbp.h"
#include "formats/hbp/hbp_tuning.h"
#include "hbp_check.h"

/* Tiles: panel p's tiles have strictly ascending blocks; tile t holds exactly the entries of
 * the panel's rows in its block, in A's order, packed as the invariant says. */
static int check_tiles(const spx_csr *A, const spx_hbp_wide *L)
{
    int ok = L->panel_tile[0] == 0 && L->tile_start[0] == 0 && L->tile_start[L->n_tiles] == A->nnz;
    const uint32_t rmask = (1u << L->row_bits) - 1u;
    for (int32_t p = 0; ok && p < L->n_panels; p++) {
        const int64_t r0 = (int64_t)p * L->H, r1 = r0 + L->H < A->m ? r0 + L->H : A->m;
        int64_t seen = 0;
        for (int64_t t = L->panel_tile[p]; ok && t < L->panel_tile[p + 1]; t++) {
            const int32_t b = L->tile_block[t];
            ok = L->tile_start[t + 1] > L->tile_start[t] && (t == L->panel_tile[p] || b > L->tile_block[t - 1]);
            int64_t q = L->tile_start[t];
            for (int64_t r = r0; ok && r < r1; r++)
                for (int64_t e = A->rowptr[r]; ok && e < A->rowptr[r + 1]; e++) {
                    if (A->colind[e] / L->W != b) continue;
                    const double v = L->precision == SPX_FP32 ? (double)((float *)L->val)[q] : ((double *)L->val)[q];
                    ok = q < L->tile_start[t + 1] && (int64_t)(L->idx[q] & rmask) == r - r0 &&
                         (int64_t)(L->idx[q] >> L->row_bits) + (int64_t)b * L->W == A->colind[e] &&
                         v == (L->precision == SPX_FP32 ? (double)(float)A->val[e] : A->val[e]);
                    q++;
                }
            ok = ok && q == L->tile_start[t + 1];
            seen += L->tile_start[t + 1] - L->tile_start[t];
        }
        ok = ok && seen == A->rowptr[r1] - A->rowptr[r0];
    }
    return ok;
}

/* Units: every panel at least one, adjacent, covering its entries in order, at most unit_nnz
 * each when split; split_panel lists exactly the panels with several. */
static int check_units(const spx_csr *A, const spx_hbp_wide *L)
{
    int ok = L->unit_start[L->n_units] == A->nnz;
    int64_t u = 0, sp = 0;
    for (int32_t p = 0; ok && p < L->n_panels; p++) {
        const int64_t r0 = (int64_t)p * L->H, r1 = r0 + L->H < A->m ? r0 + L->H : A->m;
        const int64_t u0 = u;
        ok = u < L->n_units && L->unit_start[u] == A->rowptr[r0];
        while (ok && u < L->n_units && L->unit_panel[u] == p) {
            ok = L->unit_start[u + 1] >= L->unit_start[u];
            u++;
        }
        ok = ok && u > u0 && L->unit_start[u] == A->rowptr[r1];
        if (ok && u - u0 > 1) {
            ok = sp < L->n_split && L->split_panel[sp++] == p;
            for (int64_t k = u0; ok && k < u; k++) ok = L->unit_start[k + 1] - L->unit_start[k] <= L->unit_nnz;
        }
    }
    return ok && u == L->n_units && sp == L->n_split;
}

/* The header: the rule's shape, counts consistent with A. */
static int check_header(const spx_csr *A, const spx_hbp_wide *L)
{
    return L->m == A->m && L->n == A->n && L->nnz == A->nnz && (1 << L->row_bits) == L->H && L->H >= 32 &&
           L->H <= SPX_HBP_WIDE_MAX_H && (L->W & (L->W - 1)) == 0 && (int64_t)L->W <= (1LL << (32 - L->row_bits)) &&
           L->n_panels == (int32_t)(((int64_t)A->m + L->H - 1) / L->H) &&
           L->n_blocks == ((int64_t)A->n + L->W - 1) / L->W + (A->n == 0);
}

/* The layout of A (fp64 and fp32) against every invariant, and used. */
static void check_layout(spx_ctx *ctx, const spx_csr *A, const char *what)
{
    for (int p = 0; p < 2; p++) {
        spx_hbp_fmt *F = NULL;
        const spx_precision prec = p ? SPX_FP32 : SPX_FP64;
        CHECK_OK(ctx, spx_hbp_fmt_build(ctx, A, NULL, prec, "wide", 0, 0, &F));
        if (!F) continue;
        const spx_hbp_wide *L = F->wide;
        CHECK_MSG(L && F->algo == SPX_HBP_WIDE && !F->bands && F->H == L->H && F->W == L->W, "%s: hbp header", what);
        if (!L) {
            spx_hbp_fmt_destroy(ctx, F);
            continue;
        }
        CHECK_MSG(check_header(A, L), "%s: wide header (H %d W %d)", what, L->H, L->W);
        CHECK_MSG(check_tiles(A, L), "%s %s: tiles break the invariants", what, p ? "fp32" : "fp64");
        CHECK_MSG(check_units(A, L), "%s: units break the invariants", what);
        if (!p) {
            check_round_trip(ctx, A, F, what);
            check_spmv(ctx, A, F, what);
        }
        spx_hbp_fmt_destroy(ctx, F);
    }
}

/* The registry's checks on A, fp64 and fp32. */
static void check_registry(spx_ctx *ctx, const spx_csr *A, const char *name)
{
    for (int p = 0; p < 2; p++) fc_check(ctx, A, "hbp", "wide", SPX_BACKEND_CPU, p ? SPX_FP32 : SPX_FP64, name);
}

/* Generated matrices of every kind: invariants, then the registry's checks. */
static void test_generated(spx_ctx *ctx)
{
    static const char *specs[] = {"gen:uniform:m=3000,k=16",   "gen:powerlaw:m=4000,k=6", "gen:rmat:scale=12,ef=8",
                                  "gen:wide:m=8,n=50000",      "gen:tall:m=20000,n=100,k=2",
                                  "gen:poisson2d:n=150",       "gen:uniform:m=70000,k=4"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        spx_csr *A = NULL;
        CHECK_OK(ctx, spx_gen(ctx, specs[i], &A));
        if (!A) continue;
        check_layout(ctx, A, specs[i]);
        check_registry(ctx, A, specs[i]);
        spx_csr_destroy(&A);
    }
}

/* DESIGN.md §8's edge cases and the one dense row of 1M entries (its panel split into units). */
static void test_edge_cases(spx_ctx *ctx)
{
    for (int i = 0; i < TM_N_EDGE; i++) {
        const tm_case *c = &tm_edge_cases[i];
        spx_csr *A = tm_make(ctx, c->m, c->n, c->len, 17 + (uint64_t)i);
        if (A) check_layout(ctx, A, c->name);
        if (A) check_registry(ctx, A, c->name);
        spx_csr_destroy(&A);
    }
    spx_csr *D = tm_make(ctx, 40, 1 << 20, tm_len_dense_row, 5);
    if (D) {
        check_layout(ctx, D, "dense row of 1M");
        spx_hbp_fmt *F = NULL;
        CHECK_OK(ctx, spx_hbp_fmt_build(ctx, D, NULL, SPX_FP64, "wide", 0, 0, &F));
        CHECK_MSG(F && F->wide->n_split == 1 && F->wide->n_units > 1, "dense row: its panel is not split");
        spx_hbp_fmt_destroy(ctx, F);
        fc_check(ctx, D, "hbp", "wide", SPX_BACKEND_CPU, SPX_FP64, "dense row of 1M");
    }
    spx_csr_destroy(&D);
    spx_csr *R = hbp_hub_matrix(ctx);
    if (R) {
        check_layout(ctx, R, "hub row over two blocks");
        spx_hbp_fmt *F = NULL;
        CHECK_OK(ctx, spx_hbp_fmt_build(ctx, R, NULL, SPX_FP64, "wide", 0, 0, &F));
        CHECK_MSG(F && F->wide->n_blocks == 2 && F->wide->n_split == 1 && F->wide->n_units > SPX_HBP_WIDE_MIN_PANELS,
                  "hub row: %d blocks, %d split panels, %lld units", F ? F->wide->n_blocks : -1,
                  F ? F->wide->n_split : -1, F ? (long long)F->wide->n_units : -1LL);
        spx_hbp_fmt_destroy(ctx, F);
        fc_check(ctx, R, "hbp", "wide", SPX_BACKEND_CPU, SPX_FP64, "hub row over two blocks");
    }
    spx_csr_destroy(&R);
}

/* The shape rule: full-height panels where there are rows enough, shorter ones for small
 * matrices (never below 32), W the L2 segment or what the offsets address. */
static void test_shape_rule(void)
{
    spx_hbp_wide L;
    memset(&L, 0, sizeof L);
    spx_hbp_wide_header(&L, 16777216, 16777216, 134217728, SPX_FP64);
    CHECK_MSG(L.H == SPX_HBP_WIDE_MAX_H && L.n_panels == 16777216 / SPX_HBP_WIDE_MAX_H, "16.8M: H %d", L.H);
    CHECK_MSG((int64_t)L.W * 8 <= SPX_HBP_WIDE_SEGMENT_BYTES && (int64_t)L.W * 16 > SPX_HBP_WIDE_SEGMENT_BYTES,
              "16.8M fp64: W %d", L.W);
    CHECK(L.n_blocks == (16777216 + L.W - 1) / L.W && L.unit_nnz >= SPX_HBP_WIDE_UNIT_MIN_NNZ);
    spx_hbp_wide_header(&L, 100000, 100000, 800000, SPX_FP32);
    CHECK_MSG(L.H < SPX_HBP_WIDE_MAX_H && L.n_panels >= SPX_HBP_WIDE_MIN_PANELS / 2 && L.H >= 32, "100k: H %d", L.H);
    CHECK(L.n_blocks == 1);
    spx_hbp_wide_header(&L, 10, 0, 0, SPX_FP64);
    CHECK(L.H == 32 && L.n_panels == 1 && L.n_blocks == 1 && (int64_t)L.W <= (1LL << 27));
    spx_hbp_wide_header(&L, 0, 5, 0, SPX_FP64);
    CHECK(L.n_panels == 0);
}

/* The plan reports the wide layout's figures. */
static void test_stats(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:powerlaw:m=4000,k=6", &A));
    spx_plan_opts o = {.format = "hbp", .algo = "wide", .backend = SPX_BACKEND_CPU};
    spx_plan *p = NULL;
    spx_plan_info pi;
    if (A) CHECK_OK(ctx, spx_plan_create(ctx, A, &o, &p));
    static const char *const want[] = {"tile_shape", "row_panels", "col_blocks", "tiles", "units", "split_panels"};
    if (p && spx_plan_get_info(p, &pi) == SPX_OK) {
        for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
            int found = 0;
            for (int i = 0; i < pi.n_stats; i++) found |= !strcmp(pi.stats[i].key, want[w]);
            CHECK_MSG(found, "wide: stat %s missing", want[w]);
        }
        CHECK(!strcmp(pi.algo, "wide") && !strcmp(pi.kernel, "cpu_omp_hbp_wide"));
    }
    spx_plan_destroy(&p);
    spx_csr_destroy(&A);
}

/* The plan's matrix for allocation-failure injection. */
static spx_csr *alloc_matrix(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    return spx_gen(ctx, "gen:powerlaw:m=3000,k=6", &A) ? NULL : A;
}

int main(void)
{
    spx_ctx *ctx = NULL;
    spx_ctx_opts co = {.backend = SPX_BACKEND_CPU};
    if (spx_ctx_create(&ctx, &co)) return 1;
    test_generated(ctx);
    test_edge_cases(ctx);
    test_shape_rule();
    test_stats(ctx);
    tm_each_shared(ctx, check_registry); /* every shared matrix */
    spx_ctx_destroy(&ctx);
    fc_alloc_failures("hbp", "wide", alloc_matrix, 200);
    return check_report();
}
