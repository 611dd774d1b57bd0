/* tools/spgemm_timeline.h: `spx spgemm --timeline FILE`: the out-of-core run's panels (side,
 * upload, compute and download times from the run's start) as JSON, or as an SVG Gantt chart
 * (one lane per side, FILE ending in .svg). */
#ifndef SPX_TOOLS_SPGEMM_TIMELINE_H
#define SPX_TOOLS_SPGEMM_TIMELINE_H

#include "spx/spx.h"

/* A run's timeline: the plan's info and its panel events (n of them, finishing order). */
typedef struct spgemm_timeline {
    const char *a_src, *b_src;
    const spx_spgemm_info *info;
    const spx_spgemm_panel_event *ev;
    int n;
} spgemm_timeline;

/* Copies the plan's last run's events into *out (malloc'ed; NULL when none; the caller frees
 * it); returns their number, or -1 when out of memory. */
int spgemm_timeline_take(const spx_spgemm_plan *p, spx_spgemm_panel_event **out);
/* Writes the timeline to path through a temporary file: SVG when path ends in ".svg", else
 * JSON; prints the error and returns CLI_ERROR on failure. */
int spgemm_timeline_write(const char *path, const spgemm_timeline *t);

#endif
