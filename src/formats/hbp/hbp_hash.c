/* src/formats/hbp/hbp_hash.c: the reorder inside a tile on the host (HBP §III-B): the
 * nonlinear hash as a stable counting sort by aggregation bucket (deterministic: the slot
 * order is (bucket, row), what the device build's stable radix sort by (tile, bucket) also
 * produces), the sort2D baseline, the aggregation shift sampled from the matrix, and the Fig. 6 metric. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/hbp/hbp_hash.h"
#include "formats/hbp/hbp_tuning.h"

int spx_hbp_agg_shift(const int64_t *hist)
{
    int64_t total = 0;
    for (int k = 0; k < 32; k++) total += hist[k];
    int64_t below = 0; /* (tile, row) pairs with floor(log2 len) < a + 3, i.e. len < 8 << a */
    for (int a = 0; a < 29; a++) {
        below += hist[a + 2];
        if (a == 0) below += hist[0] + hist[1];
        if (below * SPX_HBP_AGG_QUANTILE_DEN >= total * SPX_HBP_AGG_QUANTILE_NUM) return a;
    }
    return 29;
}

/* qsort order of whole row runs by (column block, row) (a row has one run per block). */
static int cmp_block_row(const void *pa, const void *pb)
{
    const spx_hbp_seg *a = pa, *b = pb;
    if (a->cb != b->cb) return a->cb < b->cb ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

/* qsort order of segments by (length, row, start): sort2D (start orders a row's pieces). */
static int cmp_len_row(const void *pa, const void *pb)
{
    const spx_hbp_seg *a = pa, *b = pb;
    if (a->len != b->len) return a->len < b->len ? -1 : 1;
    if (a->row != b->row) return a->row < b->row ? -1 : 1;
    return (a->start > b->start) - (a->start < b->start);
}

void spx_hbp_sort_by_block(spx_hbp_seg *s, int64_t k)
{
    if (k > 1) qsort(s, (size_t)k, sizeof *s, cmp_block_row);
}

/* The hash: bucket histogram, bucket bases (the dispersion over the tile's table), then each
 * row inserted at its bucket's next free slot in row order (collision-free linear probing). */
static void hash_tile(spx_hbp_seg *s, int64_t k, int a, spx_hbp_seg *scratch)
{
    int64_t base[SPX_HBP_BUCKETS + 1] = {0};
    for (int64_t i = 0; i < k; i++) base[SPX_HBP_BUCKET((int)s[i].len, a) + 1]++;
    for (int b = 0; b < SPX_HBP_BUCKETS; b++) base[b + 1] += base[b];
    for (int64_t i = 0; i < k; i++) scratch[base[SPX_HBP_BUCKET((int)s[i].len, a)]++] = s[i];
    memcpy(s, scratch, (size_t)k * sizeof *s);
}

void spx_hbp_order_tile(spx_hbp_seg *s, int64_t k, spx_hbp_algo algo, int a, spx_hbp_seg *scratch)
{
    if (k <= 1) return;
    if (algo == SPX_HBP_SORT)
        qsort(s, (size_t)k, sizeof *s, cmp_len_row);
    else
        hash_tile(s, k, a, scratch);
}

void spx_hbp_balance_add(const spx_hbp_seg *s, int64_t k, double *sum_std, double *sum_max, int64_t *groups)
{
    for (int64_t g = 0; g < k; g += SPX_HBP_GROUP) {
        int64_t e = g + SPX_HBP_GROUP < k ? g + SPX_HBP_GROUP : k;
        double mean = 0.0, var = 0.0, mx = 0.0;
        for (int64_t i = g; i < e; i++) {
            mean += s[i].len;
            if (s[i].len > mx) mx = s[i].len;
        }
        mean /= (double)(e - g);
        for (int64_t i = g; i < e; i++) var += ((double)s[i].len - mean) * ((double)s[i].len - mean);
        *sum_std += sqrt(var / (double)(e - g));
        *sum_max += mx;
        (*groups)++;
    }
}
