/* src/formats/teb/teb_cpu.c: CPU SpMV on the teb layout: OpenMP over the blocks (each about
 * Threshold nonzeros, so a static share would do; dynamic absorbs the last block and a long
 * row's block), a row at a time, y written through each row's original index. */
#include <omp.h>

#include "core/ctx.h"
#include "formats/teb/teb.h"

/* One block-parallel SpMV per value type; sums are accumulated in double for either type. */
#define SPX_TEB_CPU_KERNEL(NAME, VT)                                                               \
    static void NAME(const spx_teb_fmt *F, const VT *val, double a, const VT *x, double b, VT *y, \
                     int nt)                                                                       \
    {                                                                                              \
        _Pragma("omp parallel for schedule(dynamic, 4) num_threads(nt)")                           \
        for (int32_t blk = 0; blk < F->n_blocks; blk++) {                                          \
            for (int32_t r = F->blk_row[blk]; r < F->blk_row[blk + 1]; r++) {                      \
                double sum = 0.0;                                                                  \
                for (int32_t k = F->row_off[r]; k < F->row_off[r + 1]; k++)                        \
                    sum += (double)val[k] * (double)x[F->colind[k]];                               \
                const int32_t i = F->row_orig[r];                                                  \
                y[i] = (VT)(b == 0.0 ? a * sum : a * sum + b * (double)y[i]);                      \
            }                                                                                      \
        }                                                                                          \
    }

SPX_TEB_CPU_KERNEL(teb_spmv_cpu_f64, double)
SPX_TEB_CPU_KERNEL(teb_spmv_cpu_f32, float)

spx_status spx_teb_fmt_spmv_cpu(spx_ctx *ctx, const spx_teb_fmt *F, spx_precision prec, double a, const void *x,
                                double b, void *y)
{
    if (prec != F->precision) return spx_fail(ctx, SPX_ERR_ARG, "teb: precision differs from the plan's");
    const int nt = spx_ctx_threads(ctx);
    if (prec == SPX_FP32)
        teb_spmv_cpu_f32(F, F->val32, a, x, b, y, nt);
    else
        teb_spmv_cpu_f64(F, F->val64, a, x, b, y, nt);
    return SPX_OK;
}
