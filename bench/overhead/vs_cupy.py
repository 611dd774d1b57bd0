#!/usr/bin/env python3
# bench/overhead/vs_cupy.py: spx's Python API against CuPy on the GPU, in one run (issue 16's target: the ratio of cupyx's A @ x (cuSPARSE) to spx's plan.spmv on CuPy arrays within 5 % of the ratio `spx bench` shows for auto against cuSPARSE): per matrix of each suite, a CUDA plan with format "auto" (expected_spmvs as spx bench's auto row) and the matrix as a cupyx.scipy.sparse.csr_matrix, both timed with CUDA events on CuPy's current stream by the same protocol (single calls, then back-to-back batches, interleaved), beside the C ratios of a `spx bench --json` run (--c-json); prints a markdown table, writes JSON and markdown. Exits 77 ("skipped") without CuPy, the CUDA backend or a GPU. Usage: vs_cupy.py BUILD_PYTHON_DIR [--suite default|FILE]... [--c-json FILE]... [options]; --help lists them.
import argparse
import gc
import importlib
import json
import math
import os
import platform
import sys
import time

from suites import REPO, suite

try:
    import numpy as np
except ImportError:
    print("NumPy not available (nor CuPy): skipped")
    sys.exit(77)

SKIPPED = 77
TOL = {"fp64": 1e-10, "fp32": 1e-4}  # |y_spx - y_cupyx|_inf / |y_cupyx|_inf: the two must agree
BATCH_TARGET_S = 1e-3                # a batch lasts about this long ...
BATCH_MIN, BATCH_MAX = 10, 10000     # ... with this many calls at least and at most


def parse_args():
    ap = argparse.ArgumentParser(description="spx plan.spmv on CuPy arrays against cupyx's A @ x, beside spx bench's "
                                 "auto / cuSPARSE ratio")
    ap.add_argument("build_python", help="the build tree's python/ directory (holding spx/)")
    ap.add_argument("--suite", action="append", help="'default' (spx bench's built-in suite) or a suite file; "
                    "repeatable (default: default and bench/suites/large.txt)")
    ap.add_argument("--precision", default="fp64", help="fp64, fp32 or fp64,fp32 (default fp64)")
    ap.add_argument("--c-json", action="append", default=[], help="the JSON of a `spx bench --backend cuda` run "
                    "with auto and cusparse rows (repeatable: one per suite)")
    ap.add_argument("--expected-spmvs", type=int, default=100, help="the plans' expected_spmvs (spx bench's auto "
                    "row: 100)")
    ap.add_argument("--batches", type=int, default=20, help="timed batches per implementation (default 20)")
    ap.add_argument("--reps", type=int, default=100, help="timed single calls per implementation (default 100)")
    ap.add_argument("--max-nnz", type=float, default=0, help="skip matrices with more entries (0: none skipped)")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--md", help="write the markdown table here")
    return ap.parse_args()


def skip(why):
    print(f"{why}: skipped", flush=True)
    sys.exit(SKIPPED)


def c_ratios(paths):
    """{(matrix, precision): {...}} from spx bench JSON files: per matrix the auto row's format
    and the baseline's (cuSPARSE ALG1) time over auto's, per call and per batch."""
    rows = {}
    for path in paths:
        try:
            with open(path) as f:
                results = json.load(f)["results"]
        except (OSError, ValueError, KeyError) as e:
            sys.exit(f"vs_cupy.py: --c-json {path}: {e!r}")
        for r in results:
            if r.get("status") != "SPX_OK":
                continue
            key = (r["matrix"], r["precision"])
            auto = r.get("requested_format") == "auto"
            if auto:
                rows.setdefault(key, {})["auto"] = r
            elif f"{r['format']}/{r['algo']}" == r.get("baseline"):
                rows.setdefault(key, {})["base"] = r
    out = {}
    for key, d in rows.items():
        if "auto" in d and "base" in d:
            a, b = d["auto"], d["base"]
            out[key] = {"format": f"{a['format']}/{a['algo']}", "baseline": a.get("baseline"),
                        "ratio_call": ratio(b["t_median_s"], a["t_median_s"]),
                        "ratio_batch": ratio(b.get("t_batch_s"), a.get("t_batch_s")),
                        "auto_us_batch": us(a.get("t_batch_s")), "cusparse_us_batch": us(b.get("t_batch_s"))}
    return out


def ratio(num, den):
    return num / den if isinstance(num, (int, float)) and isinstance(den, (int, float)) and den > 0 else None


def us(seconds):
    return seconds * 1e6 if isinstance(seconds, (int, float)) else None


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def measure(cupy, fns, reps, batches):
    """Times each of fns (a dict of name: call) with CUDA events on CuPy's current stream, the
    same protocol for each, their runs interleaved: 3 warm-up calls; reps single calls, each
    between two events (latency, with the host's launch cost when the GPU waits for it); then
    batches of n back-to-back calls between two events, n = the calls of about 1 ms by the
    single-call median (10 to 10000), the median of batch time / n (throughput). Returns
    {name: (call_s, batch_s, n)}."""
    stream = cupy.cuda.get_current_stream()
    e0, e1 = cupy.cuda.Event(), cupy.cuda.Event()

    def timed(fn, calls):
        e0.record(stream)
        for _ in range(calls):
            fn()
        e1.record(stream)
        e1.synchronize()
        return cupy.cuda.get_elapsed_time(e0, e1) * 1e-3 / calls

    for fn in fns.values():
        for _ in range(3):
            fn()
    stream.synchronize()
    singles = {k: [] for k in fns}
    for _ in range(reps):
        for k, fn in fns.items():
            singles[k].append(timed(fn, 1))
    call = {k: median(v) for k, v in singles.items()}
    n = {k: min(BATCH_MAX, max(BATCH_MIN, math.ceil(BATCH_TARGET_S / call[k]))) for k in fns}
    per = {k: [] for k in fns}
    for _ in range(batches):
        for k, fn in fns.items():
            per[k].append(timed(fn, n[k]))
    return {k: (call[k], median(per[k]), n[k]) for k in fns}


def free_device(cupy):
    gc.collect()
    cupy.get_default_memory_pool().free_all_blocks()
    cupy.get_default_pinned_memory_pool().free_all_blocks()


def source_path(src):
    """Where to read src: a gen: spec as it is; a relative path from the working directory, else
    from the repository root (suite files name paths from there, as spx bench reads them)."""
    if src.startswith("gen:") or os.path.isabs(src) or os.path.exists(src):
        return src
    return os.path.join(REPO, src)


def run_precision(spx, cupy, ctx, M, A64, src, prec, args, c):
    """The row of matrix M (A64: its cupyx twin in fp64) in precision prec."""
    dtype = np.float64 if prec == "fp64" else np.float32
    t0 = time.perf_counter()
    plan = spx.plan(M, format="auto", precision=prec, backend="cuda", expected_spmvs=args.expected_spmvs, context=ctx)
    t_plan = time.perf_counter() - t0
    info = plan.info
    A = A64 if dtype == np.float64 else A64.astype(dtype)
    m, n = plan.shape
    x = cupy.asarray(np.random.default_rng(1).uniform(-1.0, 1.0, n)).astype(dtype)
    y = cupy.empty(m, dtype=dtype)
    plan.spmv(x, y)
    y_ref = A @ x
    diff = float(cupy.max(cupy.abs(y - y_ref))) if m else 0.0
    scale = float(cupy.max(cupy.abs(y_ref))) if m else 0.0
    err = diff / scale if scale > 0 else diff
    t = measure(cupy, {"spx": lambda: plan.spmv(x, y), "cupyx": lambda: A @ x}, args.reps, args.batches)
    (s_call, s_batch, s_n), (x_call, x_batch, x_n) = t["spx"], t["cupyx"]
    cr = c.get((src, prec), {})
    row = {"matrix": src, "status": "ok", "rows": m, "cols": n, "nnz": M.nnz, "precision": prec,
           "spx_format": f"{info['format']}/{info['algo']}", "spx_kernel": info["kernel"],
           "c_auto_format": cr.get("format"), "rel_diff": err, "agree": err <= TOL[prec],
           "spx_us_call": s_call * 1e6, "cupyx_us_call": x_call * 1e6,
           "spx_us_batch": s_batch * 1e6, "cupyx_us_batch": x_batch * 1e6,
           "spx_batch_calls": s_n, "cupyx_batch_calls": x_n,
           "ratio_call": x_call / s_call, "ratio_batch": x_batch / s_batch,
           "c_ratio_call": cr.get("ratio_call"), "c_ratio_batch": cr.get("ratio_batch"),
           "c_auto_us_batch": cr.get("auto_us_batch"), "c_cusparse_us_batch": cr.get("cusparse_us_batch"),
           "plan_s": t_plan}
    for kind in ("call", "batch"):
        cr_k = row[f"c_ratio_{kind}"]
        row[f"diff_pct_{kind}"] = 100.0 * (row[f"ratio_{kind}"] / cr_k - 1.0) if cr_k else None
    print(f"{src} {prec}: spx {row['spx_format']} {row['spx_us_batch']:.1f} us, cupyx {row['cupyx_us_batch']:.1f} us "
          f"per call in batches (plan {t_plan:.1f} s, |y_spx - y_cupyx| / |y| {err:.1e})", file=sys.stderr, flush=True)
    return row


def run_matrix(spx, cupy, ctx, src, precisions, args, c):
    """The rows (one per precision) of one matrix; its device memory freed after them."""
    t0 = time.perf_counter()
    try:
        M = spx.load(source_path(src), context=ctx)
    except spx.IOError as e:
        print(f"{src}: cannot be read ({e}): left out", file=sys.stderr, flush=True)
        return [{"matrix": src, "status": "missing", "message": str(e)}]
    if args.max_nnz and M.nnz > args.max_nnz:
        print(f"{src}: {M.nnz} entries > --max-nnz: left out", file=sys.stderr, flush=True)
        return [{"matrix": src, "status": "left out", "nnz": M.nnz}]
    A64 = M.to_cupy()  # (through a host copy: the matrix as cupyx users hold it)
    t_load = time.perf_counter() - t0
    rows = [run_precision(spx, cupy, ctx, M, A64, src, prec, args, c) for prec in precisions]
    for r in rows:
        r["load_s"] = t_load
    del M, A64
    free_device(cupy)
    return rows


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def table(rows):
    """The markdown table of the measured rows."""
    out = ["| suite | matrix | nnz | prec | spx format (Python) | C auto format | spx us | cupyx us | C auto us | "
           "C cusparse us | cupyx/spx | C cusparse/auto | diff % | call: cupyx/spx | C | diff % |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["status"] != "ok":
            out.append(f"| {r['suite']} | {r['matrix']} | {r.get('nnz', '-')} | - | {r['status']} |" + " |" * 11)
            continue
        fmt_c = r["c_auto_format"] or "-"
        if r["c_auto_format"] and r["c_auto_format"] != r["spx_format"]:
            fmt_c += " (differs)"
        out.append(f"| {r['suite']} | {r['matrix']} | {r['nnz']} | {r['precision']} | {r['spx_format']} | {fmt_c} | "
                   f"{r['spx_us_batch']:.2f} | {r['cupyx_us_batch']:.2f} | {fmt(r['c_auto_us_batch'], '.2f')} | "
                   f"{fmt(r['c_cusparse_us_batch'], '.2f')} | {r['ratio_batch']:.3f} | "
                   f"{fmt(r['c_ratio_batch'], '.3f')} | {fmt(r['diff_pct_batch'], '+.1f')} | "
                   f"{r['ratio_call']:.3f} | {fmt(r['c_ratio_call'], '.3f')} | {fmt(r['diff_pct_call'], '+.1f')} |")
    return "\n".join(out)


def summary(rows):
    """Per suite and precision: geometric means of the ratios and how many are within 5 % of C's."""
    lines = []
    groups = {}
    for r in rows:
        if r["status"] == "ok":
            groups.setdefault((r["suite"], r["precision"]), []).append(r)
    for (name, prec), rs in groups.items():
        def gmean(key):
            v = [r[key] for r in rs if r.get(key)]
            return math.exp(sum(math.log(a) for a in v) / len(v)) if v else None

        line = (f"{name} {prec}: {len(rs)} matrices; geometric mean cupyx/spx {fmt(gmean('ratio_batch'), '.3f')} "
                f"(batch), {fmt(gmean('ratio_call'), '.3f')} (call)")
        for kind in ("batch", "call"):
            d = [r[f"diff_pct_{kind}"] for r in rs if r[f"diff_pct_{kind}"] is not None]
            if d:
                line += (f"; {kind}: C cusparse/auto {fmt(gmean(f'c_ratio_{kind}'), '.3f')}, within 5 % of C on "
                         f"{sum(abs(v) <= 5.0 for v in d)} of {len(d)} (largest |diff| {max(abs(v) for v in d):.1f} %)")
        if not any(r["c_ratio_batch"] for r in rs):
            line += "; no C ratios (no --c-json rows for these matrices)"
        differ = [r["matrix"] for r in rs if r["c_auto_format"] and r["c_auto_format"] != r["spx_format"]]
        if differ:
            line += f"; auto chose another format than C's on {', '.join(differ)}"
        lines.append(line)
    return lines


def main():
    args = parse_args()
    precisions = args.precision.split(",")
    if not precisions or any(p not in TOL for p in precisions):
        sys.exit("vs_cupy.py: --precision takes fp64, fp32 or fp64,fp32")
    suites = args.suite or ["default", os.path.join(REPO, "bench", "suites", "large.txt")]
    sources = [(name, suite(name)) for name in suites]  # (a bad suite file fails before anything runs)
    c = c_ratios(args.c_json)
    try:
        import cupy
        importlib.import_module("cupyx.scipy.sparse")  # (Matrix.to_cupy's)
    except ImportError:
        skip("CuPy not available")
    sys.path.insert(0, args.build_python)
    import spx
    if not spx.cuda_compiled():
        skip("spx was built without the CUDA backend")
    try:
        ctx = spx.Context("cuda")
    except spx.Error as e:
        skip(f"no usable GPU ({e})")
    dev = cupy.cuda.Device()
    props = cupy.cuda.runtime.getDeviceProperties(dev.id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    env = {"device": name, "cupy": cupy.__version__, "spx": spx.__version__, "python": platform.python_version(),
           "numpy": np.__version__, "stream": "CuPy's current stream", "expected_spmvs": args.expected_spmvs,
           "reps": args.reps, "batches": args.batches, "batch_target_s": BATCH_TARGET_S,
           "batch_calls_min_max": [BATCH_MIN, BATCH_MAX], "c_json": args.c_json}
    print(f"device {name}; CuPy {cupy.__version__}, spx {spx.__version__}, Python {env['python']}; "
          f"plans: format auto, expected_spmvs {args.expected_spmvs}", flush=True)
    print("times in us per call, per batch (median of batches of back-to-back calls, about 1 ms each; C: spx "
          "bench's batch figures); call = median of single calls; all between CUDA events; the ratio cupyx/spx "
          "beside spx bench's cusparse/auto; diff % = (Python ratio / C ratio - 1) * 100\n", flush=True)
    rows = []
    for suite_name, srcs in sources:
        label = "default" if suite_name == "default" else os.path.basename(suite_name)
        for src in srcs:
            for r in run_matrix(spx, cupy, ctx, src, precisions, args, c):
                r["suite"] = label
                rows.append(r)
    md = table(rows)
    lines = summary(rows)
    print(md)
    print()
    print("\n".join(lines))
    bad = [r["matrix"] + " " + r["precision"] for r in rows if r["status"] == "ok" and not r["agree"]]
    if bad:
        print("error: spx and cupyx disagree on " + ", ".join(bad), file=sys.stderr)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"env": env, "results": rows, "summary": lines}, f, indent=1)
    if args.md:
        with open(args.md, "w") as f:
            f.write(md + "\n\n" + "\n".join(f"- {s}" for s in lines) + "\n")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
