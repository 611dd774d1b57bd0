/* tests/test_csr_dev.c: the device CSR (spx_csr_dev). On any machine: the argument checks of
 * wrap, upload and download with their messages, nothing written on a refusal, and a build
 * without CUDA or without a device answering SPX_ERR_NOT_COMPILED or SPX_ERR_NO_DEVICE. With a
 * device: uploads in every row-pointer type and precision downloaded back equal; wrapping
 * device arrays (the upload's) and refusing host memory; bad arrays crafted on the device
 * refused with the first offending row named (nothing left allocated, nothing written);
 * unsorted rows found but accepted. */
#include <string.h>

#include "check.h"
#include "core/ctx.h"
#include "cuda/gateway.h"

/* The 4 x 5 CSR every case starts from: rows of 2, 0, 3, 1 entries, sorted columns. */
enum { M = 4, N = 5, NNZ = 6 };
static const int64_t ROWPTR[M + 1] = {0, 2, 2, 5, 6};
static const int32_t COLIND[NNZ] = {0, 3, 1, 2, 4, 0};
static const double VAL[NNZ] = {1.5, -2.0, 3.25, 4.0, -5.5, 6.0};

/* One wrap call's arguments. */
typedef struct wrap_args {
    int32_t m, n;
    int64_t nnz;
    spx_index_type rt;
    void *rowptr;
    int32_t *colind;
    spx_precision p;
    void *val;
} wrap_args;

/* A wrap call that must fail with status want and a message containing `part`, *out untouched. */
static void expect_refused(spx_ctx *ctx, wrap_args a, spx_status want, const char *part)
{
    spx_csr_dev *sentinel = (spx_csr_dev *)&a, *out = sentinel;
    spx_status s = spx_csr_dev_wrap(ctx, a.m, a.n, a.nnz, a.rt, a.rowptr, a.colind, a.p, a.val, &out);
    CHECK_MSG(s == want, "wanted %s, got %s: %s", spx_status_str(want), spx_status_str(s), spx_ctx_last_error(ctx));
    CHECK_MSG(strstr(spx_ctx_last_error(ctx), part) != NULL, "'%s' not in '%s'", part, spx_ctx_last_error(ctx));
    CHECK(out == sentinel);
}

/* The status a well-formed wrap of host arrays gets in this build: no CUDA, no device, or (with
 * a device) refused as host memory. */
static spx_status host_pointer_status(spx_ctx *ctx, const char **part)
{
    spx_backend b;
    if (!spx_cuda_compiled()) return *part = "not compiled", SPX_ERR_NOT_COMPILED;
    if (spx_ctx_resolve_backend(ctx, SPX_BACKEND_CUDA, &b)) return *part = "no CUDA device", SPX_ERR_NO_DEVICE;
    return *part = "rowptr is host memory", SPX_ERR_ARG;
}

/* The header checks (no device needed), then host arrays refused by this build's rule. */
static void test_arguments(spx_ctx *ctx)
{
    int64_t rp[M + 1];
    int32_t ci[NNZ];
    double v[NNZ];
    memcpy(rp, ROWPTR, sizeof rp);
    memcpy(ci, COLIND, sizeof ci);
    memcpy(v, VAL, sizeof v);
    const wrap_args ok = {M, N, NNZ, SPX_INDEX_INT64, rp, ci, SPX_FP64, v};
    spx_csr_dev *D = NULL;
    CHECK(spx_csr_dev_wrap(NULL, M, N, NNZ, SPX_INDEX_INT64, rp, ci, SPX_FP64, v, &D) == SPX_ERR_ARG && !D);
    CHECK(spx_csr_dev_wrap(ctx, M, N, NNZ, SPX_INDEX_INT64, rp, ci, SPX_FP64, v, NULL) == SPX_ERR_ARG);
    CHECK(strstr(spx_ctx_last_error(ctx), "spx_csr_dev_wrap: NULL argument") != NULL);
    wrap_args a = ok;
    a.m = -1;
    expect_refused(ctx, a, SPX_ERR_ARG, "device CSR: negative size -1 x 5, nnz 6");
    a = ok, a.nnz = -3;
    expect_refused(ctx, a, SPX_ERR_ARG, "negative size");
    a = ok, a.rt = SPX_INDEX_DEFAULT;
    expect_refused(ctx, a, SPX_ERR_ARG, "rowptr_type must be SPX_INDEX_INT32 or SPX_INDEX_INT64, not 0");
    a = ok, a.p = (spx_precision)7;
    expect_refused(ctx, a, SPX_ERR_ARG, "unknown precision 7");
    a = ok, a.rt = SPX_INDEX_INT32, a.nnz = (int64_t)INT32_MAX + 1;
    expect_refused(ctx, a, SPX_ERR_OVERFLOW, "2147483648 nonzeros exceed int32 row pointers");
    a = ok, a.rowptr = NULL;
    expect_refused(ctx, a, SPX_ERR_ARG, "rowptr is NULL (m + 1 = 5 entries needed)");
    a = ok, a.colind = NULL;
    expect_refused(ctx, a, SPX_ERR_ARG, "colind is NULL with 6 nonzeros");
    a = ok, a.val = NULL;
    expect_refused(ctx, a, SPX_ERR_ARG, "val is NULL with 6 nonzeros");
    const char *part = "";
    const spx_status want = host_pointer_status(ctx, &part);
    expect_refused(ctx, ok, want, part);
    a = ok, a.nnz = 0, a.colind = NULL, a.val = NULL, a.m = 0; /* an empty matrix needs only rowptr */
    expect_refused(ctx, a, want, part);
    CHECK(memcmp(rp, ROWPTR, sizeof rp) == 0 && memcmp(ci, COLIND, sizeof ci) == 0); /* nothing written */
}

/* Upload and download refusals that need no device, and destroy's NULL. */
static void test_copies_arguments(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    CHECK_OK(ctx, spx_csr_alloc(ctx, M, N, NNZ, &A));
    spx_csr_dev *D = NULL;
    CHECK(spx_csr_dev_upload(NULL, A, SPX_INDEX_INT32, SPX_FP64, &D) == SPX_ERR_ARG && !D);
    CHECK(spx_csr_dev_upload(ctx, NULL, SPX_INDEX_INT32, SPX_FP64, &D) == SPX_ERR_ARG && !D);
    CHECK(strstr(spx_ctx_last_error(ctx), "spx_csr_dev_upload: NULL argument") != NULL);
    CHECK(spx_csr_dev_upload(ctx, A, SPX_INDEX_DEFAULT, SPX_FP64, &D) == SPX_ERR_ARG && !D);
    CHECK(strstr(spx_ctx_last_error(ctx), "rowptr_type must be") != NULL);
    int32_t *keep = A->colind;
    A->colind = NULL;
    CHECK(spx_csr_dev_upload(ctx, A, SPX_INDEX_INT32, SPX_FP64, &D) == SPX_ERR_ARG && !D);
    CHECK(strstr(spx_ctx_last_error(ctx), "CSR arrays missing") != NULL);
    A->colind = keep;
    spx_csr *H = NULL;
    CHECK(spx_csr_dev_download(NULL, &H) == SPX_ERR_ARG && !H);
    spx_csr_dev_destroy(NULL);
    spx_csr_dev_destroy(&D);
    CHECK(D == NULL);
    spx_csr_destroy(&A);
}

/* A copy of the test matrix (values as given), for the device cases. */
static spx_csr *test_matrix(spx_ctx *ctx)
{
    spx_csr *A = NULL;
    if (spx_csr_alloc(ctx, M, N, NNZ, &A)) return NULL;
    memcpy(A->rowptr, ROWPTR, sizeof ROWPTR);
    memcpy(A->colind, COLIND, sizeof COLIND);
    memcpy(A->val, VAL, sizeof VAL);
    return A;
}

/* Every row-pointer type and precision: uploaded, downloaded back equal (fp32: the values
 * rounded), then wrapped over its own device arrays. */
static void test_round_trips(spx_ctx *ctx)
{
    spx_csr *A = test_matrix(ctx);
    for (int t = 0; A && t < 2; t++)
        for (int p = 0; p < 2; p++) {
            const spx_index_type rt = t ? SPX_INDEX_INT64 : SPX_INDEX_INT32;
            const spx_precision prec = p ? SPX_FP32 : SPX_FP64;
            spx_csr_dev *D = NULL, *W = NULL;
            spx_csr *H = NULL;
            CHECK_OK(ctx, spx_csr_dev_upload(ctx, A, rt, prec, &D));
            if (!D) continue;
            CHECK(D->owns && D->m == M && D->n == N && D->nnz == NNZ && D->rowptr_type == rt && D->precision == prec);
            CHECK(D->unsorted_row == -1);
            CHECK_OK(ctx, spx_csr_dev_download(D, &H));
            CHECK(H && memcmp(H->rowptr, ROWPTR, sizeof ROWPTR) == 0 && memcmp(H->colind, COLIND, sizeof COLIND) == 0);
            for (int k = 0; H && k < NNZ; k++) CHECK(H->val[k] == (prec == SPX_FP32 ? (double)(float)VAL[k] : VAL[k]));
            CHECK_OK(ctx, spx_csr_dev_wrap(ctx, M, N, NNZ, rt, D->rowptr, D->colind, prec, D->val, &W));
            CHECK(W && !W->owns && W->rowptr == D->rowptr && W->unsorted_row == -1);
            spx_csr_dev_destroy(&W);
            spx_csr_dev_destroy(&D);
            spx_csr_destroy(&H);
        }
    spx_csr_destroy(&A);
}

/* Device arrays for a wrap: the test matrix with the given row pointers and columns copied in. */
typedef struct dev_arrays {
    void *rowptr;
    int32_t *colind;
    double *val;
} dev_arrays;

static int dev_arrays_make(spx_ctx *ctx, const int64_t *rp, const int32_t *ci, dev_arrays *d)
{
    memset(d, 0, sizeof *d);
    return !spx_cuda_malloc(ctx, &d->rowptr, sizeof ROWPTR) && !spx_cuda_malloc(ctx, (void **)&d->colind, sizeof COLIND) &&
           !spx_cuda_malloc(ctx, (void **)&d->val, sizeof VAL) && !spx_cuda_h2d(ctx, d->rowptr, rp, sizeof ROWPTR) &&
           !spx_cuda_h2d(ctx, d->colind, ci, sizeof COLIND) && !spx_cuda_h2d(ctx, d->val, VAL, sizeof VAL);
}

static void dev_arrays_free(spx_ctx *ctx, dev_arrays *d)
{
    spx_cuda_free(ctx, d->rowptr);
    spx_cuda_free(ctx, d->colind);
    spx_cuda_free(ctx, d->val);
}

/* One bad (or unsorted) matrix on the device, wrapped: refused with `part` in the message and
 * nothing left allocated beside the arrays; or (part NULL) accepted with unsorted_row. */
static void check_case(spx_ctx *ctx, const int64_t *rp, const int32_t *ci, const char *part, int32_t unsorted)
{
    dev_arrays d;
    if (!dev_arrays_make(ctx, rp, ci, &d)) {
        CHECK_MSG(0, "device arrays: %s", spx_ctx_last_error(ctx));
        dev_arrays_free(ctx, &d);
        return;
    }
    spx_mem_stats before, after;
    spx_ctx_mem_stats(ctx, &before);
    const wrap_args a = {M, N, NNZ, SPX_INDEX_INT64, d.rowptr, d.colind, SPX_FP64, d.val};
    if (part) {
        expect_refused(ctx, a, SPX_ERR_ARG, part);
    } else {
        spx_csr_dev *W = NULL;
        CHECK_OK(ctx, spx_csr_dev_wrap(ctx, M, N, NNZ, SPX_INDEX_INT64, d.rowptr, d.colind, SPX_FP64, d.val, &W));
        CHECK_MSG(W && W->unsorted_row == unsorted, "unsorted_row %d, expected %d", W ? W->unsorted_row : -2, unsorted);
        spx_csr_dev_destroy(&W);
    }
    spx_ctx_mem_stats(ctx, &after);
    CHECK(after.device_bytes == before.device_bytes);
    dev_arrays_free(ctx, &d);
}

/* Bad row pointers and columns, each named as spx_csr_check names it, with its row. */
static void test_bad_device_arrays(spx_ctx *ctx)
{
    int64_t rp[M + 1];
    int32_t ci[NNZ];
#define RESET() (memcpy(rp, ROWPTR, sizeof rp), memcpy(ci, COLIND, sizeof ci))
    RESET();
    check_case(ctx, rp, ci, NULL, -1);
    RESET(), rp[0] = 1;
    check_case(ctx, rp, ci, "CSR rowptr[0] = 1, expected 0", 0);
    RESET(), rp[3] = 1; /* row 2 starts at 2 and ends at 1 */
    check_case(ctx, rp, ci, "CSR rowptr decreases at row 2", 0);
    RESET(), rp[4] = 5;
    check_case(ctx, rp, ci, "CSR rowptr[m] = 5, nnz = 6", 0);
    RESET(), ci[4] = 5, ci[5] = -1; /* rows 2 and 3: the first is named */
    check_case(ctx, rp, ci, "CSR column index 5 out of range 0..4 (row 2, entry 4)", 0);
    RESET(), ci[5] = 7;
    check_case(ctx, rp, ci, "CSR column index 7 out of range 0..4 (row 3, entry 5)", 0);
    RESET(), ci[3] = 1; /* row 2 repeats column 1 */
    check_case(ctx, rp, ci, NULL, 2);
    RESET(), ci[0] = 3, ci[1] = 0, ci[2] = 2, ci[3] = 1; /* rows 0 and 2 out of order: 0 named */
    check_case(ctx, rp, ci, NULL, 0);
#undef RESET
}

/* Host arrays handed to wrap with a device present; an upload of a bad host CSR. */
static void test_refusals_with_device(spx_ctx *ctx)
{
    spx_csr *A = test_matrix(ctx);
    if (!A) return;
    dev_arrays d;
    if (dev_arrays_make(ctx, ROWPTR, COLIND, &d)) {
        const wrap_args host_col = {M, N, NNZ, SPX_INDEX_INT64, d.rowptr, A->colind, SPX_FP64, d.val};
        expect_refused(ctx, host_col, SPX_ERR_ARG, "device CSR: colind is host memory");
        const wrap_args misaligned = {M, N, NNZ, SPX_INDEX_INT64, (char *)d.rowptr + 4, d.colind, SPX_FP64, d.val};
        expect_refused(ctx, misaligned, SPX_ERR_ARG, "is not aligned to its 8-byte type");
    }
    dev_arrays_free(ctx, &d);
    A->colind[2] = 9;
    spx_csr_dev *D = NULL;
    spx_mem_stats before, after;
    spx_ctx_mem_stats(ctx, &before);
    CHECK(spx_csr_dev_upload(ctx, A, SPX_INDEX_INT32, SPX_FP32, &D) == SPX_ERR_ARG && !D);
    CHECK_MSG(strstr(spx_ctx_last_error(ctx), "CSR column index 9 out of range 0..4 (row 2") != NULL, "%s",
              spx_ctx_last_error(ctx));
    spx_ctx_mem_stats(ctx, &after);
    CHECK(after.device_bytes == before.device_bytes);
    spx_csr_destroy(&A);
}

int main(void)
{
    spx_ctx *ctx = NULL;
    CHECK_OK(ctx, spx_ctx_create(&ctx, NULL));
    test_arguments(ctx);
    test_copies_arguments(ctx);
    spx_backend b;
    if (spx_cuda_compiled() && spx_ctx_resolve_backend(ctx, SPX_BACKEND_CUDA, &b) == SPX_OK) {
        test_round_trips(ctx);
        test_bad_device_arrays(ctx);
        test_refusals_with_device(ctx);
    } else {
        printf("no CUDA build or device: the device cases skipped\n");
    }
    spx_ctx_destroy(&ctx);
    return check_report();
}
