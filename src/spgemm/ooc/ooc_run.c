/* src/spgemm/ooc/ooc_run.c: one out-of-core run (ooc.h): C's row pointers set, then the two
 * sides at once over the two-ended panel queue: one host thread per GPU lane drives the GPU
 * (each panel through the GPU implementation with B resident, on the lane's context and
 * stream, from C's row pointers as the CPU counted them, its host ranges page-locked for the
 * panel; or with B in column blocks, block by block: gpu_side.c), the calling thread's
 * OpenMP team computes the CPU's panels (gustavson's row ranges); all write their panels
 * straight into C. The lanes' page-locking time is the run's phase "pin" (summed over the
 * lanes, within "panels"). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/gateway.h"
#include "spgemm/ooc/ooc_internal.h"
#include "spgemm/ooc/queue.h"

/* One side of a run (the CPU, or one GPU lane). */
typedef struct ooc_side {
    spx_ooc *o;
    spx_ctx *ctx; /* the one its panels run on: the plan's (CPU), the lane's (GPU) */
    spx_csr *C;
    spx_ooc_queue *q;
    int gpu;
    double start;
    int64_t *arow, *cbuf; /* GPU: A's and C's panel row pointers (rows_max + 1 each) */
    spx_ooc_side_stats st;
    spx_status status;
} ooc_side;

/* Whether the GPU's row pointers of panel pn (cbuf) are C's (crow) rebased to its first row. */
static int same_rows(const int64_t *crow, const spx_ooc_panel *pn, const int64_t *cbuf)
{
    for (int32_t i = pn->row0; i <= pn->row1; i++)
        if (cbuf[i - pn->row0] != crow[i] - crow[pn->row0]) return 0;
    return 1;
}

/* Panel pn on the GPU into C's slice, from C's row pointers as the CPU counted them; its
 * times into *t. */
static spx_status gpu_panel(ooc_side *sd, const spx_ooc_panel *pn, spx_ooc_times *t)
{
    const spx_ooc *o = sd->o;
    const int64_t at = o->crow[pn->row0];
    spx_csr Ap, Cv;
    spx_ooc_panel_view(o->A, pn->row0, pn->row1, sd->arow, &Ap);
    spx_ooc_c_view(o->crow, pn->row0, pn->row1, sd->C->n, sd->C->colind + at, sd->C->val + at, sd->cbuf, sd->ctx, &Cv);
    spx_status s = spx_ooc_gpu_panel(sd->ctx, &o->gpu, &Ap, o->B, &Cv, t);
    if (!s && !same_rows(o->crow, pn, sd->cbuf))
        s = spx_fail(sd->ctx, SPX_ERR_VERIFY, "spgemm panel rows [%d, %d): the GPU's row lengths differ from the CPU's",
                     pn->row0, pn->row1);
    return s;
}

/* Panel pn on the CPU into C's slice; its time into *t. */
static spx_status cpu_panel(ooc_side *sd, const spx_ooc_panel *pn, spx_ooc_times *t)
{
    const spx_ooc *o = sd->o;
    const int64_t at = o->crow[pn->row0];
    const double t0 = spx_now();
    spx_status s = o->cpu_impl->numeric_rows(sd->ctx, o->cpu_state, pn->row0, pn->row1, o->cpu_threads,
                                             sd->C->colind + at, sd->C->val + at);
    t->upload = t->download = t->pin = 0;
    t->compute = spx_now() - t0;
    return s;
}

/* Panel pi's event: [t0, t1) from the run's start, transfers at its ends. */
static void record(spx_ooc *o, int pi, int gpu, int stolen, double t0, double t1, const spx_ooc_times *t)
{
    const spx_ooc_panel *pn = &o->panel[pi];
    spx_spgemm_panel_event *e = &o->event[pi];
    e->panel = pi, e->row0 = pn->row0, e->row1 = pn->row1;
    e->nnz_c = pn->nnz_c, e->products = pn->products, e->affinity = pn->affinity;
    e->on_gpu = gpu, e->stolen = stolen;
    e->upload0 = t0, e->upload1 = t0 + t->upload;
    e->compute0 = e->upload1, e->compute1 = t1 - t->download;
    e->download0 = e->compute1, e->download1 = t1;
}

/* Takes and computes panels until none is left or one fails (the run then aborts). */
static void side_loop(ooc_side *sd)
{
    int pi, stolen = 0;
    while ((pi = spx_ooc_queue_take(sd->q, sd->gpu, &stolen)) >= 0) {
        const spx_ooc_panel *pn = &sd->o->panel[pi];
        spx_ooc_times t = {0, 0, 0, 0};
        const double t0 = spx_now() - sd->start;
        spx_status s = sd->gpu ? gpu_panel(sd, pn, &t) : cpu_panel(sd, pn, &t);
        const double t1 = spx_now() - sd->start;
        if (s) {
            sd->status = s;
            spx_ooc_queue_abort(sd->q);
            break;
        }
        record(sd->o, pi, sd->gpu, stolen, t0, t1, &t);
        sd->st.panels++, sd->st.stolen += stolen, sd->st.products += pn->products;
        sd->st.transfer += t.upload + t.download, sd->st.compute += t.compute, sd->st.pin += t.pin;
        spx_ooc_queue_finish(sd->q, pi, sd->gpu, t1 - t0);
    }
    sd->st.wall = spx_now() - sd->start;
}

/* A GPU lane's thread: binds it to the device, then the loop. */
static void *gpu_main(void *arg)
{
    ooc_side *sd = arg;
    sd->status = sd->o->gpu.impl->backend == SPX_BACKEND_CUDA ? spx_cuda_init(sd->ctx) : SPX_OK;
    if (sd->status) spx_ooc_queue_abort(sd->q);
    else side_loop(sd);
    return NULL;
}

/* The GPU lanes' scratch row pointers (from the plan's context). */
static spx_status gpu_scratch(spx_ctx *ctx, const spx_ooc *o, ooc_side *g)
{
    spx_status s = SPX_OK;
    for (int l = 0; !s && l < o->n_lanes; l++) {
        g[l].arow = spx_malloc_array(ctx, (size_t)o->rows_max + 1, sizeof *g[l].arow);
        g[l].cbuf = spx_malloc_array(ctx, (size_t)o->rows_max + 1, sizeof *g[l].cbuf);
        if (!g[l].arow || !g[l].cbuf) s = spx_fail_nomem(ctx, "spgemm panels: row pointers");
    }
    return s;
}

/* Frees the lanes' scratch. */
static void gpu_scratch_free(spx_ctx *ctx, ooc_side *g, int n)
{
    for (int l = 0; l < n; l++) {
        spx_free(ctx, g[l].arow);
        spx_free(ctx, g[l].cbuf);
    }
}

/* Sums the lanes' figures into *out. */
static void sum_lanes(const ooc_side *g, int n, spx_ooc_side_stats *out)
{
    memset(out, 0, sizeof *out);
    for (int l = 0; l < n; l++) {
        out->panels += g[l].st.panels, out->stolen += g[l].st.stolen, out->products += g[l].st.products;
        out->transfer += g[l].st.transfer, out->compute += g[l].st.compute, out->pin += g[l].st.pin;
        if (g[l].st.wall > out->wall) out->wall = g[l].st.wall;
    }
}

/* qsort's comparison of [start, end) intervals by start. */
static int by_start(const void *x, const void *y)
{
    const double *a = x, *b = y;
    return (a[0] > b[0]) - (a[0] < b[0]);
}

/* The GPU panels' busy time (the union of their compute intervals) and span (first start to
 * last end) from the run's events. */
static spx_status gpu_busy(spx_ctx *ctx, spx_ooc *o)
{
    o->gpu_busy = o->gpu_span = 0;
    double *iv = spx_malloc_array(ctx, 2 * (size_t)o->n_done + 2, sizeof *iv);
    if (!iv) return spx_fail_nomem(ctx, "spgemm panels: GPU busy time");
    int n = 0;
    double first = 0, last = 0;
    for (int i = 0; i < o->n_done; i++) {
        const spx_spgemm_panel_event *e = &o->event[o->done[i]];
        if (!e->on_gpu) continue;
        if (!n || e->upload0 < first) first = e->upload0;
        if (!n || e->download1 > last) last = e->download1;
        iv[2 * n] = e->compute0, iv[2 * n + 1] = e->compute1, n++;
    }
    qsort(iv, (size_t)n, 2 * sizeof *iv, by_start);
    double end = 0;
    for (int i = 0; i < n; i++) {
        const double a = iv[2 * i] > end ? iv[2 * i] : end, b = iv[2 * i + 1];
        if (b > a) o->gpu_busy += b - a;
        if (b > end) end = b;
    }
    o->gpu_span = n ? last - first : 0;
    spx_free(ctx, iv);
    return SPX_OK;
}

/* The order position the GPU's share ends at, for this split. */
static int planned_split(const spx_ooc *o)
{
    return o->split == SPX_PANELS_GPU ? o->n_panels : o->split == SPX_PANELS_CPU ? 0 : o->split_at;
}

/* Runs both sides over the queue: each GPU lane on a thread of its own, the CPU here. */
static spx_status run_sides(spx_ctx *ctx, spx_ooc *o, spx_csr *C, ooc_side *g, ooc_side *c)
{
    spx_ooc_queue q;
    if (spx_ooc_queue_init(&q, o->order, o->n_panels, planned_split(o), o->done))
        return spx_fail(ctx, SPX_ERR_NOMEM, "spgemm panels: cannot make the queue's lock");
    if (o->split == SPX_PANELS_HETERO) spx_ooc_queue_costs(&q, o->work, o->gpu_cost, o->cpu_cost, o->n_lanes);
    const double start = spx_now();
    pthread_t th[SPX_OOC_GPU_LANES];
    int started[SPX_OOC_GPU_LANES] = {0};
    for (int l = 0; l < o->n_lanes; l++) {
        g[l] = (ooc_side){o, o->lane[l].ctx, C, &q, 1, start, g[l].arow, g[l].cbuf, {0}, SPX_OK};
        started[l] = pthread_create(&th[l], NULL, gpu_main, &g[l]) == 0;
        if (!started[l]) gpu_main(&g[l]); /* no thread: this lane's panels first */
    }
    *c = (ooc_side){o, ctx, C, &q, 0, start, NULL, NULL, {0}, SPX_OK};
    if (o->split != SPX_PANELS_GPU) side_loop(c);
    spx_status s = SPX_OK;
    for (int l = 0; l < o->n_lanes; l++) {
        if (started[l]) pthread_join(th[l], NULL);
        if (!s) s = spx_ooc_lane_error(ctx, &o->lane[l], g[l].status);
    }
    o->n_done = q.n_done;
    spx_ooc_queue_destroy(&q);
    if (!s) s = c->status;
    if (!s && o->n_done != o->n_panels) /* the queue's promise, checked: no panel left to no one */
        s = spx_fail(ctx, SPX_ERR_VERIFY, "spgemm panels: %d of %d panels computed", o->n_done, o->n_panels);
    return s;
}

spx_status spx_ooc_run(spx_ctx *ctx, spx_ooc *o, spx_phase_log *log, spx_csr *C)
{
    const double t0 = spx_now();
    o->cpu_impl->row_pointers(o->cpu_state, C->rowptr);
    memset(o->event, 0, (size_t)o->n_panels * sizeof *o->event);
    o->n_done = 0;
    spx_ooc_lanes_reset_peaks(o->lane, o->n_lanes);
    ooc_side g[SPX_OOC_GPU_LANES], c;
    memset(g, 0, sizeof g);
    spx_status s = gpu_scratch(ctx, o, g);
    if (!s) s = run_sides(ctx, o, C, g, &c);
    gpu_scratch_free(ctx, g, o->n_lanes);
    if (!s) {
        sum_lanes(g, o->n_lanes, &o->gpu_stats);
        o->cpu_stats = c.st;
        o->lanes_peak = spx_ooc_lanes_peak(o->lane, o->n_lanes);
        s = gpu_busy(ctx, o);
    }
    spx_phase_add(log, "panels", spx_now() - t0);
    if (!s && o->split != SPX_PANELS_CPU && o->gpu.pin_min != SIZE_MAX) spx_phase_add(log, "pin", o->gpu_stats.pin);
    return s;
}
