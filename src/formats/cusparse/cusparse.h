/* src/formats/cusparse/cusparse.h: the cusparse baseline's host layout. */
#ifndef SPX_FORMATS_CUSPARSE_H
#define SPX_FORMATS_CUSPARSE_H

#include "formats/csr/csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The matrix in the csr layout plus the cuSPARSE algorithm (1 = CSR_ALG1, 2 = CSR_ALG2). */
typedef struct spx_cusparse_host {
    spx_csr_fmt *csr;
    int alg;
} spx_cusparse_host;

#ifdef __cplusplus
}
#endif
#endif
