# python/tests/test_spmm.py: SpMM through Plan.spmm and plan @ X on CPU plans against scipy's A @ X: every CPU format (with and without an SpMM kernel: spmm_info says which), k in {1, 2, 3, 8, 33}, C and Fortran order, slices taken without a copy (ld beyond a line, padding left alone), alpha/beta cases, fp64 and fp32, the plan's order, the layout a new Y takes, and every refusal (Y untouched).
import numpy as np
import pytest
import scipy.sparse as sp

import spx
from conftest import DTYPES, assert_spmm, assert_spmv, block, edge_cases, random_csr

KS = [1, 2, 3, 8, 33]
ORDERS = ["C", "F"]


def cpu_formats():
    """The formats with a CPU SpMV in this build."""
    return [f["name"] for f in spx.formats() if f["available"] and f["cpu"]]


@pytest.fixture(scope="module")
def square(cpu):
    """A 40 x 40 plan and its matrix, for the refusals."""
    A = random_csr(40, 40, 4, seed=3)
    return spx.plan(A, format="csr", context=cpu), A


@pytest.mark.parametrize("fmt", cpu_formats())
@pytest.mark.parametrize("dtype", DTYPES, ids=["fp64", "fp32"])
@pytest.mark.parametrize("order", ORDERS)
def test_against_scipy_every_k(cpu, fmt, dtype, order):
    A = random_csr(300, 250, 6, seed=21, dtype=dtype)
    p = spx.plan(A, format=fmt, context=cpu)
    for k in KS:
        X = block(250, k, dtype, order)
        Y = p @ X
        assert isinstance(Y, np.ndarray) and Y.flags[order + "_CONTIGUOUS"], (k, Y.flags)
        assert_spmm(Y, A, X, dtype)
        Y0 = block(300, k, dtype, order, seed=5)
        Y = Y0.copy(order=order)
        assert p.spmm(X, Y, alpha=1.5, beta=-0.75) is Y
        assert_spmm(Y, A, X, dtype, 1.5, -0.75, Y0)
    assert p.stats["spmm_calls"] == 2 * len(KS) and p.stats["host_copies"] == 0


@pytest.mark.parametrize("fmt,has_kernel", [("csr", True), ("teb", True), ("hbp", False)])
def test_spmm_info_says_kernel_or_fallback(cpu, fmt, has_kernel):
    A = random_csr(200, 200, 5, seed=4)
    p = spx.plan(A, format=fmt, context=cpu)
    for k in (1, 8, 33):
        for layout in ("row", "col"):
            info = p.spmm_info(k, layout)
            assert set(info) == {"kernel", "fallback", "bytes"}
            assert info["fallback"] is (not has_kernel)
            if has_kernel:
                assert info["kernel"].endswith("_spmm_" + layout), info
                assert info["bytes"] < k * p.info["bytes_per_spmv"] or k == 1
            else:
                assert info["kernel"] == f"{p.info['kernel']}_spmv_x{k}"
                assert info["bytes"] == pytest.approx(k * p.info["bytes_per_spmv"])
            X = block(200, k, order="C" if layout == "row" else "F")
            assert_spmm(p @ X, A, X, np.float64)
    assert p.spmm_info(4)["kernel"] == p.spmm_info(4, "row")["kernel"]  # row-major by default


@pytest.mark.parametrize("fmt", cpu_formats())
@pytest.mark.parametrize("order", ORDERS)
def test_edge_cases(cpu, fmt, order):
    for name, A in edge_cases().items():
        p = spx.plan(A, format=fmt, context=cpu)
        X = block(A.shape[1], 3, order=order)
        assert_spmm(p @ X, A, X, np.float64)
        Y0 = block(A.shape[0], 3, order=order, seed=2)
        Y = Y0.copy(order=order)
        p.spmm(X, Y, alpha=-1.0, beta=2.0)
        assert_spmm(Y, A, X, np.float64, -1.0, 2.0, Y0)


@pytest.mark.parametrize("dtype", DTYPES, ids=["fp64", "fp32"])
@pytest.mark.parametrize("fmt", ["csr", "hbp"])
def test_slices_are_taken_in_place(cpu, dtype, fmt):
    """X[:, :k] of a wider C array (row-major, ld > k) and X[:n] of a taller Fortran array
    (column-major, ld > n): read and written in place, the entries between lines left alone."""
    A = random_csr(120, 90, 5, seed=8, dtype=dtype)
    p = spx.plan(A, format=fmt, context=cpu)
    for k in (1, 3, 8):
        cases = [  # (X's parent, X, Y's parent, Y)
            (block(90, k + 5, dtype, "C"), lambda W: W[:, :k], block(120, k + 4, dtype, "C", 7), lambda V: V[:, 2:2 + k]),
            (block(97, k, dtype, "F"), lambda W: W[:90], block(123, k, dtype, "F", 7), lambda V: V[3:123]),
            (block(180, k, dtype, "C"), lambda W: W[::2], block(240, k, dtype, "C", 7), lambda V: V[1::2]),
        ]
        for W, xs, V, ys in cases:
            W0, V0 = W.copy(order="K"), V.copy(order="K")
            X, Y = xs(W), ys(V)
            assert np.shares_memory(X, W) and np.shares_memory(Y, V)
            assert p.spmm(X, Y, alpha=2.0, beta=0.5) is Y
            assert_spmm(Y, A, X, dtype, 2.0, 0.5, ys(V0))
            assert np.array_equal(W, W0)  # X read only
            mask = np.ones(V.shape, dtype=bool)
            ys(mask)[...] = False
            assert np.array_equal(V[mask], V0[mask])  # nothing outside Y written
            Z = p @ X  # a new Y in X's layout
            assert_spmm(Z, A, X, dtype)


@pytest.mark.parametrize("fmt", ["csr", "teb", "hbp"])
@pytest.mark.parametrize("dtype", DTYPES, ids=["fp64", "fp32"])
def test_alpha_beta(cpu, fmt, dtype):
    A = random_csr(150, 130, 6, seed=12, dtype=dtype)
    p = spx.plan(A, format=fmt, context=cpu)
    for order in ORDERS:
        X = block(130, 8, dtype, order)
        nan = np.full((150, 8), np.nan, dtype=dtype, order=order)
        p.spmm(X, nan)  # beta = 0: Y is not read, its NaNs do not survive
        assert_spmm(nan, A, X, dtype)
        for alpha, beta in [(1.5, -0.75), (0.0, 1.0), (-1.0, 1.0), (2.0, 0.5), (0.0, 0.0)]:
            Y0 = block(150, 8, dtype, order, seed=9)
            Y = Y0.copy(order=order)
            p.spmm(X, Y, alpha=alpha, beta=beta)
            assert_spmm(Y, A, X, dtype, alpha, beta, Y0)
        Xn = X.copy(order=order)
        Xn[7, 2] = np.nan  # NaN in X reaches the rows whose row of A has column 7, in column 2 only
        Y = p @ Xn
        hit = (A[:, [7]].toarray()[:, 0] != 0)
        assert np.isnan(Y[:, 2]).tolist() == hit.tolist() and not np.isnan(np.delete(Y, 2, axis=1)).any()


@pytest.mark.parametrize("order", ORDERS)
def test_plan_order_with_ehyb(cpu, order):
    """order='plan': X and Y in the plan's numbering (Plan.permutation), as vectors are."""
    A = spx.gen("poisson3d:n=10", context=cpu).to_scipy()
    p = spx.plan(A, format="ehyb", algo="grow", order="plan", context=cpu)
    perm = p.permutation
    assert perm is not None and sorted(perm.tolist()) == list(range(A.shape[0]))
    for k in (1, 3, 8):
        X = block(A.shape[1], k, order=order)
        Xp = np.asarray(X[perm], order=order)
        Y = np.empty_like(X)
        Y[perm] = p @ Xp
        assert_spmm(Y, A, X, np.float64)
    assert p.spmm_info(8)["fallback"]  # ehyb has no CPU SpMM kernel: k SpMVs


def test_matmul_dispatch_and_inputs(cpu):
    A = random_csr(30, 20, 3, seed=6)
    p = spx.plan(A, context=cpu)
    x = block(20, 1)[:, 0].copy()
    y = p @ x
    assert y.shape == (30,)  # 1-D: spmv as before
    assert_spmv(y, A, x, np.float64)
    X = block(20, 4)
    assert_spmm(p @ memoryview(X), A, X, np.float64)  # any 2-D buffer
    assert_spmm(p @ X.tolist(), A, X, np.float64)  # a list of rows
    Y = np.zeros((30, 4))
    p.spmm(memoryview(X), memoryview(Y))
    assert_spmm(Y, A, X, np.float64)
    assert p.stats["spmv_calls"] == 1 and p.stats["spmm_calls"] == 3
    # one entry a line reads as either layout: X (n, 1) and (1, k) shapes mix with either Y
    for Xo, Yo in [("C", "F"), ("F", "C")]:
        X1, Y1 = block(20, 1, order=Xo), np.zeros((30, 1), order=Yo)
        p.spmm(X1, Y1)
        assert_spmm(Y1, A, X1, np.float64)
    assert_spmm(p @ X[:, 1:2], A, X[:, 1:2], np.float64)
    assert_spmm(p @ x[:, None], A, x[:, None], np.float64)  # strides (8, 0): one column
    R = spx.plan(sp.csr_array(np.ones((3, 1))), context=cpu)
    X1 = np.ones((1, 5))[:, ::1]
    assert_spmm(R @ X1, sp.csr_array(np.ones((3, 1))), X1, np.float64)


def test_new_Y_takes_X_layout(cpu, square):
    p, A = square
    assert p._plan.spmm_layout(np.zeros((40, 3))) == ("row", 3)
    assert p._plan.spmm_layout(np.zeros((40, 3), order="F")) == ("col", 3)
    assert p._plan.spmm_layout(np.zeros((40, 1), order="F")) == ("row", 1)  # either: C order
    assert p._plan.spmm_layout(np.zeros((50, 3), order="F")[:40]) == ("col", 3)
    assert (p @ np.zeros((40, 3), order="F")).flags.f_contiguous
    assert (p @ np.zeros((45, 6))[:40, :3]).flags.c_contiguous


class FakeDevice:
    """An object with only a __cuda_array_interface__ (host memory behind it: never used as
    device memory here; these tests stop at the checks)."""

    def __init__(self, a, **changes):
        d = {"shape": a.shape, "typestr": a.dtype.str, "strides": a.strides, "data": (a.ctypes.data, False),
             "version": 3}
        d.update(changes)
        self.__cuda_array_interface__ = d


def test_device_block_checks_without_a_gpu(square):
    """The 2-D __cuda_array_interface__ reader and the layout rule for device arrays, through
    spmm_layout (which needs no GPU), and the refusal of device arrays on a CPU plan."""
    p, _ = square
    lay = p._plan.spmm_layout
    assert lay(FakeDevice(np.zeros((40, 3)), strides=None)) == ("row", 3)
    assert lay(FakeDevice(np.zeros((40, 3), order="F"))) == ("col", 3)
    assert lay(FakeDevice(np.zeros((40, 8))[:, :3])) == ("row", 3)
    assert lay(FakeDevice(np.zeros((60, 3), order="F")[:40])) == ("col", 3)
    refusals = [
        (FakeDevice(np.zeros((40, 6))[:, ::2]), ValueError, r"neither row- nor column-major.*cupy.ascontiguousarray\(X\)"),
        (FakeDevice(np.zeros((40, 3))[::-1]), ValueError, "neither row- nor column-major"),
        (FakeDevice(np.zeros((40, 3, 2))), ValueError, r"X must be 2-D \(got 3-D\)"),
        (FakeDevice(np.zeros(40)), ValueError, r"X must be 2-D \(got 1-D\)"),
        (FakeDevice(np.zeros((40, 3), np.float32)), TypeError, "X has typestr '<f4', expected '<f8'"),
        (FakeDevice(np.zeros((39, 3))), ValueError, "X has 39 rows, expected 40"),
        (FakeDevice(np.zeros((40, 3)), strides=(8,)), ValueError, "X has malformed strides"),
        (FakeDevice(np.zeros((40, 3)), mask=np.ones(3)), ValueError, "X is masked"),
    ]
    for X, error, message in refusals:
        with pytest.raises(error, match=message):
            lay(X)
    Y = FakeDevice(np.zeros((40, 3)))
    with pytest.raises(TypeError, match="this plan runs on the CPU"):
        p.spmm(FakeDevice(np.zeros((40, 3))), Y)


def test_refusals_leave_Y_untouched(square):
    p, A = square
    X = block(40, 3)
    Y0 = block(40, 3, seed=4)
    Y = Y0.copy()
    refusals = [  # (X, Y, error, message)
        (block(39, 3), Y, ValueError, "X has 39 rows, expected 40"),
        (X, block(40, 4), ValueError, r"Y has shape \(40, 4\), expected \(40, 3\)"),
        (X, block(41, 3), ValueError, r"Y has shape \(41, 3\), expected \(40, 3\)"),
        (X.astype(np.float32), Y, TypeError, r"X must be float64 like the plan.*X.astype\(numpy.float64\)"),
        (X, Y.astype(np.float32), TypeError, r"Y must be float64 like the plan.*Y.astype\(numpy.float64\)"),
        (X.astype(np.int64), Y, TypeError, "X must be float64"),
        (np.zeros((40, 3, 2)), Y, ValueError, r"X must be 2-D \(got 3-D\)"),
        (X, np.zeros((40, 3, 1)), ValueError, r"Y must be 2-D \(got 3-D\)"),
        (np.zeros(40), Y, ValueError, r"X must be 2-D \(got 1-D\): plan.spmv takes vectors"),
        (block(40, 6)[:, ::2], Y, ValueError, r"X .*neither row- nor column-major.*numpy.ascontiguousarray\(X\)"),
        (X, block(40, 6)[:, ::2], ValueError, r"numpy.ascontiguousarray\(Y\)"),
        (X[::-1], Y, ValueError, r"numpy.ascontiguousarray\(X\)"),
        (X[:, ::-1], Y, ValueError, r"numpy.ascontiguousarray\(X\)"),
        (np.broadcast_to(X[:, :1], (40, 3)), Y, ValueError, r"numpy.ascontiguousarray\(X\)"),
        (block(40, 3, order="F"), Y, ValueError, r"X is column-major \(Fortran order\) and Y row-major \(C order\)"),
        (X, np.zeros((40, 3), order="F"), ValueError, r"X is row-major \(C order\) and Y column-major"),
        ("X", Y, TypeError, "X must be a 2-D NumPy array of float64"),
    ]
    for bad_x, bad_y, error, message in refusals:
        with pytest.raises(error, match=message):
            p.spmm(bad_x, bad_y, alpha=1.0, beta=1.0)
        assert np.array_equal(Y, Y0), message
    ro = Y0.copy()
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="Y is read-only: pass a writable array"):
        p.spmm(X, ro)
    assert np.array_equal(ro, Y0)
    Z, T = block(40, 6), block(50, 3)
    Z0, T0 = Z.copy(), T.copy()
    for bad_x, bad_y in [(Z[:, :3], Z[:, 3:]), (Z[:, :3], Z[:, :3]), (T[:40], T[10:])]:
        with pytest.raises(ValueError, match="X and Y overlap: Y must be a separate array"):
            p.spmm(bad_x, bad_y)
    assert np.array_equal(Z, Z0) and np.array_equal(T, T0)
    with pytest.raises(ValueError, match="beta != 0 reads Y: pass Y"):
        p.spmm(X, beta=1.0)
    with pytest.raises(ValueError, match="k = 0"):
        p @ np.zeros((40, 0))
    with pytest.raises(ValueError, match=r"X must be 2-D \(got 3-D\)"):
        p @ np.zeros((40, 3, 2))
    with pytest.raises(spx.ArgumentError, match="k = 0"):
        p.spmm_info(0)
    with pytest.raises(ValueError, match="layout must be one of 'col', 'row'"):
        p.spmm_info(3, "diagonal")
    with pytest.raises(TypeError):
        p.spmm_info(2.5)


@pytest.mark.parametrize("dtype", DTYPES, ids=["fp64", "fp32"])
@pytest.mark.parametrize("order", ORDERS)
def test_copy_path_on_the_cpu(cpu, dtype, order):
    """The path CUDA plans take for NumPy arrays (X and Y copied into new blocks and Y back;
    fp32 a stage of fp64 lines at a time), forced on a CPU plan: several stages, a line longer
    than a stage, slices with ld beyond a line, beta = 0 never reading Y, the copies counted."""
    A = random_csr(2100, 2000, 3, seed=14, dtype=dtype)
    p = spx.plan(A, format="csr", context=cpu)
    eb, copied = np.dtype(dtype).itemsize, 0
    for k in (1, 33, 40):  # 33 rows of 2000 / 2100, or 33 columns of 2000 entries: two stages
        W, V = block(2010, k + 3, dtype, order), block(2100, k + 2, dtype, order, seed=3)
        X, Y = W[:2000, :k], V[:, 1:k + 1]
        V0 = V.copy(order="K")
        p._plan.spmm_host(X, Y, 0.5, -2.0, True)
        assert_spmm(Y, A, X, dtype, 0.5, -2.0, V0[:, 1:k + 1])
        assert np.array_equal(V[:, 0], V0[:, 0]) and np.array_equal(V[:, k + 1:], V0[:, k + 1:])
        Y = np.full((2100, k), np.nan, dtype=dtype, order=order)
        p._plan.spmm_host(X, Y, 1.0, 0.0, True)
        assert_spmm(Y, A, X, dtype)
        copied += eb * k * (2000 + 2 * 2100) + eb * k * (2000 + 2100)
    L = sp.csr_array(sp.diags([1.0, -0.5, 0.25], [0, 1, -7], shape=(70_000, 70_000), dtype=dtype))
    L.sort_indices()  # (a column longer than a stage)
    q = spx.plan(L, format="csr", context=cpu)
    X = block(70_000, 2, dtype, order)
    Y = np.zeros((70_000, 2), dtype=dtype, order=order)
    q._plan.spmm_host(X, Y, 1.0, 0.0, True)
    assert_spmm(Y, L, X, dtype)
    assert p.stats == {"spmv_calls": 0, "spmm_calls": 6, "host_copies": 6, "host_copy_bytes": copied}
    with pytest.raises(ValueError, match="X has 1999 rows"):
        p._plan.spmm_host(block(1999, 2, dtype), np.zeros((2100, 2), dtype), 1.0, 0.0, True)
    assert p.stats["host_copies"] == 6


def test_linear_operator_matmat(cpu):
    """spx.aslinearoperator's matmat is plan.spmm (scipy's default would loop over matvec);
    strided arrays are made contiguous first."""
    A = random_csr(80, 70, 5, seed=19)
    p = spx.plan(A, context=cpu)
    op = spx.aslinearoperator(p)
    X = block(70, 5, order="F")
    assert_spmm(op.matmat(X), A, X, np.float64)
    assert_spmm(op @ X, A, X, np.float64)
    Xs = block(70, 10)[:, ::2]
    assert_spmm(op.matmat(Xs), A, Xs, np.float64)
    assert p.stats["spmm_calls"] == 3 and p.stats["spmv_calls"] == 0
