/* src/vec/block.c: the dense operands' storage (block.h): checks, zero-filled allocation on the
 * host (first touch by the threads that will use it) or the device, the wrapped pointer's
 * backend, and fp64 copies in and out line by line (fp32 converted; device copies in 2D pieces
 * through a bounded staging buffer). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cuda/gateway.h"
#include "vec/block.h"
#include "vec/vec_cuda.h"
#include "vec/vec_internal.h"

/* Entries of the host staging buffer of fp32 copies to and from the device (256 KB of floats):
 * bounded host memory for any size, and large enough that the ~10 us of each synchronised copy
 * is small beside its transfer. */
#define SPX_BLOCK_STAGE_ENTRIES ((int64_t)1 << 16)

spx_status spx_block_check(spx_ctx *ctx, const char *fn, spx_backend b, spx_precision p, int64_t lines, int64_t len,
                           int64_t ld)
{
    if (b != SPX_BACKEND_AUTO && b != SPX_BACKEND_CPU && b != SPX_BACKEND_CUDA)
        return spx_fail(ctx, SPX_ERR_ARG, "%s: unknown backend %d", fn, (int)b);
    if (p != SPX_FP64 && p != SPX_FP32) return spx_fail(ctx, SPX_ERR_ARG, "%s: unknown precision %d", fn, (int)p);
    if (lines < 0 || len < 0)
        return spx_fail(ctx, SPX_ERR_ARG, "%s: negative size (%lld lines of %lld entries)", fn, (long long)lines,
                        (long long)len);
    if (ld < len || ld < 1)
        return spx_fail(ctx, SPX_ERR_ARG, "%s: leading dimension %lld below the line's %lld entries (and 1)", fn,
                        (long long)ld, (long long)len);
    const uint64_t most = (uint64_t)SIZE_MAX / spx_precision_bytes(p);
    if ((uint64_t)len > most) return spx_fail(ctx, SPX_ERR_OVERFLOW, "%s: %lld entries cannot be addressed", fn, (long long)len);
    if (lines > 1 && (uint64_t)(lines - 1) > (most - (uint64_t)len) / (uint64_t)ld)
        return spx_fail(ctx, SPX_ERR_OVERFLOW, "%s: %lld lines %lld entries apart cannot be addressed", fn,
                        (long long)lines, (long long)ld);
    return SPX_OK;
}

int64_t spx_block_span(const spx_block *B) { return B->lines && B->len ? (B->lines - 1) * B->ld + B->len : 0; }

/* ---- host loops over lines ---- */

/* A copy between the block and fp64 host lines: src and dst are lines of len entries, src_ld
 * and dst_ld apart; to_block: src is the host's fp64 and dst the block's precision p, else
 * the other way round. */
typedef struct block_job {
    spx_precision p;
    int to_block;
    int64_t len;
    const void *src;
    int64_t src_ld;
    void *dst;
    int64_t dst_ld;
} block_job;

/* n entries from src to dst as the job converts them. */
static void convert_run(const block_job *j, const void *src, void *dst, int64_t n)
{
    if (j->p == SPX_FP64) {
        if (n > 0) memcpy(dst, src, (size_t)n * sizeof(double));
    } else if (j->to_block) {
        const double *s = src;
        float *d = dst;
        for (int64_t i = 0; i < n; i++) d[i] = (float)s[i];
    } else {
        const float *s = src;
        double *d = dst;
        for (int64_t i = 0; i < n; i++) d[i] = (double)s[i];
    }
}

/* Bytes of one source and one destination entry of the job. */
static size_t src_bytes(const block_job *j) { return j->to_block ? sizeof(double) : spx_precision_bytes(j->p); }
static size_t dst_bytes(const block_job *j) { return j->to_block ? spx_precision_bytes(j->p) : sizeof(double); }

/* Lines [lo, hi) of the job. */
static void range_lines(const void *job, int64_t lo, int64_t hi, double acc[SPX_N_SUMS])
{
    const block_job *j = job;
    const size_t sb = src_bytes(j), db = dst_bytes(j);
    for (int64_t l = lo; l < hi; l++)
        convert_run(j, (const char *)j->src + (size_t)(l * j->src_ld) * sb, (char *)j->dst + (size_t)(l * j->dst_ld) * db,
                    j->len);
}

/* Entries [lo, hi) of a job whose lines are all contiguous (one run of lines x len). */
static void range_flat(const void *job, int64_t lo, int64_t hi, double acc[SPX_N_SUMS])
{
    const block_job *j = job;
    convert_run(j, (const char *)j->src + (size_t)lo * src_bytes(j), (char *)j->dst + (size_t)lo * dst_bytes(j), hi - lo);
}

/* Runs the job over `lines` lines on the context's threads: over entries when both sides are
 * one contiguous run, else over lines. */
static void run_job(spx_ctx *ctx, const block_job *j, int64_t lines)
{
    double unused[SPX_N_SUMS];
    if (lines == 1 || (j->src_ld == j->len && j->dst_ld == j->len))
        spx_vec_pass(ctx, lines * j->len, range_flat, j, unused);
    else
        spx_vec_pass(ctx, lines, range_lines, j, unused);
}

/* ---- allocation ---- */

/* Entries [lo, hi) of a contiguous block job's destination set to 0 (all bits zero is 0.0 in
 * either precision). */
static void range_zero(const void *job, int64_t lo, int64_t hi, double acc[SPX_N_SUMS])
{
    const block_job *j = job;
    if (hi > lo) memset((char *)j->dst + (size_t)lo * dst_bytes(j), 0, (size_t)(hi - lo) * dst_bytes(j));
}

/* Zero-fills B's (contiguous) host data on the threads that will use it (first touch). */
static void zero_host(spx_block *B)
{
    block_job j = {B->precision, 1, B->len, NULL, 0, B->data, B->ld};
    double unused[SPX_N_SUMS];
    spx_vec_pass(B->ctx, B->lines * B->len, range_zero, &j, unused);
}

spx_status spx_block_alloc(spx_block *B, const char *what)
{
    B->ld = B->len > 0 ? B->len : 1;
    B->data = NULL;
    const int64_t n = B->lines * B->len;
    if (n == 0) return SPX_OK;
    const size_t eb = spx_precision_bytes(B->precision);
    if ((uint64_t)n > SIZE_MAX / eb)
        return spx_fail(B->ctx, B->backend == SPX_BACKEND_CUDA ? SPX_ERR_DEVICE_ALLOC : SPX_ERR_NOMEM,
                        "%s: %lld entries cannot be addressed", what, (long long)n);
    if (B->backend == SPX_BACKEND_CUDA) {
        spx_status s = spx_cuda_malloc(B->ctx, &B->data, (size_t)n * eb);
        if (!s) s = spx_vec_cuda_fill(B->ctx, B->precision, n, B->data, 0.0);
        if (!s) s = spx_cuda_sync(B->ctx);
        if (s) {
            spx_cuda_free(B->ctx, B->data);
            B->data = NULL;
            return s;
        }
    } else {
        B->data = spx_malloc_array(B->ctx, (size_t)n, eb);
        if (!B->data) return spx_fail_nomem(B->ctx, what);
        zero_host(B);
    }
    B->owns = 1;
    return SPX_OK;
}

void spx_block_free(spx_block *B)
{
    if (B->owns && B->backend == SPX_BACKEND_CUDA) spx_cuda_free(B->ctx, B->data);
    else if (B->owns) spx_free(B->ctx, B->data);
    B->data = NULL;
    B->owns = 0;
}

spx_status spx_block_wrap_backend(spx_ctx *ctx, const char *fn, spx_backend b, const void *data, spx_backend *out)
{
    if (b == SPX_BACKEND_AUTO && data) b = spx_cuda_pointer_device(data) >= 0 ? SPX_BACKEND_CUDA : SPX_BACKEND_CPU;
    spx_status s = spx_ctx_resolve_backend(ctx, b, out);
    if (s || *out != SPX_BACKEND_CUDA || !data) return s;
    const int dev = spx_cuda_pointer_device(data);
    if (dev != ctx->device)
        return spx_fail(ctx, SPX_ERR_ARG, "%s: %p is not device memory of the context's device %d (%s)", fn, data,
                        ctx->device, dev < 0 ? "host or managed memory" : "another device's memory");
    return SPX_OK;
}

/* ---- copies between the device and fp64 host lines ---- */

/* The part of a device copy one staging round moves: lines [l, l + q) at entries [o, o + w). */
typedef struct block_piece {
    int64_t l, q, o, w;
} block_piece;

/* The next piece after *c (c->q == 0: the first): whole lines while a line fits the staging
 * buffer (as many as fit), else one line in runs of at most SPX_BLOCK_STAGE_ENTRIES; 0 when
 * done. */
static int next_piece(const spx_block *B, block_piece *c)
{
    if (c->q == 0) {
        c->l = c->o = 0;
    } else if (c->o + c->w < B->len) {
        c->o += c->w;
    } else {
        c->l += c->q;
        c->o = 0;
    }
    if (c->l >= B->lines) return 0;
    c->w = B->len - c->o < SPX_BLOCK_STAGE_ENTRIES ? B->len - c->o : SPX_BLOCK_STAGE_ENTRIES;
    const int64_t fit = B->len <= SPX_BLOCK_STAGE_ENTRIES ? SPX_BLOCK_STAGE_ENTRIES / B->len : 1;
    c->q = B->lines - c->l < fit ? B->lines - c->l : fit;
    return 1;
}

/* The fp32 device block B and fp64 host lines (host_ld apart), piece by piece through a host
 * staging buffer of B's precision: B = host when in, else host = B. */
static spx_status staged_copy(const spx_block *B, const double *in, double *out, int64_t host_ld)
{
    const int64_t span = spx_block_span(B);
    const int64_t cap = span < SPX_BLOCK_STAGE_ENTRIES ? span : SPX_BLOCK_STAGE_ENTRIES;
    const size_t eb = spx_precision_bytes(B->precision);
    void *stage = spx_malloc_array(B->ctx, (size_t)cap, eb);
    if (!stage) return spx_fail_nomem(B->ctx, "staging buffer of a dense copy");
    spx_status s = SPX_OK;
    block_piece c = {0, 0, 0, 0};
    while (!s && next_piece(B, &c)) {
        char *dev = (char *)B->data + (size_t)(c.l * B->ld + c.o) * eb;
        const int64_t host_at = c.l * host_ld + c.o;
        if (in) {
            block_job j = {B->precision, 1, c.w, in + host_at, host_ld, stage, c.w};
            run_job(B->ctx, &j, c.q);
            s = spx_cuda_h2d_2d(B->ctx, dev, (size_t)B->ld * eb, stage, (size_t)c.w * eb, (size_t)c.w * eb, (size_t)c.q);
        } else if (!(s = spx_cuda_d2h_2d(B->ctx, stage, (size_t)c.w * eb, dev, (size_t)B->ld * eb, (size_t)c.w * eb,
                                          (size_t)c.q))) {
            block_job j = {B->precision, 0, c.w, stage, c.w, out + host_at, host_ld};
            run_job(B->ctx, &j, c.q);
        }
    }
    spx_free(B->ctx, stage);
    return s;
}

/* The fp64 device block B and fp64 host lines: one copy (through the context's staging ring
 * when both are contiguous), else one 2D copy. */
static spx_status direct_copy(const spx_block *B, const double *in, double *out, int64_t host_ld)
{
    const size_t pitch = (size_t)B->ld * sizeof(double), hpitch = (size_t)host_ld * sizeof(double);
    const size_t width = (size_t)B->len * sizeof(double);
    if (B->lines == 1 || (B->ld == B->len && host_ld == B->len)) {
        const size_t bytes = (size_t)spx_block_span(B) * sizeof(double);
        return in ? spx_cuda_h2d(B->ctx, B->data, in, bytes) : spx_cuda_d2h(B->ctx, out, B->data, bytes);
    }
    return in ? spx_cuda_h2d_2d(B->ctx, B->data, pitch, in, hpitch, width, (size_t)B->lines)
              : spx_cuda_d2h_2d(B->ctx, out, hpitch, B->data, pitch, width, (size_t)B->lines);
}

spx_status spx_block_set(spx_block *B, const double *host, int64_t host_ld)
{
    if (spx_block_span(B) == 0) return SPX_OK;
    if (B->backend == SPX_BACKEND_CUDA)
        return B->precision == SPX_FP64 ? direct_copy(B, host, NULL, host_ld) : staged_copy(B, host, NULL, host_ld);
    block_job j = {B->precision, 1, B->len, host, host_ld, B->data, B->ld};
    run_job(B->ctx, &j, B->lines);
    return SPX_OK;
}

spx_status spx_block_get(const spx_block *B, double *host, int64_t host_ld)
{
    if (spx_block_span(B) == 0) return SPX_OK;
    if (B->backend == SPX_BACKEND_CUDA)
        return B->precision == SPX_FP64 ? direct_copy(B, NULL, host, host_ld) : staged_copy(B, NULL, host, host_ld);
    block_job j = {B->precision, 0, B->len, B->data, B->ld, host, host_ld};
    run_job(B->ctx, &j, B->lines);
    return SPX_OK;
}
