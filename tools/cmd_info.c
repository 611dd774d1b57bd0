/* tools/cmd_info.c: `spx info SRC`: sizes, symmetry, row-length statistics, bytes per SpMV. */
#include <string.h>

#include "cli.h"

static const char *symmetry_name(spx_symmetry s)
{
    switch (s) {
    case SPX_SYM_GENERAL: return "general";
    case SPX_SYM_SYMMETRIC: return "symmetric";
    case SPX_SYM_SKEW: return "skew-symmetric";
    case SPX_SYM_HERMITIAN: return "hermitian";
    }
    return "?";
}

static const char *field_name(spx_field f)
{
    switch (f) {
    case SPX_FIELD_REAL: return "real";
    case SPX_FIELD_INTEGER: return "integer";
    case SPX_FIELD_PATTERN: return "pattern";
    }
    return "?";
}

/* Prints the statistics as one JSON object. */
static void print_json(const char *src, const spx_csr *A, const spx_csr_stats *st, double bytes)
{
    int f = 1;
    putchar('{');
    json_kv_str(stdout, &f, "source", src);
    json_kv_int(stdout, &f, "rows", st->m);
    json_kv_int(stdout, &f, "cols", st->n);
    json_kv_int(stdout, &f, "nnz", st->nnz);
    json_kv_int(stdout, &f, "stored_entries", A->meta.stored_entries);
    json_kv_int(stdout, &f, "duplicates_summed", A->meta.duplicates);
    json_kv_str(stdout, &f, "declared_symmetry", symmetry_name(A->meta.symmetry));
    json_kv_str(stdout, &f, "field", field_name(A->meta.field));
    json_kv_int(stdout, &f, "structurally_symmetric", st->structurally_symmetric);
    json_kv_int(stdout, &f, "numerically_symmetric", st->numerically_symmetric);
    json_kv_int(stdout, &f, "row_min", st->row_min);
    json_kv_num(stdout, &f, "row_mean", st->row_mean);
    json_kv_int(stdout, &f, "row_max", st->row_max);
    json_kv_num(stdout, &f, "row_stddev", st->row_stddev);
    json_kv_int(stdout, &f, "empty_rows", st->empty_rows);
    json_kv_int(stdout, &f, "empty_cols", st->empty_cols);
    json_kv_int(stdout, &f, "bandwidth", st->bandwidth);
    json_kv_num(stdout, &f, "csr_fp64_bytes_per_spmv", bytes);
    printf("}\n");
}

/* Prints the statistics as a readable block. */
static void print_text(const char *src, const spx_csr *A, const spx_csr_stats *st, double bytes)
{
    printf("source           %s\n", src);
    printf("rows             %d\n", st->m);
    printf("cols             %d\n", st->n);
    printf("nnz              %lld\n", (long long)st->nnz);
    printf("stored entries   %lld (%s %s%s)\n", (long long)A->meta.stored_entries, field_name(A->meta.field),
           symmetry_name(A->meta.symmetry),
           A->meta.symmetry != SPX_SYM_GENERAL ? ", expanded to both triangles" : "");
    if (A->meta.duplicates) printf("duplicates       %lld summed\n", (long long)A->meta.duplicates);
    printf("symmetry         %s\n", st->numerically_symmetric ? "symmetric"
                                    : st->structurally_symmetric ? "structurally symmetric"
                                                                 : "unsymmetric");
    printf("row length       min %lld  mean %.3f  max %lld  stddev %.3f\n", (long long)st->row_min,
           st->row_mean, (long long)st->row_max, st->row_stddev);
    printf("empty rows       %lld\n", (long long)st->empty_rows);
    printf("empty cols       %lld\n", (long long)st->empty_cols);
    printf("bandwidth        %lld\n", (long long)st->bandwidth);
    printf("bytes per SpMV   %.0f (CSR fp64, int32 row pointers, x and y once)\n", bytes);
}

int cmd_info(int argc, char **argv)
{
    cli_opts o = {0};
    if (cli_parse(argc, argv, 2, "--json --strict --threads:", &o)) return CLI_ERROR;
    if (o.n_positional != 1) return cli_error("usage: spx info SRC [--json] [--strict]");
    spx_ctx *ctx = cli_ctx(&o);
    if (!ctx) return CLI_ERROR;
    spx_csr *A = NULL;
    int rc = cli_load(ctx, o.positional[0], &o, &A);
    spx_csr_stats st;
    if (rc == CLI_OK) {
        spx_status s = spx_csr_compute_stats(ctx, A, &st);
        if (s) rc = cli_fail(ctx, o.positional[0], s);
    }
    if (rc == CLI_OK) {
        double bytes = spx_csr_spmv_bytes(A, 8, 4, 0);
        if (o.json)
            print_json(o.positional[0], A, &st, bytes);
        else
            print_text(o.positional[0], A, &st, bytes);
    }
    spx_csr_destroy(&A);
    spx_ctx_destroy(&ctx);
    return rc;
}
