/* src/formats/teb/teb_select.c: the teb selection (paper §3.1.1 and the bLN search of §3.1.2)
 * on the row-length histogram: Algorithm 2 simulated per candidate in O(distinct lengths +
 * bLN) with S^2 accumulated as the blocks form, bLN_critical (eq. 7), the decision tree
 * (Fig. 11), eq. 10, and the least-S^2 bLN over a bounded geometric grid, in parallel. */
#include <math.h>
#include <omp.h>
#include <string.h>

#include "core/ctx.h"
#include "formats/teb/teb.h"
#include "formats/teb/teb_tuning.h"

double spx_teb_threshold(int64_t nnz, int64_t bln, double k)
{
    return bln > 0 ? (double)nnz / (double)bln * k : 0.0;
}

/* The largest block sum a row may still join (sum + len <= threshold, integers). */
static int64_t threshold_floor(int64_t nnz, int64_t bln, double k)
{
    return (int64_t)floor(spx_teb_threshold(nnz, bln, k));
}

double spx_teb_simulate(const spx_teb_hist *h, int64_t bln, double k, int64_t *rem, int64_t *steps)
{
    if (bln <= 0) return 0.0;
    if (h->d > 0) memcpy(rem, h->cnt, (size_t)h->d * sizeof *rem);
    const double avg = (double)h->nnz / (double)bln;
    const int64_t T = threshold_floor(h->nnz, bln, k);
    int64_t top = 0, bot = h->d - 1, left = h->rows, taken = 0, st = h->d;
    double acc = 0.0;
    for (int64_t i = 0; i < bln; i++, st++) {
        if (left == 0) { /* the rows ran out: the remaining blocks are empty */
            acc += avg * avg * (double)(bln - i);
            break;
        }
        if (i == bln - 1) { /* the last block takes every row left (Algorithm 2, line 13) */
            const double s = (double)(h->nnz - taken);
            acc += (s - avg) * (s - avg);
            break;
        }
        while (rem[top] == 0) top++, st++;
        int64_t s = h->len[top];
        rem[top]--, left--;
        while (left > 0) { /* the shortest rows join while they fit, a length at a time */
            while (rem[bot] == 0) bot--, st++;
            const int64_t l = h->len[bot];
            if (s + l > T) break;
            int64_t t = (T - s) / l;
            if (t > rem[bot]) t = rem[bot];
            s += t * l, rem[bot] -= t, left -= t, st++;
            if (rem[bot] > 0) break; /* the next row of this length no longer fits */
        }
        taken += s;
        acc += ((double)s - avg) * ((double)s - avg);
    }
    *steps += st;
    return acc / (double)bln;
}

double spx_teb_k_for(int64_t nnz, int64_t bln, int64_t bln_critical)
{
    if (bln_critical <= 0) return SPX_TEB_K_NEAR; /* k = 1 never lost to 1.01: all "above" */
    const double avg = (double)nnz / (double)bln, avg_crit = (double)nnz / (double)bln_critical;
    if (avg > avg_crit) return SPX_TEB_K_NEAR;
    if (avg > avg_crit / 2.0) return SPX_TEB_K_MID;
    return SPX_TEB_K_FAR;
}

void spx_teb_range(const spx_teb_hist *h, int64_t *lo, int64_t *hi)
{
    const int64_t rows = h->rows > 0 ? h->rows : 1;
    int64_t l = (int64_t)SPX_TEB_SM_COUNT * SPX_TEB_MIN_BLOCKS_PER_SM;
    if (l > rows) l = rows;
    int64_t u = (h->nnz + SPX_TEB_MIN_BLOCK_NNZ - 1) / SPX_TEB_MIN_BLOCK_NNZ;
    if (u > rows) u = rows;
    if (u > INT32_MAX) u = INT32_MAX;
    if (u < l) u = l;
    *lo = l;
    *hi = u;
}

/* Up to n block counts from lo to hi (both included), geometric, ascending and distinct;
 * out has room for n + 1. Returns how many. */
static int geometric_grid(int64_t lo, int64_t hi, int n, int64_t *out)
{
    int c = 0;
    for (int i = 0; i < n; i++) {
        double f = n > 1 ? (double)i / (double)(n - 1) : 0.0;
        int64_t b = (int64_t)llround((double)lo * pow((double)hi / (double)lo, f));
        if (b < lo) b = lo;
        if (b > hi) b = hi;
        if (c == 0 || b > out[c - 1]) out[c++] = b;
    }
    if (out[c - 1] != hi) out[c++] = hi;
    return c;
}

/* The first block count of the grid where eq. 7 holds (S^2 at k = 1 above S^2 at 1.01), 0 if
 * none; v1 and v2 hold the grid's variances. */
static int64_t first_critical(const int64_t *grid, int n, const double *v1, const double *v2)
{
    for (int i = 0; i < n; i++)
        if (v1[i] > v2[i]) return grid[i];
    return 0;
}

/* The candidate of least S^2 among those eq. 10 keeps (ties: the larger bLN, more blocks to
 * spread); the first (smallest) when eq. 10 skips them all. */
static int least_variance(const spx_teb_hist *h, const int64_t *cand, const double *k, const double *var, int n)
{
    const double max_row = h->d > 0 ? (double)h->len[0] : 0.0;
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (max_row > SPX_TEB_EQ10_FACTOR * spx_teb_threshold(h->nnz, cand[i], k[i])) continue;
        if (best < 0 || var[i] <= var[best]) best = i;
    }
    return best < 0 ? 0 : best;
}

spx_status spx_teb_select(spx_ctx *ctx, const spx_teb_hist *h, int threads, spx_teb_choice *out)
{
    memset(out, 0, sizeof *out);
    spx_teb_range(h, &out->bln_lo, &out->bln_hi);
    if (h->rows == 0) { /* no entries: one block holds the (empty) rows */
        out->bln = 1;
        out->k = SPX_TEB_K_BASE;
        return SPX_OK;
    }
    int64_t cand[SPX_TEB_CANDIDATES + 1], crit[SPX_TEB_CRIT_CANDIDATES + 1];
    double var[SPX_TEB_CANDIDATES + 1], kk[SPX_TEB_CANDIDATES + 1];
    double v1[SPX_TEB_CRIT_CANDIDATES + 1], v2[SPX_TEB_CRIT_CANDIDATES + 1];
    const int nc = geometric_grid(out->bln_lo, out->bln_hi, SPX_TEB_CANDIDATES, cand);
    const int ncr = geometric_grid(out->bln_hi < 2 ? 1 : 2, out->bln_hi, SPX_TEB_CRIT_CANDIDATES, crit);
    const int64_t work = (int64_t)(nc + 2 * ncr) * (h->d + out->bln_hi + 2);
    if (threads < 1 || work < SPX_TEB_PARALLEL_MIN_STEPS) threads = 1;
    int64_t *scratch = spx_malloc_array(ctx, (size_t)threads * (size_t)h->d, sizeof *scratch);
    if (!scratch) return spx_fail_nomem(ctx, "teb selection scratch");
    int64_t steps = 0, bcrit = 0;
#pragma omp parallel num_threads(threads) reduction(+ : steps)
    {
        int64_t *rem = scratch + (size_t)omp_get_thread_num() * (size_t)h->d;
#pragma omp for schedule(dynamic, 1)
        for (int i = 0; i < ncr; i++) {
            v1[i] = spx_teb_simulate(h, crit[i], SPX_TEB_K_BASE, rem, &steps);
            v2[i] = spx_teb_simulate(h, crit[i], SPX_TEB_K_CRIT, rem, &steps);
        }
#pragma omp single
        bcrit = first_critical(crit, ncr, v1, v2);
#pragma omp for schedule(dynamic, 1)
        for (int i = 0; i < nc; i++) {
            kk[i] = spx_teb_k_for(h->nnz, cand[i], bcrit);
            var[i] = spx_teb_simulate(h, cand[i], kk[i], rem, &steps);
        }
    }
    spx_free(ctx, scratch);
    const int best = least_variance(h, cand, kk, var, nc);
    out->bln = cand[best];
    out->k = kk[best];
    out->threshold = spx_teb_threshold(h->nnz, out->bln, out->k);
    out->var = var[best];
    out->bln_critical = bcrit;
    out->n_candidates = nc + ncr;
    out->steps = steps;
    return SPX_OK;
}
