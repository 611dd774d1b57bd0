/* tools/svg.h: the CLI's pictures in plain SVG: escaped text, fixed-precision coordinates,
 * written through a temporary file renamed into place; a density image of a sparsity pattern,
 * a grouped bar chart, a line chart and a Gantt chart (timelines). */
#ifndef SPX_TOOLS_SVG_H
#define SPX_TOOLS_SVG_H

#include <stdint.h>
#include <stdio.h>

/* Every chart function writes its picture to path through a temporary file beside it
 * (cli_open_out) renamed into place when complete, and returns CLI_OK; or prints one
 * "error: ..." line and returns CLI_ERROR (bad arguments, a path that cannot be written),
 * leaving no file behind. The same arguments always give the same bytes: coordinates have two
 * decimals, nothing depends on the clock or the machine. Marks carry a class that tests and
 * style sheets can find them by (named at each function). */

/* Writes s as XML character data or attribute text: & < > " ' as entities; control
 * characters other than tab, newline and carriage return, and each byte that does not start
 * a well-formed UTF-8 character XML allows (stray, truncated, overlong, surrogate, beyond
 * U+10FFFF, U+FFFE/U+FFFF), as '?'. NULL writes nothing. */
void svg_escape(FILE *f, const char *s);

/* One line of a line chart: the points (x[i], y[i]), i < n, joined in order. A point whose x
 * or y is not finite, or whose y is <= 0 on a log axis, is left out and breaks the line there;
 * a point alone between breaks is drawn as a dot. name is the legend's entry (NULL: "series
 * k", k counted from 1). */
typedef struct svg_series {
    const char *name;
    const double *x, *y;
    int64_t n;
} svg_series;

/* A line chart, 800 x 500: title on top, x axis (linear) labelled xlabel, y axis labelled
 * ylabel on a log10 scale when log_y (else linear), ticks and grid lines on both, one line per
 * series in its own colour (after 10, colours repeat with dashes) as a <path class="series">,
 * and a legend on the right. The axes fit the points drawn; with none, a note says so. title,
 * xlabel, ylabel may be NULL. n_series >= 0; each series with n > 0 needs x and y. */
int svg_line_chart(const char *path, const char *title, const char *xlabel, const char *ylabel, int log_y,
                   const svg_series *s, int n_series);

/* A grouped bar chart: n_groups groups along x, labelled groups[g] (shown up to 28
 * characters), each with one bar per series, series[k] in the legend (after 10, colours
 * repeat, lighter), of height values[g * n_series + k] (<rect class="bar">, its value in a
 * tooltip); a value that is not finite, or <= 0 on a log axis, draws no bar. refs, when not
 * NULL, gives one reference mark per group: a dashed line across its bars at refs[g]
 * (<line class="ref">; none where not finite or, on a log axis, <= 0), named ref_label in
 * the legend; ref_label without refs is a legend note (say why there are no marks). The y
 * axis starts at 0 when linear and fits the bars and marks; the width grows with the number
 * of bars. subtitle, ylabel, ref_label may be NULL. */
typedef struct svg_bars {
    const char *title, *subtitle, *ylabel;
    int log_y;
    const char *const *groups;
    int n_groups;
    const char *const *series;
    int n_series;
    const double *values; /* n_groups * n_series */
    const double *refs;   /* n_groups, or NULL */
    const char *ref_label;
} svg_bars;
int svg_bar_chart(const char *path, const svg_bars *b);

/* A sparsity pattern: a rows x cols matrix cut into cells of cell_rows x cell_cols entries
 * (the last row and column of cells may be narrower), counts[r * grid_cols + c] the nonzeros
 * in cell (r, c), where grid_rows = ceil(rows / cell_rows), grid_cols = ceil(cols /
 * cell_cols); row 0 on top. With cells of one entry every nonzero is one square (<rect>
 * inside <g class="nonzeros">); otherwise cells are shaded by log(count) in 8 levels (one
 * <g class="cells"> per level present) and a run of cells of one level along a row is one
 * <rect>, so the marks never outnumber the cells. The plot's aspect follows rows:cols within
 * 1:SVG_MAX_ASPECT .. SVG_MAX_ASPECT:1 (600 pixels on the longer side); the legend gives the
 * counts of each shade. subtitle may be NULL. */
#define SVG_MAX_ASPECT 4.0 /* a density plot's sides differ by this factor at most */
typedef struct svg_density {
    const char *title, *subtitle;
    int64_t rows, cols;           /* >= 1 */
    int64_t cell_rows, cell_cols; /* >= 1 */
    const int64_t *counts;        /* grid_rows * grid_cols, each >= 0 */
} svg_density;
int svg_density_image(const char *path, const svg_density *d);

/* A Gantt chart: one lane (row) per lanes[l], labelled on the left; each span a <rect
 * class="span"> in its kind's colour (kinds[k] in the legend) from t0 to t1 along a linear x
 * axis from 0 (labelled xlabel, grid lines), its tip (NULL: none) as tooltip; a span whose
 * times are not finite or whose lane or kind is out of range is left out. 40 px a lane. */
typedef struct svg_span {
    int lane, kind;
    double t0, t1;
    const char *tip;
} svg_span;
typedef struct svg_gantt {
    const char *title, *subtitle, *xlabel;
    const char *const *lanes;
    int n_lanes;
    const char *const *kinds;
    int n_kinds;
    const svg_span *spans;
    int64_t n_spans;
} svg_gantt;
int svg_gantt_chart(const char *path, const svg_gantt *g);

#endif
