/* src/spgemm/spgemm_stub.c: the SpGEMM implementations' GPU tables for builds without CUDA:
 * each is NULL, so the registry lists the method as not built and a plan asking for it
 * fails with SPX_ERR_NOT_COMPILED. */
#include "spgemm/impl.h"

#define SPX_SPGEMM_STUB_CPU(name)
#define SPX_SPGEMM_STUB_CUDA(name) \
    const spx_spgemm_impl *spx_spgemm_##name(void) { return NULL; }
#define SPX_SPGEMM_IMPL(name, site) SPX_SPGEMM_STUB_##site(name)
#include "spgemm/impls.def"
#undef SPX_SPGEMM_IMPL
