/* Host compute scaling: throughput of two per-thread kernels (no shared data) on T threads,
 * relative to one thread. fma: 8 independent multiply-add chains; l1: read-modify-write of
 * a 16 KB per-thread table at pseudo-random places (an accumulator's access pattern). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
static double fma_work(long it) {
    double x[8]; for (int c = 0; c < 8; c++) x[c] = 1.0 + c * 1e-3;
    for (long i = 0; i < it; i++) for (int c = 0; c < 8; c++) x[c] = x[c] * 0.9999999 + 1e-7;
    double s = 0; for (int c = 0; c < 8; c++) s += x[c]; return s;
}
static double l1_work(long it) {
    double t[2048] = {0}; uint32_t h = 12345;
    for (long i = 0; i < it; i++) { h = h * 1664525u + 1013904223u; t[h >> 21] += 1.0; }
    return t[7];
}
int main(void) {
    int ths[] = {1, 2, 4, 8, 12, 16}; const long IT = 100000000L;
    for (int kind = 0; kind < 2; kind++) {
        double base = 0;
        for (int q = 0; q < 6; q++) {
            int T = ths[q]; double sink = 0, t0 = omp_get_wtime();
#pragma omp parallel num_threads(T) reduction(+:sink)
            sink += kind ? l1_work(IT) : fma_work(IT / 4);
            double dt = omp_get_wtime() - t0, rate = T / dt;
            if (q == 0) base = rate;
            printf("%s threads %2d: %.3f s, throughput %.2fx one thread (sink %g)\n", kind ? "l1 " : "fma", T, dt, rate / base, sink);
        }
    }
    return 0;
}
