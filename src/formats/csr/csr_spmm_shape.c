/* src/formats/csr/csr_spmm_shape.c: the csr format's CUDA SpMM shapes (lanes a row, columns a
 * lane, column chunks), their names, and the long rows' pieces; the limits are
 * csr_cuda_tuning.h's, the reasons beside them there. */
#include <stdio.h>

#include "formats/csr/csr_cuda_tuning.h"
#include "formats/csr/csr_spmm_shape.h"

/* The smallest power of two >= v, between lo and hi (powers of two, lo <= hi). */
static int pow2_at_least(double v, int lo, int hi)
{
    int p = lo;
    while (p < hi && (double)p < v) p *= 2;
    return p;
}

/* Row-major: column lanes, columns a lane and slots (csr_cuda_tuning.h). */
static void row_shape(int64_t k, double row_mean, spx_csr_spmm_shape *s)
{
    s->kind = SPX_CSR_SPMM_ROW;
    s->g = k >= 32 ? 32 : pow2_at_least((double)k, 1, 32);
    s->c = k > 32 ? pow2_at_least((double)((k + 31) / 32), 1, SPX_CSR_CUDA_SPMM_ROW_MAX_C) : 1;
    s->slots = pow2_at_least(row_mean / SPX_CSR_CUDA_SPMM_NZ_PER_SLOT, 1, 32 / s->g);
    s->lanes = s->g * s->slots;
    s->cols = (int64_t)s->g * s->c;
}

/* Column-major: lanes a row from the mean, columns a block. */
static void col_shape(double row_mean, spx_csr_spmm_shape *s)
{
    s->kind = SPX_CSR_SPMM_COL;
    s->g = s->c = s->slots = 1;
    s->lanes = pow2_at_least(row_mean / SPX_CSR_CUDA_SPMM_COL_NZ_PER_LANE, 1, 32);
    s->cols = SPX_CSR_CUDA_SPMM_COL_CHUNK;
}

void spx_csr_spmm_shape_of(int64_t k, spx_dense_layout layout, double row_mean, int64_t row_max,
                           spx_csr_spmm_shape *out)
{
    spx_csr_spmm_shape s = {0};
    if (k < 1) k = 1;
    if (!(row_mean >= 0)) row_mean = 0;
    if (layout == SPX_DENSE_COL_MAJOR && k == 1) {
        s.kind = SPX_CSR_SPMM_SPMV; /* column 0 is a vector wherever ld is: the SpMV as it is */
        s.g = s.c = s.slots = s.lanes = 1;
        s.cols = 1;
    } else if (layout == SPX_DENSE_ROW_MAJOR) {
        row_shape(k, row_mean, &s);
    } else {
        col_shape(row_mean, &s);
    }
    s.chunks = (k + s.cols - 1) / s.cols;
    s.long_rows = s.kind != SPX_CSR_SPMM_SPMV && row_max > SPX_CSR_CUDA_SPMM_LONG_MIN;
    *out = s;
}

void spx_csr_spmm_shape_name(const spx_csr_spmm_shape *s, const char *spmv_kernel, char *name, size_t cap)
{
    const char *tail = s->long_rows ? "+long" : "";
    if (s->kind == SPX_CSR_SPMM_SPMV)
        snprintf(name, cap, "csr_spmm_col_k1(%s)", spmv_kernel ? spmv_kernel : "?");
    else if (s->kind == SPX_CSR_SPMM_COL)
        snprintf(name, cap, "csr_spmm_col_l%d_t%d%s", s->lanes, SPX_CSR_CUDA_SPMM_COL_TILE, tail);
    else if (s->c > 1)
        snprintf(name, cap, "csr_spmm_row_g%dx%d_s%d%s", s->g, s->c, s->slots, tail);
    else
        snprintf(name, cap, "csr_spmm_row_g%d_s%d%s", s->g, s->slots, tail);
}

int64_t spx_csr_spmm_long_pieces(const int32_t *rowptr, int32_t m, int32_t *pieces)
{
    int64_t n = 0;
    for (int32_t r = 0; r < m; r++) {
        const int32_t b = rowptr[r], e = rowptr[r + 1];
        if (e - b <= SPX_CSR_CUDA_SPMM_LONG_MIN) continue;
        for (int64_t p = b; p < e; p += SPX_CSR_CUDA_SPMM_LONG_PIECE, n++)
            if (pieces) {
                pieces[2 * n] = r;
                pieces[2 * n + 1] = (int32_t)p;
            }
    }
    return n;
}
