#!/usr/bin/env python3
"""scripts/merge_records.py: one `spx bench --json` file from another with some matrices' records
taken from a newer run.

  merge_records.py OUT.json BASE.json SRC.json MATRIX [MATRIX ...]

OUT is BASE with every record of each MATRIX replaced by SRC's records of that matrix (all of
its formats, so the matrix's comparisons stay within one run), placed where BASE had them.
env is BASE's with "merged" saying what came from where. For a change that touches only those
matrices' code paths (bench/results/2026-11-27-nvidia-h100-369c3d3-colblock/large-merged.json:
csr colblock, which only the wide matrix takes), the other records stay the better-measured ones.
"""
import json
import os
import sys


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    out_path, base_path, src_path, names = sys.argv[1], sys.argv[2], sys.argv[3], set(sys.argv[4:])
    base, src = json.load(open(base_path)), json.load(open(src_path))
    new = {m: [r for r in src["results"] if r["matrix"] == m] for m in names}
    for m, recs in new.items():
        if not recs:
            sys.exit(f"{src_path}: no records of {m}")
    results, placed = [], set()
    for r in base["results"]:
        m = r["matrix"]
        if m not in names:
            results.append(r)
        elif m not in placed:
            results.extend(new[m])
            placed.add(m)
    for m in sorted(names - placed):
        sys.exit(f"{base_path}: no records of {m}")
    out = dict(base)
    out["env"] = dict(base["env"])
    rel = lambda p: os.path.relpath(p, os.path.dirname(os.path.abspath(out_path)))
    out["env"]["merged"] = f"{rel(base_path)} with the records of {', '.join(sorted(names))} from {rel(src_path)}"
    out["results"] = results
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
