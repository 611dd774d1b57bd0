/* src/core/phase.c: the plan-creation phase log. */
#include <string.h>

#include "core/phase.h"

void spx_phase_add(spx_phase_log *log, const char *name, double seconds)
{
    if (!log) return;
    for (int i = 0; i < log->n; i++)
        if (!strcmp(log->phases[i].name, name)) {
            log->phases[i].seconds += seconds;
            return;
        }
    if (log->n < SPX_MAX_PHASES) log->phases[log->n++] = (spx_phase_time){name, seconds};
}
