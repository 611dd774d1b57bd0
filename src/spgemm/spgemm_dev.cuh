/* src/spgemm/spgemm_dev.cuh: what the SpGEMM GPU implementations share: the operands on the
 * device (the gateway's device CSR: int32 row pointers, values in the plan's precision) and
 * C's columns and values brought back into a host CSR whose row pointers the caller set. */
#ifndef SPX_SPGEMM_DEV_CUH
#define SPX_SPGEMM_DEV_CUH

#include "cuda/runtime.cuh"
#include "matrix/csr_dev.h"
#include "spgemm/impl.h"

/* A and B on the device, each borrowed (in->dev_a, in->dev_b: the caller's; B sharing A's
 * upload when B is A) or owned. */
typedef struct spx_spgemm_operands {
    spx_dev_csr A, B;
    int a_borrowed, b_borrowed;
} spx_spgemm_operands;

/* A and B of in on the device: borrowed where in gives them (dev_a, dev_b), else uploaded
 * (SPX_ERR_OVERFLOW beyond 2^31 - 1 nonzeros), B sharing A's upload when it is the same host
 * CSR; frees what it uploaded on failure. */
spx_status spx_spgemm_dev_upload(spx_ctx *ctx, const spx_spgemm_input *in, spx_spgemm_operands *out);
/* Frees what ops owns. */
void spx_spgemm_dev_free(spx_ctx *ctx, spx_spgemm_operands *ops);
/* The products A*B forms (sum over A's entries of B's row lengths), counted on the device
 * (one small download). */
spx_status spx_spgemm_dev_products(spx_ctx *ctx, const spx_dev_csr *A, const spx_dev_csr *B, int64_t *products);
/* Copies nnz columns and values (precision prec, device) into C->colind and C->val (fp64). */
spx_status spx_spgemm_dev_download(spx_ctx *ctx, const int32_t *colind, const void *val, spx_precision prec,
                                   int64_t nnz, spx_csr *C);

/* A device block being carved into arrays, cudaMalloc's alignment kept for each: with base
 * NULL the same carving only sizes the block (each layout function runs twice: sized, then
 * carved from the allocation), so a block's size and its arrays cannot disagree. */
typedef struct carver {
    unsigned char *base;
    size_t used;
} carver;

/* The next `bytes` of the block (NULL while sizing). */
static inline void *carve(carver *c, size_t bytes)
{
    const size_t align = 256;
    void *p = c->base ? c->base + c->used : NULL;
    c->used += (bytes + align - 1) / align * align;
    return p;
}

#endif
