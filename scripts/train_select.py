#!/usr/bin/env python3
"""scripts/train_select.py: fits the format-selection trees of src/select/ from `spx bench --json` results.

  train_select.py RESULTS.json... [--out FILE.inc] [--check FILE.inc] [--depth D] [--min-leaf K]
                  [--features-from FILE.json]... [--drop-phase FORMAT:PHASE]...

Reads the GPU (backend cuda) records of every file; an *instance* is one matrix in one file at
one precision (times are compared only within a file, i.e. on one device). A *choice* is a
format with the algorithm it was asked for ("csr/auto", "hbp/hash", ...). The cost of a choice
for N SpMVs is plan_s + N * t_batch_s; the oracle is the cheapest measured choice. A choice
not measured on an instance costs that instance's slowest measured choice (pessimistic). The
plan phases cuSPARSE, csr and hbp share (the CSR check, upload and features: the same code on
the same data) are charged to each of their plans as the instance's median over those plans.

For each precision and each N in 1, 100, 10000 it fits a small tree (depth <= --depth, each
leaf at least --min-leaf instances) over robust features the records and spx_features both
hold (rows, cols, nnz, row_mean, row_cv, spread_cols = cols x min(1, 3 x diag_distance), as
spx_features_spread_cols computes it: the columns a row's x gathers spread over, all of x for
random columns (diag_distance 1/3), a band's width for a banded matrix; where that much x
exceeds L2 the gathers miss it), minimising the summed log of cost / oracle cost; thresholds
are rounded to two significant digits. It then prints a markdown report:
leave-one-family-out (refit without a family, test on it) and a held-out half of the shared
matrices (every other one by name), as the fraction of the oracle's cost reached (oracle / chosen,
geomean and worst) and how often the choice is slower than 0.9x cuSPARSE ALG1's cost.
Two more tables per precision: the default tree (DEFAULT_N SpMVs, what a plan without
expected_spmvs uses) on the same held-out splits scored on SpMV time alone (issue 13's first
target: preprocessing excluded); and the instances of results files named large* scored by the
trees fitted on everything (in-sample) on plan + N SpMVs, with the matrices beyond 10 %.
"matrices" counts instances: a matrix in two files (large and shared) counts twice.
--drop-phase FORMAT:PHASE takes that plan phase's time out of FORMAT's plan cost in every record
(for a step the code no longer makes, e.g. csr:convert since csr's CUDA plans build on the device).
--out writes the trees fitted on everything as C data; --check compares them with a file
byte for byte (exit 1 when they differ).
"""
import argparse
import json
import math
import os
import re
import statistics
import sys

FEATURES = ["rows", "cols", "nnz", "row_mean", "row_cv", "spread_cols"]
NS = [1, 100, 10000]
DEFAULT_N = 100  # SPX_SELECT_DEFAULT_SPMVS: expected_spmvs when a plan does not say
BASE = "cusparse/alg1"


def ok(r):
    return r.get("status") == "SPX_OK" and r.get("verified") == 1 and r.get("backend") == "cuda"


def seconds(r):
    return r["t_batch_s"] if r.get("t_batch_s") else r["t_median_s"]


def features(r):
    """The tree's features of a record's matrix (row_cv = stddev / mean, 0 without entries), or
    None when the record lacks one (diag_distance: recorded since 4d1f4cf)."""
    if "row_mean" not in r or "diag_distance" not in r:
        return None
    mean = r["row_mean"]
    return {"rows": r["rows"], "cols": r["cols"], "nnz": r["nnz"], "row_mean": mean,
            "row_cv": r["row_stddev"] / mean if mean > 0 else 0.0,
            "spread_cols": r["cols"] * min(1.0, 3.0 * r["diag_distance"])}  # = spx_features_spread_cols


def short(m):
    return m.split("/")[-1].replace(".mtx.gz", "").replace(".mtx", "")


SHARED_FAMILIES = [
    ("shared:fem", r"^(bcsstk|fe_|wing|airfoil|t60k|whitaker|jagmesh|dwt_|can_|cs4|commanche|vibrobox"
                   r"|finan512|landmark|cti|olm|qh|LFAT)"),
    ("shared:power", r"^(bcspwr|USpowerGrid|\d+_bus|nnc|gre_)"),
    ("shared:graph", r"^(astro-ph|ca-GrQc|hep-th|jazz|karate|lesmis|uk|luxembourg|nh2010|data|Pd|cage)"),
]


def family(m):
    """gen:NAME (digits and 2d/3d dropped: poisson2d and poisson3d are one family; any shuffled
    generator, gen:shuffled) or shared:KIND."""
    if re.search(r"[:,]shuffle=1(,|$)", m):
        return "gen:shuffled"
    if m.startswith("gen:"):
        return "gen:" + re.sub(r"(\d+d|\d+)$", "", m.split(":")[1])
    name = short(m)
    for fam, pat in SHARED_FAMILIES:
        if re.match(pat, name):
            return fam
    return "shared:other"


def feature_table(paths):
    """{matrix: features} from the first record of each matrix that has all of them."""
    feat = {}
    for path in paths:
        with open(path) as f:
            for r in json.load(f)["results"]:
                if r["matrix"] not in feat and features(r) is not None:
                    feat[r["matrix"]] = features(r)
    return feat


# Plan phases that are the same code on the same data for these formats (the CSR's check, its
# upload to the device, the features taken there): their times differ between the formats' plans
# of one matrix only by noise (up to 2x on a 1-2 ms plan), so each such plan is charged the
# median of these phases over the instance's plans of these formats (pool_shared).
SHARED_PHASE_FORMATS = ("cusparse", "csr", "hbp")
SHARED_PHASES = ("check", "upload", "features")


def plan_cost(r, drop):
    """The record's plan time without the phases drop names for its format ({(format, phase)})."""
    phases = r.get("plan_phases_s") or {}
    return r["plan_s"] - sum(t for ph, t in phases.items() if (r["format"], ph) in drop)


def shared_time(r, drop):
    """The record's time in SHARED_PHASES not dropped (None: not a format that shares them)."""
    if r["format"] not in SHARED_PHASE_FORMATS:
        return None
    phases = r.get("plan_phases_s") or {}
    return sum(phases.get(ph, 0.0) for ph in SHARED_PHASES if (r["format"], ph) not in drop)


def pool_shared(inst):
    """Charges every plan of SHARED_PHASE_FORMATS the instance's median time in SHARED_PHASES in
    place of its own (inst["t"] holds (plan, spmv, shared time or None) per choice)."""
    shared = [sh for _, _, sh in inst["t"].values() if sh is not None]
    med = statistics.median(shared) if shared else 0.0
    inst["t"] = {ch: (p if sh is None else p - sh + med, t) for ch, (p, t, sh) in inst["t"].items()}


def load(paths, feature_paths, drop=frozenset()):
    """(instances, newest date), an instance = {name, family, prec, shared, feat, t: {choice: (plan, spmv)}};
    a matrix whose records lack a feature takes them from feature_paths (else it is skipped);
    plan times lose the phases in drop."""
    out, dates = {}, []
    feat = feature_table(list(paths) + list(feature_paths))
    for path in paths:
        with open(path) as f:
            d = json.load(f)
        dates.append(d.get("env", {}).get("date", "")[:10])
        for r in d["results"]:
            if not ok(r) or r["matrix"] not in feat or r.get("requested_format") == "auto":
                continue  # (the selection's own row is not a choice to learn from)
            k = (path, r["matrix"], r["precision"])
            inst = out.setdefault(k, {"name": r["matrix"], "file": path, "family": family(r["matrix"]),
                                      "prec": r["precision"], "shared": not r["matrix"].startswith("gen:"),
                                      "feat": feat[r["matrix"]], "t": {}})
            choice = f"{r['format']}/{r.get('requested_algo') or r['algo']}"
            inst["t"][choice] = (plan_cost(r, drop), seconds(r), shared_time(r, drop))
    for inst in out.values():
        pool_shared(inst)
    return [out[k] for k in sorted(out)], max(dates)


def costs(inst, n, choices):
    """{choice: cost of n SpMVs} for every choice (missing: the slowest measured); n None: one
    SpMV's time alone, the plan excluded."""
    c = {ch: s if n is None else p + n * s for ch, (p, s) in inst["t"].items()}
    worst = max(c.values())
    return {ch: c.get(ch, worst) for ch in choices}


def best_choice(rows, choices):
    """(loss, choice) of the single choice with the least summed log(cost / oracle); then runner-up."""
    scored = sorted((sum(math.log(c[ch] / min(c.values())) for c in rows), ch) for ch in choices)
    return scored[0], scored[1] if len(scored) > 1 else scored[0]


def round2(x):
    """x to two significant digits (readable thresholds)."""
    if x == 0:
        return 0.0
    e = math.floor(math.log10(abs(x))) - 1
    return float(round(x / 10 ** e) * 10 ** e)


def fit(insts, cs, choices, depth, min_leaf):
    """A tree: {"leaf": choice, "runner", "n", "frac"} or {"feat", "thr", "lo", "hi"} (lo: value <= thr)."""
    (loss, ch), (_, runner) = best_choice(cs, choices)
    leaf = {"leaf": ch, "runner": runner, "n": len(cs), "frac": math.exp(-loss / len(cs)) if cs else 1.0}
    if depth == 0 or len(cs) < 2 * min_leaf:
        return leaf
    best = None
    for f in FEATURES:
        vals = sorted({i["feat"][f] for i in insts})
        for thr in sorted({round2((a + b) / 2) for a, b in zip(vals, vals[1:])}):
            lo = [k for k, i in enumerate(insts) if i["feat"][f] <= thr]
            if len(lo) < min_leaf or len(insts) - len(lo) < min_leaf:
                continue
            los = set(lo)
            l1 = best_choice([cs[k] for k in lo], choices)[0][0]
            l2 = best_choice([c for k, c in enumerate(cs) if k not in los], choices)[0][0]
            if best is None or l1 + l2 < best[0] - 1e-9:
                best = (l1 + l2, f, thr, los)
    if best is None or best[0] > loss - max(0.01 * len(cs), 0.03 * loss):
        return leaf  # a split must gain 1 % per instance (log) and 3 % of the loss
    _, f, thr, los = best
    part = lambda inside: ([i for k, i in enumerate(insts) if (k in los) == inside],
                           [c for k, c in enumerate(cs) if (k in los) == inside])
    return {"feat": f, "thr": thr, "lo": fit(*part(True), choices, depth - 1, min_leaf),
            "hi": fit(*part(False), choices, depth - 1, min_leaf)}


def decide(tree, feat):
    while "leaf" not in tree:
        tree = tree["lo"] if feat[tree["feat"]] <= tree["thr"] else tree["hi"]
    return tree["leaf"]


def train(insts, n, choices, a):
    return fit(insts, [costs(i, n, choices) for i in insts], choices, a.depth, a.min_leaf)


def score(tree, test, n, choices):
    """(fractions of the oracle reached, count slower than 0.9x cuSPARSE ALG1) on test, costs
    of n SpMVs (None: one SpMV's time alone)."""
    fr, slow = [], 0
    for i in test:
        c = costs(i, n, choices)
        got = c[decide(tree, i["feat"])]
        fr.append(min(c.values()) / got)
        slow += BASE in i["t"] and c[BASE] / got < 0.9
    return fr, slow


def geo(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def report_rows(insts, n, choices, a, speed_only=False):
    """Markdown rows: each family left out, all of them pooled, then the shared half held out,
    then in-sample; the trees fitted for n SpMVs, scored on n SpMVs' cost (speed_only: on one
    SpMV's time alone, the plan excluded)."""
    eval_n = None if speed_only else n
    row = lambda label, fr, slow: f"| {label} | {len(fr)} | {geo(fr):.3f} | {min(fr):.3f} | {slow} |"
    rows, pooled, pooled_slow = [], [], 0
    for f in sorted({i["family"] for i in insts}):
        tr, te = [i for i in insts if i["family"] != f], [i for i in insts if i["family"] == f]
        if not tr:
            continue
        fr, slow = score(train(tr, n, choices, a), te, eval_n, choices)
        rows.append(row(f"without {f}", fr, slow))
        pooled, pooled_slow = pooled + fr, pooled_slow + slow
    if pooled:  # every matrix scored by the tree fitted without its family
        rows.append(row("each family left out, pooled", pooled, pooled_slow))
    held = set(sorted({i["name"] for i in insts if i["shared"]})[1::2])
    for label, tr, te in [("shared half held out", [i for i in insts if i["name"] not in held],
                           [i for i in insts if i["name"] in held]), ("in-sample (all)", insts, insts)]:
        if tr and te:
            rows.append(row(label, *score(train(tr, n, choices, a), te, eval_n, choices)))
    return rows


def const_rows(insts, n, choices, fixed):
    """Markdown rows for always choosing one fixed choice (context for the tree's numbers)."""
    out = []
    for ch in fixed:
        fr, slow = score({"leaf": ch}, insts, n, choices)
        out.append(f"| always {ch} | {len(insts)} | {geo(fr):.3f} | {min(fr):.3f} | {slow} |")
    return out


def large_rows(insts, choices, a):
    """Markdown rows: on the instances of results files named large*, the trees fitted on
    everything, each N's total cost (plan + N SpMVs) against the cheapest: geomean, worst, and
    the matrices beyond 10 %."""
    test = [i for i in insts if os.path.basename(i["file"]).startswith("large")]
    rows = []
    for n in NS:
        tree = train(insts, n, choices, a)
        fr = []
        for i in test:
            c = costs(i, n, choices)
            fr.append((min(c.values()) / c[decide(tree, i["feat"])], short(i["name"])))
        if not fr:
            continue
        over = ", ".join(f"{m} {f:.3f}" for f, m in fr if f < 1 / 1.1) or "none"
        rows.append(f"| {n} | {len(fr)} | {geo([f for f, _ in fr]):.3f} | {min(f for f, _ in fr):.3f} | {over} |")
    return rows


def c_nodes(tree, nodes):
    """Appends tree's nodes in preorder; returns the root's index."""
    k = len(nodes)
    nodes.append(None)
    if "leaf" in tree:
        f, al = tree["leaf"].split("/")
        rf, ra = tree["runner"].split("/")
        nodes[k] = (f'    {{SEL_LEAF, 0, 0, 0, "{f}", "{al}", "{rf}", "{ra}", {tree["n"]}, '
                    f'{tree["frac"]:.3f}}},')
        return k
    lo = c_nodes(tree["lo"], nodes)
    hi = c_nodes(tree["hi"], nodes)
    nodes[k] = f'    {{SEL_{tree["feat"].upper()}, {tree["thr"]:.6g}, {lo}, {hi}, NULL, NULL, NULL, NULL, 0, 0}},'
    return k


def c_file(trees, argv, date):
    """The C data (argv: the command's arguments, one group a line) of src/select/select_rules.inc (one node array, one tree list)."""
    nodes, heads = [], []
    for (prec, n), tree in trees:
        heads.append(f"    {{SPX_{prec.upper()}, {n}, {c_nodes(tree, nodes)}}},")
    lines = ["/* src/select/select_rules.inc: the format-selection trees (data, included by select.c).",
             " * Generated from the results named here (newest dated " + date + ") by",
             " *   python3 scripts/train_select.py " + " \\\n *     ".join(argv),
             " * Do not edit: rerun it (the ctest",
             " * train_select_check fails when this file and the script's output differ).",
             " * A node either splits (feature <= threshold: node lo, else node hi) or is a leaf naming",
             " * the choice, the runner-up, the training instances that reached it and the geomean",
             " * fraction of the oracle-best cost the choice reached on them. */",
             "static const select_node select_nodes[] = {", *nodes, "};", "",
             "/* {precision, expected SpMVs the tree was fitted for, root node} */",
             "static const select_tree select_trees[] = {", *heads, "};", ""]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results", nargs="+")
    ap.add_argument("--features-from", action="append", default=[],
                    help="results whose records give the features the RESULTS lack")
    ap.add_argument("--out")
    ap.add_argument("--check")
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--min-leaf", type=int, default=5)
    ap.add_argument("--drop-phase", action="append", default=[], metavar="FORMAT:PHASE",
                    help="a plan phase the code no longer has, taken out of that format's plan times")
    ap.add_argument("--no-report", action="store_true")
    a = ap.parse_args()
    drop = {tuple(d.split(":", 1)) for d in a.drop_phase}
    insts, date = load(a.results, a.features_from, drop)
    trees = []
    for prec in sorted({i["prec"] for i in insts}, reverse=True):
        sub = [i for i in insts if i["prec"] == prec]
        choices = sorted({ch for i in sub for ch in i["t"]})
        for n in NS:
            tree = train(sub, n, choices, a)
            trees.append(((prec, n), tree))
            if a.no_report:
                continue
            print(f"\n### {prec}, {n} SpMV{'s' if n > 1 else ''} ({len(sub)} instances, {len(choices)} choices)\n")
            print("| test set | matrices | oracle fraction (geomean) | worst | < 0.9x cuSPARSE ALG1 |")
            print("|---|---|---|---|---|")
            print("\n".join(report_rows(sub, n, choices, a) + const_rows(sub, n, choices, ["csr/auto", BASE])))
        if a.no_report:
            continue
        print(f"\n### {prec}, the default tree ({DEFAULT_N} SpMVs) scored on SpMV time alone (plan excluded)\n")
        print("| test set | matrices | oracle fraction (geomean) | worst | < 0.9x cuSPARSE ALG1 |")
        print("|---|---|---|---|---|")
        print("\n".join(report_rows(sub, DEFAULT_N, choices, a, speed_only=True)))
        print(f"\n### {prec}, the large suite: plan + N SpMVs against the cheapest (trees fitted on everything)\n")
        print("| N | matrices | oracle fraction (geomean) | worst | beyond 10 % |")
        print("|---|---|---|---|---|")
        print("\n".join(large_rows(sub, choices, a)))
    argv = [f"--depth {a.depth} --min-leaf {a.min_leaf} --out {a.check or a.out or '-'}",
            *[f"--features-from {p}" for p in a.features_from], *[f"--drop-phase {d}" for d in a.drop_phase],
            *a.results]
    text = c_file(trees, argv, date)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    if a.check:
        with open(a.check) as f:
            if f.read() != text:
                sys.exit(f"train_select.py: {a.check} differs from what the script generates")


if __name__ == "__main__":
    main()
