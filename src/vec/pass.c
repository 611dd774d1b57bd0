/* src/vec/pass.c: the share runner every CPU operation on dense operands goes through
 * (spx_vec_pass, vec_internal.h): contiguous shares, one a thread, their sums added in share
 * order, so a result is the same every run for a given thread count. */
#include <omp.h>
#include <string.h>

#include "vec/vec_internal.h"

/* Below this many entries an operation runs on one thread: one core does a 2^15-entry fp64
 * dot in about 9 us (measured on the 2-core development container, cache-resident), a few
 * times what an OpenMP fork/join costs, so threads start to pay from here. */
#define SPX_VEC_OMP_MIN ((int64_t)1 << 15)
/* Threads one operation uses at most: the partial sums live on the stack (6 KB). */
#define SPX_VEC_MAX_SHARES 256

/* The first entry of share i of k over n entries (contiguous, sizes differing by at most 1). */
static int64_t share_start(int64_t n, int i, int k)
{
    const int64_t q = n / k, r = n % k;
    return q * i + (i < r ? i : r);
}

void spx_vec_pass(spx_ctx *ctx, int64_t n, spx_vec_pass_fn fn, const void *job, double sums[SPX_N_SUMS])
{
    double acc[SPX_VEC_MAX_SHARES][SPX_N_SUMS];
    int want = n < SPX_VEC_OMP_MIN ? 1 : spx_ctx_threads(ctx);
    if (want > SPX_VEC_MAX_SHARES) want = SPX_VEC_MAX_SHARES;
    int shares = 1;
    if (want == 1) {
        memset(acc[0], 0, sizeof acc[0]);
        fn(job, 0, n, acc[0]);
    } else {
#pragma omp parallel num_threads(want)
        {
            const int k = omp_get_num_threads(), i = omp_get_thread_num();
            memset(acc[i], 0, sizeof acc[i]);
            fn(job, share_start(n, i, k), share_start(n, i + 1, k), acc[i]);
            if (i == 0) shares = k;
        }
    }
    for (int s = 0; s < SPX_N_SUMS; s++) {
        sums[s] = 0.0;
        for (int i = 0; i < shares; i++) sums[s] += acc[i][s];
    }
}
