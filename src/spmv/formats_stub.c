/* src/spmv/formats_stub.c: the formats' GPU halves for builds without CUDA: none has one. */
#include "spmv/format.h"

#define SPX_FORMAT(name) \
    const spx_format_cuda *spx_##name##_cuda(void) { return NULL; }
#include "spmv/formats.def"
#undef SPX_FORMAT
