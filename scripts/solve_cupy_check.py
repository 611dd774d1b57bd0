#!/usr/bin/env python3
# scripts/solve_cupy_check.py: `spx solve` (CG on the GPU) against CuPy's
# cupyx.scipy.sparse.linalg.cg on the same matrices, the same b = A*ones, the same relative
# tolerance (both stop at ||r|| / ||b|| <= tol) and the same preconditioner (none, or Jacobi:
# CuPy's M = diag(1 / A_ii)): the iteration counts (must agree within 2 %), the time per
# iteration of each, and spx's time per iteration against its floor (one SpMV back to back plus
# the iteration's vector bytes at the copy bandwidth, measured by `spx solve` in the same run).
#
#   solve_cupy_check.py [--spx BIN] [--tol T] [--maxit N] [--format F] [--precond none|jacobi|both]
#                       [--max-rows N] [--shared DIR] [--json FILE] [--md FILE] [SPEC...]
#
# SPEC: a gen: spec, a Matrix Market file, or ddom:FILE (FILE's symmetric pattern made strictly
# diagonally dominant: -1 off the diagonal, the row's off-diagonal count + 1 on it, so SPD),
# optionally followed by @none, @jacobi or @both (the preconditioners to run; default: the
# --precond option). The default list is the (49) targets: the 7- and 27-point
# Laplacians (poisson3d n=40, 100, 150; stencil27 n=60), bcsstk15 and bcsstk16 with Jacobi, a
# diagonally dominant bcsstk29. spx solves
# the spec itself (`spx solve SPEC --backend cuda --json`; ddom: through a .mtx written here);
# CuPy gets the same matrix through `spx gen SPEC -o A.mtx` read by scipy, except the
# Laplacians (`gen:poisson3d|stencil27:n=N,laplace=1`), which scipy builds itself (checked
# equal to `spx gen`'s on small grids first), so the large stencils reach CuPy too; another
# generated matrix of more than --max-rows rows is solved by spx alone; files are read by scipy.
# CuPy's time: CUDA events around the whole cg call (after a warm-up call that compiles its
# kernels), without a callback, divided by its iteration count, counted by a callback in a
# separate untimed call. spx's: its own per-iteration time (iter_s: the iteration phase less
# the one capture of the iteration as a CUDA graph, any iterations run past the end included)
# beside its whole solve call per iteration (solve_s / iterations: the capture, the initial
# residual and the work vectors included); CuPy/spx is given for both, the whole call first. Exit 0 all agree, 1 a count outside
# 2 % or a solve that did not converge, 2 an error, 77 (skip) without CuPy, scipy or a GPU. The
# issue's speed targets are reported (the `targets` column), not enforced.
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
# The targets (49): time per CG iteration <= 1.25x the floor; >= 5x CuPy's per iteration
# under 1M nonzeros, >= 2x on poisson3d n=150.
FLOOR_TARGET = 1.25
CUPY_TARGET_SMALL, CUPY_SMALL_NNZ = 5.0, 1000000
CUPY_TARGET_P150 = 2.0
DEFAULT_SPECS = [
    "gen:poisson3d:n=100,laplace=1@both",   # 1M rows, 6.9M nonzeros
    "gen:stencil27:n=60,laplace=1@both",    # 216k rows, 5.6M nonzeros
    "gen:poisson3d:n=150,laplace=1@none",   # 3.4M rows, 23.5M nonzeros
    "gen:poisson3d:n=40,laplace=1@none",    # 64k rows, 440k nonzeros (under 1M)
    "{shared}/bcsstk15.mtx.gz@jacobi",      # 3948 rows, 117k nonzeros
    "{shared}/bcsstk16.mtx.gz@jacobi",      # 4884 rows, 290k nonzeros
    "ddom:{shared}/bcsstk29.mtx.gz@both",   # 13992 rows, 620k nonzeros
]  # larger ones on request (gen:poisson3d:n=300,laplace=1 takes minutes with both baselines)


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


def split_spec(spec, default_precond):
    """(matrix spec, [preconditioners]) of SPEC[@none|@jacobi|@both]."""
    base, _, pre = spec.rpartition("@") if "@" in spec else (spec, "", default_precond)
    if pre not in ("none", "jacobi", "both"):
        raise ValueError("%s: the preconditioner must be none, jacobi or both, not '%s'" % (spec, pre))
    return base, ["none", "jacobi"] if pre == "both" else [pre]


def spx_solve(spx, src, precond, args, tmp):
    """`spx solve SRC --backend cuda --precond P --json`'s result record (exit 0 or 1)."""
    out = os.path.join(tmp, "solve.json")
    cmd = [spx, "solve", src, "--backend", "cuda", "--method", "cg", "--precond", precond, "--tol", repr(args.tol),
           "--maxit", str(args.maxit), "--json", out] + (["--format", args.format] if args.format else [])
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode not in (0, 1):
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), res.returncode, res.stderr.strip()))
    with open(out) as f:
        return json.load(f)["result"]


def jacobi_of(A):
    """CuPy's Jacobi preconditioner of A: diag(1 / A_ii) as a sparse matrix (M @ r = D^-1 r)."""
    import cupyx.scipy.sparse as csp
    return csp.diags(1.0 / A.diagonal())


def cupy_cg(A, tol, maxit, precond):
    """CuPy's cg on A x = A*ones from x0 = 0: (iterations, seconds, converged, true residual)."""
    import cupy as cp
    from cupyx.scipy.sparse.linalg import cg
    kw = {"rtol" if "rtol" in inspect.signature(cg).parameters else "tol": tol}
    if precond == "jacobi":
        kw["M"] = jacobi_of(A)
    b = A @ cp.ones(A.shape[1], dtype=cp.float64)
    cg(A, b, maxiter=2, **kw)  # warm-up: its kernels compiled and cached
    count = [0]

    def counter(xk):
        count[0] += 1

    cg(A, b, maxiter=maxit, callback=counter, **kw)  # the count, untimed (a callback costs host time)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    cp.cuda.runtime.deviceSynchronize()
    start.record()
    x, info = cg(A, b, maxiter=maxit, **kw)
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


def diag_dominant(path):
    """FILE's symmetric pattern made strictly diagonally dominant (SPD): -1 off the diagonal,
    the row's off-diagonal count + 1 on it."""
    import numpy as np
    import scipy.sparse as sp
    P = read_csr(path)
    P = ((P + P.T) != 0).astype(np.float64).tocsr()
    P.setdiag(0)
    P.eliminate_zeros()
    deg = np.asarray(P.sum(axis=1)).ravel()
    A = (sp.diags(deg + 1.0) - P).tocsr()
    A.sort_indices()
    return A


def spx_source(spec, tmp):
    """What spx solves for SPEC: the spec itself, or for ddom:FILE the matrix written to a .mtx
    here; and that matrix (scipy) when it was built here, else None."""
    if not spec.startswith("ddom:"):
        return spec, None
    import scipy.io
    A = diag_dominant(spec[5:])
    path = os.path.join(tmp, re.sub(r"[^A-Za-z0-9]+", "_", spec) + ".mtx")
    scipy.io.mmwrite(path, A, symmetry="general")
    return path, A


def cupy_matrix(spec, rows, spx, args, tmp):
    """(scipy matrix of SPEC for CuPy, or None with why not): the Laplacians built by scipy, a
    file read, another gen: spec through `spx gen -o` unless it has more than --max-rows rows."""
    host = laplace_csr(spec)
    if host is not None:
        return host, None
    if not spec.startswith("gen:"):
        return read_csr(spec), None
    if rows > args.max_rows:
        return None, "skipped: %d rows > --max-rows %d (the .mtx round trip)" % (rows, args.max_rows)
    path = os.path.join(tmp, re.sub(r"[^A-Za-z0-9]+", "_", spec) + ".mtx")
    run([spx, "gen", spec, "-o", path])
    A = read_csr(path)
    os.unlink(path)
    return A, None


def spx_row(spec, precond, s):
    """The spx half of a row."""
    return {"matrix": spec, "precond": precond, "rows": s["m"], "nnz": s["nnz"],
            "spx_format": "%s/%s" % (s["format"], s["algo"]), "spx_iterations": s["iterations"],
            "spx_converged": bool(s["converged"]), "spx_iter_s": s["iter_s"], "spx_true_residual": s["rel_residual_true"],
            "spx_floor_s": s.get("floor_s"), "spx_iter_over_floor": s.get("iter_over_floor"),
            "spx_graph": s.get("graph"), "spx_check_every": s.get("check_every"), "spx_checks": s.get("checks"),
            "spx_iterations_run": s.get("iterations_run"), "spx_t_spmv_s": s.get("floor_spmv_s"),
            "spx_graph_s": s.get("graph_s"), "spx_solve_s": s.get("solve_s"),
            "spx_call_iter_s": s["solve_s"] / s["iterations"] if s.get("solve_s") and s["iterations"] else None,
            "spx_break_even_iterations": s["break_even_iterations"]}


def targets(row):
    """The issue's targets this row can speak to, each 'met' or 'missed' (informational)."""
    out = []
    f = row.get("spx_iter_over_floor")
    if f:
        out.append("floor %s" % ("met" if f <= FLOOR_TARGET else "missed"))
    ratio = row.get("cupy_over_spx")
    if ratio:
        if row["nnz"] < CUPY_SMALL_NNZ:
            out.append("5x CuPy %s" % ("met" if ratio >= CUPY_TARGET_SMALL else "missed"))
        if row["matrix"].startswith("gen:poisson3d:n=150,"):
            out.append("2x CuPy %s" % ("met" if ratio >= CUPY_TARGET_P150 else "missed"))
    if row.get("cupy") == "ran":
        out.append("same count %s" % ("yes" if row["spx_iterations"] == row["cupy_iterations"] else "no"))
    return ", ".join(out)


def compare(spec, preconds, spx, args, tmp):
    """One matrix: spx's solve with each preconditioner, then CuPy's on the same matrix."""
    src, host = spx_source(spec, tmp)
    rows, why = [], None
    for precond in preconds:
        row = spx_row(spec, precond, spx_solve(spx, src, precond, args, tmp))
        if host is None and why is None:
            host, why = cupy_matrix(spec, row["rows"], spx, args, tmp)
        if host is None:
            row["cupy"] = why
        else:
            import cupyx.scipy.sparse as csp
            iters, seconds, converged, true_res = cupy_cg(csp.csr_matrix(host), args.tol, args.maxit, precond)
            row.update({"cupy": "ran", "cupy_iterations": iters, "cupy_converged": converged,
                        "cupy_iter_s": seconds / iters if iters else None, "cupy_true_residual": true_res})
            row["iterations_agree"] = abs(row["spx_iterations"] - iters) <= max(1, round(ITER_AGREEMENT * iters))
            if row["cupy_iter_s"] and row["spx_iter_s"]:
                row["cupy_over_spx"] = row["cupy_iter_s"] / row["spx_iter_s"]
            if row["cupy_iter_s"] and row["spx_call_iter_s"]:
                row["cupy_over_spx_call"] = row["cupy_iter_s"] / row["spx_call_iter_s"]
        row["targets"] = targets(row)
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def passed(row):
    """Both converged and the counts within 2 % (spx alone: it converged)."""
    if row["cupy"] != "ran":
        return row["spx_converged"]
    return row["spx_converged"] and row["cupy_converged"] and row["iterations_agree"]


def ms(v, digits=4):
    """Milliseconds, or '-'."""
    return "-" if v is None else "%.*f" % (digits, v * 1e3)


def x(v):
    """A ratio as 1.23x, or '-'."""
    return "-" if not v else "%.2fx" % v


def markdown(rows, tol):
    """The table: counts, per-iteration times, their ratio, the floor, the path, the targets."""
    lines = ["CG to ||r||/||b|| <= %g, b = A*ones, x0 = 0; times per iteration (ms); floor = SpMV back to back + "
             "the iteration's vector bytes at the copy bandwidth (spx solve, same run)" % tol, "",
             "| matrix | precond | nnz | spx format | spx iters | CuPy iters | spx ms/it | spx call ms/it | CuPy ms/it "
             "| CuPy/spx (call) | CuPy/spx (iteration) | floor ms | spx/floor | graph (capture ms), reads every "
             "| spx true res | CuPy true res | targets | ok |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ran = r["cupy"] == "ran"
        lines.append("| %s | %s | %d | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s (%s), %s | %.2e | %s | %s | %s |" % (
            r["matrix"], r["precond"], r["nnz"], r["spx_format"], r["spx_iterations"],
            r["cupy_iterations"] if ran else r["cupy"], ms(r["spx_iter_s"]), ms(r.get("spx_call_iter_s")),
            ms(r.get("cupy_iter_s")), x(r.get("cupy_over_spx_call")), x(r.get("cupy_over_spx")), ms(r["spx_floor_s"]),
            x(r["spx_iter_over_floor"]), "yes" if r["spx_graph"] else "no", ms(r.get("spx_graph_s"), 2),
            r["spx_check_every"], r["spx_true_residual"],
            "%.2e" % r["cupy_true_residual"] if ran else "-", r["targets"] or "-", "yes" if passed(r) else "NO"))
    return "\n".join(lines) + "\n"


def specs_of(args):
    """The (matrix spec, preconditioners) to run: the arguments, else the defaults whose files exist."""
    chosen = args.specs or [s.format(shared=args.shared) for s in DEFAULT_SPECS]
    out = []
    for s in chosen:
        base, pre = split_spec(s, args.precond)
        path = base[5:] if base.startswith("ddom:") else base
        if not base.startswith("gen:") and not os.path.exists(path):
            if args.specs:
                raise ValueError("%s: no such file" % path)
            print("note: %s not found: skipped" % path)
            continue
        out.append((base, pre))
    return out


def main():
    ap = argparse.ArgumentParser(description="spx solve (CG, GPU) against CuPy's cg")
    ap.add_argument("specs", nargs="*", help="gen: specs, .mtx files or ddom:FILE, each with @none|@jacobi|@both "
                    "(default: the issue's list)")
    ap.add_argument("--spx", default=None, help="the spx binary (default: build/spx, else PATH)")
    ap.add_argument("--tol", type=float, default=1e-8, help="relative residual tolerance (1e-8)")
    ap.add_argument("--maxit", type=int, default=20000, help="iteration cap of both (20000)")
    ap.add_argument("--format", default=None, help="spx's format (default: auto)")
    ap.add_argument("--precond", default="none", choices=["none", "jacobi", "both"],
                    help="preconditioners of a SPEC without @ (none)")
    ap.add_argument("--max-rows", type=int, default=2000000, help="largest generated matrix CuPy gets (2000000)")
    ap.add_argument("--shared", default="../shared/matrices", help="the shared matrices (../shared/matrices)")
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
        specs = specs_of(args)
        with tempfile.TemporaryDirectory() as tmp:
            check_laplace(spx, tmp)
            for spec, preconds in specs:
                rows += compare(spec, preconds, spx, args, tmp)
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
