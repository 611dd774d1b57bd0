/* C-write probe: T threads each fill their contiguous slice of a column array (int32) and a
 * value array (double), N entries in all, pages already touched; "plain": the stores alone;
 * "mixed": each entry also does a few read-modify-writes in a 320 KB per-thread table (the
 * span accumulator's footprint). Prints ms and GB/s (12 bytes an entry) per T. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
int main(void) {
    const long N = 25000000; int32_t *c = malloc(N * 4); double *v = malloc(N * 8);
    memset(c, 1, N * 4); memset(v, 1, N * 8);
    int ths[] = {1, 2, 4, 8, 16};
    for (int mixed = 0; mixed < 2; mixed++)
        for (int q = 0; q < 5; q++) {
            int T = ths[q]; double best = 1e9;
            for (int rep = 0; rep < 3; rep++) {
                double t0 = omp_get_wtime();
#pragma omp parallel num_threads(T)
                {
                    int t = omp_get_thread_num(); long a = N * t / T, b = N * (t + 1) / T;
                    double *tab = calloc(40000, 8); uint32_t h = 7 + t;
                    for (long i = a; i < b; i++) {
                        double x = (double)i;
                        if (mixed) for (int k = 0; k < 4; k++) { h = h * 1664525u + 1013904223u; tab[h % 40000] += x; x = tab[(h >> 7) % 40000]; }
                        c[i] = (int32_t)i; v[i] = x;
                    }
                    free(tab);
                }
                double dt = omp_get_wtime() - t0; if (dt < best) best = dt;
            }
            printf("%s threads %2d: %8.2f ms  %6.1f GB/s of C\n", mixed ? "mixed" : "plain", T, best * 1e3, N * 12.0 / best / 1e9);
        }
    return (int)v[N / 2] & 0;
}
