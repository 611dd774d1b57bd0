/* src/spgemm/operands.c: an SpGEMM plan's operands where its method reads them (operands.h):
 * the host checks, the device operands' host copies, B^T, the in-core GPU path's device
 * operands (views or checked uploads) and new values carried to every copy. */
#include <string.h>

#include "cuda/gateway.h"
#include "matrix/csr_sorted.h"
#include "spgemm/operands.h"
#include "spgemm/spgemm_internal.h"

const spx_csr *spx_spgemm_host_b(const spx_spgemm_operands_at *o) { return o->transpose_b ? o->Bt : o->B; }

/* SPX_ERR_ARG: operand `name` has a row (`row`) whose columns do not strictly increase. */
static spx_status unsorted(spx_ctx *ctx, const char *name, int64_t row)
{
    return spx_fail(ctx, SPX_ERR_ARG, "spgemm: %s row %lld has unsorted or repeated columns (spx builds them sorted)",
                    name, (long long)row);
}

/* Checks one host operand: CSR invariants and strictly increasing columns in every row. */
static spx_status check_operand(spx_ctx *ctx, const spx_csr *M, const char *name)
{
    spx_status s = spx_csr_check(ctx, M);
    if (s) return s;
    int32_t row = 0;
    return spx_csr_sorted_unique(ctx, M, &row) ? SPX_OK : unsorted(ctx, name, row);
}

spx_status spx_spgemm_check_host(spx_ctx *ctx, spx_spgemm_operands_at *o)
{
    if (o->checked) return SPX_OK;
    spx_status s = check_operand(ctx, o->A, "A");
    if (!s && o->B != o->A) s = check_operand(ctx, o->B, "B"); /* A * A and A * A^T: checked once */
    if (!s) o->checked = 1;
    return s;
}

spx_status spx_spgemm_download(spx_ctx *ctx, spx_spgemm_operands_at *o, int only_b, spx_phase_log *log)
{
    if (!o->dA || (o->hB && (only_b || o->hA))) return SPX_OK;
    const double t0 = spx_now();
    spx_status s = SPX_OK;
    if ((!only_b || o->dB == o->dA) && !o->hA) s = spx_csr_dev_download(o->dA, &o->hA);
    if (!s && !o->hB) {
        if (o->dB == o->dA) o->hB = o->hA;
        else s = spx_csr_dev_download(o->dB, &o->hB);
    }
    o->A = o->hA, o->B = o->hB;
    o->checked = 1; /* checked on the device when wrapped, sorted rows found at the plan */
    spx_phase_add(log, "download", spx_now() - t0);
    return s;
}

spx_status spx_spgemm_make_bt(spx_ctx *ctx, spx_spgemm_operands_at *o, spx_phase_log *log)
{
    if (!o->transpose_b || o->Bt) return SPX_OK;
    spx_status s = spx_spgemm_download(ctx, o, 1, log);
    if (s) return s;
    const double t0 = spx_now();
    s = spx_spgemm_transpose(ctx, o->B, &o->Bt, &o->bt_perm);
    spx_phase_add(log, "transpose", spx_now() - t0);
    return s;
}

/* A host operand uploaded as the kernels take it (int32 row pointers, the plan's precision),
 * checked on the device (sorted rows required), into *up and its view *v. */
static spx_status upload_operand(spx_ctx *ctx, const spx_csr *H, spx_precision p, const char *name, spx_csr_dev **up,
                                 spx_dev_csr *v)
{
    void *none = NULL; /* the upload has the kernels' types: the view converts nothing */
    spx_status s = spx_csr_dev_upload(ctx, H, SPX_INDEX_INT32, p, up);
    if (!s && (*up)->unsorted_row >= 0) s = unsorted(ctx, name, (*up)->unsorted_row);
    return s ? s : spx_cuda_csr_dev_view(ctx, *up, p, v, &none);
}

/* Stages A: the device operand viewed, or the host one uploaded (*uploaded set). */
static spx_status stage_a(spx_ctx *ctx, spx_spgemm_operands_at *o, int *uploaded)
{
    if (o->dA) return spx_cuda_csr_dev_view(ctx, o->dA, o->precision, &o->vA, &o->vblock[0]);
    *uploaded = 1;
    return upload_operand(ctx, o->A, o->precision, "A", &o->upA, &o->vA);
}

/* Stages B (B^T when transpose_b, made on the host): A's staging when B is A, the device
 * operand viewed, or the host one uploaded (*uploaded set). */
static spx_status stage_b(spx_ctx *ctx, spx_spgemm_operands_at *o, int *uploaded)
{
    if (!o->transpose_b && (o->dA ? o->dB == o->dA : o->B == o->A)) {
        o->vB = o->vA;
        return SPX_OK;
    }
    if (!o->transpose_b && o->dB) return spx_cuda_csr_dev_view(ctx, o->dB, o->precision, &o->vB, &o->vblock[1]);
    *uploaded = 1;
    return upload_operand(ctx, spx_spgemm_host_b(o), o->precision, o->transpose_b ? "B^T" : "B", &o->upB, &o->vB);
}

spx_status spx_spgemm_stage(spx_ctx *ctx, spx_spgemm_operands_at *o, spx_spgemm_input *in, spx_phase_log *log)
{
    if (o->staged) return SPX_OK;
    const double t0 = spx_now();
    int uploaded = 0;
    spx_status s = stage_a(ctx, o, &uploaded);
    if (!s) s = stage_b(ctx, o, &uploaded);
    if (s) {
        spx_spgemm_unstage(ctx, o, in);
        return s;
    }
    in->dev_a = &o->vA;
    in->dev_b = &o->vB;
    o->staged = 1;
    o->checked = 1; /* what was uploaded was checked on the device; device operands when wrapped */
    if (uploaded || o->vblock[0] || o->vblock[1]) spx_phase_add(log, uploaded ? "upload" : "view", spx_now() - t0);
    return SPX_OK;
}

void spx_spgemm_unstage(spx_ctx *ctx, spx_spgemm_operands_at *o, spx_spgemm_input *in)
{
    for (int i = 0; i < 2; i++) { /* stream-ordered: the kernels reading them are queued on the context's stream */
        spx_cuda_free_async(ctx, o->vblock[i]);
        o->vblock[i] = NULL;
    }
    spx_csr_dev_destroy(&o->upA);
    spx_csr_dev_destroy(&o->upB);
    memset(&o->vA, 0, sizeof o->vA);
    memset(&o->vB, 0, sizeof o->vB);
    in->dev_a = in->dev_b = NULL;
    o->staged = 0;
}

/* The host copy H of the device operand D takes D's values again. */
static spx_status redownload_values(spx_ctx *ctx, const spx_csr_dev *D, spx_csr *H)
{
    return spx_cuda_download_values(ctx, H->val, D->val, D->precision, D->nnz);
}

/* The staged copies take the operands' new values: uploaded ones from the host, converted
 * views from the device operands (views in place read them already). */
static spx_status refresh_staged(spx_ctx *ctx, spx_spgemm_operands_at *o)
{
    spx_status s = o->upA ? spx_cuda_csr_dev_fill(ctx, o->A, o->upA, 1) : spx_cuda_csr_dev_revalue(ctx, o->dA, &o->vA);
    if (s || o->vB.val == o->vA.val) return s;
    return o->upB ? spx_cuda_csr_dev_fill(ctx, spx_spgemm_host_b(o), o->upB, 1)
                  : spx_cuda_csr_dev_revalue(ctx, o->dB, &o->vB);
}

spx_status spx_spgemm_refresh(spx_ctx *ctx, spx_spgemm_operands_at *o)
{
    spx_status s = SPX_OK;
    if (o->hA) s = redownload_values(ctx, o->dA, o->hA);
    if (!s && o->hB && o->hB != o->hA) s = redownload_values(ctx, o->dB, o->hB);
    if (!s && o->Bt) spx_spgemm_transpose_values(o->B, o->bt_perm, o->Bt, spx_ctx_threads(ctx));
    return s || !o->staged ? s : refresh_staged(ctx, o);
}

void spx_spgemm_operands_free(spx_ctx *ctx, spx_spgemm_operands_at *o, spx_spgemm_input *in)
{
    spx_spgemm_unstage(ctx, o, in);
    if (o->hB != o->hA) spx_csr_destroy(&o->hB);
    spx_csr_destroy(&o->hA);
    o->hB = NULL;
    spx_csr_destroy(&o->Bt);
    spx_free(ctx, o->bt_perm);
    o->bt_perm = NULL;
}
