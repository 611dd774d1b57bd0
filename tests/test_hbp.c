/* tests/test_hbp.c: the hbp layout's own invariants on the host (the registry's format tests
 * cover round trip and SpMV on every matrix): small tiles on hand-made and generated matrices
 * (each row's entries of a tile in its pieces, output_hash naming the tile's rows, slot
 * order by (bucket, row) or (len, row), group offsets, step-major entries), hash and sort
 * layouts equal up to the order inside tiles, the tile-shape rule, the aggregation shift,
 * index-type overflow refused with a message, and the layout statistics. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format_check.h"
#include "matrices.h"
#include "formats/hbp/hbp.h"
#include "formats/hbp/hbp_tuning.h"
#include "hbp_check.h"

/* Entries of row i (global) in column block cb of A. */
static int64_t row_block_len(const spx_csr *A, int64_t i, int32_t cb, int32_t W)
{
    int64_t c = 0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) c += A->colind[k] / W == cb;
    return c;
}

/* Checks one tile t of panel p: slots are exactly the pieces of its non-empty rows (a row's
 * pieces adjacent in its own order, with SPX_HBP_PIECE_LEN lengths summing to the row's run),
 * in the algorithm's order; groups cover the slots by 32. */
static void check_tile(const spx_csr *A, const spx_hbp_fmt *F, int32_t p, int64_t t, const char *label)
{
    const int64_t r0 = (int64_t)p * F->H, r1 = r0 + F->H < A->m ? r0 + F->H : A->m;
    const int32_t cb = F->tile_colblock[t];
    int64_t pieces = 0;
    for (int64_t i = r0; i < r1; i++) pieces += SPX_HBP_PIECES(row_block_len(A, i, cb, F->W));
    const int64_t s0 = F->tile_slot[t], s1 = F->tile_slot[t + 1];
    CHECK_MSG(s1 - s0 == pieces, "%s: tile %lld has %lld slots for %lld pieces", label, (long long)t,
              (long long)(s1 - s0), (long long)pieces);
    int64_t *seen = calloc((size_t)F->H, sizeof *seen); /* pieces of each row met so far */
    for (int64_t s = s0; s < s1; s++) {
        int r = F->slot_row[s];
        CHECK_MSG(r0 + r < r1, "%s: tile %lld slot %lld row %d out of range", label, (long long)t, (long long)s, r);
        if (r0 + r >= r1) continue;
        const int64_t run = row_block_len(A, r0 + r, cb, F->W), n = SPX_HBP_PIECES(run), j = seen[r]++;
        CHECK_MSG(j < n && F->slot_len[s] == SPX_HBP_PIECE_LEN(run, n, j) && F->slot_len[s] >= 1,
                  "%s: tile %lld slot %lld (row %d, piece %lld of %lld) length %d, run %lld", label, (long long)t,
                  (long long)s, r, (long long)j, (long long)n, F->slot_len[s], (long long)run);
        if (s > s0) { /* the execution order; a row's pieces adjacent */
            int pr = F->slot_row[s - 1], pl = F->slot_len[s - 1], l = F->slot_len[s];
            long kp = F->algo == SPX_HBP_SORT ? pl : SPX_HBP_BUCKET(pl, F->agg_shift);
            long kc = F->algo == SPX_HBP_SORT ? l : SPX_HBP_BUCKET(l, F->agg_shift);
            CHECK_MSG(kp < kc || (kp == kc && pr <= r), "%s: tile %lld slots %lld-%lld out of order", label,
                      (long long)t, (long long)(s - 1), (long long)s);
        }
    }
    free(seen);
    CHECK_MSG(F->tile_group[t + 1] - F->tile_group[t] == (s1 - s0 + 31) / 32, "%s: tile %lld group count", label,
              (long long)t);
    for (int64_t g = F->tile_group[t]; g < F->tile_group[t + 1]; g++) {
        int64_t gs = s0 + (g - F->tile_group[t]) * 32, ge = gs + 32 < s1 ? gs + 32 : s1, sum = 0;
        for (int64_t s = gs; s < ge; s++) sum += F->slot_len[s];
        CHECK_MSG(F->group_nnz[g + 1] - F->group_nnz[g] == sum, "%s: group %lld holds %lld entries, slots say %lld",
                  label, (long long)g, (long long)(F->group_nnz[g + 1] - F->group_nnz[g]), (long long)sum);
    }
}

/* Every invariant of hbp.h on F built from A. */
static void check_layout(const spx_csr *A, const spx_hbp_fmt *F, const char *label)
{
    CHECK(F->panel_tile[0] == 0 && F->panel_tile[F->n_panels] == F->n_tiles);
    CHECK(F->tile_slot[F->n_tiles] == F->n_slots && F->tile_group[F->n_tiles] == F->n_groups);
    CHECK(F->group_nnz[0] == 0 && F->group_nnz[F->n_groups] == F->nnz);
    for (int64_t k = 0; k < F->nnz; k++)
        if (F->col[k] >= F->W) {
            CHECK_MSG(0, "%s: column offset %d >= W", label, F->col[k]);
            break;
        }
    for (int32_t p = 0; p < F->n_panels; p++) {
        CHECK(F->panel_tile[p] <= F->panel_tile[p + 1]);
        for (int64_t t = F->panel_tile[p]; t < F->panel_tile[p + 1]; t++) {
            if (t > F->panel_tile[p])
                CHECK_MSG(F->tile_colblock[t] > F->tile_colblock[t - 1], "%s: tiles of panel %d not ascending", label, p);
            check_tile(A, F, p, t, label);
        }
    }
}

/* Builds A as hash and as sort with tiles H x W and checks both, and that they hold the same
 * tiles, groups and (row, len) sets, differing only in the order within tiles. */
static void check_both(spx_ctx *ctx, const spx_csr *A, int32_t H, int32_t W, const char *what)
{
    static const char *const algos[2] = {"hash", "sort"};
    spx_hbp_fmt *F[2] = {NULL, NULL};
    for (int a = 0; a < 2; a++) {
        char label[160];
        snprintf(label, sizeof label, "%s %s %dx%d", what, algos[a], H, W);
        CHECK_OK(ctx, spx_hbp_fmt_build(ctx, A, NULL, SPX_FP64, algos[a], H, W, &F[a]));
        if (!F[a]) continue;
        check_layout(A, F[a], label);
        check_round_trip(ctx, A, F[a], label);
        check_spmv(ctx, A, F[a], label);
    }
    spx_hbp_fmt *Fh = F[0], *Fs = F[1];
    if (Fh && Fs) {
        int same = Fh->n_tiles == Fs->n_tiles && Fh->n_groups == Fs->n_groups && Fh->n_slots == Fs->n_slots;
        for (int64_t t = 0; same && t <= Fh->n_tiles; t++)
            same = Fh->tile_slot[t] == Fs->tile_slot[t] && Fh->tile_group[t] == Fs->tile_group[t];
        CHECK_MSG(same, "%s: hash and sort layouts differ beyond the order within tiles", what);
        CHECK_MSG(Fs->lane_util_after >= Fs->lane_util_before - 1e-12,
                  "%s: sorting and cutting lowered the lane utilisation (%g -> %g)", what, Fs->lane_util_before,
                  Fs->lane_util_after);
    }
    spx_hbp_fmt_destroy(ctx, Fh);
    spx_hbp_fmt_destroy(ctx, Fs);
}

/* The docs' worked example: 4 x 6, tiles 32 x 4 (one panel, two column blocks). */
static void test_worked_example(spx_ctx *ctx)
{
    /* row 0: (0,1) (1,2) (4,3); row 1: (2,4); row 2: empty; row 3: (0,5) (1,6) (2,7) (5,8) */
    spx_csr *A = tm_worked_example(ctx);
    CHECK(A != NULL);
    if (!A) return;
    spx_hbp_fmt *F = NULL;
    CHECK_OK(ctx, spx_hbp_fmt_build(ctx, A, NULL, SPX_FP64, "sort", 32, 4, &F));
    if (F) {
        CHECK(F->n_panels == 1 && F->n_colblocks == 2 && F->n_tiles == 2 && F->n_groups == 2 && F->n_slots == 5);
        /* tile 0 (columns 0-3): rows 1 (len 1), 0 (len 2), 3 (len 3) by (len, row) */
        static const uint16_t rows[] = {1, 0, 3, 0, 3}, lens[] = {1, 2, 3, 1, 1};
        CHECK(!memcmp(F->slot_row, rows, sizeof rows) && !memcmp(F->slot_len, lens, sizeof lens));
        /* tile 0 step-major: step 0 = rows 1, 0, 3; step 1 = rows 0, 3; step 2 = row 3 */
        static const uint16_t cols[] = {2, 0, 0, 1, 1, 2, 0, 1};
        static const double vals[] = {4, 1, 5, 2, 6, 7, 3, 8};
        CHECK(!memcmp(F->col, cols, sizeof cols) && !memcmp(F->val64, vals, sizeof vals));
        CHECK(F->group_nnz[0] == 0 && F->group_nnz[1] == 6 && F->group_nnz[2] == 8);
        check_layout(A, F, "worked example");
        check_round_trip(ctx, A, F, "worked example");
        check_spmv(ctx, A, F, "worked example");
    }
    spx_hbp_fmt_destroy(ctx, F);
    check_both(ctx, A, 32, 4, "worked example");
    spx_csr_destroy(&A);
}

/* Small tiles on matrices with empty rows, long rows and skew: many tiles and partial groups. */
static void test_small_tiles(spx_ctx *ctx)
{
    static const char *specs[] = {"gen:rmat:scale=10,ef=8", "gen:powerlaw:m=3000,k=6", "gen:poisson2d:n=30",
                                  "gen:uniform:m=500,n=700,k=9"};
    static const int32_t shapes[][2] = {{32, 16}, {64, 256}, {96, 1}, {512, 4096}};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        spx_csr *A = NULL;
        CHECK_OK(ctx, spx_gen(ctx, specs[i], &A));
        for (size_t s = 0; A && s < sizeof shapes / sizeof shapes[0]; s++) check_both(ctx, A, shapes[s][0], shapes[s][1], specs[i]);
        spx_csr_destroy(&A);
    }
    for (int c = 0; c < TM_N_EDGE; c++) {
        spx_csr *A = tm_make(ctx, tm_edge_cases[c].m, tm_edge_cases[c].n, tm_edge_cases[c].len, 5 + (uint64_t)c);
        if (A) check_both(ctx, A, 32, 64, tm_edge_cases[c].name);
        spx_csr_destroy(&A);
    }
}

/* Long runs are cut into pieces: a 100-entry row in a 128-column tile becomes 4 slots of 25,
 * a 33-entry row 2 slots of 16 and 17 (the shorter first), in either order. */
static void test_pieces(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_csr_alloc(ctx, 2, 128, 133, &A));
    if (!A) return;
    for (int k = 0; k < 133; k++) {
        A->colind[k] = k < 100 ? k : k - 100 + 7;
        A->val[k] = 1.0 + k;
    }
    A->rowptr[1] = 100;
    A->rowptr[2] = 133;
    for (int a = 0; a < 2; a++) {
        spx_hbp_fmt *F = NULL;
        CHECK_OK(ctx, spx_hbp_fmt_build(ctx, A, NULL, SPX_FP64, a ? "sort" : "hash", 32, 128, &F));
        if (!F) continue;
        int n25 = 0, n16 = 0, n17 = 0;
        for (int64_t sl = 0; sl < F->n_slots; sl++) {
            n25 += F->slot_row[sl] == 0 && F->slot_len[sl] == 25;
            n16 += F->slot_row[sl] == 1 && F->slot_len[sl] == 16;
            n17 += F->slot_row[sl] == 1 && F->slot_len[sl] == 17;
        }
        CHECK_MSG(F->n_slots == 6 && n25 == 4 && n16 == 1 && n17 == 1, "pieces: %lld slots (%d x 25, %d x 16, %d x 17)",
                  (long long)F->n_slots, n25, n16, n17);
        CHECK(SPX_HBP_PIECE_MAX != 32 || F->lane_util_after > F->lane_util_before);
        spx_hbp_fmt_destroy(ctx, F);
    }
    check_both(ctx, A, 32, 128, "pieces");
    spx_csr_destroy(&A);
}

/* Tile shapes the layout's 16-bit indices cannot hold are refused with a clear message. */
static void test_overflow(spx_ctx *ctx)
{
    spx_csr *A = tm_make(ctx, 40, 70000, tm_len_const8, 3);
    spx_hbp_fmt *F = NULL;
    spx_status s = spx_hbp_fmt_build(ctx, A, NULL, SPX_FP64, "hash", 32, 65536, &F);
    CHECK_MSG(s == SPX_ERR_OVERFLOW && !F && strstr(spx_ctx_last_error(ctx), "16-bit"), "W = 65536 gave %s: %s",
              spx_status_str(s), spx_ctx_last_error(ctx));
    s = spx_hbp_fmt_build(ctx, A, NULL, SPX_FP64, "hash", 131072, 1024, &F);
    CHECK_MSG(s == SPX_ERR_OVERFLOW && !F, "H = 131072 gave %s", spx_status_str(s));
    s = spx_hbp_fmt_build(ctx, A, NULL, SPX_FP64, "hash", 48, 1024, &F);
    CHECK_MSG(s == SPX_ERR_ARG && !F, "H = 48 gave %s", spx_status_str(s));
    s = spx_hbp_fmt_build(ctx, A, NULL, SPX_FP64, "hash", 64, 1000, &F);
    CHECK_MSG(s == SPX_ERR_ARG && !F, "W = 1000 gave %s", spx_status_str(s));
    s = spx_hbp_fmt_build(ctx, A, NULL, SPX_FP64, "nope", 64, 1024, &F);
    CHECK_MSG(s == SPX_ERR_ARG && !F, "unknown algorithm gave %s", spx_status_str(s));
    /* the largest shape works: a full 32768-column block of one row (len = W fits uint16) */
    spx_csr *D = tm_make(ctx, 2, 32768, tm_len_dense_row, 4);
    CHECK_OK(ctx, spx_hbp_fmt_build(ctx, D, NULL, SPX_FP64, "hash", 65536, 32768, &F));
    if (F) {
        check_layout(D, F, "max shape");
        check_round_trip(ctx, D, F, "max shape");
    }
    spx_hbp_fmt_destroy(ctx, F);
    spx_csr_destroy(&D);
    spx_csr_destroy(&A);
}

/* The tile-shape rule: the paper's shape for ordinary matrices, taller and wider tiles for
 * very sparse ones (uniform 16.8M x 8). */
static void test_shape_rule(void)
{
    spx_features f;
    memset(&f, 0, sizeof f);
    int32_t H, W;
    f.m = f.n = 1000000;
    f.row_mean = 27;
    f.diag_distance = 1e-4; /* near the diagonal */
    spx_hbp_tile_shape(&f, 8, SPX_HBP_SMEM_BUDGET, &H, &W);
    CHECK_MSG(H == 512 && W == 4096, "stencil-like fp64: %d x %d", H, W);
    spx_hbp_tile_shape(&f, 4, SPX_HBP_SMEM_BUDGET, &H, &W);
    CHECK_MSG(H == 512 && W == 8192, "stencil-like fp32: %d x %d", H, W);
    f.m = f.n = 16777216;
    f.row_mean = 8;
    f.diag_distance = 1.0 / 3.0; /* uniform */
    spx_hbp_tile_shape(&f, 8, SPX_HBP_SMEM_BUDGET, &H, &W);
    CHECK_MSG(H == 4096 && W == 32768, "uniform 16.8M x 8: %d x %d", H, W);
    spx_hbp_tile_shape(&f, 8, 48 * 1024, &H, &W);
    CHECK_MSG((int64_t)H * SPX_HBP_ACC_BYTES <= 48 * 1024, "small shared memory: H = %d", H);
    f.diag_distance = 0.0; /* unknown: n is the spread */
    f.m = f.n = 1000000;
    f.row_mean = 27;
    spx_hbp_tile_shape(&f, 8, SPX_HBP_SMEM_BUDGET, &H, &W);
    /* W doubles until 27 x W / 1M reaches the row fill (1/4: 16384; 4: past the 32768 cap) */
    CHECK_MSG(W == (SPX_HBP_SPARSE_ROW_FILL > 1.0 ? 32768 : 16384) && H == 512, "27 per row over 1M columns: %d x %d",
              H, W);
}

/* The aggregation shift: 90 % of the rows below the last bucket. */
static void test_agg_shift(void)
{
    int64_t h[32] = {0};
    CHECK(spx_hbp_agg_shift(h) == 0);
    h[0] = 100; /* all rows of length 1 */
    CHECK(spx_hbp_agg_shift(h) == 0);
    h[0] = 0;
    h[6] = 100; /* lengths 64..127: need 8 << a > 127, a = 4 */
    CHECK_MSG(spx_hbp_agg_shift(h) == 4, "a = %d", spx_hbp_agg_shift(h));
    h[1] = 900; /* 90 % short rows: a = 0 */
    CHECK(spx_hbp_agg_shift(h) == 0);
}

/* A CPU plan of A as hbp/algo (NULL: auto) resolves to `resolved` and reports every stat in
 * want (n of them). */
static void check_plan_stats(spx_ctx *ctx, const spx_csr *A, const char *algo, const char *resolved,
                             const char *const *want, size_t n)
{
    spx_plan_opts o = {.format = "hbp", .algo = algo, .backend = SPX_BACKEND_CPU};
    spx_plan *p = NULL;
    spx_plan_info pi;
    CHECK_OK(ctx, spx_plan_create(ctx, A, &o, &p));
    if (p && spx_plan_get_info(p, &pi) == SPX_OK) {
        for (size_t w = 0; w < n; w++) {
            int found = 0;
            for (int i = 0; i < pi.n_stats; i++) found |= !strcmp(pi.stats[i].key, want[w]);
            CHECK_MSG(found, "%s: stat %s missing", resolved, want[w]);
        }
        CHECK(!strcmp(pi.algo, resolved));
    }
    spx_plan_destroy(&p);
}

/* The plan reports the layout's figures: shape, tiles, fill, groups, balance for `hash`; bands,
 * width, entries and kernels for `auto` (the bands). */
static void test_stats(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:powerlaw:m=4000,k=6", &A));
    static const char *const tiled[] = {"tile_shape", "tiles", "tile_fill_nnz", "groups", "group_stddev_before",
                                        "group_stddev_after"};
    static const char *const banded[] = {"bands", "band_cols_W", "x_segment_bytes", "band_nnz_min", "band_kernels"};
    if (A) {
        check_plan_stats(ctx, A, "hash", "hash", tiled, sizeof tiled / sizeof tiled[0]);
        check_plan_stats(ctx, A, NULL, "band", banded, sizeof banded / sizeof banded[0]);
    }
    spx_csr_destroy(&A);
}

/* Band invariants (hbp_bands.h): band k's columns are A's columns in [k*W, (k+1)*W) minus
 * k*W, in A's order, with csr's auto algorithm for the band's row statistics. */
static void check_bands(const spx_csr *A, const spx_hbp_fmt *F, int32_t W, const char *label)
{
    const spx_hbp_bands *B = F->bands;
    CHECK_MSG(B && F->algo == SPX_HBP_BAND && B->width == W && B->count == spx_hbp_band_count(A->n, W),
              "%s: band header", label);
    if (!B) return;
    int ok = 1;
    int64_t total = 0;
    for (int32_t k = 0; ok && k < B->count; k++) {
        const spx_csr_fmt *b = B->band[k];
        const int64_t lo = (int64_t)k * W;
        ok = b->m == A->m && b->rowptr[0] == 0 && b->n == (int32_t)((A->n - lo < W ? A->n - lo : W));
        for (int32_t i = 0; ok && i < A->m; i++) {
            int64_t e = b->rowptr[i];
            for (int64_t a = A->rowptr[i]; ok && a < A->rowptr[i + 1]; a++)
                if (A->colind[a] >= lo && A->colind[a] < lo + W) {
                    ok = e < b->rowptr[i + 1] && b->colind[e] == A->colind[a] - lo && b->val64[e] == A->val[a];
                    e++;
                }
            ok = ok && e == b->rowptr[i + 1];
        }
        spx_csr_fmt probe = *b;
        int64_t row_max = 0, sum_sq = 0;
        for (int32_t i = 0; i < b->m; i++) {
            const int64_t len = b->rowptr[i + 1] - b->rowptr[i];
            row_max = len > row_max ? len : row_max;
            sum_sq += len * len;
        }
        spx_hbp_band_row_stats(&probe, row_max, sum_sq, B->count == 1);
        ok = ok && probe.algo == b->algo && b->algo != SPX_CSR_AUTO;
        total += b->nnz;
    }
    CHECK_MSG(ok && total == A->nnz, "%s: bands do not hold A's entries as the invariants say", label);
}

/* The band layout with explicit widths (one column, 32, a width not a multiple of 32, wider
 * than A): invariants, round trip, SpMV; and through a plan (the rule's width, fp64 and
 * fp32) on the edge cases and generated matrices. */
static void test_bands(spx_ctx *ctx)
{
    static const char *specs[] = {"gen:uniform:m=3000,k=16", "gen:powerlaw:m=4000,k=6", "gen:rmat:scale=10,ef=8",
                                  "gen:wide:m=8,n=50000", "gen:tall:m=20000,n=100,k=2"};
    static const int32_t widths[] = {1, 32, 100, 1 << 20};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        spx_csr *A = NULL;
        CHECK_OK(ctx, spx_gen(ctx, specs[i], &A));
        for (size_t w = 0; A && w < sizeof widths / sizeof widths[0]; w++) {
            if (widths[w] == 1 && A->n > 2000) continue; /* one band a column: keep the test short */
            char label[160];
            snprintf(label, sizeof label, "%s band W=%d", specs[i], widths[w]);
            spx_hbp_fmt *F = NULL;
            CHECK_OK(ctx, spx_hbp_fmt_build(ctx, A, NULL, SPX_FP64, "band", 0, widths[w], &F));
            if (!F) continue;
            check_bands(A, F, widths[w], label);
            check_round_trip(ctx, A, F, label);
            check_spmv(ctx, A, F, label);
            spx_hbp_fmt_destroy(ctx, F);
        }
        for (int p = 0; A && p < 2; p++) fc_check(ctx, A, "hbp", "band", SPX_BACKEND_CPU, p ? SPX_FP32 : SPX_FP64, specs[i]);
        spx_csr_destroy(&A);
    }
    for (int i = 0; i < TM_N_EDGE; i++) {
        const tm_case *c = &tm_edge_cases[i];
        spx_csr *A = tm_make(ctx, c->m, c->n, c->len, 11 + (uint64_t)i);
        for (int p = 0; A && p < 2; p++) fc_check(ctx, A, "hbp", "band", SPX_BACKEND_CPU, p ? SPX_FP32 : SPX_FP64, c->name);
        spx_csr_destroy(&A);
    }
    CHECK(spx_hbp_fmt_build(ctx, NULL, NULL, SPX_FP64, "band", 0, -1, NULL) == SPX_ERR_ARG);
}

/* `auto` where the rule cuts two bands: one band, run by the algorithm csr's auto takes on the
 * whole matrix (colblock for a few long rows over a million columns), where `band` keeps its
 * two bands and never colblock; round trip and SpMV. */
static void test_auto_one_band(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_gen(ctx, "gen:wide:m=128,n=1100000,k=20000", &A));
    if (!A) return;
    spx_hbp_fmt *F = NULL, *G = NULL;
    CHECK_OK(ctx, spx_hbp_fmt_build(ctx, A, NULL, SPX_FP64, "auto", 0, 0, &F));
    CHECK_OK(ctx, spx_hbp_fmt_build(ctx, A, NULL, SPX_FP64, "band", 0, 0, &G));
    CHECK_MSG(F && F->algo == SPX_HBP_BAND && F->bands && F->bands->count == 1 &&
                  F->bands->band[0]->algo == SPX_CSR_COLBLOCK,
              "wide 128 x 1.1M, auto: not one band in colblock");
    CHECK_MSG(G && G->bands && G->bands->count == 2 && G->bands->band[0]->algo != SPX_CSR_COLBLOCK &&
                  G->bands->band[1]->algo != SPX_CSR_COLBLOCK,
              "wide 128 x 1.1M, band: not two bands without colblock");
    if (F) {
        check_round_trip(ctx, A, F, "wide 128 x 1.1M, auto");
        check_spmv(ctx, A, F, "wide 128 x 1.1M, auto");
    }
    spx_hbp_fmt_destroy(ctx, F);
    spx_hbp_fmt_destroy(ctx, G);
    spx_csr_destroy(&A);
}

/* The band rule: segments of SPX_HBP_BAND_SEGMENT_BYTES where rows spread, two bands near
 * the diagonal, at least two bands, widths aligned; `auto` is the wide tiles where the rule
 * cuts SPX_HBP_WIDE_MIN_BANDS bands or more (SPX_HBP_WIDE_MIN_BANDS_EVEN with even rows), else
 * the bands, one band where it cuts two or fewer. */
static void test_band_rule(void)
{
    spx_features f = {.m = 16777216, .n = 16777216, .nnz = 134217728, .row_mean = 8, .diag_distance = 1.0 / 3};
    const int32_t w16 = spx_hbp_band_width(16777216, 8, &f); /* x 134 MB: 8 segments of 17.5 MB */
    CHECK_MSG(spx_hbp_band_count(16777216, w16) == 8 && w16 % SPX_HBP_BAND_ALIGN == 0, "16.8M fp64: width %d", w16);
    CHECK(spx_hbp_band_count(16777216, spx_hbp_band_width(16777216, 4, NULL)) == 4);
    f.diag_distance = 0.001; /* a stencil: x reused near the diagonal */
    CHECK(spx_hbp_band_count(16777216, spx_hbp_band_width(16777216, 8, &f)) == 2);
    CHECK(spx_hbp_band_width(1000, 8, NULL) == 512 && spx_hbp_band_count(1000, 512) == 2);
    CHECK(spx_hbp_band_width(100, 8, NULL) == 64 && spx_hbp_band_count(100, 64) == 2);
    CHECK(spx_hbp_band_width(20, 8, NULL) == SPX_HBP_BAND_ALIGN && spx_hbp_band_count(20, SPX_HBP_BAND_ALIGN) == 1);
    CHECK(spx_hbp_band_width(0, 8, NULL) == SPX_HBP_BAND_ALIGN && spx_hbp_band_count(0, SPX_HBP_BAND_ALIGN) == 1);
    f.diag_distance = 1.0 / 3;
    /* auto's plain bands: one where the rule cuts two or fewer (x within 2/3 of the L2, or near
       the diagonal), the rule's where it cuts more; the other modes always the rule's */
    CHECK(spx_hbp_band_count(16777216, spx_hbp_auto_width(16777216, 8, &f)) == 8);
    CHECK(spx_hbp_band_count(16777216, spx_hbp_auto_width(16777216, 4, NULL)) == 4);
    CHECK(spx_hbp_band_count(4000000, spx_hbp_band_width(4000000, 8, &f)) == 2);
    CHECK(spx_hbp_band_count(4000000, spx_hbp_auto_width(4000000, 8, &f)) == 1); /* x 32 MB */
    CHECK(spx_hbp_band_count(4000000, spx_hbp_auto_width(4000000, 4, &f)) == 1);
    CHECK(spx_hbp_band_count(1000, spx_hbp_auto_width(1000, 8, NULL)) == 1);
    CHECK(spx_hbp_band_count(0, spx_hbp_auto_width(0, 8, NULL)) == 1);
    CHECK(spx_hbp_plain_width(4000000, 8, &f, SPX_HBP_HOT_RULE) == spx_hbp_auto_width(4000000, 8, &f));
    CHECK(spx_hbp_plain_width(4000000, 8, &f, SPX_HBP_HOT_NEVER) == spx_hbp_band_width(4000000, 8, &f));
    f.diag_distance = 0.001;
    CHECK(spx_hbp_band_count(16777216, spx_hbp_auto_width(16777216, 8, &f)) == 1);
    f.diag_distance = 1.0 / 3;
    CHECK(spx_hbp_algo_resolve(SPX_HBP_AUTO, 16777216, 8, &f) == SPX_HBP_WIDE); /* 8 bands */
    CHECK(spx_hbp_algo_resolve(SPX_HBP_AUTO, 16777216, 4, &f) == SPX_HBP_WIDE); /* 4 bands, even rows */
    CHECK(spx_hbp_algo_resolve(SPX_HBP_AUTO, 16777216, 4, NULL) == SPX_HBP_BAND); /* 4 bands, skew unknown */
    f.row_max = 100000; /* a hub row: skewed */
    CHECK(spx_hbp_algo_resolve(SPX_HBP_AUTO, 16777216, 4, &f) == SPX_HBP_BAND);
    CHECK(spx_hbp_algo_resolve(SPX_HBP_AUTO, 16777216, 8, &f) == SPX_HBP_WIDE); /* 8 bands */
    f.row_max = 0;
    CHECK(spx_hbp_algo_resolve(SPX_HBP_AUTO, 100000, 8, NULL) == SPX_HBP_BAND);
    CHECK(spx_hbp_algo_resolve(SPX_HBP_SORT, 16777216, 8, &f) == SPX_HBP_SORT);
    CHECK(spx_hbp_algo_resolve(SPX_HBP_BAND, 16777216, 8, &f) == SPX_HBP_BAND);
}

int main(void)
{
    spx_ctx *ctx = NULL;
    spx_ctx_opts co = {.backend = SPX_BACKEND_CPU};
    if (spx_ctx_create(&ctx, &co)) return 1;
    test_worked_example(ctx);
    test_small_tiles(ctx);
    test_pieces(ctx);
    test_overflow(ctx);
    test_shape_rule();
    test_agg_shift();
    test_stats(ctx);
    test_bands(ctx);
    test_band_rule();
    test_auto_one_band(ctx);
    spx_ctx_destroy(&ctx);
    return check_report();
}
