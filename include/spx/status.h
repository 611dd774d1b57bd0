/* include/spx/status.h: status codes returned by every public spx function. */
#ifndef SPX_STATUS_H
#define SPX_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API: exported by libspx.so */

typedef enum spx_status {
    SPX_OK = 0,
    SPX_ERR_ARG = 1,           /* a bad argument: NULL, negative size, unknown name */
    SPX_ERR_NOMEM = 2,         /* a host allocation failed or would exceed the host budget */
    SPX_ERR_IO = 3,            /* a file could not be opened, read or written */
    SPX_ERR_PARSE = 4,         /* malformed input file */
    SPX_ERR_UNSUPPORTED = 5,   /* valid request this build or format does not support */
    SPX_ERR_OVERFLOW = 6,      /* a count does not fit the index type */
    SPX_ERR_NOT_COMPILED = 7,  /* the CUDA backend was not built */
    SPX_ERR_NO_DEVICE = 8,     /* CUDA built, but no usable GPU */
    SPX_ERR_CUDA = 9,          /* a CUDA runtime or library call failed */
    SPX_ERR_VERIFY = 10,       /* a result disagreed with the reference */
    SPX_ERR_DEVICE_ALLOC = 11  /* a device allocation failed or would exceed the device
                                  budget or the device's free memory */
} spx_status;

/* The status's name, e.g. "SPX_ERR_PARSE"; never NULL. */
const char *spx_status_str(spx_status s);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
