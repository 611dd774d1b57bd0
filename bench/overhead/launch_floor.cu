/* bench/overhead/launch_floor.cu: what one back-to-back kernel launch costs on this machine, by
 * the way it is made (issue 48: spx's empty-kernel floor, 5.73 us back to back on an H100, sat
 * above DASP's whole SpMV on cage10, 4.3 us, under the same event protocol). Standalone: no spx.
 * Build and run: nvcc -O2 -arch=sm_90 bench/overhead/launch_floor.cu -o lf && ./lf
 * Prints one line per variant: the median over 7 batches of 2000 launches, in us per launch. */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

namespace {

constexpr int kCalls = 2000;  /* launches per batch: ~10 ms at 5 us, far above event resolution */
constexpr int kBatches = 7;   /* median of these */

/* A kernel argument as large as csr's spmv_view (pointers, sizes, alpha and beta). */
struct big_args {
    const void *p[8];
    long long n[4];
    double a, b;
};

__global__ void empty_kernel() {}
__global__ void empty_big_kernel(big_args) {}

void check(cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return;
    std::fprintf(stderr, "launch_floor: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
}

/* Median us per launch of `launch` on stream s, over kBatches batches of kCalls. */
template <class F> double time_us(cudaStream_t s, F launch)
{
    cudaEvent_t a, b;
    check(cudaEventCreate(&a), "event");
    check(cudaEventCreate(&b), "event");
    for (int i = 0; i < 200; i++) launch();
    check(cudaStreamSynchronize(s), "warm-up");
    std::vector<double> t;
    for (int j = 0; j < kBatches; j++) {
        cudaEventRecord(a, s);
        for (int i = 0; i < kCalls; i++) launch();
        cudaEventRecord(b, s);
        check(cudaEventSynchronize(b), "batch");
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        t.push_back(1e3 * ms / kCalls);
    }
    std::sort(t.begin(), t.end());
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return t[kBatches / 2];
}

} /* namespace */

int main()
{
    cudaStream_t s;
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
    cudaDeviceProp prop;
    check(cudaGetDeviceProperties(&prop, 0), "properties");
    big_args args = {};
    int dev = 0;
    std::printf("device: %s\n", prop.name);
    std::printf("default stream, empty kernel: %.2f us\n", time_us(0, [] { empty_kernel<<<1, 32>>>(); }));
    std::printf("own stream, empty kernel: %.2f us\n", time_us(s, [&] { empty_kernel<<<1, 32, 0, s>>>(); }));
    std::printf("own stream, + cudaGetDevice + cudaGetLastError: %.2f us\n", time_us(s, [&] {
                    cudaGetDevice(&dev);
                    empty_kernel<<<1, 32, 0, s>>>();
                    (void)cudaGetLastError();
                }));
    std::printf("own stream, 112-byte argument: %.2f us\n", time_us(s, [&] { empty_big_kernel<<<1, 32, 0, s>>>(args); }));
    std::printf("own stream, 132 blocks of 256: %.2f us\n", time_us(s, [&] { empty_kernel<<<132, 256, 0, s>>>(); }));
    cudaGraph_t g;
    cudaGraphExec_t ge;
    check(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "capture");
    empty_kernel<<<1, 32, 0, s>>>();
    check(cudaStreamEndCapture(s, &g), "capture");
    check(cudaGraphInstantiate(&ge, g, 0), "instantiate");
    std::printf("own stream, one-kernel graph: %.2f us\n", time_us(s, [&] { cudaGraphLaunch(ge, s); }));
    check(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "capture");
    for (int i = 0; i < 10; i++) empty_kernel<<<1, 32, 0, s>>>();
    cudaGraph_t g10;
    cudaGraphExec_t ge10;
    check(cudaStreamEndCapture(s, &g10), "capture");
    check(cudaGraphInstantiate(&ge10, g10, 0), "instantiate");
    std::printf("own stream, ten-kernel graph, per kernel: %.2f us\n", time_us(s, [&] { cudaGraphLaunch(ge10, s); }) / 10);
    return 0;
}
