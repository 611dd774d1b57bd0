#!/usr/bin/env python3
# scripts/spmv_scipy_check.py: an independent check of `spx spmv --x FILE --y-out FILE` (and of
# the vector files on both sides) against scipy.
#
#   spmv_scipy_check.py [--spx BIN] [--shared DIR] [SRC...]
#       For each source (default: a few generated matrices and shared ones, square and
#       rectangular), a random x (normal, seeded) is written by scipy.io.mmwrite (array
#       format, 17 digits), `spx spmv SRC --backend cpu --x x.mtx --y-out y.mtx` computes y,
#       scipy.io.mmread reads it back, and every entry is compared with scipy's A @ x:
#           |y_i - (A @ x)_i| <= 1e-12 * (|A| @ |x|)_i
#       (|A||x| is the scale of the rounding of any summation order of row i; 1e-12 is about
#       4500 units in the last place). The largest normalised difference and the relative
#       2-norm error are printed. Exit 0 all agree, 1 a disagreement, 2 a failed run, 77 no
#       scipy here.
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import spgemm_scipy_check as common  # noqa: E402  (its scipy, spx and matrix helpers)

VALUE_TOL = 1e-12
SEED = 20241123
DEFAULT_SOURCES = [
    "gen:poisson2d:n=30",
    "gen:rmat:scale=10,ef=8",           # duplicates summed, empty rows
    "gen:uniform:m=700,n=300,k=5",      # rectangular: x has n entries, y m
    "SHARED/cage10.mtx.gz",
    "SHARED/bcsstk09.mtx.gz",           # symmetric: one triangle stored
    "SHARED/lp_ship04l.mtx.gz",         # rectangular
    "SHARED/west0497.mtx.gz",
    "SHARED/landmark.mtx.gz",           # rows of 16 entries, values of both signs
]


def check_spmv(spx, path, tmp, rng):
    """Runs spx spmv on path with a random x; returns (why it disagrees or None, max normalised
    difference, relative 2-norm error)."""
    import numpy as np
    import scipy.io
    A = common.read_csr(path)
    x = rng.standard_normal(A.shape[1])
    xpath, ypath = os.path.join(tmp, "x.mtx"), os.path.join(tmp, "y.mtx")
    if os.path.exists(ypath):
        os.unlink(ypath)
    scipy.io.mmwrite(xpath, x.reshape(-1, 1), precision=17)
    common.run([spx, "spmv", path, "--backend", "cpu", "--reps", "3", "--x", xpath, "--y-out", ypath])
    y = np.asarray(scipy.io.mmread(ypath), dtype="float64")
    if y.shape != (A.shape[0], 1):
        return "y has shape %s, want (%d, 1)" % (y.shape, A.shape[0]), 0.0, 0.0
    y = y.ravel()
    ref = A @ x
    scale = abs(A) @ abs(x)
    diff = abs(y - ref)
    norm = np.where(scale > 0, diff / np.where(scale > 0, scale, 1.0), diff)
    worst = float(norm.max()) if norm.size else 0.0
    rel = float(np.linalg.norm(y - ref) / np.linalg.norm(ref)) if np.linalg.norm(ref) > 0 else float(np.linalg.norm(y))
    if not np.all(np.isfinite(y)):
        return "y holds non-finite values", worst, rel
    if worst > VALUE_TOL:
        i = int(norm.argmax())
        return ("y[%d] = %.17g, scipy %.17g: %.3e of (|A||x|)_i, beyond %.0e" % (i, y[i], ref[i], worst, VALUE_TOL),
                worst, rel)
    return None, worst, rel


def main():
    ap = argparse.ArgumentParser(description="spx spmv --x/--y-out against scipy's A @ x")
    ap.add_argument("sources", nargs="*", help="Matrix Market files or gen: specs (default: a set)")
    ap.add_argument("--spx", default=None, help="the spx binary (default: build/spx, else PATH)")
    ap.add_argument("--shared", default=os.path.join(common.REPO, "..", "shared", "matrices"),
                    help="the shared matrices folder (default ../shared/matrices)")
    args = ap.parse_args()
    if not common.python_with_scipy():
        print("skipped: no python3 here imports scipy (install python3-scipy)")
        return common.SKIP
    import numpy as np
    spx = args.spx or common.default_spx()
    rng = np.random.default_rng(SEED)
    bad = checked = 0
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for src in args.sources or DEFAULT_SOURCES:
                path = common.materialise(src, spx, args.shared, tmp)
                if path is None:
                    print("skip %s: not found under %s" % (src, args.shared))
                    continue
                why, worst, rel = check_spmv(spx, path, tmp, rng)
                checked += 1
                bad += why is not None
                print("%s %s: max |y - A@x| / (|A||x|) %.2e, relative 2-norm error %.2e%s"
                      % ("FAIL" if why else "ok  ", src, worst, rel, ": " + why if why else ""))
    except (RuntimeError, OSError, ValueError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    print("%d products y = A*x checked against scipy (bound %.0e * (|A||x|)_i), %d disagree"
          % (checked, VALUE_TOL, bad))
    return 1 if bad or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
