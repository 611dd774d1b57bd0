/* src/dist/dist_nccl.cu: the NCCL transport of the distributed SpMV (dist_nccl.h): the halo
 * goes GPU to GPU with ncclSend/ncclRecv grouped on the transport's own stream, which waits for
 * an event recorded after the packing on the context's stream; the context's stream then waits
 * for the exchange's event before the off-diagonal product. The diagonal product runs on the
 * context's stream meanwhile; the host never waits. */
#include <nccl.h>
#include <string.h>

#include "cuda/gateway.h"
#include "cuda/runtime.cuh"
#include "dist/dist_nccl.h"

struct dist_nccl {
    spx_ctx *ctx;          /* whose allocator holds this */
    ncclComm_t comm;
    cudaStream_t stream;   /* the exchange's */
    cudaEvent_t packed;    /* on the context's stream: the halo is packed */
    cudaEvent_t done;      /* on the transport's stream: the exchange is over */
};

/* SPX_ERR_CUDA with NCCL's reason for r, naming the call. */
static spx_status nccl_fail(spx_ctx *ctx, ncclResult_t r, const char *call)
{
    return spx_fail(ctx, SPX_ERR_CUDA, "NCCL: %s: %s", call, ncclGetErrorString(r));
}

#define DIST_NCCL_RET(ctx, call)                                                                   \
    do {                                                                                           \
        ncclResult_t dist_r_ = (call);                                                             \
        if (dist_r_ != ncclSuccess) return nccl_fail((ctx), dist_r_, #call);                      \
    } while (0)

static_assert(sizeof(ncclUniqueId) == DIST_NCCL_ID_BYTES, "NCCL's unique id is 128 bytes");

extern "C" const char *dist_nccl_why(void)
{
    return "";
}

extern "C" spx_status dist_nccl_unique_id(spx_ctx *ctx, void *id)
{
    spx_status s = spx_cuda_init(ctx); /* binds the context's device */
    if (s) return s;
    ncclUniqueId u;
    DIST_NCCL_RET(ctx, ncclGetUniqueId(&u));
    memcpy(id, &u, sizeof u);
    return SPX_OK;
}

/* The stream and events of t (on the context's device, already bound). */
static spx_status make_stream(spx_ctx *ctx, dist_nccl *t)
{
    SPX_CUDA_RET(ctx, cudaStreamCreateWithFlags(&t->stream, cudaStreamNonBlocking));
    SPX_CUDA_RET(ctx, cudaEventCreateWithFlags(&t->packed, cudaEventDisableTiming));
    SPX_CUDA_RET(ctx, cudaEventCreateWithFlags(&t->done, cudaEventDisableTiming));
    return SPX_OK;
}

extern "C" spx_status dist_nccl_create(spx_ctx *ctx, const void *id, int nranks, int rank, dist_nccl **out)
{
    spx_status s = spx_cuda_init(ctx);
    if (s) return s;
    dist_nccl *t = (dist_nccl *)spx_calloc_array(ctx, 1, sizeof *t);
    if (!t) return spx_fail_nomem(ctx, "NCCL transport");
    t->ctx = ctx;
    ncclUniqueId u;
    memcpy(&u, id, sizeof u);
    ncclResult_t r = ncclCommInitRank(&t->comm, nranks, u, rank);
    if (r != ncclSuccess) {
        spx_free(ctx, t);
        return nccl_fail(ctx, r, "ncclCommInitRank");
    }
    if ((s = make_stream(ctx, t))) {
        dist_nccl_destroy(&t);
        return s;
    }
    *out = t;
    return SPX_OK;
}

extern "C" spx_status dist_nccl_post(dist_nccl *t, spx_ctx *ctx, int nrecv, const int *recv_rank, const int64_t *recv_off,
                                     double *recv, int nsend, const int *send_rank, const int64_t *send_off,
                                     const double *send)
{
    SPX_CUDA_RET(ctx, cudaEventRecord(t->packed, spx_cuda_stream(ctx)));
    SPX_CUDA_RET(ctx, cudaStreamWaitEvent(t->stream, t->packed, 0));
    DIST_NCCL_RET(ctx, ncclGroupStart());
    ncclResult_t r = ncclSuccess;
    for (int i = 0; r == ncclSuccess && i < nrecv; i++)
        r = ncclRecv(recv + recv_off[i], (size_t)(recv_off[i + 1] - recv_off[i]), ncclDouble, recv_rank[i], t->comm, t->stream);
    for (int i = 0; r == ncclSuccess && i < nsend; i++)
        r = ncclSend(send + send_off[i], (size_t)(send_off[i + 1] - send_off[i]), ncclDouble, send_rank[i], t->comm, t->stream);
    ncclResult_t end = ncclGroupEnd(); /* always closes the group */
    if (r != ncclSuccess) return nccl_fail(ctx, r, "ncclSend/ncclRecv");
    if (end != ncclSuccess) return nccl_fail(ctx, end, "ncclGroupEnd");
    SPX_CUDA_RET(ctx, cudaEventRecord(t->done, t->stream));
    return SPX_OK;
}

extern "C" spx_status dist_nccl_wait(dist_nccl *t, spx_ctx *ctx)
{
    SPX_CUDA_RET(ctx, cudaStreamWaitEvent(spx_cuda_stream(ctx), t->done, 0));
    return SPX_OK;
}

extern "C" void dist_nccl_destroy(dist_nccl **pt)
{
    if (!pt || !*pt) return;
    dist_nccl *t = *pt;
    if (t->comm) ncclCommDestroy(t->comm);
    if (t->done) cudaEventDestroy(t->done);
    if (t->packed) cudaEventDestroy(t->packed);
    if (t->stream) cudaStreamDestroy(t->stream);
    (void)cudaGetLastError();
    spx_free(t->ctx, t);
    *pt = NULL;
}
