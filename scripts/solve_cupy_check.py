#!/usr/bin/env python3
# scripts/solve_cupy_check.py: `spx solve` (CG on the GPU) against CuPy's
# cupyx.scipy.sparse.linalg.cg on the same matrices, the same b = A*ones, the same relative
# tolerance (both stop at ||r|| / ||b|| <= tol) and the same preconditioner (none, or Jacobi:
# CuPy's M = diag(1 / A_ii)): the iteration counts (must agree within 2 %), the time per
# iteration of each, and spx's time per iteration against its floor (one SpMV back to back plus
# the iteration's vector bytes at the copy bandwidth, measured by `spx solve` in the same run).
#
#   solve_cupy_check.py [--spx BIN] [--tol T] [--maxit N] [--format F] [--precond none|jacobi|both]
#                       [--solver-path P[,P...]] [--allow-no-cupy] [--max-rows N] [--shared DIR]
#                       [--json FILE] [--md FILE] [SPEC...]
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
# residual and the work vectors included); CuPy/spx is given for both, the whole call first.
# --solver-path runs spx once per path named (auto, graph, persistent: `spx solve --solver-path`;
# the persistent kernel's iter_s is its device time over the iterations), CuPy once per matrix and
# preconditioner, and adds a table of the paths side by side (time per iteration, the floor, the
# ratio, the counts, which must be equal). --allow-no-cupy runs spx alone where CuPy, scipy or a
# GPU for it is missing (the rows say so). Exit 0 all agree, 1 a count outside 2 % (or another
# count on another path) or a solve that did not converge, 2 an error, 77 (skip) without CuPy,
# scipy or a GPU unless --allow-no-cupy. The speed targets are reported (the `targets`
# column), not enforced.
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


def spx_solve(spx, src, precond, path, args, tmp):
    """`spx solve SRC --backend cuda --precond P --solver-path PATH --json`'s result record (exit 0 or 1)."""
    out = os.path.join(tmp, "solve.json")
    cmd = [spx, "solve", src, "--backend", "cuda", "--method", "cg", "--precond", precond, "--tol", repr(args.tol),
           "--maxit", str(args.maxit), "--solver-path", path, "--json", out] + (["--format", args.format] if args.format else [])
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


def spx_row(spec, precond, path, s):
    """The spx half of a row (path: the one asked; spx_path: the one that ran, and why)."""
    return {"matrix": spec, "precond": precond, "path_asked": path, "spx_path": s.get("path"),
            "spx_path_reason": s.get("path_reason"), "spx_kernel_s": s.get("kernel_s"), "rows": s["m"], "nnz": s["nnz"],
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


def add_cupy(row, cupy):
    """CuPy's figures (iterations, seconds, converged, true residual) and the ratios into row."""
    iters, seconds, converged, true_res = cupy
    row.update({"cupy": "ran", "cupy_iterations": iters, "cupy_converged": converged,
                "cupy_iter_s": seconds / iters if iters else None, "cupy_true_residual": true_res})
    row["iterations_agree"] = abs(row["spx_iterations"] - iters) <= max(1, round(ITER_AGREEMENT * iters))
    if row["cupy_iter_s"] and row["spx_iter_s"]:
        row["cupy_over_spx"] = row["cupy_iter_s"] / row["spx_iter_s"]
    if row["cupy_iter_s"] and row["spx_call_iter_s"]:
        row["cupy_over_spx_call"] = row["cupy_iter_s"] / row["spx_call_iter_s"]


def compare(spec, preconds, spx, args, tmp):
    """One matrix: spx's solve with each preconditioner on each path, then CuPy's on the same
    matrix (once per preconditioner)."""
    src, host = spx_source(spec, tmp)
    rows, why = [], args.no_cupy
    for precond in preconds:
        cupy = None
        for path in args.paths:
            row = spx_row(spec, precond, path, spx_solve(spx, src, precond, path, args, tmp))
            if host is None and why is None:
                host, why = cupy_matrix(spec, row["rows"], spx, args, tmp)
            if host is None or args.no_cupy:
                row["cupy"] = why
            else:
                import cupyx.scipy.sparse as csp
                cupy = cupy or cupy_cg(csp.csr_matrix(host), args.tol, args.maxit, precond)
                add_cupy(row, cupy)
            row["targets"] = targets(row)
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def passed(row):
    """Both converged and the counts within 2 % (spx alone: it converged); the same count as the
    matrix's other paths (paths_agree, when several ran)."""
    if row.get("paths_agree") is False:
        return False
    if row["cupy"] != "ran":
        return row["spx_converged"]
    return row["spx_converged"] and row["cupy_converged"] and row["iterations_agree"]


def by_solve(rows):
    """The rows grouped by (matrix, preconditioner), in order: one group a solve, a row a path."""
    groups = {}
    for r in rows:
        groups.setdefault((r["matrix"], r["precond"]), []).append(r)
    return list(groups.values())


def mark_paths(rows):
    """paths_agree on every row of a solve run on several paths: the same iteration count on all."""
    for g in by_solve(rows):
        if len(g) > 1:
            same = len({r["spx_iterations"] for r in g}) == 1
            for r in g:
                r["paths_agree"] = same


def paths_markdown(rows):
    """The paths side by side, a line a solve: each path's ms/iteration, its ratio to the floor and
    its count (the path that ran, where it is not the one asked), the floor, CuPy's ms/iteration."""
    groups = [g for g in by_solve(rows) if len(g) > 1]
    if not groups:
        return ""
    paths = [r["path_asked"] for r in groups[0]]
    head = "| matrix | precond | nnz | floor ms | " + " | ".join("%s ms/it | %s /floor | %s iters" % (p, p, p) for p in paths)
    lines = ["", "The paths side by side (spx solve --solver-path; ms per iteration: the graph path's iteration "
             "phase less its capture, the persistent kernel's device time; both over the iterations)", "",
             head + " | CuPy ms/it | same count |", "|---|---|---|---|" + "---|---|---|" * len(paths) + "---|---|"]
    for g in groups:
        cells = []
        for r in g:
            ran = r["spx_path"] if r["spx_path"] == r["path_asked"] else "%s ran" % r["spx_path"]
            cells.append("%s%s | %s | %d" % (ms(r["spx_iter_s"]), "" if ran == r["path_asked"] else " (%s)" % ran,
                                               x(r["spx_iter_over_floor"]), r["spx_iterations"]))
        lines.append("| %s | %s | %d | %s | %s | %s | %s |" % (g[0]["matrix"], g[0]["precond"], g[0]["nnz"],
                                                           ms(g[0]["spx_floor_s"]), " | ".join(cells),
                                                           ms(g[0].get("cupy_iter_s")),
                                                           "yes" if g[0].get("paths_agree") else "NO"))
    return "\n".join(lines) + "\n"


def ms(v, digits=4):
    """Milliseconds, or '-'."""
    return "-" if v is None else "%.*f" % (digits, v * 1e3)


def x(v):
    """A ratio as 1.23x, or '-'."""
    return "-" if not v else "%.2fx" % v


def how_ran(r):
    """How spx's iterations ran: the graph (its capture, the reads' interval) or the kernel (its time)."""
    if r["spx_path"] == "persistent":
        return "kernel (%s), 1 read" % ms(r.get("spx_kernel_s"), 2)
    return "%s (%s), %s" % ("graph" if r["spx_graph"] else "no graph", ms(r.get("spx_graph_s"), 2), r["spx_check_every"])


def markdown(rows, tol):
    """The table: counts, per-iteration times, their ratio, the floor, the path, the targets."""
    lines = ["CG to ||r||/||b|| <= %g, b = A*ones, x0 = 0; times per iteration (ms); floor = SpMV back to back + "
             "the iteration's vector bytes at the copy bandwidth (spx solve, same run)" % tol, "",
             "| matrix | precond | nnz | spx format | spx path | spx iters | CuPy iters | spx ms/it | spx call ms/it "
             "| CuPy ms/it | CuPy/spx (call) | CuPy/spx (iteration) | floor ms | spx/floor | how: graph (capture ms), reads every; "
             "or the kernel (ms) "
             "| spx true res | CuPy true res | targets | ok |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ran = r["cupy"] == "ran"
        lines.append("| %s | %s | %d | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.2e | %s | %s | %s |" % (
            r["matrix"], r["precond"], r["nnz"], r["spx_format"], r["spx_path"], r["spx_iterations"],
            r["cupy_iterations"] if ran else r["cupy"], ms(r["spx_iter_s"]), ms(r.get("spx_call_iter_s")),
            ms(r.get("cupy_iter_s")), x(r.get("cupy_over_spx_call")), x(r.get("cupy_over_spx")), ms(r["spx_floor_s"]),
            x(r["spx_iter_over_floor"]), how_ran(r), r["spx_true_residual"],
            "%.2e" % r["cupy_true_residual"] if ran else "-", r["targets"] or "-", "yes" if passed(r) else "NO"))
    return "\n".join(lines) + "\n" + paths_markdown(rows)


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
    ap.add_argument("--solver-path", default="auto",
                    help="spx's paths, comma-separated: auto, graph, persistent (auto); each runs every solve")
    ap.add_argument("--allow-no-cupy", action="store_true",
                    help="without CuPy, scipy or a GPU for them: run spx alone (else exit 77)")
    ap.add_argument("--max-rows", type=int, default=2000000, help="largest generated matrix CuPy gets (2000000)")
    ap.add_argument("--shared", default="../shared/matrices", help="the shared matrices (../shared/matrices)")
    ap.add_argument("--json", default=None, help="write the rows as JSON")
    ap.add_argument("--md", default=None, help="write the markdown table")
    args = ap.parse_args()
    args.paths = args.solver_path.split(",")
    if any(p not in ("auto", "graph", "persistent") for p in args.paths) or len(set(args.paths)) != len(args.paths):
        print("error: --solver-path takes auto, graph and persistent, each once, not '%s'" % args.solver_path,
              file=sys.stderr)
        return 2
    why = cupy_ready()
    if why and not args.allow_no_cupy:
        print("skipped: %s" % why)
        return SKIP
    args.no_cupy = why and "no CuPy: %s" % why
    spx = args.spx or default_spx()
    rows = []
    try:
        specs = specs_of(args)
        with tempfile.TemporaryDirectory() as tmp:
            if not args.no_cupy:
                check_laplace(spx, tmp)
            for spec, preconds in specs:
                rows += compare(spec, preconds, spx, args, tmp)
    except (RuntimeError, OSError, ValueError, KeyError, ImportError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    mark_paths(rows)
    table = markdown(rows, args.tol)
    print(table)
    env = {"spx": run([spx, "--version"]).strip(), "solver_paths": args.paths}
    if not args.no_cupy:
        import cupy
        env.update({"cupy": cupy.__version__, "device": cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()})
    if args.json:
        write_json_atomic(args.json, {"env": env, "tol": args.tol, "maxit": args.maxit, "results": rows})
    if args.md:
        write_text_atomic(args.md, table)
    return 0 if all(passed(r) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
