/* tests/spgemm_ooc_check.h: what the out-of-core SpGEMM tests share (CPU: test_spgemm_ooc.c,
 * GPU: test_spgemm_ooc_gpu.c): a product in panels under a device budget, the smallest
 * budget a product's panels fit (found by bisection, whatever the byte model's constants),
 * an exact comparison of two results, and the checks of a run's timeline. */
#ifndef SPX_TESTS_SPGEMM_OOC_CHECK_H
#define SPX_TESTS_SPGEMM_OOC_CHECK_H

#include "spgemm_check.h"

/* Room for a status name and the context's last error. */
#define OC_MSG_LEN 640

/* Plans and runs A*B with options o; *C, *info (when info) and up to ev_cap timeline events
 * (when n_ev) on success (the caller destroys *C); the plan is destroyed. */
static inline spx_status oc_run(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, const spx_spgemm_opts *o, spx_csr **C,
                                spx_spgemm_info *info, spx_spgemm_panel_event *ev, int ev_cap, int *n_ev)
{
    spx_spgemm_plan *plan = NULL;
    spx_status s = spx_spgemm_plan_create(ctx, A, B, o, &plan);
    if (!s) s = spx_spgemm_run(plan, C);
    if (!s && info) spx_spgemm_plan_get_info(plan, info);
    if (!s && n_ev) *n_ev = spx_spgemm_plan_timeline(plan, ev, ev_cap);
    spx_spgemm_plan_destroy(&plan);
    return s;
}

/* Plans and runs A*B (A*B^T) with the panel mode, device limit, GPU share and B's column
 * blocks (oc_run). */
static inline spx_status oc_product(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, int transpose_b, spx_precision p,
                             spx_spgemm_panels panels, size_t limit, double share, int b_blocks, spx_csr **C,
                             spx_spgemm_info *info, spx_spgemm_panel_event *ev, int ev_cap, int *n_ev)
{
    spx_spgemm_opts o = {.precision = p, .transpose_b = transpose_b, .device_mem_limit = limit, .panels = panels,
                         .gpu_share = share, .b_col_blocks = b_blocks};
    if (panels == SPX_PANELS_CPU) o.backend = SPX_BACKEND_CPU;
    return oc_run(ctx, A, B, &o, C, info, ev, ev_cap, n_ev);
}

/* The in-core product on the CPU (Gustavson, panels off) into *R: the bit-for-bit reference of
 * CPU panels on any context. */
static inline spx_status oc_cpu_product(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, int transpose_b,
                                        spx_precision p, spx_csr **R)
{
    const spx_spgemm_opts o = {.backend = SPX_BACKEND_CPU, .precision = p, .transpose_b = transpose_b, .panels = SPX_PANELS_OFF};
    return oc_run(ctx, A, B, &o, R, NULL, NULL, 0, NULL);
}

/* Whether a plan with this limit and B's column blocks (b_blocks, as b_col_blocks) can be made
 * (panels CPU, the sizing is the same for every split); when not, its message into msg. */
static inline int oc_plan_fits(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, int transpose_b, spx_precision p,
                        int b_blocks, size_t limit, char *msg, size_t len)
{
    spx_spgemm_opts o = {.backend = SPX_BACKEND_CPU, .precision = p, .transpose_b = transpose_b,
                         .device_mem_limit = limit, .panels = SPX_PANELS_CPU, .b_col_blocks = b_blocks};
    spx_spgemm_plan *plan = NULL;
    spx_status s = spx_spgemm_plan_create(ctx, A, B, &o, &plan);
    if (s && msg) snprintf(msg, len, "%s: %s", spx_status_str(s), spx_ctx_last_error(ctx));
    spx_spgemm_plan_destroy(&plan);
    return s == SPX_OK;
}

/* The smallest limit (bytes) the product's panels fit with B's column blocks b_blocks (as
 * b_col_blocks), by bisection from 1 GB; the message of the one byte less into msg. 0 when
 * even 1 GB does not fit. */
static inline size_t oc_min_budget(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, int transpose_b, spx_precision p,
                            int b_blocks, char *msg, size_t len)
{
    size_t lo = 1, hi = (size_t)1 << 30;
    if (!oc_plan_fits(ctx, A, B, transpose_b, p, b_blocks, hi, NULL, 0)) return 0;
    while (hi - lo > 1) {
        const size_t mid = lo + (hi - lo) / 2;
        if (oc_plan_fits(ctx, A, B, transpose_b, p, b_blocks, mid, NULL, 0)) hi = mid;
        else lo = mid;
    }
    oc_plan_fits(ctx, A, B, transpose_b, p, b_blocks, lo, msg, len);
    return hi;
}

/* Whether C and R are the same CSR, bit for bit. */
static inline int oc_identical(const spx_csr *C, const spx_csr *R)
{
    return C && R && C->m == R->m && C->n == R->n && C->nnz == R->nnz &&
           !memcmp(C->rowptr, R->rowptr, ((size_t)R->m + 1) * sizeof *R->rowptr) &&
           (!R->nnz || (!memcmp(C->colind, R->colind, (size_t)R->nnz * sizeof *R->colind) &&
                        !memcmp(C->val, R->val, (size_t)R->nnz * sizeof *R->val)));
}

/* Whether C has R's structure exactly and values within tol of R's in relative 2-norm. */
static inline int oc_close(const spx_csr *C, const spx_csr *R, double tol)
{
    if (!C || !R || C->m != R->m || C->n != R->n || C->nnz != R->nnz ||
        memcmp(C->rowptr, R->rowptr, ((size_t)R->m + 1) * sizeof *R->rowptr) ||
        (R->nnz && memcmp(C->colind, R->colind, (size_t)R->nnz * sizeof *R->colind)))
        return 0;
    long double d = 0, r = 0;
    for (int64_t q = 0; q < R->nnz; q++) {
        const long double e = (long double)C->val[q] - R->val[q];
        d += e * e, r += (long double)R->val[q] * R->val[q];
    }
    return d <= (long double)tol * tol * (r > 0 ? r : 1);
}

/* Checks a run's timeline: n events, one per panel, whose rows cover [0, m) once, each with
 * ordered times from 0, on the sides the info counts. */
static inline void oc_check_timeline(const spx_spgemm_panel_event *ev, int n, const spx_spgemm_info *info, int32_t m,
                              const char *what)
{
    CHECK_MSG(n == info->panels && n == info->panels_gpu + info->panels_cpu, "%s: %d events, %d panels (%d + %d)",
              what, n, info->panels, info->panels_gpu, info->panels_cpu);
    unsigned char *seen = calloc((size_t)m + 1, 1);
    int bad = 0, gpu = 0;
    for (int i = 0; i < n; i++) {
        const spx_spgemm_panel_event *e = &ev[i];
        gpu += e->on_gpu;
        bad += !(e->row0 < e->row1 && e->row0 >= 0 && e->row1 <= m);
        bad += !(0 <= e->upload0 && e->upload0 <= e->upload1 && e->upload1 <= e->compute0 + 1e-12 &&
                 e->compute0 <= e->compute1 && e->compute1 <= e->download0 + 1e-12 && e->download0 <= e->download1);
        bad += !e->on_gpu && (e->upload1 != e->upload0 || e->download1 != e->download0);
        for (int32_t r = e->row0; r < e->row1 && r < m && r >= 0; r++) bad += seen[r]++ != 0;
    }
    for (int32_t r = 0; n && r < m; r++) bad += !seen[r];
    free(seen);
    CHECK_MSG(!bad && gpu == info->panels_gpu, "%s: %d bad timeline entries, %d GPU events (info %d)", what, bad, gpu,
              info->panels_gpu);
}

#endif
