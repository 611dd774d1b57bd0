/* src/matrix/coo_to_csr.c: COO -> CSR on the host, in parallel and deterministic: a counting
 * sort by row with per-thread histograms, a stable sort of each row by column with repeated
 * columns summed in input order (or rejected when strict), then the rows packed together.
 * (src/matrix/coo_to_csr_cuda.cu gives the same arrays bit for bit on the GPU; loads do not use it:
 * on the 16-core H100 machine it was slower, bench/NOTES.md 2026-11-25.) */
#include <omp.h>
#include <string.h>

#include "core/ctx.h"
#include "core/progress.h"


/* How the conversion goes. The entries are cut into `shares` contiguous runs (k ascending).
 * Count: share s counts its entries per row into its own histogram. Prefix: over (row,
 * share), so row i's entries of share s go after those of shares < s. Scatter: share s walks
 * its run in order, placing each entry at its row's next slot of that share. Each row thus
 * holds its entries in input order whatever the share count, which is why the result is the
 * same, bit for bit, for every thread count: the stable column sort and the left-to-right
 * summing of repeated columns see the same sequence. Pack: rows that lost entries to the
 * summing are moved left in rounds (see pack_rows). */

/* Entries per share below which another share costs more (its histogram) than it saves. */
#define C2C_MIN_SHARE ((int64_t)1 << 16)
/* A share's histogram has m counters: take s shares only while s * (m + 1) is at most this
 * many times the entries (the counters are summed sequentially, the entries randomly). */
#define C2C_HIST_PER_ENTRY 4
/* Positions per chunk of the packing rounds, at least: each thread's scratch holds one chunk
 * (12 bytes a position: 768 KiB). Chunks grow so that there are at most C2C_PACK_ROUNDS
 * rounds: each round waits twice for every thread, which is cheap on idle cores but costs a
 * scheduler time slice when the threads share busy cores (measured on the 2-core CI machine
 * with another job running: 512 rounds of 64K took 2 s, the serial packing 0.04 s). */
#define C2C_PACK_CHUNK ((int64_t)1 << 16)
#define C2C_PACK_ROUNDS 32
/* Rows longer than this are sorted one at a time after the parallel pass, so that each
 * thread's scratch is bounded (nt x 64K entries, 0.8 MB a thread) instead of nt x half the
 * longest row (a 10^8-entry row on 16 threads asked for 9.6 GB). */
#define SPX_SORT_PARALLEL_ROW_MAX ((int64_t)1 << 16)
/* Rows longer than this are radix sorted (up to 4 passes of 256 buckets over the row) when
 * the scratch holds them; shorter ones merge sorted (log2(len) passes of compares). */
#define C2C_RADIX_MIN 64
/* The "convert" steps reported: count, prefix, scatter, sort, pack. */
#define C2C_STEPS 5

/* Stable sort of (col, val)[0..len) by col, using scratch of len entries each. */
static void sort_row(int32_t *col, double *val, int32_t *tcol, double *tval, int64_t len)
{
    if (len <= 32) { /* insertion sort: stable, fast on short rows */
        for (int64_t i = 1; i < len; i++) {
            int32_t c = col[i];
            double v = val[i];
            int64_t j = i - 1;
            while (j >= 0 && col[j] > c) {
                col[j + 1] = col[j];
                val[j + 1] = val[j];
                j--;
            }
            col[j + 1] = c;
            val[j + 1] = v;
        }
        return;
    }
    int64_t half = len / 2;
    sort_row(col, val, tcol, tval, half);
    sort_row(col + half, val + half, tcol, tval, len - half);
    if (col[half - 1] <= col[half]) return; /* already in order */
    memcpy(tcol, col, (size_t)half * sizeof *tcol);
    memcpy(tval, val, (size_t)half * sizeof *tval);
    int64_t i = 0, j = half, k = 0;
    while (i < half && j < len) {
        if (col[j] < tcol[i]) {
            col[k] = col[j];
            val[k++] = val[j++];
        } else {
            col[k] = tcol[i];
            val[k++] = tval[i++];
        }
    }
    while (i < half) {
        col[k] = tcol[i];
        val[k++] = tval[i++];
    }
}

/* Stable LSD radix sort of (col, val)[0..len) by col (columns >= 0), a byte a pass, through
 * scratch (tcol, tval) of len entries; a byte that every column shares takes no pass. */
static void radix_sort_row(int32_t *col, double *val, int32_t *tcol, double *tval, int64_t len)
{
    int64_t count[4][256];
    memset(count, 0, sizeof count);
    for (int64_t k = 0; k < len; k++) {
        uint32_t c = (uint32_t)col[k];
        for (int d = 0; d < 4; d++) count[d][(c >> (8 * d)) & 0xff]++;
    }
    int32_t *sc = col, *dc = tcol;
    double *sv = val, *dv = tval;
    for (int d = 0; d < 4; d++) {
        int64_t *cnt = count[d], pos = 0;
        if (cnt[((uint32_t)col[0] >> (8 * d)) & 0xff] == len) continue; /* one bucket: in order */
        for (int b = 0; b < 256; b++) {
            int64_t c = cnt[b];
            cnt[b] = pos;
            pos += c;
        }
        for (int64_t k = 0; k < len; k++) {
            int64_t to = cnt[((uint32_t)sc[k] >> (8 * d)) & 0xff]++;
            dc[to] = sc[k];
            dv[to] = sv[k];
        }
        int32_t *tc = sc;
        double *tv = sv;
        sc = dc, sv = dv, dc = tc, dv = tv;
    }
    if (sc != col) { /* an odd number of passes: the result is in the scratch */
        memcpy(col, sc, (size_t)len * sizeof *col);
        memcpy(val, sv, (size_t)len * sizeof *val);
    }
}

/* Sorts row i by column (stably, with scratch tcol, tval of cap entries: radix sort when the
 * row is long and fits, else merge sort, which needs half the row), sums each run of one
 * column into its first entry from left to right and packs the row's distinct columns at its
 * start; returns how many there are. */
static int64_t sort_sum_row(spx_csr *A, int32_t i, int32_t *tcol, double *tval, int64_t cap)
{
    int64_t b = A->rowptr[i], e = A->rowptr[i + 1], w = b;
    if (e - b > C2C_RADIX_MIN && e - b <= cap)
        radix_sort_row(A->colind + b, A->val + b, tcol, tval, e - b);
    else
        sort_row(A->colind + b, A->val + b, tcol, tval, e - b);
    for (int64_t k = b; k < e; k++) {
        if (w > b && A->colind[w - 1] == A->colind[k]) {
            A->val[w - 1] += A->val[k];
        } else {
            A->colind[w] = A->colind[k];
            A->val[w++] = A->val[k];
        }
    }
    return w - b;
}

/* Sorts and sums every row (keep[i] = row i's distinct columns); sets *dup_row to the first
 * row that had a repeated column, or -1. Each thread's scratch holds a whole row up to
 * SPX_SORT_PARALLEL_ROW_MAX (for the radix sort) when the host budget has room for it, else
 * half of one (merge sort only); the longer rows share one scratch of half the longest. */
static spx_status sort_rows(spx_ctx *ctx, spx_csr *A, int64_t *keep, int32_t *dup_row, int64_t max_len)
{
    const size_t entry = sizeof(int32_t) + sizeof(double);
    int nt = spx_ctx_threads(ctx);
    int64_t short_max = max_len < SPX_SORT_PARALLEL_ROW_MAX ? max_len : SPX_SORT_PARALLEL_ROW_MAX;
    size_t per_thread = (size_t)short_max + 1, serial = max_len > short_max ? (size_t)(max_len / 2 + 1) : 0;
    if (((size_t)nt * per_thread + serial) * entry > spx_host_budget_room(ctx))
        per_thread = (size_t)(short_max / 2 + 1);
    int32_t *tcol = spx_malloc_array(ctx, (size_t)nt * per_thread + serial, sizeof *tcol);
    double *tval = spx_malloc_array(ctx, (size_t)nt * per_thread + serial, sizeof *tval);
    spx_status s = SPX_OK;
    if (!tcol || !tval) {
        s = spx_fail_nomem(ctx, "COO->CSR sort scratch");
        goto done;
    }
    int32_t first_dup = INT32_MAX; /* a reduction, not a critical section: no process-wide lock */
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1024) reduction(min : first_dup)
    for (int32_t i = 0; i < A->m; i++) {
        int64_t len = A->rowptr[i + 1] - A->rowptr[i];
        if (len > short_max) continue;
        size_t off = (size_t)omp_get_thread_num() * per_thread;
        keep[i] = sort_sum_row(A, i, tcol + off, tval + off, (int64_t)per_thread);
        if (keep[i] < len && i < first_dup) first_dup = i;
    }
    for (int32_t i = 0; serial && i < A->m; i++) { /* the long rows, with the one large scratch */
        int64_t len = A->rowptr[i + 1] - A->rowptr[i];
        if (len <= short_max) continue;
        size_t off = (size_t)nt * per_thread;
        keep[i] = sort_sum_row(A, i, tcol + off, tval + off, (int64_t)serial);
        if (keep[i] < len && i < first_dup) first_dup = i;
    }
    *dup_row = first_dup == INT32_MAX ? -1 : first_dup;
done:
    spx_free(ctx, tcol);
    spx_free(ctx, tval);
    return s;
}

/* The shares to cut nnz entries of an m-row COO into: the context's threads, fewer when the
 * entries are few, the rows many, or the host budget has no room for more histograms. */
static int share_count(spx_ctx *ctx, int64_t m, int64_t nnz)
{
    int64_t s = spx_ctx_threads(ctx);
    int64_t by_entries = nnz / C2C_MIN_SHARE;
    int64_t by_rows = C2C_HIST_PER_ENTRY * nnz / (m + 1);
    int64_t by_budget = (int64_t)(spx_host_budget_room(ctx) / (((size_t)m + 1) * sizeof(int64_t)) / 2);
    if (s > by_entries) s = by_entries;
    if (s > by_rows) s = by_rows;
    if (s > by_budget) s = by_budget;
    return s < 1 ? 1 : (int)s;
}

/* The first of share s's items when n items are cut into `shares` runs: floor(n * s / shares)
 * without forming n * s. */
static int64_t share_begin(int64_t n, int shares, int s)
{
    return n / shares * s + n % shares * s / shares;
}

/* Count: hist[s*m + i] = entries of row i in share s; bad[s] = the share's first entry outside
 * the matrix (its counting stops there), or -1. */
static void count_rows(const spx_coo *C, int shares, int64_t *hist, int64_t *bad)
{
    int64_t m = C->m;
#pragma omp parallel for num_threads(shares) schedule(static, 1)
    for (int s = 0; s < shares; s++) {
        int64_t *h = hist + (size_t)s * (size_t)m;
        int64_t end = share_begin(C->nnz, shares, s + 1);
        memset(h, 0, (size_t)m * sizeof *h);
        bad[s] = -1;
        for (int64_t k = share_begin(C->nnz, shares, s); k < end; k++) {
            int32_t r = C->row[k], c = C->col[k];
            if (r < 0 || r >= C->m || c < 0 || c >= C->n) {
                bad[s] = k;
                break;
            }
            h[r]++;
        }
    }
}

/* Prefix over (row, share), rows split into `shares` blocks done in parallel: rowptr from the
 * row totals, and each hist[s*m + i] turned into the first slot of share s in row i. Returns
 * the longest row. */
static int64_t prefix_rows(spx_csr *A, int shares, int64_t *hist, int64_t *block_sum)
{
    int64_t m = A->m, max_len = 0;
#pragma omp parallel for num_threads(shares) schedule(static, 1) reduction(max : max_len)
    for (int b = 0; b < shares; b++) {
        int64_t sum = 0;
        for (int64_t i = share_begin(m, shares, b); i < share_begin(m, shares, b + 1); i++) {
            int64_t len = 0;
            for (int s = 0; s < shares; s++) len += hist[(size_t)s * (size_t)m + (size_t)i];
            if (len > max_len) max_len = len;
            sum += len;
        }
        block_sum[b] = sum;
    }
    int64_t base = 0;
    for (int b = 0; b < shares; b++) { /* exclusive scan of the blocks */
        int64_t t = block_sum[b];
        block_sum[b] = base;
        base += t;
    }
#pragma omp parallel for num_threads(shares) schedule(static, 1)
    for (int b = 0; b < shares; b++) {
        int64_t pos = block_sum[b];
        for (int64_t i = share_begin(m, shares, b); i < share_begin(m, shares, b + 1); i++) {
            A->rowptr[i] = pos;
            for (int s = 0; s < shares; s++) {
                int64_t *h = &hist[(size_t)s * (size_t)m + (size_t)i], c = *h;
                *h = pos;
                pos += c;
            }
        }
    }
    A->rowptr[m] = A->nnz;
    return max_len;
}

/* Scatter: share s places its entries, in order, at its slots of their rows. */
static void scatter_rows(const spx_coo *C, spx_csr *A, int shares, int64_t *hist)
{
#pragma omp parallel for num_threads(shares) schedule(static, 1)
    for (int s = 0; s < shares; s++) {
        int64_t *next = hist + (size_t)s * (size_t)C->m;
        int64_t end = share_begin(C->nnz, shares, s + 1);
        for (int64_t k = share_begin(C->nnz, shares, s); k < end; k++) {
            int64_t dst = next[C->row[k]]++;
            A->colind[dst] = C->col[k];
            A->val[dst] = C->val[k];
        }
    }
}

/* The row whose (non-empty) range of rowptr holds position p < rowptr[m]. */
static int32_t row_of(const int64_t *rowptr, int32_t m, int64_t p)
{
    int32_t lo = 0, hi = m - 1; /* the last row i with rowptr[i] <= p */
    while (lo < hi) {
        int32_t mid = lo + (hi - lo + 1) / 2;
        if (rowptr[mid] <= p)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Copies the kept entries at positions [p0, p1) (row i keeps [rowptr[i], rowptr[i] + its
 * count), start[i + 1] - start[i] being its count) into (tc, tv); *dst = where they go: the
 * number of kept entries before p0. Returns how many were copied. */
static int64_t gather_chunk(const spx_csr *A, const int64_t *start, int64_t p0, int64_t p1, int32_t *tc,
                            double *tv, int64_t *dst)
{
    int32_t i = row_of(A->rowptr, A->m, p0);
    int64_t before = p0 - A->rowptr[i], kept = start[i + 1] - start[i], n = 0;
    *dst = start[i] + (before < kept ? before : kept);
    for (; i < A->m && A->rowptr[i] < p1; i++) {
        int64_t a = A->rowptr[i] > p0 ? A->rowptr[i] : p0;
        int64_t b = A->rowptr[i] + (start[i + 1] - start[i]);
        if (b > p1) b = p1;
        if (b <= a) continue;
        memcpy(tc + n, A->colind + a, (size_t)(b - a) * sizeof *tc);
        memcpy(tv + n, A->val + a, (size_t)(b - a) * sizeof *tv);
        n += b - a;
    }
    return n;
}

/* Pack, one thread, no scratch: row by row, each row's kept entries moved left to start[i]
 * (start[i] <= rowptr[i] and start[i + 1] <= rowptr[i + 1]: no row is overwritten unread). */
static void pack_rows_serial(spx_csr *A, const int64_t *start)
{
    for (int32_t i = 0; i < A->m; i++) {
        int64_t n = start[i + 1] - start[i];
        memmove(A->colind + start[i], A->colind + A->rowptr[i], (size_t)n * sizeof *A->colind);
        memmove(A->val + start[i], A->val + A->rowptr[i], (size_t)n * sizeof *A->val);
    }
}

/* Pack, nt threads, in rounds of one chunk (of `chunk` positions) per thread: all threads
 * copy their chunk's kept entries into their scratch (tcol, tval: nt chunks), wait, then write
 * them; a round writes only below the positions later rounds read (kept entries never move
 * right), so no entry is overwritten before it is read. */
static void pack_rows_parallel(spx_csr *A, const int64_t *start, int nt, int64_t chunk, int32_t *tcol, double *tval)
{
    int64_t chunks = (A->nnz + chunk - 1) / chunk;
#pragma omp parallel num_threads(nt)
    {
        int id = omp_get_thread_num(), team = omp_get_num_threads();
        int32_t *tc = tcol + (size_t)id * (size_t)chunk;
        double *tv = tval + (size_t)id * (size_t)chunk;
        for (int64_t round = 0; round < chunks; round += team) {
            int64_t c = round + id, dst = 0, n = 0;
            if (c < chunks) {
                int64_t p1 = (c + 1) * chunk;
                n = gather_chunk(A, start, c * chunk, p1 < A->nnz ? p1 : A->nnz, tc, tv, &dst);
            }
#pragma omp barrier
            memcpy(A->colind + dst, tc, (size_t)n * sizeof *tc);
            memcpy(A->val + dst, tv, (size_t)n * sizeof *tv);
#pragma omp barrier
        }
    }
}

/* Pack: every row i keeps its first start[i + 1] - start[i] entries (start: the exclusive
 * prefix of the counts, start[m] their total); moves them to start[i] and rewrites rowptr
 * and nnz. In parallel when there are chunks enough and the budget has room for the
 * threads' scratch, else serially without scratch. */
static spx_status pack_rows(spx_ctx *ctx, spx_csr *A, const int64_t *start)
{
    int64_t nt = spx_ctx_threads(ctx), chunk = (A->nnz + nt * C2C_PACK_ROUNDS - 1) / (nt * C2C_PACK_ROUNDS);
    if (chunk < C2C_PACK_CHUNK) chunk = C2C_PACK_CHUNK;
    int64_t chunks = (A->nnz + chunk - 1) / chunk;
    int64_t by_budget = (int64_t)(spx_host_budget_room(ctx) / ((size_t)chunk * (sizeof(int32_t) + sizeof(double))) / 2);
    if (nt > chunks) nt = chunks;
    if (nt > by_budget) nt = by_budget;
    int32_t *tcol = NULL;
    double *tval = NULL;
    spx_status s = SPX_OK;
    if (nt > 1) {
        tcol = spx_malloc_array(ctx, (size_t)nt * (size_t)chunk, sizeof *tcol);
        tval = spx_malloc_array(ctx, (size_t)nt * (size_t)chunk, sizeof *tval);
        if (!tcol || !tval) {
            s = spx_fail_nomem(ctx, "COO->CSR packing scratch");
            goto done;
        }
        pack_rows_parallel(A, start, (int)nt, chunk, tcol, tval);
    } else {
        pack_rows_serial(A, start);
    }
    memcpy(A->rowptr, start, ((size_t)A->m + 1) * sizeof *start);
    A->nnz = start[A->m];
done:
    spx_free(ctx, tcol);
    spx_free(ctx, tval);
    return s;
}

/* Rows of C counted and placed into A's arrays (A->nnz = C->nnz); *max_len = the longest row;
 * the steps reported to pr. */
static spx_status place_rows(spx_ctx *ctx, const spx_coo *C, spx_csr *A, int64_t *max_len, const spx_progress *pr)
{
    int shares = share_count(ctx, C->m, C->nnz);
    int64_t *hist = spx_malloc_array(ctx, (size_t)shares * (size_t)C->m + 1, sizeof *hist);
    int64_t *bad = spx_malloc_array(ctx, (size_t)shares, sizeof *bad);
    spx_status s = SPX_OK;
    if (!hist || !bad) {
        s = spx_fail_nomem(ctx, "COO->CSR row counts");
        goto done;
    }
    count_rows(C, shares, hist, bad);
    spx_progress_tell(pr, "convert", 1, C2C_STEPS);
    for (int i = 0; i < shares; i++) {
        int64_t k = bad[i];
        if (k >= 0) { /* the first share with a bad entry holds the first one */
            s = spx_fail(ctx, SPX_ERR_ARG, "COO entry %lld at (%d, %d) outside %d x %d", (long long)k, C->row[k],
                         C->col[k], C->m, C->n);
            goto done;
        }
    }
    *max_len = prefix_rows(A, shares, hist, bad); /* bad: the blocks' sums now */
    spx_progress_tell(pr, "convert", 2, C2C_STEPS);
    scatter_rows(C, A, shares, hist);
    spx_progress_tell(pr, "convert", 3, C2C_STEPS);
done:
    spx_free(ctx, bad);
    spx_free(ctx, hist);
    return s;
}

spx_status spx_coo_to_csr_progress(spx_ctx *ctx, const spx_coo *C, int strict, int64_t *duplicates, spx_csr **out,
                                   const spx_progress *pr)
{
    if (!ctx || !C || !out) return SPX_ERR_ARG;
    spx_csr *A = NULL;
    int64_t *keep = NULL, max_len = 0;
    spx_progress_tell(pr, "convert", 0, C2C_STEPS);
    spx_status s = spx_csr_alloc(ctx, C->m, C->n, C->nnz, &A);
    if (s) goto done;
    if ((s = place_rows(ctx, C, A, &max_len, pr))) goto done;
    keep = spx_malloc_array(ctx, (size_t)C->m + 1, sizeof *keep);
    if (!keep) {
        s = spx_fail_nomem(ctx, "COO->CSR row counts");
        goto done;
    }
    int32_t dup_row = -1;
    if ((s = sort_rows(ctx, A, keep, &dup_row, max_len))) goto done;
    spx_progress_tell(pr, "convert", 4, C2C_STEPS);
    int64_t removed = 0;
    if (dup_row >= 0) {
        if (strict) {
            s = spx_fail(ctx, SPX_ERR_PARSE, "duplicate entry in row %d (strict mode rejects duplicates)",
                         dup_row + 1);
            goto done;
        }
        int64_t total = 0;
        for (int32_t i = 0; i < C->m; i++) { /* the counts become their exclusive prefix */
            int64_t k = keep[i];
            keep[i] = total;
            total += k;
        }
        keep[C->m] = total;
        removed = A->nnz - total;
        if ((s = pack_rows(ctx, A, keep))) goto done;
    }
    spx_progress_tell(pr, "convert", C2C_STEPS, C2C_STEPS);
    if (duplicates) *duplicates = removed;
    A->meta.stored_entries = C->nnz;
    A->meta.duplicates = removed;
    *out = A;
    A = NULL;
done:
    spx_free(ctx, keep);
    spx_csr_destroy(&A);
    return s;
}

spx_status spx_coo_to_csr(spx_ctx *ctx, const spx_coo *C, int strict, int64_t *duplicates, spx_csr **out)
{
    return spx_coo_to_csr_progress(ctx, C, strict, duplicates, out, NULL);
}
