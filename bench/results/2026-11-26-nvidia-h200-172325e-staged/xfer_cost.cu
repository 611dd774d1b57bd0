// micro-benchmark: host<->device transfer paths for large arrays (not part of the project)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <vector>
#include <algorithm>
#include <omp.h>
#include <cuda_runtime.h>
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
static void pcopy(char *d, const char *s, size_t n, int th) {
#pragma omp parallel num_threads(th)
    { int t = omp_get_thread_num(), T = omp_get_num_threads(); size_t a = n * t / T, b = n * (t + 1) / T; memcpy(d + a, s + a, b - a); }
}
static void ptouch(char *d, size_t n, int th) {
#pragma omp parallel num_threads(th)
    { int t = omp_get_thread_num(), T = omp_get_num_threads(); size_t a = n * t / T, b = n * (t + 1) / T; memset(d + a, 1, b - a); }
}
// staged D2H: ring of nb pinned buffers of chunk bytes; host threads copy out the previous one
static double staged_d2h(char *dst, const char *dsrc, size_t n, size_t chunk, int nb, int th, cudaStream_t st) {
    static char *ring[8]; static size_t have = 0; static cudaEvent_t ev[8];
    if (have != chunk) { for (int i = 0; i < 8; i++) { if (ring[i]) cudaFreeHost(ring[i]); cudaMallocHost(&ring[i], chunk); if (!have) cudaEventCreateWithFlags(&ev[i], cudaEventDisableTiming);} have = chunk; }
    double t0 = now();
    size_t nc = (n + chunk - 1) / chunk;
    for (size_t c = 0; c < nc + nb; c++) {
        if (c < nc) { size_t k = c % nb, off = c * chunk, len = std::min(chunk, n - off);
            if (c >= (size_t)nb) {} // buffer k was drained below before reuse
            cudaMemcpyAsync(ring[k], dsrc + off, len, cudaMemcpyDeviceToHost, st); cudaEventRecord(ev[k], st); }
        if (c + 1 >= (size_t)nb && c + 1 - nb < nc) { size_t d = c + 1 - nb, k = d % nb, off = d * chunk, len = std::min(chunk, n - off);
            cudaEventSynchronize(ev[k]); pcopy(dst + off, ring[k], len, th); }
    }
    return now() - t0;
}
static double staged_h2d(char *ddst, const char *src, size_t n, size_t chunk, int nb, int th, cudaStream_t st) {
    static char *ring[8]; static size_t have = 0; static cudaEvent_t ev[8];
    if (have != chunk) { for (int i = 0; i < 8; i++) { if (ring[i]) cudaFreeHost(ring[i]); cudaMallocHost(&ring[i], chunk); if (!have) cudaEventCreateWithFlags(&ev[i], cudaEventDisableTiming);} have = chunk; }
    double t0 = now();
    size_t nc = (n + chunk - 1) / chunk;
    for (size_t c = 0; c < nc; c++) { size_t k = c % nb, off = c * chunk, len = std::min(chunk, n - off);
        if (c >= (size_t)nb) cudaEventSynchronize(ev[k]);
        pcopy(ring[k], src + off, len, th);
        cudaMemcpyAsync(ddst + off, ring[k], len, cudaMemcpyHostToDevice, st); cudaEventRecord(ev[k], st); }
    cudaStreamSynchronize(st);
    return now() - t0;
}
int main() {
    cudaFree(0);
    const size_t N = (size_t)2 << 30; // 2 GiB
    cudaStream_t st; cudaStreamCreate(&st);
    char *d; cudaMalloc(&d, N); cudaMemset(d, 3, N);
    char *h = (char *)malloc(N), *h2 = (char *)malloc(N); ptouch(h, N, 16); ptouch(h2, N, 16);
    printf("sizes: %zu MiB\n", N >> 20);
    for (int th : {1, 2, 4, 8, 16}) { double t0 = now(); pcopy(h2, h, N, th); double t = now() - t0; printf("host memcpy %2d threads: %.1f GB/s\n", th, N / t / 1e9); }
    for (int th : {1, 16}) { char *f = (char *)malloc(N); double t0 = now(); ptouch(f, N, th); double t = now() - t0; printf("first touch (page faults) %2d threads: %.1f GB/s\n", th, N / t / 1e9); free(f); }
    for (int r = 0; r < 2; r++) { double t0 = now(); cudaMemcpy(h, d, N, cudaMemcpyDeviceToHost); double t = now() - t0; printf("D2H pageable touched: %.1f GB/s\n", N / t / 1e9); }
    { char *f = (char *)malloc(N); double t0 = now(); cudaMemcpy(f, d, N, cudaMemcpyDeviceToHost); double t = now() - t0; printf("D2H pageable fresh: %.1f GB/s\n", N / t / 1e9); free(f); }
    for (int r = 0; r < 2; r++) { double t0 = now(); cudaMemcpy(d, h, N, cudaMemcpyHostToDevice); double t = now() - t0; printf("H2D pageable: %.1f GB/s\n", N / t / 1e9); }
    { char *p; double t0 = now(); cudaMallocHost(&p, N); double ta = now() - t0; t0 = now(); cudaMemcpy(p, d, N, cudaMemcpyDeviceToHost); double t = now() - t0;
      double t1 = now(); cudaMemcpy(d, p, N, cudaMemcpyHostToDevice); double tu = now() - t1; t0 = now(); cudaFreeHost(p); double tf = now() - t0;
      printf("pinned: cudaMallocHost %.0f ms, D2H %.1f GB/s, H2D %.1f GB/s, cudaFreeHost %.0f ms\n", ta * 1e3, N / t / 1e9, N / tu / 1e9, tf * 1e3); }
    { double t0 = now(); cudaHostRegister(h, N, 0); double tr = now() - t0; t0 = now(); cudaMemcpy(h, d, N, cudaMemcpyDeviceToHost); double t = now() - t0;
      t0 = now(); cudaHostUnregister(h); double tu = now() - t0; printf("register %.0f ms, D2H registered %.1f GB/s, unregister %.0f ms\n", tr * 1e3, N / t / 1e9, tu * 1e3); }
    for (size_t chunk : {(size_t)4 << 20, (size_t)16 << 20, (size_t)64 << 20})
        for (int nb : {2, 4})
            for (int th : {1, 4, 8, 16}) {
                staged_d2h(h, d, N, chunk, nb, th, st); double t = staged_d2h(h, d, N, chunk, nb, th, st);
                char *f = (char *)malloc(N); double tf = staged_d2h(f, d, N, chunk, nb, th, st); free(f);
                double tu = staged_h2d(d, h, N, chunk, nb, th, st);
                printf("staged chunk %2zu MiB x%d, %2d thr: D2H touched %.1f GB/s, fresh %.1f GB/s; H2D %.1f GB/s\n", chunk >> 20, nb, th, N / t / 1e9, N / tf / 1e9, N / tu / 1e9);
            }
    cudaError_t e = cudaGetLastError(); printf("last error: %s\n", cudaGetErrorString(e));
    return 0;
}
