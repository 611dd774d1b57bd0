/* src/io/window.h: a byte range of a file's text (gunzipped when it is gzip data), read without
 * holding the rest of it: what each rank of the distributed reader reads (src/dist). */
#ifndef SPX_IO_WINDOW_H
#define SPX_IO_WINDOW_H

#include <stddef.h>
#include "core/ctx.h"

/* The length of path's text in bytes (after gunzip: gzip data is inflated once to count it). */
spx_status spx_io_text_length(spx_ctx *ctx, const char *path, int64_t *len);
/* Bytes [from, e) of path's text into a new context-allocated NUL-terminated buffer *text of
 * *len bytes, where e is one past the first '\n' at offset >= stop (stop >= from), or the
 * text's end. A plain file is entered at from; gzip data is inflated from its start and only
 * the window kept. Errors name path. */
spx_status spx_io_read_window(spx_ctx *ctx, const char *path, int64_t from, int64_t stop, char **text, size_t *len);

#endif
