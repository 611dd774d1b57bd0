/* tools/cli.h: what the spx subcommands share: exit codes, option parsing, output. */
#ifndef SPX_TOOLS_CLI_H
#define SPX_TOOLS_CLI_H

#include <stdio.h>
#include "spx/spx.h"

#define CLI_OK 0
#define CLI_VERIFY_FAILED 1
#define CLI_ERROR 2 /* usage errors, bad input, failures */

/* Prints "error: <formatted>" on stderr; returns CLI_ERROR. */
int cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Options every command takes (in cli_parse's `allowed` syntax). */
#define CLI_COMMON_OPTIONS "--mem-limit:"
/* Without --mem-limit, the host budget is the available memory divided by this. */
#define CLI_DEFAULT_MEM_FRACTION 2

/* Prints "error: <what>: <context's last error>" (just the message when it already names
 * `what`; with a --mem-limit hint when the host budget refused) and returns CLI_ERROR. */
int cli_fail(spx_ctx *ctx, const char *what, spx_status s);

/* Options common to the commands; unset fields keep their zero defaults. */
typedef struct cli_opts {
    const char *format, *algo, *formats, *suite, *json_path, *csv_path, *out_path;
    const char *plot_path; /* --plot FILE.svg */
    int bins;              /* spy: --bins (0: the default) */
    const char *x_path, *y_out_path; /* spmv: --x FILE (x read from it), --y-out FILE */
    const char *method; /* spgemm: --method */
    int transpose_b;    /* spgemm: --transpose-b */
    const char *op;      /* bench: --op (spmv, spgemm); NULL: spmv */
    const char *methods; /* bench --op spgemm: --methods */
    int cpu_scaling;     /* bench --op spgemm: --cpu-scaling */
    size_t device_mem_limit;   /* spgemm: --device-mem-limit in bytes; 0: not given */
    const char *panels;        /* spgemm: --panels (auto, off, hetero, gpu, cpu) */
    double gpu_share;          /* spgemm: --gpu-share (0: not given, measured) */
    int b_col_blocks;          /* spgemm: --b-col-blocks (0: not given, as needed) */
    const char *timeline_path; /* spgemm: --timeline FILE (.svg: a picture, else JSON) */
    int no_verify;             /* spgemm: --no-verify (no CPU oracle: C too large for two copies) */
    const char *rhs_path, *x0_path, *precond, *history_path; /* solve: --rhs, --x0, --precond, --history */
    double tol;          /* solve: --tol (0: not given) */
    int maxit;           /* solve: --maxit (0: not given) */
    int check_every;     /* solve: --check-every (0: not given, automatic) */
    spx_solve_path solver_path; /* solve: --solver-path auto|graph|persistent (SPX_SOLVE_PATH_AUTO) */
    int k;               /* spmm: --k, the columns of X and Y (0: not given) */
    spx_dense_layout layout; /* spmm: --layout row|col (layout_given: set) */
    int layout_given;
    spx_backend backend;
    spx_precision precision;
    int reps, warmup, threads, cold, json, strict, no_baseline;
    int plan_reps;          /* bench: --plan-reps (0: the library's default) */
    int select;             /* info: --select (what "auto" picks, and why) */
    int distributed;        /* spmv, solve: --distributed (run under mpirun; tools/dist) */
    int no_model;           /* spmv --distributed: --no-model (no bandwidth or link measurement) */
    const char *transport;  /* spmv, solve --distributed: --transport mpi|nccl (NULL: mpi) */
    const char *partition;  /* spmv, solve --distributed: --partition rows|metis (NULL: rows) */
    int device;             /* the context's CUDA device (the distributed commands: one per rank) */
    int64_t expected_spmvs; /* --expected-spmvs (0: not given, the library's default) */
    spx_vector_order order; /* spmv, bench, info, solve: --order caller|plan (SPX_ORDER_CALLER) */
    spx_build_site build;   /* spmv, bench, info: --build auto|host|device (SPX_BUILD_AUTO) */
    size_t mem_limit; /* --mem-limit in bytes; 0: the default (half the available memory) */
    const char *positional[256];
    int n_positional;
} cli_opts;

/* The most columns `spx spmm --k` takes: X and Y of k columns each (the host budget still
 * bounds them); far beyond the k of block solvers and GNN layers (8-512). */
#define CLI_MAX_K 65536

/* The most cells a side of a density picture may have (`spx spy --bins`). */
#define CLI_MAX_BINS 1024

/* Parses argv[first..argc) into o; prints the error and returns CLI_ERROR on a bad option.
 * `allowed` is a space-separated list of the options the command accepts. */
int cli_parse(int argc, char **argv, int first, const char *allowed, cli_opts *o);

/* Sources a bench command may take at most. */
#define CLI_MAX_SOURCES 256
/* The matrices a bench measures into srcs[0..*n) (strdup'ed; the caller frees them): the
 * positional sources, then the suite file's lines (--suite: one source per line, '#' starts
 * a comment), or `defaults` (NULL-terminated) when there are neither. Prints the error. */
int cli_sources(const cli_opts *o, const char *const *defaults, char **srcs, int *n);
/* Checks that every file source among srcs[0..n) can be read (gen: specs are not files), before
 * a bench measures anything; prints the error. */
int cli_check_sources(char **srcs, int n);

/* The solver options with their defaults: --method (cg, bicgstab; default cg) and --precond
 * (none, jacobi; default none); prints the error for another value. */
int cli_solve_choice(const cli_opts *o, const char **method, const char **precond);

/* Whether argv[first..argc) holds the flag `flag` (e.g. "--distributed"). */
int cli_has_flag(int argc, char **argv, int first, const char *flag);

/* A context for the command (threads, backend, device), or NULL after printing the error. */
spx_ctx *cli_ctx(const cli_opts *o);

/* A progress line on stderr for long reads, generations and writes (tools/cli_progress.c):
 * shown only when stderr is a terminal, only once the operation has run for a second, at
 * most a few times a second, and cleared when it ends; never on stdout. It also times each
 * stage the library reports (from its first call, done = 0, to its last, done = total). */
#define CLI_PROGRESS_STAGES 8
typedef struct cli_progress {
    const char *what; /* the source or file, named on the line */
    int tty;          /* stderr is a terminal */
    double start, last, end; /* end: when cli_progress_end ran */
    int shown;        /* a line is on the terminal */
    int n_stages;
    struct {
        const char *name; /* the library's stage name (a string literal) */
        double first, last;
    } stage[CLI_PROGRESS_STAGES];
} cli_progress;
/* Starts one for `what` (kept, not copied). */
void cli_progress_start(cli_progress *p, const char *what);
/* spx_read_opts.progress / spx_write_opts.progress adapter; user is the cli_progress. */
void cli_progress_fn(void *user, const char *stage, double done, double total);
/* Clears the line, if one was shown, and notes the end time. */
void cli_progress_end(cli_progress *p);
/* "<total> s (<stage> <s> s, ...)" of a finished cli_progress, into buf. */
const char *cli_progress_times(const cli_progress *p, char *buf, size_t len);

/* Loads a matrix source (path or gen: spec), with a progress line on a terminal (see
 * cli_progress); prints the error on failure. */
int cli_load(spx_ctx *ctx, const char *src, const cli_opts *o, spx_csr **out);
/* cli_load into the caller's pg (started here, ended on return): its stage times. */
int cli_load_timed(spx_ctx *ctx, const char *src, const cli_opts *o, cli_progress *pg, spx_csr **out);
/* Writes the n values of v to path as a Matrix Market array, through a temporary the signal
 * handler removes, with the progress line; prints the error. */
int cli_write_vector(spx_ctx *ctx, const char *path, int64_t n, const double *v);

/* Minimal JSON writer: keys and values with commas handled by the caller's first flag. */
void json_str(FILE *f, const char *s);
void json_kv_str(FILE *f, int *first, const char *key, const char *val);
void json_kv_num(FILE *f, int *first, const char *key, double v);
void json_kv_int(FILE *f, int *first, const char *key, long long v);
void json_key(FILE *f, int *first, const char *key);

/* Machine-and-run record (spx version, commit, date, host, device) as a JSON object value. */
void json_env(FILE *f, spx_ctx *ctx, spx_backend b, double host_bw, double dev_bw);

/* Writes the i-th of a bench's results as one JSON object. */
typedef void (*cli_json_row_fn)(FILE *f, const void *rows, int i);
/* Writes a bench's record {"env": ..., "op": op (when not NULL), "results": [...]} to path
 * through a temporary name; the env's bandwidths are host_bw and dev_bw (0: unmeasured). */
int cli_write_results_json(spx_ctx *ctx, const char *path, spx_backend b, double host_bw, double dev_bw,
                           const char *op, const void *rows, int n, cli_json_row_fn row);

/* Checks, before any work, that path can be written through a temporary name beside it (not
 * empty, not a device or folder, its folder writable); prints the error; leaves nothing behind. */
int cli_check_out_path(const char *path);
/* Checks the output paths asked for (-o, --json FILE, --csv FILE, --plot FILE, --history FILE,
 * --y-out FILE) before anything runs: each writable through a temporary beside it, no two the
 * same; prints the error. */
int cli_check_outputs(const cli_opts *o);
/* Opens path for writing through a temporary name; cli_commit renames it into place (NULL,
 * with the error printed, for a path cli_check_out_path refuses or one it cannot create). */
FILE *cli_open_out(const char *path, char *tmp, size_t tmp_len);
int cli_commit_out(FILE *f, const char *tmp, const char *path);

/* The baseline every comparison is against: the first registered format flagged
 * is_baseline, at its default algorithm (algos[0]). Returns 0 when the registry has none. */
int cli_baseline(spx_format_desc *fmt, const char **algo);
/* Whether a result is the baseline's (format and algorithm as they ran). */
int cli_is_baseline(const spx_bench_result *r);
/* "<prefix><name>_<algo>" of the baseline (e.g. "speedup_vs_" -> "speedup_vs_cusparse_alg1"),
 * "<prefix>baseline" without one: the JSON keys and CSV columns of the comparison. */
const char *cli_baseline_key(const char *prefix, char *buf, size_t len);

/* One measured (matrix, format) pair with its comparison against the baseline's result on the
 * same matrix (when there is one). */
typedef struct cli_result {
    const char *matrix;
    char requested_algo[32];   /* as asked ("auto" shows what it resolved to) */
    char requested_format[32]; /* as asked: a format, or "auto" (the selection's choice) */
    int32_t m, n;
    int64_t nnz;
    double row_mean, row_stddev; /* nonzeros per row: "irregular" when stddev > mean */
    double diag_distance;        /* mean |col - row| / max(m, n): how far entries spread (spx_features) */
    spx_bench_result r;
    const char *skipped; /* not measured, the format is not built here: why (r.status
                            SPX_ERR_UNSUPPORTED, r.msg "not built: <why>"); else NULL */
    double bw;            /* the measured bandwidth the result is a fraction of (bytes/s) */
    double speedup;       /* t_median(baseline) / t_median; 0 when no baseline */
    double speedup_batch; /* t_batch(baseline) / t_batch; NaN when either batch time is absent */
    double repay;         /* SpMVs to repay the extra plan time vs the baseline (per-call
                             times); -1 never; 0 none */
    double plan_x;        /* plan_seconds / the baseline's (both with their upload); 0: none */
    double plan_x_nocheck; /* the same against the baseline's plan less its "check" phase (spx's
                              host CSR check, which a cuSPARSE user would not run); 0: none */
    double base_plan, base_plan_nocheck; /* the baseline's plan seconds, with and without it */
    double launch_call, launch_batch; /* GPU: the run's launch floor (spx_bench_launch_floor),
                                         seconds per call alone and back to back; NaN: none */
} cli_result;

/* Fills speedup, speedup_batch and repay of res against base (NULL or failed: none). */
void cli_compare(cli_result *res, const spx_bench_result *base);
/* The result as one JSON object. */
void cli_result_json(FILE *f, const cli_result *res);
/* The format's layout statistics (spx_plan_info.stats) as a JSON object value. */
void cli_layout_json(FILE *f, const spx_plan_info *p);
/* ",<v>" in printf format fmt, or "," alone (an empty field) when v is NaN or infinite. */
void cli_csv_num(FILE *f, const char *fmt, double v);
/* s as one quoted CSV field (a '"' inside doubled), without the comma before it. */
void cli_csv_str(FILE *f, const char *s);
void cli_result_csv_header(FILE *f);
void cli_result_csv(FILE *f, const cli_result *res);
/* The table's header and one row (nothing for a skipped result: the run prints a note). */
void cli_result_table_header(FILE *f);
void cli_result_table_row(FILE *f, const cli_result *res);
/* "fmt/algo" of a result. */
const char *cli_result_name(const cli_result *res, char *buf, size_t len);
/* Bandwidth of the backend (host STREAM triad or device copy), bytes/s; 0 if unmeasured. */
double cli_measure_bandwidth(spx_ctx *ctx, spx_backend b);
/* The run's launch floor on the GPU (spx_bench_launch_floor) into *call and *batch seconds;
 * NaN on the CPU or when it cannot be measured. */
void cli_measure_launch_floor(spx_ctx *ctx, spx_backend b, double *call, double *batch);

int cmd_formats(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_spmv(int argc, char **argv);
int cmd_spgemm(int argc, char **argv);
int cmd_spmm(int argc, char **argv);
/* The fields of one SpMM result (tools/cmd_spmm.c): the matrix (src, m x n, nnz), k, layout,
 * plan, kernel and fallback flag, times, rates, bytes and check, as `spx spmm --json` and `spx
 * bench --op spmm` write them (NaN as null). */
void cli_spmm_fields(FILE *f, int *first, const char *src, int32_t m, int32_t n, int64_t nnz,
                     const spx_bench_spmm_result *r);
int cmd_solve(int argc, char **argv);
int cmd_bench(int argc, char **argv);
/* `spx bench --op spgemm` (tools/cmd_bench_spgemm.c): cmd_bench hands it argv as it is. */
int cmd_bench_spgemm(int argc, char **argv);
/* `spx bench --op spmm` (tools/cmd_bench_spmm.c): cmd_bench hands it argv as it is. */
int cmd_bench_spmm(int argc, char **argv);
int cmd_readbench(int argc, char **argv);
int cmd_spy(int argc, char **argv);

#endif
