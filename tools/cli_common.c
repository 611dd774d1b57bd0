/* tools/cli_common.c: option parsing, error printing, JSON and safe output files for spx. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_signal.h"

#ifndef SPX_GIT_COMMIT
#define SPX_GIT_COMMIT "unknown"
#endif

int cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return CLI_ERROR;
}

int cli_fail(spx_ctx *ctx, const char *what, spx_status s)
{
    const char *msg = spx_ctx_last_error(ctx);
    if (!msg || !*msg) msg = spx_status_str(s);
    const char *hint = s == SPX_ERR_NOMEM && strstr(msg, "host budget")           ? " (raise it with --mem-limit)"
                       : s == SPX_ERR_DEVICE_ALLOC && strstr(msg, "device budget") ? " (raise it with --device-mem-limit)"
                                                                                   : "";
    if (what && *what && !strstr(msg, what)) return cli_error("%s: %s%s", what, msg, hint);
    return cli_error("%s%s", msg, hint); /* the message already names it */
}

/* Parses a byte count: a number with an optional K, M, G or T suffix (powers of 1024; "B"
 * or "iB" may follow), or "none"; returns 0 on failure. */
static int parse_bytes(const char *s, size_t *out)
{
    if (!strcmp(s, "none")) {
        *out = SPX_BUDGET_NONE;
        return 1;
    }
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !(v > 0)) return 0;
    const char *units = "KMGT";
    const char *u = *end ? strchr(units, *end == 'k' ? 'K' : *end) : NULL;
    if (u && *u) {
        for (const char *k = units; k <= u; k++) v *= 1024.0;
        end++;
    }
    if (!strcmp(end, "iB")) end += 2;
    else if (!strcmp(end, "B")) end += 1;
    if (*end || v < 1.0 || v >= 1.8e19) return 0;
    *out = (size_t)v;
    return 1;
}

/* Whether opt (e.g. "--reps") is in the allowed list, and whether it takes a value. */
static int option_allowed(const char *allowed, const char *opt, int *takes_value)
{
    size_t len = strlen(opt);
    for (const char *p = allowed; (p = strstr(p, opt)) != NULL; p += len) {
        int starts = p == allowed || p[-1] == ' ';
        char end = p[len];
        if (starts && (end == ' ' || end == '\0' || end == ':')) {
            *takes_value = end == ':';
            return 1;
        }
    }
    return 0;
}

/* Parses a positive integer in [1, max]; returns 0 on failure. */
static int parse_count(const char *s, long max, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > max) return 0;
    *out = (int)v;
    return 1;
}

/* Parses an SpMV count in [1, 10^15]; returns 0 on failure. */
static int parse_spmvs(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > 1000000000000000LL) return 0;
    *out = (int64_t)v;
    return 1;
}

/* Parses a finite number > 0; returns 0 on failure. */
static int parse_positive(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v > 0) || v > 1e308) return 0;
    *out = v;
    return 1;
}

/* Stores the value of one option into o; returns CLI_ERROR on a bad value. */
static int set_option(cli_opts *o, const char *opt, const char *val)
{
    if (!strcmp(opt, "--format")) o->format = val;
    else if (!strcmp(opt, "--algo")) o->algo = val;
    else if (!strcmp(opt, "--formats")) o->formats = val;
    else if (!strcmp(opt, "--suite")) o->suite = val;
    else if (!strcmp(opt, "--json")) o->json_path = val;
    else if (!strcmp(opt, "--csv")) o->csv_path = val;
    else if (!strcmp(opt, "-o")) o->out_path = val;
    else if (!strcmp(opt, "--plot")) o->plot_path = val;
    else if (!strcmp(opt, "--x")) o->x_path = val;
    else if (!strcmp(opt, "--y-out")) o->y_out_path = val;
    else if (!strcmp(opt, "--method")) o->method = val;
    else if (!strcmp(opt, "--transport")) o->transport = val;
    else if (!strcmp(opt, "--partition")) o->partition = val;
    else if (!strcmp(opt, "--methods")) o->methods = val;
    else if (!strcmp(opt, "--op")) o->op = val;
    else if (!strcmp(opt, "--rhs")) o->rhs_path = val;
    else if (!strcmp(opt, "--x0")) o->x0_path = val;
    else if (!strcmp(opt, "--precond")) o->precond = val;
    else if (!strcmp(opt, "--history")) o->history_path = val;
    else if (!strcmp(opt, "--panels")) o->panels = val;
    else if (!strcmp(opt, "--timeline")) o->timeline_path = val;
    else if (!strcmp(opt, "--gpu-share")) {
        if (!parse_positive(val, &o->gpu_share) || o->gpu_share > 1)
            return cli_error("--gpu-share needs a share in (0, 1], not '%s'", val);
    } else if (!strcmp(opt, "--b-col-blocks")) {
        if (!parse_count(val, 1000000, &o->b_col_blocks))
            return cli_error("--b-col-blocks needs a count >= 1 (1: B resident), not '%s'", val);
    } else if (!strcmp(opt, "--device-mem-limit")) {
        if (!parse_bytes(val, &o->device_mem_limit))
            return cli_error("--device-mem-limit needs a size such as 2GiB, 64M or none, not '%s'", val);
    }
    else if (!strcmp(opt, "--k")) {
        if (!parse_count(val, CLI_MAX_K, &o->k))
            return cli_error("--k needs a count from 1 to %d (the columns of X and Y), not '%s'", CLI_MAX_K, val);
    } else if (!strcmp(opt, "--layout")) {
        if (!strcmp(val, "row")) o->layout = SPX_DENSE_ROW_MAJOR;
        else if (!strcmp(val, "col")) o->layout = SPX_DENSE_COL_MAJOR;
        else return cli_error("--layout must be row or col, not '%s'", val);
        o->layout_given = 1;
    }
    else if (!strcmp(opt, "--tol")) {
        if (!parse_positive(val, &o->tol)) return cli_error("--tol needs a number > 0, not '%s'", val);
    } else if (!strcmp(opt, "--maxit")) {
        if (!parse_count(val, 1000000000, &o->maxit)) return cli_error("--maxit needs a count >= 1, not '%s'", val);
    } else if (!strcmp(opt, "--check-every")) {
        if (!parse_count(val, SPX_SOLVE_MAX_CHECK_EVERY, &o->check_every))
            return cli_error("--check-every needs a count from 1 to %d, not '%s'", SPX_SOLVE_MAX_CHECK_EVERY, val);
    }
    else if (!strcmp(opt, "--backend")) {
        if (!strcmp(val, "cpu")) o->backend = SPX_BACKEND_CPU;
        else if (!strcmp(val, "cuda")) o->backend = SPX_BACKEND_CUDA;
        else if (!strcmp(val, "auto")) o->backend = SPX_BACKEND_AUTO;
        else return cli_error("--backend must be cpu, cuda or auto, not '%s'", val);
    } else if (!strcmp(opt, "--solver-path")) {
        if (!strcmp(val, "auto")) o->solver_path = SPX_SOLVE_PATH_AUTO;
        else if (!strcmp(val, "graph")) o->solver_path = SPX_SOLVE_PATH_GRAPH;
        else if (!strcmp(val, "persistent")) o->solver_path = SPX_SOLVE_PATH_PERSISTENT;
        else return cli_error("--solver-path must be auto, graph or persistent, not '%s'", val);
    } else if (!strcmp(opt, "--order")) {
        if (!strcmp(val, "caller")) o->order = SPX_ORDER_CALLER;
        else if (!strcmp(val, "plan")) o->order = SPX_ORDER_PLAN;
        else return cli_error("--order must be caller or plan, not '%s'", val);
    } else if (!strcmp(opt, "--build")) {
        if (!strcmp(val, "auto")) o->build = SPX_BUILD_AUTO;
        else if (!strcmp(val, "host")) o->build = SPX_BUILD_HOST;
        else if (!strcmp(val, "device")) o->build = SPX_BUILD_DEVICE;
        else return cli_error("--build must be auto, host or device, not '%s'", val);
    } else if (!strcmp(opt, "--precision")) {
        if (!strcmp(val, "fp64")) o->precision = SPX_FP64;
        else if (!strcmp(val, "fp32")) o->precision = SPX_FP32;
        else return cli_error("--precision must be fp64 or fp32, not '%s'", val);
    } else if (!strcmp(opt, "--reps")) {
        if (!parse_count(val, 10000000, &o->reps)) return cli_error("--reps needs a count >= 1, not '%s'", val);
    } else if (!strcmp(opt, "--plan-reps")) {
        if (!parse_count(val, SPX_BENCH_MAX_PLAN_REPS, &o->plan_reps))
            return cli_error("--plan-reps needs a count from 1 to %d, not '%s'", SPX_BENCH_MAX_PLAN_REPS, val);
    } else if (!strcmp(opt, "--expected-spmvs")) {
        if (!parse_spmvs(val, &o->expected_spmvs))
            return cli_error("--expected-spmvs needs a count from 1 to 10^15, not '%s'", val);
    } else if (!strcmp(opt, "--warmup")) {
        if (!parse_count(val, 1000000, &o->warmup)) return cli_error("--warmup needs a count >= 1, not '%s'", val);
    } else if (!strcmp(opt, "--bins")) {
        if (!parse_count(val, CLI_MAX_BINS, &o->bins))
            return cli_error("--bins needs a count from 1 to %d, not '%s'", CLI_MAX_BINS, val);
    } else if (!strcmp(opt, "--threads")) {
        if (!parse_count(val, 4096, &o->threads)) return cli_error("--threads needs a count >= 1, not '%s'", val);
    } else if (!strcmp(opt, "--mem-limit")) {
        if (!parse_bytes(val, &o->mem_limit))
            return cli_error("--mem-limit needs a size such as 8G, 512M or none, not '%s'", val);
    }
    return CLI_OK;
}

int cli_parse(int argc, char **argv, int first, const char *allowed, cli_opts *o)
{
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || !strcmp(a, "-")) {
            if (o->n_positional >= (int)(sizeof o->positional / sizeof o->positional[0]))
                return cli_error("too many arguments");
            o->positional[o->n_positional++] = a;
            continue;
        }
        int takes_value = 0;
        if (!option_allowed(CLI_COMMON_OPTIONS, a, &takes_value) && !option_allowed(allowed, a, &takes_value)) return cli_error("unknown option '%s' for `spx %s`", a, argv[1]);
        if (!takes_value) {
            if (!strcmp(a, "--json")) o->json = 1;
            else if (!strcmp(a, "--cold")) o->cold = 1;
            else if (!strcmp(a, "--strict")) o->strict = 1;
            else if (!strcmp(a, "--no-baseline")) o->no_baseline = 1;
            else if (!strcmp(a, "--transpose-b")) o->transpose_b = 1;
            else if (!strcmp(a, "--cpu-scaling")) o->cpu_scaling = 1;
            else if (!strcmp(a, "--select")) o->select = 1;
            else if (!strcmp(a, "--no-verify")) o->no_verify = 1;
            else if (!strcmp(a, "--distributed")) o->distributed = 1;
            else if (!strcmp(a, "--no-model")) o->no_model = 1;
            continue;
        }
        if (i + 1 >= argc) return cli_error("option '%s' needs a value", a);
        if (set_option(o, a, argv[++i]) != CLI_OK) return CLI_ERROR;
    }
    return CLI_OK;
}

spx_ctx *cli_ctx(const cli_opts *o)
{
    spx_ctx *ctx = NULL;
    size_t budget = o->mem_limit;
    if (budget == 0) { /* a hostile or mistaken file must not push the machine into swap */
        budget = spx_host_available_bytes() / CLI_DEFAULT_MEM_FRACTION;
        if (budget == 0) budget = SPX_BUDGET_NONE;
    }
    spx_ctx_opts co = {.backend = o->backend, .threads = o->threads, .device = o->device, .host_budget = budget};
    if (spx_ctx_create(&ctx, &co) != SPX_OK) {
        cli_error("cannot create the spx context");
        return NULL;
    }
    return ctx;
}

int cli_check_sources(char **srcs, int n)
{
    for (int i = 0; i < n; i++)
        if (strncmp(srcs[i], "gen:", 4) && access(srcs[i], R_OK))
            return cli_error("%s: cannot open: %s", srcs[i], strerror(errno));
    return CLI_OK;
}

int cli_solve_choice(const cli_opts *o, const char **method, const char **precond)
{
    *method = o->method ? o->method : "cg";
    *precond = o->precond ? o->precond : "none";
    if (strcmp(*method, "cg") && strcmp(*method, "bicgstab")) return cli_error("--method must be cg or bicgstab, not '%s'", *method);
    if (strcmp(*precond, "none") && strcmp(*precond, "jacobi"))
        return cli_error("--precond must be none or jacobi, not '%s'", *precond);
    return CLI_OK;
}

int cli_has_flag(int argc, char **argv, int first, const char *flag)
{
    for (int i = first; i < argc; i++)
        if (!strcmp(argv[i], flag)) return 1;
    return 0;
}

int cli_load_timed(spx_ctx *ctx, const char *src, const cli_opts *o, cli_progress *pg, spx_csr **out)
{
    cli_progress_start(pg, src);
    spx_read_opts ro = {.strict = o->strict, .progress = cli_progress_fn, .progress_user = pg};
    spx_status s = spx_load(ctx, src, &ro, out);
    cli_progress_end(pg);
    if (s) return cli_fail(ctx, src, s);
    if ((*out)->meta.nonfinite)
        fprintf(stderr,
                "warning: %s holds %lld non-finite value%s (NaN or inf): every product through %s is non-finite, "
                "and no result through %s can be verified (spx info counts them)\n",
                src, (long long)(*out)->meta.nonfinite, (*out)->meta.nonfinite == 1 ? "" : "s",
                (*out)->meta.nonfinite == 1 ? "it" : "them", (*out)->meta.nonfinite == 1 ? "it" : "them");
    return CLI_OK;
}

int cli_write_vector(spx_ctx *ctx, const char *path, int64_t n, const double *v)
{
    cli_progress pg;
    cli_progress_start(&pg, path);
    spx_write_opts wo = {.on_temp = cli_signal_on_temp, .progress = cli_progress_fn, .progress_user = &pg};
    spx_status s = spx_vec_write_mtx_opts(ctx, path, n, v, &wo);
    cli_progress_end(&pg);
    return s ? cli_fail(ctx, path, s) : CLI_OK;
}

int cli_load(spx_ctx *ctx, const char *src, const cli_opts *o, spx_csr **out)
{
    cli_progress pg;
    return cli_load_timed(ctx, src, o, &pg, out);
}

/* Appends the sources of a suite file to srcs: one per line, '#' starts a comment. */
static int read_suite(const char *path, char **srcs, int *n)
{
    FILE *f = fopen(path, "r");
    if (!f) return cli_error("%s: cannot open suite file", path);
    char line[1024];
    int lineno = 0, rc = CLI_OK;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *s = line, *e;
        while (*s == ' ' || *s == '\t') s++;
        for (e = s + strlen(s); e > s && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'); e--) *(e - 1) = '\0';
        if (!*s) continue;
        if (*n >= CLI_MAX_SOURCES) {
            rc = cli_error("%s:%d: more than %d sources", path, lineno, CLI_MAX_SOURCES);
            break;
        }
        srcs[(*n)++] = strdup(s);
    }
    fclose(f);
    return rc;
}

int cli_sources(const cli_opts *o, const char *const *defaults, char **srcs, int *n)
{
    int rc = CLI_OK;
    for (int i = 0; i < o->n_positional && *n < CLI_MAX_SOURCES; i++) srcs[(*n)++] = strdup(o->positional[i]);
    if (o->suite) rc = read_suite(o->suite, srcs, n);
    if (rc == CLI_OK && !*n && !o->suite)
        for (int i = 0; defaults[i] && *n < CLI_MAX_SOURCES; i++) srcs[(*n)++] = strdup(defaults[i]);
    if (rc == CLI_OK && !*n) rc = cli_error("no matrices to measure");
    return rc;
}

void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

void json_key(FILE *f, int *first, const char *key)
{
    if (!*first) fputc(',', f);
    *first = 0;
    json_str(f, key);
    fputc(':', f);
}

void json_kv_str(FILE *f, int *first, const char *key, const char *val)
{
    json_key(f, first, key);
    json_str(f, val);
}

void json_kv_num(FILE *f, int *first, const char *key, double v)
{
    json_key(f, first, key);
    if (v != v || v > 1e308 || v < -1e308) fputs("null", f); /* JSON has no NaN or inf */
    else fprintf(f, "%.9g", v);
}

void json_kv_int(FILE *f, int *first, const char *key, long long v)
{
    json_key(f, first, key);
    fprintf(f, "%lld", v);
}

void json_env(FILE *f, spx_ctx *ctx, spx_backend b, double host_bw, double dev_bw)
{
    int first = 1;
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    struct utsname u;
    fputc('{', f);
    json_kv_str(f, &first, "spx_version", SPX_VERSION);
    json_kv_str(f, &first, "git_commit", SPX_GIT_COMMIT);
    json_kv_str(f, &first, "date", date);
    if (uname(&u) == 0) json_kv_str(f, &first, "host", u.nodename);
    json_kv_str(f, &first, "backend", spx_backend_str(b));
    json_kv_int(f, &first, "cuda_compiled", spx_cuda_compiled());
    json_kv_num(f, &first, "host_bandwidth_bytes_per_s", host_bw);
    spx_device_info d;
    if (b == SPX_BACKEND_CUDA && spx_device_query(ctx, &d) == SPX_OK) {
        json_key(f, &first, "device");
        int df = 1;
        fputc('{', f);
        json_kv_str(f, &df, "name", d.name);
        json_kv_int(f, &df, "sm_count", d.sm_count);
        json_kv_int(f, &df, "l2_bytes", d.l2_bytes);
        json_kv_int(f, &df, "global_bytes", d.global_bytes);
        json_kv_int(f, &df, "cc_major", d.cc_major);
        json_kv_int(f, &df, "cc_minor", d.cc_minor);
        json_kv_int(f, &df, "cuda_runtime_version", d.runtime_version);
        json_kv_int(f, &df, "cuda_driver_version", d.driver_version);
        json_kv_num(f, &df, "copy_bandwidth_bytes_per_s", dev_bw);
        fputc('}', f);
    }
    fputc('}', f);
}

/* Prints the error and returns CLI_ERROR when path is empty or names something other than a
 * regular file (a device, a folder, a FIFO): the rename that ends a write would replace it. */
static int refuse_special_path(const char *path)
{
    struct stat st;
    if (!*path) return cli_error("an output path is empty");
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return cli_error("%s: not a regular file (output is written to a temporary file renamed over it)", path);
    return CLI_OK;
}

int cli_check_out_path(const char *path)
{
    if (refuse_special_path(path)) return CLI_ERROR;
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path) >= sizeof tmp)
        return cli_error("%s: path too long", path);
    int fd = mkstemp(tmp);
    if (fd < 0) return cli_error("%s: cannot create: %s", path, strerror(errno));
    close(fd);
    unlink(tmp);
    return CLI_OK;
}

/* Whether a and b are both set and name the same path as written. */
static int same_path(const char *a, const char *b) { return a && b && !strcmp(a, b); }

int cli_check_outputs(const cli_opts *o)
{
    const char *const paths[] = {o->out_path,     o->json_path,  o->csv_path,     o->plot_path,
                                 o->history_path, o->y_out_path, o->timeline_path};
    const char *const opts[] = {"-o", "--json", "--csv", "--plot", "--history", "--y-out", "--timeline"};
    for (int i = 0; i < (int)(sizeof paths / sizeof paths[0]); i++) {
        for (int j = 0; j < i; j++)
            if (same_path(paths[i], paths[j])) return cli_error("%s and %s name the same file %s", opts[j], opts[i], paths[i]);
        if (paths[i] && cli_check_out_path(paths[i])) return CLI_ERROR;
    }
    return CLI_OK;
}

/* The permissions of a written output (mkstemp makes 0600, too private for a result file;
 * the library's Matrix Market writer gives the same). */
#define CLI_OUT_FILE_MODE 0644

FILE *cli_open_out(const char *path, char *tmp, size_t tmp_len)
{
    if (refuse_special_path(path)) return NULL;
    snprintf(tmp, tmp_len, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        cli_error("%s: cannot create: %s", path, strerror(errno));
        return NULL;
    }
    cli_signal_track(tmp); /* removed if a signal kills the command while it is written */
    FILE *f = fchmod(fd, CLI_OUT_FILE_MODE) == 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        int e = errno;
        close(fd);
        unlink(tmp);
        cli_signal_untrack();
        cli_error("%s: cannot open: %s", path, strerror(e));
    }
    return f;
}

int cli_commit_out(FILE *f, const char *tmp, const char *path)
{
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        cli_signal_untrack();
        return cli_error("%s: write failed: %s", path, strerror(e));
    }
    cli_signal_untrack();
    return CLI_OK;
}

int cli_write_results_json(spx_ctx *ctx, const char *path, spx_backend b, double host_bw, double dev_bw,
                           const char *op, const void *rows, int n, cli_json_row_fn row)
{
    char tmp[4096];
    FILE *f = cli_open_out(path, tmp, sizeof tmp);
    if (!f) return CLI_ERROR;
    fprintf(f, "{\"env\":");
    json_env(f, ctx, b, host_bw, dev_bw);
    if (op) fprintf(f, ",\"op\":\"%s\"", op);
    fprintf(f, ",\"results\":[\n");
    for (int i = 0; i < n; i++) {
        row(f, rows, i);
        fprintf(f, i + 1 < n ? ",\n" : "\n");
    }
    fprintf(f, "]}\n");
    return cli_commit_out(f, tmp, path);
}
