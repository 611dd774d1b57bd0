#!/usr/bin/env python3
# bench/peers/tests/test_peers.py: the peers harness on the CPU (ctest peers_harness, seconds): parsing of the patched peers' output (samples/, written from the patches' prints), failure classification, the checks that flag a wrong nnz(C), wrong row lengths or wrong values, the .spxcsr reader and x, the records' JSON shape and the tables' ratios; then bench/peers/run.py end to end on stand-in peers (small Python scripts) that succeed, return a wrong result, crash, run out of memory and hang. Pure Python; the NumPy paths too where NumPy is there.
import json
import math
import os
import struct
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS_DIR = os.path.dirname(HERE)
sys.path.insert(0, PEERS_DIR)
import peers_lib as pl  # noqa: E402

NUMPY = pl.np
try:
    import scipy.sparse  # noqa: F401 (run.py forms the structural product with it)
    SCIPY = True
except ImportError:
    SCIPY = False


def sample(name):
    with open(os.path.join(HERE, "samples", name)) as f:
        return f.read()


# A 4 x 4 matrix: rows of lengths 2, 1, 0, 3 (an empty row included), columns sorted.
ROWPTR = [0, 2, 3, 3, 6]
COL = [0, 2, 1, 0, 1, 3]
VAL = [2.0, -1.0, 3.0, 1.5, 4.0, -2.0]


def write_spxcsr(path, m, n, rowptr, col, val):
    """A .spxcsr file as spx_export writes it."""
    with open(path, "wb") as f:
        f.write(b"SPXCSR1\0" + struct.pack("<3q", m, n, len(col)))
        f.write(struct.pack(f"<{len(rowptr)}i", *rowptr) + struct.pack(f"<{len(col)}i", *col))
        f.write(struct.pack(f"<{len(val)}d", *val))


def dense(m, n, rowptr, col, val):
    a = [[0.0] * n for _ in range(m)]
    for i in range(m):
        for k in range(rowptr[i], rowptr[i + 1]):
            a[i][col[k]] += val[k]
    return a


def matvec(a, x):
    return [sum(v * x[j] for j, v in enumerate(row)) for row in a]


class WithoutNumpy:
    """Runs a block with peers_lib's pure-Python paths."""

    def __enter__(self):
        pl.np = None

    def __exit__(self, *exc):
        pl.np = NUMPY


class Parsing(unittest.TestCase):
    def test_dasp_ok(self):
        p = pl.parse_output(sample("dasp-ok.txt"))
        self.assertTrue(p["done"])
        self.assertEqual((p["m"], p["n"], p["nnz"]), (77, 77, 508))
        self.assertEqual(p["t_batch_s"], 3.875e-06)
        self.assertEqual(p["t_median_s"], 6.4e-06)
        self.assertEqual(p["batch_calls"], 157)
        self.assertEqual(p["cusparse_t_batch_s"], 4.25e-06)
        self.assertEqual(p["own_check"], "pass")
        self.assertIsNone(pl.classify(0, False, 30, sample("dasp-ok.txt"), p))

    def test_speck_ok(self):
        p = pl.parse_output(sample("speck-ok.txt"))
        self.assertEqual(p["nnz_c"], 24581200)
        self.assertEqual(p["reps"], 5)
        self.assertEqual((p["t_median_s"], p["t_min_s"], p["t_native_s"]), (0.00336, 0.00331, 0.003281))
        self.assertEqual(p["dynamic_shared"], 49152)
        self.assertEqual(p["unsorted"], 0)

    def test_failures(self):
        cases = [
            ("dasp-crash.txt", -11, False, "crash: SIGSEGV"),
            ("dasp-kernel-error.txt", 3, False, "crash: illegal memory access"),
            ("opsparse-oom.txt", -6, False, "out of memory"),
            ("nsparse-no-result.txt", 0, False, "failed: no result (the run ended early)"),
            ("nsparse-no-result.txt", None, True, "timeout after 30 s"),
            ("speck-ok.txt", 4, False, "failed: exit 4 (SPXPEER done)"),
        ]
        for name, rc, timed_out, want in cases:
            text = sample(name)
            self.assertEqual(pl.classify(rc, timed_out, 30, text, pl.parse_output(text)), want, name)

    def test_error_line(self):
        text = "SPXPEER error=/x.spxcsr: file ends early\n"
        self.assertEqual(pl.classify(2, False, 30, text, pl.parse_output(text)), "failed: /x.spxcsr: file ends early")

    def test_numbers(self):
        p = pl.parse_output("SPXPEER a=1 b=2.5e-3 c=-4 d=pass e=nan f=1.\nnot SPXPEER g=1\n")
        self.assertEqual((p["a"], p["b"], p["c"], p["d"], p["f"]), (1, 2.5e-3, -4, "pass", 1.0))
        self.assertTrue(math.isnan(p["e"]))
        self.assertNotIn("g", p)


class Inputs(unittest.TestCase):
    def test_x(self):
        self.assertEqual(pl.x_value(0), 0.5)
        self.assertEqual(pl.x_value(1), 0.5 + 2654435761 / 2 ** 32)
        self.assertEqual(pl.x_value(2), 0.5 + (2 * 2654435761 % 2 ** 32) / 2 ** 32)
        want = [pl.x_value(j) for j in range(1000)]
        self.assertEqual(list(pl.x_vector(1000)), want)
        with WithoutNumpy():
            self.assertEqual(list(pl.x_vector(1000)), want)
        self.assertTrue(all(0.5 <= v < 1.5 for v in want))

    def test_read_spxcsr(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "a.spxcsr")
            write_spxcsr(path, 4, 4, ROWPTR, COL, VAL)
            for ctx in (WithoutNumpy(), None):
                if ctx:
                    ctx.__enter__()
                try:
                    m, n, rp, col, val = pl.read_spxcsr(path)
                    self.assertEqual((m, n, list(rp), list(col), list(val)), (4, 4, ROWPTR, COL, VAL))
                    x = pl.x_vector(n)
                    self.assertEqual([round(v, 12) for v in pl.csr_matvec(m, rp, col, val, x)],
                                     [round(v, 12) for v in matvec(dense(4, 4, ROWPTR, COL, VAL), list(x))])
                finally:
                    if ctx:
                        ctx.__exit__()
            with open(path, "r+b") as f:
                f.truncate(60)
            self.assertRaises(ValueError, pl.read_spxcsr, path)
            with open(path, "wb") as f:
                f.write(b"%%MatrixMarket matrix coordinate real general\n")
            self.assertRaises(ValueError, pl.read_spxcsr, path)


class Checks(unittest.TestCase):
    def setUp(self):
        a = dense(4, 4, ROWPTR, COL, VAL)
        self.x = [pl.x_value(j) for j in range(4)]
        self.y = matvec(a, self.x)
        # C = A*A by hand, with its structure: the reference of the SpGEMM checks
        self.c = [[sum(a[i][k] * a[k][j] for k in range(4)) for j in range(4)] for i in range(4)]
        pattern = [[any(a[i][k] and a[k][j] for k in range(4)) for j in range(4)] for i in range(4)]
        self.counts = [sum(row) for row in pattern]
        self.rowptr_c = [0]
        for c in self.counts:
            self.rowptr_c.append(self.rowptr_c[-1] + c)
        self.ref = {"y": matvec(a, matvec(a, self.x)), "nnz": self.rowptr_c[-1], "counts": self.counts}

    def both(self, f):
        f()
        with WithoutNumpy():
            f()

    def test_spmv(self):
        def run():
            self.assertEqual(pl.check_spmv(list(self.y), self.y)[:2], ("SPX_OK", 1))
            y = list(self.y)
            y[3] *= 1 + 1e-6  # one entry a little off: past fp64's rounding, flagged
            st, ok, err = pl.check_spmv(y, self.y)
            self.assertTrue(st.startswith("wrong values") and not ok and err > pl.TOL, st)
            y = list(self.y)
            y[0] = float("nan")
            self.assertEqual(pl.check_spmv(y, self.y)[1], 0)
            self.assertTrue(pl.check_spmv(self.y[:3], self.y)[0].startswith("wrong result"))
        self.both(run)

    def test_spgemm(self):
        cy = matvec(self.c, self.x)

        def run():
            self.assertEqual(pl.check_spgemm(self.ref["nnz"], self.rowptr_c, cy, self.ref)[:2], ("SPX_OK", 1))
            st = pl.check_spgemm(self.ref["nnz"] - 1, self.rowptr_c, cy, self.ref)[0]
            self.assertEqual(st, f"wrong nnz: {self.ref['nnz'] - 1} (expected {self.ref['nnz']})")
            moved = list(self.rowptr_c)
            moved[1] += 1  # an entry moved from row 1 to row 0: nnz right, rows wrong
            self.assertEqual(pl.check_spgemm(self.ref["nnz"], moved, cy, self.ref)[0], "wrong row lengths in 2 rows")
            bad = list(cy)
            bad[0] += 0.25  # a wrong column or value in row 0
            self.assertTrue(pl.check_spgemm(self.ref["nnz"], self.rowptr_c, bad, self.ref)[0].startswith("wrong values"))
            nonnz = dict(self.ref, nnz=None, counts=None)
            self.assertEqual(pl.check_spgemm(7, self.rowptr_c, cy, nonnz)[:2], ("SPX_OK", 0))
            self.assertTrue(pl.check_spgemm(7, self.rowptr_c[:3], cy, self.ref)[0].startswith("wrong result"))
        self.both(run)


SPX_SPMV = {"results": [
    {"matrix": "a", "status": "SPX_OK", "requested_format": "auto", "format": "csr", "algo": "stream",
     "t_batch_s": 8e-6, "t_median_s": 12e-6},
    {"matrix": "a", "status": "SPX_OK", "requested_format": "cusparse", "format": "cusparse", "algo": "alg1",
     "t_batch_s": 15e-6, "t_median_s": 20e-6},
    {"matrix": "b", "status": "SPX_OK", "requested_format": "auto", "format": "csr", "algo": "vector",
     "t_batch_s": 5e-6, "t_median_s": 9e-6},
]}


class Records(unittest.TestCase):
    KEYS = {"matrix", "rows", "cols", "nnz", "format", "algo", "kernel", "backend", "precision", "status",
            "verified", "rel_error"}

    def test_spmv_record_and_table(self):
        p = pl.parse_output(sample("dasp-ok.txt"))
        ok = pl.record("spmv", "a", "dasp", 77, 77, 508, "SPX_OK", 1, 1e-16, dict(p, t_batch_s=10e-6), 0.4)
        bad = pl.record("spmv", "b", "dasp", 77, 77, 508, "SPX_OK", 1, 1e-16, dict(p, t_batch_s=4e-6), 0.4)
        crash = pl.failed_record("spmv", "c", "dasp", 77, 77, 508, "crash: SIGSEGV", 0.3)
        for r in (ok, bad, crash):
            self.assertTrue(self.KEYS <= set(r), self.KEYS - set(r))
            json.dumps(r, allow_nan=False)
        self.assertEqual(pl.clean({"a": [float("nan"), 1.5, float("inf")], "b": "x"}), {"a": [None, 1.5, None], "b": "x"})
        self.assertEqual(ok["format"], "dasp")
        self.assertAlmostEqual(ok["gflops_batch"], 2 * 508 / 10e-6 / 1e9)
        self.assertEqual(ok["own_check"], "pass")
        spx = pl.spx_spmv_times(SPX_SPMV["results"])
        self.assertEqual(spx["a"]["auto"]["format"], "csr/stream")
        md = pl.spmv_table([ok, bad, crash], spx, "NVIDIA H100", "2026-12-08")
        self.assertIn("NVIDIA H100, 2026-12-08", md)
        self.assertIn("| a | 508 | 10.0 | 8.0 | 12.0 | 15.0 | 4.2 | 1.25x | 0.83x | ok |", md)
        self.assertIn("| b | 508 | 4.0 | 5.0 | 9.0 | - | 4.2 | 0.80x | 0.44x | ok |", md)
        self.assertIn("| c | 508 | - | - | - | - | - | - | - | crash: SIGSEGV |", md)
        self.assertIn(f"batch {math.sqrt(1.25 * 0.8):.2f}x", md)
        self.assertIn("spx slower (batch) on 1: b 0.80x; DASP failed on 1: c (crash: SIGSEGV)", md)

    def test_spgemm_table(self):
        spx = pl.spx_spgemm_times([
            {"matrix": "p", "method": "spx", "status": "SPX_OK", "total_s": 0.005, "oracle_nnz_c": 100,
             "phases": {"upload": 0.001, "download": 0.002}, "products": 300},
            {"matrix": "q", "method": "spx", "status": "SPX_OK", "total_s": 0.009, "t_device_call_s": 0.004,
             "oracle_nnz_c": 50},
            {"matrix": "q", "method": "cusparse", "status": "SPX_OK", "total_s": 0.02},
        ])
        self.assertAlmostEqual(spx["p"]["spx_t_s"], 0.002)
        self.assertEqual(spx["p"]["spx_kind"], "total_s less upload and download")
        self.assertEqual((spx["q"]["spx_t_s"], spx["q"]["spx_kind"]), (0.004, "t_device_call_s"))
        self.assertEqual(spx["q"]["cusparse_total_s"], 0.02)
        rec = []
        for matrix, peer, t, status in [("p", "speck", 0.003, "SPX_OK"), ("p", "opsparse", 0.001, "wrong nnz: 99 (expected 100)"),
                                        ("q", "speck", 0.002, "SPX_OK"), ("q", "opsparse", 0.008, "SPX_OK")]:
            ok = status == "SPX_OK"
            rec.append(pl.record("spgemm", matrix, peer, 10, 10, 30, status, int(ok), 1e-16 if ok else None,
                                 {"t_median_s": t, "nnz_c": 100}, 1.0, {"ref_nnz_c": 100 if matrix == "p" else 50}))
        md = pl.spgemm_table(rec, spx, ["speck", "opsparse"], "NVIDIA H200", "2026-12-08")
        self.assertIn("| p | 100 | 2.00 | 5.00 | 3.00 | wrong nnz: 99 (expected 100) | speck 3.00 | 1.50x |", md)
        self.assertIn("| q | 50 | 4.00 | 9.00 | 2.00 | 8.00 | speck 2.00 | 0.50x |", md)
        self.assertIn("- spx ÷ speck: geometric mean 0.87x over 2 matrices, spx slower on 1; speck failed on 0", md)
        self.assertIn("- spx ÷ opsparse: geometric mean 2.00x over 1 matrices, spx slower on 0; opsparse failed on 1", md)
        self.assertIn("t_device_call_s, total_s less upload and download", md)


# Stand-in peers for run.py: each reads its .spxcsr with peers_lib, as the patched ones do, and
# behaves as its name says; matrices whose source names "wrong" get a dropped entry.
FAKE_PEER = textwrap.dedent("""\
    #!{python}
    import os, sys, time, struct
    name, path = os.path.basename(sys.argv[0]), sys.argv[1]
    with open(path, "rb") as f:
        b = f.read()
    m, n, nnz = struct.unpack_from("<3q", b, 8)
    rp = struct.unpack_from(f"<{{m + 1}}i", b, 32)
    col = struct.unpack_from(f"<{{nnz}}i", b, 32 + 4 * (m + 1))
    val = struct.unpack_from(f"<{{nnz}}d", b, 32 + 4 * (m + 1 + nnz))
    out = os.environ["SPX_PEER_OUT"]
    wrong = os.path.exists(path + ".wrong")
    print(f"SPXPEER matrix m={{m}} n={{n}} nnz={{nnz}}", flush=True)
    x = [0.5 + ((j * 2654435761) % 4294967296) / 4294967296.0 for j in range(n)]
    def write(suffix, fmt, data):
        with open(out + suffix, "wb") as f:
            f.write(struct.pack(f"<{{len(data)}}{{fmt}}", *data))
    if name == "dasp":
        y = [sum(val[k] * x[col[k]] for k in range(rp[i], rp[i + 1]) if not (wrong and k == 0)) for i in range(m)]
        write(".y", "d", y)
        print("SPXPEER t_median_s=1e-05 t_batch_s=5e-06 batch_calls=200 batches=5\\nSPXPEER own_check=pass\\nSPXPEER done")
    elif name == "speck":
        a = [dict() for _ in range(m)]
        for i in range(m):
            for k in range(rp[i], rp[i + 1]):
                for kk in range(rp[col[k]], rp[col[k] + 1]):
                    a[i][col[kk]] = a[i][col[kk]] + val[k] * val[kk] if col[kk] in a[i] else val[k] * val[kk]
        if wrong:
            a[0].pop(next(iter(a[0])))
        rowptr = [0]
        for row in a:
            rowptr.append(rowptr[-1] + len(row))
        write(".rowptr", "q", rowptr)
        write(".y", "d", [sum(v * x[j] for j, v in row.items()) for row in a])
        print(f"SPXPEER t_median_s=0.002 t_min_s=0.002 t_max_s=0.003 reps=5\\nSPXPEER nnz_c={{rowptr[-1]}} unsorted=0\\nSPXPEER done")
    elif name == "opsparse":
        print("out of memory in src/opsparse.cu at line 61", flush=True)
        os.abort()
    elif name == "nsparse":
        time.sleep(30)
    elif name == "speck-h100":
        os.kill(os.getpid(), 11)
    """)

FAKE_EXPORT = textwrap.dedent("""\
    #!{python}
    import struct, sys
    src, out = sys.argv[1], sys.argv[2]
    if src.startswith("missing"):
        print(out + " error: " + src + ": cannot open"); sys.exit(1)
    m = 5 if "rect" not in src else 4
    rp, col, val = [0, 2, 3, 5, 6, 8], [0, 3, 1, 0, 4, 2, 1, 4], [2.0, -1.0, 3.0, 1.5, 4.0, -2.0, 0.5, 1.0]
    if m == 4:
        rp, col, val = rp[:5], col[:6], val[:6]
    with open(out, "wb") as f:
        f.write(b"SPXCSR1\\0" + struct.pack("<3q", m, 5, len(col)) + struct.pack(f"<{{len(rp)}}i", *rp)
                + struct.pack(f"<{{len(col)}}i", *col) + struct.pack(f"<{{len(val)}}d", *val))
    if "wrong" in src:
        open(out + ".wrong", "w").close()
    print(out, m, 5, len(col))
    """)


class EndToEnd(unittest.TestCase):
    def run_harness(self, op, sources, spx_json=None, peers=None):
        d = self.tmp.name
        args = [sys.executable, os.path.join(PEERS_DIR, "run.py"), "--bin", d, "--op", op, "--timeout", "2",
                "--json", os.path.join(d, op + ".json"), "--md", os.path.join(d, op + ".md"), "--device", "test"]
        if spx_json:
            args += ["--spx-json", spx_json]
        if peers:
            args += ["--peers", peers]
        p = subprocess.run(args + sources, capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr + p.stdout)
        with open(os.path.join(d, op + ".json")) as f:
            doc = json.load(f)
        return {(r["matrix"], r["format"]): r for r in doc["results"]}, doc

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        for name in ("dasp", "speck", "speck-h100", "opsparse", "nsparse"):
            self.script(name, FAKE_PEER)
        self.script("spx_export", FAKE_EXPORT)

    def tearDown(self):
        self.tmp.cleanup()

    def script(self, name, text):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            f.write(text.format(python=sys.executable, peers_dir=PEERS_DIR))
        os.chmod(path, 0o755)

    def test_spmv(self):
        spx = os.path.join(self.tmp.name, "spx.json")
        with open(spx, "w") as f:
            json.dump({"env": {"device": {"name": "X"}}, "results": [dict(r, matrix="gen:ok")
                                                                     for r in SPX_SPMV["results"][:2]]}, f)
        got, doc = self.run_harness("spmv", ["gen:ok", "gen:wrong", "missing.mtx"], spx)
        self.assertEqual(doc["op"], "spmv")
        ok = got[("gen:ok", "dasp")]
        self.assertEqual((ok["status"], ok["verified"], ok["rows"], ok["nnz"]), ("SPX_OK", 1, 5, 8))
        self.assertLess(ok["rel_error"], 1e-15)
        self.assertEqual(ok["t_batch_s"], 5e-06)
        self.assertTrue(got[("gen:wrong", "dasp")]["status"].startswith("wrong values"))
        self.assertEqual(got[("missing.mtx", "dasp")]["status"], "skipped: export error: missing.mtx: cannot open")
        with open(os.path.join(self.tmp.name, "spmv.md")) as f:
            md = f.read()
        self.assertIn("| gen:ok | 8 | 5.0 | 8.0 | 12.0 | 15.0 | - | 0.63x | 0.42x | ok |", md)
        self.assertIn("| missing | - | - |", md)
        self.assertIn("DASP failed on 1: gen:wrong (wrong values", md)
        self.assertIn("skipped 1: missing (skipped: export error: missing.mtx: cannot open)", md)

    def test_spgemm(self):
        got, _ = self.run_harness("spgemm", ["gen:ok", "gen:rect"])
        ok = got[("gen:ok", "speck")]
        self.assertEqual((ok["status"], ok["verified"]), ("SPX_OK", 1) if SCIPY else ("SPX_OK", 0))
        if SCIPY:
            self.assertEqual(ok["ref_nnz_c"], ok["nnz_c"])
        self.assertEqual(got[("gen:ok", "opsparse")]["status"], "out of memory")
        self.assertEqual(got[("gen:ok", "nsparse")]["status"], "timeout after 2 s")
        self.assertEqual(got[("gen:ok", "speck-h100")]["status"], "crash: SIGSEGV")
        self.assertEqual(got[("gen:rect", "speck")]["status"], "skipped: A*A needs a square matrix")
        got, _ = self.run_harness("spgemm", ["gen:wrong"], peers="speck")
        self.assertTrue(got[("gen:wrong", "speck")]["status"].startswith("wrong"), got[("gen:wrong", "speck")])


if __name__ == "__main__":
    unittest.main(verbosity=1)
