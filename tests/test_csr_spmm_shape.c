/* tests/test_csr_spmm_shape.c: the csr format's CUDA SpMM shapes (csr_spmm_shape.c), on the CPU:
 * lanes a row, columns a lane and column chunks for k from 1 to 600 in both layouts (every
 * column covered once, the widths csr_cuda_tuning.h allows, the chunk boundaries 31, 32, 33, 64,
 * 65, 256, 257 as the kernels expect them), when long rows go to pieces, the names the report
 * gives, and the long rows' pieces against an independent walk. */
#include <string.h>

#include "check.h"
#include "formats/csr/csr_cuda_tuning.h"
#include "formats/csr/csr_spmm_shape.h"

/* Whether p is a power of two. */
static int is_pow2(int64_t p) { return p > 0 && (p & (p - 1)) == 0; }

/* The invariants of csr_spmm_shape.h for k columns. */
static void check_invariants(const spx_csr_spmm_shape *s, int64_t k, const char *what)
{
    CHECK_MSG(is_pow2(s->g) && is_pow2(s->c) && is_pow2(s->slots) && is_pow2(s->lanes), "%s: powers of two", what);
    CHECK_MSG(s->lanes <= 32 && s->chunks >= 1, "%s: lanes %d chunks %lld", what, s->lanes, (long long)s->chunks);
    CHECK_MSG(s->chunks * s->cols >= k && (s->chunks - 1) * s->cols < k, "%s: %lld chunks of %lld for k %lld", what,
              (long long)s->chunks, (long long)s->cols, (long long)k);
    if (s->kind != SPX_CSR_SPMM_ROW) return;
    CHECK_MSG(s->g * s->slots == s->lanes && s->cols == (int64_t)s->g * s->c, "%s: row lanes", what);
    CHECK_MSG(s->c <= SPX_CSR_CUDA_SPMM_ROW_MAX_C && (s->c == 1 || s->g == 32), "%s: c %d", what, s->c);
    if (k <= 32) CHECK_MSG(s->g >= k && s->g / 2 < k && s->c == 1, "%s: g %d for k %lld", what, s->g, (long long)k);
}

/* k from 1 to 600, both layouts, three row lengths. */
static void test_all_k(void)
{
    static const double means[] = {0, 7, 27, 300};
    for (int l = 0; l < 2; l++)
        for (size_t mi = 0; mi < sizeof means / sizeof means[0]; mi++)
            for (int64_t k = 1; k <= 600; k++) {
                const spx_dense_layout lay = l ? SPX_DENSE_ROW_MAJOR : SPX_DENSE_COL_MAJOR;
                spx_csr_spmm_shape s;
                char what[96];
                snprintf(what, sizeof what, "k=%lld %s mean %g", (long long)k, spx_dense_layout_str(lay), means[mi]);
                spx_csr_spmm_shape_of(k, lay, means[mi], 10, &s);
                CHECK_MSG(s.kind == (l ? SPX_CSR_SPMM_ROW : k == 1 ? SPX_CSR_SPMM_SPMV : SPX_CSR_SPMM_COL), "%s: kind",
                          what);
                check_invariants(&s, k, what);
            }
}

/* One row-major case: g, c, slots, chunks for k on rows of mean length mean. */
static void expect_row(int64_t k, double mean, int g, int c, int slots, int64_t chunks)
{
    spx_csr_spmm_shape s;
    spx_csr_spmm_shape_of(k, SPX_DENSE_ROW_MAJOR, mean, 8, &s);
    CHECK_MSG(s.g == g && s.c == c && s.slots == slots && s.chunks == chunks,
              "k=%lld mean %g: g %d c %d slots %d chunks %lld, want %d %d %d %lld", (long long)k, mean, s.g, s.c, s.slots,
              (long long)s.chunks, g, c, slots, (long long)chunks);
}

/* The chunk boundaries the GPU test runs (31, 32, 33, 64, 65, 256) and a few shapes by hand. */
static void test_boundaries(void)
{
    expect_row(1, 7, 1, 1, 1, 1);
    expect_row(3, 7, 4, 1, 1, 1);
    expect_row(8, 7, 8, 1, 1, 1);   /* the 7-point stencil at k = 8: 8 lanes a row, 4 rows a warp */
    expect_row(8, 27, 8, 1, 4, 1);  /* 27 entries a row: 4 slots, a warp a row */
    expect_row(8, 300, 8, 1, 4, 1); /* slots stop at 32 / g */
    expect_row(31, 7, 32, 1, 1, 1);
    expect_row(32, 7, 32, 1, 1, 1);
    expect_row(33, 7, 32, 2, 1, 1);
    expect_row(64, 7, 32, 2, 1, 1);
    expect_row(65, 7, 32, 4, 1, 1);
    expect_row(256, 7, 32, 8, 1, 1);
    expect_row(257, 7, 32, 8, 1, 2);
    spx_csr_spmm_shape s;
    spx_csr_spmm_shape_of(65, SPX_DENSE_COL_MAJOR, 7, 8, &s);
    CHECK_MSG(s.lanes == 2 && s.cols == SPX_CSR_CUDA_SPMM_COL_CHUNK &&
                  s.chunks == (65 + SPX_CSR_CUDA_SPMM_COL_CHUNK - 1) / SPX_CSR_CUDA_SPMM_COL_CHUNK,
              "col k=65: lanes %d chunks %lld", s.lanes, (long long)s.chunks);
}

/* Long rows go to pieces past SPX_CSR_CUDA_SPMM_LONG_MIN, never on the SpMV path. */
static void test_long_rows(void)
{
    spx_csr_spmm_shape s;
    spx_csr_spmm_shape_of(8, SPX_DENSE_ROW_MAJOR, 7, SPX_CSR_CUDA_SPMM_LONG_MIN, &s);
    CHECK(!s.long_rows);
    spx_csr_spmm_shape_of(8, SPX_DENSE_ROW_MAJOR, 7, SPX_CSR_CUDA_SPMM_LONG_MIN + 1, &s);
    CHECK(s.long_rows);
    spx_csr_spmm_shape_of(8, SPX_DENSE_COL_MAJOR, 7, 5000, &s);
    CHECK(s.long_rows);
    spx_csr_spmm_shape_of(1, SPX_DENSE_COL_MAJOR, 7, 5000, &s);
    CHECK(!s.long_rows && s.kind == SPX_CSR_SPMM_SPMV);
}

/* The name of the shape for k columns in layout l on rows of mean length mean, longest max. */
static void expect_name(int64_t k, spx_dense_layout l, double mean, int64_t max, const char *want)
{
    spx_csr_spmm_shape s;
    char name[64];
    spx_csr_spmm_shape_of(k, l, mean, max, &s);
    spx_csr_spmm_shape_name(&s, "csr_stream_256x2048", name, sizeof name);
    CHECK_MSG(!strcmp(name, want), "name '%s', want '%s'", name, want);
}

/* The names the report gives. */
static void test_names(void)
{
    char col[64];
    snprintf(col, sizeof col, "csr_spmm_col_l2_t%d", SPX_CSR_CUDA_SPMM_COL_TILE);
    expect_name(8, SPX_DENSE_ROW_MAJOR, 7, 7, "csr_spmm_row_g8_s1");
    expect_name(256, SPX_DENSE_ROW_MAJOR, 7, 5000, "csr_spmm_row_g32x8_s1+long");
    expect_name(8, SPX_DENSE_COL_MAJOR, 7, 7, col);
    expect_name(1, SPX_DENSE_COL_MAJOR, 7, 7, "csr_spmm_col_k1(csr_stream_256x2048)");
}

/* The pieces of rows of lengths 3, LONG_MIN, LONG_MIN + 1, 0, 5000 against a walk written here:
 * each long row's entries covered once, in PIECE steps, in row order. */
static void test_pieces(void)
{
    enum { M = 5 };
    const int32_t L = SPX_CSR_CUDA_SPMM_LONG_MIN, P = SPX_CSR_CUDA_SPMM_LONG_PIECE;
    const int32_t len[M] = {3, L, L + 1, 0, 5000};
    int32_t rp[M + 1] = {0};
    for (int i = 0; i < M; i++) rp[i + 1] = rp[i] + len[i];
    const int64_t n = spx_csr_spmm_long_pieces(rp, M, NULL);
    const int64_t want = (L + 1 + P - 1) / P + (5000 + P - 1) / P;
    CHECK_MSG(n == want, "%lld pieces, want %lld", (long long)n, (long long)want);
    int32_t pieces[2 * 64];
    if (n > 64) return;
    spx_csr_spmm_long_pieces(rp, M, pieces);
    int64_t at = 0;
    for (int32_t r = 0; r < M; r++) {
        if (len[r] <= L) continue;
        for (int32_t b = rp[r]; b < rp[r + 1]; b += P, at++)
            CHECK_MSG(pieces[2 * at] == r && pieces[2 * at + 1] == b, "piece %lld: (%d, %d), want (%d, %d)", (long long)at,
                      pieces[2 * at], pieces[2 * at + 1], r, b);
    }
    CHECK(at == n);
}

int main(void)
{
    test_all_k();
    test_boundaries();
    test_long_rows();
    test_names();
    test_pieces();
    return check_report();
}
