/* src/select/select.h: picks a format and algorithm for a matrix when the user asks for "auto". */
#ifndef SPX_SELECT_H
#define SPX_SELECT_H

#include "core/ctx.h"

/* Fills *out with the choice for a matrix of these features on backend b (CPU or CUDA) at
 * precision p for about n SpMVs (n <= 0: SPX_SELECT_DEFAULT_SPMVS): always a format this build
 * can run on b (csr when the table's choice and runner-up cannot), with the reason. */
void spx_select_choose(const spx_features *feat, spx_backend b, spx_precision p, int64_t n, spx_selection *out);

#endif
