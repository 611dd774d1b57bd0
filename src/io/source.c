/* src/io/source.c: matrix sources: a "gen:" generator spec or a Matrix Market file path. */
#include <string.h>

#include "core/ctx.h"
#include "core/progress.h"

/* Loads "gen:NAME:key=value,..." through the generators, anything else as a file. */
spx_status spx_load(spx_ctx *ctx, const char *source, const spx_read_opts *opts, spx_csr **out)
{
    if (!ctx)
        return SPX_ERR_ARG;
    if (!source || !out)
        return spx_fail(ctx, SPX_ERR_ARG, "spx_load: %s is NULL", source ? "out" : "source");
    if (strncmp(source, "gen:", 4) == 0) {
        spx_progress pr = {opts ? opts->progress : NULL, opts ? opts->progress_user : NULL};
        return spx_gen_progress(ctx, source, &pr, out);
    }
    return spx_mtx_read(ctx, source, opts, out, NULL);
}
