/* src/bench/bench_cuda.h: the benchmark's own GPU piece (src/bench/bench_cuda.cu;
 * src/bench/bench_stub.c in builds without CUDA). */
#ifndef SPX_BENCH_BENCH_CUDA_H
#define SPX_BENCH_BENCH_CUDA_H

#include "core/ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One call of an empty kernel made as a CUDA plan's one-kernel SpMV call is made (the context
 * bound to its device, one launch on its stream, the launch checked): the protocol's times of
 * it are the floor under every call time (spx_bench_launch_floor). */
spx_status spx_bench_cuda_empty(spx_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
