/* src/io/text.h: a whole input file in memory (gunzipped when it carries the gzip magic). */
#ifndef SPX_IO_TEXT_H
#define SPX_IO_TEXT_H

#include <stddef.h>
#include <stdio.h>
#include "core/ctx.h"
#include "core/progress.h"

/* Opens path for binary reading into *f; a folder or a file that cannot be opened is
 * SPX_ERR_IO naming path ("is a directory", "cannot open: <reason>"). */
spx_status spx_io_open_read(spx_ctx *ctx, const char *path, FILE **f);
/* Reads path whole into a new context-allocated buffer *text of *len bytes plus a NUL,
 * decompressing gzip data (recognised by its magic bytes, whatever the name); *was_gz says
 * which (may be NULL); "read" and "inflate" reported to pr (may be NULL). Errors name the
 * path; on failure the outputs are untouched. */
spx_status spx_io_read_text(spx_ctx *ctx, const char *path, const spx_progress *pr, char **text,
                            size_t *len, int *was_gz);

#endif
