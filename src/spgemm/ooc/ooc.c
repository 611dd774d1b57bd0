/* src/spgemm/ooc/ooc.c: the out-of-core plan (ooc.h): the CPU's analysis and symbolic phase
 * (C's row pointers), the panels and their affinity order, B resident on the GPU (or its
 * column blocks on the host), K measured on a sample and the GPU's planned share; value
 * updates, the report and the timeline. */
#include <stdio.h>
#include <string.h>

#include "spgemm/ooc/ooc_internal.h"
#include "spgemm/ooc/ooc_tuning.h"
#include "spgemm/spgemm_internal.h"

/* The CPU's analysis and symbolic phase over all of A, and C's row pointers. */
static spx_status cpu_plan(spx_ctx *ctx, spx_ooc *o, const spx_spgemm_input *in, spx_phase_log *log,
                           int64_t *products, int64_t *nnz_c)
{
    spx_spgemm_input cin = *in;
    cin.dev_b = NULL;
    o->cpu_impl = spx_spgemm_gustavson();
    spx_status s = o->cpu_impl->analyse(ctx, &cin, log, &o->cpu_state, products);
    if (!s) s = o->cpu_impl->symbolic(ctx, o->cpu_state, log, nnz_c);
    if (s) return s;
    o->products = *products;
    o->crow = spx_malloc_array(ctx, (size_t)in->A->m + 1, sizeof *o->crow);
    if (!o->crow) return spx_fail_nomem(ctx, "spgemm panels: C's row pointers");
    o->cpu_impl->row_pointers(o->cpu_state, o->crow);
    return SPX_OK;
}

/* What the panel split reads of o. */
static spx_ooc_split_in split_in(const spx_ooc *o, int b_blocks)
{
    return (spx_ooc_split_in){o->A, o->B, o->crow, o->prod, o->precision, o->budget, SPX_OOC_GPU_LANES, b_blocks};
}

/* A's rows' products counted, the panels sized to the budget, their affinity order, the run's
 * event arrays. */
static spx_status make_panels(spx_ctx *ctx, spx_ooc *o, int b_blocks, spx_phase_log *log)
{
    const double t0 = spx_now();
    o->prod = spx_malloc_array(ctx, (size_t)o->A->m + 1, sizeof *o->prod);
    if (!o->prod) return spx_fail_nomem(ctx, "spgemm panels");
    spx_spgemm_row_products(o->A, o->B, o->prod, spx_ctx_threads(ctx));
    const spx_ooc_split_in si = split_in(o, b_blocks);
    spx_status s = spx_ooc_split(ctx, &si, &o->panel, &o->n_panels, &o->bcut);
    const size_t n = (size_t)o->n_panels + 1;
    if (!s) {
        o->order = spx_malloc_array(ctx, n, sizeof *o->order);
        o->done = spx_malloc_array(ctx, n, sizeof *o->done);
        o->event = spx_calloc_array(ctx, n, sizeof *o->event);
        o->work = spx_malloc_array(ctx, n, sizeof *o->work);
        s = o->order && o->done && o->event && o->work ? spx_ooc_order(ctx, o->panel, o->n_panels, o->order)
                                                       : spx_fail_nomem(ctx, "spgemm panels");
    }
    for (int i = 0; !s && i < o->n_panels; i++) {
        if (o->panel[i].row1 - o->panel[i].row0 > o->rows_max) o->rows_max = o->panel[i].row1 - o->panel[i].row0;
        o->work[i] = o->panel[i].products;
    }
    spx_phase_add(log, "split", spx_now() - t0);
    return s;
}

/* The sample for K: the first rows of the median-affinity panel up to SPX_OOC_SAMPLE_FRACTION
 * of its products (at least one row), as a panel. */
static spx_ooc_panel sample_panel(const spx_ooc *o)
{
    const spx_ooc_panel *pn = &o->panel[o->order[o->n_panels / 2]];
    const spx_csr *A = o->A;
    spx_ooc_panel sp = {pn->row0, pn->row0, 0, 0, 0, pn->affinity};
    const double want = SPX_OOC_SAMPLE_FRACTION * (double)pn->products;
    while (sp.row1 < pn->row1 && (sp.row1 == sp.row0 || (double)sp.products < want)) {
        const int32_t i = sp.row1++;
        sp.products += o->prod[i];
        sp.nnz_a += A->rowptr[i + 1] - A->rowptr[i];
    }
    sp.nnz_c = o->crow[sp.row1] - o->crow[sp.row0];
    return sp;
}

/* Times the sample on both sides into scratch: the GPU twice (the first warms it up), the CPU
 * once; K = CPU seconds / GPU seconds (0 when either took no time), and each side's seconds
 * per product. */
static spx_status time_sample(spx_ctx *ctx, spx_ooc *o, const spx_ooc_panel *sp, double *k)
{
    const int32_t rows = sp->row1 - sp->row0;
    int64_t *arow = spx_malloc_array(ctx, (size_t)rows + 1, sizeof *arow);
    int64_t *crow = spx_malloc_array(ctx, (size_t)rows + 1, sizeof *crow);
    int32_t *ci = spx_malloc_array(ctx, (size_t)sp->nnz_c + 1, sizeof *ci);
    double *cv = spx_malloc_array(ctx, (size_t)sp->nnz_c + 1, sizeof *cv);
    spx_status s = arow && crow && ci && cv ? SPX_OK : spx_fail_nomem(ctx, "spgemm panels: K's sample");
    spx_csr Ap, Cv;
    spx_ooc_times t = {0, 0, 0, 0};
    double t_gpu = 0, t_cpu = 0;
    if (!s) {
        spx_ooc_panel_view(o->A, sp->row0, sp->row1, arow, &Ap);
        spx_ooc_c_view(o->crow, sp->row0, sp->row1, o->B->n, ci, cv, crow, ctx, &Cv);
        s = spx_ooc_gpu_panel(ctx, &o->gpu, &Ap, o->B, &Cv, &t);
    }
    if (!s) s = spx_ooc_gpu_panel(ctx, &o->gpu, &Ap, o->B, &Cv, &t);
    t_gpu = t.upload + t.compute + t.download;
    const double t0 = spx_now();
    if (!s) s = o->cpu_impl->numeric_rows(ctx, o->cpu_state, sp->row0, sp->row1, o->cpu_threads, ci, cv);
    t_cpu = spx_now() - t0;
    *k = t_gpu > 0 && t_cpu > 0 ? t_cpu / t_gpu : 0.0;
    if (*k > 0 && sp->products > 0) o->gpu_cost = t_gpu / (double)sp->products, o->cpu_cost = t_cpu / (double)sp->products;
    spx_free(ctx, arow);
    spx_free(ctx, crow);
    spx_free(ctx, ci);
    spx_free(ctx, cv);
    return s;
}

/* The order position where the GPU's planned share R of the products ends (the nearest). */
static int split_position(const spx_ooc *o, double share)
{
    const double want = share * (double)o->products;
    double sum = 0;
    for (int at = 0; at < o->n_panels; at++) {
        const double next = sum + (double)o->panel[o->order[at]].products;
        if (next >= want) return want - sum < next - want ? at : at + 1;
        sum = next;
    }
    return o->n_panels;
}

/* HETERO: the GPU's share, given or R = K / (K + 1) from the sample; the split position; the
 * CPU team all the cores but the lanes' when the GPU's share is small. */
static spx_status plan_share(spx_ctx *ctx, spx_ooc *o, double given, spx_phase_log *log)
{
    const double t0 = spx_now();
    spx_status s = SPX_OK;
    o->gpu_share = given;
    if (given <= 0 && o->n_panels > 0) {
        const spx_ooc_panel sp = sample_panel(o);
        s = time_sample(ctx, o, &sp, &o->k_ratio);
        o->gpu_share = o->k_ratio > 0 ? o->k_ratio / (o->k_ratio + 1.0) : SPX_OOC_DEFAULT_GPU_SHARE;
    }
    if (o->gpu_share <= 0) o->gpu_share = SPX_OOC_DEFAULT_GPU_SHARE;
    if (o->gpu_share < SPX_OOC_SMALL_GPU_SHARE) { /* the GPU's copies will be few: the CPU takes the cores */
        const int team = spx_ctx_threads(ctx) > o->n_lanes ? spx_ctx_threads(ctx) - o->n_lanes : 1;
        o->cpu_cost *= (double)o->cpu_threads / team; /* as if it scaled with its threads */
        o->cpu_threads = team;
    }
    o->split_at = split_position(o, o->gpu_share);
    spx_phase_add(log, "sample", spx_now() - t0);
    return s;
}

/* The kernels' names for the report. */
static void name_kernel(spx_ooc *o)
{
    const char *p = o->precision == SPX_FP32 ? "fp32" : "fp64";
    const char *cpu = o->cpu_impl->kernel_name(o->cpu_state);
    if (o->split == SPX_PANELS_CPU) snprintf(o->kernel, sizeof o->kernel, "%s (panels)", cpu);
    else if (o->split == SPX_PANELS_GPU) snprintf(o->kernel, sizeof o->kernel, "spx_spgemm_rows_%s (panels)", p);
    else snprintf(o->kernel, sizeof o->kernel, "spx_spgemm_rows_%s + %s (panels)", p, cpu);
}

/* threads / parts, at least 1. */
static int thread_share(int threads, int parts) { return threads / parts > 1 ? threads / parts : 1; }

spx_status spx_ooc_create(spx_ctx *ctx, const spx_spgemm_input *in, const spx_ooc_opts *opts, spx_phase_log *log,
                          spx_ooc **out, int64_t *products, int64_t *nnz_c)
{
    *out = NULL;
    spx_ooc *o = spx_calloc_array(ctx, 1, sizeof *o);
    if (!o) return spx_fail_nomem(ctx, "spgemm panels");
    o->split = opts->split;
    o->precision = in->precision;
    o->A = in->A, o->B = in->B;
    o->budget = opts->budget;
    /* in hetero runs the CPU side's OpenMP team has a share of the context's threads: the GPU
     * lanes' copies need cores and the memory bus too (SPX_OOC_HETERO_CPU_THREADS_DIV) */
    const int threads = spx_ctx_threads(ctx);
    o->cpu_threads = o->split != SPX_PANELS_HETERO ? threads : thread_share(threads, SPX_OOC_HETERO_CPU_THREADS_DIV);
    spx_status s = cpu_plan(ctx, o, in, log, products, nnz_c);
    if (!s) s = make_panels(ctx, o, opts->b_blocks, log);
    if (!s && o->split != SPX_PANELS_CPU) {
        const double t0 = spx_now();
        const spx_ooc_split_in si = split_in(o, opts->b_blocks);
        const size_t held0 = ctx->dev.bytes;
        s = spx_ooc_gpu_open(ctx, opts->gpu_impl, o->B, &o->bcut, o->precision, opts->pin_min, opts->take_rows,
                             &o->gpu);
        o->b_held = ctx->dev.bytes - held0;
        if (!s) s = spx_ooc_lanes_open(ctx, opts->gpu_impl->backend == SPX_BACKEND_CUDA, SPX_OOC_GPU_LANES,
                                       thread_share(threads, SPX_OOC_GPU_LANES),
                                       spx_ooc_lane_budget(&si, &o->bcut), o->lane);
        o->n_lanes = s ? 0 : SPX_OOC_GPU_LANES;
        spx_phase_add(log, "upload", spx_now() - t0);
    }
    if (!s && o->split == SPX_PANELS_HETERO) s = plan_share(ctx, o, opts->gpu_share, log);
    if (s) {
        spx_ooc_destroy(ctx, o);
        return s;
    }
    name_kernel(o);
    *out = o;
    return SPX_OK;
}

spx_status spx_ooc_update_values(spx_ctx *ctx, spx_ooc *o, const spx_spgemm_input *in, spx_phase_log *log)
{
    spx_status s = o->cpu_impl->update_values ? o->cpu_impl->update_values(ctx, o->cpu_state, in, log) : SPX_OK;
    if (!s && o->split != SPX_PANELS_CPU) s = spx_ooc_gpu_reload(ctx, &o->gpu, o->B);
    return s;
}

void spx_ooc_info(const spx_ooc *o, spx_spgemm_info *info)
{
    static const char *const split_name[] = {"auto", "off", "hetero", "gpu", "cpu"};
    snprintf(info->panel_mode, sizeof info->panel_mode, "panels");
    snprintf(info->panel_split, sizeof info->panel_split, "%s", split_name[o->split]);
    info->device_mem_limit = o->budget;
    info->panels = o->n_panels;
    info->b_col_blocks = o->bcut.blocks;
    info->panel_rows_max = o->rows_max;
    info->k_ratio = o->k_ratio;
    info->gpu_share = o->split == SPX_PANELS_HETERO ? o->gpu_share : o->split == SPX_PANELS_GPU ? 1.0 : 0.0;
    info->panels_gpu = o->gpu_stats.panels;
    info->panels_cpu = o->cpu_stats.panels;
    info->panels_stolen = o->gpu_stats.stolen + o->cpu_stats.stolen;
    const int64_t done = o->gpu_stats.products + o->cpu_stats.products;
    info->gpu_share_run = done > 0 ? (double)o->gpu_stats.products / (double)done : 0.0;
    info->gpu_lanes = o->n_lanes;
    info->gpu_transfer_s = o->gpu_stats.transfer;
    info->gpu_compute_s = o->gpu_stats.compute;
    info->gpu_idle_s = o->gpu_span - o->gpu_busy;
    info->cpu_compute_s = o->cpu_stats.compute;
}

int spx_ooc_timeline(const spx_ooc *o, spx_spgemm_panel_event *out, int cap)
{
    for (int i = 0; out && i < o->n_done && i < cap; i++) out[i] = o->event[o->done[i]];
    return o->n_done;
}

const char *spx_ooc_kernel(const spx_ooc *o) { return o->kernel; }

size_t spx_ooc_device_peak(const spx_ooc *o)
{
    return o->b_held + o->lanes_peak;
}

void spx_ooc_destroy(spx_ctx *ctx, spx_ooc *o)
{
    if (!o) return;
    if (o->cpu_state) o->cpu_impl->destroy(ctx, o->cpu_state);
    spx_ooc_lanes_close(o->lane, o->n_lanes);
    spx_ooc_gpu_close(ctx, &o->gpu);
    spx_ooc_bcut_free(ctx, &o->bcut);
    spx_free(ctx, o->crow);
    spx_free(ctx, o->prod);
    spx_free(ctx, o->panel);
    spx_free(ctx, o->order);
    spx_free(ctx, o->work);
    spx_free(ctx, o->done);
    spx_free(ctx, o->event);
    spx_free(ctx, o);
}
