/* tests/fuzz/fuzz_mtx.c: libFuzzer target: the Matrix Market reader on arbitrary bytes must
 * return a status (never crash, leak or read out of bounds). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "spx/spx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/spx-fuzz-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return 0;
    if (write(fd, data, size) != (ssize_t)size) {
        close(fd);
        unlink(path);
        return 0;
    }
    close(fd);
    spx_ctx *ctx = NULL;
    spx_ctx_opts o = {.threads = 1};
    if (spx_ctx_create(&ctx, &o) == SPX_OK) {
        spx_csr *A = NULL;
        spx_read_opts ro = {.parallel = -1};
        if (spx_mtx_read(ctx, path, &ro, &A, NULL) == SPX_OK) spx_csr_destroy(&A);
        spx_ctx_destroy(&ctx);
    }
    unlink(path);
    return 0;
}
