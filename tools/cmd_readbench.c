/* tools/cmd_readbench.c: `spx readbench FILE...`: Matrix Market parse speed (MB/s) of the
 * spx reader (serial and parallel) against a plain fscanf loop, in the same run. */
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* Size of the file in bytes (0 if it cannot be read). */
static double file_bytes(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (double)sb.st_size : 0.0;
}

/* Reads path with the given parallel setting; prints MB/s; returns CLI_OK or the error. */
static int time_reader(spx_ctx *ctx, const char *path, int parallel, const char *label)
{
    spx_csr *A = NULL;
    spx_read_stats st = {0};
    spx_read_opts ro = {.parallel = parallel};
    spx_status s = spx_mtx_read(ctx, path, &ro, &A, &st);
    if (s) return cli_fail(ctx, path, s);
    printf("  %-22s %8.3f s  %8.1f MB/s  (parse %.3f s, %d threads)\n", label, st.seconds,
           st.seconds > 0 ? st.bytes / st.seconds * 1e-6 : 0.0, st.parse_seconds, st.threads);
    spx_csr_destroy(&A);
    return CLI_OK;
}

int cmd_readbench(int argc, char **argv)
{
    cli_opts o = {0};
    if (cli_parse(argc, argv, 2, "--threads:", &o)) return CLI_ERROR;
    if (!o.n_positional) return cli_error("usage: spx readbench FILE.mtx...");
    spx_ctx *ctx = cli_ctx(&o);
    if (!ctx) return CLI_ERROR;
    int rc = CLI_OK;
    for (int i = 0; rc == CLI_OK && i < o.n_positional; i++) {
        const char *path = o.positional[i];
        printf("%s\n", path);
        rc = time_reader(ctx, path, -1, "spx reader, serial");
        if (rc == CLI_OK) rc = time_reader(ctx, path, 1, "spx reader, parallel");
        if (rc != CLI_OK) break;
        spx_csr *A = NULL;
        double t0 = spx_wtime();
        spx_status s = spx_mtx_read_fscanf(ctx, path, &A);
        double dt = spx_wtime() - t0;
        if (s == SPX_ERR_UNSUPPORTED) {
            printf("  %-22s skipped: %s\n", "fscanf loop", spx_ctx_last_error(ctx));
        } else if (s) {
            rc = cli_fail(ctx, path, s);
        } else {
            printf("  %-22s %8.3f s  %8.1f MB/s\n", "fscanf loop", dt, dt > 0 ? file_bytes(path) / dt * 1e-6 : 0.0);
        }
        spx_csr_destroy(&A);
    }
    spx_ctx_destroy(&ctx);
    return rc;
}
