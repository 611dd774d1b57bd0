/* src/io/write.h: what the Matrix Market writers share: formatted text gathered in blocks,
 * written plainly or gzip-compressed to a temporary file that is renamed into place. */
#ifndef SPX_IO_WRITE_H
#define SPX_IO_WRITE_H

#include <stdio.h>

#include "core/ctx.h"
#include "core/progress.h"
#include "io/gz.h"

/* Room for one formatted line: two int32 indices and a %.17g double, with separators. */
#define SPX_IO_LINE_MAX 80

/* Where formatted text goes: a block buffer, then the file or the gzip stream. */
typedef struct spx_io_sink {
    spx_ctx *ctx;
    const char *path;
    FILE *f;
    spx_io_gzw *gz; /* NULL: plain text */
    char *buf;
    size_t len;                   /* bytes in buf */
    const spx_progress *progress; /* the caller's "write" reports */
} spx_io_sink;

/* Makes room for SPX_IO_LINE_MAX more bytes at buf + len (writing the block out when full). */
spx_status spx_io_sink_reserve(spx_io_sink *s);

/* Appends the whole text of `what` to the sink (after a reserve before each line). */
typedef spx_status (*spx_io_format_fn)(spx_io_sink *s, const void *what);

/* Writes format's text for what to path (gzip when it ends in .gz) through a temporary file
 * beside it, renamed into place when complete and removed on any failure; the temporary's
 * name goes to opts->on_temp (opts may be NULL). */
spx_status spx_io_write_file(spx_ctx *ctx, const char *path, const spx_write_opts *opts,
                             spx_io_format_fn format, const void *what);

#endif
