/* include/spx/spx.h: the umbrella header of libspx. */
#ifndef SPX_SPX_H
#define SPX_SPX_H

#include "spx/status.h"
#include "spx/context.h"
#include "spx/matrix.h"
#include "spx/dense.h"
#include "spx/plan.h"
#include "spx/spgemm.h"
#include "spx/vector.h"
#include "spx/solve.h"
#include "spx/io.h"
#include "spx/gen.h"
#include "spx/bench.h"

#define SPX_VERSION "0.1.0"

#endif
