/* tests/test_gpu_copy.c: the gateway's synchronous host <-> device copies, direct and through
 * the staging ring (src/cuda/staged_copy.cu): every byte comes back for sizes below, at and
 * between the ring's thresholds and chunk boundaries, into fresh and touched memory, at unaligned host
 * addresses, from page-locked memory (never staged), with 1 and several threads, and with a
 * host budget that refuses the ring (copies stay direct). Skips without a GPU. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ctx.h"
#include "format_check.h"

#define MIB ((size_t)1 << 20)
/* The ring's size (4 x 16 MiB) as staged_copy.cu makes it: the host bytes it adds. */
#define RING_BYTES (64 * MIB)

/* Byte i of pattern `seed`: no period of a power of two, so a misplaced chunk shows. */
static unsigned char pattern(size_t i, unsigned seed) { return (unsigned char)((i * 2654435761u + seed) >> 7); }

/* Fills p[0..n) with pattern seed. */
static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) p[i] = pattern(i, seed);
}

/* The first index where p[0..n) differs from pattern seed, or n. */
static size_t first_wrong(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != pattern(i, seed)) return i;
    return n;
}

/* A round trip of n bytes, each direction checked against a direct copy: host (at offset
 * `shift`) -> device, read back into page-locked memory (never staged); page-locked -> device
 * with another pattern, read back into a fresh host buffer and then into the touched one. The
 * page-locked buffer is pin_ctx's, so that ctx's host bytes show only its ring. */
static void round_trip(spx_ctx *ctx, spx_ctx *pin_ctx, size_t n, size_t shift, const char *label)
{
    unsigned char *src = malloc(n + shift), *dst = malloc(n + shift), *pin = NULL;
    void *dev = NULL;
    if (!src || !dst || spx_cuda_malloc(ctx, &dev, n) != SPX_OK || spx_cuda_pinned_alloc(pin_ctx, (void **)&pin, n)) {
        CHECK_MSG(0, "%s: cannot allocate %zu bytes", label, n);
        spx_cuda_free(ctx, dev);
        free(src), free(dst);
        return;
    }
    fill(src + shift, n, 1);
    CHECK_OK(ctx, spx_cuda_h2d(ctx, dev, src + shift, n));
    CHECK_OK(ctx, spx_cuda_d2h(ctx, pin, dev, n));
    size_t at = first_wrong(pin, n, 1);
    CHECK_MSG(at == n, "%s, %zu bytes (+%zu) up: byte %zu differs", label, n, shift, at);
    fill(pin, n, 2);
    CHECK_OK(ctx, spx_cuda_h2d(ctx, dev, pin, n));
    for (int pass = 0; pass < 2; pass++) { /* fresh pages, then touched ones */
        CHECK_OK(ctx, spx_cuda_d2h(ctx, dst + shift, dev, n));
        at = first_wrong(dst + shift, n, 2);
        CHECK_MSG(at == n, "%s, %zu bytes (+%zu) down, pass %d: byte %zu differs", label, n, shift, pass, at);
        if (pass == 0) memset(dst + shift, 0, n);
    }
    spx_cuda_pinned_free(pin_ctx, pin, n);
    spx_cuda_free(ctx, dev);
    free(src), free(dst);
}

/* The host bytes ctx holds. */
static size_t host_held(const spx_ctx *ctx)
{
    spx_mem_stats m;
    return spx_ctx_mem_stats(ctx, &m) == SPX_OK ? m.host_bytes : (size_t)-1;
}

/* Sizes around the threshold that makes the ring (32 MiB: none before it, one after), the
 * ring's chunks (16 MiB, 4 of them), and, the ring made, the threshold of copies that take it
 * (4 MiB); odd ones at an unaligned host address. */
static void test_sizes(spx_ctx *ctx, spx_ctx *pin_ctx, const char *label)
{
    const size_t sizes[] = {1,           4097,     4 * MIB,     32 * MIB - 1,  32 * MIB,   32 * MIB + 12345,
                            64 * MIB,    80 * MIB + 7, 150 * MIB + 3, 4 * MIB - 1, 4 * MIB, 6 * MIB + 5};
    const size_t before = host_held(ctx);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        round_trip(ctx, pin_ctx, sizes[i], i % 2 ? 3 : 0, label);
        if (sizes[i] == 32 * MIB - 1)
            CHECK_MSG(host_held(ctx) - before < RING_BYTES, "%s: a ring made below 32 MiB", label);
        if (sizes[i] == 32 * MIB)
            CHECK_MSG(host_held(ctx) - before >= RING_BYTES, "%s: no ring made at 32 MiB", label);
    }
}

/* Page-locked host memory is copied directly (the ring is not made for it). */
static void test_pinned(void)
{
    spx_ctx *ctx = NULL;
    if (spx_ctx_create(&ctx, &(spx_ctx_opts){.backend = SPX_BACKEND_CUDA}) != SPX_OK) return;
    const size_t n = 40 * MIB;
    unsigned char *h = NULL;
    void *dev = NULL;
    CHECK_OK(ctx, spx_cuda_pinned_alloc(ctx, (void **)&h, n));
    CHECK_OK(ctx, spx_cuda_malloc(ctx, &dev, n));
    spx_mem_stats m0, m1;
    spx_ctx_mem_stats(ctx, &m0);
    if (h && dev) {
        fill(h, n, 5);
        CHECK_OK(ctx, spx_cuda_h2d(ctx, dev, h, n));
        memset(h, 0, n);
        CHECK_OK(ctx, spx_cuda_d2h(ctx, h, dev, n));
        CHECK(first_wrong(h, n, 5) == n);
    }
    spx_ctx_mem_stats(ctx, &m1);
    CHECK_MSG(m1.host_bytes == m0.host_bytes, "page-locked copies made a ring: %zu -> %zu host bytes", m0.host_bytes,
              m1.host_bytes);
    spx_cuda_free(ctx, dev);
    spx_cuda_pinned_free(ctx, h, n);
    spx_ctx_destroy(&ctx);
}

/* A context whose host budget cannot hold the ring still copies everything (directly). */
static void test_budget_refuses_ring(spx_ctx *pin_ctx)
{
    spx_ctx *ctx = NULL;
    if (spx_ctx_create(&ctx, &(spx_ctx_opts){.backend = SPX_BACKEND_CUDA, .host_budget = RING_BYTES / 2}) != SPX_OK)
        return;
    round_trip(ctx, pin_ctx, 48 * MIB, 0, "budget below the ring");
    spx_mem_stats m;
    CHECK(spx_ctx_mem_stats(ctx, &m) == SPX_OK && m.host_bytes < RING_BYTES / 2);
    spx_ctx_destroy(&ctx);
}

int main(void)
{
    spx_ctx *pin_ctx = NULL;
    const int skip = fc_gpu_ctx(&pin_ctx); /* 77 without a GPU */
    if (skip) return skip;
    const int threads[] = {1, 5};
    for (int t = 0; t < 2; t++) {
        spx_ctx *ctx = NULL;
        if (spx_ctx_create(&ctx, &(spx_ctx_opts){.backend = SPX_BACKEND_CUDA, .threads = threads[t]}) != SPX_OK)
            return 1;
        char label[32];
        snprintf(label, sizeof label, "%d thread(s)", threads[t]);
        test_sizes(ctx, pin_ctx, label);
        spx_mem_stats m;
        CHECK_MSG(spx_ctx_mem_stats(ctx, &m) == SPX_OK && m.host_bytes >= RING_BYTES,
                  "%s: the ring is not held (host bytes %zu)", label, m.host_bytes);
        spx_ctx_destroy(&ctx);
    }
    test_pinned();
    test_budget_refuses_ring(pin_ctx);
    spx_ctx_destroy(&pin_ctx);
    return check_report();
}
