#!/usr/bin/env python3
"""scripts/results_page.py: bench/RESULTS.md, its pictures (bench/img/*.svg) and the README's
"where spx stands" table, generated from the newest committed results in bench/results/.

  results_page.py [--check] [--add DIR]... [--out DIR]

Each area takes the newest file of bench/results/<run>/... that covers it (newest day first; on
one day a median of several runs, env "runs", before a single run; then the latest time stamp,
then the path), so committing a new run's folder moves the page forward:
- SpMV on a suite (the built-in default suite, bench/suites/large.txt, shared.txt), fp64 and
  fp32: an `spx bench` JSON, GPU, warm, the caller's order, with verified cuSPARSE ALG1, ALG2
  and `auto` records of every matrix of the suite. Its other formats are tabled beside them.
- SpGEMM (A*A on bench/suites/spgemm-large.txt, A*A^T on spgemm.txt and spgemm-large.txt): an
  `spx bench --op spgemm` JSON with spx's default method and cuSPARSE for every matrix.
- Solvers: a scripts/solve_cupy_check.py JSON (spx's CG against CuPy's, per iteration).
- Distributed: a folder of `spx spmv --distributed` reports (one-1-*.txt, two-mpi-*.txt,
  two-nccl-*.txt: that command writes no JSON, so its text's time line is read).
- Peers: bench/results/*/peers*.json holding records of formats or methods that are not spx's
  own nor cuSPARSE (DASP; spECK, OpSparse, nsparse) beside spx's records of the same run
  (`auto` for SpMV, method spx for SpGEMM), compared on the same time field (t_batch_s, else
  t_median_s, total_s); the newest such folder wins. None yet: the README says "pending".
Ratios are cuSPARSE's (or the peer's) time over spx's, measured in the same process: above 1,
spx is faster. "batch" is the time per call of back-to-back calls, "call" the median of single
calls each timed alone (docs/design.md, "Measuring").

Deterministic: no clock is read, everything is sorted, numbers are rounded as printed, so two
runs write the same bytes. --check writes nothing and exits 1 when a file would change (ctest
results_page_check). --add DIR counts DIR as one more results folder (gpu-check.sh previews the
page with its own run); --out DIR writes there instead of into the repository.
"""
import argparse
import json
import math
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "bench", "overhead"))
from suites import default_suite, read_suite  # noqa: E402  (spx bench's suites)

RESULTS_DIR = "bench/results"
PAGE = "bench/RESULTS.md"
IMG_DIR = "bench/img"
README = "README.md"
BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"
INDEX = "bench/results/README.md"  # its block: which file each figure of the page comes from
SOURCES_BEGIN, SOURCES_END = "<!-- results:sources:begin -->", "<!-- results:sources:end -->"
# "auto" close enough to the fastest format in its run to count as the right pick (5 %).
NEAR_FASTEST = 0.95
SPX_OWN = {"csr", "hbp", "teb", "ehyb", "auto", "spx", "gustavson", "cusparse", "-"}


def suite_file(name):
    """The sources of bench/suites/NAME."""
    return read_suite(os.path.join(REPO, "bench", "suites", name))


SPMV_SUITES = [  # (key, title, how spx bench is told, sources)
    ("default", "the built-in default suite", "", default_suite()),
    ("large", "bench/suites/large.txt", "--suite bench/suites/large.txt", suite_file("large.txt")),
    ("shared", "bench/suites/shared.txt", "--suite bench/suites/shared.txt", suite_file("shared.txt")),
]
SPGEMM_AREAS = [  # (key, title, suite file, transpose_b)
    ("aa-large", "A·A, bench/suites/spgemm-large.txt", "spgemm-large.txt", 0),
    ("aat", "A·Aᵀ, bench/suites/spgemm.txt", "spgemm.txt", 1),
    ("aat-large", "A·Aᵀ, bench/suites/spgemm-large.txt", "spgemm-large.txt", 1),
]


# ---------------------------------------------------------------- reading the results

def commit_beside(path):
    """The commit a device call's commit.txt (beside the JSON) names, else "unknown"."""
    try:
        with open(os.path.join(os.path.dirname(path), "commit.txt")) as f:
            text = f.read().strip()
    except OSError:
        return "unknown"
    return text if re.fullmatch(r"[0-9a-f]{7,40}", text) else "unknown"


class Run:
    """One JSON file of a results folder."""

    def __init__(self, path, shown, folder, data, fallback_day):
        """Reads what the tables need from one JSON file (fallback_day: its folder's date)."""
        self.path, self.shown, self.folder, self.data = path, shown, folder, data
        self.env = data.get("env", {}) if isinstance(data.get("env"), dict) else {}
        self.results = data.get("results") if isinstance(data.get("results"), list) else []
        date = str(self.env.get("date") or "")
        self.day = date[:10] if re.match(r"\d{4}-\d\d-\d\d", date) else fallback_day
        self.stamp = date or self.day
        self.runs = int(self.env.get("runs") or 1)
        self.device = device_of(self.env, folder)
        commit = str(self.env.get("git_commit") or "")
        m = re.search(r"-([0-9a-f]{7,12})(?:-|$)", folder)
        self.commit = commit if commit and commit != "unknown" else (m.group(1) if m else commit_beside(path))

    def key(self):
        """The order "newest" takes: day, merged runs first, time stamp, path."""
        return (self.day, self.runs, self.stamp, self.shown)

    def where(self):
        """"path: device, date, commit" for a table's source line."""
        runs = f", median of {self.runs} runs" if self.runs > 1 else ""
        return f"`{self.shown}`: {self.device}, {self.day}, commit `{self.commit}`{runs}"


def device_of(env, folder):
    """The device's name: the JSON's env, else read off the folder's name."""
    dev = env.get("device")
    name = dev.get("name") if isinstance(dev, dict) else dev
    if name:
        return str(name)
    m = re.search(r"nvidia-(h\d00)(x\d)?", folder)
    if m:
        return (f"{m.group(2)[1:]}x " if m.group(2) else "") + "NVIDIA " + m.group(1).upper()
    return "CPU" if "cpu" in folder else "unknown device"


def short_device(name):
    """"H100", "H200", "2x H100" for tables."""
    m = re.search(r"(\d+x )?NVIDIA (H\d00)", name)
    return (m.group(1) or "") + m.group(2) if m else name


def folder_day(folder):
    """The date a folder's name starts with (an added folder without one sorts newest)."""
    m = re.match(r"(\d{4}-\d\d-\d\d)", folder)
    return m.group(1) if m else "~"  # an added folder without a date: the newest


def discover(dirs):
    """Every JSON file under the results folders dirs ([(path, shown prefix)]), as Runs."""
    runs = []
    for top, prefix in dirs:
        for root, subdirs, files in os.walk(top):
            subdirs.sort()
            for name in sorted(files):
                if not name.endswith(".json"):
                    continue
                path = os.path.join(root, name)
                rel = os.path.relpath(path, top).replace(os.sep, "/")
                folder = rel.split("/")[0] if "/" in rel else os.path.basename(os.path.abspath(top))
                try:
                    with open(path) as f:
                        data = json.load(f)
                except (OSError, ValueError):
                    continue
                if isinstance(data, dict):
                    runs.append(Run(path, f"{prefix}/{rel}", folder, data, folder_day(folder)))
    return runs


def newest(cands):
    """The newest of the candidate Runs (Run.key), or None."""
    return max(cands, key=Run.key) if cands else None


def ok(r):
    """Whether a record ran, verified, and has a time."""
    return (r is not None and r.get("status") == "SPX_OK" and r.get("verified") in (1, "yes")
            and (r.get("t_median_s") or r.get("numeric_s") or 0) > 0)


def col(r):
    """A SpMV record's column: "auto" (the selection's row) or format/requested algorithm."""
    if r.get("requested_format") == "auto":
        return "auto"
    return f"{r.get('format')}/{r.get('requested_algo') or r.get('algo')}"


def by_matrix(results, key):
    """{matrix: {key(record): record}}."""
    out = {}
    for r in results:
        out.setdefault(r.get("matrix"), {})[key(r)] = r
    return out


def is_spgemm(run):
    """Whether a Run holds `spx bench --op spgemm` records."""
    return run.data.get("op") == "spgemm" or any("method" in r for r in run.results)


def spmv_covers(run, sources, prec):
    """Whether run is a warm GPU SpMV run with verified ALG1, ALG2 and auto records of every source, in precision prec."""
    rs = run.results
    if not rs or is_spgemm(run) or "gate" in run.data or run.env.get("backend") != "cuda":
        return False
    if any(r.get("precision") != prec or r.get("cold") or r.get("order", "caller") != "caller" for r in rs):
        return False
    mats = by_matrix(rs, col)
    need = ("cusparse/alg1", "cusparse/alg2", "auto")
    return all(m in mats and all(ok(mats[m].get(c)) and mats[m][c].get("t_batch_s") for c in need) for m in sources)


def spgemm_covers(run, sources, tb):
    """Whether run is a GPU SpGEMM run (transpose_b = tb) with spx and cuSPARSE records of every source."""
    if not is_spgemm(run) or run.env.get("backend") != "cuda":
        return False
    rs = [r for r in run.results if r.get("name") != "-"]  # "-": a matrix the bench skipped (A*A of a rectangular A)
    if not rs or any(int(r.get("transpose_b") or 0) != tb or r.get("precision", "fp64") != "fp64" for r in rs):
        return False
    mats = by_matrix(rs, lambda r: r.get("name"))
    seen = {r.get("matrix") for r in run.results}
    return all(m in seen for m in sources) and all(
        "spx" in mats[m] and any(k.startswith("cusparse") for k in mats[m]) for m in sources if m in mats)


# ---------------------------------------------------------------- numbers

def geomean(xs):
    """The geometric mean of the positive values, or None."""
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def x(v, digits=2):
    """A ratio as the tables print it."""
    return "-" if v is None else f"{v:.{digits}f}x"


def us(t):
    """Seconds as microseconds for the tables."""
    return "-" if not t else f"{t * 1e6:.1f}" if t < 1e-3 else f"{t * 1e6:.0f}"


def short(m):
    """A matrix's name for tables: the file's without folder and suffix, a gen: spec without "gen:"."""
    if m.startswith("gen:"):
        return m[4:].replace(":", " ", 1)
    return m.split("/")[-1].replace(".mtx.gz", "").replace(".mtx", "")


def slug(title):
    """The anchor GitHub gives a heading's text."""
    s = re.sub(r"[^\w\- ]", "", title.lower())  # GitHub's anchors: letters (ᵀ too), digits, _ and -
    return s.replace(" ", "-")


def table(*heads):
    """A Markdown table's header and separator lines."""
    return ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]


def ratio_stats(pairs):
    """(geomean, min, argmin) of [(label, ratio)]."""
    pairs = [(k, v) for k, v in pairs if v]
    if not pairs:
        return None, None, None
    lo = min(pairs, key=lambda kv: (kv[1], kv[0]))
    return geomean([v for _, v in pairs]), lo[1], lo[0]


def best_cusparse(row, field):
    """The faster cuSPARSE algorithm's time on field, or None."""
    ts = [row[c][field] for c in ("cusparse/alg1", "cusparse/alg2") if ok(row.get(c)) and row[c].get(field)]
    return min(ts) if ts else None


def vs(row, variant, ref, field):
    """ref's time over variant's on field (ref "best": the faster cuSPARSE algorithm)."""
    v = row.get(variant)
    t = best_cusparse(row, field) if ref == "best" else (row[ref][field] if ok(row.get(ref)) else None)
    return t / v[field] if ok(v) and v.get(field) and t else None


# ---------------------------------------------------------------- SpMV

def spmv_pick(runs):
    """{(suite key, precision): Run} of the newest file covering each suite."""
    out = {}
    for key, _, _, sources in SPMV_SUITES:
        for prec in ("fp64", "fp32"):
            r = newest([run for run in runs if spmv_covers(run, sources, prec)])
            if r:
                out[(key, prec)] = r
    return out


def variants_of(run):
    """The spx columns of a SpMV run: auto first, then format/algorithm."""
    cols = {col(r) for r in run.results}
    return sorted(cols - {"cusparse/alg1", "cusparse/alg2"}, key=lambda c: (c != "auto", c))


def spmv_command(run, how, prec):
    """The spx bench command that makes a file like run (its formats as measured)."""
    fmts = ",".join(["cusparse/alg1", "cusparse/alg2"] + variants_of(run))
    parts = ["spx bench --backend cuda", how, "--precision fp32" if prec == "fp32" else "", f"--formats {fmts}",
             "--json FILE"]
    cmd = " ".join(p for p in parts if p)
    return f"`{cmd}`" + (f", {run.runs} times, merged by `scripts/median_runs.py`" if run.runs > 1 else "")


def spmv_section(run, key, title, how, sources, prec, img):
    """RESULTS.md's section of one SpMV suite and precision."""
    mats = by_matrix(run.results, col)
    lines = [f"### SpMV: {key} suite, {prec}", "",
             f"{title} ({len(sources)} matrices). Source: {run.where()}. Reproduce: {spmv_command(run, how, prec)}.", ""]
    lines += table("spx format", "vs ALG1 batch", "vs ALG1 call", "vs ALG2 batch", "vs ALG2 call",
                   "vs faster cuSPARSE, batch (min)", "matrices")
    for v in variants_of(run):
        cells = []
        for ref, field in (("cusparse/alg1", "t_batch_s"), ("cusparse/alg1", "t_median_s"),
                           ("cusparse/alg2", "t_batch_s"), ("cusparse/alg2", "t_median_s")):
            cells.append(x(geomean([vs(mats[m], v, ref, field) for m in sources])))
        g, lo, arg = ratio_stats([(short(m), vs(mats[m], v, "best", "t_batch_s")) for m in sources])
        n = sum(1 for m in sources if ok(mats[m].get(v)))
        cells.append(f"{x(g)} ({x(lo)}: {arg})" if g else "-")
        lines.append(f"| `{v}` | " + " | ".join(cells) + f" | {n} of {len(sources)} |")
    lines.append("")
    if len(sources) > 12:
        worst = sorted(((vs(mats[m], "auto", "best", "t_batch_s") or 0, short(m)) for m in sources))[:5]
        lines += ["Lowest five for `auto` against the faster cuSPARSE algorithm (batch): "
                  + ", ".join(f"{m} {x(v)}" for v, m in worst) + ".", ""]
        return lines
    lines += table("matrix", "nnz", "ALG1 µs batch (call)", "ALG2 µs batch (call)", "auto µs batch (call)", "auto ran",
                   "auto vs faster cuSPARSE, batch / call", "fastest in the run", "auto of the fastest")
    for m in sources:
        row = mats[m]
        a = row["auto"]
        fastest = min((c for c in row if ok(row[c]) and row[c].get("t_batch_s")), key=lambda c: (row[c]["t_batch_s"], c))
        times = [f"{us(row[c]['t_batch_s'])} ({us(row[c]['t_median_s'])})" for c in ("cusparse/alg1", "cusparse/alg2", "auto")]
        ratios = f"{x(vs(row, 'auto', 'best', 't_batch_s'))} / {x(vs(row, 'auto', 'best', 't_median_s'))}"
        lines.append(f"| {short(m)} | {a.get('nnz')} | " + " | ".join(times) + f" | {a.get('format')}/{a.get('algo')} | "
                     f"{ratios} | {fastest} | {row[fastest]['t_batch_s'] / a['t_batch_s']:.2f} |")
    lines += ["", f"![auto against cuSPARSE per matrix, {key} suite, {prec}]({img})", ""]
    return lines


def auto_vs_fastest(run, sources):
    """(geomean, min, argmin, near count) of the fastest record's batch time over auto's."""
    mats = by_matrix(run.results, col)
    fr = []
    for m in sources:
        row = mats[m]
        times = [row[c]["t_batch_s"] for c in row if c != "auto" and ok(row[c]) and row[c].get("t_batch_s")]
        fr.append((short(m), min(min(times), row["auto"]["t_batch_s"]) / row["auto"]["t_batch_s"]))
    g, lo, arg = ratio_stats(fr)
    return g, lo, arg, sum(1 for _, v in fr if v >= NEAR_FASTEST), len(fr)


def auto_section(picks):
    """RESULTS.md's section of auto against the fastest format of each run."""
    lines = ["## SpMV: what `auto` picks against the fastest format", "",
             "For each matrix, the fastest record of the same run (any format or algorithm measured there, "
             "cuSPARSE included, batch time) over `auto`'s: 1.00 means `auto` picked the fastest. "
             "Only the formats each run measured compete (see its command above).", "",
             "| suite | precision | auto of the fastest, geomean | lowest | within 5 % of the fastest | source |",
             "|---|---|---|---|---|---|"]
    for key, _, _, sources in SPMV_SUITES:
        for prec in ("fp64", "fp32"):
            run = picks.get((key, prec))
            if not run:
                continue
            g, lo, arg, near, n = auto_vs_fastest(run, sources)
            lines.append(f"| {key} | {prec} | {g:.3f} | {lo:.3f} ({arg}) | {near} of {n} | "
                         f"{short_device(run.device)}, {run.day}, `{run.shown}` |")
    return lines + [""]


# ---------------------------------------------------------------- SpGEMM

def numeric_s(r):
    """Device seconds of the last timed run's numeric phase."""
    return (r.get("phases") or {}).get("numeric", 0.0)


def scratch_s(r):
    """One product from nothing on the device (scripts/spgemm_tables.py's measure)."""
    ph = r.get("phases") or {}
    plan = sum(ph.get(k, 0.0) for k in ("analyse", "reorder", "symbolic"))
    return plan if r.get("method") == "cusparse" else plan + ph.get("numeric", 0.0)


def run_s(r):
    """Seconds of the numeric run with C back on the host."""
    return r.get("numeric_s") or 0.0


SPGEMM_MEASURES = (("numeric", numeric_s), ("from nothing", scratch_s), ("run, C on the host", run_s))


def spgemm_ratios(run, sources):
    """{measure: [(matrix, cuSPARSE's best / spx)]} and per-matrix rows."""
    mats = by_matrix([r for r in run.results if r.get("name") != "-"], lambda r: r.get("name"))
    out, rows = {name: [] for name, _ in SPGEMM_MEASURES}, []
    skipped = {r.get("matrix"): r.get("status") for r in run.results if r.get("name") == "-"}
    for m in sources:
        row = mats.get(m, {})
        me = row.get("spx")
        if not ok(me):
            rows.append((m, None, (me or {}).get("status") or skipped.get(m) or "missing"))
            continue
        cus = {k: v for k, v in row.items() if k.startswith("cusparse") and ok(v)}
        cells = []
        for name, f in SPGEMM_MEASURES:
            if not cus or f(me) <= 0:
                cells.append(None)
                continue
            best = min(cus.items(), key=lambda kv: (f(kv[1]), kv[0]))
            out[name].append((short(m), f(best[1]) / f(me)))
            cells.append((f(me), f(best[1]), best[0].split("/")[-1]))
        rows.append((m, cells, me))
    return out, rows


def spgemm_section(run, title, suite, tb, img):
    """RESULTS.md's section of one SpGEMM area."""
    sources = suite_file(suite)
    ratios, rows = spgemm_ratios(run, sources)
    cmd = f"spx bench --op spgemm --backend cuda{' --transpose-b' if tb else ''} --suite bench/suites/{suite} --json FILE"
    lines = [f"### SpGEMM: {title}", "",
             f"Source: {run.where()}. Reproduce: `{cmd}` (gpu-check stage `spgemm`). Against cuSPARSE's fastest "
             "algorithm (ALG1-3) on each measure, every C verified against the CPU oracle. numeric: the device part "
             "of a re-run with new values; from nothing: one product on the device, plan and numeric (cuSPARSE's copy "
             "into C left out, in its favour); run: the numeric run with C back on the host.", "",
             "| measure | spx vs cuSPARSE's best, geomean | min | max | matrices |", "|---|---|---|---|---|"]
    for name, _ in SPGEMM_MEASURES:
        g, lo, arg = ratio_stats(ratios[name])
        hi = max(ratios[name], key=lambda kv: (kv[1], kv[0])) if ratios[name] else None
        lines.append(f"| {name} | {x(g)} | {x(lo)} ({arg}) | {x(hi and hi[1])} ({hi and hi[0]}) | {len(ratios[name])} |")
    lines += ["", "| matrix | nnz(C) | numeric ms: spx / cuSPARSE | from nothing ms | run ms | spx / ALG1 peak device MB |",
              "|---|---|---|---|---|---|"]
    for m, cells, me in rows:
        if cells is None:
            lines.append(f"| {short(m)} | - | {me} | | | |")
            continue
        txt = [f"{c[0] * 1e3:.2f} / {c[1] * 1e3:.2f} ({c[2]}, {c[1] / c[0]:.2f}x)" if c else "-" for c in cells]
        alg1 = by_matrix(run.results, lambda r: r.get("name")).get(m, {}).get("cusparse/alg1")
        peak_alg1 = f"{alg1['device_peak_bytes'] / 1e6:.0f}" if ok(alg1) else "-"
        peak = f"{me.get('device_peak_bytes', 0) / 1e6:.0f} / {peak_alg1}"
        lines.append(f"| {short(m)} | {me.get('nnz_c')} | " + " | ".join(txt) + f" | {peak} |")
    lines += ["", f"![spx against cuSPARSE's best per matrix, {title}]({img})", ""]
    return lines


# ---------------------------------------------------------------- solvers, distributed, peers

def persist_max_nnz():
    """auto's bound for the persistent solver path (SOLVE_PERSIST_MAX_NNZ in src/solve/solve_tuning.h)."""
    with open(os.path.join(REPO, "src", "solve", "solve_tuning.h")) as f:
        m = re.search(r"#define SOLVE_PERSIST_MAX_NNZ \(\(int64_t\)1 << (\d+)\)", f.read())
    return 1 << int(m.group(1))


def auto_path(r):
    """Whether a solve_cupy_check row ran the path `auto` takes: no path asked, `auto`, or the
    path forced that auto's rule picks for the row's plan (persistent on csr up to
    SOLVE_PERSIST_MAX_NNZ nonzeros, else graph); the other forced path is a comparison."""
    asked = r.get("path_asked", "auto")
    if asked == "auto":
        return True
    small_csr = str(r.get("spx_format", "")).startswith("csr") and (r.get("nnz") or 0) <= persist_max_nnz()
    return asked == ("persistent" if small_csr else "graph")


def solver_pick(runs):
    """The newest scripts/solve_cupy_check.py JSON with rows on auto's path."""
    return newest([r for r in runs if r.results and all("cupy_iter_s" in x and "spx_iter_s" in x for x in r.results)
                   and any(auto_path(x) for x in r.results)])


def spx_call_iter(r):
    """spx's whole solve call over its iterations (the time CuPy's figure counts too), or its
    iteration time where an older run recorded no whole call."""
    return r.get("spx_call_iter_s") or r.get("spx_iter_s")


def solver_rows(run):
    """[(matrix, CuPy's time per iteration / spx's, both whole solve calls)] over the solves both
    converged."""
    return [(r["matrix"], r["cupy_iter_s"] / spx_call_iter(r)) for r in run.results
            if auto_path(r) and r.get("spx_converged") and r.get("cupy_converged") and spx_call_iter(r)
            and r.get("cupy_iter_s")]


def solver_section(run):
    """RESULTS.md's section of CG against CuPy."""
    lines = ["## Solvers: CG against CuPy", "",
             f"Source: {run.where()}. Reproduce: `scripts/gpu-check.sh OUT build solve` "
             "(`scripts/solve_cupy_check.py`: CG to 1e-8, b = A·ones, x0 = 0; spx with `--format auto`, CuPy's "
             "`cupyx.scipy.sparse.linalg.cg` on the same matrix; time per iteration, CUDA events around the "
             "whole solve).", "",
             "| matrix | rows | nnz | spx format (path) | iterations spx / CuPy | spx ms/it, iteration alone | "
             "spx ms/it, whole call | CuPy ms/it, whole call | CuPy / spx, whole calls |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in filter(auto_path, run.results):
        lines.append(f"| {r['matrix']} | {r.get('rows')} | {r.get('nnz')} | {r.get('spx_format')} ({r.get('spx_path', '-')}) | "
                     f"{r.get('spx_iterations')} / {r.get('cupy_iterations')} | {r['spx_iter_s'] * 1e3:.4f} | "
                     f"{spx_call_iter(r) * 1e3:.4f} | {r['cupy_iter_s'] * 1e3:.3f} | "
                     f"{x(r['cupy_iter_s'] / spx_call_iter(r))} |")
    g, lo, arg = ratio_stats(solver_rows(run))
    return lines + ["", f"Geometric mean {x(g)} (lowest {x(lo)}: {arg}).", ""]


DIST_TIME = re.compile(r"^time\s+([0-9.]+) ms per SpMV", re.M)
DIST_MATRIX = re.compile(r"^matrix\s+(\S+)", re.M)


def dist_pick(dirs):
    """(folder path, shown, {matrix: {"one": ms, "mpi": ms, "nccl": ms}}) of the newest folder of
    distributed reports."""
    found = []
    for top, prefix in dirs:
        for root, subdirs, files in os.walk(top):
            subdirs.sort()
            if not any(f.startswith("one-1-") for f in files) or not any(f.startswith("two-nccl-") for f in files):
                continue
            rel = os.path.relpath(root, top).replace(os.sep, "/")
            folder = rel.split("/")[0] if rel != "." else os.path.basename(os.path.abspath(top))
            times = {}
            for name in sorted(files):
                m = re.match(r"(one-1|two-mpi|two-nccl)-.*\.txt$", name)
                if not m:
                    continue
                with open(os.path.join(root, name)) as f:
                    text = f.read()
                t, mat = DIST_TIME.search(text), DIST_MATRIX.search(text)
                if t and mat:
                    side = {"one-1": "one", "two-mpi": "mpi", "two-nccl": "nccl"}[m.group(1)]
                    times.setdefault(mat.group(1), {})[side] = float(t.group(1))
            if times:
                shown = f"{prefix}/{rel}" if rel != "." else prefix
                found.append(((folder_day(folder), -rel.count("/"), shown), folder, shown, times))
    if not found:
        return None
    _, folder, shown, times = max(found, key=lambda f: f[0])
    return folder, shown, times


def efficiency(t):
    """{transport: T1 / (2 T2)} of one matrix's times."""
    return {k: t["one"] / (2 * t[k]) for k in ("mpi", "nccl") if t.get(k) and t.get("one")}


def dist_section(pick):
    """RESULTS.md's section of the distributed runs."""
    folder, shown, times = pick
    m = re.search(r"-([0-9a-f]{7,12})(?:-|$)", folder)
    lines = ["## Distributed: two GPUs against one", "",
             f"Source: `{shown}/`: {device_of({}, folder)}, {folder_day(folder)}, "
             f"commit `{m.group(1) if m else 'unknown'}`. "
             "Reproduce: `mpiexec -n 1 spx spmv SRC --distributed --backend cuda --reps 100` and `mpiexec -n 2 ... "
             "--transport mpi|nccl` (docs/distributed.md). Time per SpMV of the slowest rank (100 back-to-back calls); "
             "efficiency = T1 / (2 T2), 1 = perfect strong scaling.", "",
             "| matrix | 1 GPU ms | 2 GPUs, MPI host-staged ms (efficiency) | 2 GPUs, NCCL ms (efficiency) |",
             "|---|---|---|---|"]
    for mat in sorted(times):
        t, e = times[mat], efficiency(times[mat])
        cells = [f"{t[k]:.3f} ({e[k]:.2f})" if k in e else "-" for k in ("mpi", "nccl")]
        lines.append(f"| {mat} | {t.get('one', 0):.3f} | " + " | ".join(cells) + " |")
    return lines + [""]


def peer_name(r):
    """A record's peer (its format or method), or None for spx's own and cuSPARSE."""
    name = r.get("method") or r.get("format") or ""
    return None if name in SPX_OWN or name.startswith("cusparse") else name


def peers_pick(runs):
    """The newest folder's peers*.json files that hold peer records, as Runs, each with the
    records of spx's own run beside it (.mine: the peers-spx-*.json files of its folder, which
    bench/peers/run.py reads, or the file's own spx records)."""
    cands = [r for r in runs if os.path.basename(r.path).startswith("peers") and any(peer_name(x) for x in r.results)]
    if not cands:
        return []
    top = max((r.day, r.folder) for r in cands)
    picked = sorted((r for r in cands if (r.day, r.folder) == top), key=lambda r: r.shown)
    for run in picked:
        here = os.path.dirname(run.path)
        run.mine = [x for r in runs if os.path.dirname(r.path) == here and os.path.basename(r.path).startswith("peers-spx")
                    for x in r.results]
    return picked


def spx_time(r, op):
    """spx's time against the peers: the whole call from device operands (SpGEMM), else the
    batch time (SpMV: back to back, as DASP is timed)."""
    return r.get("t_device_call_s") if op == "spgemm" else r.get("t_batch_s")


def peer_time_of(r, op):
    """A peer's time: its whole call (SpGEMM), else its batch time."""
    return r.get("t_median_s") if op == "spgemm" else r.get("t_batch_s")


def peer_ratios(peer_runs, subset=None):
    """{op: [(matrix, best peer's time / spx's, peer)]} over the peer files (op "spmv" or "spgemm")."""
    out = {}
    for run in peer_runs:
        op = "spgemm" if is_spgemm(run) else "spmv"
        mine = {}
        peers = {}
        for r in run.results + getattr(run, "mine", []):
            if not ok(r) and not (r.get("status") == "SPX_OK" and r.get("verified") in (1, True, "yes")):
                continue
            name = peer_name(r)
            if name:
                peers.setdefault(r["matrix"], []).append((name, r))
            elif (op == "spmv" and r.get("requested_format") == "auto") or (op == "spgemm" and r.get("name") == "spx"):
                mine[r["matrix"]] = r
        for m in sorted(peers):
            if m not in mine or (subset is not None and m not in subset):
                continue
            t_me = spx_time(mine[m], op)
            ts = [(peer_time_of(r, op), name) for name, r in peers[m] if peer_time_of(r, op)]
            if t_me and ts:
                t, name = min(ts)
                out.setdefault(op, []).append((m, t / t_me, name))
                first = mine[m].get("t_device_call_first_s") if op == "spgemm" else None
                if first:  # spx's first call in a context (its pool cold), beside the calls after it
                    out.setdefault("spgemm-first", []).append((m, t / first, name))
    return out


def peers_section(peer_runs):
    """RESULTS.md's section against the peers (or where they will come from)."""
    lines = ["## Against the best public peers", ""]
    if not peer_runs:
        return lines + ["No peers run is committed yet (bench/peers writes `bench/results/<run>/peers-*.json`). "
                        "Figures measured outside the repository are in the project's shared PEERS.md.", ""]
    pr = peer_ratios(peer_runs)
    lines += ["Sources: " + "; ".join(r.where() for r in peer_runs) + ". Ratio = the fastest peer's time over "
              "spx's on the same time field in the same run (SpMV: `auto`; SpGEMM: spx's default method).", "",
              *table("operation", "matrices", "spx vs the best peer, geomean", "lowest", "peers that were best")]
    for op in sorted(pr):
        g, lo, arg = ratio_stats([(short(m), v) for m, v, _ in pr[op]])
        names = sorted({p for _, _, p in pr[op]})
        label = {"spgemm": "spgemm (spx's calls after the first in a context)",
                 "spgemm-first": "spgemm (spx's first call in a context)"}.get(op, op)
        lines.append(f"| {label} | {len(pr[op])} | {x(g)} | {x(lo)} ({arg}) | {', '.join(names)} |")
    return lines + [""]


# ---------------------------------------------------------------- pictures

def svg_escape(s):
    """Text made safe for SVG."""
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def nice_step(hi):
    """A tick step giving at most 8 ticks up to hi."""
    for step in (0.25, 0.5, 1, 2, 5, 10, 20, 50):
        if hi / step <= 8:
            return step
    return 100


def hbar_svg(title, subtitle, labels, series, ref_label):
    """A horizontal grouped bar chart of ratios: a group per label, a bar per series
    ([(name, [value or None])]), a dashed line at 1 (ref_label), each bar's value at its end."""
    colours = ("#3a6ea5", "#e07b39", "#5aa05a", "#8c6bb1")
    bar, gap, left, width, top = 14, 10, 230, 440, 58
    n = len(labels)
    group = bar * len(series) + gap
    height = top + n * group + 40
    hi = max([v for _, vs in series for v in vs if v] + [1.0]) * 1.12
    step = nice_step(hi)
    hi = math.ceil(hi / step) * step
    sx = lambda v: left + v / hi * width  # noqa: E731
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 60}" height="{height}" '
           f'viewBox="0 0 {left + width + 60} {height}" font-family="sans-serif" font-size="12">',
           f'<rect width="100%" height="100%" fill="white"/>',
           f'<text x="10" y="20" font-size="15" font-weight="bold">{svg_escape(title)}</text>',
           f'<text x="10" y="38" fill="#444">{svg_escape(subtitle)}</text>']
    k = 0.0
    while k <= hi + 1e-9:
        xx = sx(k)
        out.append(f'<line x1="{xx:.1f}" y1="{top - 6}" x2="{xx:.1f}" y2="{height - 34}" stroke="#e4e4e4"/>')
        out.append(f'<text x="{xx:.1f}" y="{height - 20}" text-anchor="middle" fill="#444">{k:g}x</text>')
        k += step
    for i, label in enumerate(labels):
        y0 = top + i * group
        ym = y0 + bar * len(series) / 2 + 4
        out.append(f'<text x="{left - 8}" y="{ym:.1f}" text-anchor="end">{svg_escape(label)}</text>')
        for j, (_, vs) in enumerate(series):
            v = vs[i]
            if not v:
                continue
            y = y0 + j * bar
            out.append(f'<rect x="{left}" y="{y}" width="{sx(v) - left:.1f}" height="{bar - 2}" fill="{colours[j % 4]}"/>')
            out.append(f'<text x="{sx(v) + 4:.1f}" y="{y + bar - 4}" font-size="11">{v:.2f}</text>')
    xr = sx(1.0)
    out.append(f'<line x1="{xr:.1f}" y1="{top - 6}" x2="{xr:.1f}" y2="{height - 34}" stroke="#222" stroke-dasharray="4 3"/>')
    legend = [(name, colours[j % 4]) for j, (name, _) in enumerate(series)]
    lx = 10
    for name, c in legend:
        out.append(f'<rect x="{lx}" y="{height - 12}" width="10" height="10" fill="{c}"/>')
        out.append(f'<text x="{lx + 14}" y="{height - 3}" font-size="11">{svg_escape(name)}</text>')
        lx += 24 + 7 * len(name)
    out.append(f'<text x="{left + width + 55}" y="{height - 3}" text-anchor="end" font-size="11">'
               f'dashed: {svg_escape(ref_label)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- the summary (README block)

def subset_row(run, sources, subset):
    """(geomean batch, geomean call, min batch, argmin, count) of auto against the faster
    cuSPARSE algorithm over the subset of sources."""
    mats = by_matrix(run.results, col)
    pick = [m for m in sources if m in subset]
    gb, lo, arg = ratio_stats([(short(m), vs(mats[m], "auto", "best", "t_batch_s")) for m in pick])
    gc = geomean([vs(mats[m], "auto", "best", "t_median_s") for m in pick])
    return gb, gc, lo, arg, len(pick)


def peer_cell(pr_all, op, subset):
    """The best peer's figure over the matrices of subset (None: none measured there)."""
    rows = [(m, v, p) for m, v, p in pr_all.get(op, []) if subset is None or m in subset]
    if not rows:
        return None
    g, lo, arg = ratio_stats([(short(m), v) for m, v, _ in rows])
    text = f"{x(g)} vs {', '.join(sorted({p for _, _, p in rows}))} ({len(rows)} matrices, min {x(lo)})"
    first = [(short(m), v) for m, v, _ in pr_all.get(op + "-first", []) if subset is None or m in subset]
    if first:
        gf, lof, _ = ratio_stats(first)
        text += f"; spx's calls after the first in a context; its first call {x(gf)} (min {x(lof)})"
    return text


SPMV_KINDS = [  # the README's SpMV rows: (label, suite, matrices of it, what they are)
    ("SpMV, stencils", "large", {"gen:poisson3d:n=300", "gen:stencil27:n=160"}, "7- and 27-point, 27M and 4M rows"),
    ("SpMV, FEM / structural", "shared", set(suite_file("fem.txt")), "FEM matrices of the shared set"),
    ("SpMV, graphs and random", "large", {"gen:rmat:scale=23,ef=8,sym=1", "gen:powerlaw:m=4000000,k=8",
                                          "gen:uniform:m=16777216,k=8"}, "R-MAT 23, power-law 4M, uniform 16.8M"),
    ("SpMV, all shared matrices", "shared", None, "real matrices, most under 1M nonzeros"),
]
PENDING = "pending: bench/peers"


def when(run):
    """"device, date" of a Run."""
    return f"{short_device(run.device)}, {run.day}"


def peer_text(peers, op, subset):
    """The peers column of a row: the newest peers run's figure over subset, or pending."""
    pr, runs = peers
    cell = peer_cell(pr, op, subset)
    return f"{cell}, {when(runs[0])}" if cell else PENDING


def spmv_summary(picks, peers):
    """The README's SpMV rows (by kind of matrix, fp64; the large suite in fp32) and their bars."""
    suites = {k: s for k, _, _, s in SPMV_SUITES}
    rows, bars = [], []
    kinds = SPMV_KINDS + [("SpMV, fp32", "large", None, "the large suite")]
    for label, key, subset, what in kinds:
        prec = "fp32" if label.endswith("fp32") else "fp64"
        run = picks.get((key, prec))
        if not run:
            continue
        subset = subset or set(suites[key])
        gb, gc, lo, arg, n = subset_row(run, suites[key], subset)
        peer = PENDING if prec == "fp32" else peer_text(peers, "spmv", subset)
        rows.append([label, f"{what} ({n} matrices); `auto` vs the faster of cuSPARSE ALG1/ALG2, {prec}",
                     f"**{x(gb)}** batch, {x(gc)} per call (min {x(lo)}, {arg})", peer, when(run),
                     f"[SpMV]({PAGE}#{slug(f'SpMV: {key} suite, {prec}')})"])
        if prec == "fp64":
            bars.append((label.replace("SpMV, ", "SpMV ") + f" ({n}, {short_device(run.device)})", gb))
    return rows, bars


def auto_summary(picks):
    """The README's row of auto against the fastest format, pooled over the fp64 suites."""
    used = [(picks[(k, "fp64")], s) for k, _, _, s in SPMV_SUITES if (k, "fp64") in picks]
    if not used:
        return []
    fr = [auto_vs_fastest(run, s) for run, s in used]
    n = sum(f[4] for f in fr)
    g = math.exp(sum(math.log(f[0]) * f[4] for f in fr) / n)
    days = ", ".join(sorted({run.day for run, _ in used}))
    devs = ", ".join(sorted({short_device(run.device) for run, _ in used}))
    return [["SpMV, the `auto` pick", f"the fastest format of the same run over `auto`, {n} matrices "
             "(default, large, shared suites), fp64", f"**{g:.3f}** of the fastest (lowest {min(f[1] for f in fr):.3f})",
             "-", f"{devs}, {days}", f"[auto]({PAGE}#{slug('SpMV: what auto picks against the fastest format')})"]]


def spgemm_summary(gemm, peers):
    """The README's SpGEMM rows (A*A on the large suite, A*A^T on the quick one) and bars."""
    rows, bars = [], []
    for key, title, suite, _ in SPGEMM_AREAS[:2]:
        run = gemm.get(key)
        if not run:
            continue
        ratios, _ = spgemm_ratios(run, suite_file(suite))
        gn, lon, _ = ratio_stats(ratios["numeric"])
        gs, los, _ = ratio_stats(ratios["from nothing"])
        gr, lor, _ = ratio_stats(ratios["run, C on the host"])
        label = "SpGEMM, " + title.split(",")[0]
        rows.append([label, f"{len(ratios['numeric'])} matrices ({suite}); spx vs cuSPARSE's best of ALG1-3, fp64",
                     f"**{x(gn)}** numeric (min {x(lon)}), {x(gs)} from nothing on the device (min {x(los)}), "
                     f"{x(gr)} a run with C back on the host (min {x(lor)})",
                     # the peers run A*A (bench/peers): every product of their run on the A*A row
                     peer_text(peers, "spgemm", None) if key == SPGEMM_AREAS[0][0] else "- (the peers ran A·A)",
                     when(run),
                     f"[SpGEMM]({PAGE}#{slug(f'SpGEMM: {title}')})"])
        bars += [(f"{label} numeric", gn), (f"{label} from nothing", gs)]
    return rows, bars


def solver_summary(solver):
    """The README's CG row (against CuPy, the solvers' peer) and its bar."""
    if not solver:
        return [], []
    g, lo, _ = ratio_stats(solver_rows(solver))
    return ([["Solvers, CG", f"time per iteration of the whole solve call, {len(solver_rows(solver))} matrices, spx (`auto`'s path) vs CuPy's cg, fp64",
              f"**{x(g)}** vs CuPy (min {x(lo)})", "CuPy is the peer (cuSPARSE inside)", when(solver),
              f"[solvers]({PAGE}#{slug('Solvers: CG against CuPy')})"]], [("CG vs CuPy, per iteration", g)])


def dist_summary(dist):
    """The README's distributed row: the strong-scaling efficiencies with NCCL halos."""
    if not dist:
        return []
    folder, _, times = dist
    effs = [e for e in (efficiency(times[m]).get("nccl") for m in sorted(times)) if e]
    return [["Distributed SpMV", f"2 GPUs against 1, NCCL halos, {len(times)} matrices; efficiency T1 / (2 T2)",
             f"efficiency {min(effs):.2f} to {max(effs):.2f}", "-",
             f"{short_device(device_of({}, folder))}, {folder_day(folder)}",
             f"[distributed]({PAGE}#{slug('Distributed: two GPUs against one')})"]]


def summary(picks, gemm, solver, dist, peer_runs):
    """The rows of the "where spx stands" table and the picture's bars."""
    peers = (peer_ratios(peer_runs), peer_runs)
    spmv_rows, spmv_bars = spmv_summary(picks, peers)
    gemm_rows, gemm_bars = spgemm_summary(gemm, peers)
    cg_rows, cg_bars = solver_summary(solver)
    rows = spmv_rows + auto_summary(picks) + gemm_rows + cg_rows + dist_summary(dist)
    return rows, spmv_bars + gemm_bars + cg_bars


def readme_block(rows, img):
    """The README's generated block: the table, what the ratios mean, the picture."""
    head = ["| area | what is compared | spx's result | against the best peer | device, date | more |",
            "|---|---|---|---|---|---|"]
    body = ["| " + " | ".join(r) + " |" for r in rows]
    note = ("Ratios above 1: spx is faster (the other's time over spx's, same process, every result verified); "
            "batch = calls back to back, as in a solver's loop; per call = each call timed alone. "
            "Generated by `scripts/results_page.py` from the newest committed runs in `bench/results/`; "
            "\"pending\": the peers are measured beside spx by bench/peers once its runs are committed "
            "(figures measured outside the repository: the project's shared PEERS.md).")
    return [BEGIN] + head + body + ["", note, "", f"![where spx stands]({img})", END]


# ---------------------------------------------------------------- the page

def build(dirs):
    """{relative path: text} of every generated file, and the README block's lines."""
    runs = discover(dirs)
    picks = spmv_pick(runs)
    gemm = {}
    for key, _, suite, tb in SPGEMM_AREAS:
        r = newest([run for run in runs if spgemm_covers(run, suite_file(suite), tb)])
        if r:
            gemm[key] = r
    solver, dist, peer_runs = solver_pick(runs), dist_pick(dirs), peers_pick(runs)
    files = {}
    page = ["# spx results (generated)", "",
            "The current figures, generated by `python3 scripts/results_page.py` from the newest committed results "
            "in `bench/results/` (index: [bench/results/README.md](results/README.md)); do not edit by hand (ctest "
            "`results_page_check` fails when the page is not what the script makes of the committed results). Each "
            "table names its device, date, commit, source file and the command that reproduces it. Ratios are "
            "cuSPARSE's (or the peer's) time over spx's in the same process: above 1, spx is faster. `batch` = time per "
            "call of back-to-back calls (what an iterative solver sees; the peers' papers report this one), `call` = the "
            "median of single calls each timed alone (docs/design.md, \"Measuring\"). Older figures stay in their "
            "results folders; the lab notebook is [bench/NOTES.md](NOTES.md).", "",
            "## Where spx stands", ""]
    rows, bars = summary(picks, gemm, solver, dist, peer_runs)
    block = readme_block(rows, f"{IMG_DIR}/where-spx-stands.svg")
    page += [line.replace(f"({PAGE}#", "(#").replace(f"({IMG_DIR}/", "(img/") for line in block[1:-1]] + [""]
    files[f"{IMG_DIR}/where-spx-stands.svg"] = hbar_svg(
        "Where spx stands", "geometric means; ratio = the other's time / spx's (above 1: spx faster)",
        [b[0] for b in bars], [("spx against cuSPARSE (CG: against CuPy)", [b[1] for b in bars])], "1 = as fast")
    page += ["## SpMV against cuSPARSE", ""]
    for key, title, how, sources in SPMV_SUITES:
        for prec in ("fp64", "fp32"):
            run = picks.get((key, prec))
            if not run:
                page += [f"### SpMV: {key} suite, {prec}", "", "No committed run covers it (cuSPARSE ALG1, ALG2 and `auto` "
                         "on every matrix).", ""]
                continue
            img = f"spmv-{key}-{prec}.svg"
            section = spmv_section(run, key, title, how, sources, prec, img)
            page += [line.replace(f"]({img})", f"](img/{img})") for line in section]
            if len(sources) <= 12:
                mats = by_matrix(run.results, col)
                files[f"{IMG_DIR}/{img}"] = hbar_svg(
                    f"SpMV, {key} suite, {prec}: auto against cuSPARSE", f"{run.device}, {run.day}; batch time ratio",
                    [short(m) for m in sources],
                    [("vs ALG1", [vs(mats[m], "auto", "cusparse/alg1", "t_batch_s") for m in sources]),
                     ("vs ALG2", [vs(mats[m], "auto", "cusparse/alg2", "t_batch_s") for m in sources])], "1 = as fast")
    page += auto_section(picks)
    page += ["## SpGEMM against cuSPARSE", ""]
    for key, title, suite, tb in SPGEMM_AREAS:
        run = gemm.get(key)
        if not run:
            page += [f"### SpGEMM: {title}", "", "No committed run covers it.", ""]
            continue
        img = f"spgemm-{key}.svg"
        page += [line.replace(f"]({img})", f"](img/{img})") for line in spgemm_section(run, title, suite, tb, img)]
        ratios, _ = spgemm_ratios(run, suite_file(suite))
        order = [short(src) for src in suite_file(suite)]
        labels = sorted({m for name in ratios for m, _ in ratios[name]}, key=order.index)
        series = [(name, [dict(ratios[name]).get(m) for m in labels]) for name, _ in SPGEMM_MEASURES[:2]]
        files[f"{IMG_DIR}/{img}"] = hbar_svg(f"SpGEMM, {title}", f"{run.device}, {run.day}; cuSPARSE's best / spx",
                                             labels, series, "1 = as fast")
    page += solver_section(solver) if solver else ["## Solvers: CG against CuPy", "", "No committed run.", ""]
    page += dist_section(dist) if dist else ["## Distributed: two GPUs against one", "", "No committed run.", ""]
    page += peers_section(peer_runs)
    files[PAGE] = "\n".join(page).rstrip("\n") + "\n"
    used = [(f"SpMV: {k} suite, {p}", picks[(k, p)].shown, picks[(k, p)].device, picks[(k, p)].day)
            for k, _, _, _ in SPMV_SUITES for p in ("fp64", "fp32") if (k, p) in picks]
    used += [(f"SpGEMM: {t}", gemm[k].shown, gemm[k].device, gemm[k].day) for k, t, _, _ in SPGEMM_AREAS if k in gemm]
    if solver:
        used.append(("Solvers: CG against CuPy", solver.shown, solver.device, solver.day))
    if dist:
        used.append(("Distributed: two GPUs against one", dist[1] + "/", device_of({}, dist[0]), folder_day(dist[0])))
    used += [("Against the best public peers", r.shown, r.device, r.day) for r in peer_runs]
    return files, block, sources_block(used)


def splice(name, text, block):
    """text (of file name) with its lines from block's first to its last marker replaced by block."""
    lines = text.split("\n")
    begin, end = block[0], block[-1]
    if begin not in lines or end not in lines:
        raise SystemExit(f"results_page.py: {name} has no {begin} ... {end} block")
    i, j = lines.index(begin), lines.index(end)
    return "\n".join(lines[:i] + block + lines[j + 1:])


def sources_block(used):
    """The index's table of which file each part of the page comes from."""
    rel = lambda s: s[len(RESULTS_DIR) + 1:] if s.startswith(RESULTS_DIR + "/") else s  # noqa: E731
    rows = [f"| {what} | [{rel(src)}]({rel(src)}) | {dev}, {day} |" for what, src, dev, day in used]
    return ([SOURCES_BEGIN, "(Generated by `scripts/results_page.py`.)", "",
             "| bench/RESULTS.md section | file | device, date |", "|---|---|---|"] + rows + [SOURCES_END])


def main():
    """Writes (or with --check, compares) every generated file."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 when a file would change")
    ap.add_argument("--add", action="append", default=[], help="one more results folder (newest)")
    ap.add_argument("--out", help="write into this folder instead of the repository")
    a = ap.parse_args()
    dirs = [(os.path.join(REPO, RESULTS_DIR), RESULTS_DIR)] + [(d, os.path.basename(os.path.abspath(d))) for d in a.add]
    files, block, sources = build(dirs)
    for name, blk in ((README, block), (INDEX, sources)):
        with open(os.path.join(REPO, name)) as f:
            files[name] = splice(name, f.read(), blk)
    root = a.out or REPO
    changed = []
    for rel in sorted(files):
        path = os.path.join(root, rel)
        try:
            with open(path) as f:
                same = f.read() == files[rel]
        except OSError:
            same = False
        if same:
            continue
        changed.append(rel)
        if not a.check:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            with open(path + ".tmp", "w") as f:
                f.write(files[rel])
            os.replace(path + ".tmp", path)
    if a.check:
        if changed:
            print("results_page.py --check: not what the committed results make: " + ", ".join(changed)
                  + " (run python3 scripts/results_page.py and commit)", file=sys.stderr)
            return 1
        print(f"results_page.py --check: {len(files)} files up to date")
        return 0
    print(("wrote " + ", ".join(changed)) if changed else "nothing changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
