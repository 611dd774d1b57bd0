#!/usr/bin/env python3
"""scripts/spgemm_tables.py: markdown tables from `spx bench --op spgemm --json` results.

  spgemm_tables.py RESULTS.json [--method spx]

One row per matrix, each measure against cuSPARSE's fastest algorithm on that measure:
- numeric: the device part of a timed run (the "numeric" phase: spx's numeric kernels with the
  symbolic result reused; cuSPARSE's SpGEMM_compute + SpGEMM_copy, which recompute everything);
- scratch: one product from nothing on the device: spx's analyse + reorder + symbolic +
  numeric against cuSPARSE's plan (analyse + symbolic, where its workEstimation and compute
  already form the product; its copy into C is left out, in its favour);
- run: the whole timed run with C back on the host;
and the peak device memory of the method and of cuSPARSE ALG1. Then geometric means. Uploads,
downloads and the transpose of B are host-side and in no device measure. A failed or
unverified result is shown as its status and left out of the means.
"""
import argparse
import sys

from bench_tables import geomean, load, short  # the SpMV tables' helpers (same folder)

PLAN_DEVICE = ("analyse", "reorder", "symbolic")


def numeric_s(r):
    """Device seconds of the last timed run's numeric phase."""
    return r.get("phases", {}).get("numeric", 0.0)


def scratch_s(r):
    """Device seconds of one product from nothing (see the module's docstring)."""
    ph = r.get("phases", {})
    plan = sum(ph.get(k, 0.0) for k in PLAN_DEVICE)
    return plan if r.get("method") == "cusparse" else plan + ph.get("numeric", 0.0)


def ok(r):
    return r is not None and r.get("status") == "SPX_OK" and r.get("verified") == "yes"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json")
    ap.add_argument("--method", default="spx")
    a = ap.parse_args()
    env, results = load(a.json)
    mats = {}
    for r in results:
        mats.setdefault(r["matrix"], {})[r.get("name", r.get("method"))] = r
    dev = env.get("device", {})
    print(f"device: {dev.get('name', env.get('host', '?')) if isinstance(dev, dict) else dev}, "
          f"commit {env.get('git_commit', '?')}, {env.get('date', '?')}; ms; x = cuSPARSE best / {a.method}\n")
    head = ["matrix", "nnz(C)", "numeric", "cuSPARSE", "x", "scratch", "cuSPARSE", "x", "run", "cuSPARSE", "x",
            f"{a.method} peak MB", "ALG1 peak MB"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    means = {"numeric": [], "scratch": [], "run": []}
    measures = (("numeric", numeric_s), ("scratch", scratch_s), ("run", lambda r: r["numeric_s"]))
    for m, row in mats.items():
        me = row.get(a.method)
        if me is None or "skipped" in str(me.get("status", "")):
            continue
        if not ok(me):
            print(f"| {short(m)} | - | {me.get('status')} |" + " |" * (len(head) - 3))
            continue
        cus = {k: v for k, v in row.items() if k.startswith("cusparse") and ok(v)}
        alg1 = row.get("cusparse/alg1")
        cells = [short(m), str(me["nnz_c"])]
        for name, f in measures:
            cells.append(f"{f(me) * 1e3:.1f}")
            if cus:
                best = min(cus.items(), key=lambda kv: f(kv[1]))
                x = f(best[1]) / f(me) if f(me) > 0 else float("nan")
                means[name].append(x)
                cells += [f"{f(best[1]) * 1e3:.1f} ({best[0].split('/')[-1]})", f"{x:.2f}x"]
            else:
                cells += ["failed", "-"]
        peak1 = f"{alg1['device_peak_bytes'] / 1e6:.0f}" if ok(alg1) else (str(alg1.get("status", "-")) if alg1 else "-")
        cells += [f"{me['device_peak_bytes'] / 1e6:.0f}", peak1]
        print("| " + " | ".join(cells) + " |")
    print()
    for name, xs in means.items():
        if xs:
            print(f"- {a.method} vs cuSPARSE's best, {name}: geomean {geomean(xs):.2f}x over {len(xs)} matrices "
                  f"(min {min(xs):.2f}x, max {max(xs):.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
