# python/tests/test_cupy.py: the device paths with CuPy (skipped without CuPy or without a GPU spx can use): SpMV on CuPy arrays in place and on CuPy's current stream, SpMM on 2-D CuPy arrays (C and Fortran order, slices, the plan's order, streams, refusals) and on NumPy arrays of a CUDA plan (copied and counted), Plan.spmv's CuPy fast path (taken, against the general __cuda_array_interface__ path and scipy, its refusals, streams and devices), host arrays on CUDA plans (counted copies), cupyx CSR in and out, SpGEMM, the solvers on CuPy vectors, the CuPy LinearOperator, refusals and leaks.
import gc
import inspect
import sys

import numpy as np
import pytest
import scipy.sparse as sp

import spx
from conftest import GPU, Spy, assert_spmm, assert_spmv, block, edge_cases, random_csr, refused, vector

cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
cpx_sparse = pytest.importorskip("cupyx.scipy.sparse")
pytestmark = pytest.mark.skipif(not GPU, reason="no GPU that spx can use")


@pytest.fixture(scope="module")
def cuda():
    return spx.Context("cuda")


class Interface:
    """A device array seen only through __cuda_array_interface__: Plan.spmv's general path."""

    def __init__(self, a):
        self.a = a

    @property
    def __cuda_array_interface__(self):
        return self.a.__cuda_array_interface__


def spied(p):
    """A Spy over p's C object, put in its place, after one call that lets Plan.spmv learn
    cupy.ndarray (the first CuPy array meets the general path)."""
    m, n = p.shape
    p.spmv(cupy.zeros(n, dtype=p.dtype), cupy.zeros(m, dtype=p.dtype))
    spy = p._plan = Spy(p._plan)
    return spy


def last_entry(spy):
    """The name of the C entry the spied plan called last."""
    return spy.calls[-1][0]


def cuda_formats():
    return [f["name"] for f in spx.formats() if f["available"] and f["cuda"]]


@pytest.mark.parametrize("fmt", cuda_formats())
@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["fp64", "fp32"])
def test_spmv_on_cupy_arrays_every_format(cuda, fmt, dtype):
    for name, A in edge_cases().items():
        A = A.astype(dtype)
        p = spx.plan(A, format=fmt, context=cuda)
        x = vector(A.shape[1], dtype)
        xd = cupy.asarray(x)
        yd = p @ xd
        assert isinstance(yd, cupy.ndarray) and yd.dtype == dtype
        assert_spmv(cupy.asnumpy(yd), A, x, dtype)
        y0 = vector(A.shape[0], dtype, seed=4)
        yd = cupy.asarray(y0)
        ptr = yd.data.ptr
        assert p.spmv(xd, yd, alpha=-1.5, beta=2.0) is yd and yd.data.ptr == ptr  # in place
        assert_spmv(cupy.asnumpy(yd), A, x, dtype, -1.5, 2.0, y0)
        assert p.stats["host_copies"] == 0, name


def large_random_csr(seed, n=200_000, k=1_600_000):
    """An n x n csr_array of about k random entries: SpMVs long enough that one racing a
    kernel on another stream would show."""
    # (not sp.random: SciPy 1.18 samples its 4e10 positions through a dense index array, 320 GB)
    rng = np.random.default_rng(seed)
    A = sp.csr_array((rng.standard_normal(k), (rng.integers(0, n, k), rng.integers(0, n, k))), shape=(n, n))
    A.sum_duplicates()
    return A


def test_cupy_current_stream_is_used(cuda):
    A = large_random_csr(71)
    p = spx.plan(A, context=cuda)
    x = vector(200_000)
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        xd = cupy.asarray(x)     # enqueued on s
        xd *= 2.0                # on s
        yd = p @ xd              # on s: ordered after the scaling without any synchronisation
        zd = yd * 0.5            # on s
    s.synchronize()
    assert_spmv(cupy.asnumpy(zd), A, x, np.float64)
    assert spx.current_stream() == cupy.cuda.get_current_stream().ptr


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["fp64", "fp32"])
def test_fast_path_against_the_general_path_and_scipy(cuda, dtype):
    for name, A in edge_cases().items():
        A = A.astype(dtype)
        p = spx.plan(A, context=cuda)
        spy = spied(p)
        x, y0 = vector(A.shape[1], dtype), vector(A.shape[0], dtype, seed=4)
        xd, fast, general = cupy.asarray(x), cupy.asarray(y0), cupy.asarray(y0)
        assert p.spmv(xd, fast, alpha=-1.5, beta=2.0) is fast and last_entry(spy) == "spmv_device_ptr", name
        p.spmv(Interface(xd), Interface(general), alpha=-1.5, beta=2.0)
        assert last_entry(spy) == "spmv_device", name
        assert_spmv(cupy.asnumpy(fast), A, x, dtype, -1.5, 2.0, y0)
        assert_spmv(cupy.asnumpy(general), A, x, dtype, -1.5, 2.0, y0)
        yd = p @ xd  # y made by cupy.zeros, then the fast path
        assert last_entry(spy) == "spmv_device_ptr" and isinstance(yd, cupy.ndarray) and yd.dtype == dtype, name
        assert_spmv(cupy.asnumpy(yd), A, x, dtype)
        assert p.stats == {"spmv_calls": 4, "spmm_calls": 0, "host_copies": 0, "host_copy_bytes": 0}, name


def test_fast_path_taken_for_common_cupy_arrays(cuda):
    A = random_csr(50, 40, 3)
    p64, p32 = spx.plan(A, context=cuda), spx.plan(A, precision="fp32", context=cuda)
    s64, s32 = spied(p64), spied(p32)
    for x in (cupy.ones(40), cupy.asarray(np.ones(40)), cupy.arange(40, dtype=cupy.float64), cupy.ones((4, 10)).ravel(),
              cupy.ones(80)[:40], cupy.ones(40, dtype=cupy.float32).astype(cupy.float64)):
        p64.spmv(x, cupy.empty(50))
        assert last_entry(s64) == "spmv_device_ptr", x
    p32.spmv(cupy.ones(40, dtype=cupy.float32), cupy.empty(50, dtype=cupy.float32))
    assert last_entry(s32) == "spmv_device_ptr"


def test_fast_path_refusals(cuda):
    A = random_csr(50, 40, 3)
    p = spx.plan(A, context=cuda)
    spy = spied(p)
    x, y = cupy.ones(40), cupy.zeros(50)
    refusals = [  # (x, y, error, message, the entry that refuses)
        (cupy.ones(40, dtype=cupy.float32), y, TypeError, "x has typestr '<f4', expected '<f8'", "spmv_device"),
        (x, cupy.zeros(50, dtype=cupy.float32), TypeError, "y has typestr '<f4', expected '<f8'", "spmv_device"),
        (cupy.ones(39), y, ValueError, "x has 39 entries, expected 40", "spmv_device_ptr"),
        (x, cupy.zeros(51), ValueError, "y has 51 entries, expected 50", "spmv_device_ptr"),
        (cupy.ones(80)[::2], y, ValueError, "x is not contiguous", "spmv_device"),
        (x, cupy.zeros(100)[::2], ValueError, "y is not contiguous", "spmv_device"),
        (cupy.ones((40, 1)), y, ValueError, "x must be 1-D", "spmv_device"),
        (x, cupy.zeros((1, 50)), ValueError, "y must be 1-D", "spmv_device"),
    ]
    for bad_x, bad_y, error, message, entry in refusals:
        with pytest.raises(error, match=message):
            p.spmv(bad_x, bad_y)
        assert last_entry(spy) == entry, message
    assert not y.any()  # nothing written by a refused call
    S = spx.plan(sp.csr_array(np.eye(40)), context=cuda)
    spied(S)
    v = cupy.ones(40)
    with pytest.raises(ValueError, match="x and y overlap"):
        S.spmv(v, v)
    with pytest.raises(ValueError, match="x and y overlap"):
        S.spmv(v, v[:40])
    with pytest.raises(TypeError, match="takes 7 arguments"):
        p._plan.spmv_device_ptr(x.data.ptr, 40, y.data.ptr, 50, 1.0, 0.0)
    with pytest.raises(TypeError):
        p._plan.spmv_device_ptr("x", 40, y.data.ptr, 50, 1.0, 0.0, None)
    with pytest.raises(TypeError):
        p._plan.spmv_device_ptr(x.data.ptr, 40, y.data.ptr, 50, 1.0, 0.0, "stream")
    with pytest.raises(TypeError):
        p.spmv(x, y, stream="stream")
    with pytest.raises(ValueError, match="could not convert"):
        p.spmv(x, y, alpha="two")
    cpu = spx.plan(A, context=spx.Context("cpu"))
    with pytest.raises(TypeError, match="this plan runs on the CPU"):
        cpu.spmv(x, y)  # the fast path (cupy.ndarray is known by now): refused in C
    with pytest.raises(TypeError, match="this plan runs on the CPU"):
        cpu._plan.spmv_device_ptr(x.data.ptr, 40, y.data.ptr, 50, 1.0, 0.0, None)


@pytest.mark.skipif(not GPU or cupy.cuda.runtime.getDeviceCount() < 2, reason="needs two GPUs")
def test_fast_path_refuses_another_device():
    A = random_csr(50, 40, 3)
    ctx0, ctx1 = spx.Context("cuda", device=0), spx.Context("cuda", device=1)
    p0, p1 = spx.plan(A, context=ctx0), spx.plan(A, context=ctx1)
    spy = spied(p0)
    x0, y0 = cupy.ones(40), cupy.zeros(50)
    with cupy.cuda.Device(1):
        x1, y1 = cupy.ones(40), cupy.zeros(50)
        p1.spmv(x1, y1)  # a plan of device 1 takes device 1's arrays on the fast path
        cupy.cuda.get_current_stream().synchronize()
        assert_spmv(cupy.asnumpy(y1), A, np.ones(40), np.float64)
    with pytest.raises(ValueError, match="x is on device 1, the plan's context on device 0"):
        p0.spmv(x1, y0)
    with pytest.raises(ValueError, match="y is on device 1, the plan's context on device 0"):
        p0.spmv(x0, y1)
    assert spy.calls == [] and not y0.any()  # refused in Python, before either C entry


def test_fast_path_explicit_stream(cuda):
    A = large_random_csr(72)
    n = A.shape[0]
    p = spx.plan(A, context=cuda)
    spy = spied(p)
    x = vector(n)
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        xd = cupy.asarray(x)
        xd *= 2.0                      # on s
        yd = cupy.zeros(n)
    p.spmv(xd, yd, stream=s.ptr)       # outside `with`: on s only because it is named
    assert spy.calls[-1] == ("spmv_device_ptr", (xd.data.ptr, n, yd.data.ptr, n, 1.0, 0.0, s.ptr))
    with s:
        zd = yd * 0.5                  # on s, after the SpMV
    s.synchronize()
    assert_spmv(cupy.asnumpy(zd), A, x, np.float64)
    with s:
        p.spmv(xd, yd)                 # the default: CuPy's current stream, s here
    s.synchronize()
    assert spy.calls[-1][1][-1] == s.ptr


def test_host_arrays_on_a_cuda_plan_are_copied_and_counted(cuda):
    A = random_csr(300, 200, 5)
    p = spx.plan(A, context=cuda)
    assert p.backend == "cuda"
    x = vector(200)
    assert_spmv(p @ x, A, x, np.float64)
    y0 = vector(300, seed=3)
    y = y0.copy()
    p.spmv(x, y, 1.0, 1.0)
    assert_spmv(y, A, x, np.float64, 1.0, 1.0, y0)
    assert p.stats == {"spmv_calls": 2, "spmm_calls": 0, "host_copies": 2,
                       "host_copy_bytes": 8 * (200 + 300) + 8 * (200 + 2 * 300)}


def test_cupyx_csr_in_and_out(cuda):
    A = random_csr(120, 90, 6)
    Ad = cpx_sparse.csr_matrix(A)
    M = spx.csr(Ad, context=cuda)
    assert M.to_cupy() is Ad and M.shape == (120, 90)
    x = vector(90)
    assert_spmv(cupy.asnumpy(spx.plan(Ad, context=cuda) @ cupy.asarray(x)), A, x, np.float64)
    G = spx.gen("poisson2d:n=10", context=cuda).to_cupy()
    assert isinstance(G, cpx_sparse.csr_matrix) and G.shape == (100, 100)
    C = spx.spgemm(Ad, Ad, transpose_b=True, context=cuda)
    assert isinstance(C, cpx_sparse.csr_matrix)
    err = abs(sp.csr_array(C.get()) - A @ A.T).max()
    assert err <= 1e-12 * (abs(A) @ abs(A.T)).max()


@pytest.mark.parametrize("M", [None, "jacobi"])
def test_solvers_on_cupy_vectors(cuda, M):
    n = 40
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    A = sp.csr_array(sp.kronsum(T, T))
    b = vector(n * n)
    p = spx.plan(A, context=cuda)
    x, info, res = spx.cg(p, cupy.asarray(b), rtol=1e-8, M=M, full_output=True)
    assert info == 0 and isinstance(x, cupy.ndarray) and res.host_copy_bytes == 0
    assert np.linalg.norm(b - A @ cupy.asnumpy(x)) <= 1e-7 * np.linalg.norm(b)
    _, _, host = spx.cg(spx.plan(A, context=spx.Context("cpu")), b, rtol=1e-8, M=M, full_output=True)
    assert abs(res.iterations - host.iterations) <= 2
    x2, info2 = spx.bicgstab(p, cupy.asarray(b), rtol=1e-8, M=M)
    assert info2 == 0 and np.linalg.norm(b - A @ cupy.asnumpy(x2)) <= 1e-7 * np.linalg.norm(b)
    xh, infoh, resh = spx.cg(p, b, rtol=1e-8, full_output=True)  # NumPy vectors on a CUDA plan
    assert infoh == 0 and isinstance(xh, np.ndarray) and resh.host_copy_bytes == 3 * 8 * n * n


def test_cupy_linear_operator(cuda):
    from cupyx.scipy.sparse.linalg import cg as cupy_cg
    n = 30
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    A = sp.csr_array(sp.kronsum(T, T))
    op = spx.aslinearoperator(spx.plan(A, context=cuda), device=True)
    b = vector(n * n)
    key = "rtol" if "rtol" in inspect.signature(cupy_cg).parameters else "tol"
    x, info = cupy_cg(op, cupy.asarray(b), **{key: 1e-8})
    assert info == 0 and np.linalg.norm(b - A @ cupy.asnumpy(x)) <= 1e-6 * np.linalg.norm(b)
    with pytest.raises(ValueError, match="needs a CUDA plan"):
        spx.aslinearoperator(spx.plan(A, context=spx.Context("cpu")), device=True)


def test_device_refusals(cuda):
    A = random_csr(50, 40, 3)
    p = spx.plan(A, context=cuda)
    with pytest.raises(TypeError, match="x must be float64|typestr"):
        p @ cupy.ones(40, dtype=cupy.float32)
    with pytest.raises(ValueError, match="x is not contiguous"):
        p @ cupy.ones(80)[::2]
    with pytest.raises(ValueError, match="x has 39 entries, expected 40"):
        p @ cupy.ones(39)
    with pytest.raises(ValueError, match="y is read-only|y must"):
        class ReadOnly:
            def __init__(self, a):
                d = dict(a.__cuda_array_interface__)
                d["data"] = (d["data"][0], True)
                self.__cuda_array_interface__ = d
        p.spmv(cupy.ones(40), ReadOnly(cupy.zeros(50)))
    # host memory passed off as device memory: spx_vec_wrap (the solvers' path) refuses it
    host_b, host_x = np.ones(40), np.zeros(40)
    fake = [type("Fake", (), {"__cuda_array_interface__": {"shape": (40,), "typestr": "<f8", "strides": None,
                                                            "data": (h.ctypes.data, False), "version": 3}})()
            for h in (host_b, host_x)]
    S = spx.plan(sp.csr_array(sp.eye(40, format="csr")), context=cuda)
    with pytest.raises(spx.ArgumentError, match="not device memory"):
        spx._spx.solve("cg", S._plan, fake[0], fake[1], 1e-8, 10)


def assert_no_leaks(cuda, ops, keep, warm, calls):
    """`calls` calls of each op (after `warm` to warm up) leave the reference counts of `keep` and
    the context's device and host accounting where they were."""
    for name, op in ops.items():
        for _ in range(warm):
            op()
        cupy.cuda.get_current_stream().synchronize()
        gc.collect()
        refs = [sys.getrefcount(o) for o in keep]
        dev, host = cuda.mem_stats()["device_bytes"], cuda.mem_stats()["host_bytes"]
        for _ in range(calls):
            op()
        cupy.cuda.get_current_stream().synchronize()
        gc.collect()
        assert [sys.getrefcount(o) for o in keep] == refs, name
        assert cuda.mem_stats()["device_bytes"] == dev and cuda.mem_stats()["host_bytes"] == host, name


def test_no_leaks_on_device_calls(cuda):
    A = random_csr(100, 80, 4)
    p = spx.plan(A, context=cuda)
    xd, yd, short = cupy.asarray(vector(80)), cupy.zeros(100), cupy.ones(79)
    alpha, beta, stream = 1.5, 0.5, cupy.cuda.get_current_stream().ptr
    keep = (xd, yd, short, p, alpha, beta, stream, xd.data, yd.data)
    ops = {
        "fast": lambda: p.spmv(xd, yd, alpha, beta),
        "fast_stream": lambda: p.spmv(xd, yd, alpha, beta, stream=stream),
        "fast_new_y": lambda: p @ xd,
        "general": lambda: p.spmv(Interface(xd), Interface(yd), alpha, beta),
        "refused_in_c": refused(lambda: p.spmv(short, yd), ValueError),
        "refused_dtype": refused(lambda: p.spmv(xd.astype(cupy.float32), yd), TypeError),
    }
    assert_no_leaks(cuda, ops, keep, 100, 10_000)


# ---- SpMM: 2-D CuPy arrays and NumPy arrays on CUDA plans ----

SPMM_KS = [1, 2, 3, 8, 33]


@pytest.mark.parametrize("fmt", cuda_formats())
@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["fp64", "fp32"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_spmm_on_cupy_blocks_every_format(cuda, fmt, dtype, order):
    A = random_csr(300, 250, 6, seed=21, dtype=dtype)
    p = spx.plan(A, format=fmt, context=cuda)
    for k in SPMM_KS:
        X = block(250, k, dtype, order)
        Xd = cupy.array(X, order=order)
        Yd = p @ Xd
        assert isinstance(Yd, cupy.ndarray) and Yd.flags[order + "_CONTIGUOUS"], k
        assert_spmm(cupy.asnumpy(Yd), A, X, dtype)
        Y0 = block(300, k, dtype, order, seed=5)
        Yd = cupy.array(Y0, order=order)
        ptr = Yd.data.ptr
        assert p.spmm(Xd, Yd, alpha=1.5, beta=-0.75) is Yd and Yd.data.ptr == ptr  # in place
        assert_spmm(cupy.asnumpy(Yd), A, X, dtype, 1.5, -0.75, Y0)
        info = p.spmm_info(k, "row" if order == "C" else "col")
        assert not info["fallback"] or info["kernel"] == f"{p.info['kernel']}_spmv_x{k}", info
    assert p.stats["spmm_calls"] == 2 * len(SPMM_KS) and p.stats["host_copies"] == 0


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["fp64", "fp32"])
def test_spmm_edge_cases_and_nan_y(cuda, dtype):
    for name, A in edge_cases().items():
        A = A.astype(dtype)
        p = spx.plan(A, context=cuda)
        for order in ("C", "F"):
            X = block(A.shape[1], 3, dtype, order)
            Yd = cupy.full((A.shape[0], 3), cupy.nan, dtype=dtype, order=order)
            p.spmm(cupy.array(X, order=order), Yd)  # beta = 0 never reads Y
            assert_spmm(cupy.asnumpy(Yd), A, X, dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["fp64", "fp32"])
def test_spmm_cupy_slices_in_place(cuda, dtype):
    """X[:, :k] of a wider C array and X[:n] of a taller Fortran array, zero-copy; nothing
    outside Y written."""
    A = random_csr(120, 90, 5, seed=8, dtype=dtype)
    p = spx.plan(A, context=cuda)
    for k in (1, 3, 8):
        cases = [
            (block(90, k + 5, dtype, "C"), lambda W: W[:, :k], block(120, k + 4, dtype, "C", 7), lambda V: V[:, 2:2 + k]),
            (block(97, k, dtype, "F"), lambda W: W[:90], block(123, k, dtype, "F", 7), lambda V: V[3:123]),
        ]
        for W, xs, V, ys in cases:
            Wd, Vd = cupy.array(W, order="K"), cupy.array(V, order="K")
            p.spmm(xs(Wd), ys(Vd), alpha=2.0, beta=0.5)
            got = cupy.asnumpy(Vd)
            assert_spmm(ys(got), A, xs(W), dtype, 2.0, 0.5, ys(V))
            mask = np.ones(V.shape, dtype=bool)
            ys(mask)[...] = False
            assert np.array_equal(got[mask], V[mask]) and np.array_equal(cupy.asnumpy(Wd), W)


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["fp64", "fp32"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_spmm_numpy_on_a_cuda_plan_copied_and_counted(cuda, dtype, order):
    A = random_csr(300, 200, 5, seed=3, dtype=dtype)
    p = spx.plan(A, context=cuda)
    eb = np.dtype(dtype).itemsize
    X = block(200, 8, dtype, order)
    Y = p @ X
    assert isinstance(Y, np.ndarray) and Y.flags[order + "_CONTIGUOUS"]
    assert_spmm(Y, A, X, dtype)
    Y0 = block(300, 8, dtype, order, seed=4)
    Y = Y0.copy(order=order)
    p.spmm(X, Y, alpha=-1.0, beta=2.0)
    assert_spmm(Y, A, X, dtype, -1.0, 2.0, Y0)
    W = block(230, 11, dtype, order)  # a slice with ld beyond a line; padding left alone
    Xs = W[:200, :8]
    V = block(310, 12, dtype, order, seed=6)
    Ys = V[5:305, 2:10]
    V0 = V.copy(order="K")
    p.spmm(Xs, Ys, beta=1.0)
    assert_spmm(Ys, A, Xs, dtype, 1.0, 1.0, V0[5:305, 2:10])
    mask = np.ones(V.shape, dtype=bool)
    mask[5:305, 2:10] = False
    assert np.array_equal(V[mask], V0[mask])
    nan = np.full((300, 8), np.nan, dtype=dtype, order=order)
    p.spmm(X, nan)
    assert_spmm(nan, A, X, dtype)
    big = block(200, 300, dtype, order, seed=9)  # fp32: more than one staging round
    assert_spmm(p @ big, A, big, dtype)
    copied = eb * (8 * (200 + 300) + 8 * (200 + 2 * 300) + 8 * (200 + 2 * 300) + 8 * (200 + 300) + 300 * (200 + 300))
    assert p.stats == {"spmv_calls": 0, "spmm_calls": 5, "host_copies": 5, "host_copy_bytes": copied}


@pytest.mark.parametrize("order", ["C", "F"])
def test_spmm_plan_order_on_cuda(cuda, order):
    A = spx.gen("poisson3d:n=10").to_scipy()
    p = spx.plan(A, format="ehyb", algo="grow", order="plan", context=cuda)
    perm = p.permutation
    assert perm is not None
    X = block(A.shape[1], 8, order=order)
    Y = np.empty_like(X)
    Y[perm] = cupy.asnumpy(p @ cupy.array(X[perm], order=order))
    assert_spmm(Y, A, X, np.float64)


def test_spmm_on_cupy_current_stream(cuda):
    A = large_random_csr(73, n=100_000, k=800_000)
    p = spx.plan(A, context=cuda)
    X = block(100_000, 8)
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        Xd = cupy.asarray(X)
        Xd *= 2.0             # on s
        Yd = p @ Xd           # on s, after the scaling
        Zd = Yd * 0.5         # on s
    s.synchronize()
    assert_spmm(cupy.asnumpy(Zd), A, X, np.float64)
    with s:
        Xd *= 0.5
        Yd = cupy.zeros((100_000, 8))
    p.spmm(Xd, Yd, stream=s.ptr)  # outside `with`: on s only because it is named
    s.synchronize()
    assert_spmm(cupy.asnumpy(Yd), A, X, np.float64)


def test_spmm_cupy_linear_operator(cuda):
    A = random_csr(80, 70, 5, seed=19)
    p = spx.plan(A, context=cuda)
    op = spx.aslinearoperator(p, device=True)
    X = block(70, 5, order="F")
    assert_spmm(cupy.asnumpy(op.matmat(cupy.array(X, order="F"))), A, X, np.float64)
    assert p.stats["spmm_calls"] == 1 and p.stats["host_copies"] == 0


def test_spmm_device_refusals(cuda):
    A = random_csr(50, 40, 3)
    p = spx.plan(A, context=cuda)
    X, Y = cupy.ones((40, 3)), cupy.zeros((50, 3))
    refusals = [
        (cupy.ones((40, 3), dtype=cupy.float32), Y, TypeError, "X has typestr '<f4', expected '<f8'"),
        (X, cupy.zeros((50, 3), dtype=cupy.float32), TypeError, "Y has typestr '<f4', expected '<f8'"),
        (cupy.ones((39, 3)), Y, ValueError, "X has 39 rows, expected 40"),
        (X, cupy.zeros((50, 4)), ValueError, r"Y has shape \(50, 4\), expected \(50, 3\)"),
        (cupy.ones((40, 6))[:, ::2], Y, ValueError, r"cupy.ascontiguousarray\(X\)"),
        (X, cupy.zeros((50, 6))[:, ::2], ValueError, r"cupy.ascontiguousarray\(Y\)"),
        (cupy.ones((40, 3, 1)), Y, ValueError, r"X must be 2-D \(got 3-D\)"),
        (cupy.ones((40, 3), order="F"), Y, ValueError, r"X is column-major \(Fortran order\) and Y row-major"),
        (X, np.zeros((50, 3)), TypeError, "Y must be a device array"),
    ]
    for bad_x, bad_y, error, message in refusals:
        with pytest.raises(error, match=message):
            p.spmm(bad_x, bad_y)
    assert not Y.any()
    Z = cupy.zeros((40, 6))
    with pytest.raises(ValueError, match="X and Y overlap"):
        spx.plan(sp.csr_array(sp.eye(40, format="csr")), context=cuda).spmm(Z[:, :3], Z[:, 3:])

    class ReadOnly:
        def __init__(self, a):
            d = dict(a.__cuda_array_interface__)
            d["data"] = (d["data"][0], True)
            self.__cuda_array_interface__ = d
    with pytest.raises(ValueError, match="Y is read-only"):
        p.spmm(X, ReadOnly(Y))
    with pytest.raises(TypeError, match="this plan runs on the CPU"):
        spx.plan(A, context=spx.Context("cpu")).spmm(X, Y)


def test_spmm_no_leaks(cuda):
    A = random_csr(100, 80, 4)
    p, p32 = spx.plan(A, context=cuda), spx.plan(A, precision="fp32", context=cuda)
    Xd, Yd, X, Y = cupy.asarray(block(80, 4)), cupy.zeros((100, 4)), block(80, 4), np.zeros((100, 4))
    X32, Y32 = X.astype(np.float32), Y.astype(np.float32)
    keep = (Xd, Yd, X, Y, X32, Y32, p, p32)
    ops = {
        "device": lambda: p.spmm(Xd, Yd, 1.5, 0.5),
        "device_new_Y": lambda: p @ Xd,
        "host_fp64": lambda: p.spmm(X, Y, 1.5, 0.5),
        "host_fp32": lambda: p32.spmm(X32, Y32, 1.5, 0.5),
        "refused": refused(lambda: p.spmm(Xd[:79], Yd), ValueError),
    }
    assert_no_leaks(cuda, ops, keep, 20, 1000)
