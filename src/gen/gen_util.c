/* src/gen/gen_util.c: helpers shared by the generators: the parallel row-by-row CSR
 * builder (count pass, prefix sum, fill pass), size checks, sorting, distinct sampling. */
#include <omp.h>
#include <string.h>

#include "gen/gen_internal.h"
#include "matrix/sort_pairs.h"

/* Fails with SPX_ERR_OVERFLOW naming the spec when m or n exceeds the int32 range. */
spx_status spx_gen_check_dims(spx_ctx *ctx, const spx_gen_args *a, int64_t m, int64_t n)
{
    if (m < 0 || n < 0)
        return spx_fail(ctx, SPX_ERR_ARG, "%s: negative size %lld x %lld", a->spec, (long long)m, (long long)n);
    if (m > INT32_MAX || n > INT32_MAX)
        return spx_fail(ctx, SPX_ERR_OVERFLOW, "%s: a %lld x %lld matrix exceeds the int32 index range",
                        a->spec, (long long)m, (long long)n);
    return SPX_OK;
}

/* cnt[i + 1] = entries of rows 0..i (cnt[0] = 0), counting in parallel: each thread sums a
 * contiguous block, then adds the total of the blocks before it; integer sums, so the result
 * does not depend on the thread count. part has room for nt + 1 totals. */
static void count_and_scan(const spx_gen_rows *r, int64_t *cnt, int64_t *part, int nt)
{
    int64_t m = r->m;
    cnt[0] = 0;
    part[0] = 0;
#pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num(), T = omp_get_num_threads();
        int64_t lo = m * t / T, hi = m * (t + 1) / T, sum = 0;
        for (int64_t i = lo; i < hi; i++) {
            sum += r->count(r->g, i);
            cnt[i + 1] = sum;
        }
        part[t + 1] = sum;
#pragma omp barrier
#pragma omp single
        for (int u = 0; u < T; u++) part[u + 1] += part[u];
        int64_t off = part[t];
        for (int64_t i = lo; i < hi; i++) cnt[i + 1] += off;
    }
}

/* The CSR of r in parallel, rows in r's own order: count pass, prefix sum, fill pass
 * (spx_gen_build_rows without the shuffle). */
static spx_status build_rows_ordered(spx_ctx *ctx, const spx_gen_args *a, const spx_gen_rows *r, spx_csr **out)
{
    spx_status s = spx_gen_check_dims(ctx, a, r->m, r->n);
    if (s) return s;
    int nt = spx_ctx_threads(ctx);
    int64_t m = r->m;
    spx_csr *A = NULL;
    int64_t *part = spx_malloc_array(ctx, (size_t)nt + 1, sizeof *part);
    int64_t *cnt = spx_malloc_array(ctx, (size_t)m + 1, sizeof *cnt);
    int32_t *tmp = r->scratch > 0 ? spx_malloc_array(ctx, (size_t)nt * (size_t)r->scratch, sizeof *tmp) : NULL;
    if (!part || !cnt || (r->scratch > 0 && !tmp)) {
        s = spx_fail_nomem(ctx, "generator row counts");
        goto done;
    }
    spx_progress_tell(a->progress, "generate", 0, 2);
    count_and_scan(r, cnt, part, nt);
    spx_progress_tell(a->progress, "generate", 1, 2);
    s = spx_csr_alloc(ctx, m, r->n, cnt[m], &A);
    if (s) goto done;
    A->rowptr[0] = 0;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 256)
    for (int64_t i = 0; i < m; i++) {
        A->rowptr[i + 1] = cnt[i + 1];
        int32_t *mine = tmp ? tmp + (size_t)omp_get_thread_num() * (size_t)r->scratch : NULL;
        r->fill(r->g, i, A->colind + cnt[i], A->val + cnt[i], mine);
    }
    spx_progress_tell(a->progress, "generate", 2, 2);
    A->meta.stored_entries = A->nnz;
    A->meta.duplicates = 0;
    *out = A;
    A = NULL;
done:
    spx_free(ctx, part);
    spx_free(ctx, cnt);
    spx_free(ctx, tmp);
    spx_csr_destroy(&A);
    return s;
}

/* r with its rows and columns renumbered: new row i is r's row perm[i], r's column j is new
 * column inv[j] (inv the inverse of perm). */
typedef struct shuffled_rows {
    const spx_gen_rows *inner;
    const int32_t *perm, *inv;
} shuffled_rows;

static int64_t shuffled_count(const void *g, int64_t i)
{
    const shuffled_rows *sh = g;
    return sh->inner->count(sh->inner->g, sh->perm[i]);
}

static void shuffled_fill(const void *g, int64_t i, int32_t *col, double *val, int32_t *tmp)
{
    const shuffled_rows *sh = g;
    const int64_t old = sh->perm[i], len = sh->inner->count(sh->inner->g, old);
    sh->inner->fill(sh->inner->g, old, col, val, tmp);
    for (int64_t k = 0; k < len; k++) col[k] = sh->inv[col[k]];
    spx_sort_pairs(col, val, len);
}

spx_status spx_gen_build_rows(spx_ctx *ctx, const spx_gen_args *a, const spx_gen_rows *r, spx_csr **out)
{
    if (!spx_gen_int(a, "shuffle")) return build_rows_ordered(ctx, a, r, out);
    if (r->m != r->n)
        return spx_fail(ctx, SPX_ERR_ARG, "%s: shuffle=1 needs a square matrix (%lld x %lld)", a->spec,
                        (long long)r->m, (long long)r->n);
    spx_status s = spx_gen_check_dims(ctx, a, r->m, r->n);
    if (s) return s;
    const int64_t m = r->m;
    int32_t *perm = spx_malloc_array(ctx, (size_t)m + 1, sizeof *perm);
    int32_t *inv = spx_malloc_array(ctx, (size_t)m + 1, sizeof *inv);
    if (!perm || !inv) {
        s = spx_fail_nomem(ctx, "generator shuffle (two permutations of the rows)");
        goto done;
    }
    uint64_t key[SPX_GEN_PERM_KEYS];
    spx_gen_perm_keys(spx_gen_u64(a, "seed"), key);
#pragma omp parallel for num_threads(spx_ctx_threads(ctx)) schedule(static)
    for (int64_t i = 0; i < m; i++) perm[i] = (int32_t)spx_gen_permute_below((uint64_t)i, (uint64_t)m, key);
#pragma omp parallel for num_threads(spx_ctx_threads(ctx)) schedule(static)
    for (int64_t i = 0; i < m; i++) inv[perm[i]] = (int32_t)i;
    const shuffled_rows sh = {r, perm, inv};
    const spx_gen_rows rs = {m, m, &sh, shuffled_count, shuffled_fill, r->scratch};
    s = build_rows_ordered(ctx, a, &rs, out);
done:
    spx_free(ctx, perm);
    spx_free(ctx, inv);
    return s;
}

/* The keys of the permutation under seed (PERM stream). */
void spx_gen_perm_keys(uint64_t seed, uint64_t key[SPX_GEN_PERM_KEYS])
{
    spx_gen_rng r = spx_gen_rng_at(spx_gen_stream_key(seed, SPX_GEN_STREAM_PERM), 0);
    for (int i = 0; i < SPX_GEN_PERM_KEYS; i++) key[i] = spx_gen_next(&r);
}

/* Rounds of add-key, multiply by an odd key, xor-shift right: each a bijection mod 2^bits.
 * Used instead of a Fisher-Yates shuffle so that each element's image is computed on its
 * own, in parallel, with no table. */
uint64_t spx_gen_permute(uint64_t x, int bits, const uint64_t key[SPX_GEN_PERM_KEYS])
{
    if (bits <= 0) return 0;
    uint64_t mask = (1ULL << bits) - 1;
    int sh = (bits + 1) / 2;
    for (int r = 0; r < SPX_GEN_PERM_ROUNDS; r++) {
        x = (x + key[2 * r]) & mask;
        x = (x * (key[2 * r + 1] | 1)) & mask;
        x ^= x >> sh;
    }
    return x;
}

/* Cycle walking: the orbit of x < m returns below m, within 2 steps on average. */
uint64_t spx_gen_permute_below(uint64_t x, uint64_t m, const uint64_t key[SPX_GEN_PERM_KEYS])
{
    int bits = 0;
    while (bits < 63 && (1ULL << bits) < m) bits++;
    do {
        x = spx_gen_permute(x, bits, key);
    } while (x >= m);
    return x;
}

/* Sorts c[0..len) ascending: quicksort (median of three, recursing into the smaller side)
 * with insertion sort below 24 elements. */
void spx_gen_sort_i32(int32_t *c, int64_t len)
{
    while (len > 24) {
        int64_t mid = len / 2, last = len - 1;
        int32_t x = c[0], y = c[mid], z = c[last];
        int32_t piv = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        int64_t i = 0, j = last;
        for (;;) { /* Hoare partition */
            while (c[i] < piv) i++;
            while (c[j] > piv) j--;
            if (i >= j) break;
            int32_t t = c[i];
            c[i++] = c[j];
            c[j--] = t;
        }
        /* c[0..j] <= piv <= c[j+1..len) */
        int64_t nl = j + 1, nr = len - j - 1;
        if (nl < nr) {
            spx_gen_sort_i32(c, nl);
            c += nl;
            len = nr;
        } else {
            spx_gen_sort_i32(c + nl, nr);
            len = nl;
        }
    }
    for (int64_t i = 1; i < len; i++) {
        int32_t v = c[i];
        int64_t j = i - 1;
        while (j >= 0 && c[j] > v) {
            c[j + 1] = c[j];
            j--;
        }
        c[j + 1] = v;
    }
}

/* LSD radix sort of non-negative a[0..len) below 2^bits, 11-bit digits, via tmp[0..len). */
static void radix_sort(int32_t *a, int32_t *tmp, int64_t len, int bits)
{
    int64_t hist[1 << 11];
    int32_t *src = a, *dst = tmp;
    for (int shift = 0; shift < bits; shift += 11) {
        memset(hist, 0, sizeof hist);
        for (int64_t i = 0; i < len; i++) hist[(src[i] >> shift) & 2047]++;
        int64_t sum = 0;
        for (int d = 0; d < 2048; d++) {
            int64_t h = hist[d];
            hist[d] = sum;
            sum += h;
        }
        for (int64_t i = 0; i < len; i++) dst[hist[(src[i] >> shift) & 2047]++] = src[i];
        int32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, (size_t)len * sizeof *a);
}

/* Sorts a[0..len) of values below n: radix for long arrays (tmp has len entries), else
 * quicksort. */
static void sort_below(int32_t *a, int32_t *tmp, int64_t len, int64_t n)
{
    if (len < 1024) {
        spx_gen_sort_i32(a, len);
        return;
    }
    int bits = 1;
    while (bits < 31 && ((int64_t)1 << bits) < n) bits++;
    radix_sort(a, tmp, len, bits);
}

/* Removes repeats from sorted c[0..len); returns the new length. */
static int64_t dedupe_sorted(int32_t *c, int64_t len)
{
    if (len == 0) return 0;
    int64_t w = 1;
    for (int64_t i = 1; i < len; i++)
        if (c[i] != c[w - 1]) c[w++] = c[i];
    return w;
}

/* Merges sorted distinct col[0..have) with sorted t[0..d) into col, dropping repeats;
 * col has room for have + d. Merges from the back (the write never passes the unread part
 * of col), then moves the result to the front. Returns the new length. */
static int64_t merge_unique(int32_t *col, int64_t have, const int32_t *t, int64_t d)
{
    int64_t i = have - 1, j = d - 1, w = have + d;
    while (i >= 0 || j >= 0) {
        int32_t x = (j < 0 || (i >= 0 && col[i] > t[j])) ? col[i--] : t[j--];
        if (w == have + d || col[w] != x) col[--w] = x;
    }
    int64_t len = have + d - w;
    memmove(col, col + w, (size_t)len * sizeof *col);
    return len;
}

/* Dense rows (16k >= n) use selection sampling and no scratch; sparse ones need k entries:
 * the most any row of up to kmax entries needs. */
int64_t spx_gen_sample_scratch(int64_t n, int64_t kmax)
{
    return kmax * 16 < n ? kmax : (n - 1) / 16;
}

/* Writes k distinct columns of [0, n), uniformly chosen, sorted, to col; draws from r.
 * Dense rows (16k >= n) use selection sampling (Knuth's algorithm S, one pass over [0, n));
 * sparse rows draw k values, sort, drop repeats, then draw the missing ones, sort them and
 * merge them in, until k are distinct. Every k-subset is equally likely: the procedure is
 * symmetric in the column labels. */
void spx_gen_sample_sorted(spx_gen_rng *r, int64_t n, int64_t k, int32_t *col, int32_t *tmp)
{
    if (k <= 0) return;
    if (k * 16 >= n) {
        int64_t need = k, t = 0;
        for (int64_t j = 0; need > 0; j++) {
            if (spx_gen_below(r, (uint32_t)(n - j)) < (uint64_t)need) {
                col[t++] = (int32_t)j;
                need--;
            }
        }
        return;
    }
    for (int64_t t = 0; t < k; t++) col[t] = (int32_t)spx_gen_below(r, (uint32_t)n);
    sort_below(col, tmp, k, n);
    int64_t have = dedupe_sorted(col, k);
    while (have < k) {
        int64_t d = k - have;
        int32_t *extra = tmp + have; /* tmp[have..k): room for d draws */
        for (int64_t t = 0; t < d; t++) extra[t] = (int32_t)spx_gen_below(r, (uint32_t)n);
        spx_gen_sort_i32(extra, d);
        have = merge_unique(col, have, extra, d);
    }
}
