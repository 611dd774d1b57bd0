/* src/dist/dist_nccl_stub.c: the NCCL transport's entry points for builds without CUDA or
 * without NCCL: each refuses with the reason src/dist/dist.cmake gave (SPX_NCCL_WHY). */
#include "dist/dist_nccl.h"

const char *dist_nccl_why(void)
{
    return SPX_NCCL_WHY;
}

spx_status dist_nccl_unique_id(spx_ctx *ctx, void *id)
{
    return spx_fail(ctx, SPX_ERR_UNSUPPORTED, "the NCCL transport is not built: %s", SPX_NCCL_WHY);
}

spx_status dist_nccl_create(spx_ctx *ctx, const void *id, int nranks, int rank, dist_nccl **out)
{
    return dist_nccl_unique_id(ctx, NULL);
}

spx_status dist_nccl_post(dist_nccl *t, spx_ctx *ctx, int nrecv, const int *recv_rank, const int64_t *recv_off, double *recv,
                          int nsend, const int *send_rank, const int64_t *send_off, const double *send)
{
    return dist_nccl_unique_id(ctx, NULL);
}

spx_status dist_nccl_wait(dist_nccl *t, spx_ctx *ctx)
{
    return dist_nccl_unique_id(ctx, NULL);
}

void dist_nccl_destroy(dist_nccl **t)
{
    if (t) *t = NULL;
}
