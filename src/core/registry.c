/* src/core/registry.c: the format registry. Adding a format adds one line to `formats`. */
#include <string.h>

#include "core/format.h"
#include "cuda/gateway.h"

extern const spx_format_ops spx_csr_ops;
extern const spx_format_ops spx_cusparse_ops;

static const spx_format_ops *const formats[] = {
    &spx_csr_ops,
    &spx_cusparse_ops,
};

#define N_FORMATS ((int)(sizeof formats / sizeof formats[0]))

const spx_format_ops *spx_format_at(int i) { return i >= 0 && i < N_FORMATS ? formats[i] : NULL; }

const spx_format_ops *spx_format_find(const char *name)
{
    for (int i = 0; name && i < N_FORMATS; i++)
        if (!strcmp(formats[i]->name, name)) return formats[i];
    return NULL;
}

int spx_format_has_algo(const spx_format_ops *ops, const char *name)
{
    for (const char *const *a = ops->algos; a && *a; a++)
        if (!strcmp(*a, name)) return 1;
    return 0;
}

int spx_format_count(void) { return N_FORMATS; }

spx_status spx_format_describe(int i, spx_format_desc *out)
{
    const spx_format_ops *ops = spx_format_at(i);
    if (!ops || !out) return SPX_ERR_ARG;
    out->name = ops->name;
    out->summary = ops->summary;
    out->algos = ops->algos;
    out->has_cpu = ops->spmv_cpu != NULL;
    out->has_cuda = ops->spmv_cuda != NULL && spx_cuda_built();
    return SPX_OK;
}

void spx_phase_add(spx_phase_log *log, const char *name, double seconds)
{
    if (!log) return;
    for (int i = 0; i < log->n; i++)
        if (!strcmp(log->phases[i].name, name)) {
            log->phases[i].seconds += seconds;
            return;
        }
    if (log->n < SPX_MAX_PHASES) log->phases[log->n++] = (spx_phase_time){name, seconds};
}
