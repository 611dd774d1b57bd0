/* src/select/select.c: format selection for "auto": walks the small decision trees of
 * select_rules.inc (fitted by scripts/train_select.py on recorded GPU benchmarks, one tree per
 * precision and expected SpMV count), keeps the choice only when this build can run it, and
 * says why. The CPU backend has no recorded results yet: it keeps csr, whose own "auto"
 * algorithm picks a loop from the row statistics. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "select/select.h"
#include "spmv/format.h"

typedef enum select_feature {
    SEL_LEAF,
    SEL_ROWS,
    SEL_COLS,
    SEL_NNZ,
    SEL_ROW_MEAN,
    SEL_ROW_CV,
    SEL_SPREAD_COLS /* spx_features_spread_cols: the columns a row's x gathers spread over */
} select_feature;

/* A split (feature <= threshold: node lo, else node hi) or, for SEL_LEAF, a choice. */
typedef struct select_node {
    select_feature feature;
    double threshold;
    int lo, hi;
    const char *format, *algo;               /* leaf: the choice */
    const char *runner_format, *runner_algo; /* leaf: the next best on the same training */
    int n;                                   /* leaf: training instances that reached it */
    double frac;                             /* leaf: their geomean fraction of the oracle's cost */
} select_node;

typedef struct select_tree {
    spx_precision precision;
    int64_t spmvs; /* the expected SpMV count the tree was fitted for */
    int root;
} select_tree;

#include "select/select_rules.inc"

#define N_TREES ((int)(sizeof select_trees / sizeof select_trees[0]))

/* The feature's value for feat, and its name. */
static double feature_value(const spx_features *feat, select_feature f, const char **name)
{
    switch (f) {
    case SEL_ROWS: *name = "rows"; return feat->m;
    case SEL_COLS: *name = "cols"; return feat->n;
    case SEL_NNZ: *name = "nnz"; return (double)feat->nnz;
    case SEL_ROW_MEAN: *name = "row_mean"; return feat->row_mean;
    case SEL_ROW_CV: *name = "row_cv"; return feat->row_cv;
    case SEL_SPREAD_COLS: *name = "spread_cols"; return spx_features_spread_cols(feat);
    case SEL_LEAF: break;
    }
    *name = "?";
    return 0.0;
}

/* The tree of precision p fitted for the SpMV count nearest n (on a log scale), or -1. */
static int tree_for(spx_precision p, int64_t n)
{
    int best = -1;
    double dist = 0;
    for (int i = 0; i < N_TREES; i++) {
        if (select_trees[i].precision != p) continue;
        double d = fabs(log((double)n) - log((double)select_trees[i].spmvs));
        if (best < 0 || d < dist) best = i, dist = d;
    }
    return best;
}

/* Walks tree t for feat, writing the path taken into why; returns the leaf. */
static const select_node *walk(int t, const spx_features *feat, char *why, size_t len)
{
    const select_node *nd = &select_nodes[select_trees[t].root];
    size_t used = strlen(why);
    while (nd->feature != SEL_LEAF) {
        const char *name;
        double v = feature_value(feat, nd->feature, &name);
        int lo = v <= nd->threshold;
        if (used < len)
            used += (size_t)snprintf(why + used, len - used, "%s %.4g %s %.4g; ", name, v, lo ? "<=" : ">", nd->threshold);
        nd = &select_nodes[lo ? nd->lo : nd->hi];
    }
    return nd;
}

/* Whether this build can run format/algo ("auto": the format's own) on backend b. */
static int usable(const char *format, const char *algo, spx_backend b)
{
    const spx_format *fmt = spx_format_find(format);
    return fmt && spx_format_fits(fmt, algo, b, NULL) == SPX_FORMAT_RUNS;
}

/* Sets out's choice to format/algo. */
static void set_choice(spx_selection *out, const char *format, const char *algo)
{
    snprintf(out->format, sizeof out->format, "%s", format);
    snprintf(out->algo, sizeof out->algo, "%s", algo);
}

/* Appends text to out->why (truncated at its size). */
static void add_why(spx_selection *out, const char *text)
{
    size_t used = strlen(out->why);
    if (used < sizeof out->why) snprintf(out->why + used, sizeof out->why - used, "%s", text);
}

/* Takes the leaf's choice, else its runner-up, else csr/auto: the first this build runs on b. */
static void take_leaf(const select_node *leaf, spx_backend b, spx_selection *out)
{
    char text[160];
    snprintf(out->runner_format, sizeof out->runner_format, "%s", leaf->runner_format);
    snprintf(out->runner_algo, sizeof out->runner_algo, "%s", leaf->runner_algo);
    snprintf(text, sizeof text, "-> %s/%s (reached %.3f of the oracle-best cost on %d training matrices)",
             leaf->format, leaf->algo, leaf->frac, leaf->n);
    add_why(out, text);
    if (usable(leaf->format, leaf->algo, b)) {
        set_choice(out, leaf->format, leaf->algo);
    } else if (usable(leaf->runner_format, leaf->runner_algo, b)) {
        set_choice(out, leaf->runner_format, leaf->runner_algo);
        add_why(out, "; not in this build: the runner-up instead");
    } else {
        set_choice(out, "csr", "auto");
        add_why(out, "; neither it nor the runner-up is in this build: csr");
    }
}

void spx_select_choose(const spx_features *feat, spx_backend b, spx_precision p, int64_t n, spx_selection *out)
{
    memset(out, 0, sizeof *out);
    out->backend = b;
    out->expected_spmvs = n > 0 ? n : SPX_SELECT_DEFAULT_SPMVS;
    int t = b == SPX_BACKEND_CUDA ? tree_for(p, out->expected_spmvs) : -1;
    if (t < 0) {
        set_choice(out, "csr", "auto");
        add_why(out, b == SPX_BACKEND_CUDA ? "no table for this precision: csr, whose auto algorithm adapts to rows"
                                           : "no CPU results to select from: csr, whose auto algorithm adapts "
                                             "to row lengths");
        return;
    }
    char head[96];
    snprintf(head, sizeof head, "%s table for %lld SpMVs: ", spx_precision_str(p),
             (long long)select_trees[t].spmvs);
    add_why(out, head);
    take_leaf(walk(t, feat, out->why, sizeof out->why), b, out);
}
