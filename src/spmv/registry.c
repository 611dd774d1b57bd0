/* src/spmv/registry.c: the format registry, derived from src/spmv/formats.def. */
#include <string.h>
#include <stdio.h>

#include "spmv/format.h"

#define SPX_FORMAT(name) extern const spx_format spx_##name##_format;
#include "spmv/formats.def"
#undef SPX_FORMAT

static const spx_format *const formats[] = {
#define SPX_FORMAT(name) &spx_##name##_format,
#include "spmv/formats.def"
#undef SPX_FORMAT
};

#define N_FORMATS ((int)(sizeof formats / sizeof formats[0]))

const spx_format *spx_format_at(int i) { return i >= 0 && i < N_FORMATS ? formats[i] : NULL; }

const spx_format *spx_format_find(const char *name)
{
    for (int i = 0; name && i < N_FORMATS; i++)
        if (!strcmp(formats[i]->layout.name, name)) return formats[i];
    return NULL;
}

int spx_format_has_algo(const spx_format *fmt, const char *name)
{
    for (const char *const *a = fmt->layout.algos; a && *a; a++)
        if (!strcmp(*a, name)) return 1;
    return 0;
}

const spx_format_cuda *spx_format_cuda_of(const spx_format *fmt)
{
    return fmt && fmt->cuda ? fmt->cuda() : NULL;
}

int spx_format_available(const spx_format *fmt, const char *algo, const char **why)
{
    const char *reason = NULL;
    if (!fmt->layout.available || fmt->layout.available(algo, &reason)) return 1;
    if (why) *why = reason ? reason : "a dependency is missing";
    return 0;
}

spx_format_fit spx_format_fits(const spx_format *fmt, const char *algo, spx_backend b, const char **why)
{
    const char *a = algo && strcmp(algo, "auto") ? algo : NULL;
    if (a && !spx_format_has_algo(fmt, a)) return SPX_FORMAT_NO_ALGO;
    if (!spx_format_available(fmt, a, why)) return SPX_FORMAT_NOT_BUILT;
    if (b == SPX_BACKEND_CPU && !fmt->cpu.spmv) return SPX_FORMAT_NO_CPU;
    const spx_format_cuda *cu = spx_format_cuda_of(fmt);
    if (b == SPX_BACKEND_CUDA && (!cu || !cu->ops.spmv)) return SPX_FORMAT_NO_CUDA;
    return SPX_FORMAT_RUNS;
}

int spx_format_builds_on_device(const spx_format *fmt, const char *algo)
{
    const spx_format_cuda *cu = fmt ? spx_format_cuda_of(fmt) : NULL;
    if (!cu || !cu->layout.build) return 0;
    if (!cu->layout.build_algos) return 1;
    const char *name = !algo || !strcmp(algo, "auto") ? fmt->layout.algos[0] : algo;
    for (int i = 0; cu->layout.build_algos[i]; i++)
        if (!strcmp(cu->layout.build_algos[i], name)) return 1;
    return 0;
}

int spx_format_count(void) { return N_FORMATS; }

spx_status spx_format_describe(int i, spx_format_desc *out)
{
    const spx_format *fmt = spx_format_at(i);
    if (!fmt || !out) return SPX_ERR_ARG;
    const spx_format_cuda *cu = spx_format_cuda_of(fmt);
    memset(out, 0, sizeof *out);
    out->name = fmt->layout.name;
    out->summary = fmt->layout.summary;
    out->algos = fmt->layout.algos;
    out->has_cpu = fmt->cpu.spmv != NULL;
    out->has_cuda = cu != NULL && cu->ops.spmv != NULL;
    out->is_baseline = (fmt->layout.flags & SPX_FORMAT_BASELINE) != 0;
    out->builds_on_device = cu != NULL && cu->layout.build != NULL;
    out->device_algos = out->builds_on_device ? cu->layout.build_algos : NULL;
    out->has_device_to_csr = cu != NULL && cu->layout.to_csr != NULL;
    out->has_plan_order = fmt->layout.permutation != NULL;
    out->kernel_prefix = fmt->layout.kernel_prefix;
    out->available = spx_format_available(fmt, NULL, &out->why_unavailable);
    return SPX_OK;
}

/* The next free entry of l with its key set, or NULL when the list is full. */
static spx_layout_stat *stat_next(spx_stat_list *l, const char *key)
{
    if (l->n >= SPX_MAX_LAYOUT_STATS) return NULL;
    spx_layout_stat *e = &l->stats[l->n++];
    memset(e, 0, sizeof *e);
    snprintf(e->key, sizeof e->key, "%s", key);
    return e;
}

void spx_stat_num(spx_stat_list *l, const char *key, double value)
{
    spx_layout_stat *e = stat_next(l, key);
    if (e) e->value = value;
}

void spx_stat_text(spx_stat_list *l, const char *key, const char *text)
{
    spx_layout_stat *e = stat_next(l, key);
    if (e) snprintf(e->text, sizeof e->text, "%s", text);
}
