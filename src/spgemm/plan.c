/* src/spgemm/plan.c: the SpGEMM plan lifecycle: check the options and shapes, resolve backend,
 * method and algorithm, take the operands where the method computes (host CSRs checked on the
 * host, or uploaded and checked on the device; device CSRs read in place, or downloaded once
 * for what runs on the host), make B^T when asked, analyse and run the symbolic phase (C sized
 * exactly), in-core or in panels (src/spgemm/ooc/) when asked or when the in-core product does
 * not fit the device budget; then numeric runs into a new or reused C on the host or the
 * device, new values without re-analysis, and the report of what it cost (phases, products,
 * memory held and at peak). */
#include <stdio.h>
#include <string.h>

#include "core/host_copy.h"
#include "cuda/gateway.h"
#include "matrix/csr_dev.h"
#include "spgemm/ooc/ooc.h"
#include "spgemm/ooc/ooc_tuning.h"
#include "spgemm/ooc/panels.h"
#include "spgemm/operands.h"
#include "spgemm/spgemm_internal.h"

struct spx_spgemm_plan {
    spx_ctx *ctx;
    const spx_spgemm_impl *impl;
    void *state;  /* the implementation's (in-core) */
    spx_ooc *ooc; /* the out-of-core panels, or NULL: in-core */
    spx_spgemm_panels panels;
    double gpu_share;
    size_t pin_min_bytes; /* opts': 0 none */
    int gpu_counts_rows;
    int b_col_blocks;     /* opts': B's column blocks in panels (0: as needed) */
    size_t dev_limit;  /* opts.device_mem_limit: every call's device allocations stay within it */
    size_t dev_budget; /* the device budget the plan sized itself to (SPX_BUDGET_NONE: none) */
    int budget_sized;  /* dev_budget is sized (size_budget); 0: it waits for the in-core try */
    spx_backend backend;
    spx_precision precision;
    int transpose_b;
    spx_index_type c_rowptr; /* spx_spgemm_run_dev's C */
    spx_spgemm_operands_at ops; /* where the operands are (operands.h) */
    spx_spgemm_input in;
    char method[32], algo[32];
    int32_t m, k, n;
    int64_t nnz_a, nnz_b;
    int64_t products, nnz_c;
    spx_phase_log plan_log, run_log;
    double plan_seconds, run_seconds;
    long runs;
    size_t host_bytes, device_bytes;
    size_t host_peak, device_peak; /* above what the context held when a call began */
};

/* The context's memory at the start of a call; its peak is restarted from there so the
 * call's own peak can be read at the end (then the context's peak is put back). */
typedef struct mem_window {
    size_t host0, dev0, host_peak0, dev_peak0;
} mem_window;

static void window_open(spx_ctx *ctx, mem_window *w)
{
    w->host0 = __atomic_load_n(&ctx->host.bytes, __ATOMIC_RELAXED);
    w->dev0 = __atomic_load_n(&ctx->dev.bytes, __ATOMIC_RELAXED);
    w->host_peak0 = __atomic_exchange_n(&ctx->host.peak, w->host0, __ATOMIC_RELAXED);
    w->dev_peak0 = __atomic_exchange_n(&ctx->dev.peak, w->dev0, __ATOMIC_RELAXED);
}

/* Folds the call's peaks into *host_peak and *dev_peak (the plan's, or NULL) and restores the
 * context's lifetime peaks. */
static void window_close(spx_ctx *ctx, const mem_window *w, size_t *host_peak, size_t *dev_peak)
{
    size_t hp = __atomic_load_n(&ctx->host.peak, __ATOMIC_RELAXED);
    size_t dp = __atomic_load_n(&ctx->dev.peak, __ATOMIC_RELAXED);
    if (host_peak && hp - w->host0 > *host_peak) *host_peak = hp - w->host0;
    if (dev_peak && dp - w->dev0 > *dev_peak) *dev_peak = dp - w->dev0;
    __atomic_store_n(&ctx->host.peak, hp > w->host_peak0 ? hp : w->host_peak0, __ATOMIC_RELAXED);
    __atomic_store_n(&ctx->dev.peak, dp > w->dev_peak0 ? dp : w->dev_peak0, __ATOMIC_RELAXED);
}

/* The context's device budget lowered, for one call, to `limit` bytes (0: none) above what
 * the context holds beside the plan (plan_held: the plan's own device bytes). */
typedef struct limit_window {
    size_t budget0;
    int set;
} limit_window;

static void limit_open(spx_ctx *ctx, size_t limit, size_t plan_held, limit_window *w)
{
    w->set = limit > 0;
    w->budget0 = ctx->dev.budget;
    if (!w->set) return;
    const size_t held = ctx->dev.bytes, base = held > plan_held ? held - plan_held : 0;
    const size_t cap = base > SIZE_MAX - limit ? SIZE_MAX : base + limit;
    if (cap < ctx->dev.budget) ctx->dev.budget = cap;
}

static void limit_close(spx_ctx *ctx, const limit_window *w)
{
    if (w->set) ctx->dev.budget = w->budget0;
}

/* The default method of a backend. */
static const char *default_method(spx_backend b) { return b == SPX_BACKEND_CUDA ? "spx" : "gustavson"; }

/* Resolves the method (its backend first, so `--method cusparse` needs no `--backend`), the
 * backend it runs on and its algorithm into p. */
static spx_status resolve_method(spx_spgemm_plan *p, const spx_spgemm_opts *o)
{
    spx_ctx *ctx = p->ctx;
    const int named = o->method && strcmp(o->method, "auto");
    spx_backend asked = o->backend, b = SPX_BACKEND_CPU;
    int idx = named ? spx_spgemm_impl_find(o->method) : -1;
    if (named && idx < 0) return spx_fail(ctx, SPX_ERR_ARG, "spgemm: unknown method '%s' (see `spx spgemm --help`)", o->method);
    spx_spgemm_method_desc d;
    if (named) spx_spgemm_method_describe(idx, &d);
    if (named && asked == SPX_BACKEND_AUTO) asked = d.backend;
    spx_status s = spx_ctx_resolve_backend(ctx, asked, &b);
    if (s) return s;
    if (!named) idx = spx_spgemm_impl_find(default_method(b));
    const spx_spgemm_impl *impl = spx_spgemm_impl_at(idx);
    const char *name = spx_spgemm_impl_name(idx);
    if (!impl)
        return spx_fail(ctx, SPX_ERR_NOT_COMPILED, "spgemm: method '%s' is not built: the CUDA backend is not compiled",
                        name);
    if (impl->backend != b)
        return spx_fail(ctx, SPX_ERR_ARG, "spgemm: method '%s' runs on %s, not on the %s backend", name,
                        spx_backend_str(impl->backend), spx_backend_str(b));
    const char *algo = o->algo && strcmp(o->algo, "auto") ? o->algo : (impl->algos ? impl->algos[0] : NULL);
    if (algo && !spx_spgemm_impl_has_algo(impl, algo))
        return spx_fail(ctx, SPX_ERR_ARG, "spgemm: method '%s' has no algorithm '%s'", name, algo);
    p->impl = impl;
    p->backend = b;
    snprintf(p->method, sizeof p->method, "%s", name);
    snprintf(p->algo, sizeof p->algo, "%s", algo ? algo : "default");
    p->in.algo = algo;
    return SPX_OK;
}

/* The method panels run: spx on the GPU's side, gustavson on the CPU-only path; any other
 * named method is SPX_ERR_ARG. */
static spx_status panel_method(spx_ctx *ctx, spx_spgemm_opts *o)
{
    const char *want = o->panels == SPX_PANELS_CPU ? "gustavson" : "spx";
    if (o->panels < SPX_PANELS_HETERO) return SPX_OK;
    if (o->method && strcmp(o->method, "auto") && strcmp(o->method, want))
        return spx_fail(ctx, SPX_ERR_ARG, "spgemm: %s panels run method '%s', not '%s'",
                        o->panels == SPX_PANELS_CPU ? "CPU" : "GPU and hetero", want, o->method);
    o->method = want;
    if (o->panels == SPX_PANELS_CPU) o->backend = SPX_BACKEND_CPU;
    return SPX_OK;
}

/* Checks the options (the operands aside). */
static spx_status check_opts(spx_ctx *ctx, const spx_spgemm_opts *o)
{
    if (o->precision != SPX_FP64 && o->precision != SPX_FP32) return spx_fail(ctx, SPX_ERR_ARG, "spgemm: unknown precision");
    if (o->transpose_b != 0 && o->transpose_b != 1) return spx_fail(ctx, SPX_ERR_ARG, "spgemm: transpose_b must be 0 or 1");
    if (o->panels < SPX_PANELS_AUTO || o->panels > SPX_PANELS_CPU) return spx_fail(ctx, SPX_ERR_ARG, "spgemm: unknown panels mode");
    if (!(o->gpu_share >= 0 && o->gpu_share <= 1))
        return spx_fail(ctx, SPX_ERR_ARG, "spgemm: gpu_share must be in (0, 1], or 0 (measured)");
    if (o->b_col_blocks < 0)
        return spx_fail(ctx, SPX_ERR_ARG, "spgemm: b_col_blocks must be 0 (as needed), 1 (B resident) or more, not %d",
                        o->b_col_blocks);
    if (o->c_rowptr_type != SPX_INDEX_DEFAULT && o->c_rowptr_type != SPX_INDEX_INT32 && o->c_rowptr_type != SPX_INDEX_INT64)
        return spx_fail(ctx, SPX_ERR_ARG, "spgemm: c_rowptr_type must be SPX_INDEX_DEFAULT, _INT32 or _INT64, not %d",
                        (int)o->c_rowptr_type);
    return SPX_OK;
}

/* The shapes: A (am x an) times B (bm x bn), or B^T with transpose_b: A's columns must equal
 * B's rows (B^T's). */
static spx_status check_shapes(spx_ctx *ctx, int32_t am, int32_t an, int32_t bm, int32_t bn, int tb)
{
    const int32_t inner = tb ? bn : bm;
    if (an == inner) return SPX_OK;
    return spx_fail(ctx, SPX_ERR_ARG,
                    "spgemm: inner dimensions differ: A is %d x %d, B%s is %d x %d (A's columns must equal B%s's rows)",
                    am, an, tb ? "^T" : "", tb ? bn : bm, tb ? bm : bn, tb ? "^T" : "");
}

/* A host operand's header (its contents are checked where the method reads it). */
static spx_status check_header(spx_ctx *ctx, const spx_csr *M, const char *name)
{
    if (M->m < 0 || M->n < 0 || M->nnz < 0) return spx_fail(ctx, SPX_ERR_ARG, "spgemm: %s: invalid CSR header", name);
    if (!M->rowptr || (M->nnz > 0 && (!M->colind || !M->val)))
        return spx_fail(ctx, SPX_ERR_ARG, "spgemm: %s: CSR arrays missing", name);
    return SPX_OK;
}

/* A device operand: of the plan's context, a sound header, sorted rows (found when wrapped). */
static spx_status check_dev_operand(spx_ctx *ctx, const spx_csr_dev *M, const char *name)
{
    if (M->ctx != ctx) return spx_fail(ctx, SPX_ERR_ARG, "spgemm: %s belongs to another context than the plan's", name);
    spx_status s = spx_csr_dev_check_header(ctx, M);
    if (s) return s;
    if (M->unsorted_row >= 0)
        return spx_fail(ctx, SPX_ERR_ARG, "spgemm: %s row %d has unsorted or repeated columns (spx builds them sorted)",
                        name, M->unsorted_row);
    return SPX_OK;
}

/* The device budget the plan sizes itself to: what the context's budget leaves (lowered to
 * the option by the call's limit window), else the option, else (CUDA) the device's free
 * memory less SPX_OOC_FREE_RESERVE; SPX_BUDGET_NONE on the CPU without either. */
static spx_status sizing_budget(spx_spgemm_plan *p, size_t *out)
{
    spx_ctx *ctx = p->ctx;
    *out = SPX_BUDGET_NONE;
    if (ctx->dev.budget != SPX_BUDGET_NONE) *out = spx_device_budget_room(ctx); /* the limit's window included */
    else if (p->dev_limit) *out = p->dev_limit;
    else if (p->backend == SPX_BACKEND_CUDA) {
        size_t free_b = 0, total_b = 0;
        spx_status s = spx_cuda_mem_info(ctx, &free_b, &total_b);
        if (s) return s;
        *out = (size_t)((double)free_b * (1.0 - SPX_OOC_FREE_RESERVE));
    }
    return SPX_OK;
}

/* p->dev_budget by sizing_budget; its time is the plan's phase "budget" (CUDA). */
static spx_status size_budget(spx_spgemm_plan *p)
{
    const double t0 = spx_now();
    spx_status s = sizing_budget(p, &p->dev_budget);
    if (p->backend == SPX_BACKEND_CUDA) spx_phase_add(&p->plan_log, "budget", spx_now() - t0);
    p->budget_sized = !s;
    return s;
}

/* Whether the budget waits for the in-core try (in_core_fits): device operands (they need no
 * budget to be tried) on the auto path of spx, with neither a device budget nor a limit, so that
 * only the device's free memory would bound it: the pool is asked first, and a call whose pool
 * is warm asks the device nothing (cudaMemGetInfo, ~8 us on an H100). */
static int budget_waits(const spx_spgemm_plan *p, int on_gpu)
{
    return on_gpu && p->ops.dA && p->panels == SPX_PANELS_AUTO && !strcmp(p->method, "spx") &&
           p->ctx->dev.budget == SPX_BUDGET_NONE && !p->dev_limit;
}

/* Whether C, with the numeric phase's scratch, fits beside what the in-core try holds (held0:
 * the context's device bytes before it): within the budget; while the budget waits, when the
 * context's pool serves those bytes now with SPX_OOC_FREE_RESERVE's share of margin (they stay
 * cached for the run), else within the budget sized then (*s: its failure). */
static int in_core_fits(spx_spgemm_plan *p, size_t held0, spx_status *s)
{
    const size_t more = spx_ooc_c_bytes(p->nnz_c, p->precision) + SPX_OOC_DEV_FIXED_BYTES;
    if (!p->budget_sized) {
        if (spx_cuda_pool_room(p->ctx, (size_t)((double)more / (1.0 - SPX_OOC_FREE_RESERVE)))) return 1;
        if ((*s = size_budget(p))) return 0;
    }
    return p->ctx->dev.bytes - held0 + more <= p->dev_budget;
}

/* Whether A and B alone (C not counted, nor the fallback's accumulators) fit the device budget
 * beside the in-core product's workspace; when not, its in-core try is left out. Device
 * operands are in device memory already: they may fit. */
static int may_fit(const spx_spgemm_plan *p)
{
    const spx_csr *A = p->ops.A, *B = spx_spgemm_host_b(&p->ops);
    return p->ops.dA || spx_ooc_incore_bytes(A, B, 0, 0, p->precision) <= p->dev_budget;
}

/* Auto on CUDA: the operands staged, the in-core analysis and symbolic phase within the budget
 * (into a log of their own); *fits when they succeed and C, with the numeric phase's scratch,
 * fits beside what they hold. Otherwise their state and the staged operands are dropped (a
 * device allocation the budget refused is no error here) and their time is the plan's
 * "in-core try" phase. */
static spx_status try_in_core(spx_spgemm_plan *p, int *fits)
{
    spx_ctx *ctx = p->ctx;
    const size_t held0 = ctx->dev.bytes;
    const double t0 = spx_now();
    spx_phase_log log;
    memset(&log, 0, sizeof log);
    spx_status s = spx_spgemm_stage(ctx, &p->ops, &p->in, &log);
    if (!s) s = p->impl->analyse(ctx, &p->in, &log, &p->state, &p->products);
    if (!s) s = p->impl->symbolic(ctx, p->state, &log, &p->nnz_c);
    *fits = !s && in_core_fits(p, held0, &s);
    if (*fits) {
        for (int i = 0; i < log.n; i++) spx_phase_add(&p->plan_log, log.phases[i].name, log.phases[i].seconds);
        return SPX_OK;
    }
    if (p->state) p->impl->destroy(ctx, p->state);
    p->state = NULL;
    spx_spgemm_unstage(ctx, &p->ops, &p->in);
    spx_phase_add(&p->plan_log, "in-core try", spx_now() - t0);
    return s == SPX_ERR_DEVICE_ALLOC ? SPX_OK : s;
}

/* A CUDA plan's panels run their GPU side on lanes with contexts of their own: what this
 * context's memory pool caches (the in-core try's blocks, earlier calls') goes back to the
 * device for them (the budget, from spx_cuda_mem_info, counted it as free already). */
static void give_back_pool(const spx_spgemm_plan *p)
{
    if (p->backend == SPX_BACKEND_CUDA) spx_cuda_pool_drop(p->ctx);
}

/* The out-of-core panels of the product, from the operands on the host (downloaded, checked). */
static spx_status plan_panels(spx_spgemm_plan *p)
{
    give_back_pool(p);
    spx_status s = spx_spgemm_download(p->ctx, &p->ops, 0, &p->plan_log);
    if (!s) s = spx_spgemm_check_host(p->ctx, &p->ops);
    if (s) return s;
    p->in.A = p->ops.A;
    p->in.B = spx_spgemm_host_b(&p->ops);
    const spx_spgemm_panels split = p->panels == SPX_PANELS_AUTO ? SPX_PANELS_HETERO : p->panels;
    const spx_ooc_opts oo = {split, p->dev_budget, p->gpu_share, p->backend == SPX_BACKEND_CUDA ? p->impl : NULL,
                             p->pin_min_bytes ? p->pin_min_bytes : SIZE_MAX, !p->gpu_counts_rows, p->b_col_blocks};
    return spx_ooc_create(p->ctx, &p->in, &oo, &p->plan_log, &p->ooc, &p->products, &p->nnz_c);
}

/* The in-core product: analysis and symbolic phase of the implementation (the operands staged
 * on the device first for a GPU one). */
static spx_status plan_in_core(spx_spgemm_plan *p, int on_gpu)
{
    spx_status s = on_gpu ? spx_spgemm_stage(p->ctx, &p->ops, &p->in, &p->plan_log) : SPX_OK;
    if (!s) s = p->impl->analyse(p->ctx, &p->in, &p->plan_log, &p->state, &p->products);
    return s ? s : p->impl->symbolic(p->ctx, p->state, &p->plan_log, &p->nnz_c);
}

/* The operands where the path needs them on the host (all of them for the CPU and the panels,
 * B for its transpose: device operands downloaded, host ones checked there), B^T when asked. */
static spx_status host_side(spx_spgemm_plan *p, int on_gpu)
{
    spx_spgemm_operands_at *o = &p->ops;
    spx_status s = on_gpu ? SPX_OK : spx_spgemm_download(p->ctx, o, 0, &p->plan_log);
    if (!s && o->transpose_b) s = spx_spgemm_download(p->ctx, o, 1, &p->plan_log);
    if (!s && (!on_gpu || o->transpose_b)) s = spx_spgemm_check_host(p->ctx, o); /* before B^T reads B */
    if (!s) s = spx_spgemm_make_bt(p->ctx, o, &p->plan_log);
    p->in.A = o->A;
    p->in.B = spx_spgemm_host_b(o);
    p->in.precision = p->precision;
    return s;
}

/* The operands where the method reads them, then the analysis and symbolic phase: in-core on
 * the GPU (the operands' contents checked on the device as they are uploaded, or when they were
 * wrapped), in panels (asked, or on CUDA with spx when the in-core product does not fit the
 * budget), or on the CPU (checked on the host). */
static spx_status plan_build(spx_spgemm_plan *p)
{
    const int cuda = p->backend == SPX_BACKEND_CUDA;
    const int on_gpu = cuda && p->impl->numeric_dev && p->panels < SPX_PANELS_HETERO;
    spx_status s = cuda ? spx_cuda_init(p->ctx) : SPX_OK;
    if (!s) s = host_side(p, on_gpu);
    p->dev_budget = SPX_BUDGET_NONE;
    if (!s && !budget_waits(p, on_gpu)) s = size_budget(p);
    if (s) return s;
    if (p->panels >= SPX_PANELS_HETERO) return plan_panels(p);
    if (!on_gpu || p->panels != SPX_PANELS_AUTO || strcmp(p->method, "spx")) return plan_in_core(p, on_gpu);
    int fits = 0;
    if (may_fit(p) && ((s = try_in_core(p, &fits)) || fits)) return s;
    if (!p->budget_sized && (s = size_budget(p))) return s; /* the panels are sized to it */
    return plan_panels(p);
}

/* A new plan of the (checked) options o, operands not set yet; NULL when out of memory. */
static spx_spgemm_plan *plan_new(spx_ctx *ctx, const spx_spgemm_opts *o)
{
    spx_spgemm_plan *p = spx_malloc(ctx, sizeof *p);
    if (!p) return NULL;
    memset(p, 0, sizeof *p);
    p->ctx = ctx;
    p->precision = p->ops.precision = o->precision;
    p->transpose_b = p->ops.transpose_b = o->transpose_b;
    p->panels = o->panels;
    p->gpu_share = o->gpu_share;
    p->pin_min_bytes = o->pin_min_bytes;
    p->gpu_counts_rows = o->gpu_counts_rows;
    p->b_col_blocks = o->b_col_blocks;
    p->dev_limit = o->device_mem_limit;
    return p;
}

/* The shapes of A (am x an, nnz_a) and B (bm x bn, nnz_b) of either kind. */
typedef struct operand_shapes {
    int32_t am, an, bm, bn;
    int64_t nnz_a, nnz_b;
} operand_shapes;

/* Both entry points after their operands' own checks: the options and shapes checked, the
 * plan made within the call's memory windows and device limit, destroyed on failure. */
static spx_status plan_create(spx_ctx *ctx, const spx_spgemm_opts *opts, const operand_shapes *sh,
                              const spx_spgemm_operands_at *ops, spx_spgemm_plan **out)
{
    const double t0 = spx_now();
    spx_spgemm_opts o = {0};
    if (opts) o = *opts;
    spx_status s = check_opts(ctx, &o);
    if (!s) s = panel_method(ctx, &o);
    if (!s) s = check_shapes(ctx, sh->am, sh->an, sh->bm, sh->bn, o.transpose_b);
    if (s) return s;
    mem_window w;
    limit_window lw;
    window_open(ctx, &w);
    limit_open(ctx, o.device_mem_limit, 0, &lw);
    spx_spgemm_plan *p = plan_new(ctx, &o);
    if (!p) {
        limit_close(ctx, &lw);
        window_close(ctx, &w, NULL, NULL);
        return spx_fail_nomem(ctx, "spgemm plan");
    }
    p->ops.A = ops->A, p->ops.B = ops->B, p->ops.dA = ops->dA, p->ops.dB = ops->dB;
    p->m = sh->am, p->k = sh->an, p->n = o.transpose_b ? sh->bm : sh->bn;
    p->nnz_a = sh->nnz_a, p->nnz_b = sh->nnz_b;
    p->c_rowptr = o.c_rowptr_type ? o.c_rowptr_type : ops->dA ? ops->dA->rowptr_type : SPX_INDEX_INT64;
    s = resolve_method(p, &o);
    if (!s) s = plan_build(p);
    limit_close(ctx, &lw);
    window_close(ctx, &w, &p->host_peak, &p->device_peak);
    if (s) {
        spx_spgemm_plan_destroy(&p);
        return s;
    }
    p->host_bytes = ctx->host.bytes - w.host0;
    p->device_bytes = ctx->dev.bytes - w.dev0;
    p->plan_seconds = spx_now() - t0;
    *out = p;
    return SPX_OK;
}

spx_status spx_spgemm_plan_create(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, const spx_spgemm_opts *opts,
                                  spx_spgemm_plan **out)
{
    if (!ctx || !A || !B || !out)
        return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_spgemm_plan_create: NULL argument") : SPX_ERR_ARG;
    spx_status s = check_header(ctx, A, "A");
    if (!s && B != A) s = check_header(ctx, B, "B");
    if (s) return s;
    const operand_shapes sh = {A->m, A->n, B->m, B->n, A->nnz, B->nnz};
    const spx_spgemm_operands_at ops = {.A = A, .B = B};
    return plan_create(ctx, opts, &sh, &ops, out);
}

spx_status spx_spgemm_plan_create_dev(spx_ctx *ctx, const spx_csr_dev *A, const spx_csr_dev *B,
                                      const spx_spgemm_opts *opts, spx_spgemm_plan **out)
{
    if (!ctx || !A || !B || !out)
        return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_spgemm_plan_create_dev: NULL argument") : SPX_ERR_ARG;
    spx_status s = check_dev_operand(ctx, A, "A");
    if (!s && B != A) s = check_dev_operand(ctx, B, "B");
    if (s) return s;
    const operand_shapes sh = {A->m, A->n, B->m, B->n, A->nnz, B->nnz};
    const spx_spgemm_operands_at ops = {.dA = A, .dB = B};
    return plan_create(ctx, opts, &sh, &ops, out);
}

spx_status spx_spgemm_plan_update_values(spx_spgemm_plan *p)
{
    if (!p) return SPX_ERR_ARG;
    const double t0 = spx_now();
    spx_status s = SPX_OK;
    limit_window lw;
    limit_open(p->ctx, p->dev_limit, p->device_bytes, &lw);
    if (p->backend == SPX_BACKEND_CUDA || p->ops.dA) s = spx_cuda_init(p->ctx);
    if (!s) s = spx_spgemm_refresh(p->ctx, &p->ops);
    if (!s && p->ooc) s = spx_ooc_update_values(p->ctx, p->ooc, &p->in, &p->plan_log);
    else if (!s && p->impl->update_values) s = p->impl->update_values(p->ctx, p->state, &p->in, &p->plan_log);
    limit_close(p->ctx, &lw);
    spx_phase_add(&p->plan_log, "update_values", spx_now() - t0);
    return s;
}

/* A C to refill in place must be one this plan made: same shape and nonzero count. */
static spx_status check_reused(const spx_spgemm_plan *p, const spx_csr *C)
{
    if (C->m != p->m || C->n != p->n || C->nnz != p->nnz_c || !C->owns || C->ctx != p->ctx)
        return spx_fail(p->ctx, SPX_ERR_ARG,
                        "spgemm run: *C (%d x %d, %lld nonzeros) is not a result of this plan (%d x %d, %lld "
                        "nonzeros); pass NULL for a new one",
                        C->m, C->n, (long long)C->nnz, p->m, p->n, (long long)p->nnz_c);
    return SPX_OK;
}

/* A new C for the symbolic nnz, refused with a clear message when over the host budget. An
 * in-core GPU plan's C has its pages touched by all threads first: a download below the
 * gateway's staging threshold would otherwise fault them in one by one (host_copy.h). Panels
 * write their slices themselves: the CPU's by the threads that compute them, the GPU's
 * through the staging ring's threads, beside the other side's work (H200, R-MAT 18 in 512 MiB,
 * touching C's 5.9 GB first took ~0.3 s before any panel). */
static spx_status new_result(spx_spgemm_plan *p, spx_csr **C)
{
    const size_t bytes = ((size_t)p->m + 1) * sizeof(int64_t) + (size_t)p->nnz_c * (sizeof(int32_t) + sizeof(double));
    spx_status s = spx_host_budget_require(p->ctx, bytes, SPX_ERR_NOMEM, "spgemm: C (%d x %d, %lld nonzeros)", p->m,
                                           p->n, (long long)p->nnz_c);
    if (!s) s = spx_csr_alloc(p->ctx, p->m, p->n, p->nnz_c, C);
    if (!s && p->backend == SPX_BACKEND_CUDA && !p->ooc) {
        const int nt = spx_ctx_threads(p->ctx);
        spx_host_touch((*C)->rowptr, ((size_t)p->m + 1) * sizeof *(*C)->rowptr, nt);
        spx_host_touch((*C)->colind, (size_t)p->nnz_c * sizeof *(*C)->colind, nt);
        spx_host_touch((*C)->val, (size_t)p->nnz_c * sizeof *(*C)->val, nt);
    }
    return s;
}

/* The device bytes a run left held (a GPU method keeping C's arrays for the next run), or
 * gave back, counted as the plan's: the next call's device limit is then measured beside
 * them (limit_open), and info.device_bytes says what the plan holds. */
static void keep_run_bytes(spx_spgemm_plan *p, const mem_window *w)
{
    const size_t now = __atomic_load_n(&p->ctx->dev.bytes, __ATOMIC_RELAXED);
    if (now >= w->dev0) p->device_bytes += now - w->dev0;
    else p->device_bytes -= w->dev0 - now < p->device_bytes ? w->dev0 - now : p->device_bytes;
}

/* A run's bookkeeping: its start, its memory window and the plan's device limit. */
typedef struct run_window {
    double t0;
    mem_window w;
    limit_window lw;
} run_window;

static void run_begin(spx_spgemm_plan *p, run_window *r)
{
    r->t0 = spx_now();
    window_open(p->ctx, &r->w);
    limit_open(p->ctx, p->dev_limit, p->device_bytes, &r->lw);
}

/* Closes r: the peaks and the bytes the run left held are the plan's; a run that succeeded
 * (s SPX_OK) is counted and timed. */
static void run_end(spx_spgemm_plan *p, run_window *r, spx_status s)
{
    limit_close(p->ctx, &r->lw);
    window_close(p->ctx, &r->w, &p->host_peak, &p->device_peak);
    keep_run_bytes(p, &r->w);
    if (s) return;
    p->run_seconds = spx_now() - r->t0;
    p->runs++;
}

/* One run's numeric phase into the host CSR C (the run's log restarted). */
static spx_status numeric_host(spx_spgemm_plan *p, spx_csr *C)
{
    spx_status s = p->backend == SPX_BACKEND_CUDA ? spx_cuda_init(p->ctx) : SPX_OK;
    if (s) return s;
    memset(&p->run_log, 0, sizeof p->run_log);
    if (p->ooc) give_back_pool(p); /* calls in between may have filled it again */
    return p->ooc ? spx_ooc_run(p->ctx, p->ooc, &p->run_log, C) : p->impl->numeric(p->ctx, p->state, &p->run_log, C);
}

spx_status spx_spgemm_run(spx_spgemm_plan *p, spx_csr **Cp)
{
    if (!p || !Cp) return p ? spx_fail(p->ctx, SPX_ERR_ARG, "spx_spgemm_run: NULL argument") : SPX_ERR_ARG;
    spx_csr *C = *Cp;
    spx_status s = C ? check_reused(p, C) : SPX_OK;
    if (s) return s;
    run_window rw;
    run_begin(p, &rw);
    if (!C) s = new_result(p, &C);
    if (!s) s = numeric_host(p, C);
    run_end(p, &rw, s);
    if (s) {
        if (C != *Cp) spx_csr_destroy(&C);
        return s;
    }
    memset(&C->meta, 0, sizeof C->meta);
    *Cp = C;
    return SPX_OK;
}

/* A device C to refill in place must be one this plan's spx_spgemm_run_dev made. */
static spx_status check_reused_dev(const spx_spgemm_plan *p, const spx_csr_dev *C)
{
    if (C->m != p->m || C->n != p->n || C->nnz != p->nnz_c || !C->owns || C->ctx != p->ctx ||
        C->rowptr_type != p->c_rowptr || C->precision != p->precision)
        return spx_fail(p->ctx, SPX_ERR_ARG,
                        "spgemm run: *C (device, %d x %d, %lld nonzeros) is not a device result of this plan (%d x "
                        "%d, %lld nonzeros); pass NULL for a new one",
                        C->m, C->n, (long long)C->nnz, p->m, p->n, (long long)p->nnz_c);
    return SPX_OK;
}

/* A new device C for the symbolic nnz, from the context's pool on its stream (the numeric phase
 * that fills it follows there): the caller's, not the plan's (w's device base moves past it, so
 * the run's bytes left held count only what the plan keeps). */
static spx_status new_dev_result(spx_spgemm_plan *p, mem_window *w, spx_csr_dev **C)
{
    if (p->c_rowptr == SPX_INDEX_INT32 && p->nnz_c > INT32_MAX)
        return spx_fail(p->ctx, SPX_ERR_OVERFLOW,
                        "spgemm: C has %lld nonzeros, beyond int32 row pointers: ask for int64 ones "
                        "(spx_spgemm_opts.c_rowptr_type)",
                        (long long)p->nnz_c);
    spx_csr_dev D;
    const size_t before = p->ctx->dev.bytes;
    spx_status s = spx_cuda_csr_dev_alloc(p->ctx, p->m, p->n, p->nnz_c, p->c_rowptr, p->precision, 1, &D);
    const size_t held = p->ctx->dev.bytes - before;
    if (!s) s = spx_csr_dev_adopt(p->ctx, &D, C);
    if (!s) w->dev0 += held;
    return s;
}

/* One run's numeric phase into the device CSR C: where an in-core GPU plan computes it, else
 * on the host and uploaded (phase "upload C"). */
static spx_status numeric_dev(spx_spgemm_plan *p, spx_csr_dev *C)
{
    if (!p->ooc && p->state && p->impl->numeric_dev) {
        spx_status s = spx_cuda_init(p->ctx);
        memset(&p->run_log, 0, sizeof p->run_log);
        return s ? s : p->impl->numeric_dev(p->ctx, p->state, &p->run_log, C);
    }
    spx_csr *H = NULL;
    spx_status s = new_result(p, &H);
    if (!s) s = numeric_host(p, H);
    const double t0 = spx_now();
    if (!s) s = spx_cuda_csr_dev_fill(p->ctx, H, C, 0);
    spx_phase_add(&p->run_log, "upload C", spx_now() - t0);
    spx_csr_destroy(&H);
    return s;
}

spx_status spx_spgemm_run_dev(spx_spgemm_plan *p, spx_csr_dev **Cp)
{
    if (!p || !Cp) return p ? spx_fail(p->ctx, SPX_ERR_ARG, "spx_spgemm_run_dev: NULL argument") : SPX_ERR_ARG;
    spx_csr_dev *C = *Cp;
    spx_status s = C ? check_reused_dev(p, C) : SPX_OK;
    if (s) return s;
    run_window rw;
    run_begin(p, &rw);
    const double t0 = spx_now();
    if (!C) s = new_dev_result(p, &rw.w, &C);
    const double t_alloc = spx_now() - t0;
    if (!s) s = numeric_dev(p, C);
    if (!*Cp) spx_phase_add(&p->run_log, "alloc C", t_alloc); /* after numeric_dev restarted the log */
    run_end(p, &rw, s);
    if (s) {
        if (C != *Cp) spx_csr_dev_destroy(&C);
        return s;
    }
    *Cp = C;
    return SPX_OK;
}

spx_status spx_spgemm_dev(spx_ctx *ctx, const spx_csr_dev *A, const spx_csr_dev *B, const spx_spgemm_opts *opts,
                          spx_csr_dev **C, spx_spgemm_info *info)
{
    if (!ctx || !C) return ctx ? spx_fail(ctx, SPX_ERR_ARG, "spx_spgemm_dev: NULL argument") : SPX_ERR_ARG;
    if (*C) return spx_fail(ctx, SPX_ERR_ARG, "spx_spgemm_dev: *C must be NULL (a new C is made)");
    spx_spgemm_plan *p = NULL;
    spx_csr_dev *R = NULL;
    spx_status s = spx_spgemm_plan_create_dev(ctx, A, B, opts, &p);
    if (!s) s = spx_spgemm_run_dev(p, &R);
    if (!s && info) s = spx_spgemm_plan_get_info(p, info);
    const double t0 = spx_now();
    spx_spgemm_plan_destroy(&p);
    if (!s && info && info->n_phases < SPX_SPGEMM_MAX_PHASES) /* the plan's end is part of the call */
        info->phases[info->n_phases++] = (spx_phase_time){"destroy", spx_now() - t0};
    if (s) spx_csr_dev_destroy(&R);
    else *C = R;
    return s;
}

spx_status spx_spgemm_plan_get_info(const spx_spgemm_plan *p, spx_spgemm_info *info)
{
    if (!p || !info) return SPX_ERR_ARG;
    memset(info, 0, sizeof *info);
    snprintf(info->method, sizeof info->method, "%s", p->method);
    snprintf(info->algo, sizeof info->algo, "%s", p->algo);
    snprintf(info->kernel, sizeof info->kernel, "%s",
             p->ooc ? spx_ooc_kernel(p->ooc) : p->impl->kernel_name ? p->impl->kernel_name(p->state) : "?");
    info->backend = p->backend;
    info->precision = p->precision;
    info->transpose_b = p->transpose_b;
    info->m = p->m;
    info->k = p->k;
    info->n = p->n;
    info->nnz_a = p->nnz_a;
    info->nnz_b = p->nnz_b;
    info->inputs_on_device = p->ops.dA != NULL;
    info->nnz_c = p->nnz_c;
    info->products = p->products;
    info->compression = p->nnz_c ? (double)p->products / (double)p->nnz_c : 0.0;
    info->plan_seconds = p->plan_seconds;
    info->run_seconds = p->run_seconds;
    info->runs = p->runs;
    for (int i = 0; i < p->plan_log.n; i++) info->phases[info->n_phases++] = p->plan_log.phases[i];
    for (int i = 0; i < p->run_log.n; i++) info->phases[info->n_phases++] = p->run_log.phases[i];
    info->host_bytes = p->host_bytes;
    info->host_peak_bytes = p->host_peak;
    info->device_bytes = p->device_bytes;
    info->device_peak_bytes = p->device_peak;
    snprintf(info->panel_mode, sizeof info->panel_mode, "in-core");
    info->device_mem_limit = p->dev_budget;
    if (p->ooc) {
        spx_ooc_info(p->ooc, info);
        const size_t peak = spx_ooc_device_peak(p->ooc); /* the lanes' contexts: not in the window */
        if (peak > info->device_peak_bytes) info->device_peak_bytes = peak;
    }
    return SPX_OK;
}

int spx_spgemm_plan_timeline(const spx_spgemm_plan *p, spx_spgemm_panel_event *out, int cap)
{
    return p && p->ooc ? spx_ooc_timeline(p->ooc, out, cap) : 0;
}

void spx_spgemm_plan_destroy(spx_spgemm_plan **pp)
{
    if (!pp || !*pp) return;
    spx_spgemm_plan *p = *pp;
    if (p->state && p->impl && p->impl->destroy) p->impl->destroy(p->ctx, p->state);
    spx_ooc_destroy(p->ctx, p->ooc);
    spx_spgemm_operands_free(p->ctx, &p->ops, &p->in);
    spx_free(p->ctx, p);
    *pp = NULL;
}
