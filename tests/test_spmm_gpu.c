/* tests/test_spmm_gpu.c: SpMM on CUDA plans (spx_plan_spmm with device blocks): every format
 * with a GPU path, fp64 and fp32, in the caller's order and the plan's, against the oracle for k
 * in {1, 2, 3, 8, 33} in both layouts with leading dimensions beyond a line (tests/spmm_check.h:
 * the format's GPU SpMM kernel, or the fallback of k device SpMVs with row-major columns
 * gathered by strided copies, reported as such), on edge cases and generated matrices; host
 * blocks refused by a CUDA plan; no device memory left behind. Skipped (77) without a GPU. */
#include <string.h>

#include "spmm_check.h"

/* A CUDA plan refuses host blocks, Y untouched. */
static void test_host_blocks(spx_ctx *ctx)
{
    spx_csr *A = tm_make(ctx, 30, 30, tm_len_const8, 2);
    spx_plan *p = NULL;
    spx_dense *X = NULL, *Y = NULL;
    spx_plan_opts o = {.format = "csr", .backend = SPX_BACKEND_CUDA};
    CHECK_OK(ctx, A ? spx_plan_create(ctx, A, &o, &p) : SPX_ERR_NOMEM);
    CHECK_OK(ctx, spx_dense_create(ctx, SPX_BACKEND_CPU, SPX_FP64, 30, 2, SPX_DENSE_COL_MAJOR, &X));
    CHECK_OK(ctx, spx_dense_create(ctx, SPX_BACKEND_CUDA, SPX_FP64, 30, 2, SPX_DENSE_COL_MAJOR, &Y));
    if (p && X && Y) {
        spx_status s = spx_plan_spmm(p, 1.0, X, 0.0, Y);
        CHECK_MSG(s == SPX_ERR_ARG && strstr(spx_ctx_last_error(ctx), "X is a cpu block"), "%s: %s", spx_status_str(s),
                  spx_ctx_last_error(ctx));
    }
    spx_dense_destroy(&X);
    spx_dense_destroy(&Y);
    spx_plan_destroy(&p);
    spx_csr_destroy(&A);
}

int main(void)
{
    spx_ctx *ctx = NULL;
    const int skip = fc_gpu_ctx(&ctx);
    if (skip) return skip;
    sc_case cases[SC_MAX_CASES];
    sc_check_matrices(ctx, SPX_BACKEND_CUDA, cases, sc_cases(cases));
    test_host_blocks(ctx);
    spx_mem_stats m;
    CHECK(spx_ctx_mem_stats(ctx, &m) == SPX_OK && m.device_bytes == 0);
    spx_ctx_destroy(&ctx);
    return check_report();
}
