/* tools/cli_signal.c: on SIGINT/SIGTERM/SIGHUP, removes the CLI's temporary output file. */
#define _POSIX_C_SOURCE 200809L /* sigaction */

#include "cli_signal.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

/* Longest tracked path, terminator included (Linux PATH_MAX). */
#define CLI_SIGNAL_PATH_BYTES 4096
#define CLI_SIGNAL_COUNT 3

/* The handler reads the published slot with one atomic load, so it must be lock-free. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the handler needs a lock-free atomic int");

/*
 * Process-wide state, on purpose: a signal handler receives nothing but the signal number,
 * so what it must remove has to live in statics. This is the CLI tool's one exception to
 * the no-globals rule; the library has none and installs no handlers.
 *
 * The path is published, not merely copied under blocked signals: gen and bench run OpenMP
 * (and maybe CUDA) threads, a process-directed signal may be delivered to any of them, and
 * a signal mask blocks only the thread that sets it. So a new path is written into the slot
 * that is not published, then published by one atomic store of its index; the handler, on
 * whatever thread, loads the index once and sees either no path or a complete one.
 */
static char tracked_path[2][CLI_SIGNAL_PATH_BYTES];
static atomic_int tracked_slot = -1; /* index into tracked_path, -1: nothing tracked */
static int next_slot;                /* the slot the next track writes (tracking thread only) */

static const int handled_signals[CLI_SIGNAL_COUNT] = {SIGINT, SIGTERM, SIGHUP};
static struct sigaction saved_actions[CLI_SIGNAL_COUNT]; /* what our handler replaced */
static int installed[CLI_SIGNAL_COUNT];                   /* 1: our handler is in place */

/* Unlinks the tracked file (async-signal-safe calls only), then dies of sig by default. */
static void remove_and_reraise(int sig)
{
    int saved_errno = errno;
    int slot = atomic_load(&tracked_slot);
    if (slot >= 0)
        unlink(tracked_path[slot]);
    signal(sig, SIG_DFL);
    raise(sig); /* blocked until this handler returns, then the default action: termination */
    errno = saved_errno;
}

/* Installs the handler for every handled signal not ignored and not yet ours. */
static void install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = remove_and_reraise;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < CLI_SIGNAL_COUNT; i++)
        sigaddset(&sa.sa_mask, handled_signals[i]);
    for (int i = 0; i < CLI_SIGNAL_COUNT; i++) {
        struct sigaction old;
        if (installed[i] || sigaction(handled_signals[i], NULL, &old) != 0)
            continue;
        if (old.sa_handler == SIG_IGN) /* nohup, or a background job: leave it ignored */
            continue;
        if (sigaction(handled_signals[i], &sa, &saved_actions[i]) == 0)
            installed[i] = 1;
    }
}

/* Puts back the dispositions install_handlers replaced. */
static void restore_handlers(void)
{
    for (int i = 0; i < CLI_SIGNAL_COUNT; i++) {
        if (installed[i] && sigaction(handled_signals[i], &saved_actions[i], NULL) == 0)
            installed[i] = 0;
    }
}

int cli_signal_track(const char *tmp_path)
{
    size_t n = strlen(tmp_path);
    if (n >= CLI_SIGNAL_PATH_BYTES) {
        cli_signal_untrack();
        return -1;
    }
    int slot = next_slot;
    next_slot ^= 1;
    memcpy(tracked_path[slot], tmp_path, n + 1);
    install_handlers();
    atomic_store(&tracked_slot, slot);
    return 0;
}

void cli_signal_untrack(void)
{
    atomic_store(&tracked_slot, -1);
    restore_handlers();
}

void cli_signal_on_temp(const char *tmp_path, void *user)
{
    (void)user;
    if (tmp_path)
        cli_signal_track(tmp_path);
    else
        cli_signal_untrack();
}
