/* src/vec/vec_internal.h: what other library modules (the solvers) may ask of a vector beyond
 * the public API: the context it belongs to, for messages and for work vectors beside it. */
#ifndef SPX_VEC_VEC_INTERNAL_H
#define SPX_VEC_VEC_INTERNAL_H

#include "spx/vector.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The context v was made in (NULL for NULL). */
spx_ctx *spx_vec_ctx(const spx_vec *v);

#ifdef __cplusplus
}
#endif
#endif
