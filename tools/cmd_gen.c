/* tools/cmd_gen.c: `spx gen SPEC -o FILE`: write a generated matrix as Matrix Market. */
#include <string.h>

#include "cli.h"
#include "cli_signal.h"

int cmd_gen(int argc, char **argv)
{
    cli_opts o = {0};
    if (argc == 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
        fputs(spx_gen_help(), stdout);
        return CLI_OK;
    }
    if (cli_parse(argc, argv, 2, "-o: --threads:", &o)) return CLI_ERROR;
    if (o.n_positional != 1 || !o.out_path) return cli_error("usage: spx gen SPEC -o FILE.mtx[.gz]");
    spx_ctx *ctx = cli_ctx(&o);
    if (!ctx) return CLI_ERROR;
    spx_csr *A = NULL;
    int rc = CLI_OK;
    spx_status s = spx_gen(ctx, o.positional[0], &A);
    if (s) rc = cli_fail(ctx, o.positional[0], s);
    /* killed mid-write (Ctrl-C, SIGTERM), the handler removes the temporary file; before it
       exists (the generator), the default action leaves nothing behind */
    spx_write_opts wo = {.on_temp = cli_signal_on_temp};
    if (rc == CLI_OK && (s = spx_mtx_write_opts(ctx, o.out_path, A, &wo)))
        rc = cli_fail(ctx, o.out_path, s);
    if (rc == CLI_OK)
        printf("wrote %s: %d x %d, %lld nonzeros\n", o.out_path, A->m, A->n, (long long)A->nnz);
    spx_csr_destroy(&A);
    spx_ctx_destroy(&ctx);
    return rc;
}
