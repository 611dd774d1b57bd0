/* tools/dist/cmd_dist_stub.c: the distributed commands of a build without MPI: they refuse with
 * the reason CMake gave (src/dist/dist.cmake defines SPX_DIST_WHY). */
#include "cli.h"
#include "dist/cli_dist.h"

const char *cli_dist_status(void)
{
    return "not built: " SPX_DIST_WHY;
}

int cli_dist_spmv(int argc, char **argv)
{
    return cli_error("--distributed: the distributed module is not built: %s", SPX_DIST_WHY);
}

int cli_dist_solve(int argc, char **argv)
{
    return cli_dist_spmv(argc, argv);
}
