/* src/formats/cusparse/cusparse.h: the cusparse baseline's host layout. */
#ifndef SPX_FORMATS_CUSPARSE_H
#define SPX_FORMATS_CUSPARSE_H

#include <string.h>

#include "formats/csr/csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The matrix in the csr layout plus the cuSPARSE algorithm (1 = CSR_ALG1, 2 = CSR_ALG2, 3 =
 * SpMM's CSR_ALG3 with SpMV's ALG1). */
typedef struct spx_cusparse_host {
    spx_csr_fmt *csr;
    int alg;
} spx_cusparse_host;

/* The algorithm's number from its name (alg2 -> 2, alg3 -> 3; anything else, "auto" too: 1). */
static inline int spx_cusparse_alg_number(const char *name)
{
    return name && !strcmp(name, "alg3") ? 3 : name && !strcmp(name, "alg2") ? 2 : 1;
}

#ifdef __cplusplus
}
#endif
#endif
