/* include/spx/gen.h: deterministic matrix generators. */
#ifndef SPX_GEN_H
#define SPX_GEN_H

#include "spx/matrix.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API: exported by libspx.so */

/* Generates a matrix from a spec "gen:NAME:key=value,..." (the "gen:" prefix optional).
 * Values are uniform in [-1, 1] from the seed (key seed, default 1); same spec, same matrix.
 * Names: poisson2d, poisson3d, stencil27, rmat, uniform, powerlaw, banded, blockdiag, tall,
 * wide. Keys: m rows, n columns (grid side for stencils), k per-row count, scale, ef, sym,
 * seed, and per-generator extras (spx_gen_help lists them). */
spx_status spx_gen(spx_ctx *ctx, const char *spec, spx_csr **out);
/* Multi-line help: each generator, its keys and defaults. */
const char *spx_gen_help(void);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
