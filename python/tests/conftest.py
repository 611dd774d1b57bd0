# python/tests/conftest.py: shared fixtures of the spx pytest suite: contexts per backend (CUDA only with a GPU), the DESIGN.md section 8 edge-case matrices built with scipy, the shared matrices, reference checks against scipy (vectors and 2-D blocks), a spy that records which C entry a Plan called, and refused calls as operations (the leak tests).
import os

import numpy as np
import pytest

sp = pytest.importorskip("scipy.sparse")
import spx  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.environ.get("SPX_SHARED_MATRICES") or os.path.join(REPO, "..", "shared", "matrices")
TEST_DATA = os.path.join(REPO, "tests", "data")


def _gpu_present():
    try:
        return spx.Context().backend == "cuda"
    except spx.Error:
        return False


GPU = _gpu_present()
BACKENDS = ["cpu"] + (["cuda"] if GPU else [])
DTYPES = [np.float64, np.float32]
# |y - ref| <= TOL * (|A| |x|) entry by entry (ref in fp64 from scipy)
TOL = {np.float64: 1e-12, np.float32: 2e-5}


@pytest.fixture(scope="session")
def cpu():
    return spx.Context("cpu")


@pytest.fixture(scope="session", params=BACKENDS)
def ctx(request):
    return spx.Context(request.param)


def from_row_lengths(lengths, n, seed=1, dtype=np.float64):
    """A csr_array with the given row lengths, distinct sorted columns in [0, n), values in
    [-1, 1] (no zeros)."""
    rng = np.random.default_rng(seed)
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    cols = [np.sort(rng.choice(n, size=k, replace=False)) for k in lengths]
    indices = np.concatenate(cols).astype(np.int32) if cols else np.zeros(0, np.int32)
    data = rng.uniform(0.5, 1.0, indptr[-1]) * rng.choice([-1.0, 1.0], indptr[-1])
    return sp.csr_array((data.astype(dtype), indices, indptr), shape=(len(lengths), n))


def random_csr(m, n, k, seed=1, dtype=np.float64):
    """A csr_array with about k entries per row (0..2k, at most n)."""
    rng = np.random.default_rng(seed + 1000)
    return from_row_lengths(np.minimum(rng.integers(0, 2 * k + 1, m), n), n, seed, dtype)


def edge_cases():
    """DESIGN.md section 8: 0x0, 1x1, empty rows, empty columns, one dense row, rows of 31-33
    and 511-513 entries, sizes 97 off a power of two, tall, wide, no entries at all."""
    one = sp.csr_array(np.array([[2.5]]))
    rows_empty = random_csr(64, 64, 4, seed=2)
    rows_empty = sp.csr_array(sp.diags((np.arange(64) % 3 != 0).astype(float)) @ rows_empty)
    rows_empty.eliminate_zeros()
    rows_empty.sum_duplicates()
    cols_empty = random_csr(64, 64, 4, seed=3) @ sp.diags((np.arange(64) % 4 != 1).astype(float))
    cols_empty = sp.csr_array(cols_empty)
    cols_empty.eliminate_zeros()
    cols_empty.sum_duplicates()  # scipy's product leaves the columns unsorted
    dense = np.full(300, 3)
    dense[7] = 300
    return {
        "0x0": sp.csr_array((0, 0)),
        "1x1": one,
        "empty_rows": rows_empty,
        "empty_cols": cols_empty,
        "dense_row": from_row_lengths(dense, 300, seed=4),
        "rows_31_33": from_row_lengths(np.tile([31, 32, 33], 20), 600, seed=5),
        "rows_511_513": from_row_lengths(np.tile([511, 512, 513], 3), 1200, seed=6),
        "pow2_minus_97": random_csr(1024 - 97, 1024 - 97, 5, seed=7),
        "pow2_plus_97": random_csr(1024 + 97, 1024 + 97, 5, seed=8),
        "tall": random_csr(700, 60, 4, seed=9),
        "wide": random_csr(60, 700, 20, seed=10),
        "no_entries": sp.csr_array((20, 30)),
    }


def shared(name):
    """The path of a shared matrix; skips when the shared folder is not there."""
    path = os.path.join(SHARED, name + ".mtx.gz")
    if not os.path.exists(path):
        pytest.skip(f"shared matrix {path} not found (set SPX_SHARED_MATRICES)")
    return path


def vector(n, dtype=np.float64, seed=11):
    """A reproducible vector of n values in [-1, 1]."""
    return np.random.default_rng(seed).uniform(-1, 1, n).astype(dtype)


def assert_spmv(y, A, x, dtype, alpha=1.0, beta=0.0, y0=None):
    """y agrees with alpha*A@x + beta*y0 computed by scipy in fp64, entry by entry within
    TOL[dtype] of the magnitudes summed."""
    A64 = sp.csr_array(A, dtype=np.float64)
    x64 = np.asarray(x, dtype=np.float64)
    ref = alpha * (A64 @ x64)
    scale = abs(alpha) * (abs(A64) @ np.abs(x64))
    if beta != 0.0:
        ref = ref + beta * np.asarray(y0, dtype=np.float64)
        scale = scale + abs(beta) * np.abs(np.asarray(y0, dtype=np.float64))
    y = np.asarray(y)
    assert y.dtype == dtype
    assert y.shape == ref.shape
    err = np.abs(y.astype(np.float64) - ref)
    bound = TOL[dtype] * scale + np.finfo(dtype).tiny
    worst = int(np.argmax(err - bound)) if len(err) else 0
    assert np.all(err <= bound), f"row {worst}: {y[worst]} vs {ref[worst]} (bound {bound[worst]})"


def block(rows, k, dtype=np.float64, order="C", seed=11):
    """A reproducible rows x k NumPy array of values in [-1, 1] in the given order."""
    a = np.random.default_rng(seed).uniform(-1, 1, (rows, k)).astype(dtype)
    return np.asarray(a, order=order)


def assert_spmm(Y, A, X, dtype, alpha=1.0, beta=0.0, Y0=None):
    """Y (host) agrees with alpha*A@X + beta*Y0 (scipy, fp64) column by column, entry by entry
    within assert_spmv's tolerance."""
    Y, X = np.asarray(Y), np.asarray(X)
    assert Y.dtype == dtype and Y.shape == (A.shape[0], X.shape[1])
    for j in range(X.shape[1]):
        assert_spmv(Y[:, j], A, X[:, j], dtype, alpha, beta, None if Y0 is None else np.asarray(Y0)[:, j])


class Spy:
    """Stands for a plan's C object: records each method called (name, arguments), then calls it;
    other attributes are the object's."""

    def __init__(self, plan):
        self.plan, self.calls = plan, []

    def __getattr__(self, name):
        attr = getattr(self.plan, name)
        if not callable(attr):
            return attr

        def call(*args):
            self.calls.append((name, args))
            return attr(*args)
        return call


def refused(fn, exc):
    """A call that must raise exc, as an operation."""
    def op():
        try:
            fn()
        except exc:
            return
        raise AssertionError("did not raise")
    return op
