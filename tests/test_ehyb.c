/* tests/test_ehyb.c: the ehyb format's partition and layout invariants on the CPU, for both
 * partitioners and both precisions: permutations are bijections, parts contiguous, segments
 * and 16-bit offsets in range (raising the part count, never overflowing), in-part entries
 * in ELL and the rest in ER, ELL + ER = A, deterministic METIS, each layout also in plan
 * order (one numbering for x and y) where it fits; the check refusing broken
 * layouts; plus plan statistics and phases, and allocation-failure injection. Skipped (77) when METIS is not built.
 * (The CPU SpMV against the reference runs in test_formats_cpu, which iterates the registry.) */
#include <string.h>

#include "format_check.h"
#include "formats/ehyb/ehyb.h"
#include "formats/ehyb/ehyb_tuning.h"
#include "partition/partition.h"
#include "matrices.h"

static const spx_precision precisions[] = {SPX_FP64, SPX_FP32};

/* The H100-sized target a CPU plan uses. */
static const spx_ehyb_target cpu_target = {SPX_EHYB_CPU_DEFAULT_SMS, SPX_EHYB_CPU_DEFAULT_SMEM};

/* Builds A's layouts for target tg from one partition, in the caller's order (*F) and, when
 * Fp is not NULL, asking for plan order (*Fp); NULL (and a failed check) when it cannot. */
static void build_both(spx_ctx *ctx, const spx_csr *A, spx_ehyb_algo algo, const spx_ehyb_target *tg,
                       spx_precision prec, const char *label, spx_ehyb_fmt **F, spx_ehyb_fmt **Fp)
{
    spx_ehyb_parts parts = {0};
    double tg_s = 0, tp_s = 0;
    *F = NULL;
    if (Fp) *Fp = NULL;
    spx_status s = spx_ehyb_partition(ctx, A, algo, tg, prec, &parts, &tg_s, &tp_s);
    CHECK_MSG(s == SPX_OK, "%s: partition: %s", label, spx_ctx_last_error(ctx));
    if (s) return;
    s = spx_ehyb_fmt_build(ctx, A, &parts, prec, algo, 0, F);
    CHECK_MSG(s == SPX_OK, "%s: build: %s", label, spx_ctx_last_error(ctx));
    if (Fp) {
        s = spx_ehyb_fmt_build(ctx, A, &parts, prec, algo, 1, Fp);
        CHECK_MSG(s == SPX_OK, "%s: build in plan order: %s", label, spx_ctx_last_error(ctx));
    }
    spx_ehyb_parts_free(ctx, &parts);
}

/* Builds A's layout for target tg in the caller's order; NULL (and a failed check) when it
 * cannot. */
static spx_ehyb_fmt *build(spx_ctx *ctx, const spx_csr *A, spx_ehyb_algo algo, const spx_ehyb_target *tg,
                           spx_precision prec, const char *label)
{
    spx_ehyb_fmt *F = NULL;
    build_both(ctx, A, algo, tg, prec, label, &F, NULL);
    return F;
}

/* Whether the round trip of F equals A (values rounded for fp32). */
static int same_as(spx_ctx *ctx, const spx_ehyb_fmt *F, const spx_csr *A, spx_precision prec)
{
    spx_csr *B = NULL;
    if (spx_ehyb_fmt_to_csr(ctx, F, &B)) return 0;
    int same = B->m == A->m && B->n == A->n && B->nnz == A->nnz;
    for (int32_t i = 0; same && i <= A->m; i++) same = B->rowptr[i] == A->rowptr[i];
    for (int64_t k = 0; same && k < A->nnz; k++)
        same = B->colind[k] == A->colind[k] && B->val[k] == (prec == SPX_FP32 ? (double)(float)A->val[k] : A->val[k]);
    spx_csr_destroy(&B);
    return same;
}

/* Every ER entry's column lies outside its row's part, and the ELL, ER and long-row counts
 * add up to nnz: with the round trip this is "a slice row's in-part entries in ELL, its
 * others in ER" (a long row is whole in the long list). */
static int er_outside(spx_ctx *ctx, const spx_ehyb_fmt *F)
{
    int32_t *col_new = spx_malloc_array(ctx, (size_t)F->n + 1, sizeof *col_new);
    int ok = col_new && F->ell_nnz + F->er_nnz + F->long_nnz == F->nnz;
    for (int32_t c = 0; ok && c < F->n; c++) col_new[F->col_perm[c]] = c;
    const int32_t R = spx_ehyb_slice_rows(F);
    for (int32_t p = 0; ok && p < F->nparts; p++)
        for (int32_t s = F->part_slice[p]; ok && s < F->part_slice[p + 1]; s++)
            for (int64_t k = F->er_ptr[s]; ok && k < F->er_ptr[s + 1]; k++) {
                const int32_t q = (int32_t)((k - F->er_ptr[s]) % SPX_EHYB_WARP) / F->lanes;
                const int32_t r = F->row_start[p] + (s - F->part_slice[p]) * R + q;
                if (F->er_col[k] < 0) continue;
                const int32_t c = F->plan_order ? F->er_col[k] : col_new[F->er_col[k]];
                ok = r < F->row_start[p + 1] && (c < F->col_start[p] || c >= F->col_start[p + 1]);
            }
    spx_free(ctx, col_new);
    return ok;
}

/* All invariants of layout F of A (label names it); frees F. */
static void check_one(spx_ctx *ctx, const spx_csr *A, const spx_ehyb_target *tg, spx_precision prec,
                      const char *label, spx_ehyb_fmt *F)
{
    if (!F) return;
    spx_status s = spx_ehyb_fmt_check(ctx, F);
    CHECK_MSG(s == SPX_OK, "%s: %s", label, spx_ctx_last_error(ctx));
    CHECK_MSG(F->seg_max <= SPX_EHYB_SEG_LIMIT && F->seg_max <= spx_ehyb_seg_cap(tg, prec, F->blocks_per_sm),
              "%s: segment %d", label, F->seg_max);
    CHECK_MSG(same_as(ctx, F, A, prec), "%s: ELL + ER != A", label);
    CHECK_MSG(er_outside(ctx, F), "%s: an ER entry lies inside its part", label);
    spx_ehyb_fmt_destroy(ctx, F);
}

/* All invariants of A's layouts in both vector orders; plan order taken exactly where it
 * fits (a square matrix without long rows). */
static void check_layout(spx_ctx *ctx, const spx_csr *A, spx_ehyb_algo algo, const spx_ehyb_target *tg,
                         spx_precision prec, const char *what)
{
    char label[256], plabel[300];
    snprintf(label, sizeof label, "%s [%s %s]", what, spx_ehyb_algo_names[algo], prec == SPX_FP32 ? "fp32" : "fp64");
    snprintf(plabel, sizeof plabel, "%s, plan order", label);
    spx_ehyb_fmt *F = NULL, *Fp = NULL;
    build_both(ctx, A, algo, tg, prec, label, &F, &Fp);
    if (F && Fp) {
        const int fits = A->m == A->n && F->n_long == 0;
        CHECK_MSG(!F->plan_order && Fp->plan_order == fits, "%s: plan order %d where it %s", plabel, Fp->plan_order,
                  fits ? "fits" : "does not fit");
        CHECK_MSG(spx_ehyb_fmt_bytes(Fp) <= spx_ehyb_fmt_bytes(F), "%s: more bytes than the caller's order", plabel);
    }
    check_one(ctx, A, tg, prec, label, F);
    check_one(ctx, A, tg, prec, plabel, Fp);
}

/* Both partitioners and precisions on A. */
static void check_all(spx_ctx *ctx, const spx_csr *A, const spx_ehyb_target *tg, const char *what)
{
    for (int a = 0; a < SPX_EHYB_ALGO_COUNT; a++)
        for (int p = 0; p < 2; p++) check_layout(ctx, A, (spx_ehyb_algo)a, tg, precisions[p], what);
}

static void test_edge_cases(spx_ctx *ctx)
{
    for (int i = 0; i < TM_N_EDGE; i++) {
        const tm_case *c = &tm_edge_cases[i];
        spx_csr *A = tm_make(ctx, c->m, c->n, c->len, 11 + (uint64_t)i);
        CHECK_MSG(A != NULL, "%s: build", c->name);
        if (A && c->m > 10000) { /* METIS on these random patterns takes 2-10 s a build: one build
                                    each (test_formats_cpu runs METIS on all of them too) */
            if (c->m < 65536) check_layout(ctx, A, SPX_EHYB_METIS, &cpu_target, SPX_FP64, c->name);
            check_layout(ctx, A, SPX_EHYB_BFS, &cpu_target, SPX_FP32, c->name);
            check_layout(ctx, A, SPX_EHYB_GROW, &cpu_target, SPX_FP64, c->name);
            check_layout(ctx, A, SPX_EHYB_VORONOI, &cpu_target, SPX_FP32, c->name);
        } else if (A) {
            check_all(ctx, A, &cpu_target, c->name);
        }
        spx_csr_destroy(&A);
    }
}

static int64_t len_million(int32_t i, int32_t m, int32_t n) { (void)m; return i == 0 ? n : 2; }

/* 64 x 1,000,000 with one dense row: the block fallback, the long ER row. */
static void test_wide_dense_row(spx_ctx *ctx)
{
    spx_csr *A = tm_make(ctx, 64, 1000000, len_million, 5);
    CHECK(A != NULL);
    if (!A) return;
    check_layout(ctx, A, SPX_EHYB_METIS, &cpu_target, SPX_FP64, "64 x 1M, one dense row");
    spx_ehyb_fmt *F = build(ctx, A, SPX_EHYB_METIS, &cpu_target, SPX_FP64, "64 x 1M");
    CHECK(F && F->split == SPX_EHYB_SPLIT_BLOCKS && F->n_long == 1 && F->long_row[0] == 0);
    CHECK(F && F->ell_slots + F->er_slots + F->long_nnz < 2 * A->nnz); /* no 32x padding of the dense row */
    spx_ehyb_fmt_destroy(ctx, F);
    spx_csr_destroy(&A);
}

/* Whether spx_ehyb_fmt_check refuses F (as SPX_ERR_VERIFY). */
static int refused(spx_ctx *ctx, const spx_ehyb_fmt *F) { return spx_ehyb_fmt_check(ctx, F) == SPX_ERR_VERIFY; }

/* The check refuses a layout whose first row has two entries out of column order (each on
 * its own lane, G > 1), whose long-row offsets end past long_nnz, or whose long row names a
 * column past n; each repaired layout passes again. */
static void test_check_refuses(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:powerlaw:m=20000,k=8", &A));
    spx_ehyb_fmt *F = A ? build(ctx, A, SPX_EHYB_METIS, &cpu_target, SPX_FP64, "powerlaw 20000") : NULL;
    if (F) {
        CHECK_OK(ctx, spx_ehyb_fmt_check(ctx, F));
        CHECK_MSG(F->lanes > 1 && F->n_long > 0, "lanes %d, long rows %d", F->lanes, F->n_long);
        const int64_t a = spx_ehyb_slot(F, F->ell_ptr[0], 0, 0), b = spx_ehyb_slot(F, F->ell_ptr[0], 0, 1);
        if (F->lanes > 1 && b < F->ell_ptr[1]) {
            uint16_t t = F->ell_col[a];
            F->ell_col[a] = F->ell_col[b];
            F->ell_col[b] = t;
            CHECK(refused(ctx, F));
            F->ell_col[b] = F->ell_col[a];
            F->ell_col[a] = t;
            CHECK_OK(ctx, spx_ehyb_fmt_check(ctx, F));
        }
        if (F->n_long > 0) {
            F->long_ptr[F->n_long]++;
            CHECK(refused(ctx, F));
            F->long_ptr[F->n_long]--;
            const int32_t c = F->long_col[0];
            F->long_col[0] = F->n;
            CHECK(refused(ctx, F));
            F->long_col[0] = c;
            CHECK_OK(ctx, spx_ehyb_fmt_check(ctx, F));
        }
    }
    spx_ehyb_fmt_destroy(ctx, F);
    spx_csr_destroy(&A);
}

/* A plan-order layout whose columns are numbered apart from its rows is refused; repaired, it
 * passes again. */
static void test_check_refuses_plan_order(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:poisson3d:n=24", &A));
    spx_ehyb_fmt *F = NULL, *Fp = NULL;
    if (A) build_both(ctx, A, SPX_EHYB_GROW, &cpu_target, SPX_FP64, "poisson3d n=24", &F, &Fp);
    CHECK(Fp && Fp->plan_order);
    if (Fp && Fp->plan_order) {
        CHECK_OK(ctx, spx_ehyb_fmt_check(ctx, Fp));
        const int32_t t = Fp->col_perm[0];
        Fp->col_perm[0] = Fp->col_perm[1];
        Fp->col_perm[1] = t;
        CHECK(refused(ctx, Fp));
        Fp->col_perm[1] = Fp->col_perm[0];
        Fp->col_perm[0] = t;
        CHECK_OK(ctx, spx_ehyb_fmt_check(ctx, Fp));
    }
    spx_ehyb_fmt_destroy(ctx, F);
    spx_ehyb_fmt_destroy(ctx, Fp);
    spx_csr_destroy(&A);
}

/* Generated matrices, with the H100 target and with tiny shared memory (many parts, K > 1,
 * parts split), and a huge one (segments clipped to the 16-bit limit). */
static void test_generated(spx_ctx *ctx)
{
    static const char *specs[] = {"gen:poisson2d:n=60", "gen:poisson3d:n=14", "gen:stencil27:n=10",
                                  "gen:rmat:scale=11,ef=8", "gen:banded:m=3000,bw=4", "gen:tall:m=5000,n=70,k=2"};
    /* 64 fp64 values a segment (ehyb_tuning.h: 65 cells, one for padding) */
    const spx_ehyb_target tiny = {4, 2 * (SPX_EHYB_SMEM_SYSTEM + SPX_EHYB_SMEM_RESERVE + 8 * 65) - SPX_EHYB_SMEM_SYSTEM};
    const spx_ehyb_target huge = {1, (int64_t)1 << 30};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        spx_csr *A = NULL;
        spx_status s = spx_gen(ctx, specs[i], &A);
        CHECK_MSG(s == SPX_OK, "%s: %s", specs[i], spx_ctx_last_error(ctx));
        if (s) continue;
        check_all(ctx, A, &cpu_target, specs[i]);
        check_all(ctx, A, &tiny, specs[i]);
        spx_ehyb_fmt *F = build(ctx, A, SPX_EHYB_METIS, &tiny, SPX_FP64, specs[i]);
        CHECK_MSG(F && F->seg_max <= 64 && (A->n <= 64 * 4 || F->K > 1), "%s: tiny target K %d seg %d", specs[i],
                  F ? F->K : -1, F ? F->seg_max : -1);
        spx_ehyb_fmt_destroy(ctx, F);
        check_layout(ctx, A, SPX_EHYB_BFS, &huge, SPX_FP32, specs[i]);
        spx_csr_destroy(&A);
    }
}

/* A 70000 x 70000 diagonal-plus-band matrix on one SM with unlimited shared memory: one part
 * would be 70000 columns, beyond 16 bits; the layout must split it. */
static void test_16bit_limit(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    spx_status s = spx_gen(ctx, "gen:banded:m=70000,bw=2", &A);
    CHECK_MSG(s == SPX_OK, "%s", spx_ctx_last_error(ctx));
    if (s) return;
    const spx_ehyb_target huge = {1, (int64_t)1 << 30};
    for (int a = 0; a < SPX_EHYB_ALGO_COUNT; a++) {
        check_layout(ctx, A, (spx_ehyb_algo)a, &huge, SPX_FP64, "70000 band, one SM");
        spx_ehyb_fmt *F = build(ctx, A, (spx_ehyb_algo)a, &huge, SPX_FP64, "70000 band");
        CHECK(F && F->nparts >= 2 && F->seg_max <= SPX_EHYB_SEG_LIMIT);
        spx_ehyb_fmt_destroy(ctx, F);
    }
    spx_csr_destroy(&A);
}

/* The kernel's shape: on a 2-SM target (8 narrow slots) a 90000-row mesh (two waves of
 * narrow segments, K = 2) and a 10000-row one (one wave, a part for every slot) take the wide
 * shape (longer segments, half the parts); a 1600-row mesh (fewer parts than slots: too few
 * rows for 8 parts of SPX_EHYB_MIN_PART_ROWS) keeps the narrow one. */
static void test_block_shape(spx_ctx *ctx)
{
    const spx_ehyb_target two_sms = {2, SPX_EHYB_CPU_DEFAULT_SMEM};
    const char *specs[] = {"gen:poisson2d:n=300", "gen:poisson2d:n=100", "gen:poisson2d:n=40"};
    const int32_t want[] = {SPX_EHYB_WIDE_BLOCKS_PER_SM, SPX_EHYB_WIDE_BLOCKS_PER_SM, SPX_EHYB_BLOCKS_PER_SM};
    for (int i = 0; i < 3; i++) {
        spx_csr *A = NULL;
        spx_status s = spx_gen(ctx, specs[i], &A);
        CHECK_MSG(s == SPX_OK, "%s", spx_ctx_last_error(ctx));
        if (s) continue;
        for (int a = SPX_EHYB_BFS; a < SPX_EHYB_ALGO_COUNT; a++) {
            check_layout(ctx, A, (spx_ehyb_algo)a, &two_sms, SPX_FP64, specs[i]);
            spx_ehyb_fmt *F = build(ctx, A, (spx_ehyb_algo)a, &two_sms, SPX_FP64, specs[i]);
            CHECK_MSG(F && F->blocks_per_sm == want[i] && F->P == 2 * want[i] &&
                          F->seg_cap == spx_ehyb_seg_cap(&two_sms, SPX_FP64, want[i]),
                      "%s: shape %d, P %d", specs[i], F ? F->blocks_per_sm : -1, F ? F->P : -1);
            spx_ehyb_fmt_destroy(ctx, F);
        }
        spx_csr_destroy(&A);
    }
}

/* Two METIS builds of one matrix give the same permutations (fixed seed). */
static void test_deterministic(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    if (spx_gen(ctx, "gen:poisson3d:n=20", &A)) return;
    spx_ehyb_fmt *F = build(ctx, A, SPX_EHYB_METIS, &cpu_target, SPX_FP64, "determinism 1");
    spx_ehyb_fmt *G = build(ctx, A, SPX_EHYB_METIS, &cpu_target, SPX_FP64, "determinism 2");
    CHECK(F && G && F->nparts == G->nparts && F->edge_cut == G->edge_cut);
    CHECK(F && G && !memcmp(F->row_perm, G->row_perm, (size_t)A->m * sizeof *F->row_perm));
    CHECK(F && G && !memcmp(F->col_perm, G->col_perm, (size_t)A->n * sizeof *F->col_perm));
    CHECK(F && F->split == SPX_EHYB_SPLIT_GRAPH && F->er_nnz < A->nnz / 2); /* METIS cuts little of a mesh */
    spx_ehyb_fmt_destroy(ctx, F);
    spx_ehyb_fmt_destroy(ctx, G);
    spx_csr_destroy(&A);
}

/* Whether info has a stat named key. */
static int has_stat(const spx_plan_info *pi, const char *key)
{
    for (int i = 0; i < pi->n_stats; i++)
        if (!strcmp(pi->stats[i].key, key)) return 1;
    return 0;
}

/* Whether info has a phase named name. */
static int has_phase(const spx_plan_info *pi, const char *name)
{
    for (int i = 0; i < pi->n_phases; i++)
        if (!strcmp(pi->phases[i].name, name)) return 1;
    return 0;
}

/* Plans through the public API: every algorithm, stats and phases, the SpMV and round trip. */
static void test_plans(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    if (spx_gen(ctx, "gen:poisson2d:n=80", &A)) return;
    for (int a = 0; a < SPX_EHYB_ALGO_COUNT; a++) {
        for (int p = 0; p < 2; p++) fc_check(ctx, A, "ehyb", spx_ehyb_algo_names[a], SPX_BACKEND_CPU, precisions[p], "plan");
        spx_plan_opts o = {.format = "ehyb", .algo = spx_ehyb_algo_names[a], .backend = SPX_BACKEND_CPU};
        spx_plan *p = NULL;
        CHECK_OK(ctx, spx_plan_create(ctx, A, &o, &p));
        spx_plan_info pi;
        if (p && spx_plan_get_info(p, &pi) == SPX_OK) {
            CHECK(!strcmp(pi.algo, spx_ehyb_algo_names[a]));
            CHECK(has_stat(&pi, "K") && has_stat(&pi, "P") && has_stat(&pi, "parts") && has_stat(&pi, "er_fraction") &&
                  has_stat(&pi, "ell_fill") && has_stat(&pi, "bytes_per_nnz"));
            CHECK(has_phase(&pi, "partition") && has_phase(&pi, "reorder") && has_phase(&pi, "graph"));
        }
        spx_plan_destroy(&p);
    }
    spx_plan_opts bad = {.format = "ehyb", .algo = "nope", .backend = SPX_BACKEND_CPU};
    spx_plan *p = NULL;
    CHECK(spx_plan_create(ctx, A, &bad, &p) == SPX_ERR_ARG && p == NULL);
    spx_csr_destroy(&A);
}

/* The ehyb plans' matrix for allocation-failure injection (square: the graph path). */
static spx_csr *alloc_matrix(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    return spx_gen(ctx, "gen:poisson2d:n=40", &A) ? NULL : A;
}

int main(void)
{
    if (!spx_partition_have_metis()) {
        printf("skipped: ehyb: METIS not found (install libmetis-dev)\n");
        return 77;
    }
    spx_ctx *ctx = NULL;
    spx_ctx_opts co = {.backend = SPX_BACKEND_CPU};
    if (spx_ctx_create(&ctx, &co)) return 1;
    test_edge_cases(ctx);
    test_wide_dense_row(ctx);
    test_check_refuses(ctx);
    test_check_refuses_plan_order(ctx);
    test_generated(ctx);
    test_16bit_limit(ctx);
    test_block_shape(ctx);
    test_deterministic(ctx);
    test_plans(ctx);
    spx_ctx_destroy(&ctx);
    fc_alloc_failures("ehyb", "metis", alloc_matrix, 400);
    fc_alloc_failures("ehyb", "bfs", alloc_matrix, 400);
    return check_report();
}
