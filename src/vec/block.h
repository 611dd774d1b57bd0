/* src/vec/block.h: the storage every dense operand shares, on the host or the device: `lines`
 * lines of `len` entries, `ld` entries apart. A vector is one line; a column-major block's
 * lines are its columns, a row-major block's its rows. Its checks, allocation (zero-filled),
 * the wrapped pointer's backend, and fp64 host copies in and out (fp32 converted, through a
 * bounded staging buffer for the device): the code spx_vec and spx_dense share. */
#ifndef SPX_VEC_BLOCK_H
#define SPX_VEC_BLOCK_H

#include <stdint.h>

#include "core/ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spx_block {
    spx_ctx *ctx;
    spx_backend backend; /* CPU or CUDA */
    spx_precision precision;
    int64_t lines, len, ld; /* ld >= len, ld >= 1 */
    void *data;             /* NULL when there is no entry */
    int owns;               /* data belongs to the block (0: wrapped) */
} spx_block;

/* SPX_OK when b and p name a backend and a precision and lines, len and ld storage whose span
 * can be addressed in bytes (lines, len >= 0; ld >= len and ld >= 1); else SPX_ERR_ARG (or
 * SPX_ERR_OVERFLOW for a span past the address space) with "<fn>: ..." in ctx. */
spx_status spx_block_check(spx_ctx *ctx, const char *fn, spx_backend b, spx_precision p, int64_t lines, int64_t len,
                           int64_t ld);
/* The entries B spans: (lines - 1) * ld + len, 0 when empty. */
int64_t spx_block_span(const spx_block *B);
/* B->data = new zero-filled storage of B->lines x B->len entries on B->backend with B->ld = B->len
 * (at least 1), B->owns = 1; `what` names it in messages. A device block is ready for any stream
 * (synchronised). On failure B->data is NULL and nothing is held. */
spx_status spx_block_alloc(spx_block *B, const char *what);
/* Frees B's data when it owns it; B->data = NULL. */
void spx_block_free(spx_block *B);
/* The backend wrapped data lives on: b when given (CUDA checked to be the context's device
 * memory), else whichever the pointer is (the context's resolution when data is NULL). */
spx_status spx_block_wrap_backend(spx_ctx *ctx, const char *fn, spx_backend b, const void *data, spx_backend *out);
/* B = host, fp64 lines host_ld apart (rounded to nearest for fp32). */
spx_status spx_block_set(spx_block *B, const double *host, int64_t host_ld);
/* host = B as fp64, lines host_ld apart; host's entries between lines left alone. */
spx_status spx_block_get(const spx_block *B, double *host, int64_t host_ld);

#ifdef __cplusplus
}
#endif
#endif
