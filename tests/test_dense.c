/* tests/test_dense.c: dense blocks (include/spx/dense.h): created zero-filled in both layouts,
 * fp64 and fp32; set and get round trips with host leading dimensions beyond the block's, the
 * padding between lines never touched; wrapped caller memory with ld > a line; the shape,
 * layout and leading-dimension checks with their messages; allocation failures injected at
 * every host allocation, nothing left behind. With a GPU: the same on device blocks (2D copies,
 * fp32 through the staging buffer, lines longer than it) and the device pointer checks. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "cuda/gateway.h"
#include "fail_alloc.h"
#include "spx/spx.h"

/* The value of entry (i, j): exact in fp32 too (below 2^15), and differing between neighbours. */
static double entry(int64_t i, int64_t j) { return (double)((i % 2000) * 64 + j % 64) * 0.25 - 7.0; }

/* Lines and entries a line of a rows x cols block in layout. */
static void lines_of(int64_t rows, int64_t cols, spx_dense_layout l, int64_t *lines, int64_t *len)
{
    *lines = l == SPX_DENSE_ROW_MAJOR ? rows : cols;
    *len = l == SPX_DENSE_ROW_MAJOR ? cols : rows;
}

/* Index of (i, j) in a layout-l array with leading dimension ld. */
static int64_t at(spx_dense_layout l, int64_t ld, int64_t i, int64_t j)
{
    return l == SPX_DENSE_ROW_MAJOR ? i * ld + j : i + j * ld;
}

/* A host array of a rows x cols block (leading dimension ld) holding entry(i, j), its padding
 * `pad`; NULL when it cannot be had. */
static double *host_block(int64_t rows, int64_t cols, spx_dense_layout l, int64_t ld, double pad)
{
    int64_t lines, len;
    lines_of(rows, cols, l, &lines, &len);
    const int64_t n = lines * ld + 1;
    double *h = malloc((size_t)n * sizeof *h);
    if (!h) return NULL;
    for (int64_t k = 0; k < n; k++) h[k] = pad;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) h[at(l, ld, i, j)] = entry(i, j);
    return h;
}

/* Whether host (leading dimension ld) holds entry(i, j) on the block and pad elsewhere. */
static int host_matches(const double *h, int64_t rows, int64_t cols, spx_dense_layout l, int64_t ld, double pad)
{
    int64_t lines, len;
    lines_of(rows, cols, l, &lines, &len);
    for (int64_t k = 0; k < lines * ld; k++) {
        const int64_t line = k / ld, off = k % ld;
        const int64_t i = l == SPX_DENSE_ROW_MAJOR ? line : off, j = l == SPX_DENSE_ROW_MAJOR ? off : line;
        const double want = off < len ? entry(i, j) : pad;
        if (!(h[k] == want)) return 0;
    }
    return 1;
}

/* A new block on b is zero, takes a host array with a wider leading dimension and gives it back
 * into another, whose padding stays as it was. */
static void check_roundtrip(spx_ctx *ctx, spx_backend b, spx_precision p, int64_t rows, int64_t cols,
                            spx_dense_layout l)
{
    int64_t lines, len;
    lines_of(rows, cols, l, &lines, &len);
    const int64_t hld = len + 3;
    spx_dense *d = NULL;
    double *in = host_block(rows, cols, l, hld, -1.0), *out = host_block(rows, cols, l, hld, 99.0);
    CHECK_OK(ctx, spx_dense_create(ctx, b, p, rows, cols, l, &d));
    if (!d || !in || !out) goto done;
    CHECK(spx_dense_rows(d) == rows && spx_dense_cols(d) == cols && spx_dense_get_layout(d) == l &&
          spx_dense_ld(d) == (len > 0 ? len : 1) && spx_dense_backend(d) == b && spx_dense_precision(d) == p);
    CHECK_OK(ctx, spx_dense_get(d, out, hld));
    int zero = 1;
    for (int64_t k = 0; k < lines * hld; k++) zero &= k % hld < len ? out[k] == 0.0 : out[k] == 99.0;
    CHECK_MSG(zero, "%s %lld x %lld %s-major block not created zero", spx_backend_str(b), (long long)rows,
              (long long)cols, spx_dense_layout_str(l));
    CHECK_OK(ctx, spx_dense_set(d, in, hld));
    for (int64_t k = 0; k < lines * hld; k++) out[k] = 99.0;
    CHECK_OK(ctx, spx_dense_get(d, out, hld));
    CHECK_MSG(host_matches(out, rows, cols, l, hld, 99.0), "%s %s %lld x %lld %s-major round trip",
              spx_backend_str(b), spx_precision_str(p), (long long)rows, (long long)cols, spx_dense_layout_str(l));
done:
    spx_dense_destroy(&d);
    free(in);
    free(out);
}

/* A block wrapped over a caller's array with ld beyond a line: get reads it, set writes only
 * the block (the caller's padding kept). */
static void check_wrap(spx_ctx *ctx, spx_precision p, spx_dense_layout l)
{
    const int64_t rows = 5, cols = 3;
    int64_t lines, len;
    lines_of(rows, cols, l, &lines, &len);
    const int64_t ld = len + 2;
    double mem64[32];
    float mem32[32];
    for (int k = 0; k < 32; k++) mem64[k] = mem32[k] = -5.0f;
    void *mem = p == SPX_FP32 ? (void *)mem32 : (void *)mem64;
    spx_dense *d = NULL;
    CHECK_OK(ctx, spx_dense_wrap(ctx, SPX_BACKEND_CPU, p, rows, cols, l, ld, mem, &d));
    double *in = host_block(rows, cols, l, len, 0.0), *out = host_block(rows, cols, l, len, 0.0);
    if (d && in && out) {
        CHECK(spx_dense_data(d) == mem && spx_dense_ld(d) == ld);
        CHECK_OK(ctx, spx_dense_set(d, in, len));
        int ok = 1;
        for (int64_t k = 0; k < 32; k++) {
            const double v = p == SPX_FP32 ? mem32[k] : mem64[k];
            const int64_t line = k / ld, off = k % ld;
            const int in_block = line < lines && off < len;
            const int64_t i = l == SPX_DENSE_ROW_MAJOR ? line : off, j = l == SPX_DENSE_ROW_MAJOR ? off : line;
            ok &= in_block ? v == entry(i, j) : v == -5.0;
        }
        CHECK_MSG(ok, "wrapped %s-major %s block: set wrote outside the block or wrong values", spx_dense_layout_str(l),
                  spx_precision_str(p));
        memset(out, 0, (size_t)(lines * len) * sizeof *out);
        CHECK_OK(ctx, spx_dense_get(d, out, len));
        CHECK(host_matches(out, rows, cols, l, len, 0.0));
    }
    spx_dense_destroy(&d);
    CHECK(d == NULL);
    free(in);
    free(out);
}

/* Expects call to fail with status want and a message holding text, *out untouched. */
#define CHECK_REFUSED(ctx, call, want, text)                                                              \
    do {                                                                                                  \
        spx_status s_ = (call);                                                                           \
        CHECK_MSG(s_ == (want) && strstr(spx_ctx_last_error(ctx), (text)), "%s: '%s' (wanted %s, '%s')", \
                  spx_status_str(s_), spx_ctx_last_error(ctx), spx_status_str(want), (text));              \
    } while (0)

/* Bad shapes, layouts, leading dimensions and pointers: SPX_ERR_ARG (or OVERFLOW) with a message. */
static void check_bad_args(spx_ctx *ctx)
{
    double mem[64] = {0};
    spx_dense *d = NULL;
    const spx_backend C = SPX_BACKEND_CPU;
    CHECK_REFUSED(ctx, spx_dense_create(ctx, C, SPX_FP64, -1, 2, SPX_DENSE_COL_MAJOR, &d), SPX_ERR_ARG, "negative");
    CHECK_REFUSED(ctx, spx_dense_create(ctx, C, SPX_FP64, 2, 2, (spx_dense_layout)7, &d), SPX_ERR_ARG, "unknown layout");
    CHECK_REFUSED(ctx, spx_dense_create(ctx, C, (spx_precision)9, 2, 2, SPX_DENSE_COL_MAJOR, &d), SPX_ERR_ARG,
                  "unknown precision");
    CHECK_REFUSED(ctx, spx_dense_create(ctx, (spx_backend)9, SPX_FP64, 2, 2, SPX_DENSE_COL_MAJOR, &d), SPX_ERR_ARG,
                  "unknown backend");
    CHECK_REFUSED(ctx, spx_dense_wrap(ctx, C, SPX_FP64, 4, 3, SPX_DENSE_COL_MAJOR, 3, mem, &d), SPX_ERR_ARG,
                  "leading dimension 3 below the rows (4)");
    CHECK_REFUSED(ctx, spx_dense_wrap(ctx, C, SPX_FP64, 4, 3, SPX_DENSE_ROW_MAJOR, 2, mem, &d), SPX_ERR_ARG,
                  "leading dimension 2 below the columns (3)");
    CHECK_REFUSED(ctx, spx_dense_wrap(ctx, C, SPX_FP64, 0, 3, SPX_DENSE_COL_MAJOR, 0, NULL, &d), SPX_ERR_ARG,
                  "leading dimension 0");
    CHECK_REFUSED(ctx, spx_dense_wrap(ctx, C, SPX_FP64, 4, 3, SPX_DENSE_COL_MAJOR, 4, NULL, &d), SPX_ERR_ARG, "NULL data");
    CHECK_REFUSED(ctx, spx_dense_wrap(ctx, C, SPX_FP64, 4, 3, SPX_DENSE_COL_MAJOR, 4, (char *)mem + 4, &d), SPX_ERR_ARG,
                  "not aligned");
    CHECK_REFUSED(ctx, spx_dense_wrap(ctx, C, SPX_FP64, INT64_MAX / 2, 3, SPX_DENSE_COL_MAJOR, INT64_MAX / 2, mem, &d),
                  SPX_ERR_OVERFLOW, "cannot be addressed");
    CHECK_REFUSED(ctx, spx_dense_create(ctx, C, SPX_FP64, 2, 2, SPX_DENSE_COL_MAJOR, NULL), SPX_ERR_ARG, "NULL argument");
    CHECK(d == NULL);
    /* an empty block may wrap NULL */
    CHECK_OK(ctx, spx_dense_wrap(ctx, C, SPX_FP32, 0, 5, SPX_DENSE_ROW_MAJOR, 5, NULL, &d));
    CHECK(d && spx_dense_data(d) == NULL);
    CHECK_OK(ctx, spx_dense_get(d, NULL, 5));
    spx_dense_destroy(&d);
    CHECK_OK(ctx, spx_dense_create(ctx, C, SPX_FP64, 4, 3, SPX_DENSE_ROW_MAJOR, &d));
    CHECK_REFUSED(ctx, spx_dense_set(d, mem, 2), SPX_ERR_ARG, "host leading dimension 2 below the columns (3)");
    CHECK_REFUSED(ctx, spx_dense_get(d, NULL, 3), SPX_ERR_ARG, "NULL argument");
    spx_dense_destroy(&d);
    spx_dense_destroy(NULL);
    CHECK(spx_dense_set(NULL, mem, 4) == SPX_ERR_ARG && spx_dense_rows(NULL) == 0 && spx_dense_data(NULL) == NULL);
}

/* Every host allocation of create and set failed in turn: SPX_ERR_NOMEM with a message,
 * *out untouched, nothing left allocated; until the calls succeed. */
static void check_alloc_failures(void)
{
    double in[12];
    for (int k = 0; k < 12; k++) in[k] = k;
    fail_alloc fa = {0, 0, 0};
    spx_allocator a = {fa_alloc, fa_realloc, fa_free, &fa};
    spx_ctx *ctx = NULL;
    if (spx_ctx_create(&ctx, &(spx_ctx_opts){.backend = SPX_BACKEND_CPU, .alloc = &a}) != SPX_OK) {
        CHECK(!"context");
        return;
    }
    const long base = fa.live;
    int failures = 0;
    for (long n = 1; n < 20; n++) {
        fa.calls = 0;
        fa.fail_at = n;
        spx_dense *d = NULL;
        spx_status s = spx_dense_create(ctx, SPX_BACKEND_CPU, SPX_FP32, 4, 3, SPX_DENSE_ROW_MAJOR, &d);
        if (!s) s = spx_dense_set(d, in, 3);
        const long calls = fa.calls;
        fa.fail_at = 0;
        spx_dense_destroy(&d);
        CHECK_MSG(fa.live == base, "allocation %ld failed: %ld blocks left", n, fa.live - base);
        if (calls < n) { /* nothing failed: done */
            CHECK_OK(ctx, s);
            break;
        }
        failures++;
        CHECK_MSG(s == SPX_ERR_NOMEM && strstr(spx_ctx_last_error(ctx), "out of memory"), "%s: %s", spx_status_str(s),
                  spx_ctx_last_error(ctx));
    }
    CHECK(failures >= 2); /* the object and its data */
    spx_ctx_destroy(&ctx);
}

/* The CPU and, with a GPU, the device: round trips on shapes around the staging buffer (2^16
 * entries a line: one line of 70000 fp32 entries goes in two pieces). */
static void check_backend(spx_ctx *ctx, spx_backend b)
{
    static const int64_t shapes[][2] = {{0, 0}, {0, 4}, {5, 0}, {1, 1}, {7, 3}, {3, 33}, {70000, 2}, {2, 70000}};
    for (int s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); s++)
        for (int l = 0; l < 2; l++)
            for (int p = 0; p < 2; p++)
                check_roundtrip(ctx, b, p ? SPX_FP32 : SPX_FP64, shapes[s][0], shapes[s][1],
                                l ? SPX_DENSE_ROW_MAJOR : SPX_DENSE_COL_MAJOR);
}

/* GPU: device blocks, and wraps of host memory as CUDA refused. */
static void test_gpu(void)
{
    if (!spx_cuda_compiled() || spx_cuda_device_count() == 0) {
        printf("GPU part skipped: %s\n", spx_cuda_compiled() ? "no CUDA device" : "CUDA not compiled in");
        return;
    }
    spx_ctx *ctx = NULL;
    spx_ctx_opts o = {.backend = SPX_BACKEND_CUDA};
    if (spx_ctx_create(&ctx, &o) != SPX_OK) {
        CHECK(!"context");
        return;
    }
    check_backend(ctx, SPX_BACKEND_CUDA);
    double host[16] = {0};
    spx_dense *d = NULL, *w = NULL;
    CHECK_REFUSED(ctx, spx_dense_wrap(ctx, SPX_BACKEND_CUDA, SPX_FP64, 4, 4, SPX_DENSE_COL_MAJOR, 4, host, &w),
                  SPX_ERR_ARG, "not device memory");
    CHECK_OK(ctx, spx_dense_create(ctx, SPX_BACKEND_CUDA, SPX_FP64, 4, 4, SPX_DENSE_ROW_MAJOR, &d));
    if (d) {
        CHECK_OK(ctx, spx_dense_wrap(ctx, SPX_BACKEND_AUTO, SPX_FP64, 2, 4, SPX_DENSE_ROW_MAJOR, 8, spx_dense_data(d), &w));
        CHECK(w && spx_dense_backend(w) == SPX_BACKEND_CUDA);
    }
    spx_dense_destroy(&w);
    spx_dense_destroy(&d);
    spx_mem_stats m;
    CHECK(spx_ctx_mem_stats(ctx, &m) == SPX_OK && m.device_bytes == 0);
    spx_ctx_destroy(&ctx);
}

int main(void)
{
    spx_ctx *ctx = NULL;
    spx_ctx_opts o = {.backend = SPX_BACKEND_CPU, .threads = 2};
    if (spx_ctx_create(&ctx, &o) != SPX_OK) return 1;
    check_backend(ctx, SPX_BACKEND_CPU);
    for (int p = 0; p < 2; p++)
        for (int l = 0; l < 2; l++)
            check_wrap(ctx, p ? SPX_FP32 : SPX_FP64, l ? SPX_DENSE_ROW_MAJOR : SPX_DENSE_COL_MAJOR);
    check_bad_args(ctx);
    spx_mem_stats m;
    CHECK(spx_ctx_mem_stats(ctx, &m) == SPX_OK && m.host_bytes == 0);
    spx_ctx_destroy(&ctx);
    check_alloc_failures();
    test_gpu();
    return check_report();
}
