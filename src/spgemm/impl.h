/* src/spgemm/impl.h: the SpGEMM implementation table (analyse, symbolic, update_values,
 * numeric, destroy) every method fills, the inputs it receives, and the registry over
 * src/spgemm/impls.def. A NULL slot among the optional ones means "not supported". */
#ifndef SPX_SPGEMM_IMPL_H
#define SPX_SPGEMM_IMPL_H

#include "core/ctx.h"
#include "core/phase.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What an implementation multiplies: A (m x k) times B (k x n) with sorted columns (B already
 * transposed by the plan when asked), in the plan's precision, with the resolved algorithm (an
 * entry of the impl's algos, or NULL when it has none). A and B: host CSRs, or NULL where an
 * operand is only on the device (a GPU impl then has dev_a, dev_b). dev_a, dev_b: the operands
 * already on the device as its kernels take them (spx_dev_csr, int32 row pointers, the plan's
 * precision; the caller's, kept until the impl's state is destroyed: the plan's staged operands,
 * or the out-of-core panels' resident B), or NULL: a GPU impl uploads that operand itself (B
 * shares A's upload when B is A). */
typedef struct spx_spgemm_input {
    const spx_csr *A, *B;
    spx_precision precision;
    const char *algo;
    const void *dev_a, *dev_b;
} spx_spgemm_input;

/* Implementation flags. */
enum {
    SPX_SPGEMM_BASELINE = 1u << 0 /* a vendor library measured as the reference */
};

typedef struct spx_spgemm_impl {
    const char *name;
    const char *summary;
    const char *const *algos; /* NULL-terminated, algos[0] the default; NULL: none */
    spx_backend backend;      /* CPU or CUDA */
    unsigned flags;           /* SPX_SPGEMM_* */
    /* Pre-analysis: whatever the method keeps (uploads on the GPU), the products C needs
     * (*products). *state is set only on success. */
    spx_status (*analyse)(spx_ctx *ctx, const spx_spgemm_input *in, spx_phase_log *log, void **state,
                          int64_t *products);
    /* Symbolic: C's row lengths, hence its row pointers, exactly; *nnz_c their total. */
    spx_status (*symbolic)(spx_ctx *ctx, void *state, spx_phase_log *log, int64_t *nnz_c);
    /* The values of in's matrices changed (same pattern): re-read them. */
    spx_status (*update_values)(spx_ctx *ctx, void *state, const spx_spgemm_input *in, spx_phase_log *log);
    /* Numeric: fills C, allocated by the plan for the symbolic nnz_c (rowptr, colind, val),
     * with sorted columns. May leave C partly written on failure. */
    spx_status (*numeric)(spx_ctx *ctx, void *state, spx_phase_log *log, spx_csr *C);
    void (*destroy)(spx_ctx *ctx, void *state);
    /* The kernel (or CPU loop) that computes C. */
    const char *(*kernel_name)(const void *state);
    /* Optional (the out-of-core panels' CPU side), after symbolic: rows [r0, r1) of C on
     * `threads` threads into colind and val, which start at row r0's first entry. */
    spx_status (*numeric_rows)(spx_ctx *ctx, void *state, int32_t r0, int32_t r1, int threads, int32_t *colind,
                               double *val);
    /* Optional, after symbolic: C's row pointers (m + 1) into rowptr. */
    void (*row_pointers)(const void *state, int64_t *rowptr);
    /* Optional (the out-of-core panels' GPU side), in place of analyse and symbolic: C's row
     * pointers given (rowptr: m + 1 from 0, exact, e.g. another symbolic phase of the same
     * product's rows; read during the call only), the state ready for numeric without
     * counting. */
    spx_status (*analyse_rows)(spx_ctx *ctx, const spx_spgemm_input *in, const int64_t *rowptr, spx_phase_log *log,
                               void **state);
    /* Optional (GPU impls): numeric into the device CSR C the plan allocated for nnz_c entries
     * (its rowptr_type, the plan's precision), row pointers included; returns once C is
     * complete on the device. May leave C partly written on failure. */
    spx_status (*numeric_dev)(spx_ctx *ctx, void *state, spx_phase_log *log, spx_csr_dev *C);
} spx_spgemm_impl;

/* The registry: the impl of that name (NULL: unknown) and whether it is built. */
int spx_spgemm_impl_count(void);
/* The i-th impl's name and table (NULL table: a CUDA impl in a build without CUDA). */
const char *spx_spgemm_impl_name(int i);
const spx_spgemm_impl *spx_spgemm_impl_at(int i);
/* The index of the impl called name, or -1. */
int spx_spgemm_impl_find(const char *name);
/* Whether name is one of impl's algorithms. */
int spx_spgemm_impl_has_algo(const spx_spgemm_impl *impl, const char *name);

/* Every implementation's table getter, from impls.def: the CPU ones defined by their .c files,
 * the CUDA ones by their .cu files (their GPU halves; NULL in builds without CUDA:
 * src/spgemm/spgemm_stub.c). */
#define SPX_SPGEMM_GETTER(name) const spx_spgemm_impl *spx_spgemm_##name(void);
#define SPX_SPGEMM_IMPL(name, site) SPX_SPGEMM_GETTER(name)
#include "spgemm/impls.def"
#undef SPX_SPGEMM_IMPL

#ifdef __cplusplus
}
#endif
#endif
