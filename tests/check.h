/* tests/check.h: a minimal assertion kit; each test program prints "N passed, N failed". */
#ifndef SPX_TESTS_CHECK_H
#define SPX_TESTS_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int check_passed, check_failed;

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (cond) {                                                                        \
            check_passed++;                                                                \
        } else {                                                                           \
            check_failed++;                                                                \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);       \
        }                                                                                  \
    } while (0)

#define CHECK_MSG(cond, ...)                                                               \
    do {                                                                                   \
        if (cond) {                                                                        \
            check_passed++;                                                                \
        } else {                                                                           \
            check_failed++;                                                                \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);       \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fputc('\n', stderr);                                                           \
        }                                                                                  \
    } while (0)

/* Checks a call returns SPX_OK, printing the context's message otherwise. */
#define CHECK_OK(ctx, call)                                                                \
    do {                                                                                   \
        spx_status check_s_ = (call);                                                      \
        CHECK_MSG(check_s_ == SPX_OK, "%s: %s", spx_status_str(check_s_),                  \
                  spx_ctx_last_error(ctx));                                                \
    } while (0)

/* Prints the tally and returns the process exit code. */
static inline int check_report(void)
{
    printf("%d passed, %d failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}

#endif
