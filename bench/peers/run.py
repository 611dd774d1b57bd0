#!/usr/bin/env python3
# bench/peers/run.py: runs the public peers (bench/peers/README.md) on the matrices of spx bench's suites, each peer on each matrix in its own process under a timeout, checks every result against a reference computed here (SpMV: y against A*x; SpGEMM: nnz(C), C's row lengths and C*r against the structural product and A*(A*r)), and writes records in `spx bench --json`'s shape and a markdown table with spx's own figures from the same session beside them (--spx-json). A failure (crash, timeout, out of memory, wrong result) is a row, never the end.
#
#   run.py --bin DIR --op spmv|spgemm [--suite FILE]... [SRC]... [--spx-json FILE]... [--json OUT] [--md OUT]
#
# DIR is bench/peers/build.sh's output (the binaries, spx_export, BUILD_INFO.json). Exit 0 when
# every peer run was verified or failed as a recorded row, 1 on a harness error, 2 on bad usage.
import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "overhead"))
import peers_lib as pl  # noqa: E402
from suites import REPO, suite  # noqa: E402

try:
    import scipy.sparse as sp
except ImportError:
    sp = None

# A peer's run may take this long on top of --timeout per million nonzeros of A: DASP's host
# preprocessing and every peer's file read grow with the matrix.
TIMEOUT_PER_MNNZ_S = 0.5
# The structural product |A|*|A| is formed with scipy (nnz(C) and its row lengths) up to this
# many scalar products (~1 GB and a few seconds); beyond, nnz(C) comes from spx's oracle.
MAX_SCIPY_PRODUCTS = 2e8


def parse_args():
    ap = argparse.ArgumentParser(description="the public peers on spx bench's matrices, verified, beside spx")
    ap.add_argument("--bin", required=True, help="bench/peers/build.sh's output folder")
    ap.add_argument("--op", required=True, choices=["spmv", "spgemm"])
    ap.add_argument("--suite", action="append", default=[], help="a suite file (repeatable)")
    ap.add_argument("sources", nargs="*", help="matrix sources beside the suites")
    ap.add_argument("--peers", help="comma list (default: every peer of the operation)")
    ap.add_argument("--spx-json", action="append", default=[], help="spx bench's JSON of the same session")
    ap.add_argument("--timeout", type=float, default=60, help="seconds a peer's run may take (plus "
                    f"{TIMEOUT_PER_MNNZ_S} s a million nonzeros)")
    ap.add_argument("--deadline", type=float, default=0, help="seconds for the whole run: matrices left "
                    "when it passes are recorded as skipped (0: none)")
    ap.add_argument("--work", help="folder for the matrix files (default: a temporary one)")
    ap.add_argument("--device", help="the device's name for the tables (default: spx's JSON, else nvidia-smi)")
    ap.add_argument("--json", help="write the records here")
    ap.add_argument("--md", help="write the markdown table here")
    return ap.parse_args()


def device_name(args, spx_docs):
    """The device the tables name."""
    if args.device:
        return args.device
    for d in spx_docs:
        name = ((d.get("env") or {}).get("device") or {}).get("name")
        if name:
            return name
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=20).stdout.strip().splitlines()
        return out[0] if out else "unknown device"
    except (OSError, subprocess.SubprocessError):
        return "unknown device"


def load_spx(paths, op):
    """spx's records of the same session, by matrix, and the documents they came from."""
    docs, results = [], []
    for path in paths:
        with open(path) as f:
            d = json.load(f)
        docs.append(d)
        results += d.get("results", [])
    return (pl.spx_spmv_times(results) if op == "spmv" else pl.spx_spgemm_times(results)), docs


def export(bin_dir, src, path):
    """(m, n, nnz) of src written to path by spx_export, or an error text."""
    try:
        p = subprocess.run([os.path.join(bin_dir, "spx_export"), src, path], capture_output=True, text=True,
                           timeout=600, env=ENV)
    except subprocess.TimeoutExpired:
        return "export: timeout"
    words = p.stdout.split()
    if p.returncode or len(words) != 4:
        msg = p.stdout.strip()
        msg = msg[len(path):].strip() if msg.startswith(path) else msg  # "OUT error: why"
        return "export " + (msg or p.stderr.strip() or f"exit {p.returncode}")[-200:]
    return int(words[1]), int(words[2]), int(words[3])


class Reference:
    """What a matrix's results are checked against, computed here once (lazily)."""

    def __init__(self, path, op, spx_entry):
        self.path, self.op, self.spx_entry = path, op, spx_entry
        self._ref = None

    def get(self):
        if self._ref is None:
            self._ref = self._compute()
        return self._ref

    def _compute(self):
        m, n, rowptr, col, val = pl.read_spxcsr(self.path)
        x = pl.x_vector(n)
        if self.op == "spmv":
            return {"y": self._matvec(m, n, rowptr, col, val, x)}
        y = self._matvec(m, n, rowptr, col, val, self._matvec(m, n, rowptr, col, val, x))
        ref = {"y": y, "nnz": None, "counts": None, "nnz_source": None, "products": None}
        if pl.np is not None:
            lens = pl.np.diff(rowptr.astype(pl.np.int64))
            ref["products"] = int(lens[col].sum()) if len(col) else 0
        if sp is not None and ref["products"] is not None and ref["products"] <= MAX_SCIPY_PRODUCTS:
            P = sp.csr_matrix((pl.np.ones(len(col)), col, rowptr), shape=(m, n))
            C = P @ P  # every value 1: nothing cancels, so C's pattern is the structural product
            ref.update(nnz=int(C.nnz), counts=pl.np.diff(C.indptr), nnz_source="scipy |A|*|A|")
        elif self.spx_entry.get("oracle_nnz_c") is not None:
            ref.update(nnz=self.spx_entry["oracle_nnz_c"], nnz_source="spx oracle")
        return ref

    @staticmethod
    def _matvec(m, n, rowptr, col, val, x):
        if sp is not None:
            return sp.csr_matrix((val, col, rowptr), shape=(m, n)) @ x
        return pl.csr_matvec(m, rowptr, col, val, x)


def cuda_lib_env():
    """The environment with CUDA's library folders (nvcc's, /usr/local/cuda's) on LD_LIBRARY_PATH: the
    peers load libcusparse at run time and carry no run path, being buildable on another machine."""
    nvcc = shutil.which("nvcc")
    roots = [os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))] if nvcc else []
    dirs = [os.path.join(r, d) for r in roots + ["/usr/local/cuda"] for d in ("lib64", "lib", "targets/x86_64-linux/lib")]
    have = [d for d in dict.fromkeys(dirs) if os.path.isdir(d)]
    old = os.environ.get("LD_LIBRARY_PATH")
    return dict(os.environ, LD_LIBRARY_PATH=":".join(have + ([old] if old else [])))


ENV = cuda_lib_env()


def run_peer(binary, matrix_path, out_prefix, timeout):
    """(returncode or None, timed_out, output text, wall seconds) of one peer run."""
    env = dict(ENV, SPX_PEER_OUT=out_prefix)
    t0 = time.time()
    try:
        p = subprocess.run([binary, matrix_path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                           timeout=timeout, cwd=os.path.dirname(out_prefix))
        text, rc, timed_out = p.stdout.decode(errors="replace"), p.returncode, False
    except subprocess.TimeoutExpired as e:
        text, rc, timed_out = (e.stdout or b"").decode(errors="replace"), None, True
    return rc, timed_out, text, time.time() - t0


def verify(op, parsed, prefix, ref):
    """(status, verified, rel_error, extra fields) of a run that reached its end."""
    try:
        if op == "spmv":
            st, ok, err = pl.check_spmv(pl.read_vector(prefix + ".y"), ref.get()["y"])
            return st, ok, err, {}
        r = ref.get()
        st, ok, err = pl.check_spgemm(parsed.get("nnz_c"), pl.read_vector(prefix + ".rowptr", "q"),
                                      pl.read_vector(prefix + ".y"), r)
        extra = {"ref_nnz_c": r["nnz"], "ref_nnz_source": r["nnz_source"], "products": r["products"]}
        t = parsed.get("t_median_s")
        extra["gflops"] = pl.giga(r["products"], t)
        return st, ok, err, extra
    except (OSError, ValueError) as e:
        return f"failed: no output to check ({e})", 0, None, {}


def one_matrix(args, peers, src, idx, work, spx, deadline_hit):
    """The records of every peer on one matrix."""
    path = os.path.join(work, f"m{idx}.spxcsr")
    if deadline_hit:
        return [pl.failed_record(args.op, src, p, None, None, None, "skipped: the run's time budget ran out")
                for p in peers]
    got = export(args.bin, src, path)
    if isinstance(got, str):
        return [pl.failed_record(args.op, src, p, None, None, None, "skipped: " + got) for p in peers]
    m, n, nnz = got
    print(f"[{idx + 1}] {src}: {m} x {n}, {nnz} nonzeros", flush=True)
    records = []
    try:
        if args.op == "spgemm" and m != n:
            return [pl.failed_record(args.op, src, p, m, n, nnz, "skipped: A*A needs a square matrix")
                    for p in peers]
        ref = Reference(path, args.op, spx.get(src, {}))
        for p in peers:
            binary = os.path.join(args.bin, p)
            if not os.access(binary, os.X_OK):
                records.append(pl.failed_record(args.op, src, p, m, n, nnz, "skipped: not built"))
                continue
            prefix = os.path.join(work, f"m{idx}.{p}")
            rc, timed_out, text, wall = run_peer(binary, path, prefix, args.timeout + TIMEOUT_PER_MNNZ_S * nnz / 1e6)
            parsed = pl.parse_output(text)
            status = pl.classify(rc, timed_out, args.timeout, text, parsed)
            if status:
                r = pl.record(args.op, src, p, m, n, nnz, status, 0, None, parsed, wall, {"log_tail": text[-1500:]})
            else:
                st, ok, err, extra = verify(args.op, parsed, prefix, ref)
                r = pl.record(args.op, src, p, m, n, nnz, st, ok, err, parsed, wall, extra)
            records.append(r)
            print(f"    {p:<11} {r['status']:<40} {pl.ms(r.get('t_batch_s') or r.get('t_median_s'))} ms "
                  f"(wall {wall:.1f} s)", flush=True)
            for suffix in (".y", ".rowptr"):
                if os.path.exists(prefix + suffix):
                    os.remove(prefix + suffix)
    finally:
        if os.path.exists(path):
            os.remove(path)
    return records


def build_info(bin_dir):
    """bench/peers/build.sh's record of what it built (repositories, commits, flags)."""
    try:
        with open(os.path.join(bin_dir, "BUILD_INFO.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def main():
    args = parse_args()
    for k in ("bin", "json", "md", "work"):  # before the move to the repository's root below
        if getattr(args, k):
            setattr(args, k, os.path.abspath(getattr(args, k)))
    args.spx_json = [os.path.abspath(p) for p in args.spx_json]
    args.suite = [os.path.abspath(p) for p in args.suite]
    peers = args.peers.split(",") if args.peers else (pl.SPMV_PEERS if args.op == "spmv" else pl.SPGEMM_PEERS)
    bad = [p for p in peers if p not in pl.PEERS or pl.PEERS[p]["op"] != args.op]
    if bad:
        sys.exit(f"run.py: no {args.op} peer named {', '.join(bad)} (peers: {', '.join(pl.PEERS)})")
    sources = [s for f in args.suite for s in suite(f)] + args.sources
    if not sources:
        sys.exit("run.py: no matrices (--suite FILE or SRC)")
    if not os.access(os.path.join(args.bin, "spx_export"), os.X_OK):
        sys.exit(f"run.py: {args.bin}/spx_export missing (bench/peers/build.sh makes it)")
    spx, docs = load_spx(args.spx_json, args.op)
    work = args.work or tempfile.mkdtemp(prefix="spx-peers-")
    os.makedirs(work, exist_ok=True)
    t0, records = time.time(), []
    os.chdir(REPO)  # suite paths are relative to the repository's root
    try:
        for i, src in enumerate(sources):
            hit = bool(args.deadline) and time.time() - t0 > args.deadline
            records += one_matrix(args, peers, src, i, work, spx, hit)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    device = device_name(args, docs)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    if args.op == "spmv":
        md = pl.spmv_table(records, spx, device, date)
    else:
        md = pl.spgemm_table(records, spx, peers, device, date)
    print(md)
    doc = {"env": {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                   "device": device, "host": platform.node(), "peers": build_info(args.bin),
                   "spx_json": args.spx_json, "tolerance": pl.TOL, "seconds": round(time.time() - t0, 1)},
           "op": args.op, "results": records}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(pl.clean(doc), f, indent=1, allow_nan=False)
    if args.md:
        with open(args.md, "w") as f:
            f.write(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
