/* src/formats/ehyb/ehyb_cpu.c: CPU SpMV on the ehyb layout (the oracle of the CUDA path, same
 * order of work): OpenMP over parts, each part's rows from its ELL slices with x read through
 * the column permutation and y written through the row permutation (y = a*ell + b*y); then
 * the ER slices and long rows add a*er to their rows. Sums are accumulated in double. */
#include "core/ctx.h"
#include "formats/ehyb/ehyb.h"
#include "formats/ehyb/ehyb_tuning.h"

/* One SpMV per value type. The ELL loop of a lane stops at its first padding slot (offset =
 * segment length); ER padding has column -1. */
#define SPX_EHYB_CPU_KERNEL(NAME, VT)                                                                  \
    static void NAME(const spx_ehyb_fmt *F, double a, const VT *x, double b, VT *y, int nt)            \
    {                                                                                                  \
        const VT *ev = (const VT *)F->ell_val, *rv = (const VT *)F->er_val, *lv = (const VT *)F->long_val; \
        _Pragma("omp parallel num_threads(nt)")                                                        \
        {                                                                                              \
            _Pragma("omp for schedule(dynamic, 1)")                                                    \
            for (int32_t p = 0; p < F->nparts; p++) {                                                  \
                const int32_t r0 = F->row_start[p], r1 = F->row_start[p + 1];                          \
                const int32_t *cp = F->col_perm + F->col_start[p];                                     \
                const uint16_t pad = (uint16_t)(F->col_start[p + 1] - F->col_start[p]);                 \
                for (int32_t r = r0; r < r1; r++) {                                                    \
                    const int32_t s = F->part_slice[p] + (r - r0) / SPX_EHYB_SLICE;                     \
                    const int64_t end = F->ell_ptr[s + 1];                                             \
                    double sum = 0.0;                                                                  \
                    for (int64_t k = F->ell_ptr[s] + (r - r0) % SPX_EHYB_SLICE; k < end && F->ell_col[k] != pad; \
                         k += SPX_EHYB_SLICE)                                                          \
                        sum += (double)ev[k] * (double)x[cp[F->ell_col[k]]];                           \
                    const int32_t i = F->row_perm[r];                                                  \
                    y[i] = (VT)(b == 0.0 ? a * sum : a * sum + b * (double)y[i]);                      \
                }                                                                                      \
            }                                                                                          \
            _Pragma("omp for schedule(dynamic, 64) nowait")                                            \
            for (int32_t s = 0; s < F->n_er_slices; s++)                                               \
                for (int l = 0; l < SPX_EHYB_SLICE; l++) {                                             \
                    const int32_t i = F->er_row[(int64_t)s * SPX_EHYB_SLICE + l];                      \
                    if (i < 0) continue;                                                               \
                    double sum = 0.0;                                                                  \
                    for (int64_t k = F->er_ptr[s] + l; k < F->er_ptr[s + 1]; k += SPX_EHYB_SLICE)      \
                        if (F->er_col[k] >= 0) sum += (double)rv[k] * (double)x[F->er_col[k]];         \
                    y[i] = (VT)((double)y[i] + a * sum);                                               \
                }                                                                                      \
            _Pragma("omp for schedule(dynamic, 1)")                                                    \
            for (int32_t li = 0; li < F->n_long; li++) {                                               \
                double sum = 0.0;                                                                      \
                for (int64_t k = F->long_ptr[li]; k < F->long_ptr[li + 1]; k++)                        \
                    sum += (double)lv[k] * (double)x[F->long_col[k]];                                  \
                const int32_t i = F->long_row[li];                                                     \
                y[i] = (VT)((double)y[i] + a * sum);                                                   \
            }                                                                                          \
        }                                                                                              \
    }

SPX_EHYB_CPU_KERNEL(ehyb_spmv_cpu_f64, double)
SPX_EHYB_CPU_KERNEL(ehyb_spmv_cpu_f32, float)

spx_status spx_ehyb_fmt_spmv_cpu(spx_ctx *ctx, const spx_ehyb_fmt *F, spx_precision prec, double a, const void *x,
                                 double b, void *y)
{
    if (prec != F->precision) return spx_fail(ctx, SPX_ERR_ARG, "ehyb: precision differs from the plan's");
    const int nt = spx_ctx_threads(ctx);
    if (prec == SPX_FP32)
        ehyb_spmv_cpu_f32(F, a, x, b, y, nt);
    else
        ehyb_spmv_cpu_f64(F, a, x, b, y, nt);
    return SPX_OK;
}
