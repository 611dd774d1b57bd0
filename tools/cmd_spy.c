/* tools/cmd_spy.c: `spx spy SRC -o FILE.svg [--bins N]`: the sparsity pattern as an SVG
 * picture: one square per nonzero when the matrix has at most N rows and N columns, else its
 * nonzeros counted into at most N x N cells (fewer across the shorter side of a tall or wide
 * matrix) shaded by the log of the count. */
#include <math.h>
#include <stdlib.h>

#include "cli.h"
#include "svg.h"

/* Cells per side without --bins: at most 65536 cells, so a picture of a few MB at worst. */
#define SPY_DEFAULT_BINS 256

/* Counts A's nonzeros into cells: at most bins along the picture's longer side, along the
 * shorter one as many as keep the cells about square on the picture (whose aspect is bounded
 * by SVG_MAX_ASPECT); cells of one entry when m and n are at most bins. Fills d's sizes and
 * counts (calloc'ed, also in *counts for the caller to free); prints the error. */
static int bin_pattern(const spx_csr *A, int64_t bins, svg_density *d, int64_t **counts)
{
    double ratio = A->m < A->n ? (double)A->m / A->n : (double)A->n / A->m; /* short : long */
    int64_t short_bins = (int64_t)ceil(bins * (ratio < 1 / SVG_MAX_ASPECT ? 1 / SVG_MAX_ASPECT : ratio));
    int64_t row_bins = A->m < A->n ? short_bins : bins, col_bins = A->m < A->n ? bins : short_bins;
    d->rows = A->m;
    d->cols = A->n;
    d->cell_rows = (A->m + row_bins - 1) / row_bins;
    d->cell_cols = (A->n + col_bins - 1) / col_bins;
    int64_t grid_rows = (A->m + d->cell_rows - 1) / d->cell_rows, grid_cols = (A->n + d->cell_cols - 1) / d->cell_cols;
    int64_t *c = calloc((size_t)(grid_rows * grid_cols), sizeof *c);
    if (!c) return cli_error("out of memory for %lld x %lld cells", (long long)grid_rows, (long long)grid_cols);
    for (int64_t i = 0; i < A->m; i++) {
        int64_t *row = c + i / d->cell_rows * grid_cols;
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) row[A->colind[p] / d->cell_cols]++;
    }
    d->counts = *counts = c;
    return CLI_OK;
}

/* Draws A (loaded from src) into o->out_path. */
static int spy(const spx_csr *A, const char *src, const cli_opts *o)
{
    if (A->m < 1 || A->n < 1)
        return cli_error("%s: a %d x %d matrix has no pattern to draw", src, (int)A->m, (int)A->n);
    svg_density d = {0};
    int64_t *counts = NULL;
    if (bin_pattern(A, o->bins ? o->bins : SPY_DEFAULT_BINS, &d, &counts)) return CLI_ERROR;
    char title[4200], sub[160];
    snprintf(title, sizeof title, "%s: %d x %d, %lld nonzeros", src, (int)A->m, (int)A->n, (long long)A->nnz);
    if (d.cell_rows == 1 && d.cell_cols == 1)
        snprintf(sub, sizeof sub, "one square per nonzero");
    else
        snprintf(sub, sizeof sub, "cells of %lld x %lld entries (rows x columns); shade: log of the nonzeros in a cell",
                 (long long)d.cell_rows, (long long)d.cell_cols);
    d.title = title;
    d.subtitle = sub;
    int rc = svg_density_image(o->out_path, &d);
    if (rc == CLI_OK) printf("wrote %s: %s\n", o->out_path, sub);
    free(counts);
    return rc;
}

int cmd_spy(int argc, char **argv)
{
    cli_opts o = {0};
    if (cli_parse(argc, argv, 2, "-o: --bins: --strict --threads:", &o)) return CLI_ERROR;
    if (o.n_positional != 1 || !o.out_path) return cli_error("usage: spx spy SRC -o FILE.svg [--bins N]");
    if (cli_check_outputs(&o)) return CLI_ERROR; /* before the matrix is read */
    spx_ctx *ctx = cli_ctx(&o);
    if (!ctx) return CLI_ERROR;
    spx_csr *A = NULL;
    int rc = cli_load(ctx, o.positional[0], &o, &A);
    if (rc == CLI_OK) rc = spy(A, o.positional[0], &o);
    spx_csr_destroy(&A);
    spx_ctx_destroy(&ctx);
    return rc;
}
