/* src/select/select.h: picks a format for a matrix when the user asks for "auto". */
#ifndef SPX_SELECT_H
#define SPX_SELECT_H

#include "core/ctx.h"

/* The registered format to use for a matrix of these features on backend b (never NULL). */
const char *spx_select_format(const spx_features *feat, spx_backend b);

#endif
