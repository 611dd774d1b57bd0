/* tools/svg.c: the CLI's pictures in plain SVG (tools/svg.h): the writer's primitives, axes
 * and legends, and the density, bar and line charts drawn with them. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cli.h"
#include "svg.h"

#define SVG_LEVELS 8         /* shades of the density image */
#define SVG_MAX_TICKS 32     /* ticks on one axis at most */
#define SVG_LABEL_CHARS 28   /* a group label longer than this is cut */
#define SVG_LEGEND_CHARS 26  /* legend text is wrapped (notes) or cut (names) at this width */
#define SVG_LEGEND_ROW 18.0  /* pixels from one legend entry to the next */
#define SVG_LINE_HEIGHT 14.0 /* pixels from one wrapped line to the next */
#define SVG_WRAP_BYTES 256   /* a wrapped line is cut here at the latest */
#define SVG_MAX_BAR 40.0     /* the widest bar, pixels */
#define SVG_DENSITY_SIDE 600.0 /* the density plot's longer side, pixels */
#define SVG_LANE 40.0        /* pixels from one lane of a Gantt chart to the next */

/* Ten distinguishable colours; series beyond ten reuse them (dashed lines, lighter bars). */
static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
#define SVG_COLOURS ((int)(sizeof palette / sizeof palette[0]))

/* The density shades run from SHADE_LIGHT (level 1) to SHADE_DARK (level SVG_LEVELS). */
static const int SHADE_LIGHT[3] = {0xc6, 0xdb, 0xef}, SHADE_DARK[3] = {0x08, 0x30, 0x6b};

static const char STYLE[] =
    "<style>\n"
    "text{font-family:sans-serif;font-size:12px;fill:#222}\n"
    ".title{font-size:16px;font-weight:bold;text-anchor:middle}\n"
    ".sub{fill:#555;text-anchor:middle}\n"
    ".mid{text-anchor:middle}\n"
    ".end{text-anchor:end}\n"
    ".axis{stroke:#333;stroke-width:1}\n"
    ".grid{stroke:#e3e3e3;stroke-width:1}\n"
    ".frame{fill:none;stroke:#333;stroke-width:1}\n"
    ".series{fill:none;stroke-width:1.5;stroke-linejoin:round;stroke-linecap:round}\n"
    ".ref{stroke:#b2182b;stroke-width:2;stroke-dasharray:5 3}\n"
    "</style>\n";

/* ---- text ---- */

/* Length (1 to 4) of the well-formed UTF-8 character at s that XML allows, or 0: a stray or
 * truncated sequence, an overlong form, a surrogate, beyond U+10FFFF, U+FFFE or U+FFFF. */
static int utf8_char_len(const unsigned char *s)
{
    unsigned c = s[0], cp, min;
    int n;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) n = 2, cp = c & 0x1f, min = 0x80;
    else if ((c & 0xf0) == 0xe0) n = 3, cp = c & 0x0f, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4) n = 4, cp = c & 0x07, min = 0x10000;
    else return 0;
    for (int i = 1; i < n; i++) { /* a NUL ends the loop here too: it is no continuation */
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (s[i] & 0x3fu);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff) return 0;
    return n;
}

void svg_escape(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; p && *p;) {
        int n = utf8_char_len(p);
        if (!n || (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r')) {
            fputc('?', f);
            p++;
            continue;
        }
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default: fwrite(p, 1, (size_t)n, f);
        }
        p += n;
    }
}

/* s, or its first bytes (cut on a character boundary) and "..." in buf when it is longer
 * than max (>= 4) bytes. */
static const char *clip(const char *s, size_t max, char *buf, size_t len)
{
    if (strlen(s) <= max) return s;
    size_t cut = max - 3;
    while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80) cut--;
    snprintf(buf, len, "%.*s...", (int)cut, s);
    return buf;
}

/* v rounded to the two decimals coordinates are printed with, never -0. */
static double px(double v)
{
    double r = round(v * 100.0) / 100.0;
    return r == 0 ? 0.0 : r;
}

/* <text> at (x, y) in class cls (NULL: none), rotated by angle degrees about (x, y). */
static void text_at(FILE *f, double x, double y, double angle, const char *cls, const char *s)
{
    fprintf(f, "<text x=\"%.2f\" y=\"%.2f\"", px(x), px(y));
    if (cls) fprintf(f, " class=\"%s\"", cls);
    if (angle != 0) fprintf(f, " transform=\"rotate(%.0f %.2f %.2f)\"", angle, px(x), px(y));
    fputc('>', f);
    svg_escape(f, s);
    fputs("</text>\n", f);
}

/* The bytes of s that go on its first line when wrapped at spaces to SVG_LEGEND_CHARS bytes
 * (a longer word is a line of its own), at most max - 1, never splitting a character. */
static size_t wrap_cut(const char *s, size_t max)
{
    size_t len = strlen(s), cut = len;
    if (len > SVG_LEGEND_CHARS) {
        for (cut = SVG_LEGEND_CHARS; cut > 0 && s[cut] != ' '; cut--) {}
        if (!cut)
            for (cut = SVG_LEGEND_CHARS; cut < len && s[cut] != ' '; cut++) {}
    }
    if (cut >= max) cut = max - 1;
    while (cut > 1 && ((unsigned char)s[cut] & 0xc0) == 0x80) cut--;
    return cut;
}

/* The start of the line after the first cut bytes of s: its leading spaces skipped. */
static const char *next_line(const char *s, size_t cut)
{
    for (s += cut; *s == ' '; s++) {}
    return s;
}

/* The number of lines text_wrapped writes for s (at least 1). */
static int wrapped_lines(const char *s)
{
    int lines = 0;
    for (; *s; lines++) s = next_line(s, wrap_cut(s, SVG_WRAP_BYTES));
    return lines ? lines : 1;
}

/* s as <text> lines from (x, y) down, wrapped at spaces to SVG_LEGEND_CHARS bytes (a longer
 * word is a line of its own); returns the number of lines (at least 1). */
static int text_wrapped(FILE *f, double x, double y, const char *cls, const char *s)
{
    char buf[SVG_WRAP_BYTES];
    int lines = 0;
    while (*s) {
        size_t cut = wrap_cut(s, sizeof buf);
        memcpy(buf, s, cut);
        buf[cut] = '\0';
        text_at(f, x, y + lines++ * SVG_LINE_HEIGHT, 0, cls, buf);
        s = next_line(s, cut);
    }
    return lines ? lines : 1;
}

/* ---- shapes ---- */

/* <line> from (x1, y1) to (x2, y2) in class cls; extra (NULL: none) is more attributes. */
static void line_at(FILE *f, double x1, double y1, double x2, double y2, const char *cls, const char *extra)
{
    fprintf(f, "<line class=\"%s\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"%s/>\n", cls, px(x1), px(y1),
            px(x2), px(y2), extra ? extra : "");
}

/* <rect> from (x0, y0) to (x1, y1), the size taken between the rounded corners so that
 * neighbours meet exactly; cls and fill when not NULL; tip (NULL: none) as its tooltip. */
static void rect_at(FILE *f, const char *cls, const char *fill, double x0, double y0, double x1, double y1,
                    const char *tip)
{
    fputs("<rect", f);
    if (cls) fprintf(f, " class=\"%s\"", cls);
    if (fill) fprintf(f, " fill=\"%s\"", fill);
    fprintf(f, " x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"", px(x0), px(y0), px(px(x1) - px(x0)),
            px(px(y1) - px(y0)));
    if (!tip) {
        fputs("/>\n", f);
        return;
    }
    fputs("><title>", f);
    svg_escape(f, tip);
    fputs("</title></rect>\n", f);
}

/* ---- document ---- */

typedef struct svg_doc {
    FILE *f;
    char tmp[4096];
    const char *path;
    double w;
} svg_doc;

/* Opens path through a temporary file and writes the header of a w x h picture: the root
 * element, its <title>, the style sheet, a white background; prints the error on failure. */
static int doc_open(svg_doc *d, const char *path, double w, double h, const char *title)
{
    d->path = path;
    d->w = w;
    d->f = cli_open_out(path, d->tmp, sizeof d->tmp);
    if (!d->f) return CLI_ERROR;
    fprintf(d->f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
            w, h, w, h);
    fputs("<title>", d->f);
    svg_escape(d->f, title);
    fputs("</title>\n", d->f);
    fputs(STYLE, d->f);
    fprintf(d->f, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#fff\"/>\n", w, h);
    return CLI_OK;
}

/* Ends the picture and renames it into place; prints the error on failure. */
static int doc_close(svg_doc *d)
{
    fputs("</svg>\n", d->f);
    return cli_commit_out(d->f, d->tmp, d->path);
}

/* The title (and subtitle below it, when not NULL), centred across the picture. */
static void draw_title(const svg_doc *d, const char *title, const char *subtitle)
{
    if (title) text_at(d->f, d->w / 2, 26, 0, "title", title);
    if (subtitle) text_at(d->f, d->w / 2, 46, 0, "sub", subtitle);
}

/* ---- axes ---- */

typedef struct frame {
    double x0, y0, x1, y1; /* the plot area: left, top, right, bottom */
} frame;

typedef struct axis {
    int log;
    double lo, hi;     /* the range shown (on a log axis, log10 of it: whole decades) */
    double step;       /* between ticks (linear) */
    double p_lo, p_hi; /* the pixels of lo and hi */
} axis;

/* About span / target, rounded up to 1, 2 or 5 times a power of ten. */
static double nice_step(double span, int target)
{
    double raw = span / target, p = pow(10.0, floor(log10(raw))), m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

/* Fits a to the data range [mn, mx] (finite; > 0 on a log axis): whole decades on a log
 * axis, multiples of a nice step on a linear one, which includes 0 when from_zero. */
static void axis_fit(axis *a, int log_scale, double mn, double mx, int from_zero)
{
    a->log = log_scale;
    if (log_scale) {
        a->lo = floor(log10(mn));
        a->hi = ceil(log10(mx));
        if (a->hi <= a->lo) a->hi = a->lo + 1;
        a->step = 1;
        return;
    }
    if (from_zero) {
        mn = mn > 0 ? 0 : mn;
        mx = mx < 0 ? 0 : mx;
    }
    if (mx <= mn) { /* one value: a range around it */
        double d = mn != 0 ? fabs(mn) / 2 : 1;
        mx += d;
        mn = from_zero && mn == 0 ? 0 : mn - d;
    }
    a->step = nice_step(mx - mn, 5);
    a->lo = floor(mn / a->step) * a->step;
    a->hi = ceil(mx / a->step) * a->step;
}

/* A linear axis of matrix indices showing exactly [lo, hi] (lo < hi) over `pixels`, ticks
 * at multiples of a nice whole step about 90 pixels apart. */
static void axis_exact(axis *a, double lo, double hi, double pixels)
{
    a->log = 0;
    a->lo = lo;
    a->hi = hi;
    a->step = fmax(1, nice_step(hi - lo, pixels < 180 ? 2 : (int)(pixels / 90)));
}

/* The pixel of value v on a (v > 0 on a log axis). */
static double axis_pos(const axis *a, double v)
{
    double t = a->log ? log10(v) : v;
    return a->p_lo + (t - a->lo) / (a->hi - a->lo) * (a->p_hi - a->p_lo);
}

/* The tick values of a into t (at most max): decades on a log axis (every k-th when there
 * are more than 10; with 2 and 5 between them when there are at most 2), else multiples of
 * the step. Returns their number. */
static int axis_ticks(const axis *a, double *t, int max)
{
    int n = 0;
    if (a->log) {
        int lo = (int)a->lo, hi = (int)a->hi, decades = hi - lo, every = decades > 10 ? (decades + 9) / 10 : 1;
        for (int e = lo; e <= hi && n < max; e += every) {
            t[n++] = pow(10.0, e);
            for (int m = 2; decades <= 2 && m <= 5 && e < hi && n < max; m += 3) t[n++] = m * pow(10.0, e);
        }
        return n;
    }
    double eps = a->step * 1e-9;
    for (double k = ceil((a->lo - eps) / a->step); n < max; k++) {
        double v = k * a->step;
        if (v > a->hi + eps) break;
        t[n++] = fabs(v) < eps ? 0.0 : v;
    }
    return n;
}

/* A tick's label: "0", up to 6 significant digits, or "2.5e7" style outside [1e-3, 1e6). */
static void tick_label(char *buf, size_t len, double v)
{
    double a = fabs(v);
    if (v == 0) {
        snprintf(buf, len, "0");
    } else if (a >= 1e6 || a < 1e-3) {
        int e = (int)floor(log10(a));
        double m = v / pow(10.0, e);
        if (fabs(m) >= 9.9995) m /= 10, e++;
        snprintf(buf, len, "%.4ge%d", m, e);
    } else {
        snprintf(buf, len, "%.6g", v);
    }
}

/* The y axis along the frame's left edge: ticks labelled on the left, grid lines across the
 * frame when grid, label (NULL: none) rotated beside them. */
static void draw_y_axis(FILE *f, const axis *a, const frame *fr, const char *label, int grid)
{
    double t[SVG_MAX_TICKS];
    char buf[32];
    int n = axis_ticks(a, t, SVG_MAX_TICKS);
    for (int i = 0; i < n; i++) {
        double y = axis_pos(a, t[i]);
        if (grid) line_at(f, fr->x0, y, fr->x1, y, "grid", NULL);
        line_at(f, fr->x0 - 5, y, fr->x0, y, "axis", NULL);
        tick_label(buf, sizeof buf, t[i]);
        text_at(f, fr->x0 - 8, y + 4, 0, "end", buf);
    }
    line_at(f, fr->x0, fr->y0, fr->x0, fr->y1, "axis", NULL);
    if (label) text_at(f, fr->x0 - 58, (fr->y0 + fr->y1) / 2, -90, "mid", label);
}

/* The x axis along the frame's bottom edge (top edge when top): ticks labelled outside it,
 * grid lines across the frame when grid, label (NULL: none) centred beyond the labels. */
static void draw_x_axis(FILE *f, const axis *a, const frame *fr, const char *label, int top, int grid)
{
    double t[SVG_MAX_TICKS];
    char buf[32];
    int n = axis_ticks(a, t, SVG_MAX_TICKS);
    double y = top ? fr->y0 : fr->y1, out = top ? -1 : 1;
    for (int i = 0; i < n; i++) {
        double x = axis_pos(a, t[i]);
        if (grid) line_at(f, x, fr->y0, x, fr->y1, "grid", NULL);
        line_at(f, x, y, x, y + 5 * out, "axis", NULL);
        tick_label(buf, sizeof buf, t[i]);
        text_at(f, x, top ? y - 9 : y + 18, 0, "mid", buf);
    }
    line_at(f, fr->x0, y, fr->x1, y, "axis", NULL);
    if (label) text_at(f, (fr->x0 + fr->x1) / 2, top ? y - 28 : y + 38, 0, "mid", label);
}

/* ---- legend ---- */

typedef struct legend {
    FILE *f;
    double x, y;  /* where the next entry goes */
    double y_max; /* entries must end above this */
    int hidden;   /* entries that did not fit */
} legend;

/* Whether an entry of `lines` lines of text still fits above the last row, which is kept for
 * the "... more" note; counts the entry as hidden when not. */
static int legend_fits(legend *lg, int lines)
{
    if (lg->y + (lines - 1) * SVG_LINE_HEIGHT + 2 * SVG_LEGEND_ROW <= lg->y_max) return 1;
    lg->hidden++;
    return 0;
}

/* An entry: a swatch (a filled square in fill when fill, a short line of class cls in stroke
 * with the extra attributes when cls, else nothing), then name cut to the legend's width. */
static void legend_entry(legend *lg, const char *fill, const char *cls, const char *stroke, const char *extra,
                         const char *name)
{
    char buf[SVG_LEGEND_CHARS + 8], attrs[96];
    if (!legend_fits(lg, 1)) return;
    if (fill) rect_at(lg->f, NULL, fill, lg->x, lg->y - 10, lg->x + 12, lg->y + 2, NULL);
    if (cls) {
        if (stroke) snprintf(attrs, sizeof attrs, " stroke=\"%s\"%s", stroke, extra ? extra : "");
        line_at(lg->f, lg->x, lg->y - 4, lg->x + 20, lg->y - 4, cls, stroke ? attrs : extra);
    }
    text_at(lg->f, lg->x + 26, lg->y, 0, NULL, clip(name, SVG_LEGEND_CHARS, buf, sizeof buf));
    lg->y += SVG_LEGEND_ROW;
}

/* A note in the legend: text only, wrapped to the legend's width. */
static void legend_note(legend *lg, const char *text)
{
    if (!legend_fits(lg, wrapped_lines(text))) return;
    int lines = text_wrapped(lg->f, lg->x, lg->y, NULL, text);
    lg->y += (lines - 1) * SVG_LINE_HEIGHT + SVG_LEGEND_ROW;
}

/* Closes the legend: says how many entries did not fit, if any. */
static void legend_end(legend *lg)
{
    char buf[64];
    if (!lg->hidden) return;
    snprintf(buf, sizeof buf, "... and %d more", lg->hidden);
    text_at(lg->f, lg->x, lg->y, 0, NULL, buf);
}

/* ---- line chart ---- */

/* Whether the point (x, y) is drawn: both finite, y > 0 on a log axis. */
static int point_drawn(double x, double y, int log_y) { return isfinite(x) && isfinite(y) && (!log_y || y > 0); }

/* The dash pattern of series k (attributes; "" for the first ten). */
static const char *series_dash(int k)
{
    static const char *const dashes[] = {"", " stroke-dasharray=\"6 3\"", " stroke-dasharray=\"2 3\"",
                                         " stroke-dasharray=\"8 3 2 3\""};
    return dashes[(k / SVG_COLOURS) % 4];
}

/* One series as a <path class="series">: M starts each unbroken run, a lone point is a dot. */
static void draw_series(FILE *f, const axis *ax, const axis *ay, const svg_series *s, int k)
{
    fprintf(f, "<path class=\"series\" stroke=\"%s\"%s d=\"", palette[k % SVG_COLOURS], series_dash(k));
    int open = 0;
    for (int64_t i = 0; i < s->n; i++) {
        if (!point_drawn(s->x[i], s->y[i], ay->log)) {
            open = 0;
            continue;
        }
        double x = px(axis_pos(ax, s->x[i])), y = px(axis_pos(ay, s->y[i]));
        int alone = !open && (i + 1 == s->n || !point_drawn(s->x[i + 1], s->y[i + 1], ay->log));
        fprintf(f, "%c%.2f %.2f%s", open ? 'L' : 'M', x, y, alone ? "h0" : "");
        open = 1;
    }
    fputs("\"/>\n", f);
}

int svg_line_chart(const char *path, const char *title, const char *xlabel, const char *ylabel, int log_y,
                   const svg_series *s, int n_series)
{
    if (!path || n_series < 0 || (n_series > 0 && !s)) return cli_error("svg_line_chart: bad arguments");
    double xmn = INFINITY, xmx = -INFINITY, ymn = INFINITY, ymx = -INFINITY;
    for (int k = 0; k < n_series; k++) {
        if (s[k].n < 0 || (s[k].n > 0 && (!s[k].x || !s[k].y)))
            return cli_error("%s: series %d of the line chart has no points", path, k + 1);
        for (int64_t i = 0; i < s[k].n; i++) {
            if (!point_drawn(s[k].x[i], s[k].y[i], log_y)) continue;
            xmn = fmin(xmn, s[k].x[i]), xmx = fmax(xmx, s[k].x[i]);
            ymn = fmin(ymn, s[k].y[i]), ymx = fmax(ymx, s[k].y[i]);
        }
    }
    int any = xmn <= xmx;
    const frame fr = {80, 60, 590, 440};
    axis ax, ay;
    axis_fit(&ax, 0, any ? xmn : 0, any ? xmx : 1, 0);
    axis_fit(&ay, log_y, any ? ymn : 1, any ? ymx : 10, 0);
    ax.p_lo = fr.x0, ax.p_hi = fr.x1;
    ay.p_lo = fr.y1, ay.p_hi = fr.y0;
    svg_doc d;
    if (doc_open(&d, path, 800, 500, title ? title : "line chart")) return CLI_ERROR;
    draw_title(&d, title, NULL);
    draw_x_axis(d.f, &ax, &fr, xlabel, 0, 1);
    draw_y_axis(d.f, &ay, &fr, ylabel, 1);
    for (int k = 0; k < n_series; k++) draw_series(d.f, &ax, &ay, &s[k], k);
    if (!any) text_at(d.f, (fr.x0 + fr.x1) / 2, (fr.y0 + fr.y1) / 2, 0, "mid", "no finite points to draw");
    legend lg = {d.f, fr.x1 + 20, fr.y0 + 10, 500 - 10, 0};
    for (int k = 0; k < n_series; k++) {
        char name[32];
        if (!s[k].name) snprintf(name, sizeof name, "series %d", k + 1);
        legend_entry(&lg, NULL, "series", palette[k % SVG_COLOURS], series_dash(k), s[k].name ? s[k].name : name);
    }
    legend_end(&lg);
    return doc_close(&d);
}

/* ---- bar chart ---- */

/* Whether a bar or mark of value v is drawn: finite, > 0 on a log axis. */
static int value_drawn(double v, int log_y) { return isfinite(v) && (!log_y || v > 0); }

/* The y axis of a bar chart: fitted to every bar and mark drawn (from 0 when linear). */
static void bars_axis(const svg_bars *b, axis *ay)
{
    double mn = INFINITY, mx = -INFINITY;
    int64_t nv = (int64_t)b->n_groups * b->n_series;
    for (int64_t i = 0; i < nv; i++)
        if (value_drawn(b->values[i], b->log_y)) mn = fmin(mn, b->values[i]), mx = fmax(mx, b->values[i]);
    for (int g = 0; b->refs && g < b->n_groups; g++)
        if (value_drawn(b->refs[g], b->log_y)) mn = fmin(mn, b->refs[g]), mx = fmax(mx, b->refs[g]);
    if (mn > mx) mn = b->log_y ? 1 : 0, mx = b->log_y ? 10 : 1;
    axis_fit(ay, b->log_y, mn, mx, 1);
}

/* Group g's bars, its reference mark and its label below the frame. */
static void draw_group(FILE *f, const svg_bars *b, const axis *ay, const frame *fr, int g)
{
    double gw = (fr->x1 - fr->x0) / b->n_groups, gx = fr->x0 + g * gw;
    int ns = b->n_series ? b->n_series : 1;
    double bw = fmin(SVG_MAX_BAR, (gw - 14) / ns), x0 = gx + (gw - ns * bw) / 2; /* centred */
    double base = ay->log ? fr->y1 : axis_pos(ay, 0);
    char tip[512], buf[SVG_LABEL_CHARS + 8];
    for (int k = 0; k < b->n_series; k++) {
        double v = b->values[(int64_t)g * b->n_series + k];
        if (!value_drawn(v, ay->log)) continue;
        double y = axis_pos(ay, v), x = x0 + k * bw;
        snprintf(tip, sizeof tip, "%s, %s: %.4g", b->groups[g], b->series[k], v);
        if (k >= SVG_COLOURS) fputs("<g opacity=\"0.55\">", f); /* colours repeat, lighter */
        rect_at(f, "bar", palette[k % SVG_COLOURS], x, fmin(y, base), x + bw, fmax(y, base), tip);
        if (k >= SVG_COLOURS) fputs("</g>\n", f);
    }
    if (b->refs && value_drawn(b->refs[g], ay->log)) {
        double y = axis_pos(ay, b->refs[g]);
        line_at(f, fmax(gx + 3, x0 - 8), y, fmin(gx + gw - 3, x0 + ns * bw + 8), y, "ref", NULL);
    }
    if (g) line_at(f, gx, fr->y1, gx, fr->y1 + 5, "axis", NULL);
    text_at(f, gx + gw / 2 + 4, fr->y1 + 14, -35, "end", clip(b->groups[g], SVG_LABEL_CHARS, buf, sizeof buf));
}

int svg_bar_chart(const char *path, const svg_bars *b)
{
    if (!path || !b || b->n_groups < 0 || b->n_series < 0 || (b->n_groups && !b->groups) ||
        (b->n_series && !b->series) || (b->n_groups && b->n_series && !b->values))
        return cli_error("svg_bar_chart: bad arguments");
    for (int g = 0; g < b->n_groups; g++)
        if (!b->groups[g]) return cli_error("%s: bar group %d has no label", path, g + 1);
    for (int k = 0; k < b->n_series; k++)
        if (!b->series[k]) return cli_error("%s: bar series %d has no name", path, k + 1);
    double gw = fmax(48, b->n_series * 10 + 14), pw = fmax(520, b->n_groups * gw);
    const frame fr = {150, 70, 150 + pw, 400}; /* room on the left for the slanted group labels */
    axis ay;
    bars_axis(b, &ay);
    ay.p_lo = fr.y1, ay.p_hi = fr.y0;
    svg_doc d;
    if (doc_open(&d, path, fr.x1 + 220, fr.y1 + 150, b->title ? b->title : "bar chart")) return CLI_ERROR;
    draw_title(&d, b->title, b->subtitle);
    draw_y_axis(d.f, &ay, &fr, b->ylabel, 1);
    for (int g = 0; g < b->n_groups; g++) draw_group(d.f, b, &ay, &fr, g);
    line_at(d.f, fr.x0, fr.y1, fr.x1, fr.y1, "axis", NULL);
    legend lg = {d.f, fr.x1 + 20, fr.y0 + 10, fr.y1 + 140, 0};
    for (int k = 0; k < b->n_series; k++) {
        if (k >= SVG_COLOURS) fputs("<g opacity=\"0.55\">\n", d.f);
        legend_entry(&lg, palette[k % SVG_COLOURS], NULL, NULL, NULL, b->series[k]);
        if (k >= SVG_COLOURS) fputs("</g>\n", d.f);
    }
    if (b->ref_label && b->refs) {
        lg.y += 4;
        legend_entry(&lg, NULL, "ref", NULL, NULL, "reference mark:");
        legend_note(&lg, b->ref_label);
    } else if (b->ref_label) {
        lg.y += 4;
        legend_note(&lg, b->ref_label);
    }
    legend_end(&lg);
    return doc_close(&d);
}

/* ---- density image ---- */

/* The shade (1 .. SVG_LEVELS) of a cell holding c (>= 1) of at most cmax nonzeros: by
 * log c / log cmax, so one nonzero is the lightest and cmax the darkest. */
static int shade_level(int64_t c, int64_t cmax)
{
    if (cmax <= 1) return SVG_LEVELS;
    int l = 1 + (int)floor((SVG_LEVELS - 1) * log((double)c) / log((double)cmax) + 1e-9);
    return l > SVG_LEVELS ? SVG_LEVELS : l;
}

/* "#rrggbb" of shade level l, between SHADE_LIGHT and SHADE_DARK. */
static void shade_colour(char *buf, size_t len, int l)
{
    double t = (double)(l - 1) / (SVG_LEVELS - 1);
    int c[3];
    for (int i = 0; i < 3; i++) c[i] = (int)lround(SHADE_LIGHT[i] + t * (SHADE_DARK[i] - SHADE_LIGHT[i]));
    snprintf(buf, len, "#%02x%02x%02x", c[0], c[1], c[2]);
}

/* The smallest count in [1, cmax] with a shade of at least l (cmax + 1 when none). */
static int64_t level_floor(int l, int64_t cmax)
{
    int64_t lo = 1, hi = cmax + 1; /* the answer is in [lo, hi] */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (shade_level(mid, cmax) >= l) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* The cells of a density image: the matrix, the cell size, how many there are, where they go. */
typedef struct cell_grid {
    const svg_density *d;
    int64_t rows, cols;      /* cells down and across */
    const axis *ax, *ay;     /* columns and rows to pixels */
} cell_grid;

/* The pixel of cell boundary k along an axis of n entries in cells of `per`: a boundary past
 * the last entry is the matrix's edge. */
static double cell_edge(const axis *a, int64_t k, int64_t per, int64_t n)
{
    int64_t e = k * per;
    return axis_pos(a, (double)(e < n ? e : n));
}

/* The rectangle of cells c0 .. c1 - 1 of grid row r. */
static void cell_rect(FILE *f, const cell_grid *g, int64_t r, int64_t c0, int64_t c1)
{
    const svg_density *d = g->d;
    rect_at(f, NULL, NULL, cell_edge(g->ax, c0, d->cell_cols, d->cols), cell_edge(g->ay, r, d->cell_rows, d->rows),
            cell_edge(g->ax, c1, d->cell_cols, d->cols), cell_edge(g->ay, r + 1, d->cell_rows, d->rows), NULL);
}

/* The cells of shade l as runs along each grid row, one <rect> per run, in one
 * <g class="cells">; nothing when no cell has that shade. */
static void draw_level(FILE *f, const cell_grid *g, int64_t cmax, int l)
{
    char colour[8];
    int opened = 0;
    for (int64_t r = 0; r < g->rows; r++) {
        const int64_t *row = g->d->counts + r * g->cols;
        for (int64_t c = 0; c < g->cols; c++) {
            if (!row[c] || shade_level(row[c], cmax) != l) continue;
            int64_t end = c + 1;
            while (end < g->cols && row[end] && shade_level(row[end], cmax) == l) end++;
            if (!opened) {
                shade_colour(colour, sizeof colour, l);
                fprintf(f, "<g class=\"cells\" fill=\"%s\">\n", colour);
                opened = 1;
            }
            cell_rect(f, g, r, c, end);
            c = end - 1;
        }
    }
    if (opened) fputs("</g>\n", f);
}

/* Every nonzero of a pattern in cells of one entry as one square, in one <g class="nonzeros">. */
static void draw_nonzeros(FILE *f, const cell_grid *g)
{
    char colour[8];
    shade_colour(colour, sizeof colour, SVG_LEVELS);
    fprintf(f, "<g class=\"nonzeros\" fill=\"%s\">\n", colour);
    for (int64_t r = 0; r < g->rows; r++)
        for (int64_t c = 0; c < g->cols; c++)
            if (g->d->counts[r * g->cols + c]) cell_rect(f, g, r, c, c + 1);
    fputs("</g>\n", f);
}

/* The density legend: one swatch per shade in use with the counts it stands for. */
static void density_legend(legend *lg, int exact, int64_t cmax)
{
    char colour[8], text[64];
    if (!cmax) {
        legend_note(lg, "no nonzeros");
        return;
    }
    shade_colour(colour, sizeof colour, SVG_LEVELS);
    if (exact) {
        legend_entry(lg, colour, NULL, NULL, NULL, "one nonzero");
        return;
    }
    legend_note(lg, "nonzeros per cell:");
    for (int l = 1; l <= SVG_LEVELS; l++) {
        int64_t lo = level_floor(l, cmax), hi = level_floor(l + 1, cmax) - 1;
        if (lo > hi) continue;
        shade_colour(colour, sizeof colour, l);
        if (lo == hi) snprintf(text, sizeof text, "%lld", (long long)lo);
        else snprintf(text, sizeof text, "%lld - %lld", (long long)lo, (long long)hi);
        legend_entry(lg, colour, NULL, NULL, NULL, text);
    }
}

int svg_density_image(const char *path, const svg_density *d)
{
    if (!path || !d || !d->counts || d->rows < 1 || d->cols < 1 || d->cell_rows < 1 || d->cell_cols < 1)
        return cli_error("svg_density_image: bad arguments");
    axis ax, ay;
    cell_grid g = {d, (d->rows + d->cell_rows - 1) / d->cell_rows, (d->cols + d->cell_cols - 1) / d->cell_cols, &ax, &ay};
    int64_t cmax = 0;
    for (int64_t i = 0; i < g.rows * g.cols; i++) {
        if (d->counts[i] < 0) return cli_error("%s: a negative count in the density image", path);
        if (d->counts[i] > cmax) cmax = d->counts[i];
    }
    int exact = d->cell_rows == 1 && d->cell_cols == 1;
    double ratio = fmin(SVG_MAX_ASPECT, fmax(1 / SVG_MAX_ASPECT, (double)d->rows / (double)d->cols));
    double pw = ratio >= 1 ? SVG_DENSITY_SIDE / ratio : SVG_DENSITY_SIDE;
    double ph = ratio >= 1 ? SVG_DENSITY_SIDE : SVG_DENSITY_SIDE * ratio;
    const frame fr = {80, 110, 80 + pw, 110 + ph};
    axis_exact(&ax, 0, (double)d->cols, pw);
    axis_exact(&ay, 0, (double)d->rows, ph);
    ax.p_lo = fr.x0, ax.p_hi = fr.x1;
    ay.p_lo = fr.y0, ay.p_hi = fr.y1; /* row 0 on top */
    svg_doc doc;
    double h = fmax(fr.y1 + 30, fr.y0 + 210); /* room for the legend's title and 8 shades */
    if (doc_open(&doc, path, fmax(fr.x1 + 190, 700), h, d->title ? d->title : "sparsity pattern")) return CLI_ERROR;
    draw_title(&doc, d->title, d->subtitle);
    draw_x_axis(doc.f, &ax, &fr, "column", 1, 0);
    draw_y_axis(doc.f, &ay, &fr, "row", 0);
    if (exact) draw_nonzeros(doc.f, &g);
    else
        for (int l = 1; l <= SVG_LEVELS; l++) draw_level(doc.f, &g, cmax, l);
    rect_at(doc.f, "frame", NULL, fr.x0, fr.y0, fr.x1, fr.y1, NULL);
    legend lg = {doc.f, fr.x1 + 20, fr.y0 + 10, h, 0};
    density_legend(&lg, exact, cmax);
    legend_end(&lg);
    return doc_close(&doc);
}

/* ---- Gantt chart ---- */

/* Whether span s can be drawn on g. */
static int span_drawn(const svg_gantt *g, const svg_span *s)
{
    return s->lane >= 0 && s->lane < g->n_lanes && s->kind >= 0 && s->kind < g->n_kinds && isfinite(s->t0) &&
           isfinite(s->t1) && s->t1 >= s->t0;
}

int svg_gantt_chart(const char *path, const svg_gantt *g)
{
    if (!path || !g || g->n_lanes < 1 || g->n_kinds < 0 || !g->lanes || (g->n_kinds && !g->kinds) ||
        g->n_spans < 0 || (g->n_spans && !g->spans))
        return cli_error("svg_gantt_chart: bad arguments");
    double tmax = 0;
    for (int64_t i = 0; i < g->n_spans; i++)
        if (span_drawn(g, &g->spans[i]) && g->spans[i].t1 > tmax) tmax = g->spans[i].t1;
    const frame fr = {120, 70, 820, 70 + SVG_LANE * g->n_lanes};
    axis ax;
    axis_fit(&ax, 0, 0, tmax > 0 ? tmax : 1, 1);
    ax.p_lo = fr.x0, ax.p_hi = fr.x1;
    svg_doc d;
    if (doc_open(&d, path, fr.x1 + 200, fr.y1 + 70, g->title ? g->title : "timeline")) return CLI_ERROR;
    draw_title(&d, g->title, g->subtitle);
    draw_x_axis(d.f, &ax, &fr, g->xlabel, 0, 1);
    for (int l = 0; l < g->n_lanes; l++) text_at(d.f, fr.x0 - 8, fr.y0 + SVG_LANE * l + SVG_LANE / 2 + 4, 0, "end", g->lanes[l]);
    for (int64_t i = 0; i < g->n_spans; i++) {
        const svg_span *sp = &g->spans[i];
        if (!span_drawn(g, sp)) continue;
        const double y0 = fr.y0 + SVG_LANE * sp->lane + 6;
        rect_at(d.f, "span", palette[sp->kind % SVG_COLOURS], axis_pos(&ax, sp->t0), y0, axis_pos(&ax, sp->t1),
                y0 + SVG_LANE - 12, sp->tip);
    }
    legend lg = {d.f, fr.x1 + 20, fr.y0 + 10, fr.y1 + 60, 0};
    for (int k = 0; k < g->n_kinds; k++) legend_entry(&lg, palette[k % SVG_COLOURS], NULL, NULL, NULL, g->kinds[k]);
    legend_end(&lg);
    return doc_close(&d);
}
