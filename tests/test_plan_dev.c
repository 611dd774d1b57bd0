/* tests/test_plan_dev.c: SpMV plans from a device CSR (spx_plan_create_dev). On any machine: the
 * argument checks and their messages, and a build without CUDA or a device answering
 * SPX_ERR_NOT_COMPILED or SPX_ERR_NO_DEVICE where the CPU plan downloads A. With a device: every
 * CUDA format, fp64 and fp32, int32 and int64 row pointers: the layout's round trip equals A,
 * SpMV matches the reference, formats that build on the device take A on the device (phase
 * "copy", no "download") and the others a host copy (phase "download"); a CPU plan from a device
 * CSR (its first phase "download"); A freed after the plan is made. */
#include <string.h>

#include "format_check.h"

/* A header-only device CSR of ctx (never read by the checks below). */
static spx_csr_dev fake_dev(spx_ctx *ctx)
{
    static int64_t rowptr_dummy;
    static int32_t colind_dummy;
    static double val_dummy;
    spx_csr_dev D = {.m = 4, .n = 4, .nnz = 2, .rowptr_type = SPX_INDEX_INT64, .rowptr = &rowptr_dummy,
                     .colind = &colind_dummy, .val = &val_dummy, .precision = SPX_FP64, .unsorted_row = -1,
                     .ctx = ctx};
    return D;
}

/* A plan_create_dev that must fail with want and `part` in the message, *out untouched. */
static void expect_refused(spx_ctx *ctx, const spx_csr_dev *A, const spx_plan_opts *o, spx_status want,
                           const char *part)
{
    spx_plan *sentinel = (spx_plan *)&part, *p = sentinel;
    spx_status s = spx_plan_create_dev(ctx, A, o, &p);
    CHECK_MSG(s == want, "wanted %s, got %s: %s", spx_status_str(want), spx_status_str(s), spx_ctx_last_error(ctx));
    CHECK_MSG(strstr(spx_ctx_last_error(ctx), part) != NULL, "'%s' not in '%s'", part, spx_ctx_last_error(ctx));
    CHECK(p == sentinel);
}

static void test_arguments(spx_ctx *ctx, int device)
{
    spx_ctx *other = NULL;
    CHECK_OK(ctx, spx_ctx_create(&other, NULL));
    spx_csr_dev A = fake_dev(ctx), X = A;
    spx_plan *p = NULL;
    CHECK(spx_plan_create_dev(NULL, &A, NULL, &p) == SPX_ERR_ARG && !p);
    CHECK(spx_plan_create_dev(ctx, NULL, NULL, &p) == SPX_ERR_ARG && !p);
    CHECK(strstr(spx_ctx_last_error(ctx), "spx_plan_create_dev: NULL argument") != NULL);
    X.ctx = other;
    expect_refused(ctx, &X, NULL, SPX_ERR_ARG, "A belongs to another context");
    X = A, X.rowptr_type = SPX_INDEX_DEFAULT;
    expect_refused(ctx, &X, NULL, SPX_ERR_ARG, "rowptr_type must be SPX_INDEX_INT32 or SPX_INDEX_INT64");
    spx_plan_opts o = {.precision = (spx_precision)5};
    expect_refused(ctx, &A, &o, SPX_ERR_ARG, "unknown precision");
    o = (spx_plan_opts){.build = (spx_build_site)9};
    expect_refused(ctx, &A, &o, SPX_ERR_ARG, "unknown build site");
    o = (spx_plan_opts){.order = (spx_vector_order)4};
    expect_refused(ctx, &A, &o, SPX_ERR_ARG, "unknown vector order 4");
    o = (spx_plan_opts){.expected_spmvs = -1};
    expect_refused(ctx, &A, &o, SPX_ERR_ARG, "expected_spmvs must be >= 0");
    if (!device) { /* a CPU plan downloads A: where this build stops */
        o = (spx_plan_opts){.backend = SPX_BACKEND_CPU, .format = "csr"};
        expect_refused(ctx, &A, &o, spx_cuda_compiled() ? SPX_ERR_NO_DEVICE : SPX_ERR_NOT_COMPILED,
                       spx_cuda_compiled() ? "no CUDA device" : "not compiled");
    }
    spx_ctx_destroy(&other);
}

/* Whether the plan's info has a phase of that name. */
static int has_phase(const spx_plan *p, const char *name)
{
    spx_plan_info pi;
    if (spx_plan_get_info(p, &pi)) return 0;
    for (int i = 0; i < pi.n_phases; i++)
        if (!strcmp(pi.phases[i].name, name)) return 1;
    return 0;
}

/* The name of phase i of p's info ("" when there is none). */
static const char *phase_name(const spx_plan *p, int i)
{
    static spx_plan_info pi;
    return !spx_plan_get_info(p, &pi) && i < pi.n_phases ? pi.phases[i].name : "";
}

/* One plan of format (default algorithm) from a device copy of A (row pointers rt, values in
 * prec, A's device copy freed once the plan is made), checked against A. */
static void check_format(spx_ctx *ctx, const spx_csr *A, const spx_format_desc *d, spx_backend backend,
                         spx_index_type rt, spx_precision prec, const char *what)
{
    char label[256];
    snprintf(label, sizeof label, "%s [%s %s %s int%d]", what, d->name, spx_backend_str(backend),
             spx_precision_str(prec), rt == SPX_INDEX_INT32 ? 32 : 64);
    spx_csr_dev *D = NULL;
    spx_plan *p = NULL;
    spx_plan_opts o = {.format = d->name, .backend = backend, .precision = prec};
    CHECK_OK(ctx, spx_csr_dev_upload(ctx, A, rt, SPX_FP64, &D));
    spx_status s = D ? spx_plan_create_dev(ctx, D, &o, &p) : SPX_ERR_ARG;
    spx_csr_dev_destroy(&D); /* the plan keeps nothing of it */
    CHECK_MSG(s == SPX_OK, "%s: %s", label, spx_ctx_last_error(ctx));
    if (s) return;
    const int on_device = backend == SPX_BACKEND_CUDA && d->builds_on_device && !d->device_algos;
    if (backend == SPX_BACKEND_CPU) CHECK_MSG(!strcmp(phase_name(p, 0), "download"), "%s: first phase", label);
    else if (on_device) CHECK_MSG(has_phase(p, "copy") && !has_phase(p, "download"), "%s: phases", label);
    else if (!d->builds_on_device) CHECK_MSG(has_phase(p, "download"), "%s: no download", label);
    fc_round_trip(ctx, p, A, prec, label);
    const int64_t m = A->m, n = A->n;
    double *x = malloc(sizeof(double) * (size_t)(n + 1)), *y = malloc(sizeof(double) * (size_t)(m + 1));
    for (int64_t j = 0; j < n; j++) x[j] = (double)(float)(0.5 - 0.125 * (double)(j % 9));
    for (int64_t i = 0; i < m; i++) y[i] = (double)(float)(0.25 * (double)(i % 7) - 0.5);
    spx_csr *Ar = NULL;
    if (prec == SPX_FP32 && spx_csr_copy(ctx, A, &Ar) == SPX_OK)
        for (int64_t k = 0; k < A->nnz; k++) Ar->val[k] = (float)Ar->val[k];
    fc_spmv_check(ctx, p, Ar ? Ar : A, NULL, prec, -1.5, x, 0.5, y, fc_tolerance(A, prec), label);
    spx_csr_destroy(&Ar);
    free(x);
    free(y);
    spx_plan_destroy(&p);
}

static void test_formats(spx_ctx *ctx)
{
    static const char *specs[] = {"gen:poisson2d:n=20", "gen:powerlaw:m=2000,k=6"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        spx_csr *A = NULL;
        if (spx_gen(ctx, specs[i], &A)) continue;
        for (int f = 0; f < spx_format_count(); f++) {
            spx_format_desc d;
            if (spx_format_describe(f, &d) || !d.available || !d.has_cuda) continue;
            for (int rt = SPX_INDEX_INT32; rt <= SPX_INDEX_INT64; rt++)
                for (int p = 0; p < 2; p++)
                    check_format(ctx, A, &d, SPX_BACKEND_CUDA, (spx_index_type)rt, p ? SPX_FP32 : SPX_FP64, specs[i]);
        }
        spx_format_desc csr;
        for (int f = 0; f < spx_format_count(); f++)
            if (!spx_format_describe(f, &csr) && !strcmp(csr.name, "csr"))
                check_format(ctx, A, &csr, SPX_BACKEND_CPU, SPX_INDEX_INT32, SPX_FP64, specs[i]);
        spx_csr_destroy(&A);
    }
}

int main(void)
{
    spx_ctx *ctx = NULL;
    CHECK_OK(ctx, spx_ctx_create(&ctx, NULL));
    spx_backend b;
    const int device = spx_cuda_compiled() && spx_ctx_resolve_backend(ctx, SPX_BACKEND_CUDA, &b) == SPX_OK;
    test_arguments(ctx, device);
    if (device) test_formats(ctx);
    else printf("no CUDA build or device: the device cases skipped\n");
    spx_ctx_destroy(&ctx);
    return check_report();
}
