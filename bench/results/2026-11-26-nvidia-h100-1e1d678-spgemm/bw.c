/* write bandwidth probe: T threads fill disjoint slices of int32 col[] and double val[] (C's
 * layout, 12 B an entry) with plain stores, then with movnti; also a read pass. */
#include <emmintrin.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static double now(void) { return omp_get_wtime(); }
int main(int argc, char **argv)
{
    const int64_t n = argc > 1 ? atoll(argv[1]) : 25000000;
    int32_t *col = malloc(n * 4);
    double *val = malloc(n * 8);
    memset(col, 0, n * 4); memset(val, 0, n * 8); /* pre-faulted: numeric re-runs */
    int ths[] = {1, 2, 4, 8, 16};
    for (int ti = 0; ti < 5; ti++) {
        int T = ths[ti];
        double best[3] = {1e9, 1e9, 1e9};
        for (int rep = 0; rep < 5; rep++) {
            double t0 = now();
#pragma omp parallel for num_threads(T) schedule(static)
            for (int64_t q = 0; q < n; q++) { col[q] = (int32_t)q; val[q] = (double)q; }
            double t1 = now();
#pragma omp parallel num_threads(T)
            {
                int t = omp_get_thread_num();
                int64_t a = n * t / T, b = n * (t + 1) / T;
                for (int64_t q = a; q < b; q++) {
                    _mm_stream_si32((int *)&col[q], (int)q);
                    double v = (double)q; long long bits; memcpy(&bits, &v, 8);
                    _mm_stream_si64((long long *)&val[q], bits);
                }
                _mm_sfence();
            }
            double t2 = now();
            double s = 0;
#pragma omp parallel for num_threads(T) schedule(static) reduction(+ : s)
            for (int64_t q = 0; q < n; q++) s += val[q] + col[q];
            double t3 = now();
            if (s == -1) puts("");
            if (t1 - t0 < best[0]) best[0] = t1 - t0;
            if (t2 - t1 < best[1]) best[1] = t2 - t1;
            if (t3 - t2 < best[2]) best[2] = t3 - t2;
        }
        double gb = n * 12.0 / 1e9;
        printf("threads %2d: plain write %6.1f ms (%5.1f GB/s)  movnti %6.1f ms (%5.1f GB/s)  read %6.1f ms (%5.1f GB/s)\n", T,
               best[0] * 1e3, gb / best[0], best[1] * 1e3, gb / best[1], best[2] * 1e3, gb / best[2]);
    }
    return 0;
}
