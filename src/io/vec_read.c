/* src/io/vec_read.c: spx_vec_read_mtx: a dense vector from a Matrix Market array file, through
 * the matrix reader's header and chunked parallel parse (values only). */
#include <string.h>

#include "core/ctx.h"
#include "io/mtx_parse.h"
#include "io/text.h"

/* Fails unless h is a dense vector's header: array, real or integer, general, one column. */
static spx_status check_vector_header(spx_ctx *ctx, const char *path, const mtx_header *h)
{
    if (h->field == SPX_FIELD_PATTERN)
        return spx_fail(ctx, SPX_ERR_PARSE,
                        "%s:1: a vector needs values; a pattern file has none (array real or integer)", path);
    if (h->format == MTX_COORDINATE)
        return spx_fail(ctx, SPX_ERR_PARSE,
                        "%s:1: a vector is read from an array file, not a coordinate one (write it "
                        "dense: 'matrix array real general', n x 1)",
                        path);
    if (h->symmetry != SPX_SYM_GENERAL)
        return spx_fail(ctx, SPX_ERR_PARSE, "%s:1: a vector file must be general, not %s", path,
                        spx_mtx_symmetry_name(h->symmetry));
    if (h->n != 1)
        return spx_fail(ctx, SPX_ERR_PARSE, "%s:%lld: size line: a vector has 1 column, got %lld x %lld", path,
                        (long long)h->data_line - 1, (long long)h->m, (long long)h->n);
    return SPX_OK;
}

/* Fails (SPX_ERR_NOMEM, naming the budget) unless the values the text can hold (one line of at
 * least 2 bytes each) fit the host budget beside the text already held. */
static spx_status check_vector_budget(spx_ctx *ctx, const char *path, const mtx_header *h, size_t data_bytes)
{
    double values = (double)h->entries, text_cap = (double)data_bytes / 2.0 + 1.0;
    if (values > text_cap)
        values = text_cap;
    double need = values * sizeof(double);
    return spx_host_budget_require(ctx, need >= (double)SIZE_MAX ? SIZE_MAX : (size_t)need, SPX_ERR_NOMEM,
                                   "%s: reading a vector of %lld entries", path, (long long)h->m);
}

spx_status spx_vec_read_mtx(spx_ctx *ctx, const char *path, int64_t *n, double **data)
{
    if (!ctx)
        return SPX_ERR_ARG;
    if (!path || !n || !data)
        return spx_fail(ctx, SPX_ERR_ARG, "spx_vec_read_mtx: %s is NULL", !path ? "path" : !n ? "n" : "data");
    char *text = NULL;
    size_t len = 0;
    double *val = NULL;
    mtx_split sp = {0};
    mtx_header h;
    memset(&h, 0, sizeof h);
    spx_status st = spx_io_read_text(ctx, path, NULL, &text, &len, NULL);
    if (st)
        goto done;
    const char *end = text + len;
    st = spx_mtx_parse_header(ctx, path, text, end, &h);
    if (st == SPX_ERR_UNSUPPORTED && h.complex)
        st = spx_fail(ctx, st, "%s:1: complex vectors are not supported (real or integer only)", path);
    if (!st)
        st = check_vector_header(ctx, path, &h);
    if (!st)
        st = check_vector_budget(ctx, path, &h, (size_t)(end - h.data));
    if (!st)
        st = spx_mtx_split(ctx, &h, end, 0, &sp);
    if (st)
        goto done;
    mtx_parse P = {.h = &h, .strict = 1, .limit = sp.total < h.entries ? sp.total : h.entries};
    val = spx_malloc_array(ctx, P.limit > 0 ? (size_t)P.limit : 1, sizeof *val);
    if (!val) {
        st = spx_fail_nomem(ctx, "vector values");
        goto done;
    }
    P.val = val;
    st = spx_mtx_parse_entries(ctx, path, &sp, &P);
    if (!st)
        st = spx_mtx_check_count(ctx, path, &h, &sp, end);
    if (st)
        goto done;
    *n = h.m;
    *data = val;
    val = NULL;
done:
    spx_free(ctx, val);
    spx_mtx_split_free(ctx, &sp);
    spx_free(ctx, text);
    return st;
}
