#!/usr/bin/env python3
# scripts/spgemm_scipy_check.py: an independent check of `spx spgemm` against scipy, and a
# timing of scipy's single-threaded A @ B next to `spx bench --op spgemm --backend cpu`.
#
#   spgemm_scipy_check.py [--spx BIN] [--shared DIR] [SRC...]
#       For each source (default: a few generated matrices, a hand-made cancelling one and
#       some shared ones), `spx spgemm SRC -o C.mtx` and `... --transpose-b` against scipy's
#       A @ A and A @ A.T, both read from the same Matrix Market file. Structure: spx keeps an
#       entry whose terms cancel (see docs/spgemm.md) and scipy drops it, so C's pattern is
#       compared exactly with the structural product (|A| @ |B| with every stored value 1,
#       which cannot cancel), and the values of C with scipy's entry by entry within
#       1e-12 * (|A| @ |B|)_ij (an entry scipy dropped counts as 0). A rectangular A is
#       checked with --transpose-b only. Exit 0 all agree, 1 a disagreement, 77 no scipy.
#   spgemm_scipy_check.py --time [--spx BIN] [--reps N] [--json FILE] [--transpose-b] SRC...
#       Median of N runs of scipy's A @ A (A @ A.T) as written, then `spx bench --op spgemm
#       --backend cpu --cpu-scaling`; prints a markdown table of seconds (one product from
#       nothing: scipy's call, spx's plan + first run; and spx's numeric run) and the ratios.
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP = 77
VALUE_TOL = 1e-12
DEFAULT_SOURCES = [
    "gen:poisson2d:n=30",
    "gen:rmat:scale=9,ef=8",
    "gen:powerlaw:m=2000,k=6",
    "gen:uniform:m=800,n=500,k=5",  # rectangular: A*A^T only
    "cancel",                       # hand-made: A*A has an entry whose terms cancel
    "SHARED/dwt_419.mtx.gz",
    "SHARED/can_96.mtx.gz",
    "SHARED/cage8.mtx.gz",
    "SHARED/west0497.mtx.gz",
    "SHARED/mahindas.mtx.gz",
    "SHARED/bcsstk09.mtx.gz",
    "SHARED/lp_ship04l.mtx.gz",     # rectangular
]
# A = [[1, 1], [1, -1]]: (A*A)[0][1] = 1*1 + 1*(-1) = 0, a structural entry spx keeps.
CANCEL_MTX = """%%MatrixMarket matrix coordinate real general
2 2 4
1 1 1
1 2 1
2 1 1
2 2 -1
"""


def python_with_scipy():
    """Re-runs this script under the system python3 when the current one lacks scipy (a
    pyenv or venv interpreter first on PATH); returns only when scipy imports here."""
    try:
        import scipy  # noqa: F401
        return True
    except ImportError:
        pass
    system = "/usr/bin/python3"
    if os.path.realpath(sys.executable) != os.path.realpath(system) and os.access(system, os.X_OK):
        probe = subprocess.run([system, "-c", "import scipy"], capture_output=True)
        if probe.returncode == 0:
            os.execv(system, [system] + sys.argv)
    return False


def default_spx():
    """The spx binary of the usual build folders, or the one on PATH."""
    for cand in ("build/spx", "build-cuda/spx"):
        path = os.path.join(REPO, cand)
        if os.access(path, os.X_OK):
            return path
    return shutil.which("spx") or "spx"


def run(cmd):
    """Runs cmd; raises with its stderr when it fails."""
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), res.returncode, res.stderr.strip()))
    return res.stdout


def materialise(src, spx, shared, tmp):
    """A Matrix Market path for src: a file as it is, a gen: spec written by `spx gen`, the
    hand-made cancelling matrix; None when a shared file is absent."""
    if src == "cancel":
        path = os.path.join(tmp, "cancel.mtx")
        with open(path, "w") as f:
            f.write(CANCEL_MTX)
        return path
    if src.startswith("SHARED/"):
        path = os.path.join(shared, src[len("SHARED/"):])
        return path if os.path.exists(path) else None
    if src.startswith("gen:"):
        path = os.path.join(tmp, re.sub(r"[^A-Za-z0-9]+", "_", src) + ".mtx")
        run([spx, "gen", src, "-o", path])
        return path
    return src


def read_csr(path):
    """The matrix of a Matrix Market file as float64 CSR, sorted, duplicates summed."""
    import scipy.io
    import scipy.sparse as sp
    M = sp.csr_matrix(scipy.io.mmread(path), dtype="float64")
    M.sum_duplicates()
    M.sort_indices()
    return M


def ones_like(M):
    """M's pattern with every stored value 1 (its structural entries, explicit zeros too)."""
    P = M.copy()
    P.data[:] = 1.0
    return P


def check_product(spx, path, transpose, tmp):
    """Compares `spx spgemm path [--transpose-b] -o C` with scipy; returns None or why not."""
    import numpy as np
    out = os.path.join(tmp, "C.mtx")
    run([spx, "spgemm", path, "--backend", "cpu", "-o", out] + (["--transpose-b"] if transpose else []))
    A = read_csr(path)
    B = A.T.tocsr() if transpose else A
    C = read_csr(out)
    if C.shape != (A.shape[0], B.shape[1]):
        return "shape %s, scipy %s" % (C.shape, (A.shape[0], B.shape[1]))
    S = (abs(A) @ abs(B)).tocsr()                    # sum of |a||b| per entry: the error scale
    P = (ones_like(A) @ ones_like(B)).tocsr()         # the structural product: cannot cancel
    P.sort_indices()
    if not (np.array_equal(C.indptr, P.indptr) and np.array_equal(C.indices, P.indices)):
        return "structure differs: spx %d entries, structural product %d" % (C.nnz, P.nnz)
    R = (A @ B).tocsr()                               # scipy drops exact zeros: they count as 0
    D = abs(C - R).tocsr()
    bound = VALUE_TOL * S
    over = D - bound
    if over.nnz and over.data.max() > 0:
        return "values differ: max |spx - scipy| %.3e beyond %.0e * (|A||B|)_ij" % (D.data.max(), VALUE_TOL)
    return None


def check(args):
    """The check mode: every source, A*A (square only) and A*A^T; returns the exit status."""
    sources = args.sources or DEFAULT_SOURCES
    bad = 0
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        for src in sources:
            path = materialise(src, args.spx, args.shared, tmp)
            if path is None:
                print("skip %s: not found under %s" % (src, args.shared))
                continue
            shape = read_csr(path).shape
            for transpose in (False, True):
                if not transpose and shape[0] != shape[1]:
                    continue
                why = check_product(args.spx, path, transpose, tmp)
                checked += 1
                label = "%s %s" % (src, "A*A^T" if transpose else "A*A")
                if why:
                    bad += 1
                    print("FAIL %s: %s" % (label, why))
                else:
                    print("ok   %s" % label)
    print("%d products checked against scipy, %d disagree" % (checked, bad))
    return 1 if bad or not checked else 0


def scipy_seconds(A, transpose, reps):
    """Median seconds of scipy's A @ A (A @ A.T) as written, the median of the same followed by
    C.sort_indices() (scipy leaves C's columns unsorted within a row, spx sorts them), and the
    product's nnz."""
    times, sorted_times = [], []
    C = None
    for _ in range(reps):
        t0 = time.perf_counter()
        C = A @ A.T if transpose else A @ A
        t1 = time.perf_counter()
        C.has_sorted_indices = False  # scipy's own flag: sort for real
        C.sort_indices()
        t2 = time.perf_counter()
        times.append(t1 - t0)
        sorted_times.append(t2 - t0)
    times.sort()
    sorted_times.sort()
    return times[len(times) // 2], sorted_times[len(sorted_times) // 2], C.nnz


def spx_rows(spx, src, transpose, reps, tmp):
    """The all-threads and 1-thread gustavson rows of `spx bench --op spgemm --backend cpu`, run
    `reps` times (each run one product from nothing): of each kind, the row of median total
    time (plan + first run), as scipy's time is a median."""
    out = os.path.join(tmp, "bench.json")
    cmd = [spx, "bench", "--op", "spgemm", src, "--backend", "cpu", "--cpu-scaling", "--reps", str(reps),
           "--json", out] + (["--transpose-b"] if transpose else [])
    every, one = [], []
    for _ in range(reps):
        run(cmd)
        with open(out) as f:
            rows = json.load(f)["results"]
        got_every = [r for r in rows if r["name"] == "gustavson" and r.get("total_s")]
        got_one = [r for r in rows if r["name"] == "gustavson/1thread" and r.get("total_s")]
        if not got_every or not got_one:
            print("note: %s: a run without a timed gustavson row (left out of the median)" % src, file=sys.stderr)
        every += got_every
        one += got_one
    return median_row(every), median_row(one)


def median_row(rows):
    """The row of median total_s (the upper one of an even count), or None."""
    rows = sorted(rows, key=lambda r: r["total_s"])
    return rows[len(rows) // 2] if rows else None


def ratio(a, b):
    """a / b, or None when either is missing."""
    return a / b if a and b else None


def cell(v, fmt):
    """v formatted, or "-"."""
    return fmt % v if v is not None else "-"


def timing(args):
    """The timing mode: a markdown table (and JSON with --json) of scipy vs spx on the CPU."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for src in args.sources:
            path = materialise(src, args.spx, args.shared, tmp)
            if path is None:
                print("skip %s: not found" % src, file=sys.stderr)
                continue
            A = read_csr(path)
            t_scipy, t_sorted, nnz_c = scipy_seconds(A, args.transpose_b, args.reps)
            every, one = spx_rows(args.spx, path, args.transpose_b, args.reps, tmp)
            row = {"matrix": src, "transpose_b": int(args.transpose_b), "nnz_c": nnz_c, "scipy_s": t_scipy,
                   "scipy_sorted_s": t_sorted}
            for key, r in (("spx_1thread", one), ("spx_all", every)):
                row[key + "_threads"] = r["threads"] if r else None
                row[key + "_total_s"] = r["total_s"] if r else None
                row[key + "_numeric_s"] = r["numeric_s"] if r else None
                row[key + "_verified"] = r["verified"] if r else None
                row["x_" + key + "_vs_scipy"] = ratio(t_scipy, row[key + "_total_s"])
                row["x_" + key + "_vs_scipy_sorted"] = ratio(t_sorted, row[key + "_total_s"])
            rows.append(row)
    print("| matrix | scipy nnz(C) | scipy s | scipy + sort s | spx 1 thread s (numeric) | spx %s threads s (numeric) "
          "| x 1 thread | x all | x 1 thread, sorted | x all, sorted |"
          % (rows[0]["spx_all_threads"] if rows and rows[0]["spx_all_threads"] else "all"))
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print("| %s | %d | %.4f | %.4f | %s (%s) | %s (%s) | %s | %s | %s | %s |" % (
            r["matrix"], r["nnz_c"], r["scipy_s"], r["scipy_sorted_s"],
            cell(r["spx_1thread_total_s"], "%.4f"), cell(r["spx_1thread_numeric_s"], "%.4f"),
            cell(r["spx_all_total_s"], "%.4f"), cell(r["spx_all_numeric_s"], "%.4f"),
            cell(r["x_spx_1thread_vs_scipy"], "%.2fx"), cell(r["x_spx_all_vs_scipy"], "%.2fx"),
            cell(r["x_spx_1thread_vs_scipy_sorted"], "%.2fx"), cell(r["x_spx_all_vs_scipy_sorted"], "%.2fx")))
    print("\nscipy: median of %d calls of A @ %s (single-threaded), and of the same followed by C.sort_indices() "
          "(scipy leaves each row's columns unsorted; spx's C is sorted); spx: plan + first run (one product "
          "from nothing), the median of %d such runs, numeric = its median run refilling C; x = scipy s / spx s"
          % (args.reps, "A.T" if args.transpose_b else "A", args.reps))
    if args.json:
        write_json_atomic(args.json, {"reps": args.reps, "results": rows})
    return 0


def write_text_atomic(path, text):
    """Writes text to path through a temporary file beside it renamed when complete, so a
    failure leaves no half-written file (the spx commands' rule)."""
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".tmp.", dir=os.path.dirname(path) or ".")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_json_atomic(path, obj):
    """Writes obj as JSON to path, atomically (write_text_atomic)."""
    write_text_atomic(path, json.dumps(obj, indent=1))


def main():
    ap = argparse.ArgumentParser(description="spx spgemm against scipy: check, or time (--time)")
    ap.add_argument("sources", nargs="*", help="Matrix Market files or gen: specs (check: a default set)")
    ap.add_argument("--spx", default=None, help="the spx binary (default: build/spx, else PATH)")
    ap.add_argument("--shared", default=os.path.join(REPO, "..", "shared", "matrices"),
                    help="the shared matrices folder (default ../shared/matrices)")
    ap.add_argument("--time", action="store_true", help="time scipy vs spx bench --backend cpu")
    ap.add_argument("--transpose-b", action="store_true", help="--time: A @ A.T")
    ap.add_argument("--reps", type=int, default=3, help="--time: runs per measurement (median)")
    ap.add_argument("--json", default=None, help="--time: also write the rows as JSON")
    args = ap.parse_args()
    if not python_with_scipy():
        print("skipped: no python3 here imports scipy (install python3-scipy)")
        return SKIP
    args.spx = args.spx or default_spx()
    if args.time and not args.sources:
        ap.error("--time needs SRC...")
    if args.reps < 1:
        ap.error("--reps needs a count >= 1")
    if args.json and not os.access(os.path.dirname(os.path.abspath(args.json)), os.W_OK):
        ap.error("--json %s: its folder is not writable" % args.json)
    try:
        return timing(args) if args.time else check(args)
    except (RuntimeError, OSError, ValueError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
