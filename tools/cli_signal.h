/* tools/cli_signal.h: on SIGINT/SIGTERM/SIGHUP, removes the CLI's temporary output file. */
#ifndef SPX_TOOLS_CLI_SIGNAL_H
#define SPX_TOOLS_CLI_SIGNAL_H

/* While a temporary file is tracked, SIGINT, SIGTERM and SIGHUP (those not ignored when
 * tracking starts) run a handler that unlinks it, restores the default action and re-raises
 * the signal, so the process still dies of it. One file at a time; call from one thread. */

/* Tracks tmp_path (copied) and installs the handlers; a second call replaces the path.
 * Returns 0, or -1 when the path is too long to hold (then nothing is tracked). */
int cli_signal_track(const char *tmp_path);
/* Forgets the tracked path and restores the dispositions the handlers replaced. */
void cli_signal_untrack(void);
/* spx_write_opts.on_temp adapter: tracks tmp_path, or untracks when it is NULL. */
void cli_signal_on_temp(const char *tmp_path, void *user);

#endif
