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
    if (cli_check_outputs(&o)) return CLI_ERROR;
    char spec[1024]; /* spx_load takes generators by their "gen:" prefix, optional here */
    const char *given = o.positional[0];
    if ((size_t)snprintf(spec, sizeof spec, "%s%s", strncmp(given, "gen:", 4) ? "gen:" : "", given) >= sizeof spec)
        return cli_error("%.40s...: spec too long", given);
    spx_ctx *ctx = cli_ctx(&o);
    if (!ctx) return CLI_ERROR;
    spx_csr *A = NULL;
    int rc = cli_load(ctx, spec, &o, &A);
    /* killed mid-write (Ctrl-C, SIGTERM), the handler removes the temporary file; before it
       exists (the generator), the default action leaves nothing behind */
    cli_progress pg;
    cli_progress_start(&pg, o.out_path);
    spx_write_opts wo = {.on_temp = cli_signal_on_temp, .progress = cli_progress_fn, .progress_user = &pg};
    spx_status s = SPX_OK;
    if (rc == CLI_OK && (s = spx_mtx_write_opts(ctx, o.out_path, A, &wo))) {
        cli_progress_end(&pg);
        rc = cli_fail(ctx, o.out_path, s);
    }
    cli_progress_end(&pg);
    if (rc == CLI_OK)
        printf("wrote %s: %d x %d, %lld nonzeros\n", o.out_path, A->m, A->n, (long long)A->nnz);
    spx_csr_destroy(&A);
    spx_ctx_destroy(&ctx);
    return rc;
}
