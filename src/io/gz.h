/* src/io/gz.h: the zlib-dependent helpers; the only code that knows if zlib is built in. */
#ifndef SPX_IO_GZ_H
#define SPX_IO_GZ_H

#include <stddef.h>
#include <stdio.h>
#include "core/ctx.h"
#include "core/progress.h"

/* 1 when this build can read and write gzip data, else 0. */
int spx_io_gz_available(void);

/* 1 when the n bytes at p start with the gzip magic (1f 8b), else 0. */
int spx_io_is_gzip(const unsigned char *p, size_t n);

/* Decompresses the gzip data in[0..n) (members concatenated) into a new context-allocated
 * NUL-terminated buffer *out of *out_len bytes, reporting "inflate" (input bytes) to pr (may
 * be NULL); errors name path. */
spx_status spx_io_gunzip(spx_ctx *ctx, const char *path, const unsigned char *in, size_t n,
                         const spx_progress *pr, char **out, size_t *out_len);

/* A streaming gzip reader from an open FILE (which it does not close): the distributed reader
 * inflates from the start and keeps only its rank's range. */
typedef struct spx_io_gzr spx_io_gzr;

/* Starts inflating f (members concatenated); errors name path. */
spx_status spx_io_gzr_open(spx_ctx *ctx, FILE *f, const char *path, spx_io_gzr **out);
/* Inflates the next bytes into buf[0..cap): *got of them, 0 only at the end of the data;
 * truncated or corrupt data is SPX_ERR_PARSE naming path. */
spx_status spx_io_gzr_read(spx_io_gzr *r, char *buf, size_t cap, size_t *got);
/* Frees the reader (NULL accepted) and sets *r to NULL. */
void spx_io_gzr_free(spx_io_gzr **r);

/* A gzip writer onto an open FILE (which it does not close). */
typedef struct spx_io_gzw spx_io_gzw;

/* Starts a gzip stream on f; errors name path. */
spx_status spx_io_gzw_open(spx_ctx *ctx, FILE *f, const char *path, spx_io_gzw **out);
/* Compresses n bytes of buf onto the stream. */
spx_status spx_io_gzw_write(spx_io_gzw *w, const void *buf, size_t n);
/* Flushes the stream's end (trailer included); the FILE is still open afterwards. */
spx_status spx_io_gzw_finish(spx_io_gzw *w);
/* Frees the writer (NULL accepted) and sets *w to NULL. */
void spx_io_gzw_free(spx_io_gzw **w);

#endif
