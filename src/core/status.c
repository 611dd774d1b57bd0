/* src/core/status.c: names of status codes. */
#include "spx/status.h"

/* The status's enum name; "SPX_ERR_UNKNOWN" for values outside the enum. */
const char *spx_status_str(spx_status s)
{
    switch (s) {
    case SPX_OK: return "SPX_OK";
    case SPX_ERR_ARG: return "SPX_ERR_ARG";
    case SPX_ERR_NOMEM: return "SPX_ERR_NOMEM";
    case SPX_ERR_IO: return "SPX_ERR_IO";
    case SPX_ERR_PARSE: return "SPX_ERR_PARSE";
    case SPX_ERR_UNSUPPORTED: return "SPX_ERR_UNSUPPORTED";
    case SPX_ERR_OVERFLOW: return "SPX_ERR_OVERFLOW";
    case SPX_ERR_NOT_COMPILED: return "SPX_ERR_NOT_COMPILED";
    case SPX_ERR_NO_DEVICE: return "SPX_ERR_NO_DEVICE";
    case SPX_ERR_CUDA: return "SPX_ERR_CUDA";
    case SPX_ERR_VERIFY: return "SPX_ERR_VERIFY";
    case SPX_ERR_DEVICE_ALLOC: return "SPX_ERR_DEVICE_ALLOC";
    }
    return "SPX_ERR_UNKNOWN";
}
