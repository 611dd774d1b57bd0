/* src/io/mtx_parse.h: the Matrix Market reader's stages (header; chunked, parallel parse of
 * the entry lines), shared by the matrix reader (mtx_read.c) and the vector reader
 * (vec_read.c). */
#ifndef SPX_IO_MTX_PARSE_H
#define SPX_IO_MTX_PARSE_H

#include "core/ctx.h"
#include "core/progress.h"

/* Room for the rule part of a message, before "<path>:<line>: " is put in front. */
#define MTX_MSG_LEN 256
/* Longest token quoted in a message. */
#define MTX_TOKEN_QUOTE 40

typedef enum mtx_format { MTX_COORDINATE, MTX_ARRAY } mtx_format;

/* What the banner and the size line say. */
typedef struct mtx_header {
    mtx_format format;
    spx_field field;
    spx_symmetry symmetry;
    int complex;      /* the banner said complex (refused: SPX_ERR_UNSUPPORTED) */
    int64_t m, n;
    int64_t entries;  /* stored entries: declared (coordinate) or implied (array) */
    const char *data; /* first byte after the size line */
    int64_t data_line;
    int no_size_line; /* the text ended before a size line (then SPX_ERR_PARSE): a reader of
                         a window of the file may read a longer one */
} mtx_header;

/* A run of whole lines of the entry text, and what each pass learnt about it. */
typedef struct mtx_chunk {
    const char *begin, *end;
    int64_t newlines, entries;       /* pass 1: lines ended, entry lines */
    int64_t first_line, first_entry; /* prefix sums of the above */
    int64_t parsed, mirrors;         /* pass 2: entries stored, of them off the diagonal */
    int64_t first_mirror;            /* prefix sum of mirrors */
    int64_t zero_line;               /* pass 2: first line with an index 0, or 0 if none */
    int hit_m, hit_n;                /* pass 2: some row index is m / column index is n */
    spx_status err;                  /* pass 2: the first error in the chunk, if any */
    int64_t err_line;
    char msg[MTX_MSG_LEN];
} mtx_chunk;

/* The entry text cut into chunks, with pass 1's totals. */
typedef struct mtx_split {
    mtx_chunk *ch;
    int nchunks, threads; /* threads: 1 when the text is parsed serially */
    int64_t total;        /* entry lines in the text */
    int64_t end_line;     /* the line number after the last line end */
} mtx_split;

/* The shared, read-only inputs of pass 2 and the arrays it fills. */
typedef struct mtx_parse {
    const mtx_header *h;
    int strict;
    int64_t limit;  /* entries to parse: min(declared, present) */
    int64_t base;   /* the global entry number stored at index 0 of the arrays (0 but for the
                       distributed reader, whose rank holds only its range of the entries) */
    int zero_based; /* the file's indices start at 0 (settled after pass 2) */
    int32_t *row, *col; /* NULL for array files when only the values are wanted */
    double *val;
    const spx_progress *progress; /* "parse" reports, chunks done of all; may be NULL */
} mtx_parse;

/* The symmetry's name as a banner writes it ("general", "skew-symmetric", ...). */
const char *spx_mtx_symmetry_name(spx_symmetry s);
/* Parses the banner, comments and size line of text[0..end) into h (h->data: where the
 * entries start). Errors name path and the line; a complex banner is refused with
 * SPX_ERR_UNSUPPORTED after h->complex is set, so a caller may word the refusal its way. */
spx_status spx_mtx_parse_header(spx_ctx *ctx, const char *path, const char *text, const char *end,
                                mtx_header *h);
/* Pass 1: cuts h's entry text (up to end) into chunks (one unless parallel != -1 and the text
 * is large) and counts each chunk's lines and entry lines. sp is freed by spx_mtx_split_free. */
spx_status spx_mtx_split(spx_ctx *ctx, const mtx_header *h, const char *end, int parallel, mtx_split *sp);
void spx_mtx_split_free(spx_ctx *ctx, mtx_split *sp);
/* Pass 2: parses the entries of sp into P's arrays (P->limit of them), in parallel when sp
 * says so; fails with the first error in file order. */
spx_status spx_mtx_parse_entries(spx_ctx *ctx, const char *path, mtx_split *sp, const mtx_parse *P);
/* Fails unless the text held exactly the h->entries declared ("file ends after ..." naming
 * the last line, "more entries than ..." naming the first extra entry's line). */
spx_status spx_mtx_check_count(spx_ctx *ctx, const char *path, const mtx_header *h, const mtx_split *sp,
                               const char *end);
/* The message of spx_mtx_check_count from the totals: total entry lines in the whole text, the
 * line the file ends on (eof_line) and that of entry number h->entries (extra_line, read only
 * when total > h->entries). */
spx_status spx_mtx_count_error(spx_ctx *ctx, const char *path, const mtx_header *h, int64_t total, int64_t eof_line,
                               int64_t extra_line);
/* The line number of entry number idx (chunks' first_entry numbering), -1 outside sp's chunks. */
int64_t spx_mtx_entry_line(const mtx_split *sp, int64_t idx);
/* What pass 2 saw of index 0 in sp's chunks: the first line with a 0 (0: none; kept when
 * already set), and whether some row index reached m or column index reached n (or-ed in). */
void spx_mtx_zero_flags(const mtx_split *sp, int64_t *zero_line, int *hit_m, int *hit_n);
/* Settles a file with index 0 (from the flags of the whole text): fails under strict or when
 * indices also reach m or n; else shifts the count stored entries of P by one and sets
 * P->zero_based. */
spx_status spx_mtx_settle_zero(spx_ctx *ctx, const char *path, mtx_parse *P, int64_t count, int64_t zero_line, int hit_m,
                               int hit_n, int strict);
/* Pass 3: appends the mirror of every off-diagonal entry sp parsed (negated for skew), in file
 * order, at index start of P's arrays onwards; returns how many. */
int64_t spx_mtx_append_mirrors(const mtx_parse *P, mtx_split *sp, int64_t start);

#endif
