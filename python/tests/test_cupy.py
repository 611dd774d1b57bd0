# python/tests/test_cupy.py: the device paths with CuPy (skipped without CuPy or without a GPU spx can use): SpMV on CuPy arrays in place and on CuPy's current stream, host arrays on CUDA plans (counted copies), cupyx CSR in and out, SpGEMM, the solvers on CuPy vectors, the CuPy LinearOperator, refusals and leaks.
import gc
import inspect
import sys

import numpy as np
import pytest
import scipy.sparse as sp

import spx
from conftest import GPU, assert_spmv, edge_cases, random_csr, vector

cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
cpx_sparse = pytest.importorskip("cupyx.scipy.sparse")
pytestmark = pytest.mark.skipif(not GPU, reason="no GPU that spx can use")


@pytest.fixture(scope="module")
def cuda():
    return spx.Context("cuda")


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


def test_cupy_current_stream_is_used(cuda):
    # (not sp.random: SciPy 1.18 samples its 4e10 positions through a dense index array, 320 GB)
    rng = np.random.default_rng(71)
    n, k = 200_000, 1_600_000
    A = sp.csr_array((rng.standard_normal(k), (rng.integers(0, n, k), rng.integers(0, n, k))), shape=(n, n))
    A.sum_duplicates()
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
    assert p.stats == {"spmv_calls": 2, "host_copies": 2, "host_copy_bytes": 8 * (200 + 300) + 8 * (200 + 2 * 300)}


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


def test_no_leaks_on_device_calls(cuda):
    A = random_csr(100, 80, 4)
    p = spx.plan(A, context=cuda)
    xd, yd = cupy.asarray(vector(80)), cupy.zeros(100)
    for _ in range(100):
        p.spmv(xd, yd)
    cupy.cuda.get_current_stream().synchronize()
    gc.collect()
    refs = [sys.getrefcount(o) for o in (xd, yd, p)]
    dev = cuda.mem_stats()["device_bytes"]
    for _ in range(10_000):
        p.spmv(xd, yd)
    cupy.cuda.get_current_stream().synchronize()
    gc.collect()
    assert [sys.getrefcount(o) for o in (xd, yd, p)] == refs
    assert cuda.mem_stats()["device_bytes"] == dev
