/* src/spgemm/ooc/ooc.h: the out-of-core SpGEMM (docs/spgemm.md, "Beyond GPU memory"): C's row
 * pointers from the CPU's symbolic phase, A's rows in panels sized to the device budget and
 * ordered by affinity, computed by the GPU (spx, B resident, from the CPU's row pointers, the
 * host ranges of a panel page-locked for it) and the CPU (gustavson's row ranges) at once,
 * each side from its end of the order and stealing from the middle, C assembled in host
 * memory with the in-core path's CSR; per-panel timings for timelines. */
#ifndef SPX_SPGEMM_OOC_H
#define SPX_SPGEMM_OOC_H

#include "core/phase.h"
#include "spgemm/impl.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spx_ooc spx_ooc;

typedef struct spx_ooc_opts {
    spx_spgemm_panels split;         /* SPX_PANELS_HETERO, _GPU or _CPU */
    size_t budget;                   /* device bytes the panels fit (SPX_BUDGET_NONE: none) */
    double gpu_share;                /* HETERO: R; 0: K / (K + 1), K measured */
    const spx_spgemm_impl *gpu_impl; /* HETERO and GPU: the GPU implementation (spx) */
    size_t pin_min;                  /* GPU panels page-lock their host ranges this long and
                                        longer (SIZE_MAX: none) */
    int take_rows;                   /* GPU panels take C's row pointers from the CPU's symbolic */
    int b_blocks;                    /* B's column blocks: 0 auto, 1 resident, N about N
                                        (spx_ooc_split_in) */
} spx_ooc_opts;

/* Plans the panels of in's product: analysis and symbolic on the CPU (*products, *nnz_c),
 * the split, B uploaded, K measured. */
spx_status spx_ooc_create(spx_ctx *ctx, const spx_spgemm_input *in, const spx_ooc_opts *o, spx_phase_log *log,
                          spx_ooc **out, int64_t *products, int64_t *nnz_c);
/* The operands' values changed (pattern unchanged): re-read them. */
spx_status spx_ooc_update_values(spx_ctx *ctx, spx_ooc *o, const spx_spgemm_input *in, spx_phase_log *log);
/* Computes C (allocated by the plan for nnz_c entries): every panel, both sides at once. */
spx_status spx_ooc_run(spx_ctx *ctx, spx_ooc *o, spx_phase_log *log, spx_csr *C);
/* The panel figures of the plan and its last run into info's out-of-core fields. */
void spx_ooc_info(const spx_ooc *o, spx_spgemm_info *info);
/* As spx_spgemm_plan_timeline. */
int spx_ooc_timeline(const spx_ooc *o, spx_spgemm_panel_event *out, int cap);
/* The kernels that compute C's panels. */
const char *spx_ooc_kernel(const spx_ooc *o);
/* The device bytes the last run held at most, measured: B resident and the lanes' peaks (an
 * upper bound: the lanes' peaks need not coincide). */
size_t spx_ooc_device_peak(const spx_ooc *o);
void spx_ooc_destroy(spx_ctx *ctx, spx_ooc *o);

#ifdef __cplusplus
}
#endif
#endif
