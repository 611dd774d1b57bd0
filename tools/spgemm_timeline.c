/* tools/spgemm_timeline.c: the out-of-core run's timeline as JSON or an SVG Gantt chart
 * (spgemm_timeline.h). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "spgemm_timeline.h"
#include "svg.h"

int spgemm_timeline_take(const spx_spgemm_plan *p, spx_spgemm_panel_event **out)
{
    *out = NULL;
    const int n = spx_spgemm_plan_timeline(p, NULL, 0);
    if (n <= 0) return 0;
    *out = malloc((size_t)n * sizeof **out);
    if (!*out) return -1;
    return spx_spgemm_plan_timeline(p, *out, n);
}

/* "[t0, t1]" as a JSON member. */
static void json_span(FILE *f, int *first, const char *key, double t0, double t1)
{
    json_key(f, first, key);
    fprintf(f, "[%.9g,%.9g]", t0, t1);
}

/* One event as a JSON object. */
static void event_json(FILE *f, const spx_spgemm_panel_event *e)
{
    int k = 1;
    fputc('{', f);
    json_kv_int(f, &k, "panel", e->panel);
    json_kv_str(f, &k, "side", e->on_gpu ? "gpu" : "cpu");
    json_kv_int(f, &k, "row0", e->row0);
    json_kv_int(f, &k, "row1", e->row1);
    json_kv_int(f, &k, "nnz_c", e->nnz_c);
    json_kv_int(f, &k, "products", e->products);
    json_kv_num(f, &k, "affinity", e->affinity);
    json_kv_int(f, &k, "stolen", e->stolen);
    json_span(f, &k, "upload", e->upload0, e->upload1);
    json_span(f, &k, "compute", e->compute0, e->compute1);
    json_span(f, &k, "download", e->download0, e->download1);
    fputc('}', f);
}

/* The JSON record {"a", "b", the panel figures, "events": [...]} (times in seconds). */
static int write_json(const char *path, const spgemm_timeline *t)
{
    char tmp[4096];
    FILE *f = cli_open_out(path, tmp, sizeof tmp);
    if (!f) return CLI_ERROR;
    const spx_spgemm_info *in = t->info;
    int k = 1;
    fputc('{', f);
    json_kv_str(f, &k, "op", "spgemm-timeline");
    json_kv_str(f, &k, "a", t->a_src);
    json_kv_str(f, &k, "b", t->b_src);
    json_kv_str(f, &k, "panel_split", in->panel_split);
    json_kv_int(f, &k, "panels", in->panels);
    json_kv_num(f, &k, "k_ratio", in->k_ratio);
    json_kv_num(f, &k, "gpu_share", in->gpu_share);
    json_kv_num(f, &k, "gpu_share_run", in->gpu_share_run);
    json_kv_num(f, &k, "run_s", in->run_seconds);
    for (int i = 0; i < in->n_phases; i++) /* page-locking the GPU panels' host slices, summed over the lanes */
        if (!strcmp(in->phases[i].name, "pin")) json_kv_num(f, &k, "pin_s", in->phases[i].seconds);
    json_key(f, &k, "events");
    fputc('[', f);
    for (int i = 0; i < t->n; i++) {
        if (i) fputc(',', f);
        event_json(f, &t->ev[i]);
    }
    fputs("]}\n", f);
    return cli_commit_out(f, tmp, path);
}

/* Kinds of a span: their legend names, in the order of enum span_kind. */
enum span_kind { SPAN_UPLOAD, SPAN_COMPUTE_GPU, SPAN_DOWNLOAD, SPAN_COMPUTE_CPU, SPAN_KINDS };
static const char *const span_kinds[SPAN_KINDS] = {"upload A panel", "GPU compute", "download C panel", "CPU compute"};

/* The event's spans (three on the GPU, one on the CPU) into sp, times in ms; tip is the
 * panel's tooltip (kept by the caller). Returns how many. */
static int event_spans(const spx_spgemm_panel_event *e, const char *tip, svg_span *sp)
{
    if (!e->on_gpu) {
        sp[0] = (svg_span){1, SPAN_COMPUTE_CPU, e->compute0 * 1e3, e->compute1 * 1e3, tip};
        return 1;
    }
    sp[0] = (svg_span){0, SPAN_UPLOAD, e->upload0 * 1e3, e->upload1 * 1e3, tip};
    sp[1] = (svg_span){0, SPAN_COMPUTE_GPU, e->compute0 * 1e3, e->compute1 * 1e3, tip};
    sp[2] = (svg_span){0, SPAN_DOWNLOAD, e->download0 * 1e3, e->download1 * 1e3, tip};
    return 3;
}

/* Room for one panel's tooltip. */
#define TIP_LEN 128

/* The Gantt chart: lanes GPU and CPU. */
static int write_svg(const char *path, const spgemm_timeline *t)
{
    static const char *const lanes[] = {"GPU", "CPU"};
    svg_span *sp = malloc(((size_t)t->n * 3 + 1) * sizeof *sp);
    char *tips = malloc(((size_t)t->n + 1) * TIP_LEN);
    if (!sp || !tips) {
        free(sp);
        free(tips);
        return cli_error("%s: out of memory for the timeline", path);
    }
    int64_t n = 0;
    for (int i = 0; i < t->n; i++) {
        const spx_spgemm_panel_event *e = &t->ev[i];
        char *tip = tips + (size_t)i * TIP_LEN;
        snprintf(tip, TIP_LEN, "panel %d: rows %d-%d, %lld nnz(C), affinity %.4f%s", e->panel, e->row0, e->row1 - 1,
                 (long long)e->nnz_c, e->affinity, e->stolen ? ", stolen" : "");
        n += event_spans(e, tip, sp + n);
    }
    char title[256], sub[256];
    snprintf(title, sizeof title, "SpGEMM panels: %s x %s", t->a_src, t->b_src);
    snprintf(sub, sizeof sub, "%d panels, split %s; GPU share planned %.2f, run %.2f; %d stolen", t->info->panels,
             t->info->panel_split, t->info->gpu_share, t->info->gpu_share_run, t->info->panels_stolen);
    const svg_gantt g = {title, sub, "time from the run's start (ms)", lanes, 2, span_kinds, SPAN_KINDS, sp, n};
    int rc = svg_gantt_chart(path, &g);
    free(sp);
    free(tips);
    return rc;
}

int spgemm_timeline_write(const char *path, const spgemm_timeline *t)
{
    const size_t len = strlen(path);
    return len >= 4 && !strcmp(path + len - 4, ".svg") ? write_svg(path, t) : write_json(path, t);
}
