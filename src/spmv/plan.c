/* src/spmv/plan.c: the SpMV plan lifecycle: resolve backend, format and algorithm; build the
 * layout on the host (and upload it) or on the device; run on host or device arrays; report
 * what ran and what it cost. */
#include <stdio.h>
#include <string.h>

#include "cuda/gateway.h"
#include "matrix/csr_dev.h"
#include "matrix/features.h"
#include "select/select.h"
#include "spmv/format.h"
#include "spmv/plan_internal.h"

/* The format named in opts (the selection's when "auto"), checked against the backend, the
 * algorithm and what this build has. */
static spx_status resolve_format(spx_ctx *ctx, const spx_plan_opts *o, spx_backend b, const spx_format **out)
{
    const char *name = o->format;
    const spx_format *fmt = spx_format_find(name);
    const char *why = NULL;
    if (!fmt) return spx_fail(ctx, SPX_ERR_ARG, "unknown format '%s' (see `spx formats`)", name);
    switch (spx_format_fits(fmt, o->algo, b, &why)) {
    case SPX_FORMAT_RUNS: *out = fmt; return SPX_OK;
    case SPX_FORMAT_NO_ALGO:
        return spx_fail(ctx, SPX_ERR_ARG, "format '%s' has no algorithm '%s' (see `spx formats`)", name, o->algo);
    case SPX_FORMAT_NOT_BUILT: return spx_fail(ctx, SPX_ERR_UNSUPPORTED, "format '%s' is not built: %s", name, why);
    case SPX_FORMAT_NO_CPU: return spx_fail(ctx, SPX_ERR_UNSUPPORTED, "format '%s' has no CPU path", name);
    default: return spx_fail(ctx, SPX_ERR_UNSUPPORTED, "format '%s' has no CUDA path", name);
    }
}

/* Whether a CUDA plan of format fmt builds algo on the device under option b. */
static int builds_on_device(spx_build_site b, const spx_format *fmt, const char *algo)
{
    return b != SPX_BUILD_HOST && spx_format_builds_on_device(fmt, algo);
}

/* Whether the CUDA plan builds on the device, per the option and what the format offers. */
static spx_status choose_site(spx_plan *p, const spx_plan_opts *o, int *on_device)
{
    const int can = spx_format_builds_on_device(p->fmt, o->algo);
    if (o->build == SPX_BUILD_DEVICE && !can && p->cuda->layout.build)
        return spx_fail(p->ctx, SPX_ERR_UNSUPPORTED, "format '%s' cannot build algorithm '%s' on the device",
                        p->fmt->layout.name, o->algo && strcmp(o->algo, "auto") ? o->algo : p->fmt->layout.algos[0]);
    if (o->build == SPX_BUILD_DEVICE && !can)
        return spx_fail(p->ctx, SPX_ERR_UNSUPPORTED, "format '%s' cannot build its layout on the device",
                        p->fmt->layout.name);
    if (o->build == SPX_BUILD_HOST && !p->cuda->layout.upload)
        return spx_fail(p->ctx, SPX_ERR_UNSUPPORTED, "format '%s' builds only on the device", p->fmt->layout.name);
    *on_device = builds_on_device(o->build, p->fmt, o->algo);
    return SPX_OK;
}

/* Lets the format build its GPU state from A on the device: from *D as uploaded for the
 * features, else A uploaded into *D now (the format may take its arrays). */
static spx_status build_on_device(spx_plan *p, const spx_csr *A, const spx_features *feat, const spx_plan_opts *o,
                                  spx_dev_csr *D)
{
    spx_status s = SPX_OK;
    if (!D->rowptr) {
        double t0 = spx_now();
        s = spx_cuda_dev_csr_upload(p->ctx, A, p->precision, D);
        spx_phase_add(&p->log, "upload", spx_now() - t0);
    }
    return s ? s : p->cuda->layout.build(p->ctx, D, feat, o, &p->log, &p->dev);
}

/* Builds the layout where it belongs: host (then uploaded for CUDA plans) or device; *D is the
 * CSR already on the device (rowptr NULL: none), freed before a host build (a lower device
 * peak); spx_plan_create frees what is left of it. */
static spx_status plan_build(spx_plan *p, const spx_csr *A, const spx_features *feat, const spx_plan_opts *o,
                             spx_dev_csr *D)
{
    int on_device = 0;
    spx_status s = SPX_OK;
    if (p->backend == SPX_BACKEND_CUDA && ((s = spx_cuda_init(p->ctx)) || (s = choose_site(p, o, &on_device))))
        return s;
    if (on_device) return build_on_device(p, A, feat, o, D);
    spx_cuda_dev_csr_free(p->ctx, D); /* the host builds its own layout */
    s = p->fmt->layout.build(p->ctx, A, feat, o, &p->log, &p->impl);
    if (!s && p->backend == SPX_BACKEND_CUDA) s = p->cuda->layout.upload(p->ctx, p->impl, &p->log, &p->dev);
    return s;
}

/* The renumbering of a plan made in SPX_ORDER_PLAN, from its host layout or, built on the
 * device, from its GPU state; NULL when it keeps the caller's order. */
static const int32_t *plan_permutation(const spx_plan *p)
{
    if (p->impl) return p->fmt->layout.permutation ? p->fmt->layout.permutation(p->impl) : NULL;
    return p->dev && p->cuda && p->cuda->layout.permutation ? p->cuda->layout.permutation(p->dev) : NULL;
}

/* Whether opts ask for the format `auto` (or name none). */
static int format_is_auto(const spx_plan_opts *o) { return !o->format || !strcmp(o->format, "auto"); }

/* The checks spx_plan_create and spx_plan_select share: precision and expected_spmvs. */
static spx_status check_opts(spx_ctx *ctx, const spx_plan_opts *o)
{
    if (o->precision != SPX_FP64 && o->precision != SPX_FP32) return spx_fail(ctx, SPX_ERR_ARG, "unknown precision");
    if (o->expected_spmvs < 0) return spx_fail(ctx, SPX_ERR_ARG, "expected_spmvs must be >= 0 (0: the default)");
    return SPX_OK;
}

/* Whether a CUDA plan computes the features on the device: when its layout will (likely) be
 * built there from the uploaded CSR, so the upload serves both (format auto: the tables pick
 * device-built formats at 100 and 10000 SpMVs). */
static int features_on_device(const spx_plan_opts *o)
{
    if (format_is_auto(o)) return o->build != SPX_BUILD_HOST;
    const spx_format *fmt = spx_format_find(o->format);
    return fmt && builds_on_device(o->build, fmt, o->algo);
}

/* A's features computed on the host for backend b: as the device computes them for CUDA
 * (columns sampled), so a CUDA plan's selection does not depend on where they were taken. */
static spx_status host_features(spx_ctx *ctx, const spx_csr *A, spx_backend b, spx_features *feat)
{
    const int t = spx_ctx_threads(ctx);
    return b == SPX_BACKEND_CUDA ? spx_features_compute_sampled_threads(A, t, feat)
                                 : spx_features_compute_threads(A, t, feat);
}

/* A's features for a plan on backend b, timed into *tf (and the upload into *tu when they are
 * computed on the device from *D, which is then left uploaded for the build). */
static spx_status plan_features(spx_ctx *ctx, const spx_csr *A, const spx_plan_opts *o, spx_backend b,
                                spx_features *feat, spx_dev_csr *D, double *tu, double *tf)
{
    spx_status s;
    if (b == SPX_BACKEND_CUDA && features_on_device(o)) {
        double t0 = spx_now();
        if ((s = spx_cuda_init(ctx)) || (s = spx_cuda_dev_csr_upload(ctx, A, o->precision, D))) return s;
        *tu = spx_now() - t0;
        t0 = spx_now();
        s = spx_cuda_features(ctx, D, feat);
        *tf = spx_now() - t0;
        return s; /* *D freed by the caller */
    }
    double t0 = spx_now();
    s = host_features(ctx, A, b, feat);
    *tf = spx_now() - t0;
    return s;
}

/* A plan's last step: its numbering (order SPX_ORDER_PLAN), device bytes (beside dev_before)
 * and time since t0, handed out in *out; destroyed when s is an error. Returns s. */
static spx_status hand_out(spx_plan *p, spx_status s, spx_vector_order order, size_t dev_before, double t0,
                           spx_plan **out)
{
    if (!s && order == SPX_ORDER_PLAN) p->perm = plan_permutation(p);
    if (s) {
        spx_plan_destroy(&p);
        return s;
    }
    spx_mem_stats after;
    spx_ctx_mem_stats(p->ctx, &after);
    p->device_bytes = after.device_bytes - dev_before;
    p->plan_seconds = spx_now() - t0;
    *out = p;
    return SPX_OK;
}

spx_status spx_plan_create(spx_ctx *ctx, const spx_csr *A, const spx_plan_opts *opts, spx_plan **out)
{
    if (!ctx || !A || !out) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_plan_create: NULL argument") : SPX_ERR_ARG;
    double t0 = spx_now();
    spx_plan_opts o = {0};
    if (opts) o = *opts;
    spx_status s = check_opts(ctx, &o);
    if (s) return s;
    if (o.build < SPX_BUILD_AUTO || o.build > SPX_BUILD_DEVICE) return spx_fail(ctx, SPX_ERR_ARG, "unknown build site");
    if (o.order != SPX_ORDER_CALLER && o.order != SPX_ORDER_PLAN)
        return spx_fail(ctx, SPX_ERR_ARG, "unknown vector order %d", (int)o.order);
    double tc = spx_now();
    if ((s = spx_csr_check(ctx, A))) return s;
    tc = spx_now() - tc;
    spx_backend b = SPX_BACKEND_CPU;
    const spx_format *fmt = NULL;
    spx_features feat;
    spx_dev_csr D;
    memset(&D, 0, sizeof D);
    double tu = -1, tf = 0;
    spx_mem_stats before;
    spx_ctx_mem_stats(ctx, &before); /* the device CSR of the features may become the layout's */
    if ((s = spx_ctx_resolve_backend(ctx, o.backend, &b))) return s;
    if ((s = plan_features(ctx, A, &o, b, &feat, &D, &tu, &tf))) {
        spx_cuda_dev_csr_free(ctx, &D);
        return s;
    }
    spx_selection sel;
    if (format_is_auto(&o)) { /* the table, at SPX_SELECT_DEFAULT_SPMVS when no count is given */
        spx_select_choose(&feat, b, o.precision, o.expected_spmvs, &sel);
        o.format = sel.format;
        if (!o.algo || !strcmp(o.algo, "auto")) o.algo = sel.algo;
    }
    spx_plan *p = NULL;
    if ((s = resolve_format(ctx, &o, b, &fmt)) || !(p = spx_malloc(ctx, sizeof *p))) {
        spx_cuda_dev_csr_free(ctx, &D);
        return s ? s : spx_fail_nomem(ctx, "plan");
    }
    memset(p, 0, sizeof *p);
    p->ctx = ctx;
    p->fmt = fmt;
    p->cuda = b == SPX_BACKEND_CUDA ? spx_format_cuda_of(fmt) : NULL;
    p->backend = b;
    p->precision = o.precision;
    p->m = A->m;
    p->n = A->n;
    spx_phase_add(&p->log, "check", tc);
    if (tu >= 0) spx_phase_add(&p->log, "upload", tu);
    spx_phase_add(&p->log, "features", tf);
    s = plan_build(p, A, &feat, &o, &D);
    double t1 = spx_now(); /* "finish": the device CSR the build did not take freed, the device caught up */
    spx_cuda_dev_csr_free(ctx, &D);
    if (!s && b == SPX_BACKEND_CUDA) s = spx_cuda_sync(ctx);
    spx_phase_add(&p->log, "finish", spx_now() - t1);
    return hand_out(p, s, o.order, before.device_bytes, t0, out);
}

spx_status spx_plan_select(spx_ctx *ctx, const spx_csr *A, const spx_plan_opts *opts, spx_selection *out)
{
    if (!ctx || !A || !opts || !out) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_plan_select: NULL argument") : SPX_ERR_ARG;
    spx_status s = check_opts(ctx, opts);
    if (s) return s;
    spx_features feat;
    spx_backend b = opts->backend;
    s = spx_csr_check(ctx, A);
    if (!s && b == SPX_BACKEND_AUTO) s = spx_ctx_resolve_backend(ctx, b, &b);
    if (!s) s = host_features(ctx, A, b, &feat);
    if (s) return s;
    spx_select_choose(&feat, b, opts->precision, opts->expected_spmvs, out);
    return SPX_OK;
}

/* ---- plans from a device CSR (spx_plan_create_dev) ---- */

/* Puts phase `name` first in log (the last one dropped when it is full). */
static void phase_first(spx_phase_log *log, const char *name, double seconds)
{
    const int keep = log->n < SPX_MAX_PHASES ? log->n : SPX_MAX_PHASES - 1;
    memmove(log->phases + 1, log->phases, (size_t)keep * sizeof *log->phases);
    log->phases[0] = (spx_phase_time){name, seconds};
    log->n = keep + 1;
}

/* A plan of the device CSR A made from a host copy (a CPU plan): A downloaded (phase
 * "download", first), then spx_plan_create. */
static spx_status create_from_host_copy(spx_ctx *ctx, const spx_csr_dev *A, const spx_plan_opts *o, spx_plan **out)
{
    spx_csr *H = NULL;
    const double t0 = spx_now();
    spx_status s = spx_csr_dev_download(A, &H);
    const double td = spx_now() - t0;
    if (!s) s = spx_plan_create(ctx, H, o, out);
    spx_csr_destroy(&H);
    if (s) return s;
    phase_first(&(*out)->log, "download", td);
    (*out)->plan_seconds += td;
    return SPX_OK;
}

/* The format of a CUDA plan of A (whose features feat were taken on the device): the
 * selection's when "auto" (into *sel, which o then points into), checked against the build. */
static spx_status device_format(spx_ctx *ctx, const spx_features *feat, spx_plan_opts *o, spx_selection *sel,
                                const spx_format **fmt)
{
    if (format_is_auto(o)) {
        spx_select_choose(feat, SPX_BACKEND_CUDA, o->precision, o->expected_spmvs, sel);
        o->format = sel->format;
        if (!o->algo || !strcmp(o->algo, "auto")) o->algo = sel->algo;
    }
    return resolve_format(ctx, o, SPX_BACKEND_CUDA, fmt);
}

/* A new CUDA plan of format fmt for an m x n matrix, its first phases logged. */
static spx_status new_cuda_plan(spx_ctx *ctx, const spx_format *fmt, const spx_plan_opts *o, int32_t m, int32_t n,
                                spx_plan **out)
{
    spx_plan *p = spx_malloc(ctx, sizeof *p);
    if (!p) return spx_fail_nomem(ctx, "plan");
    memset(p, 0, sizeof *p);
    p->ctx = ctx;
    p->fmt = fmt;
    p->cuda = spx_format_cuda_of(fmt);
    p->backend = SPX_BACKEND_CUDA;
    p->precision = o->precision;
    p->m = m;
    p->n = n;
    *out = p;
    return SPX_OK;
}

/* Builds p's layout from the device copy *D (freed by the build or here), or, when the format
 * builds on the host, from A downloaded (phase "download"); then waits for the device (phase
 * "finish"). */
static spx_status build_from_device(spx_plan *p, const spx_csr_dev *A, const spx_features *feat,
                                    const spx_plan_opts *o, spx_dev_csr *D)
{
    spx_csr *H = NULL;
    int on_device = 0;
    spx_status s = choose_site(p, o, &on_device);
    if (!s && !on_device) {
        const double t0 = spx_now();
        s = spx_csr_dev_download(A, &H);
        spx_phase_add(&p->log, "download", spx_now() - t0);
    }
    if (!s) s = plan_build(p, H, feat, o, D);
    const double t1 = spx_now();
    spx_cuda_dev_csr_free(p->ctx, D);
    if (!s) s = spx_cuda_sync(p->ctx);
    spx_phase_add(&p->log, "finish", spx_now() - t1);
    spx_csr_destroy(&H);
    return s;
}

/* A CUDA plan of the device CSR A: A copied on the device as device builds take it (phase
 * "copy"), its features taken there, the format chosen, the layout built. */
static spx_status create_on_device(spx_ctx *ctx, const spx_csr_dev *A, spx_plan_opts *o, spx_plan **out)
{
    const double t0 = spx_now();
    spx_dev_csr D;
    memset(&D, 0, sizeof D);
    spx_features feat;
    spx_selection sel;
    const spx_format *fmt = NULL;
    spx_plan *p = NULL;
    spx_mem_stats before;
    spx_ctx_mem_stats(ctx, &before);
    spx_status s = spx_cuda_init(ctx);
    if (!s) s = spx_cuda_dev_csr_copy(ctx, A, o->precision, &D);
    const double tc = spx_now() - t0, t1 = spx_now();
    if (!s) s = spx_cuda_features(ctx, &D, &feat);
    const double tf = spx_now() - t1;
    if (!s) s = device_format(ctx, &feat, o, &sel, &fmt);
    if (!s) s = new_cuda_plan(ctx, fmt, o, A->m, A->n, &p);
    if (!p) {
        spx_cuda_dev_csr_free(ctx, &D);
        return s;
    }
    spx_phase_add(&p->log, "copy", tc);
    spx_phase_add(&p->log, "features", tf);
    s = build_from_device(p, A, &feat, o, &D);
    return hand_out(p, s, o->order, before.device_bytes, t0, out);
}

spx_status spx_plan_create_dev(spx_ctx *ctx, const spx_csr_dev *A, const spx_plan_opts *opts, spx_plan **out)
{
    if (!ctx || !A || !out) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_plan_create_dev: NULL argument") : SPX_ERR_ARG;
    spx_plan_opts o = {0};
    if (opts) o = *opts;
    spx_backend b = SPX_BACKEND_CPU;
    spx_status s = check_opts(ctx, &o);
    if (!s && (o.build < SPX_BUILD_AUTO || o.build > SPX_BUILD_DEVICE)) s = spx_fail(ctx, SPX_ERR_ARG, "unknown build site");
    if (!s && o.order != SPX_ORDER_CALLER && o.order != SPX_ORDER_PLAN)
        s = spx_fail(ctx, SPX_ERR_ARG, "unknown vector order %d", (int)o.order);
    if (!s && A->ctx != ctx) s = spx_fail(ctx, SPX_ERR_ARG, "spx_plan_create_dev: A belongs to another context");
    if (!s) s = spx_csr_dev_check_header(ctx, A);
    if (!s) s = spx_ctx_resolve_backend(ctx, o.backend, &b);
    if (s) return s;
    return b == SPX_BACKEND_CUDA ? create_on_device(ctx, A, &o, out) : create_from_host_copy(ctx, A, &o, out);
}

spx_status spx_plan_staging(spx_plan *p)
{
    if (p->dx || p->dy) return SPX_OK;
    size_t vb = spx_precision_bytes(p->precision);
    spx_status s = spx_cuda_malloc(p->ctx, &p->dx, (size_t)p->n * vb);
    if (!s) s = spx_cuda_malloc(p->ctx, &p->dy, (size_t)p->m * vb);
    if (s) {
        spx_cuda_free(p->ctx, p->dx);
        spx_cuda_free(p->ctx, p->dy);
        p->dx = p->dy = NULL;
        return s;
    }
    p->device_bytes += (size_t)(p->n + p->m) * vb;
    return SPX_OK;
}

/* Runs one SpMV of a CUDA plan on host arrays through the staging vectors. */
static spx_status spmv_cuda_host(spx_plan *p, const spx_spmv_args *host)
{
    size_t vb = spx_precision_bytes(p->precision);
    spx_status s = spx_plan_staging(p);
    if (s) return s;
    spx_spmv_args d = *host;
    d.x = p->dx;
    d.y = p->dy;
    s = spx_cuda_h2d(p->ctx, p->dx, host->x, (size_t)p->n * vb);
    if (!s && host->beta != 0.0) s = spx_cuda_h2d(p->ctx, p->dy, host->y, (size_t)p->m * vb);
    if (!s) s = p->cuda->ops.spmv(p->ctx, p->dev, &d);
    if (!s) s = spx_cuda_d2h(p->ctx, host->y, p->dy, (size_t)p->m * vb);
    return s;
}

spx_status spx_plan_enter(spx_plan *p)
{
    if (__atomic_exchange_n(&p->busy, 1, __ATOMIC_ACQUIRE))
        return spx_fail(p->ctx, SPX_ERR_ARG,
                        "plan is running another call: a CUDA plan takes one call at a time (make a plan "
                        "per thread or stream)");
    spx_status s = spx_cuda_init(p->ctx);
    if (s) __atomic_store_n(&p->busy, 0, __ATOMIC_RELEASE);
    return s;
}

void spx_plan_leave(spx_plan *p) { __atomic_store_n(&p->busy, 0, __ATOMIC_RELEASE); }

/* Checks the arguments of an SpMV call; then runs it on the plan's backend. */
static spx_status plan_run(spx_plan *p, spx_precision prec, const spx_spmv_args *a)
{
    if (!p) return SPX_ERR_ARG;
    if (prec != p->precision)
        return spx_fail(p->ctx, SPX_ERR_ARG, "plan precision is %s: call spx_plan_spmv%s",
                        spx_precision_str(p->precision), p->precision == SPX_FP32 ? "_f32" : "");
    if ((p->n && !a->x) || (p->m && !a->y)) return spx_fail(p->ctx, SPX_ERR_ARG, "spmv: NULL vector");
    if (a->x && a->x == (const void *)a->y) return spx_fail(p->ctx, SPX_ERR_ARG, "spmv: x and y must not alias");
    if (p->backend != SPX_BACKEND_CUDA) return p->fmt->cpu.spmv(p->ctx, p->impl, a);
    spx_status s = spx_plan_enter(p);
    if (s) return s;
    s = spmv_cuda_host(p, a);
    spx_plan_leave(p);
    return s;
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
    spx_status s = spx_plan_enter(p);
    if (s) return s;
    s = p->cuda->ops.spmv(p->ctx, p->dev, &args);
    spx_plan_leave(p);
    return s;
}

/* The kernel that runs: the GPU state's or the CPU loop's name. */
static const char *kernel_of(const spx_plan *p)
{
    if (p->backend == SPX_BACKEND_CUDA) return p->cuda->ops.spmv_kernel ? p->cuda->ops.spmv_kernel(p->dev) : "?";
    return p->fmt->cpu.spmv_kernel ? p->fmt->cpu.spmv_kernel(p->impl) : "?";
}

spx_status spx_plan_permutation(const spx_plan *p, const int32_t **perm)
{
    if (!p) return SPX_ERR_ARG;
    if (!perm) return spx_fail(p->ctx, SPX_ERR_ARG, "spx_plan_permutation: NULL argument");
    *perm = p->perm;
    return SPX_OK;
}

spx_status spx_plan_get_info(const spx_plan *p, spx_plan_info *info)
{
    if (!p || !info) return SPX_ERR_ARG;
    memset(info, 0, sizeof *info);
    const int on_device = p->impl == NULL;
    snprintf(info->format, sizeof info->format, "%s", p->fmt->layout.name);
    const char *algo = on_device ? (p->cuda->layout.algo_name ? p->cuda->layout.algo_name(p->dev) : "default")
                                 : (p->fmt->layout.algo_name ? p->fmt->layout.algo_name(p->impl) : "default");
    snprintf(info->algo, sizeof info->algo, "%s", algo);
    snprintf(info->kernel, sizeof info->kernel, "%s", kernel_of(p));
    info->m = p->m;
    info->n = p->n;
    info->backend = p->backend;
    info->precision = p->precision;
    info->bytes_per_spmv = on_device ? (p->cuda->layout.bytes_per_spmv ? p->cuda->layout.bytes_per_spmv(p->dev) : 0.0)
                                     : (p->fmt->layout.bytes_per_spmv ? p->fmt->layout.bytes_per_spmv(p->impl) : 0.0);
    info->plan_seconds = p->plan_seconds;
    info->built_on_device = on_device;
    info->plan_order = p->perm != NULL;
    info->device_bytes = p->device_bytes;
    info->n_phases = p->log.n;
    memcpy(info->phases, p->log.phases, sizeof info->phases);
    spx_stat_list l = {0, info->stats};
    if (p->backend == SPX_BACKEND_CUDA && p->cuda->layout.stats)
        p->cuda->layout.stats(p->dev, &l);
    else if (p->impl && p->fmt->layout.stats)
        p->fmt->layout.stats(p->impl, &l);
    info->n_stats = l.n;
    return SPX_OK;
}

spx_status spx_plan_to_csr(const spx_plan *p, spx_csr **out)
{
    if (!p || !out) return SPX_ERR_ARG;
    if (p->backend == SPX_BACKEND_CUDA && p->cuda->layout.to_csr) return p->cuda->layout.to_csr(p->ctx, p->dev, out);
    if (!p->impl || !p->fmt->layout.to_csr)
        return spx_fail(p->ctx, SPX_ERR_UNSUPPORTED, "format '%s' has no to_csr", p->fmt->layout.name);
    return p->fmt->layout.to_csr(p->ctx, p->impl, out);
}

void spx_plan_destroy(spx_plan **pp)
{
    if (!pp || !*pp) return;
    spx_plan *p = *pp;
    if (p->dev && p->cuda && p->cuda->layout.free) p->cuda->layout.free(p->ctx, p->dev);
    spx_cuda_free(p->ctx, p->dx);
    spx_cuda_free(p->ctx, p->dy);
    if (p->impl && p->fmt->layout.destroy) p->fmt->layout.destroy(p->ctx, p->impl);
    spx_free(p->ctx, p);
    *pp = NULL;
}
