// Times single CUDA runtime calls the plan path makes (diagnostic, not part of spx).
#include <cstdio>
#include <chrono>
#include <cuda_runtime.h>
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
__global__ void k_noop(int *p) { if (p && threadIdx.x == 9999) p[0] = 1; }
int main() {
    cudaFree(0);
    cudaStream_t st; cudaStreamCreate(&st);
    size_t fr, tot;
    void *big = nullptr, *small = nullptr;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = now(); cudaMalloc(&big, (size_t)1600 << 20); double t1 = now();
        cudaMemset(big, 1, (size_t)1600 << 20); cudaDeviceSynchronize();
        double t2 = now(); cudaMemGetInfo(&fr, &tot); double t3 = now();
        cudaMalloc(&small, 32768); double t4 = now();
        cudaMemsetAsync(small, 0, 32768, st); k_noop<<<512, 256, 0, st>>>((int *)small); double t5 = now();
        static char host[32768]; cudaMemcpyAsync(host, small, 32768, cudaMemcpyDeviceToHost, st); cudaStreamSynchronize(st); double t6 = now();
        cudaFree(small); double t7 = now();
        cudaFree(big); double t8 = now();
        void *pa = nullptr; cudaMallocAsync(&pa, 32768, st); cudaFreeAsync(pa, st); cudaStreamSynchronize(st); double t9 = now();
        printf("rep %d: malloc1.6G %.1f us, memgetinfo %.1f us, malloc32K %.1f us, memset+launch %.1f us, d2h32K+sync %.1f us, free32K %.1f us, free1.6G %.1f us, mallocAsync+free+sync %.1f us\n",
               rep, 1e6*(t1-t0), 1e6*(t3-t2), 1e6*(t4-t3), 1e6*(t5-t4), 1e6*(t6-t5), 1e6*(t7-t6), 1e6*(t8-t7), 1e6*(t9-t8));
    }
    return 0;
}
