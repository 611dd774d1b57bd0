/* src/core/plan.c: plan lifecycle: resolve backend, format and algorithm; build; upload;
 * run on host or device arrays; report what ran and what it cost. */
#include <stdio.h>
#include <string.h>

#include "core/format.h"
#include "cuda/gateway.h"
#include "select/select.h"

struct spx_plan {
    spx_ctx *ctx;
    const spx_format_ops *ops;
    void *impl;          /* the format's host layout */
    void *dev;           /* the format's GPU state (CUDA plans) */
    spx_backend backend; /* CPU or CUDA */
    spx_precision precision;
    int32_t m, n;
    void *dx, *dy;       /* device staging for the host-array entry points */
    spx_phase_log log;
    double plan_seconds;
};

/* The backend a plan runs on: CPU or CUDA, or an error if CUDA was asked for and cannot run. */
static spx_status resolve_backend(spx_ctx *ctx, spx_backend asked, spx_backend *out)
{
    spx_backend b = asked != SPX_BACKEND_AUTO ? asked : ctx->backend;
    if (b == SPX_BACKEND_AUTO) b = spx_ctx_resolved_backend(ctx);
    if (b == SPX_BACKEND_CUDA) {
        if (!spx_cuda_built())
            return spx_fail(ctx, SPX_ERR_NOT_COMPILED,
                            "backend cuda requested, but this build has no CUDA backend");
        if (spx_cuda_device_count() < 1)
            return spx_fail(ctx, SPX_ERR_NO_DEVICE, "backend cuda requested, but no CUDA device is present");
    }
    *out = b;
    return SPX_OK;
}

/* The format named in opts (or selected), checked against the backend and algorithm. */
static spx_status resolve_format(spx_ctx *ctx, const spx_csr *A, const spx_plan_opts *o, spx_backend b,
                                 const spx_format_ops **out)
{
    const char *name = o->format && strcmp(o->format, "auto") ? o->format : spx_select_format(A, b);
    const spx_format_ops *ops = spx_format_find(name);
    if (!ops) return spx_fail(ctx, SPX_ERR_ARG, "unknown format '%s' (see `spx formats`)", name);
    if (o->algo && strcmp(o->algo, "auto") && !spx_format_has_algo(ops, o->algo))
        return spx_fail(ctx, SPX_ERR_ARG, "format '%s' has no algorithm '%s' (see `spx formats`)", name, o->algo);
    if (b == SPX_BACKEND_CPU && !ops->spmv_cpu)
        return spx_fail(ctx, SPX_ERR_UNSUPPORTED, "format '%s' has no CPU path", name);
    if (b == SPX_BACKEND_CUDA && !ops->spmv_cuda)
        return spx_fail(ctx, SPX_ERR_UNSUPPORTED, "format '%s' has no CUDA path", name);
    *out = ops;
    return SPX_OK;
}

/* Uploads the layout and allocates the staging vectors of a CUDA plan. */
static spx_status plan_upload(spx_plan *p)
{
    spx_status s = spx_cuda_init(p->ctx);
    if (s) return s;
    s = p->ops->upload(p->ctx, p->impl, &p->log, &p->dev);
    if (s) return s;
    size_t vb = p->precision == SPX_FP32 ? sizeof(float) : sizeof(double);
    s = spx_cuda_malloc(p->ctx, &p->dx, (size_t)p->n * vb);
    if (!s) s = spx_cuda_malloc(p->ctx, &p->dy, (size_t)p->m * vb);
    return s;
}

spx_status spx_plan_create(spx_ctx *ctx, const spx_csr *A, const spx_plan_opts *opts, spx_plan **out)
{
    if (!ctx || !A || !out) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_plan_create: NULL argument") : SPX_ERR_ARG;
    double t0 = spx_now();
    spx_plan_opts o = {0};
    if (opts) o = *opts;
    if (o.precision != SPX_FP64 && o.precision != SPX_FP32) return spx_fail(ctx, SPX_ERR_ARG, "unknown precision");
    spx_status s = spx_csr_check(ctx, A);
    if (s) return s;
    spx_backend b = SPX_BACKEND_CPU;
    const spx_format_ops *ops = NULL;
    if ((s = resolve_backend(ctx, o.backend, &b))) return s;
    if ((s = resolve_format(ctx, A, &o, b, &ops))) return s;
    spx_plan *p = spx_malloc(ctx, sizeof *p);
    if (!p) return spx_fail_nomem(ctx, "plan");
    memset(p, 0, sizeof *p);
    p->ctx = ctx;
    p->ops = ops;
    p->backend = b;
    p->precision = o.precision;
    p->m = A->m;
    p->n = A->n;
    s = ops->build(ctx, A, &o, &p->log, &p->impl);
    if (!s && b == SPX_BACKEND_CUDA) s = plan_upload(p);
    if (!s && b == SPX_BACKEND_CUDA) s = spx_cuda_sync(ctx);
    if (s) {
        spx_plan_destroy(&p);
        return s;
    }
    p->plan_seconds = spx_now() - t0;
    *out = p;
    return SPX_OK;
}

/* Runs one SpMV of a CUDA plan on host arrays through the staging vectors. */
static spx_status spmv_cuda_host(spx_plan *p, const spx_spmv_args *host)
{
    size_t vb = p->precision == SPX_FP32 ? sizeof(float) : sizeof(double);
    spx_spmv_args d = *host;
    d.x = p->dx;
    d.y = p->dy;
    spx_status s = spx_cuda_h2d(p->ctx, p->dx, host->x, (size_t)p->n * vb);
    if (!s && host->beta != 0.0) s = spx_cuda_h2d(p->ctx, p->dy, host->y, (size_t)p->m * vb);
    if (!s) s = p->ops->spmv_cuda(p->ctx, p->dev, &d);
    if (!s) s = spx_cuda_d2h(p->ctx, host->y, p->dy, (size_t)p->m * vb);
    return s;
}

/* Checks the arguments of an SpMV call; then runs it on the plan's backend. */
static spx_status plan_run(spx_plan *p, spx_precision prec, const spx_spmv_args *a)
{
    if (!p) return SPX_ERR_ARG;
    if (prec != p->precision)
        return spx_fail(p->ctx, SPX_ERR_ARG, "plan precision is %s: call spx_plan_spmv%s",
                        p->precision == SPX_FP32 ? "fp32" : "fp64", p->precision == SPX_FP32 ? "_f32" : "");
    if ((p->n && !a->x) || (p->m && !a->y)) return spx_fail(p->ctx, SPX_ERR_ARG, "spmv: NULL vector");
    if (a->x && a->x == (const void *)a->y) return spx_fail(p->ctx, SPX_ERR_ARG, "spmv: x and y must not alias");
    if (p->backend == SPX_BACKEND_CUDA) return spmv_cuda_host(p, a);
    return p->ops->spmv_cpu(p->ctx, p->impl, a);
}

spx_status spx_plan_spmv(spx_plan *p, double a, const double *x, double b, double *y)
{
    spx_spmv_args args = {SPX_FP64, a, b, x, y};
    return plan_run(p, SPX_FP64, &args);
}

spx_status spx_plan_spmv_f32(spx_plan *p, float a, const float *x, float b, float *y)
{
    spx_spmv_args args = {SPX_FP32, a, b, x, y};
    return plan_run(p, SPX_FP32, &args);
}

spx_status spx_plan_spmv_device(spx_plan *p, double a, const void *x, double b, void *y)
{
    if (!p) return SPX_ERR_ARG;
    if (p->backend != SPX_BACKEND_CUDA)
        return spx_fail(p->ctx, SPX_ERR_ARG, "spx_plan_spmv_device needs a CUDA plan");
    if (x && x == (const void *)y) return spx_fail(p->ctx, SPX_ERR_ARG, "spmv: x and y must not alias");
    spx_spmv_args args = {p->precision, a, b, x, y};
    return p->ops->spmv_cuda(p->ctx, p->dev, &args);
}

spx_status spx_plan_get_info(const spx_plan *p, spx_plan_info *info)
{
    if (!p || !info) return SPX_ERR_ARG;
    memset(info, 0, sizeof *info);
    snprintf(info->format, sizeof info->format, "%s", p->ops->name);
    snprintf(info->algo, sizeof info->algo, "%s", p->ops->algo_name ? p->ops->algo_name(p->impl) : "default");
    snprintf(info->kernel, sizeof info->kernel, "%s",
             p->ops->kernel_name ? p->ops->kernel_name(p->impl, p->dev, p->backend) : "?");
    info->backend = p->backend;
    info->precision = p->precision;
    info->bytes_per_spmv = p->ops->bytes_per_spmv ? p->ops->bytes_per_spmv(p->impl) : 0.0;
    info->plan_seconds = p->plan_seconds;
    info->n_phases = p->log.n;
    memcpy(info->phases, p->log.phases, sizeof info->phases);
    return SPX_OK;
}

spx_status spx_plan_to_csr(const spx_plan *p, spx_csr **out)
{
    if (!p || !out) return SPX_ERR_ARG;
    if (!p->ops->to_csr) return spx_fail(p->ctx, SPX_ERR_UNSUPPORTED, "format '%s' has no to_csr", p->ops->name);
    return p->ops->to_csr(p->ctx, p->impl, out);
}

void spx_plan_destroy(spx_plan **pp)
{
    if (!pp || !*pp) return;
    spx_plan *p = *pp;
    if (p->dev && p->ops->free_dev) p->ops->free_dev(p->ctx, p->dev);
    spx_cuda_free(p->ctx, p->dx);
    spx_cuda_free(p->ctx, p->dy);
    if (p->impl && p->ops->destroy) p->ops->destroy(p->ctx, p->impl);
    spx_free(p->ctx, p);
    *pp = NULL;
}
