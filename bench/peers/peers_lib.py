# bench/peers/peers_lib.py: the peers harness's logic that needs no GPU (bench/peers/run.py drives it; tests/peers/test_peers.py checks it on the CPU): the peers and what each measures, the .spxcsr reader, x, the parsing of a patched peer's "SPXPEER" lines, failure classification, the checks of y and of C against references, records in `spx bench --json`'s shape, and the markdown tables beside spx's own records. NumPy is used when present and never required (small inputs in pure Python).
import array
import math
import re
import struct

try:
    import numpy as np
except ImportError:  # the CI machine: the pure-Python paths below
    np = None

# The peers: name -> operation, binary (in the build folder), algorithm and kernel as the records
# name them, and what the time includes.
PEERS = {
    "dasp": {"op": "spmv", "algo": "dasp", "kernel": "dasp_spmv2 + longPart_sum (fp64 MMA m8n8k4)",
             "repo": "SuperScientificSoftwareLaboratory/DASP"},
    "speck": {"op": "spgemm", "algo": "shared 48 KB (as shipped)", "kernel": "spECK hash/dense",
              "repo": "GPUPeople/spECK"},
    "speck-h100": {"op": "spgemm", "algo": "shared 227 KB (H100 opt-in)", "kernel": "spECK hash/dense",
                   "repo": "GPUPeople/spECK"},
    "opsparse": {"op": "spgemm", "algo": "opsparse", "kernel": "OpSparse binned hash",
                 "repo": "lorentzbf/OpSparse"},
    "nsparse": {"op": "spgemm", "algo": "hash (volta)", "kernel": "nsparse SpGEMM_Hash",
                "repo": "EBD-CREST/nsparse"},
}
SPMV_PEERS = [p for p in PEERS if PEERS[p]["op"] == "spmv"]
SPGEMM_PEERS = [p for p in PEERS if PEERS[p]["op"] == "spgemm"]

# Relative error (2-norm) a peer's y (SpMV) or C*r (SpGEMM) may show against the reference: fp64
# sums in another order differ by ~1e-15 relative; a dropped entry or a wrong column by far more.
TOL = 1e-10
MAGIC = b"SPXCSR1\0"


def x_value(j):
    """Entry j of x (and of SpGEMM's r): spx_peer_x in bench/peers/include/spx_peer.h."""
    return 0.5 + ((j * 2654435761) % 4294967296) / 4294967296.0


def x_vector(n):
    """x of n entries: a NumPy array when NumPy is there, else a list."""
    if np is not None:
        j = np.arange(n, dtype=np.uint64)
        return 0.5 + ((j * np.uint64(2654435761)) % np.uint64(4294967296)).astype(np.float64) / 4294967296.0
    return [x_value(j) for j in range(n)]


def read_spxcsr(path):
    """(m, n, rowptr, col, val) of a .spxcsr file: NumPy arrays when NumPy is there, else arrays."""
    with open(path, "rb") as f:
        head = f.read(32)
        if len(head) < 32 or head[:8] != MAGIC:
            raise ValueError(f"{path}: not a .spxcsr file")
        m, n, nnz = struct.unpack("<3q", head[8:])
        counts = [("i", 4, m + 1), ("i", 4, nnz), ("d", 8, nnz)]
        if np is not None:
            parts = [np.fromfile(f, dtype={"i": "<i4", "d": "<f8"}[t], count=c) for t, _, c in counts]
        else:
            parts = []
            for t, size, c in counts:
                a = array.array(t)
                a.frombytes(f.read(size * c))
                parts.append(a)
    if any(len(p) != c for p, (_, _, c) in zip(parts, counts)):
        raise ValueError(f"{path}: file ends early")
    return m, n, parts[0], parts[1], parts[2]


def read_vector(path, dtype="d"):
    """A peer's output vector (doubles, or int64 row pointers with dtype 'q')."""
    if np is not None:
        return np.fromfile(path, dtype="<f8" if dtype == "d" else "<i8")
    a = array.array(dtype)
    with open(path, "rb") as f:
        a.frombytes(f.read())
    return a


def csr_matvec(m, rowptr, col, val, x):
    """y = A*x (NumPy, else pure Python for small inputs)."""
    if np is not None:
        rows = np.repeat(np.arange(m), np.diff(np.asarray(rowptr, dtype=np.int64)))
        return np.bincount(rows, weights=np.asarray(val) * np.asarray(x)[np.asarray(col)], minlength=m)
    return [sum(val[k] * x[col[k]] for k in range(rowptr[i], rowptr[i + 1])) for i in range(m)]


def rel_error(y, ref):
    """||y - ref||_2 / ||ref||_2 (the plain norm when ref is 0); inf when the lengths differ or y
    holds NaN or inf."""
    if len(y) != len(ref):
        return math.inf
    if np is not None:
        y, ref = np.asarray(y, dtype=np.float64), np.asarray(ref, dtype=np.float64)
        if not np.all(np.isfinite(y)):
            return math.inf
        num, den = float(np.linalg.norm(y - ref)), float(np.linalg.norm(ref))
    else:
        if not all(math.isfinite(v) for v in y):
            return math.inf
        num = math.sqrt(sum((a - b) ** 2 for a, b in zip(y, ref)))
        den = math.sqrt(sum(b * b for b in ref))
    return num / den if den > 0 else num


# --- a patched peer's output ---------------------------------------------------------------

NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^[-+]?(inf|nan)$")


def parse_output(text):
    """The SPXPEER lines of a peer's output: {key: value} (numbers as int or float), with 'done'
    (the run reached its end), 'errors' (each error= line's text) and 'own_check'."""
    out = {"done": False, "errors": []}
    for line in text.splitlines():
        if not line.startswith("SPXPEER "):
            continue
        body = line[len("SPXPEER "):].strip()
        if body == "done":
            out["done"] = True
        elif body.startswith("error="):
            out["errors"].append(body[len("error="):])
        else:
            for word in body.split():
                key, eq, value = word.partition("=")
                if eq:
                    out[key] = _number(value)
    return out


def _number(s):
    """s as an int or a float where it reads as one, else s."""
    if not NUMBER.match(s):
        return s
    try:
        return int(s)
    except ValueError:
        return float(s)


SIGNALS = {4: "SIGILL", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM"}
OOM = re.compile(r"out of memory|cudaErrorMemoryAllocation|std::bad_alloc|cannot allocate memory", re.I)
ILLEGAL = re.compile(r"illegal memory access|illegal address|misaligned address|unspecified launch failure", re.I)


def classify(rc, timed_out, timeout_s, text, parsed):
    """Why a peer's run failed, as a status text ('out of memory', 'crash: SIGSEGV', 'timeout after
    30 s', ...), or None when it ran to its end."""
    if timed_out:
        return f"timeout after {timeout_s:g} s"
    if OOM.search(text):
        return "out of memory"
    if ILLEGAL.search(text):
        return "crash: " + ILLEGAL.search(text).group(0).lower()
    if rc is not None and rc < 0:
        return "crash: " + SIGNALS.get(-rc, f"signal {-rc}")
    if parsed["errors"]:
        return "failed: " + parsed["errors"][0]
    if rc:
        last = [line for line in text.splitlines() if line.strip()][-1:] or [""]
        return f"failed: exit {rc}" + (f" ({last[0].strip()[:120]})" if last[0] else "")
    if not parsed["done"]:
        return "failed: no result (the run ended early)"
    return None


# --- checks -----------------------------------------------------------------------------------

def check_spmv(y, ref, tol=TOL):
    """(status, verified, rel_error) of a peer's y against the reference A*x."""
    if len(y) != len(ref):
        return f"wrong result: y has {len(y)} entries, A {len(ref)} rows", 0, math.inf
    err = rel_error(y, ref)
    if not err <= tol:
        return f"wrong values: rel error {err:.3g}", 0, err
    return "SPX_OK", 1, err


def row_counts(rowptr):
    """The row lengths of a row-pointer array."""
    if np is not None:
        return np.diff(np.asarray(rowptr, dtype=np.int64))
    return [rowptr[i + 1] - rowptr[i] for i in range(len(rowptr) - 1)]


def check_spgemm(nnz_c, rowptr_c, y_c, ref, tol=TOL):
    """(status, verified, rel_error) of a peer's C against the reference: ref holds nnz (structural
    nnz(C), or None when unknown), counts (C's row lengths, or None) and y (A*(A*r)). C is checked
    by nnz(C), its rows' lengths and C*r; 'unverified' where no reference nnz was known."""
    m = len(ref["y"])
    if len(rowptr_c) != m + 1 or len(y_c) != m:
        return f"wrong result: C has {len(rowptr_c) - 1} rows, A {m}", 0, math.inf
    if ref.get("nnz") is not None and nnz_c != ref["nnz"]:
        return f"wrong nnz: {nnz_c} (expected {ref['nnz']})", 0, math.inf
    if ref.get("counts") is not None:
        got, want = row_counts(rowptr_c), ref["counts"]
        bad = int(np.count_nonzero(np.asarray(got) != np.asarray(want))) if np is not None else \
            sum(1 for a, b in zip(got, want) if a != b)
        if bad:
            return f"wrong row lengths in {bad} rows", 0, math.inf
    err = rel_error(y_c, ref["y"])
    if not err <= tol:
        return f"wrong values: C*r rel error {err:.3g}", 0, err
    if ref.get("nnz") is None:
        return "SPX_OK", 0, err  # values agree; nnz(C) had no reference
    return "SPX_OK", 1, err


# --- records --------------------------------------------------------------------------------

def giga(count, t, factor=2.0):
    """factor * count / t / 1e9 (GFLOPS of count multiply-adds), or None."""
    return factor * count / t / 1e9 if t and t > 0 and count is not None else None


def record(op, matrix, peer, m, n, nnz, status, verified, rel, parsed, wall_s, extra=None):
    """A result in `spx bench --json`'s shape (format = the peer's name), peer fields beside."""
    p = PEERS[peer]
    r = {"matrix": matrix, "rows": m, "cols": n, "nnz": nnz, "format": peer, "algo": p["algo"],
         "kernel": p["kernel"], "backend": "cuda", "precision": "fp64", "status": status,
         "verified": verified, "rel_error": None if rel is None or math.isinf(rel) else rel}
    if op == "spmv":
        for k in ("t_median_s", "t_batch_s", "batch_calls", "batches", "cusparse_t_median_s",
                  "cusparse_t_batch_s", "cusparse_batch_calls", "own_check"):
            r[k] = parsed.get(k)
        r["gflops"] = giga(nnz, r["t_median_s"])
        r["gflops_batch"] = giga(nnz, r["t_batch_s"])
    else:
        for k in ("t_median_s", "t_min_s", "t_max_s", "reps", "t_native_s", "nnz_c", "unsorted", "dynamic_shared"):
            if k in parsed:
                r[k] = parsed[k]
    r["wall_s"] = wall_s
    if extra:
        r.update(extra)
    return r


def clean(obj):
    """obj with every non-finite float as None and NumPy scalars as Python numbers (strict JSON)."""
    if isinstance(obj, dict):
        return {k: clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [clean(v) for v in obj]
    if hasattr(obj, "item") and not isinstance(obj, (str, bytes)):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def failed_record(op, matrix, peer, m, n, nnz, status, wall_s=None):
    """A row for a run that gave no figures (a failure, a skip)."""
    return record(op, matrix, peer, m, n, nnz, status, 0, None, {}, wall_s)


# --- spx's records ----------------------------------------------------------------------------

def spx_spmv_times(results):
    """{matrix: {...}} from `spx bench --json` results: auto's batch and per-call times and the
    format it chose, and cuSPARSE's per algorithm."""
    out = {}
    for r in results:
        if r.get("status") != "SPX_OK":
            continue
        e = out.setdefault(r["matrix"], {})
        if r.get("requested_format") == "auto":
            e["auto"] = {"t_batch_s": r.get("t_batch_s"), "t_median_s": r.get("t_median_s"),
                         "format": f"{r.get('format')}/{r.get('algo')}"}
        elif r.get("format") == "cusparse":
            e[f"cusparse/{r.get('algo')}"] = {"t_batch_s": r.get("t_batch_s"), "t_median_s": r.get("t_median_s")}
    return out


def spx_spgemm_times(results):
    """{matrix: {...}} from `spx bench --op spgemm --json` results: spx's time for one product
    from device-resident A (t_device_call_s where the record has it, else plan + first run less
    the uploads and C's download), its total_s, its oracle's nnz(C), cuSPARSE's best total."""
    out = {}
    for r in results:
        e = out.setdefault(r["matrix"], {})
        if r.get("oracle_nnz_c") is not None and r.get("oracle_nnz_c", -1) >= 0:
            e["oracle_nnz_c"] = r["oracle_nnz_c"]
        if r.get("status") != "SPX_OK":
            continue
        if r.get("method") == "spx":
            e["spx_total_s"] = r.get("total_s")
            if r.get("t_device_call_s") is not None:
                e["spx_t_s"], e["spx_kind"] = r["t_device_call_s"], "t_device_call_s"
            elif r.get("total_s") is not None:
                ph = r.get("phases") or {}
                e["spx_t_s"] = r["total_s"] - (ph.get("upload") or 0) - (ph.get("download") or 0)
                e["spx_kind"] = "total_s less upload and download"
            e["products"] = r.get("products")
        elif r.get("method") == "cusparse" and r.get("total_s") is not None:
            best = e.get("cusparse_total_s")
            e["cusparse_total_s"] = r["total_s"] if best is None else min(best, r["total_s"])
    return out


# --- tables -----------------------------------------------------------------------------------

def geomean(xs):
    """The geometric mean of positive numbers, or None."""
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def us(t):
    """Seconds as microseconds for a table cell."""
    return f"{t * 1e6:.1f}" if t else "-"


def ms(t):
    """Seconds as milliseconds for a table cell."""
    return f"{t * 1e3:.2f}" if t else "-"


def ratio(a, b):
    """a / b as a cell value, or None."""
    return a / b if a and b else None


def fx(x):
    """A ratio as a cell."""
    return f"{x:.2f}x" if x else "-"


def short(matrix):
    """A matrix source as a table shows it: a file's base name, a generator spec as is."""
    if matrix.startswith("gen:"):
        return matrix
    return re.sub(r"\.mtx(\.gz)?$", "", matrix.rsplit("/", 1)[-1])


def spmv_table(records, spx, device, date):
    """Markdown: DASP beside spx's auto and cuSPARSE, batch times on both sides (spx bench's
    protocol), ratios spx / DASP (DASP's time over spx's: above 1 spx is faster), then a summary."""
    lines = [f"SpMV fp64, {device}, {date}: DASP beside spx (times in us a call; batch: back-to-back "
             "calls between two CUDA events, spx bench's protocol on both sides; spx ÷ DASP = DASP's "
             "time over spx's, above 1 spx is faster)", "",
             "| matrix | nnz | DASP batch | spx auto batch | spx auto per call | cuSPARSE best batch (spx) | "
             "cuSPARSE batch (DASP's process) | spx ÷ DASP (batch) | spx ÷ DASP (spx per call) | DASP status |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    xb, xc, slower, failed, skipped = [], [], [], [], []
    for r in records:
        s = spx.get(r["matrix"], {})
        auto = s.get("auto", {})
        cu = [v["t_batch_s"] for k, v in s.items() if k.startswith("cusparse/") and v.get("t_batch_s")]
        ok = r["status"] == "SPX_OK" and r["verified"]
        b = ratio(r.get("t_batch_s"), auto.get("t_batch_s")) if ok else None
        c = ratio(r.get("t_batch_s"), auto.get("t_median_s")) if ok else None
        if b:
            xb.append(b)
            if b < 1:
                slower.append(f"{short(r['matrix'])} {b:.2f}x")
        if c:
            xc.append(c)
        if r["status"].startswith("skipped"):
            skipped.append(f"{short(r['matrix'])} ({r['status']})")
        elif r["status"] != "SPX_OK":
            failed.append(f"{short(r['matrix'])} ({r['status']})")
        lines.append(f"| {short(r['matrix'])} | {cell(r['nnz'])} | {us(r.get('t_batch_s'))} | {us(auto.get('t_batch_s'))} | "
                     f"{us(auto.get('t_median_s'))} | {us(min(cu) if cu else None)} | "
                     f"{us(r.get('cusparse_t_batch_s'))} | {fx(b)} | {fx(c)} | {status_cell(r)} |")
    lines += ["", f"spx ÷ DASP, geometric mean over {len(xb)} verified matrices: batch {fx(geomean(xb))}, "
              f"spx per call against DASP batch {fx(geomean(xc))}; spx slower (batch) on {len(slower)}"
              + (": " + ", ".join(slower) if slower else "") + f"; DASP failed on {len(failed)}"
              + (": " + "; ".join(failed) if failed else "")
              + (f"; skipped {len(skipped)}: " + "; ".join(skipped) if skipped else "")]
    return "\n".join(lines) + "\n"


def cell(v):
    """A value for a table, '-' when unknown."""
    return "-" if v is None else str(v)


def status_cell(r):
    """A record's status for a table: ok (verified), ok (unverified) or the failure."""
    if r["status"] == "SPX_OK":
        return "ok" + ("" if r["verified"] else " (nnz(C) unchecked)")
    return r["status"]


def spgemm_table(records, spx, peers, device, date):
    """Markdown: each peer's whole call beside spx's, per matrix (ms), the best verified peer and
    spx ÷ best peer (its time over spx's: above 1 spx is faster), then per-peer geometric means."""
    kinds = sorted({v.get("spx_kind") for v in spx.values() if v.get("spx_kind")})
    lines = [f"SpGEMM C = A*A fp64, {device}, {date}: one product from device-resident A, in ms (peers: "
             "each call whole on the host clock, C freed before it; spx: " + (", ".join(kinds) or "-") +
             "; spx ÷ peer = the peer's time over spx's, above 1 spx is faster)", "",
             "| matrix | nnz(C) | spx | spx total_s | " + " | ".join(peers) + " | best peer | spx ÷ best peer |",
             "|---|---|---|---|" + "---|" * len(peers) + "---|---|"]
    by = {}
    for r in records:
        by.setdefault(r["matrix"], {})[r["format"]] = r
    per_peer = {p: [] for p in peers}
    best_x = []
    for matrix, rs in by.items():
        s = spx.get(matrix, {})
        t_spx = s.get("spx_t_s")
        cells, best = [], None
        nnz_c = next((r.get("ref_nnz_c") for r in rs.values() if r.get("ref_nnz_c") is not None), None)
        for p in peers:
            r = rs.get(p)
            if r is None:
                cells.append("-")
                continue
            ok = r["status"] == "SPX_OK"
            cells.append(ms(r.get("t_median_s")) + ("" if r["verified"] else " (unchecked nnz)") if ok else r["status"])
            if ok and r["verified"]:
                per_peer[p].append(ratio(r["t_median_s"], t_spx))
                if best is None or r["t_median_s"] < best[1]:
                    best = (p, r["t_median_s"])
        bx = ratio(best[1], t_spx) if best else None
        if bx:
            best_x.append(bx)
        lines.append(f"| {short(matrix)} | {cell(nnz_c)} | {ms(t_spx)} | "
                     f"{ms(s.get('spx_total_s'))} | " + " | ".join(cells) +
                     f" | {best[0] + ' ' + ms(best[1]) if best else '-'} | {fx(bx)} |")
    lines.append("")
    for p in peers:
        xs = [x for x in per_peer[p] if x]
        fails = sum(1 for r in records if r["format"] == p and r["status"] != "SPX_OK"
                    and not r["status"].startswith("skipped"))
        lines.append(f"- spx ÷ {p}: geometric mean {fx(geomean(xs))} over {len(xs)} matrices, spx slower on "
                     f"{sum(1 for x in xs if x < 1)}; {p} failed on {fails}")
    lines.append(f"- spx ÷ best peer: geometric mean {fx(geomean(best_x))} over {len(best_x)} matrices, "
                 f"spx slower on {sum(1 for x in best_x if x < 1)}")
    return "\n".join(lines) + "\n"
