/* src/matrix/sort_pairs.h: a row's (column, value) pairs sorted by column in place: a
 * quicksort (median of three, recursing into the smaller side) with insertion sort on short
 * runs. The CPU Gustavson's hash rows and the generators' shuffled rows use it. */
#ifndef SPX_MATRIX_SORT_PAIRS_H
#define SPX_MATRIX_SORT_PAIRS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sorts keys[0..n) ascending (distinct keys), moving vals (NULL: none) along. */
void spx_sort_pairs(int32_t *keys, double *vals, int64_t n);

#ifdef __cplusplus
}
#endif

#endif
