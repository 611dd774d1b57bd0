/* tools/dist/cli_dist.h: the CLI's distributed commands (`spx spmv|solve SRC --distributed`,
 * run under mpirun): tools/dist/cmd_dist.c when the MPI module is built, else
 * tools/dist/cmd_dist_stub.c, which refuses them with the reason. */
#ifndef SPX_TOOLS_DIST_CLI_DIST_H
#define SPX_TOOLS_DIST_CLI_DIST_H

/* "built (<MPI library version>)" or "not built: <why>", for `spx --version`. */
const char *cli_dist_status(void);
/* `spx spmv SRC --distributed ...`: the exit code (the same on every rank). */
int cli_dist_spmv(int argc, char **argv);
/* `spx solve SRC --distributed ...`: the exit code (the same on every rank). */
int cli_dist_solve(int argc, char **argv);

#endif
