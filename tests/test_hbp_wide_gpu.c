/* tests/test_hbp_wide_gpu.c: hbp's wide tiles built on the GPU (hbp_wide_cuda.cu) against the
 * host build, every array downloaded and compared, fp64 and fp32, on generated matrices (several
 * column blocks, rows out of column order, a dense row whose panel is split into units) and
 * DESIGN.md §8's edge cases; and the GPU SpMV through plans of either build on the matrices
 * that need several blocks or split panels (test_gpu runs the rest of the registry's checks).
 * Skips (77) without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format_check.h"
#include "matrices.h"
#include "cuda/gateway.h"
#include "formats/hbp/hbp.h"
#include "formats/hbp/hbp_cuda.h"
#include "hbp_check.h"

/* Whether host layout h and downloaded device layout g have the same header and arrays. */
static int same_layout(spx_hbp_wide *h, spx_hbp_wide *g)
{
    if (h->m != g->m || h->n != g->n || h->nnz != g->nnz || h->H != g->H || h->W != g->W || h->n_tiles != g->n_tiles ||
        h->n_units != g->n_units || h->n_split != g->n_split || h->unit_nnz != g->unit_nnz)
        return 0;
    void **hp[SPX_HBP_WIDE_N_ARRAYS], **gp[SPX_HBP_WIDE_N_ARRAYS];
    int64_t count[SPX_HBP_WIDE_N_ARRAYS];
    size_t size[SPX_HBP_WIDE_N_ARRAYS];
    spx_hbp_wide_arrays(g, gp, count, size);
    spx_hbp_wide_arrays(h, hp, count, size);
    for (int i = 0; i < SPX_HBP_WIDE_N_ARRAYS; i++)
        if (count[i] > 0 && memcmp(*hp[i], *gp[i], (size_t)count[i] * size[i])) return 0;
    return 1;
}

/* A built on the device equals the host build, array by array. */
static void compare_builds(spx_ctx *ctx, const spx_csr *A, spx_precision prec, const char *what)
{
    char label[200];
    snprintf(label, sizeof label, "%s wide %s", what, prec == SPX_FP32 ? "fp32" : "fp64");
    spx_hbp_fmt *F = NULL;
    spx_hbp_wide_dev *G = NULL;
    spx_hbp_wide *g = NULL;
    spx_dev_csr D;
    memset(&D, 0, sizeof D);
    CHECK_OK(ctx, spx_hbp_fmt_build(ctx, A, NULL, prec, "wide", 0, 0, &F));
    CHECK_OK(ctx, spx_cuda_dev_csr_upload(ctx, A, prec, &D));
    spx_status s = spx_hbp_wide_dev_build(ctx, &D, NULL, &G);
    CHECK_MSG(s == SPX_OK, "%s: device build: %s: %s", label, spx_status_str(s), spx_ctx_last_error(ctx));
    if (G) CHECK_OK(ctx, spx_hbp_wide_dev_download(ctx, G, &g));
    if (F && g) CHECK_MSG(same_layout(F->wide, g), "%s: device layout differs from the host build", label);
    spx_hbp_wide_destroy(ctx, g);
    spx_hbp_wide_dev_free(ctx, G);
    spx_cuda_dev_csr_free(ctx, &D);
    spx_hbp_fmt_destroy(ctx, F);
}

/* A copy of A with every row's entries in reverse order. */
static spx_csr *reversed_rows(spx_ctx *ctx, const spx_csr *A)
{
    spx_csr *U = NULL;
    if (spx_csr_alloc(ctx, A->m, A->n, A->nnz, &U) != SPX_OK) return NULL;
    memcpy(U->rowptr, A->rowptr, ((size_t)A->m + 1) * sizeof *U->rowptr);
    for (int32_t i = 0; i < A->m; i++)
        for (int64_t e = A->rowptr[i], f = A->rowptr[i + 1] - 1; e < A->rowptr[i + 1]; e++, f--) {
            U->colind[f] = A->colind[e];
            U->val[f] = A->val[e];
        }
    return U;
}

/* Both builds and both precisions on A, then the SpMV on the GPU through the registry. */
static void check_matrix(spx_ctx *ctx, const spx_csr *A, const char *what, int spmv)
{
    for (int p = 0; p < 2; p++) {
        const spx_precision prec = p ? SPX_FP32 : SPX_FP64;
        compare_builds(ctx, A, prec, what);
        if (spmv) fc_check(ctx, A, "hbp", "wide", SPX_BACKEND_CUDA, prec, what);
    }
}

static void test_generated(spx_ctx *ctx)
{
    static const char *specs[] = {"gen:uniform:m=3000,n=3000000,k=9", "gen:rmat:scale=12,ef=8",
                                  "gen:powerlaw:m=20000,k=6", "gen:wide:m=8,n=5000000", "gen:poisson2d:n=120"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        spx_csr *A = NULL, *U = NULL;
        CHECK_OK(ctx, spx_gen(ctx, specs[i], &A));
        if (A) check_matrix(ctx, A, specs[i], 1);
        if (A && (U = reversed_rows(ctx, A))) check_matrix(ctx, U, "rows reversed", 0);
        spx_csr_destroy(&U);
        spx_csr_destroy(&A);
    }
    spx_csr *D = tm_make(ctx, 40, 1 << 20, tm_len_dense_row, 5);
    if (D) check_matrix(ctx, D, "dense row of 1M (split panel)", 1);
    spx_csr_destroy(&D);
    spx_csr *R = hbp_hub_matrix(ctx);
    if (R) check_matrix(ctx, R, "70000 x 3M, a hub row (rounds, blocks, split panel)", 1);
    spx_csr_destroy(&R);
}

static void test_edge_cases(spx_ctx *ctx)
{
    for (int c = 0; c < TM_N_EDGE; c++) {
        spx_csr *A = tm_make(ctx, tm_edge_cases[c].m, tm_edge_cases[c].n, tm_edge_cases[c].len, 23 + (uint64_t)c);
        if (A) check_matrix(ctx, A, tm_edge_cases[c].name, 0);
        spx_csr_destroy(&A);
    }
}

int main(void)
{
    spx_ctx *ctx = NULL;
    int rc = fc_gpu_ctx(&ctx);
    if (rc) return rc;
    test_generated(ctx);
    test_edge_cases(ctx);
    spx_ctx_destroy(&ctx);
    return check_report();
}
