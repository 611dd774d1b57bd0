/* src/dist/dist_read.c: matrices read or generated in parallel. A Matrix Market file: every
 * rank reads the header, then only its byte range of the entry text (a line belongs to the rank
 * whose range holds its first byte: a rank starts after the first newline at or after its
 * range's first byte - 1 and ends with the line that crosses its range's end), parsed by the
 * serial reader's own stages (src/io/mtx_parse.h) with line and entry numbers offset by the
 * ranks before it (MPI_Exscan); the entries then move to the owners of equal row blocks, which
 * sort and sum them exactly as the serial reader does (spx_coo_to_csr), and on to the owners of
 * equal-nonzero blocks. Every rank runs the serial reader's checks in the same order and fails
 * with its message. A gen: spec is generated whole on every rank. */
#include <string.h>

#include "dist/dist_internal.h"
#include "io/mtx_parse.h"
#include "io/window.h"

/* The first header window; doubled until the size line is in it. */
#define DIST_HEADER_WINDOW ((int64_t)64 << 10)

/* What the parallel read of one rank holds while it runs. */
typedef struct dist_text {
    char *win;         /* the rank's window of the text */
    size_t win_len;
    mtx_header h;      /* the file's header (h.data not kept) */
    int64_t text_len, data_off;
    mtx_split sp;      /* the rank's lines, numbered globally */
    int64_t newlines;  /* line ends in the rank's lines */
    int last_newline;  /* the text ends with '\n' (known to the last rank; then agreed) */
} dist_text;

/* The header of path: a window from byte 0, doubled until it holds the size line (a window
 * ends at a line end, so any other error in it is final). */
static spx_status read_header(spx_ctx *ctx, const char *path, dist_text *t)
{
    for (int64_t want = DIST_HEADER_WINDOW;; want *= 2) {
        char *w = NULL;
        size_t len = 0;
        spx_status st = spx_io_read_window(ctx, path, 0, want, &w, &len);
        if (st) return st;
        memset(&t->h, 0, sizeof t->h);
        st = spx_mtx_parse_header(ctx, path, w, w + len, &t->h);
        const int whole = (int64_t)len >= t->text_len;
        if (!st) t->data_off = t->h.data - w;
        t->h.data = NULL;
        spx_free(ctx, w);
        if (!st || whole || !t->h.no_size_line) return st;
    }
}

/* This rank's lines: those starting in its byte range of the entry text, counted (pass 1 of
 * the serial reader) and numbered after the lines and entries of the ranks before it. */
static spx_status read_lines(MPI_Comm comm, spx_ctx *ctx, const char *path, dist_text *t)
{
    int rank = 0, size = 1;
    dist_where(comm, &rank, &size);
    const int64_t D = t->text_len - t->data_off;
    const int64_t lo = t->data_off + dist_block_start(D, rank, size), hi = t->data_off + dist_block_start(D, rank + 1, size);
    spx_status st = SPX_OK;
    const char *begin = NULL, *end = NULL;
    if (lo < hi && !(st = spx_io_read_window(ctx, path, lo - 1, hi - 1, &t->win, &t->win_len))) {
        end = t->win + t->win_len;
        const char *nl = memchr(t->win, '\n', t->win_len);
        begin = nl ? nl + 1 : end;
        t->last_newline = hi == t->text_len && t->win_len && end[-1] == '\n';
    }
    mtx_header local = t->h;
    local.data = begin ? begin : "";
    local.data_line = 0;
    if (!st) st = spx_mtx_split(ctx, &local, begin ? end : local.data, 0, &t->sp);
    if ((st = dist_agree(comm, ctx, st))) return st;
    t->newlines = t->sp.end_line;
    int64_t mine[2] = {t->newlines, t->sp.total}, before[2] = {0, 0};
    MPI_Exscan(mine, before, 2, MPI_INT64_T, MPI_SUM, comm);
    if (rank == 0) before[0] = before[1] = 0;
    for (int k = 0; k < t->sp.nchunks; k++) {
        t->sp.ch[k].first_line += t->h.data_line + before[0];
        t->sp.ch[k].first_entry += before[1];
    }
    return SPX_OK;
}

/* The serial reader's checks after the parse, on the totals of every rank: index 0, then the
 * entry count. Every rank computes the same result. */
static spx_status check_totals(MPI_Comm comm, spx_ctx *ctx, const char *path, dist_text *t, mtx_parse *P, int64_t count)
{
    int64_t zero_line = 0;
    int hit[2] = {0, 0}, hit_all[2];
    spx_mtx_zero_flags(&t->sp, &zero_line, &hit[0], &hit[1]);
    int64_t zl = zero_line ? zero_line : INT64_MAX, zl_all = 0;
    MPI_Allreduce(&zl, &zl_all, 1, MPI_INT64_T, MPI_MIN, comm);
    MPI_Allreduce(hit, hit_all, 2, MPI_INT, MPI_MAX, comm);
    spx_status st = spx_mtx_settle_zero(ctx, path, P, count, zl_all == INT64_MAX ? 0 : zl_all, hit_all[0], hit_all[1], 0);
    if (st) return st;
    int64_t mine[2] = {t->sp.total, t->newlines}, sum[2];
    MPI_Allreduce(mine, sum, 2, MPI_INT64_T, MPI_SUM, comm);
    int64_t flags[2] = {t->last_newline, spx_mtx_entry_line(&t->sp, t->h.entries)}, flags_all[2];
    MPI_Allreduce(flags, flags_all, 2, MPI_INT64_T, MPI_MAX, comm);
    const int64_t eof_line = t->data_off == t->text_len ? t->h.data_line - 1 : t->h.data_line + sum[1] - flags_all[0];
    return spx_mtx_count_error(ctx, path, &t->h, sum[0], eof_line, flags_all[1]);
}

/* Parses this rank's lines into *e (entries in file order, then their mirrors: *n_first and
 * *n of them), with the serial reader's checks, agreed. */
static spx_status parse_entries(MPI_Comm comm, spx_ctx *ctx, const char *path, dist_text *t, dist_entry **e, int64_t *n,
                                int64_t *n_first)
{
    int64_t total = 0;
    MPI_Allreduce(&t->sp.total, &total, 1, MPI_INT64_T, MPI_SUM, comm);
    const int64_t limit = total < t->h.entries ? total : t->h.entries;
    const int64_t first = t->sp.nchunks ? t->sp.ch[0].first_entry : 0;
    int64_t count = (first + t->sp.total < limit ? first + t->sp.total : limit) - first;
    if (count < 0) count = 0;
    const size_t cap = (size_t)(count ? count : 1) * (t->h.symmetry == SPX_SYM_GENERAL ? 1 : 2);
    mtx_parse P = {.h = &t->h, .limit = limit, .base = first};
    P.row = spx_malloc_array(ctx, cap, sizeof *P.row);
    P.col = spx_malloc_array(ctx, cap, sizeof *P.col);
    P.val = spx_malloc_array(ctx, cap, sizeof *P.val);
    spx_status st = P.row && P.col && P.val ? SPX_OK : spx_fail_nomem(ctx, "matrix entries");
    if (!st) st = spx_mtx_parse_entries(ctx, path, &t->sp, &P);
    if (!(st = dist_agree(comm, ctx, st))) st = check_totals(comm, ctx, path, t, &P, count);
    int64_t mirrors = st ? 0 : spx_mtx_append_mirrors(&P, &t->sp, count);
    if (!st && !(*e = spx_malloc_array(ctx, (size_t)(count + mirrors ? count + mirrors : 1), sizeof **e)))
        st = spx_fail_nomem(ctx, "matrix entries");
    for (int64_t k = 0; !st && k < count + mirrors; k++) (*e)[k] = (dist_entry){P.row[k], P.col[k], P.val[k]};
    *n = count + mirrors;
    *n_first = count;
    spx_free(ctx, P.val);
    spx_free(ctx, P.col);
    spx_free(ctx, P.row);
    if ((st = dist_agree(comm, ctx, st))) {
        spx_free(ctx, *e);
        *e = NULL;
    }
    return st;
}

/* The CSR of entries e[0..n) of rows [lo, lo + m) (each row's entries in the order they
 * were given): columns sorted, duplicates summed, as spx_coo_to_csr does for the serial reader. */
static spx_status entries_to_csr(spx_ctx *ctx, const dist_entry *e, int64_t n, int64_t lo, int64_t m, int64_t ncols, spx_csr **out)
{
    spx_coo coo = {.m = (int32_t)m, .n = (int32_t)ncols, .nnz = n, .ctx = ctx};
    coo.row = spx_malloc_array(ctx, n ? (size_t)n : 1, sizeof *coo.row);
    coo.col = spx_malloc_array(ctx, n ? (size_t)n : 1, sizeof *coo.col);
    coo.val = spx_malloc_array(ctx, n ? (size_t)n : 1, sizeof *coo.val);
    spx_status st = coo.row && coo.col && coo.val ? SPX_OK : spx_fail_nomem(ctx, "row block");
    for (int64_t k = 0; !st && k < n; k++) {
        coo.row[k] = (int32_t)(e[k].row - lo);
        coo.col[k] = e[k].col;
        coo.val[k] = e[k].val;
    }
    if (!st) st = spx_coo_to_csr(ctx, &coo, 0, NULL, out);
    spx_free(ctx, coo.val);
    spx_free(ctx, coo.col);
    spx_free(ctx, coo.row);
    return st;
}

spx_status dist_move_rows(MPI_Comm comm, spx_ctx *ctx, const spx_csr *csr, int64_t lo, const int32_t *map,
                          const int64_t *start, spx_csr **out)
{
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    *out = NULL;
    dist_entry *e = spx_malloc_array(ctx, csr->nnz ? (size_t)csr->nnz : 1, sizeof *e), *got = NULL;
    int64_t n = 0, first = 0;
    spx_status st = dist_agree(comm, ctx, e ? SPX_OK : spx_fail_nomem(ctx, "row exchange"));
    if (st) goto done;
    for (int64_t i = 0; i < csr->m; i++)
        for (int64_t k = csr->rowptr[i]; k < csr->rowptr[i + 1]; k++)
            e[k] = map ? (dist_entry){map[lo + i], map[csr->colind[k]], csr->val[k]}
                       : (dist_entry){(int32_t)(lo + i), csr->colind[k], csr->val[k]};
    if ((st = dist_exchange(comm, ctx, start, e, csr->nnz, csr->nnz, &got, &n, &first))) goto done;
    const int64_t mine = start[rank + 1] - start[rank];
    if (map) { /* renumbered rows arrive in any order: sorted as the reader sorts */
        st = entries_to_csr(ctx, got, n, start[rank], mine, csr->n, out);
    } else if (!(st = spx_csr_alloc(ctx, mine, csr->n, n, out))) { /* in row order, sorted within rows */
        for (int64_t k = 0; k < n; k++) {
            (*out)->rowptr[got[k].row - start[rank] + 1]++;
            (*out)->colind[k] = got[k].col;
            (*out)->val[k] = got[k].val;
        }
        for (int64_t i = 0; i < mine; i++) (*out)->rowptr[i + 1] += (*out)->rowptr[i];
    }
    if ((st = dist_agree(comm, ctx, st))) spx_csr_destroy(out);
done:
    spx_free(ctx, got);
    spx_free(ctx, e);
    return st;
}

/* The parallel read: this rank's rows start[rank].. of equal nonzeros per rank (start: size + 1
 * entries), *m x *n, as CSR with global columns. Collective. */
static spx_status dist_read(MPI_Comm comm, spx_ctx *ctx, const char *path, int64_t *start, int64_t *m, int64_t *n,
                            spx_csr **local)
{
    int rank = 0, size = 1;
    dist_where(comm, &rank, &size);
    dist_text t;
    memset(&t, 0, sizeof t);
    *local = NULL;
    dist_entry *e = NULL, *got = NULL;
    int64_t ne = 0, nfirst = 0, ngot = 0, gfirst = 0;
    spx_csr *block = NULL;
    int64_t *start1 = spx_malloc_array(ctx, (size_t)size + 1, sizeof *start1);
    spx_status st = start1 ? SPX_OK : spx_fail_nomem(ctx, "row partition");
    if (!st && rank == 0) st = spx_io_text_length(ctx, path, &t.text_len); /* gzip: one inflate, not one per rank */
    if (!(st = dist_agree(comm, ctx, st))) {
        MPI_Bcast(&t.text_len, 1, MPI_INT64_T, 0, comm);
        st = read_header(ctx, path, &t);
    }
    if ((st = dist_agree(comm, ctx, st)) || (st = read_lines(comm, ctx, path, &t)) ||
        (st = parse_entries(comm, ctx, path, &t, &e, &ne, &nfirst)))
        goto done;
    spx_free(ctx, t.win); /* the text is done with */
    t.win = NULL;
    for (int r = 0; r <= size; r++) start1[r] = dist_block_start(t.h.m, r, size); /* equal rows first */
    if ((st = dist_exchange(comm, ctx, start1, e, ne, nfirst, &got, &ngot, &gfirst))) goto done;
    spx_free(ctx, e);
    e = NULL;
    st = entries_to_csr(ctx, got, ngot, start1[rank], start1[rank + 1] - start1[rank], t.h.n, &block);
    if ((st = dist_agree(comm, ctx, st)) || (st = dist_balance(comm, ctx, t.h.m, start1[rank], block->m, block->rowptr, start)))
        goto done;
    st = dist_move_rows(comm, ctx, block, start1[rank], NULL, start, local);
    *m = t.h.m;
    *n = t.h.n;
done:
    spx_csr_destroy(&block);
    spx_free(ctx, got);
    spx_free(ctx, e);
    spx_free(ctx, start1);
    spx_mtx_split_free(ctx, &t.sp);
    spx_free(ctx, t.win);
    return st;
}

spx_status spx_dist_read_csr(MPI_Comm comm, spx_ctx *ctx, const char *path, int64_t *row_lo, spx_csr **local)
{
    if (!ctx) return SPX_ERR_ARG;
    int size = 1, rank = 0;
    dist_where(comm, &rank, &size);
    int64_t *start = spx_malloc_array(ctx, (size_t)size + 1, sizeof *start), m = 0, n = 0;
    spx_status st = start && path && row_lo && local ? SPX_OK : spx_fail(ctx, SPX_ERR_ARG, "spx_dist_read_csr: NULL argument or no memory");
    if (!(st = dist_agree(comm, ctx, st))) st = dist_read(comm, ctx, path, start, &m, &n, local);
    if (!st) *row_lo = start[rank];
    spx_free(ctx, start);
    return st;
}

/* A gen: spec: generated whole on every rank (the generators are deterministic), each keeping
 * its rows of the equal-nonzero partition; start: size + 1 entries. */
static spx_status dist_generate(MPI_Comm comm, spx_ctx *ctx, const char *spec, int64_t *start, int64_t *m, int64_t *n,
                                spx_csr **local)
{
    int rank = 0, size = 1;
    dist_where(comm, &rank, &size);
    spx_csr *A = NULL;
    *local = NULL;
    spx_status st = dist_agree(comm, ctx, spx_load(ctx, spec, NULL, &A));
    if (st) {
        spx_csr_destroy(&A);
        return st;
    }
    const int64_t lo = dist_block_start(A->m, rank, size), hi = dist_block_start(A->m, rank + 1, size); /* a share of the rows each */
    if (!(st = dist_balance(comm, ctx, A->m, lo, hi - lo, A->rowptr + lo, start))) {
        const int64_t r0 = start[rank], r1 = start[rank + 1], base = A->rowptr[r0];
        if (!(st = spx_csr_alloc(ctx, r1 - r0, A->n, A->rowptr[r1] - base, local))) {
            for (int64_t i = 0; i <= r1 - r0; i++) (*local)->rowptr[i] = A->rowptr[r0 + i] - base;
            memcpy((*local)->colind, A->colind + base, (size_t)(*local)->nnz * sizeof *A->colind);
            memcpy((*local)->val, A->val + base, (size_t)(*local)->nnz * sizeof *A->val);
        }
        *m = A->m;
        *n = A->n;
    }
    spx_csr_destroy(&A);
    if ((st = dist_agree(comm, ctx, st))) spx_csr_destroy(local);
    return st;
}

spx_status spx_dist_load_ex(MPI_Comm comm, spx_ctx *ctx, const char *source, const spx_plan_opts *po,
                            const spx_dist_opts *opts, spx_dist_matrix **out)
{
    if (!ctx) return SPX_ERR_ARG;
    int size = 1, metis = 0;
    MPI_Comm_size(comm, &size);
    int64_t *start = spx_malloc_array(ctx, (size_t)size + 1, sizeof *start), m = 0, n = 0, *orig = NULL;
    spx_csr *local = NULL;
    spx_status st = start && source && out ? SPX_OK : spx_fail(ctx, SPX_ERR_ARG, "spx_dist_load: NULL argument or no memory");
    if (!st) st = dist_partition_choice(ctx, opts, &metis);
    if (!(st = dist_agree(comm, ctx, st)))
        st = strncmp(source, "gen:", 4) == 0 ? dist_generate(comm, ctx, source, start, &m, &n, &local)
                                             : dist_read(comm, ctx, source, start, &m, &n, &local);
    if (!st && metis) st = dist_metis_renumber(comm, ctx, m, n, start, &local, &orig);
    if (!st) st = dist_build(comm, ctx, m, n, start, local, po, out); /* takes local */
    else spx_csr_destroy(&local);
    if (!st && metis) {
        (*out)->partition = "metis";
        (*out)->row_orig = orig;
    } else {
        spx_free(ctx, orig);
    }
    spx_free(ctx, start);
    return st;
}

spx_status spx_dist_load(MPI_Comm comm, spx_ctx *ctx, const char *source, const spx_plan_opts *po, spx_dist_matrix **out)
{
    return spx_dist_load_ex(comm, ctx, source, po, NULL, out);
}
