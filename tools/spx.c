/* tools/spx.c: the spx command line: dispatches to one subcommand. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "dist/cli_dist.h"

static const char usage[] =
    "usage: spx <command> [options]\n"
    "\n"
    "commands:\n"
    "  formats [--json]                     registered formats, algorithms, CPU/CUDA paths\n"
    "  info SRC [--json] [--strict]         matrix statistics\n"
    "       [--format F [--algo A]]         ... and the plan F builds: phases, layout figures\n"
    "       [--order caller|plan]           ... with x and y in the plan's numbering (ehyb)\n"
    "       [--build auto|host|device]      ... its layout built where asked (CUDA plans)\n"
    "       [--select [--expected-spmvs N]] ... and what format auto picks for it, and why\n"
    "  gen SPEC -o FILE.mtx[.gz]            write a generated matrix\n"
    "  spmv SRC [--format F] [--algo A] [--backend cpu|cuda|auto] [--precision fp64|fp32]\n"
    "       [--reps N] [--warmup N] [--cold] [--threads N] [--json] [--no-baseline]\n"
    "       [--x X.mtx[.gz]] [--y-out Y.mtx[.gz]] [--expected-spmvs N (format auto: default 100)]\n"
    "       [--order caller|plan (x and y in the plan's numbering where its format has one)]\n"
    "       [--build auto|host|device (where a CUDA plan builds its layout)]\n"
    "                                       plan, verify against the reference, time; x read\n"
    "                                       from X (dense n x 1 array file; else random), the\n"
    "                                       verified y = A*x written to Y\n"
    "  spmm SRC --k K [--layout row|col] [--format F[/A]] [--algo A] [--backend ...] [--precision ...]\n"
    "       [--reps N] [--warmup N] [--cold] [--threads N] [--json]\n"
    "                                       Y = A*X for K right-hand sides (row-major by default):\n"
    "                                       plan, verify column by column, time; the kernel, or\n"
    "                                       the fallback of K SpMVs where the format has none\n"
    "  spgemm SRC_A [SRC_B] [--transpose-b] [--method M] [--algo A] [--backend ...] [--precision ...]\n"
    "       [-o C.mtx[.gz]] [--json] [--threads N] [--device-mem-limit SIZE]\n"
    "       [--panels auto|off|hetero|gpu|cpu] [--gpu-share R] [--b-col-blocks N] [--timeline FILE[.svg]]\n"
    "       [--no-verify]\n"
    "                                       C = A*B (A*A without SRC_B), phases, GFLOPS, verified;\n"
    "                                       in panels of A's rows past the device budget\n"
    "  solve SRC [--rhs FILE] [--x0 FILE] [--method cg|bicgstab] [--precond none|jacobi] [--tol T]\n"
    "       [--maxit N] [--format F|auto] [--algo A] [--backend ...] [--precision ...] [-o X.mtx]\n"
    "       [--json FILE] [--history FILE.json] [--threads N] [--order caller|plan]\n"
    "                                       solve A x = b (b = A*ones without --rhs): iterations,\n"
    "                                       true residual, time per iteration, break-even vs cuSPARSE\n"
    "  spmv|solve SRC --distributed [their options] [--partition rows|metis] [--transport mpi|mpi-host|mpi-device|nccl]\n"
    "                                       (under mpirun -np P) each rank holds a block of rows (metis:\n"
    "                                       a graph part, renumbered); the usual report plus a per-rank\n"
    "                                       table, verified against the serial result (docs/distributed.md)\n"
    "  bench [--op spmv] [SRC...] [--suite FILE] [--formats all|LIST] [--backend ...] [--precision ...]\n"
    "       [--reps N] [--plan-reps N] [--cold] [--order caller|plan] [--build auto|host|device]\n"
    "       [--json FILE] [--csv FILE]\n"
    "       [--plot FILE.svg]\n"
    "                                       every format on every matrix, as a table (--plot:\n"
    "                                       GFLOPS as grouped bars with each matrix's roofline;\n"
    "                                       --order plan: vectors in each plan's numbering)\n"
    "  bench --op spmm --k K[,K...] [SRC...] [--suite FILE] [--layout row|col] [--formats all|LIST]\n"
    "       [--backend ...] [--precision ...] [--reps N] [--warmup N] [--cold] [--json FILE]\n"
    "                                       every format on every matrix and k, Y = A*X verified;\n"
    "                                       against the fastest cuSPARSE SpMM and k SpMVs\n"
    "  bench --op spgemm [SRC...] [--suite FILE] [--methods all|M[/ALGO],...] [--backend ...]\n"
    "       [--precision ...] [--transpose-b] [--reps N] [--warmup N] [--threads N] [--cpu-scaling]\n"
    "       [--device-mem-limit SIZE] [--panels MODE] [--gpu-share R] [--b-col-blocks N]\n"
    "       [--json FILE] [--csv FILE]     every SpGEMM method on every matrix (C = A*A, A*A^T):\n"
    "                                       phases, GFLOPS, memory, verified, vs cuSPARSE\n"
    "  readbench FILE...                    Matrix Market parse speed vs a plain fscanf loop\n"
    "  spy SRC -o FILE.svg [--bins N]       the sparsity pattern as an SVG picture: a square per\n"
    "                                       nonzero, or at most N x N shaded cells (default 256)\n"
    "\n"
    "SRC is a Matrix Market file (.mtx or .mtx.gz) or a generator spec such as\n"
    "gen:poisson3d:n=100, gen:rmat:scale=20,ef=16, gen:uniform:m=1000000,k=16.\n"
    "`spx gen --help` lists the generators.\n"
    "\n"
    "Every command takes --mem-limit SIZE (e.g. 8G, 512M, none): the host memory spx may\n"
    "hold at once; default half of the available memory. A matrix needing more is refused\n"
    "with an error naming what it needs, before it is allocated.\n"
    "Reads, generations and writes that last over a second show a progress line on\n"
    "stderr when it is a terminal (never otherwise, never on stdout).\n"
    "Exit status: 0 ok, 1 verification failed (solve: not converged), 2 usage error, bad input\n"
    "or over the budget.\n";

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return CLI_ERROR;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage, stdout);
        return CLI_OK;
    }
    if (!strcmp(cmd, "--version")) {
        printf("spx %s (CUDA backend %s; distributed module %s)\n", SPX_VERSION, spx_cuda_compiled() ? "built" : "not built",
               cli_dist_status());
        return CLI_OK;
    }
    if (!strcmp(cmd, "formats")) return cmd_formats(argc, argv);
    if (!strcmp(cmd, "info")) return cmd_info(argc, argv);
    if (!strcmp(cmd, "gen")) return cmd_gen(argc, argv);
    if (!strcmp(cmd, "spmv")) return cmd_spmv(argc, argv);
    if (!strcmp(cmd, "spmm")) return cmd_spmm(argc, argv);
    if (!strcmp(cmd, "spgemm")) return cmd_spgemm(argc, argv);
    if (!strcmp(cmd, "solve")) return cmd_solve(argc, argv);
    if (!strcmp(cmd, "bench")) return cmd_bench(argc, argv);
    if (!strcmp(cmd, "readbench")) return cmd_readbench(argc, argv);
    if (!strcmp(cmd, "spy")) return cmd_spy(argc, argv);
    return cli_error("unknown command '%s' (try `spx --help`)", cmd);
}
