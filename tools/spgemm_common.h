/* tools/spgemm_common.h: what `spx spgemm` and `spx bench --op spgemm` share: the CPU oracle,
 * the comparison of a result with it (structure exact, values within rounding), the check of
 * the output paths and the JSON fields of a plan's info. */
#ifndef SPX_TOOLS_SPGEMM_COMMON_H
#define SPX_TOOLS_SPGEMM_COMMON_H

#include <stdio.h>
#include "cli.h"
#include "spx/spx.h"

/* Relative 2-norm distance from the oracle a result may have: fp64 sums in another order
 * differ by a few ulps per entry; fp32 ones by ~1e-7 per term, rows summing hundreds. */
#define SPGEMM_VERIFY_TOL_FP64 1e-12
#define SPGEMM_VERIFY_TOL_FP32 1e-5

/* The tolerance of a precision. */
double spgemm_verify_tol(spx_precision p);
/* Relative 2-norm of C - R when both have the same structure; -1 when they do not;
 * infinity when C holds NaN. */
double spgemm_compare(const spx_csr *C, const spx_csr *R);
/* The CPU oracle (gustavson on ctx's threads) for the same operands and precision into *R
 * (the caller destroys it); on failure the message is ctx's last error. */
spx_status spgemm_oracle(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, spx_precision p, int transpose_b,
                         spx_csr **R);
/* Checks C against the oracle's R: *rel_error, and why = "yes" or "no: <reason>"; returns
 * whether C is verified. */
int spgemm_check(const spx_csr *C, const spx_csr *R, spx_precision p, double *rel_error, char *why, size_t len);
/* The out-of-core options (--device-mem-limit, --panels, --gpu-share, --b-col-blocks) into so;
 * prints the error and returns CLI_ERROR on an unknown --panels mode. */
int spgemm_panel_opts(const cli_opts *o, spx_spgemm_opts *so);
/* The options' usage line for the commands' help. */
#define SPGEMM_PANEL_USAGE                                                                                 \
    "       [--device-mem-limit SIZE] [--panels auto|off|hetero|gpu|cpu] [--gpu-share R] [--b-col-blocks N]"
/* The plan's figures as JSON members (method, algo, kernel, backend, precision, shapes,
 * nnz, products, compression, plan_s, phases by name, memory held and at peak, the panels). */
void spgemm_info_json(FILE *f, int *first, const spx_spgemm_info *in);
/* in's phases as the JSON member `key`: an object of name: seconds. */
void spgemm_phases_json(FILE *f, int *first, const char *key, const spx_spgemm_info *in);

#endif
