// micro-benchmark (not part of the project): host cost of stream/event creation and of cudaMalloc sizes near the SpGEMM plan's
#include <cstdio>
#include <chrono>
#include <cuda_runtime.h>
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main() {
    cudaFree(0);
    const int N = 32; double t0;
    cudaStream_t s[N]; cudaEvent_t e[N];
    t0 = now(); for (int i = 0; i < N; i++) cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking); printf("cudaStreamCreateWithFlags %.1f us\n", (now() - t0) / N * 1e6);
    t0 = now(); for (int i = 0; i < N; i++) cudaEventCreateWithFlags(&e[i], cudaEventDisableTiming); printf("cudaEventCreateWithFlags %.1f us\n", (now() - t0) / N * 1e6);
    t0 = now(); for (int i = 0; i < N; i++) cudaStreamDestroy(s[i]); printf("cudaStreamDestroy %.1f us\n", (now() - t0) / N * 1e6);
    t0 = now(); for (int i = 0; i < N; i++) cudaEventDestroy(e[i]); printf("cudaEventDestroy %.1f us\n", (now() - t0) / N * 1e6);
    size_t sizes[] = {90000, 112000, 360000, 600000, 1200000, 2400000, 4800000};
    for (size_t sz : sizes) {
        void *p[3]; double a = 0, f = 0;
        for (int r = 0; r < N; r++) {  // the plan's pattern: three arrays of m-sized data, then all freed
            t0 = now(); for (int i = 0; i < 3; i++) cudaMalloc(&p[i], sz * (i + 1) / 2); a += now() - t0;
            t0 = now(); for (int i = 0; i < 3; i++) cudaFree(p[i]); f += now() - t0;
        }
        printf("%8zu bytes x3: cudaMalloc %.1f us, cudaFree %.1f us each\n", sz, a / N / 3 * 1e6, f / N / 3 * 1e6);
    }
    return 0;
}
