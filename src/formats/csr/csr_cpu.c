/* src/formats/csr/csr_cpu.c: CPU SpMV and SpMM on the csr layout: OpenMP, each thread a
 * contiguous range of rows holding an equal share of nonzeros (plus one unit per row, so long
 * runs of empty rows are shared out too); SpMM a row at a time (src/spmv/spmm_row.h). */
#include <omp.h>

#include "core/ctx.h"
#include "formats/csr/csr.h"
#include "spmv/spmm_row.h"

/* First row r in [0, m] with rowptr[r] + r >= target (rows weigh their nonzeros plus one). */
static int32_t partition_row(const int32_t *rowptr, int32_t m, int64_t target)
{
    int32_t lo = 0, hi = m;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if ((int64_t)rowptr[mid] + mid < target)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The rows [*r0, *r1) of thread t of T: an equal share of nonzeros plus rows. */
static void thread_rows(const spx_csr_fmt *F, int t, int T, int32_t *r0, int32_t *r1)
{
    const int64_t work = F->nnz + F->m;
    *r0 = partition_row(F->rowptr, F->m, work * t / T);
    *r1 = partition_row(F->rowptr, F->m, work * (t + 1) / T);
}

/* One row-range SpMV per value type; sums are accumulated in double for either type. */
#define SPX_CSR_CPU_KERNEL(NAME, VT)                                                              \
    static void NAME(const spx_csr_fmt *F, const VT *val, double a, const VT *x, double b, VT *y, \
                     int nt)                                                                      \
    {                                                                                             \
        _Pragma("omp parallel num_threads(nt)")                                                   \
        {                                                                                         \
            int32_t r0, r1;                                                                       \
            thread_rows(F, omp_get_thread_num(), omp_get_num_threads(), &r0, &r1);                \
            for (int32_t i = r0; i < r1; i++) {                                                   \
                double sum = 0.0;                                                                 \
                for (int32_t k = F->rowptr[i]; k < F->rowptr[i + 1]; k++)                         \
                    sum += (double)val[k] * (double)x[F->colind[k]];                              \
                y[i] = (VT)(b == 0.0 ? a * sum : a * sum + b * (double)y[i]);                     \
            }                                                                                     \
        }                                                                                         \
    }

SPX_CSR_CPU_KERNEL(csr_spmv_cpu_f64, double)
SPX_CSR_CPU_KERNEL(csr_spmv_cpu_f32, float)

spx_status spx_csr_fmt_spmv_cpu(spx_ctx *ctx, const spx_csr_fmt *F, spx_precision prec, double a,
                                const void *x, double b, void *y)
{
    if (prec != F->precision) return spx_fail(ctx, SPX_ERR_ARG, "csr: precision differs from the plan's");
    int nt = spx_ctx_threads(ctx);
    if (prec == SPX_FP32)
        csr_spmv_cpu_f32(F, F->val32, a, x, b, y, nt);
    else
        csr_spmv_cpu_f64(F, F->val64, a, x, b, y, nt);
    return SPX_OK;
}

/* One SpMM per value type: each thread's rows as the SpMV splits them, a row at a time. */
#define SPX_CSR_CPU_SPMM(NAME, ROW, VT)                                                                 \
    static void NAME(const spx_csr_fmt *F, const VT *val, const spx_spmm_args *a, int nt)                \
    {                                                                                                   \
        _Pragma("omp parallel num_threads(nt)")                                                         \
        {                                                                                               \
            int32_t r0, r1;                                                                             \
            thread_rows(F, omp_get_thread_num(), omp_get_num_threads(), &r0, &r1);                      \
            for (int32_t i = r0; i < r1; i++)                                                           \
                ROW(F->colind + F->rowptr[i], val + F->rowptr[i], F->rowptr[i + 1] - F->rowptr[i], a, i); \
        }                                                                                               \
    }

SPX_CSR_CPU_SPMM(csr_spmm_cpu_f64, spx_spmm_row_f64, double)
SPX_CSR_CPU_SPMM(csr_spmm_cpu_f32, spx_spmm_row_f32, float)

spx_status spx_csr_fmt_spmm_cpu(spx_ctx *ctx, const spx_csr_fmt *F, const spx_spmm_args *a)
{
    if (a->precision != F->precision) return spx_fail(ctx, SPX_ERR_ARG, "csr: precision differs from the plan's");
    const int nt = spx_ctx_threads(ctx);
    if (a->precision == SPX_FP32)
        csr_spmm_cpu_f32(F, F->val32, a, nt);
    else
        csr_spmm_cpu_f64(F, F->val64, a, nt);
    return SPX_OK;
}
