/* tests/test_budget.c: the host memory budget and accounting: exact byte counts through
 * alloc/realloc/free, refusals with messages naming the need and the budget, memory bombs
 * refused before allocation, every budget from tiny to ample either succeeding or failing
 * cleanly (nothing held afterwards), and the user's allocator under a budget. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "core/ctx.h"
#include "fail_alloc.h"
#include "spx/spx.h"

/* Host bytes the context holds now. */
static size_t held(const spx_ctx *ctx)
{
    spx_mem_stats m;
    return spx_ctx_mem_stats(ctx, &m) == SPX_OK ? m.host_bytes : (size_t)-1;
}

/* A context with the given host budget (CPU backend). */
static spx_ctx *ctx_with_budget(size_t budget)
{
    spx_ctx *ctx = NULL;
    spx_ctx_opts o = {.backend = SPX_BACKEND_CPU, .threads = 2, .host_budget = budget};
    return spx_ctx_create(&ctx, &o) == SPX_OK ? ctx : NULL;
}

/* Writes text to a new temporary file; returns its path in buf. */
static const char *write_temp(char *buf, size_t len, const char *text)
{
    snprintf(buf, len, "/tmp/spx-budget-XXXXXX");
    int fd = mkstemp(buf);
    if (fd < 0) return NULL;
    size_t n = strlen(text);
    int ok = write(fd, text, n) == (ssize_t)n;
    close(fd);
    return ok ? buf : NULL;
}

static void test_accounting(void)
{
    spx_ctx *ctx = ctx_with_budget(1 << 20);
    CHECK(ctx && held(ctx) == 0);
    if (!ctx) return;
    void *a = spx_malloc(ctx, 1000), *b = spx_malloc(ctx, 0);
    CHECK(a && b && held(ctx) == 1001);
    a = spx_realloc(ctx, a, 5000);
    CHECK(a && held(ctx) == 5001);
    a = spx_realloc(ctx, a, 10);
    CHECK(a && held(ctx) == 11);
    void *big = spx_malloc(ctx, 2 << 20); /* over the 1 MiB budget */
    CHECK(big == NULL && held(ctx) == 11);
    CHECK(spx_fail_nomem(ctx, "test block") == SPX_ERR_NOMEM);
    CHECK_MSG(strstr(spx_ctx_last_error(ctx), "test block: 2.1 MB more would exceed the host budget 1.0 MB"),
              "message: %s", spx_ctx_last_error(ctx));
    void *grown = spx_realloc(ctx, a, 2 << 20); /* refused: a is kept as it was */
    CHECK(grown == NULL && held(ctx) == 11);
    CHECK(spx_malloc_array(ctx, SIZE_MAX / 4, 8) == NULL && held(ctx) == 11); /* overflow */
    spx_free(ctx, a);
    spx_free(ctx, b);
    spx_mem_stats m;
    CHECK(spx_ctx_mem_stats(ctx, &m) == SPX_OK && m.host_bytes == 0 && m.host_peak == 5001 &&
          m.host_budget == 1 << 20 && m.device_bytes == 0 && m.device_budget == SPX_BUDGET_NONE);
    spx_ctx_destroy(&ctx);

    spx_ctx *dflt = NULL;
    CHECK(spx_ctx_create(&dflt, NULL) == SPX_OK);
    CHECK(spx_ctx_mem_stats(dflt, &m) == SPX_OK && m.host_budget > 0);
    size_t avail = spx_host_available_bytes();
    CHECK_MSG(avail == 0 || m.host_budget <= 2 * avail, "default budget %zu, available %zu", m.host_budget, avail);
    spx_ctx_destroy(&dflt);
}

/* Headers declaring matrices far beyond any budget: refused before anything large exists.
 * (Declared entries beyond what the text holds are bounded by the text, so the last one is
 * a parse error, not a budget refusal.) */
static void test_bombs(void)
{
    static const char *const bombs[] = {
        "%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 1\n1 1 1.0\n",
        "%%MatrixMarket matrix array real general\n2059038168 0\n",
        "%%MatrixMarket matrix coordinate pattern symmetric\n1500000000 1500000000 2\n1 1\n2 1\n",
        "%%MatrixMarket matrix coordinate integer general\n100000 100000 9000000000\n1 1 1\n",
    };
    static const spx_status want[] = {SPX_ERR_NOMEM, SPX_ERR_NOMEM, SPX_ERR_NOMEM, SPX_ERR_PARSE};
    for (size_t i = 0; i < sizeof bombs / sizeof bombs[0]; i++) {
        char path[64];
        spx_ctx *ctx = ctx_with_budget((size_t)1 << 30);
        CHECK(ctx && write_temp(path, sizeof path, bombs[i]));
        if (!ctx) continue;
        spx_csr *A = NULL;
        spx_status s = spx_mtx_read(ctx, path, NULL, &A, NULL);
        spx_mem_stats m;
        spx_ctx_mem_stats(ctx, &m);
        CHECK_MSG(s == want[i] && !A && strstr(spx_ctx_last_error(ctx), path) &&
                      (s != SPX_ERR_NOMEM || strstr(spx_ctx_last_error(ctx), "host budget 1.1 GB")),
                  "bomb %zu: %s '%s'", i, spx_status_str(s), spx_ctx_last_error(ctx));
        CHECK_MSG(m.host_peak < (1 << 20) && m.host_bytes == 0, "bomb %zu: peak %zu, held %zu", i, m.host_peak,
                  m.host_bytes);
        unlink(path);
        spx_ctx_destroy(&ctx);
    }
}

/* Reading, generating and planning under every budget from 1 kB up by factors of 2: each
 * either succeeds or fails with SPX_ERR_NOMEM and a budget message, holding nothing after. */
static void test_budget_sweep(const char *source)
{
    int ok_from = -1;
    for (int k = 10; k <= 26; k++) {
        spx_ctx *ctx = ctx_with_budget((size_t)1 << k);
        if (!ctx) continue;
        spx_csr *A = NULL;
        spx_plan *p = NULL;
        spx_status s = spx_load(ctx, source, NULL, &A);
        if (!s) s = spx_plan_create(ctx, A, &(spx_plan_opts){.format = "csr", .backend = SPX_BACKEND_CPU}, &p);
        CHECK_MSG(s == SPX_OK || (s == SPX_ERR_NOMEM && strstr(spx_ctx_last_error(ctx), "host budget")),
                  "%s under %zu bytes: %s '%s'", source, (size_t)1 << k, spx_status_str(s), spx_ctx_last_error(ctx));
        if (!s && ok_from < 0) ok_from = k;
        spx_plan_destroy(&p);
        spx_csr_destroy(&A);
        CHECK_MSG(held(ctx) == 0, "%s under 2^%d: %zu bytes held after destroy", source, k, held(ctx));
        spx_ctx_destroy(&ctx);
    }
    CHECK_MSG(ok_from > 0, "%s never fit a budget up to 64 MiB", source);
    printf("  %-36s fits from a 2^%d-byte budget\n", source, ok_from);
}

/* The user's allocator and the budget together: a refusal never reaches the user's hooks,
 * and every block the hooks gave is returned. */
static void test_user_allocator(void)
{
    fail_alloc fa = {0};
    spx_allocator al = {fa_alloc, fa_realloc, fa_free, &fa};
    spx_ctx *ctx = NULL;
    spx_ctx_opts o = {.alloc = &al, .host_budget = 64 << 10};
    CHECK(spx_ctx_create(&ctx, &o) == SPX_OK);
    if (!ctx) return;
    spx_csr *A = NULL;
    long calls_before = fa.calls;
    spx_status s = spx_gen(ctx, "gen:poisson2d:n=200", &A); /* needs ~3 MB */
    CHECK_MSG(s == SPX_ERR_NOMEM && strstr(spx_ctx_last_error(ctx), "host budget"), "%s '%s'", spx_status_str(s),
              spx_ctx_last_error(ctx));
    CHECK(fa.live == 1); /* the context itself */
    CHECK(fa.calls >= calls_before);
    spx_ctx_destroy(&ctx);
    CHECK(fa.live == 0);
}

int main(void)
{
    test_accounting();
    test_bombs();
    printf("budget sweep:\n");
    test_budget_sweep("gen:poisson3d:n=20");
    test_budget_sweep("gen:rmat:scale=10,ef=8");
    test_budget_sweep(SPX_TEST_DATA "/good/coord_real_symmetric.mtx");
    test_user_allocator();
    return check_report();
}
