/* src/matrix/sort_pairs.c: a row's (column, value) pairs sorted by column (sort_pairs.h). */
#include <stddef.h>

#include "matrix/sort_pairs.h"

/* Runs of at most this many keys are sorted by insertion (the usual cut-over of a quicksort;
 * not measured here). */
#define SPX_SORT_PAIRS_INSERTION 24

void spx_sort_pairs(int32_t *keys, double *vals, int64_t n)
{
    while (n > SPX_SORT_PAIRS_INSERTION) {
        const int32_t a = keys[0], b = keys[n / 2], c = keys[n - 1];
        const int32_t pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        int64_t lo = 0, hi = n - 1;
        while (lo <= hi) { /* Hoare partition around the median of three */
            while (keys[lo] < pivot) lo++;
            while (keys[hi] > pivot) hi--;
            if (lo <= hi) {
                int32_t tk = keys[lo];
                keys[lo] = keys[hi], keys[hi] = tk;
                if (vals) {
                    double tv = vals[lo];
                    vals[lo] = vals[hi], vals[hi] = tv;
                }
                lo++, hi--;
            }
        }
        /* [0, hi] and [lo, n): recurse on the smaller, loop on the larger */
        if (hi + 1 < n - lo) {
            spx_sort_pairs(keys, vals, hi + 1);
            keys += lo, vals = vals ? vals + lo : NULL, n -= lo;
        } else {
            spx_sort_pairs(keys + lo, vals ? vals + lo : NULL, n - lo);
            n = hi + 1;
        }
    }
    for (int64_t x = 1; x < n; x++) {
        const int32_t k = keys[x];
        const double v = vals ? vals[x] : 0.0;
        int64_t y = x;
        for (; y > 0 && keys[y - 1] > k; y--) {
            keys[y] = keys[y - 1];
            if (vals) vals[y] = vals[y - 1];
        }
        keys[y] = k;
        if (vals) vals[y] = v;
    }
}
