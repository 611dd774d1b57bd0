/* include/spx/io.h: Matrix Market reading and writing, and matrix sources (path or gen: spec). */
#ifndef SPX_IO_H
#define SPX_IO_H

#include "spx/matrix.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API: exported by libspx.so */

/* Progress of a long read, generation or write, for a progress display. stage names what
 * runs now: "read" (file bytes read), "inflate" (gzip bytes inflated), "parse" (text chunks
 * parsed), "convert" (COO -> CSR steps), "generate" (generator steps), "write" (rows
 * written); done of total in the stage's units (0 <= done <= total, total > 0). Contract:
 * called only on the thread that called the library function (never from its worker
 * threads, never concurrently); a stage opens with a call with done = 0 and, unless the
 * function fails, closes with one with done = total, done non-decreasing in between (so the
 * time between a stage's first and last calls is its duration); up to a few hundred calls
 * per stage, so it must be cheap (a display throttles itself); it must not call spx
 * functions on the same context. The caller clears its display when the function returns. */
typedef void (*spx_progress_fn)(void *user, const char *stage, double done, double total);

typedef struct spx_read_opts {
    int strict;   /* reject duplicates and symmetric files with upper-triangle entries */
    int parallel; /* 1 = parse in parallel above a size threshold (default when 0 too);
                     -1 = always serial */
    spx_progress_fn progress; /* optional (NULL: none): reading, parsing and converting, and
                                 for spx_load of a gen: spec, generating */
    void *progress_user;      /* passed back to progress */
} spx_read_opts;

/* Measured by the reader, for the parse-speed report. */
typedef struct spx_read_stats {
    double bytes;        /* text bytes parsed (after decompression) */
    double seconds;      /* wall time of the whole read */
    double parse_seconds;/* of which parsing text into COO */
    int threads;         /* threads used for parsing */
} spx_read_stats;

/* Reads a .mtx or .mtx.gz file into CSR (symmetric kinds expanded, duplicates summed).
 * opts and stats may be NULL. Errors name the file, the line and the rule. */
spx_status spx_mtx_read(spx_ctx *ctx, const char *path, const spx_read_opts *opts,
                        spx_csr **out, spx_read_stats *stats);
/* Writes A as "coordinate real general" (.gz compressed when the name ends in .gz), through
 * a temporary file renamed when complete: no partial file is ever left. */
spx_status spx_mtx_write(spx_ctx *ctx, const char *path, const spx_csr *A);

/* Options of spx_mtx_write_opts; a zeroed struct (or NULL) behaves as spx_mtx_write. */
typedef struct spx_write_opts {
    /* Called with the temporary file's path right after it is created, and with NULL once it
     * has been renamed into place or removed, on the writing thread. Lets a caller that may be
     * killed mid-write (a CLI's signal handler) remove the file: the library installs no
     * handlers itself. The path is valid only until the NULL call; copy it. */
    void (*on_temp)(const char *tmp_path, void *user);
    void *user; /* passed back to on_temp */
    spx_progress_fn progress; /* optional (NULL: none): "write", rows (entries of a vector)
                                 written of all */
    void *progress_user;      /* passed back to progress */
} spx_write_opts;
/* spx_mtx_write, reporting its temporary file through opts->on_temp. opts may be NULL. */
spx_status spx_mtx_write_opts(spx_ctx *ctx, const char *path, const spx_csr *A,
                              const spx_write_opts *opts);
/* The plain baseline for the parse benchmark: one fscanf per token, uncompressed files,
 * general coordinate only. */
spx_status spx_mtx_read_fscanf(spx_ctx *ctx, const char *path, spx_csr **out);

/* Dense vectors as Matrix Market files, for SpMV inputs and outputs (x, y, b):
 *
 * spx_vec_read_mtx reads "%%MatrixMarket matrix array real general" (or integer) with n rows
 * and 1 column into a new host array *data of *n doubles (never NULL, n = 0 included),
 * allocated from ctx within its host budget and freed with spx_free(ctx, *data). The
 * checks are the matrix reader's, with its messages ("<path>:<line>: <rule>"): gzip data
 * read by its magic bytes (SPX_ERR_UNSUPPORTED without zlib), a size line of exactly two
 * integers, every value a real (integer files: an integer) alone on its line, exactly n of
 * them (too few or too many is SPX_ERR_PARSE naming the line), reals as the matrix reader
 * takes them (written nan and inf accepted, as C's strtod spells them; a finite overflow
 * such as 1e999 refused), the host budget checked before the values' array is allocated.
 * Refused as not being a dense vector: complex (SPX_ERR_UNSUPPORTED) and pattern files,
 * coordinate files (a sparse vector: not read, so that a missing entry can never be taken
 * for a zero), more than one column, and symmetric, skew-symmetric or hermitian banners
 * (SPX_ERR_PARSE). On failure *n and *data are untouched. */
spx_status spx_vec_read_mtx(spx_ctx *ctx, const char *path, int64_t *n, double **data);
/* Writes data[0..n) as "%%MatrixMarket matrix array real general", n x 1, each value with
 * %.17g (so fp64 reads back exactly; nan and inf as printf spells them); n <= INT32_MAX (the
 * readers' index limit; SPX_ERR_OVERFLOW above it). Like spx_mtx_write: gzip when path ends in
 * .gz, written to a temporary file renamed when complete, so no partial file is ever left. */
spx_status spx_vec_write_mtx(spx_ctx *ctx, const char *path, int64_t n, const double *data);
/* spx_vec_write_mtx with spx_mtx_write_opts's options (the temporary's name, progress). */
spx_status spx_vec_write_mtx_opts(spx_ctx *ctx, const char *path, int64_t n, const double *data,
                                  const spx_write_opts *opts);

/* Loads a matrix source: "gen:NAME:key=value,..." or a file path. */
spx_status spx_load(spx_ctx *ctx, const char *source, const spx_read_opts *opts, spx_csr **out);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
