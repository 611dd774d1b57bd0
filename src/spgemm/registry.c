/* src/spgemm/registry.c: the SpGEMM method registry, derived from src/spgemm/impls.def. */
#include <string.h>

#include "spgemm/impl.h"

/* One registered implementation: its name (from impls.def, known even when not built) and
 * its table getter. */
typedef struct impl_entry {
    const char *name;
    const spx_spgemm_impl *(*get)(void);
    spx_backend site;
} impl_entry;

#define SPX_SPGEMM_SITE_CPU SPX_BACKEND_CPU
#define SPX_SPGEMM_SITE_CUDA SPX_BACKEND_CUDA
static const impl_entry impls[] = {
#define SPX_SPGEMM_IMPL(name, site) {#name, spx_spgemm_##name, SPX_SPGEMM_SITE_##site},
#include "spgemm/impls.def"
#undef SPX_SPGEMM_IMPL
};

#define N_IMPLS ((int)(sizeof impls / sizeof impls[0]))

int spx_spgemm_impl_count(void) { return N_IMPLS; }

const char *spx_spgemm_impl_name(int i) { return i >= 0 && i < N_IMPLS ? impls[i].name : NULL; }

const spx_spgemm_impl *spx_spgemm_impl_at(int i) { return i >= 0 && i < N_IMPLS ? impls[i].get() : NULL; }

int spx_spgemm_impl_find(const char *name)
{
    for (int i = 0; name && i < N_IMPLS; i++)
        if (!strcmp(impls[i].name, name)) return i;
    return -1;
}

int spx_spgemm_impl_has_algo(const spx_spgemm_impl *impl, const char *name)
{
    for (const char *const *a = impl->algos; a && *a; a++)
        if (!strcmp(*a, name)) return 1;
    return 0;
}

int spx_spgemm_method_count(void) { return N_IMPLS; }

spx_status spx_spgemm_method_describe(int i, spx_spgemm_method_desc *out)
{
    if (i < 0 || i >= N_IMPLS || !out) return SPX_ERR_ARG;
    const spx_spgemm_impl *impl = impls[i].get();
    memset(out, 0, sizeof *out);
    out->name = impls[i].name;
    out->backend = impls[i].site;
    out->available = impl != NULL;
    out->summary = impl ? impl->summary : "not built: the CUDA backend is not compiled into this build";
    out->algos = impl ? impl->algos : NULL;
    out->is_baseline = impl && (impl->flags & SPX_SPGEMM_BASELINE);
    return SPX_OK;
}
