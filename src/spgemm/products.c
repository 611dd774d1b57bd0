/* src/spgemm/products.c: the products C = A*B forms, row by row (the upper bound of C's row
 * lengths): what the CPU method sizes its chunks by and the out-of-core path its panels. */
#include "spgemm/spgemm_internal.h"

int64_t spx_spgemm_row_products(const spx_csr *A, const spx_csr *B, int64_t *prod, int threads)
{
    int64_t total = 0;
#pragma omp parallel for schedule(static) num_threads(threads > 0 ? threads : 1) reduction(+ : total)
    for (int32_t i = 0; i < A->m; i++) {
        int64_t p = 0;
        for (int64_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) p += B->rowptr[A->colind[q] + 1] - B->rowptr[A->colind[q]];
        if (prod) prod[i] = p;
        total += p;
    }
    return total;
}
