/* src/spgemm/operands.h: where an SpGEMM plan's operands are and where its method reads them:
 * host CSRs (checked on the host, or uploaded and checked on the device for the in-core GPU
 * path) or device CSRs (read in place by the GPU kernels, or downloaded once for what runs on
 * the host), B^T made on the host when asked, and new values carried to every copy. */
#ifndef SPX_SPGEMM_OPERANDS_H
#define SPX_SPGEMM_OPERANDS_H

#include "matrix/csr_dev.h"
#include "spgemm/impl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A plan's operands. */
typedef struct spx_spgemm_operands_at {
    spx_precision precision;
    int transpose_b;
    const spx_csr *A, *B;       /* host operands as given (B before any transpose): the caller's,
                                   or hA, hB; NULL while device operands have no host copy */
    const spx_csr_dev *dA, *dB; /* the caller's device operands, or NULL */
    spx_csr *hA, *hB;           /* dA, dB downloaded (hB == hA when dB is dA) */
    spx_csr *Bt;                /* B^T (host), when transpose_b */
    int64_t *bt_perm;           /* Bt->val[q] = B->val[bt_perm[q]] */
    spx_csr_dev *upA, *upB;     /* host operands (A; B or B^T) uploaded for the GPU kernels */
    spx_dev_csr vA, vB;         /* the operands as the GPU kernels take them (when staged) */
    void *vblock[2];            /* converted copies behind vA, vB (NULL: the operand's own arrays) */
    int staged;
    int checked; /* the host operands' contents are known sound with sorted rows */
} spx_spgemm_operands_at;

/* The operand B the method multiplies by (B^T when transpose_b), on the host; NULL while on
 * the device only. */
const spx_csr *spx_spgemm_host_b(const spx_spgemm_operands_at *o);
/* Checks the host operands (CSR invariants, strictly increasing columns), once. */
spx_status spx_spgemm_check_host(spx_ctx *ctx, spx_spgemm_operands_at *o);
/* Host copies of the device operands (phase "download"; B only with only_b), once. */
spx_status spx_spgemm_download(spx_ctx *ctx, spx_spgemm_operands_at *o, int only_b, spx_phase_log *log);
/* B^T on the host (phase "transpose"), B downloaded first when it is on the device. */
spx_status spx_spgemm_make_bt(spx_ctx *ctx, spx_spgemm_operands_at *o, spx_phase_log *log);
/* The operands on the device as the GPU kernels take them, into in->dev_a and in->dev_b:
 * device operands viewed in place (converted copies where their types differ: phase "view"),
 * host ones (A, B or B^T) uploaded and checked on the device (phase "upload"). Once. */
spx_status spx_spgemm_stage(spx_ctx *ctx, spx_spgemm_operands_at *o, spx_spgemm_input *in, spx_phase_log *log);
/* Undoes spx_spgemm_stage (the device copies freed; in->dev_a, dev_b cleared). */
void spx_spgemm_unstage(spx_ctx *ctx, spx_spgemm_operands_at *o, spx_spgemm_input *in);
/* New values in the caller's operands: carried to the host copies, B^T and the staged device
 * copies (phase "update_values" is the caller's). */
spx_status spx_spgemm_refresh(spx_ctx *ctx, spx_spgemm_operands_at *o);
/* Frees every copy. */
void spx_spgemm_operands_free(spx_ctx *ctx, spx_spgemm_operands_at *o, spx_spgemm_input *in);

#ifdef __cplusplus
}
#endif
#endif
