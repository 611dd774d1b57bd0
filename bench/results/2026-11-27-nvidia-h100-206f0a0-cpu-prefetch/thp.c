/* first-touch cost of a 300 MB array on T threads, with and without MADV_HUGEPAGE */
#define _GNU_SOURCE
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
int main(void)
{
    const size_t bytes = (size_t)300 << 20;
    for (int rep = 0; rep < 3; rep++)
        for (int adv = 0; adv < 2; adv++)
            for (int T = 1; T <= 16; T *= 4) {
                char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                if (adv) madvise(p, bytes, MADV_HUGEPAGE);
                double t0 = omp_get_wtime();
#pragma omp parallel for num_threads(T) schedule(static)
                for (size_t i = 0; i < bytes; i += 4096) p[i] = 1;
                double t1 = omp_get_wtime();
#pragma omp parallel for num_threads(T) schedule(static)
                for (size_t i = 0; i < bytes; i += 64) p[i] = 2;
                double t2 = omp_get_wtime();
                printf("rep %d madv %d T %2d first-touch %.1f ms, second pass %.1f ms\n", rep, adv, T, (t1 - t0) * 1e3, (t2 - t1) * 1e3);
                munmap(p, bytes);
            }
    return 0;
}
