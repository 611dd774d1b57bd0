/* src/formats/teb/teb_cpu.c: CPU SpMV and SpMM on the teb layout: OpenMP over the blocks (each about
 * Threshold nonzeros, so a static share would do; dynamic absorbs the last block and a long
 * row's block), a row at a time, y written through each row's original index; SpMM the same,
 * a row of Y at a time (src/spmv/spmm_row.h). */
#include <omp.h>

#include "core/ctx.h"
#include "formats/teb/teb.h"
#include "spmv/spmm_row.h"

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

/* One block-parallel SpMM per value type: the SpMV's blocks and schedule, a row of Y at a time. */
#define SPX_TEB_CPU_SPMM(NAME, ROW, VT)                                                                \
    static void NAME(const spx_teb_fmt *F, const VT *val, const spx_spmm_args *a, int nt)              \
    {                                                                                                  \
        _Pragma("omp parallel for schedule(dynamic, 4) num_threads(nt)")                               \
        for (int32_t blk = 0; blk < F->n_blocks; blk++)                                                \
            for (int32_t r = F->blk_row[blk]; r < F->blk_row[blk + 1]; r++)                            \
                ROW(F->colind + F->row_off[r], val + F->row_off[r], F->row_off[r + 1] - F->row_off[r], a, \
                    F->row_orig[r]);                                                                   \
    }

SPX_TEB_CPU_SPMM(teb_spmm_cpu_f64, spx_spmm_row_f64, double)
SPX_TEB_CPU_SPMM(teb_spmm_cpu_f32, spx_spmm_row_f32, float)

spx_status spx_teb_fmt_spmm_cpu(spx_ctx *ctx, const spx_teb_fmt *F, const spx_spmm_args *a)
{
    if (a->precision != F->precision) return spx_fail(ctx, SPX_ERR_ARG, "teb: precision differs from the plan's");
    const int nt = spx_ctx_threads(ctx);
    if (a->precision == SPX_FP32)
        teb_spmm_cpu_f32(F, F->val32, a, nt);
    else
        teb_spmm_cpu_f64(F, F->val64, a, nt);
    return SPX_OK;
}
