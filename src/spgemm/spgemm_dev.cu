/* src/spgemm/spgemm_dev.cu: the SpGEMM GPU implementations' shared operand upload and result
 * download (see spgemm_dev.cuh); large results come through two pinned chunks. */
#include "spgemm/host_copy.h"
#include "spgemm/spgemm_dev.cuh"

spx_status spx_spgemm_dev_upload(spx_ctx *ctx, const spx_spgemm_input *in, spx_spgemm_operands *out)
{
    memset(out, 0, sizeof *out);
    spx_status s = spx_cuda_dev_csr_upload(ctx, in->A, in->precision, &out->A);
    if (!s) s = spx_cuda_dev_csr_upload(ctx, in->B, in->precision, &out->B);
    if (s) spx_spgemm_dev_free(ctx, out);
    return s;
}

void spx_spgemm_dev_free(spx_ctx *ctx, spx_spgemm_operands *ops)
{
    spx_cuda_dev_csr_free(ctx, &ops->A);
    spx_cuda_dev_csr_free(ctx, &ops->B);
}

/* Pinned staging of C's download: two chunks of this many bytes alternate, one crossing the
 * bus while the host threads empty the other into C. Below STAGED_MIN bytes a plain copy:
 * pinning 2 chunks costs milliseconds. (H200, 2026-11-24: a plain copy of R-MAT 16's C,
 * 2 GB into fresh pageable memory, took 1.35-1.77 s: ~1.3 GB/s, the first touch of each
 * page serialised.) */
#define STAGE_BYTES ((size_t)32 << 20)
#define STAGED_MIN (4 * STAGE_BYTES)

/* How a staged chunk reaches C: copied as it is, or fp32 widened to fp64. */
typedef enum stage_sink { SINK_COPY, SINK_WIDEN } stage_sink;

/* Empties `count` elements of a pinned chunk into dst at element `at`. */
static void sink_chunk(stage_sink how, void *dst, const void *chunk, int64_t at, int64_t count, size_t elem, int threads)
{
    if (how == SINK_WIDEN)
        spx_spgemm_host_widen((double *)dst + at, (const float *)chunk, (size_t)count, threads);
    else
        spx_spgemm_host_copy((char *)dst + (size_t)at * elem, chunk, (size_t)count * elem, threads);
}

/* count elements of `elem` bytes from device src into host dst through two pinned chunks
 * (events order the reuse of each chunk); every buffer and event freed on every path. */
static spx_status staged_d2h(spx_ctx *ctx, void *dst, const void *src, int64_t count, size_t elem, stage_sink how)
{
    void *buf[2] = {NULL, NULL};
    cudaEvent_t ev[2] = {NULL, NULL};
    const int64_t per = (int64_t)(STAGE_BYTES / elem), chunks = (count + per - 1) / per;
    const int threads = spx_ctx_threads(ctx);
    const cudaStream_t st = spx_cuda_stream(ctx);
    spx_status s = SPX_OK;
    for (int b = 0; b < 2 && !s; b++) {
        s = spx_cuda_pinned_alloc(ctx, &buf[b], STAGE_BYTES);
        if (!s) SPX_CUDA_GOTO(ctx, s, cudaEventCreateWithFlags(&ev[b], cudaEventDisableTiming));
    }
    for (int64_t c = 0; !s && c <= chunks; c++) {
        if (c < chunks) { /* chunk c starts across the bus into buf[c % 2] */
            const int64_t len = count - c * per < per ? count - c * per : per;
            SPX_CUDA_GOTO(ctx, s, cudaMemcpyAsync(buf[c & 1], (const char *)src + (size_t)(c * per) * elem,
                                                  (size_t)len * elem, cudaMemcpyDeviceToHost, st));
            SPX_CUDA_GOTO(ctx, s, cudaEventRecord(ev[c & 1], st));
        }
        if (c > 0) { /* chunk c - 1 has arrived: into C while chunk c crosses */
            const int64_t p = c - 1, len = count - p * per < per ? count - p * per : per;
            SPX_CUDA_GOTO(ctx, s, cudaEventSynchronize(ev[p & 1]));
            sink_chunk(how, dst, buf[p & 1], p * per, len, how == SINK_WIDEN ? sizeof(double) : elem, threads);
        }
    }
done:
    if (s) cudaStreamSynchronize(st); /* no copy may still target a buffer freed below */
    for (int b = 0; b < 2; b++) {
        if (ev[b]) cudaEventDestroy(ev[b]);
        spx_cuda_pinned_free(ctx, buf[b], STAGE_BYTES);
    }
    return s;
}

spx_status spx_spgemm_dev_download(spx_ctx *ctx, const int32_t *colind, const void *val, spx_precision prec,
                                   int64_t nnz, spx_csr *C)
{
    if (nnz == 0) return SPX_OK;
    const size_t vb = prec == SPX_FP64 ? sizeof(double) : sizeof(float);
    if ((size_t)nnz * (sizeof(int32_t) + vb) >= STAGED_MIN) {
        spx_status s = staged_d2h(ctx, C->colind, colind, nnz, sizeof(int32_t), SINK_COPY);
        return s ? s : staged_d2h(ctx, C->val, val, nnz, vb, prec == SPX_FP64 ? SINK_COPY : SINK_WIDEN);
    }
    spx_status s = spx_cuda_d2h(ctx, C->colind, colind, (size_t)nnz * sizeof(int32_t));
    if (s || prec == SPX_FP64) return s ? s : spx_cuda_d2h(ctx, C->val, val, (size_t)nnz * sizeof(double));
    float *stage = (float *)spx_malloc_array(ctx, (size_t)nnz, sizeof(float));
    if (!stage) return spx_fail_nomem(ctx, "spgemm: fp32 download of C");
    s = spx_cuda_d2h(ctx, stage, val, (size_t)nnz * sizeof(float));
    if (!s) spx_spgemm_host_widen(C->val, stage, (size_t)nnz, spx_ctx_threads(ctx));
    spx_free(ctx, stage);
    return s;
}
