/* include/spx/io.h: Matrix Market reading and writing, and matrix sources (path or gen: spec). */
#ifndef SPX_IO_H
#define SPX_IO_H

#include "spx/matrix.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spx_read_opts {
    int strict;   /* reject duplicates and symmetric files with upper-triangle entries */
    int parallel; /* 1 = parse in parallel above a size threshold (default when 0 too);
                     -1 = always serial */
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
} spx_write_opts;
/* spx_mtx_write, reporting its temporary file through opts->on_temp. opts may be NULL. */
spx_status spx_mtx_write_opts(spx_ctx *ctx, const char *path, const spx_csr *A,
                              const spx_write_opts *opts);
/* The plain baseline for the parse benchmark: one fscanf per token, uncompressed files,
 * general coordinate only. */
spx_status spx_mtx_read_fscanf(spx_ctx *ctx, const char *path, spx_csr **out);

/* Loads a matrix source: "gen:NAME:key=value,..." or a file path. */
spx_status spx_load(spx_ctx *ctx, const char *source, const spx_read_opts *opts, spx_csr **out);

#ifdef __cplusplus
}
#endif
#endif
