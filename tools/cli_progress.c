/* tools/cli_progress.c: the progress line of long reads, generations and writes: on stderr,
 * only when it is a terminal, after the first second, a few times a second, cleared at the
 * end; and the time of each stage the library reports. */
#define _POSIX_C_SOURCE 200809L /* fileno */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Nothing is shown before an operation has run this long (seconds). */
#define PROGRESS_DELAY 1.0
/* Seconds between two updates of the line. */
#define PROGRESS_PERIOD 0.25

void cli_progress_start(cli_progress *p, const char *what)
{
    memset(p, 0, sizeof *p);
    p->what = what;
    p->tty = isatty(fileno(stderr));
    p->start = p->last = p->end = spx_wtime();
}

/* Notes that stage was reported at time now: its first and last report. */
static void note_stage(cli_progress *p, const char *stage, double now)
{
    int i = 0;
    while (i < p->n_stages && strcmp(p->stage[i].name, stage)) i++;
    if (i == p->n_stages) {
        if (i == CLI_PROGRESS_STAGES) return;
        p->n_stages++;
        p->stage[i].name = stage;
        p->stage[i].first = now;
    }
    p->stage[i].last = now;
}

void cli_progress_fn(void *user, const char *stage, double done, double total)
{
    cli_progress *p = user;
    double now = spx_wtime();
    note_stage(p, stage, now);
    if (!p->tty || now - p->start < PROGRESS_DELAY || (p->shown && now - p->last < PROGRESS_PERIOD)) return;
    double pct = total > 0 ? 100.0 * done / total : 0.0;
    /* \r back to the start of the line, \033[K erases what a longer line left */
    fprintf(stderr, "\r%.60s: %s %3.0f%% (%.0f s)\033[K", p->what, stage, pct, now - p->start);
    fflush(stderr);
    p->last = now;
    p->shown = 1;
}

void cli_progress_end(cli_progress *p)
{
    p->end = spx_wtime();
    if (!p->shown) return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    p->shown = 0;
}

const char *cli_progress_times(const cli_progress *p, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "%.3f s", p->end - p->start);
    for (int i = 0; i < p->n_stages && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s %.3f s", i ? ", " : " (", p->stage[i].name,
                              p->stage[i].last - p->stage[i].first);
    if (p->n_stages && n < len) snprintf(buf + n, len - n, ")");
    return buf;
}
