/* src/formats/hbp/hbp_cpu.c: CPU SpMV on the hbp layout (HBP Algorithm 3 on the host): OpenMP
 * over row panels (one thread owns a panel's rows, so partial sums from its column blocks are
 * combined in y without atomics); each group is walked step by step as a warp would. */
#include <omp.h>

#include "core/ctx.h"
#include "formats/hbp/hbp.h"
#include "formats/hbp/hbp_tuning.h"

/* One panel per value type: y rows scaled (never read when b == 0), then each group's 32
 * lane sums (fp64) added into y. */
#define SPX_HBP_CPU_PANEL(NAME, VT)                                                                         \
    static void NAME(const spx_hbp_fmt *F, const VT *val, int32_t p, double a, const VT *x, double b, VT *y) \
    {                                                                                                       \
        const int64_t r0 = (int64_t)p * F->H, r1 = r0 + F->H < F->m ? r0 + F->H : F->m;                    \
        for (int64_t i = r0; i < r1; i++) y[i] = b == 0.0 ? (VT)0 : (VT)(b * (double)y[i]);               \
        for (int64_t t = F->panel_tile[p]; t < F->panel_tile[p + 1]; t++) {                                 \
            const VT *xs = x + (int64_t)F->tile_colblock[t] * F->W;                                        \
            for (int64_t g = F->tile_group[t]; g < F->tile_group[t + 1]; g++) {                             \
                const int64_t s0 = F->tile_slot[t] + (g - F->tile_group[t]) * SPX_HBP_GROUP;                \
                const int k = (int)(F->tile_slot[t + 1] - s0 < SPX_HBP_GROUP ? F->tile_slot[t + 1] - s0     \
                                                                            : SPX_HBP_GROUP);               \
                const uint16_t *len = F->slot_len + s0;                                                     \
                double acc[SPX_HBP_GROUP] = {0};                                                            \
                int maxlen = 0;                                                                             \
                for (int j = 0; j < k; j++) maxlen = len[j] > maxlen ? len[j] : maxlen;                     \
                int64_t pos = F->group_nnz[g];                                                              \
                for (int st = 0; st < maxlen; st++)                                                         \
                    for (int j = 0; j < k; j++)                                                             \
                        if (len[j] > st) {                                                                  \
                            acc[j] += (double)val[pos] * (double)xs[F->col[pos]];                           \
                            pos++;                                                                          \
                        }                                                                                   \
                for (int j = 0; j < k; j++) {                                                               \
                    VT *yi = y + r0 + F->slot_row[s0 + j];                                                  \
                    *yi = (VT)((double)*yi + a * acc[j]);                                                   \
                }                                                                                           \
            }                                                                                               \
        }                                                                                                   \
    }

SPX_HBP_CPU_PANEL(hbp_panel_f64, double)
SPX_HBP_CPU_PANEL(hbp_panel_f32, float)

spx_status spx_hbp_fmt_spmv_cpu(spx_ctx *ctx, const spx_hbp_fmt *F, spx_precision prec, double a, const void *x,
                                double b, void *y)
{
    if (prec != F->precision) return spx_fail(ctx, SPX_ERR_ARG, "hbp: precision differs from the plan's");
    if (F->bands) return spx_hbp_bands_spmv_cpu(ctx, F->bands, prec, a, x, b, y);
    if (F->wide) return spx_hbp_wide_spmv_cpu(ctx, F->wide, prec, a, x, b, y);
    const int nt = spx_ctx_threads(ctx);
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
    for (int32_t p = 0; p < F->n_panels; p++) {
        if (prec == SPX_FP32)
            hbp_panel_f32(F, F->val32, p, a, (const float *)x, b, (float *)y);
        else
            hbp_panel_f64(F, F->val64, p, a, (const double *)x, b, (double *)y);
    }
    return SPX_OK;
}
