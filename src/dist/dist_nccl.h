/* src/dist/dist_nccl.h: the NCCL transport of the distributed SpMV: device-resident halos sent
 * GPU to GPU by NCCL on a stream of its own, ordered after the packing and before the
 * off-diagonal product by events, with no host wait. src/dist/dist_nccl.cu when CUDA is built
 * and NCCL found (src/dist/dist.cmake), src/dist/dist_nccl_stub.c (refusing, with the reason)
 * otherwise. */
#ifndef SPX_DIST_DIST_NCCL_H
#define SPX_DIST_DIST_NCCL_H

#include <stddef.h>
#include <stdint.h>

#include "core/ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of an NCCL unique id (NCCL_UNIQUE_ID_BYTES), as MPI broadcasts it. */
#define DIST_NCCL_ID_BYTES 128

typedef struct dist_nccl dist_nccl;

/* Why this build has no NCCL transport; "" when it has one. */
const char *dist_nccl_why(void);
/* A new communicator's unique id into id[0..DIST_NCCL_ID_BYTES) (one rank makes it). */
spx_status dist_nccl_unique_id(spx_ctx *ctx, void *id);
/* Joins this process, rank `rank` of `nranks`, to the communicator of id, on ctx's device, with
 * its own stream and events; collective over the ranks (ncclCommInitRank). */
spx_status dist_nccl_create(spx_ctx *ctx, const void *id, int nranks, int rank, dist_nccl **out);
/* After what ctx's stream holds so far (the packed halo), queues on the transport's stream the
 * receives of recv_off[i+1] - recv_off[i] doubles from recv_rank[i] into recv + recv_off[i] and
 * the sends of send + send_off[i] to send_rank[i] (device pointers); returns at once. */
spx_status dist_nccl_post(dist_nccl *t, spx_ctx *ctx, int nrecv, const int *recv_rank, const int64_t *recv_off, double *recv,
                          int nsend, const int *send_rank, const int64_t *send_off, const double *send);
/* Makes ctx's stream wait for the exchange posted last (the host does not wait). */
spx_status dist_nccl_wait(dist_nccl *t, spx_ctx *ctx);
/* Frees *t (NULL accepted) and sets it to NULL. */
void dist_nccl_destroy(dist_nccl **t);

#ifdef __cplusplus
}
#endif
#endif
