/* tests/test_svg.c: the CLI's SVG writer (tools/svg.c): text escaping (entities, control
 * characters, malformed UTF-8), the line chart (one path per series, breaks at non-finite and
 * non-positive log values, lone points as dots, legend names escaped, log-axis labels), the
 * bar chart's bars and reference marks, the density image's marks, the Gantt chart's spans
 * (the SpGEMM timeline: bad spans left out, tooltips escaped), the same bytes every time,
 * no file left on a bad path or bad arguments; well-formed XML when python3 is here. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "svg.h"

/* The whole of a file as a NUL-terminated string (malloc'ed), or NULL. */
static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s) s[n] = '\0';
    fclose(f);
    return s;
}

/* Occurrences of needle in hay. */
static int count_str(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle)) n++;
    return n;
}

/* What svg_escape writes for s. */
static char *escaped(const char *s)
{
    FILE *f = tmpfile();
    if (!f) return NULL;
    svg_escape(f, s);
    long n = ftell(f);
    rewind(f);
    char *out = malloc((size_t)n + 1);
    if (out && fread(out, 1, (size_t)n, f) == (size_t)n) out[n] = '\0';
    else if (out) out[0] = '\0';
    fclose(f);
    return out;
}

/* Checks svg_escape(in) is want. */
static void check_escape(const char *in, const char *want)
{
    char *got = escaped(in);
    CHECK_MSG(got && !strcmp(got, want), "escape gave '%s', want '%s'", got ? got : "(null)", want);
    free(got);
}

static void test_escape(void)
{
    check_escape("plain text 1.5", "plain text 1.5");
    check_escape("a<b>&\"c'", "a&lt;b&gt;&amp;&quot;c&apos;");
    check_escape("tab\tnl\ncr\r", "tab\tnl\ncr\r");
    check_escape("bell\a esc\x1b", "bell? esc?");
    check_escape("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    check_escape("latin1 \xe9t\xe9", "latin1 ?t?");         /* stray lead bytes */
    check_escape("overlong \xc0\xaf", "overlong ??");        /* '/' in two bytes */
    check_escape("surrogate \xed\xa0\x80", "surrogate ???"); /* U+D800 */
    check_escape("nonchar \xef\xbf\xbe", "nonchar ???");     /* U+FFFE */
    check_escape("big \xf4\x90\x80\x80", "big ????");        /* beyond U+10FFFF */
    check_escape("cut \xe2\x82", "cut ??");                  /* truncated at the end */
    check_escape("", "");
    char *got = escaped(NULL);
    CHECK(got && !strcmp(got, ""));
    free(got);
}

/* The d attribute of the k-th <path class="series"> in svg (malloc'ed), or NULL. */
static char *series_path(const char *svg, int k)
{
    const char *p = svg;
    for (int i = 0; i <= k && p; i++) p = strstr(i ? p + 1 : p, "<path class=\"series\"");
    if (!p) return NULL;
    const char *d = strstr(p, " d=\"");
    if (!d) return NULL;
    d += 4;
    const char *e = strchr(d, '"');
    return e ? strndup(d, (size_t)(e - d)) : NULL;
}

/* Occurrences of the character c in s. */
static int count_char(const char *s, char c)
{
    int n = 0;
    for (; *s; s++) n += *s == c;
    return n;
}

/* Whether python3 is here to check that files parse as XML. */
static int have_python(void) { return system("command -v python3 >/dev/null 2>&1") == 0; }

/* Checks path parses as XML and python expression `expr` over r (the root element) and ns
 * (the SVG namespace in braces) is true. */
static void check_xml(const char *path, const char *expr)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import sys, xml.etree.ElementTree as ET; r = ET.parse(sys.argv[1]).getroot(); "
             "ns = \"{http://www.w3.org/2000/svg}\"; sys.exit(0 if (%s) else 1)' '%s'",
             expr, path);
    CHECK_MSG(system(cmd) == 0, "%s: XML check failed: %s", path, expr);
}

/* Whether dir holds anything but the names in keep (NULL-terminated): a temporary left. */
static int stray_files(const char *dir, const char *const *keep)
{
    DIR *d = opendir(dir);
    int stray = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        int kept = 0;
        for (int i = 0; keep[i]; i++) kept |= !strcmp(e->d_name, keep[i]);
        if (!kept) {
            fprintf(stderr, "stray file %s/%s\n", dir, e->d_name);
            stray++;
        }
    }
    if (d) closedir(d);
    return stray;
}

static void test_line_chart(const char *dir, int python)
{
    char path[512], again[512];
    snprintf(path, sizeof path, "%s/line.svg", dir);
    snprintf(again, sizeof again, "%s/line2.svg", dir);
    double x1[10], y1[10];
    for (int i = 0; i < 10; i++) x1[i] = i, y1[i] = pow(10.0, -i);
    y1[4] = NAN; /* breaks the line */
    y1[7] = 0;   /* not drawable on a log axis: breaks it too */
    const double x2[3] = {1, 2, 3}, y2[3] = {1, INFINITY, 1e-3}; /* two lone points */
    const svg_series s[3] = {{"r<&>", x1, y1, 10}, {"two dots", x2, y2, 3}, {NULL, NULL, NULL, 0}};
    CHECK(svg_line_chart(path, "residual \"norm\"", "iteration", "||r|| / ||b||", 1, s, 3) == CLI_OK);
    CHECK(svg_line_chart(again, "residual \"norm\"", "iteration", "||r|| / ||b||", 1, s, 3) == CLI_OK);
    char *a = read_all(path), *b = read_all(again);
    CHECK(a && b && !strcmp(a, b)); /* the same bytes every time */
    if (a) {
        CHECK(!strncmp(a, "<?xml", 5));
        CHECK(count_str(a, "<path class=\"series\"") == 3);
        char *d0 = series_path(a, 0), *d1 = series_path(a, 1), *d2 = series_path(a, 2);
        CHECK_MSG(d0 && count_char(d0, 'M') == 3 && count_char(d0, 'L') == 5 && !strstr(d0, "h0"), "path 0: %s",
                  d0 ? d0 : "(none)");
        CHECK_MSG(d1 && count_char(d1, 'M') == 2 && count_char(d1, 'L') == 0 && count_str(d1, "h0") == 2,
                  "path 1: %s", d1 ? d1 : "(none)");
        CHECK_MSG(d2 && !*d2, "path 2: %s", d2 ? d2 : "(none)");
        free(d0), free(d1), free(d2);
        CHECK(strstr(a, ">r&lt;&amp;&gt;</text>") != NULL);    /* legend name escaped */
        CHECK(strstr(a, ">series 3</text>") != NULL);          /* unnamed series */
        CHECK(strstr(a, "residual &quot;norm&quot;") != NULL); /* title escaped */
        CHECK(strstr(a, ">1e-9</text>") && strstr(a, ">1</text>") && strstr(a, ">0.001</text>")); /* decades */
        CHECK(!strstr(a, "nan") && !strstr(a, "inf") && !strstr(a, "-0.00"));
    }
    free(a), free(b);
    if (python) check_xml(path, "len(r.findall(ns + \"path[@class=\\\"series\\\"]\")) == 3");

    /* linear axis; nothing drawable: a note, still a picture */
    const double nx[2] = {NAN, 1}, ny[2] = {1, NAN};
    const svg_series none = {"nothing", nx, ny, 2};
    CHECK(svg_line_chart(path, NULL, NULL, NULL, 0, &none, 1) == CLI_OK);
    a = read_all(path);
    CHECK(a && strstr(a, "no finite points to draw") && count_str(a, "<path class=\"series\"") == 1);
    free(a);
    if (python) check_xml(path, "r.tag == ns + \"svg\"");

    /* refused: no file, no temporary */
    char missing[600];
    snprintf(missing, sizeof missing, "%s/no/such/dir/x.svg", dir);
    CHECK(svg_line_chart(missing, "t", "x", "y", 0, s, 3) == CLI_ERROR);
    const svg_series broken = {"broken", NULL, y1, 10};
    char bad[512];
    snprintf(bad, sizeof bad, "%s/bad.svg", dir);
    CHECK(svg_line_chart(bad, "t", "x", "y", 0, &broken, 1) == CLI_ERROR);
    CHECK(svg_line_chart(bad, "t", "x", "y", 0, NULL, 1) == CLI_ERROR);
    CHECK(access(bad, F_OK) != 0);
    const char *const keep[] = {"line.svg", "line2.svg", NULL};
    CHECK(stray_files(dir, keep) == 0);
}

static void test_bar_chart(const char *dir, int python)
{
    char path[512];
    snprintf(path, sizeof path, "%s/bars.svg", dir);
    const char *const groups[3] = {"gen:poisson2d:n=40", "a/very/long/path/to/some/matrix_name_here.mtx.gz", "m<3>"};
    const char *const series[2] = {"csr/auto", "hbp/auto"};
    const double values[6] = {7.5, 3.5, 120, NAN, 0.02, 0}; /* NaN and 0 (log axis): no bar */
    const double refs[3] = {4, NAN, 50};
    svg_bars b = {.title = "GFLOPS", .subtitle = "cpu, fp64", .ylabel = "GFLOPS", .log_y = 1, .groups = groups,
                  .n_groups = 3, .series = series, .n_series = 2, .values = values, .refs = refs,
                  .ref_label = "roofline: bandwidth over bytes"};
    CHECK(svg_bar_chart(path, &b) == CLI_OK);
    char *a = read_all(path);
    CHECK(a && count_str(a, "<rect class=\"bar\"") == 4 && count_str(a, "<line class=\"ref\"") == 3); /* 2 + legend */
    CHECK(a && strstr(a, "m&lt;3&gt;, csr/auto: 0.02") != NULL); /* a bar's tooltip */
    CHECK(a && strstr(a, ">0.01</text>") && strstr(a, ">1000</text>")); /* log axis over the decades */
    free(a);
    if (python) check_xml(path, "len(r.findall(\".//\" + ns + \"rect[@class=\\\"bar\\\"]\")) == 4");

    /* linear, no marks: the note stands alone */
    b.log_y = 0;
    b.refs = NULL;
    b.ref_label = "no roofline: the bandwidth was not measured";
    CHECK(svg_bar_chart(path, &b) == CLI_OK);
    a = read_all(path);
    CHECK(a && count_str(a, "<rect class=\"bar\"") == 5 && !strstr(a, "class=\"ref\"") && strstr(a, "no roofline"));
    free(a);
    b.series = NULL;
    CHECK(svg_bar_chart(path, &b) == CLI_ERROR);
}

static void test_density(const char *dir, int python)
{
    char path[512];
    snprintf(path, sizeof path, "%s/density.svg", dir);
    /* cells of one entry: one square per nonzero */
    const int64_t exact[12] = {1, 0, 1, 1, 0, 1, 1, 1, 1, 0, 0, 1};
    svg_density d = {.title = "3 x 4", .rows = 3, .cols = 4, .cell_rows = 1, .cell_cols = 1, .counts = exact};
    CHECK(svg_density_image(path, &d) == CLI_OK);
    char *a = read_all(path);
    CHECK(a && count_str(a, "<g class=\"nonzeros\"") == 1 && !strstr(a, "class=\"cells\""));
    free(a);
    if (python)
        check_xml(path, "len(r.findall(ns + \"g[@class=\\\"nonzeros\\\"]/\" + ns + \"rect\")) == 8");
    /* 5 x 5 in cells of 2 x 2 (the last row and column of cells narrower): runs of one shade
       along a row are one rect: row 0: [1 1 0] -> 1 rect, row 1: [9 0 9] -> 2, row 2: [1 9 1] -> 3 */
    const int64_t binned[9] = {1, 1, 0, 9, 0, 9, 1, 9, 1};
    d = (svg_density){.rows = 5, .cols = 5, .cell_rows = 2, .cell_cols = 2, .counts = binned};
    CHECK(svg_density_image(path, &d) == CLI_OK);
    a = read_all(path);
    CHECK(a && count_str(a, "<g class=\"cells\"") == 2 && !strstr(a, "class=\"nonzeros\""));
    free(a);
    if (python)
        check_xml(path, "len(r.findall(ns + \"g[@class=\\\"cells\\\"]/\" + ns + \"rect\")) == 6");
    d.cell_rows = 0;
    CHECK(svg_density_image(path, &d) == CLI_ERROR);
}

static void test_gantt(const char *dir, int python)
{
    char path[512];
    snprintf(path, sizeof path, "%s/gantt.svg", dir);
    const char *const lanes[2] = {"GPU", "CPU"};
    const char *const kinds[2] = {"upload", "compute"};
    const svg_span spans[5] = {{0, 0, 0, 1.5, "panel 0 <a&b>"}, {0, 1, 1.5, 4, NULL}, {1, 1, 0, 3.5, "panel 1"},
                               {2, 0, 0, 1, NULL} /* no lane 2: left out */, {1, 1, NAN, 2, NULL} /* left out */};
    svg_gantt g = {"timeline", "2 panels", "ms", lanes, 2, kinds, 2, spans, 5};
    CHECK(svg_gantt_chart(path, &g) == CLI_OK);
    char *a = read_all(path);
    CHECK(a && count_str(a, "<rect class=\"span\"") == 3 && strstr(a, "panel 0 &lt;a&amp;b&gt;") &&
          strstr(a, ">upload</text>") && strstr(a, ">CPU</text>"));
    free(a);
    if (python) check_xml(path, "len(r.findall(ns + \"rect[@class=\\\"span\\\"]\")) == 3");
    g.n_lanes = 0;
    CHECK(svg_gantt_chart(path, &g) == CLI_ERROR);
}

int main(void)
{
    char dir[] = "/tmp/test_svg.XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    int python = have_python();
    if (!python) printf("python3 not found: the XML parse checks are skipped\n");
    test_escape();
    test_line_chart(dir, python);
    test_bar_chart(dir, python);
    test_density(dir, python);
    test_gantt(dir, python);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return check_report();
}
