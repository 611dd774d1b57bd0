/* src/formats/ehyb/ehyb_cpu.c: CPU SpMV on the ehyb layout (the oracle of the CUDA path, the
 * same order of additions): OpenMP over parts; each row's G lanes sum their ELL entries (x
 * read through the column permutation, or in plan order straight from the segment) and then
 * their ER entries, the lanes' sums are combined as the GPU's butterfly combines them, y is
 * written through the row permutation (plan order: at the new row) (y = a*sum + b*y); then the long rows, 32 strided lane sums combined the same way. Sums in
 * double. (The GPU may fuse a multiply and its add into one rounding, so fp64 results can
 * still differ in the last bits.) */
#include "core/ctx.h"
#include "formats/ehyb/ehyb.h"
#include "formats/ehyb/ehyb_tuning.h"

/* Lane sums lane[0..G) combined as the warp's xor butterfly leaves them in the group's first
 * lane: for offset G/2 .. 1, lane g < offset adds lane g + offset (addition commutes, so
 * this is the order __shfl_xor_sync gives). */
static double combine_lanes(double *lane, int32_t G)
{
    for (int32_t off = G / 2; off >= 1; off /= 2)
        for (int32_t g = 0; g < off; g++) lane[g] += lane[g + off];
    return lane[0];
}

/* One SpMV per value type. A lane's ELL loop stops at its first padding slot (offset =
 * segment length, adding 0 there would not change the sum); ER padding has column -1. */
#define SPX_EHYB_CPU_KERNEL(NAME, VT)                                                                  \
    static void NAME(const spx_ehyb_fmt *F, double a, const VT *x, double b, VT *y, int nt)            \
    {                                                                                                  \
        const VT *ev = (const VT *)F->ell_val, *rv = (const VT *)F->er_val, *lv = (const VT *)F->long_val; \
        const int32_t G = F->lanes, R = spx_ehyb_slice_rows(F);                                        \
        _Pragma("omp parallel num_threads(nt)")                                                        \
        {                                                                                              \
            _Pragma("omp for schedule(dynamic, 1) nowait")                                             \
            for (int32_t p = 0; p < F->nparts; p++) {                                                  \
                const int32_t r0 = F->row_start[p], r1 = F->row_start[p + 1];                          \
                const int32_t c0 = F->col_start[p], *cp = F->plan_order ? NULL : F->col_perm + c0;       \
                const uint16_t pad = (uint16_t)(F->col_start[p + 1] - F->col_start[p]);                 \
                for (int32_t r = r0; r < r1; r++) {                                                    \
                    const int32_t s = F->part_slice[p] + (r - r0) / R, q = (r - r0) % R;               \
                    double lane[SPX_EHYB_WARP];                                                        \
                    for (int32_t g = 0; g < G; g++) {                                                  \
                        double sum = 0.0;                                                              \
                        const int64_t first = F->ell_ptr[s] + (int64_t)q * G + g;                      \
                        for (int64_t k = first; k < F->ell_ptr[s + 1] && F->ell_col[k] != pad; k += SPX_EHYB_WARP) \
                            sum += (double)ev[k] * (double)x[cp ? cp[F->ell_col[k]] : c0 + F->ell_col[k]]; \
                        for (int64_t k = F->er_ptr[s] + (int64_t)q * G + g; k < F->er_ptr[s + 1]; k += SPX_EHYB_WARP) \
                            if (F->er_col[k] >= 0) sum += (double)rv[k] * (double)x[F->er_col[k]];     \
                        lane[g] = sum;                                                                 \
                    }                                                                                  \
                    const double sum = combine_lanes(lane, G);                                         \
                    const int32_t i = F->plan_order ? r : F->row_perm[r];                              \
                    y[i] = (VT)(b == 0.0 ? a * sum : a * sum + b * (double)y[i]);                      \
                }                                                                                      \
            }                                                                                          \
            _Pragma("omp for schedule(dynamic, 1)")                                                    \
            for (int32_t li = 0; li < F->n_long; li++) {                                               \
                double lane[SPX_EHYB_WARP];                                                            \
                for (int32_t l = 0; l < SPX_EHYB_WARP; l++) {                                          \
                    double part = 0.0;                                                                 \
                    for (int64_t k = F->long_ptr[li] + l; k < F->long_ptr[li + 1]; k += SPX_EHYB_WARP) \
                        part += (double)lv[k] * (double)x[F->long_col[k]];                             \
                    lane[l] = part;                                                                    \
                }                                                                                      \
                const double sum = combine_lanes(lane, SPX_EHYB_WARP);                                 \
                const int32_t i = F->long_row[li];                                                     \
                y[i] = (VT)(b == 0.0 ? a * sum : a * sum + b * (double)y[i]);                          \
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
