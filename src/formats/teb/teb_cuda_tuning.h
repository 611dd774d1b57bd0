/* src/formats/teb/teb_cuda_tuning.h: launch shapes of the teb CUDA kernels, each with where its
 * value comes from ("guess" = to be measured on the H100/H200). Each can be overridden at build
 * time (-DSPX_TEB_CUDA_BLOCK=128 in CMAKE_CUDA_FLAGS) to measure a variant. */
#ifndef SPX_FORMATS_TEB_CUDA_TUNING_H
#define SPX_FORMATS_TEB_CUDA_TUNING_H

/* Threads of the thread block that computes one TEB sub-block (both kernels). Guess: 8 warps,
 * as csr's scalar; the selection's SPX_TEB_MIN_BLOCK_NNZ gives it 8 nonzeros a thread at least.
 * The paper leaves it open (one thread a row, rows beyond blockDim were not considered). */
#ifndef SPX_TEB_CUDA_BLOCK
#define SPX_TEB_CUDA_BLOCK 256
#endif

#endif
