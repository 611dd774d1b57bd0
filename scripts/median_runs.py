#!/usr/bin/env python3
"""scripts/median_runs.py: one `spx bench --json` file from repeated runs of the same bench.

  median_runs.py OUT.json RUN1.json RUN2.json [RUN3.json ...]

Every record (matrix, precision, backend, format, requested algorithm, requested format) found
in each run becomes one record: the first run's, with t_batch_s and t_median_s replaced by
their medians over the runs, t_min_s and t_max_s by the extremes, plan_s and plan_phases_s by
those of the run with the median plan_s, the rates (GFLOPS, GB/s, bandwidth fractions)
recomputed from the merged times and the comparisons with the baseline (speedup_*, repay_*)
set to null (they would need the baseline's merged record); verified only when verified in
every run. A record missing from a run, or failed in one, is left out (printed on stderr).
The env is the first run's, with "runs" added. For
microsecond SpMVs, where one run's batch time can be several times another's (H100,
2026-11-27: 494_bus 4 us in one run, 22 us in the next), a median of three is the measurement.
"""
import json
import statistics
import sys


def key(r):
    return (r["matrix"], r.get("precision"), r.get("backend"), r["format"], r.get("requested_algo"),
            r.get("requested_format"))


def ok(r):
    return r.get("status") == "SPX_OK"


def rate(num, t):
    """num / t / 1e9, or None without a time."""
    return num / t / 1e9 if t else None


def merge(recs):
    """The merged record of one key's records (one per run)."""
    out = dict(recs[0])
    for field in ("t_batch_s", "t_median_s"):
        vals = [r[field] for r in recs if r.get(field) is not None]
        out[field] = statistics.median(vals) if len(vals) == len(recs) else None
    for field, pick in (("t_min_s", min), ("t_max_s", max)):
        vals = [r[field] for r in recs if r.get(field) is not None]
        out[field] = pick(vals) if vals else None
    flops, nbytes = 2.0 * out.get("nnz", 0), out.get("bytes_per_spmv") or 0.0
    out["gflops"], out["gflops_batch"] = rate(flops, out["t_median_s"]), rate(flops, out["t_batch_s"])
    out["gbytes_per_s"], out["gbytes_per_s_batch"] = rate(nbytes, out["t_median_s"]), rate(nbytes, out["t_batch_s"])
    bw = out.get("bandwidth_bytes_per_s")
    for frac, gb in (("bandwidth_fraction", "gbytes_per_s"), ("bandwidth_fraction_batch", "gbytes_per_s_batch")):
        out[frac] = out[gb] * 1e9 / bw if bw and out[gb] is not None else None
    for k in out:
        if k.startswith("speedup_") or k.startswith("repay_"):
            out[k] = None
    by_plan = sorted(recs, key=lambda r: r["plan_s"])
    mid = by_plan[(len(by_plan) - 1) // 2]
    out["plan_s"], out["plan_phases_s"] = mid["plan_s"], mid.get("plan_phases_s", {})
    out["verified"] = int(all(r.get("verified") == 1 for r in recs))
    out["runs"] = len(recs)
    return out


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    runs = [json.load(open(p)) for p in sys.argv[2:]]
    tables = [{key(r): r for r in d["results"]} for d in runs]
    merged = []
    for k in set().union(*tables[1:]) - set(tables[0]):
        print("left out (missing from the first run): %s %s/%s" % (k[0], k[3], k[4]), file=sys.stderr)
    for k, r in tables[0].items():
        recs = [t.get(k) for t in tables]
        if all(x is not None and ok(x) for x in recs):
            merged.append(merge(recs))
        elif ok(r):
            print("left out (missing or failed in a run): %s %s/%s" % (k[0], k[3], k[4]), file=sys.stderr)
        else:
            merged.append(r)  # failed or skipped in the first run: kept as it is (not a choice)
    env = dict(runs[0].get("env", {}))
    env["runs"] = len(runs)
    with open(sys.argv[1], "w") as f:
        json.dump({"env": env, "results": merged}, f, indent=0)
        f.write("\n")


if __name__ == "__main__":
    main()
