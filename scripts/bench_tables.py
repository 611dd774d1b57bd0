#!/usr/bin/env python3
"""scripts/bench_tables.py: markdown tables from `spx bench --json` results.

  bench_tables.py RESULTS.json [--cols fmt/algo,...] [--time batch|call] [--ref fmt/algo]
                  [--min-nnz N] [--plan] [--layout KEY,...] [--irregular] [--fastest]

One row per matrix: the GFLOPS of each column (a format's resolved algorithm is shown in
parentheses where the requested one was auto), its ratio to --ref (default the baseline,
cuSPARSE ALG1) and, with --plan, each column's plan time in ms and in SpMV-equivalents of the
reference's call time. Then the geometric mean of every ratio, over the matrices where both
ran. --irregular keeps the matrices whose row-length stddev exceeds the mean; --fastest adds
the fastest column of the whole JSON (every format, not only --cols) on each matrix, and ends
with how often each was fastest. Nothing is computed that the JSON does not hold: a failed or unverified run is shown as
its status and left out of the means.
"""
import argparse
import json
import math
import sys


def key(r):
    """The column a result belongs to: format/requested algorithm, or "auto" for the selection's
    row (its resolved format and algorithm are another column's)."""
    if r.get("requested_format") == "auto":
        return "auto"
    return f"{r['format']}/{r.get('requested_algo') or r['algo']}"


def load(path):
    with open(path) as f:
        d = json.load(f)
    return d.get("env", {}), d["results"]


def by_matrix(results):
    """{matrix: {column: result}} in the order the matrices first appear."""
    out = {}
    for r in results:
        out.setdefault(r["matrix"], {})[key(r)] = r
    return out


def ok(r):
    return r is not None and r.get("status") == "SPX_OK" and r.get("verified") == 1


def seconds(r, which):
    return r["t_batch_s"] if which == "batch" and r.get("t_batch_s") else r["t_median_s"]


def short(m):
    return m.split("/")[-1].replace(".mtx.gz", "").replace(".mtx", "")


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def irregular(row):
    """Row-length stddev above the mean (the JSON's row_mean and row_stddev)."""
    r = next(iter(row.values()))
    if "row_stddev" not in r:
        sys.exit("bench_tables.py: --irregular needs row_mean and row_stddev in the JSON")
    return r["row_stddev"] > r["row_mean"]


def fastest(row, which):
    """The verified column with the least time on one matrix ("-" if none)."""
    done = [(seconds(r, which), c) for c, r in row.items() if ok(r)]
    return min(done)[1] if done else "-"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json")
    ap.add_argument("--cols", help="comma list of format/algo (default: every column)")
    ap.add_argument("--time", choices=["batch", "call"], default="batch")
    ap.add_argument("--ref", default="cusparse/alg1")
    ap.add_argument("--min-nnz", type=int, default=0)
    ap.add_argument("--max-nnz", type=int, default=0)
    ap.add_argument("--plan", action="store_true", help="add plan ms and SpMV-equivalents")
    ap.add_argument("--layout", default="", help="layout statistics to show (comma list)")
    ap.add_argument("--irregular", action="store_true", help="only matrices with row stddev > mean")
    ap.add_argument("--fastest", action="store_true", help="name the fastest column on each matrix")
    a = ap.parse_args()
    env, results = load(a.json)
    mats = by_matrix(results)
    cols = a.cols.split(",") if a.cols else sorted({key(r) for r in results if key(r) != a.ref})
    lays = [k for k in a.layout.split(",") if k]
    dev = env.get("device", {})
    print(f"device: {dev.get('name', env.get('host', '?'))}, commit {env.get('git_commit', '?')}, "
          f"{env.get('date', '?')}, time: {a.time}, GFLOPS; ratio = column / {a.ref}\n")
    head = ["matrix", "nnz", a.ref]
    for c in cols:
        head += [c, "x"]
        if a.plan:
            head += ["plan ms", "plan SpMVs"]
        head += [f"{c} {k}" for k in lays]
    if a.fastest:
        head += ["fastest"]
    wins = {}
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    ratios = {c: [] for c in cols}
    for m, row in mats.items():
        ref = row.get(a.ref)
        nnz = next(iter(row.values()))["nnz"]
        if nnz < a.min_nnz or (a.max_nnz and nnz > a.max_nnz):
            continue
        if a.irregular and not irregular(row):
            continue
        cells = [short(m), str(nnz), f"{2 * nnz / seconds(ref, a.time) / 1e9:.0f}" if ok(ref) else "-"]
        for c in cols:
            r = row.get(c)
            if not ok(r):
                cells += [r["status"] if r else "-", "-"]
                if a.plan:
                    cells += ["-", "-"]
                cells += ["-"] * len(lays)
                continue
            g = 2 * nnz / seconds(r, a.time) / 1e9
            resolved = f" ({r['algo']})" if r.get("requested_algo") == "auto" else ""
            x = seconds(ref, a.time) / seconds(r, a.time) if ok(ref) else None
            if x:
                ratios[c].append(x)
            cells += [f"{g:.0f}{resolved}", f"{x:.2f}x" if x else "-"]
            if a.plan:
                eq = r["plan_s"] / ref["t_median_s"] if ok(ref) else float("nan")
                cells += [f"{r['plan_s'] * 1e3:.1f}", f"{eq:.0f}"]
            lay = r.get("layout", {})
            cells += [str(lay.get(k, "-")) for k in lays]
        if a.fastest:
            best = fastest(row, a.time)
            wins[best] = wins.get(best, 0) + 1
            cells += [best]
        print("| " + " | ".join(cells) + " |")
    print()
    for c in cols:
        xs = ratios[c]
        if xs:
            print(f"- {c} / {a.ref}: geomean {geomean(xs):.2f}x over {len(xs)} matrices, "
                  f"min {min(xs):.2f}x, max {max(xs):.2f}x")
    if wins:
        print("- fastest: " + ", ".join(f"{c} on {n}" for c, n in sorted(wins.items(), key=lambda kv: -kv[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
