#!/usr/bin/env python3
# scripts/solve_cupy_check.py: `spx solve` (CG on the GPU) against CuPy's
# cupyx.scipy.sparse.linalg.cg on the same matrices, the same b = A*ones and the same relative
# tolerance (both stop at ||r|| / ||b|| <= tol): iteration counts (must agree within 2 %) and
# the time per iteration of each.
#
#   solve_cupy_check.py [--spx BIN] [--tol T] [--maxit N] [--format F] [--max-rows N]
#                       [--json FILE] [--md FILE] [SPEC...]
#
# SPEC: gen: specs (default: the 7- and 27-point Laplacians below). spx solves the spec itself
# (`spx solve SPEC --backend cuda --json`); CuPy gets the same matrix through `spx gen SPEC -o
# A.mtx` read by scipy, except the Laplacians (`gen:poisson3d|stencil27:n=N,laplace=1`), which
# scipy builds itself (checked equal to `spx gen`'s on small grids first), so the large
# stencils reach CuPy too; another matrix of more than --max-rows rows is solved by spx alone.
# CuPy's time: CUDA events around the whole cg call after a warm-up call (its kernels
# compiled), divided by its iteration count, counted by a callback (a Python counter, left in
# the timed call). spx's: its own per-iteration time (iter_s). Exit 0 all agree, 1 a count
# outside 2 % or a solve that did not converge, 2 an error, 77 (skip) without CuPy, scipy or a GPU.
import argparse
import inspect
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from spgemm_scipy_check import default_spx, read_csr, run, write_json_atomic, write_text_atomic  # noqa: E402

SKIP = 77
ITER_AGREEMENT = 0.02
DEFAULT_SPECS = [
    "gen:poisson3d:n=100,laplace=1",  # 1M rows, 6.9M nonzeros
    "gen:stencil27:n=60,laplace=1",   # 216k rows, 5.6M nonzeros
    "gen:poisson3d:n=300,laplace=1",  # 27M rows, 188M nonzeros
    "gen:stencil27:n=160,laplace=1",  # 4.1M rows, 109M nonzeros
]


def cupy_ready():
    """None when CuPy, scipy and a GPU are there, else why not."""
    try:
        import cupy
        import cupyx.scipy.sparse.linalg  # noqa: F401
        import scipy  # noqa: F401
    except ImportError as e:
        return "no CuPy or scipy here (%s)" % e
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return "no GPU"
    except cupy.cuda.runtime.CUDARuntimeError as e:
        return "no usable GPU (%s)" % e
    return None


def spx_solve(spx, spec, args, tmp):
    """`spx solve SPEC --backend cuda --json`'s result record (exit 0 or 1: converged or not)."""
    out = os.path.join(tmp, "solve.json")
    cmd = [spx, "solve", spec, "--backend", "cuda", "--method", "cg", "--tol", repr(args.tol),
           "--maxit", str(args.maxit), "--json", out] + (["--format", args.format] if args.format else [])
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode not in (0, 1):
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), res.returncode, res.stderr.strip()))
    with open(out) as f:
        return json.load(f)["result"]


def cupy_cg(A, tol, maxit):
    """CuPy's cg on A x = A*ones from x0 = 0: (iterations, seconds, converged, true residual)."""
    import cupy as cp
    from cupyx.scipy.sparse.linalg import cg
    kw = {"rtol" if "rtol" in inspect.signature(cg).parameters else "tol": tol}
    b = A @ cp.ones(A.shape[1], dtype=cp.float64)
    cg(A, b, maxiter=2, **kw)  # warm-up: its kernels compiled and cached
    count = [0]

    def counter(xk):
        count[0] += 1

    start, stop = cp.cuda.Event(), cp.cuda.Event()
    cp.cuda.runtime.deviceSynchronize()
    start.record()
    x, info = cg(A, b, maxiter=maxit, callback=counter, **kw)
    stop.record()
    stop.synchronize()
    seconds = cp.cuda.get_elapsed_time(start, stop) / 1e3
    true_res = float(cp.linalg.norm(b - A @ x) / cp.linalg.norm(b))
    return count[0], seconds, info == 0, true_res


LAPLACE = re.compile(r"^gen:(poisson3d|stencil27):n=(\d+),laplace=1$")


def laplace_csr(spec):
    """The spx generator's Dirichlet Laplacian for SPEC built by scipy (x index fastest, as
    src/gen/gen_structured.c numbers the grid), or None for other specs: no .mtx round trip,
    so the large stencils reach CuPy too. check_laplace() compares it with `spx gen`."""
    import scipy.sparse as sp
    m = LAPLACE.match(spec)
    if not m:
        return None
    kind, n = m.group(1), int(m.group(2))
    eye = sp.identity(n, format="csr")
    if kind == "poisson3d":
        t = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n), format="csr")
        a = sp.kron(eye, sp.kron(eye, t)) + sp.kron(eye, sp.kron(t, eye)) + sp.kron(t, sp.kron(eye, eye))
    else:
        b = sp.diags([1.0, 1.0, 1.0], [-1, 0, 1], shape=(n, n), format="csr")
        a = 27.0 * sp.identity(n ** 3, format="csr") - sp.kron(b, sp.kron(b, b))
    a = a.tocsr()
    a.sort_indices()
    return a


def check_laplace(spx, tmp):
    """The scipy build equals `spx gen`'s matrix exactly on small grids (else an exception)."""
    for spec in ("gen:poisson3d:n=5,laplace=1", "gen:stencil27:n=4,laplace=1"):
        path = os.path.join(tmp, "check.mtx")
        run([spx, "gen", spec, "-o", path])
        ref, mine = read_csr(path).tocsr(), laplace_csr(spec)
        ref.sort_indices()
        if (ref != mine).nnz or ref.nnz != mine.nnz:
            raise RuntimeError("%s: the scipy Laplacian differs from spx gen's" % spec)


def compare(spec, spx, args, tmp):
    """One matrix: spx's solve, then CuPy's on the same matrix unless it is too large."""
    s = spx_solve(spx, spec, args, tmp)
    row = {"matrix": spec, "rows": s["m"], "nnz": s["nnz"], "spx_format": "%s/%s" % (s["format"], s["algo"]),
           "spx_iterations": s["iterations"], "spx_converged": bool(s["converged"]), "spx_iter_s": s["iter_s"],
           "spx_true_residual": s["rel_residual_true"], "spx_break_even_iterations": s["break_even_iterations"]}
    import cupyx.scipy.sparse as csp
    host = laplace_csr(spec)
    if host is None:
        if s["m"] > args.max_rows:
            row["cupy"] = "skipped: %d rows > --max-rows %d (the .mtx round trip)" % (s["m"], args.max_rows)
            return row
        path = os.path.join(tmp, re.sub(r"[^A-Za-z0-9]+", "_", spec) + ".mtx")
        run([spx, "gen", spec, "-o", path])
        host = read_csr(path)
        os.unlink(path)
    A = csp.csr_matrix(host)
    del host
    iters, seconds, converged, true_res = cupy_cg(A, args.tol, args.maxit)
    row.update({"cupy": "ran", "cupy_iterations": iters, "cupy_converged": converged,
                "cupy_iter_s": seconds / iters if iters else None, "cupy_true_residual": true_res})
    allowed = max(1, round(ITER_AGREEMENT * iters))
    row["iterations_agree"] = abs(row["spx_iterations"] - iters) <= allowed
    return row


def passed(row):
    """Both converged and the counts within 2 % (spx alone: it converged)."""
    if row["cupy"] != "ran":
        return row["spx_converged"]
    return row["spx_converged"] and row["cupy_converged"] and row["iterations_agree"]


def ms(v):
    """Milliseconds with 4 decimals, or '-'."""
    return "-" if v is None else "%.4f" % (v * 1e3)


def markdown(rows, tol):
    """The table: counts, per-iteration times, their ratio, the residuals."""
    lines = ["CG to ||r||/||b|| <= %g, b = A*ones, x0 = 0; times per iteration (ms)" % tol, "",
             "| matrix | rows | nnz | spx format | spx iters | CuPy iters | spx ms/it | CuPy ms/it | CuPy/spx | spx true res | CuPy true res | ok |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ran = r["cupy"] == "ran"
        ratio = "%.2fx" % (r["cupy_iter_s"] / r["spx_iter_s"]) if ran and r["cupy_iter_s"] and r["spx_iter_s"] else "-"
        lines.append("| %s | %d | %d | %s | %d | %s | %s | %s | %s | %.2e | %s | %s |" % (
            r["matrix"], r["rows"], r["nnz"], r["spx_format"], r["spx_iterations"],
            r["cupy_iterations"] if ran else r["cupy"], ms(r["spx_iter_s"]), ms(r.get("cupy_iter_s")), ratio,
            r["spx_true_residual"], "%.2e" % r["cupy_true_residual"] if ran else "-", "yes" if passed(r) else "NO"))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description="spx solve (CG, GPU) against CuPy's cg")
    ap.add_argument("specs", nargs="*", help="gen: specs (default: %s)" % ", ".join(DEFAULT_SPECS))
    ap.add_argument("--spx", default=None, help="the spx binary (default: build/spx, else PATH)")
    ap.add_argument("--tol", type=float, default=1e-8, help="relative residual tolerance (1e-8)")
    ap.add_argument("--maxit", type=int, default=20000, help="iteration cap of both (20000)")
    ap.add_argument("--format", default=None, help="spx's format (default: auto)")
    ap.add_argument("--max-rows", type=int, default=2000000, help="largest matrix CuPy gets (2000000)")
    ap.add_argument("--json", default=None, help="write the rows as JSON")
    ap.add_argument("--md", default=None, help="write the markdown table")
    args = ap.parse_args()
    why = cupy_ready()
    if why:
        print("skipped: %s" % why)
        return SKIP
    spx = args.spx or default_spx()
    import cupy
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            check_laplace(spx, tmp)
            for spec in args.specs or DEFAULT_SPECS:
                rows.append(compare(spec, spx, args, tmp))
                print(json.dumps(rows[-1]), flush=True)
    except (RuntimeError, OSError, ValueError, KeyError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    table = markdown(rows, args.tol)
    print(table)
    env = {"cupy": cupy.__version__, "device": cupy.cuda.runtime.getDeviceProperties(0)["name"].decode(),
           "spx": run([spx, "--version"]).strip()}
    if args.json:
        write_json_atomic(args.json, {"env": env, "tol": args.tol, "maxit": args.maxit, "results": rows})
    if args.md:
        write_text_atomic(args.md, table)
    return 0 if all(passed(r) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
