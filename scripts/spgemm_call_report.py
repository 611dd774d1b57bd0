#!/usr/bin/env python3
"""scripts/spgemm_call_report.py: the whole SpGEMM call from device operands in `spx bench --op
spgemm` JSON (gpu-check.sh's spgemm-call stage): per row, the first call (cold memory pool) and
the steady-state median, each call's phases in microseconds and their sum against the call.

usage: spgemm_call_report.py RESULTS.json
The phases are the last timed call's (t_device_call_s is the median): with 'wrap' and 'other'
they sum to that call's time. Exit status 1 when a row has no verified device call or its phases
lack 'other'."""
import json
import sys


def phases_line(phases):
    """The phases as 'name=us' in their order."""
    return " ".join(f"{k}={v * 1e6:.0f}" for k, v in phases.items())


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        rows = json.load(f)["results"]
    bad = 0
    for r in rows:
        call, first = r.get("t_device_call_s"), r.get("t_device_call_first_s")
        steady = r.get("device_call_phases") or {}
        cold = r.get("device_call_first_phases") or {}
        verified = r.get("device_call_verified", "")
        print(f"{r['matrix']} [{r['name']}] nnz_C {r.get('nnz_c')}: first call "
              f"{first * 1e3 if first else float('nan'):.3f} ms, steady {call * 1e3 if call else float('nan'):.3f} ms "
              f"(median), C verified: {verified or 'not measured'}")
        print(f"  steady phases (us): {phases_line(steady)}; sum {sum(steady.values()) * 1e6:.0f}")
        print(f"  first  phases (us): {phases_line(cold)}; sum {sum(cold.values()) * 1e6:.0f}")
        if not call or verified != "yes":
            bad += 1
            print("  FAILED: no verified device call")
            continue
        # the steady phases are the last timed call's, not the median's: compared with their own sum
        if "other" not in steady:
            bad += 1
            print("  FAILED: no 'other' phase: the phases do not cover the call")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
