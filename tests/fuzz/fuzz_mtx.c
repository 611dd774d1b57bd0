/* tests/fuzz/fuzz_mtx.c: libFuzzer target: the Matrix Market readers (matrix and vector) on
 * arbitrary bytes must return a status (never crash, leak or read out of bounds) and keep the
 * contract of fuzz_mtx.h; the corpus replay (fuzz_replay.c) checks the same contract in every
 * build. */
#define _POSIX_C_SOURCE 200809L
#include "fuzz_mtx.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The host budget of each read's context. Inputs are at most 4 KiB (fuzz.sh -max_len=4096;
 * the regression corpus is as small), so what a read needs beyond that is sized by what the
 * file declares, not by what it holds: the budget makes the reader refuse it with
 * SPX_ERR_NOMEM instead of exhausting the machine (CI met a file declaring 2059038168 rows:
 * 16 GB of row pointers). It is small because the reader's work grows with the declared
 * rows and the fuzz build is slow per row (measured: ~1.3 us per row for the two reads; with
 * 64 MiB a 1e6-row input took 1.3 s and a 3e6-row one 7 s, and fuzz.sh's 300000 runs took
 * 8 minutes); 1 MiB admits ~65000 rows (~80 ms). It is far below fuzz.sh's
 * -malloc_limit_mb, so the budget, not libFuzzer's memory limits, ends such inputs. */
#define FUZZ_HOST_BUDGET ((size_t)1 << 20)

/* One read: its context (which owns A), status, and matrix (NULL on failure). */
typedef struct fuzz_read {
    spx_ctx *ctx;
    spx_status status;
    spx_csr *A;
} fuzz_read;

/* Formats a broken-contract description into msg; returns 1 (the violation result). */
static int fuzz_broken(char *msg, size_t msg_len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int fuzz_broken(char *msg, size_t msg_len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msg_len, fmt, ap);
    va_end(ap);
    return 1;
}

/* Writes data to a new temporary file, its name in path (a mkstemp template); returns 0, or
 * the errno of the failure (the file removed). */
static int fuzz_write_temp(const uint8_t *data, size_t size, char *path)
{
    int fd = mkstemp(path);
    if (fd < 0)
        return errno;
    size_t done = 0;
    int err = 0;
    while (done < size && !err) {
        ssize_t w = write(fd, data + done, size - done);
        if (w > 0)
            done += (size_t)w;
        else if (w < 0 && errno != EINTR)
            err = errno;
        else if (w == 0)
            err = EIO;
    }
    if (close(fd) != 0 && !err)
        err = errno;
    if (err)
        unlink(path);
    return err;
}

/* Reads path into r under a fresh single-thread context with the fuzz budget; r->ctx is
 * NULL (and the result 1) when the context cannot be made. */
static int fuzz_read_file(const char *path, int strict, fuzz_read *r)
{
    spx_ctx_opts o = {.threads = 1, .host_budget = FUZZ_HOST_BUDGET};
    r->ctx = NULL;
    r->A = NULL;
    r->status = spx_ctx_create(&r->ctx, &o);
    if (r->status != SPX_OK)
        return 1;
    spx_read_opts ro = {.strict = strict, .parallel = -1};
    r->status = spx_mtx_read(r->ctx, path, &ro, &r->A, NULL);
    return 0;
}

/* Frees r's matrix and context. */
static void fuzz_read_free(fuzz_read *r)
{
    spx_csr_destroy(&r->A);
    spx_ctx_destroy(&r->ctx);
}

/* 1 if s is one of the statuses spx_status_str names. */
static int fuzz_status_known(spx_status s)
{
    return strcmp(spx_status_str(s), "SPX_ERR_UNKNOWN") != 0;
}

/* The first row of A whose columns are not strictly increasing, or -1 if none. */
static int64_t fuzz_unsorted_row(const spx_csr *A)
{
    for (int32_t i = 0; i < A->m; i++)
        for (int64_t k = A->rowptr[i] + 1; k < A->rowptr[i + 1]; k++)
            if (A->colind[k] <= A->colind[k - 1])
                return i;
    return -1;
}

/* 1 if A and B have the same shape, pattern and value bits (NaN values compare equal). */
static int fuzz_same_matrix(const spx_csr *A, const spx_csr *B)
{
    if (A->m != B->m || A->n != B->n || A->nnz != B->nnz)
        return 0;
    size_t nnz = (size_t)A->nnz;
    return !memcmp(A->rowptr, B->rowptr, ((size_t)A->m + 1) * sizeof *A->rowptr) &&
           !memcmp(A->colind, B->colind, nnz * sizeof *A->colind) &&
           !memcmp(A->val, B->val, nnz * sizeof *A->val);
}

/* Checks one read's contract (mode names it in msg); 0 when it held, else 1 with msg set. */
static int fuzz_check_read(fuzz_read *r, const char *mode, char *msg, size_t msg_len)
{
    if (!fuzz_status_known(r->status))
        return fuzz_broken(msg, msg_len, "%s read: unknown status %d", mode, (int)r->status);
    if (r->status != SPX_OK) {
        if (r->A)
            return fuzz_broken(msg, msg_len, "%s read: %s but a matrix was returned", mode,
                               spx_status_str(r->status));
        if (spx_ctx_last_error(r->ctx)[0] == '\0')
            return fuzz_broken(msg, msg_len, "%s read: %s with an empty message", mode,
                               spx_status_str(r->status));
        return 0;
    }
    if (!r->A)
        return fuzz_broken(msg, msg_len, "%s read: SPX_OK but no matrix", mode);
    if (spx_csr_check(r->ctx, r->A) != SPX_OK)
        return fuzz_broken(msg, msg_len, "%s read: invalid CSR: %s", mode,
                           spx_ctx_last_error(r->ctx));
    int64_t row = fuzz_unsorted_row(r->A);
    if (row >= 0)
        return fuzz_broken(msg, msg_len, "%s read: row %lld has unsorted or repeated columns",
                           mode, (long long)row + 1);
    return 0;
}

/* Checks both reads and that a strict success is the default read's matrix. */
static int fuzz_check_pair(fuzz_read *def, fuzz_read *strict, char *msg, size_t msg_len)
{
    if (fuzz_check_read(def, "default", msg, msg_len) ||
        fuzz_check_read(strict, "strict", msg, msg_len))
        return 1;
    if (strict->status != SPX_OK)
        return 0;
    if (def->status != SPX_OK)
        return fuzz_broken(msg, msg_len, "strict read succeeded, default read failed: %s: %s",
                           spx_status_str(def->status), spx_ctx_last_error(def->ctx));
    if (!fuzz_same_matrix(def->A, strict->A))
        return fuzz_broken(msg, msg_len, "strict and default reads differ");
    return 0;
}

/* Frees r's matrix, then checks r's context holds no host bytes (every block it accounted
 * was returned) and never held more than its budget; 0 when so, else 1 with msg set. */
static int fuzz_check_released(fuzz_read *r, const char *mode, char *msg, size_t msg_len)
{
    spx_mem_stats ms;
    spx_csr_destroy(&r->A);
    if (spx_ctx_mem_stats(r->ctx, &ms) != SPX_OK)
        return fuzz_broken(msg, msg_len, "%s read: spx_ctx_mem_stats failed", mode);
    if (ms.host_bytes != 0)
        return fuzz_broken(msg, msg_len, "%s read: %zu host bytes still accounted after the "
                           "matrix was freed", mode, ms.host_bytes);
    if (ms.host_peak > ms.host_budget)
        return fuzz_broken(msg, msg_len, "%s read: peak %zu bytes above the host budget %zu",
                           mode, ms.host_peak, ms.host_budget);
    return 0;
}

/* Reads path as a vector (spx_vec_read_mtx) under a fresh single-thread context with the fuzz
 * budget and checks its contract: a known status; on failure the outputs untouched and a
 * message; on success the default matrix read def (unless the budget stopped that one: the
 * matrix needs far more memory) read an n x 1 matrix whose values are the vector's, bit for
 * bit; once the vector is freed nothing stays accounted and the peak stayed in the budget.
 * 0 when it held, else 1 with msg set. */
static int fuzz_check_vector(const char *path, const fuzz_read *def, char *msg, size_t msg_len)
{
    spx_ctx_opts o = {.threads = 1, .host_budget = FUZZ_HOST_BUDGET};
    spx_ctx *ctx = NULL;
    if (spx_ctx_create(&ctx, &o) != SPX_OK)
        return fuzz_broken(msg, msg_len, "spx_ctx_create failed");
    int64_t n = -7;
    double *sentinel = (double *)&n, *x = sentinel;
    spx_status st = spx_vec_read_mtx(ctx, path, &n, &x);
    const spx_csr *A = def->A;
    int broken = 0;
    if (!fuzz_status_known(st))
        broken = fuzz_broken(msg, msg_len, "vector read: unknown status %d", (int)st);
    else if (st != SPX_OK && (n != -7 || x != sentinel))
        broken = fuzz_broken(msg, msg_len, "vector read: %s but the outputs were written", spx_status_str(st));
    else if (st != SPX_OK && spx_ctx_last_error(ctx)[0] == '\0')
        broken = fuzz_broken(msg, msg_len, "vector read: %s with an empty message", spx_status_str(st));
    else if (st == SPX_OK && def->status != SPX_OK && def->status != SPX_ERR_NOMEM)
        broken = fuzz_broken(msg, msg_len, "vector read succeeded, matrix read failed: %s: %s",
                             spx_status_str(def->status), spx_ctx_last_error(def->ctx));
    else if (st == SPX_OK && A &&
             (A->n != 1 || A->m != n || A->nnz != n || memcmp(A->val, x, (size_t)n * sizeof *x) != 0))
        broken = fuzz_broken(msg, msg_len, "vector of %lld entries differs from the %d x %d matrix read", (long long)n,
                             A->m, A->n);
    if (st == SPX_OK)
        spx_free(ctx, x);
    spx_mem_stats ms;
    if (!broken && spx_ctx_mem_stats(ctx, &ms) == SPX_OK && (ms.host_bytes != 0 || ms.host_peak > ms.host_budget))
        broken = fuzz_broken(msg, msg_len, "vector read: %zu host bytes held after the free, peak %zu of budget %zu",
                             ms.host_bytes, ms.host_peak, ms.host_budget);
    spx_ctx_destroy(&ctx);
    return broken;
}

/* Copies the reader's message into msg, naming the temporary file "<input>" so that the
 * text is the same on every run. */
static void fuzz_copy_message(char *msg, size_t msg_len, const char *text, const char *path)
{
    size_t n = strlen(path);
    if (strncmp(text, path, n) == 0)
        snprintf(msg, msg_len, "<input>%s", text + n);
    else
        snprintf(msg, msg_len, "%s", text);
}

int fuzz_mtx_one(const uint8_t *data, size_t size, spx_status *status, char *msg,
                 size_t msg_len)
{
    char path[] = "/tmp/spx-fuzz-XXXXXX";
    *status = SPX_OK;
    msg[0] = '\0';
    int err = fuzz_write_temp(data, size, path);
    if (err)
        return fuzz_broken(msg, msg_len, "cannot write a temporary file: %s", strerror(err));
    fuzz_read def = {.ctx = NULL}, strict = {.ctx = NULL};
    int broken = 0;
    if (fuzz_read_file(path, 0, &def) || fuzz_read_file(path, 1, &strict)) {
        broken = fuzz_broken(msg, msg_len, "spx_ctx_create failed");
    } else {
        broken = fuzz_check_pair(&def, &strict, msg, msg_len) || fuzz_check_vector(path, &def, msg, msg_len);
        *status = def.status;
        if (!broken && def.status != SPX_OK)
            fuzz_copy_message(msg, msg_len, spx_ctx_last_error(def.ctx), path);
        if (!broken)
            broken = fuzz_check_released(&def, "default", msg, msg_len) ||
                     fuzz_check_released(&strict, "strict", msg, msg_len);
    }
    fuzz_read_free(&strict);
    fuzz_read_free(&def);
    unlink(path);
    return broken;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    spx_status st;
    char msg[FUZZ_MSG_LEN];
    if (fuzz_mtx_one(data, size, &st, msg, sizeof msg)) {
        fprintf(stderr, "fuzz_mtx: contract broken: %s\n", msg);
        abort(); /* libFuzzer saves the input as a crash */
    }
    return 0;
}
