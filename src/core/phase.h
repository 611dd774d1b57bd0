/* src/core/phase.h: the log of named plan-creation phases ("convert", "upload", ...), which
 * every operation's plan fills as it goes and reports in its info. */
#ifndef SPX_CORE_PHASE_H
#define SPX_CORE_PHASE_H

#include "spx/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Plan-creation phases, recorded as they happen. */
typedef struct spx_phase_log {
    int n;
    spx_phase_time phases[SPX_MAX_PHASES];
} spx_phase_log;

/* Adds seconds to the named phase (created on first use; names must be literals). */
void spx_phase_add(spx_phase_log *log, const char *name, double seconds);

#ifdef __cplusplus
}
#endif
#endif
