/* bench/peers/spx_export.c: `spx_export SRC OUT.spxcsr [SRC OUT.spxcsr]...`: each matrix source
 * spx reads (a .mtx/.mtx.gz path or a gen: spec) written as the binary CSR that the patched
 * peers and bench/peers/run.py read (layout: bench/peers/include/spx_peer.h), so that every
 * side multiplies the very matrix spx bench measures. One line a matrix on stdout:
 * "OUT m n nnz", or "OUT error: why" (exit status 1 when any failed). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spx/spx.h"

/* The peers' offsets are 32-bit: a matrix of this many nonzeros or more is refused. */
#define EXPORT_MAX_NNZ ((int64_t)INT32_MAX)

/* Writes A's arrays in the file's layout to f; 0 on success. */
static int write_csr(FILE *f, const spx_csr *A)
{
    int64_t dims[3] = {A->m, A->n, A->nnz};
    int ok = fwrite("SPXCSR1", 1, 8, f) == 8 && fwrite(dims, sizeof dims[0], 3, f) == 3;
    for (int64_t i = 0; ok && i <= A->m; i++) {
        int32_t p = (int32_t)A->rowptr[i];
        ok = fwrite(&p, sizeof p, 1, f) == 1;
    }
    size_t nnz = (size_t)A->nnz;
    ok = ok && (!nnz || fwrite(A->colind, sizeof *A->colind, nnz, f) == nnz);
    ok = ok && (!nnz || fwrite(A->val, sizeof *A->val, nnz, f) == nnz);
    return ok ? 0 : -1;
}

/* Writes A to path through a temporary file renamed when complete; 0 on success. */
static int export_csr(const spx_csr *A, const char *path)
{
    size_t len = strlen(path) + 8;
    char *tmp = malloc(len);
    if (!tmp) return -1;
    snprintf(tmp, len, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    int rc = f ? write_csr(f, A) : -1;
    if (f && fclose(f)) rc = -1;
    if (!rc && rename(tmp, path)) rc = -1;
    if (rc) remove(tmp);
    free(tmp);
    return rc;
}

/* Loads src and writes it to out, reporting one line; 0 on success. */
static int export_one(spx_ctx *ctx, const char *src, const char *out)
{
    spx_csr *A = NULL;
    int rc = 1;
    if (spx_load(ctx, src, NULL, &A)) {
        printf("%s error: %s\n", out, spx_ctx_last_error(ctx));
    } else if (A->nnz >= EXPORT_MAX_NNZ) {
        printf("%s error: %lld nonzeros: the peers' offsets are 32-bit\n", out, (long long)A->nnz);
    } else if (export_csr(A, out)) {
        printf("%s error: cannot write the file\n", out);
    } else {
        printf("%s %d %d %lld\n", out, A->m, A->n, (long long)A->nnz);
        rc = 0;
    }
    fflush(stdout);
    spx_csr_destroy(&A);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc % 2 == 0) {
        fprintf(stderr, "usage: spx_export SRC OUT.spxcsr [SRC OUT.spxcsr]...\n");
        return 2;
    }
    spx_ctx_opts o = {.backend = SPX_BACKEND_CPU};
    spx_ctx *ctx = NULL;
    if (spx_ctx_create(&ctx, &o)) {
        fprintf(stderr, "spx_export: cannot create a context\n");
        return 2;
    }
    int failed = 0;
    for (int i = 1; i + 1 < argc; i += 2) failed |= export_one(ctx, argv[i], argv[i + 1]);
    spx_ctx_destroy(&ctx);
    return failed;
}
