# python/tests/test_device_csr.py: device matrices (spx.device_csr, spx.DeviceMatrix): the argument checks of wrapping device arrays, on any machine through stand-in __cuda_array_interface__ objects (types, lengths, shapes, contiguity, and what this build does with a well-formed one: no CUDA, no device, or host memory refused); with CuPy and a GPU, cupyx csr_matrix zero-copy in spx.spgemm (C a cupyx csr_matrix on the device, int32 row pointers) and spx.plan (no host copy where the format builds on the device), bad and unsorted device matrices refused with their row, and C's memory given back.
import gc

import numpy as np
import pytest
import scipy.sparse as sp

import spx
from conftest import GPU, random_csr


class FakeArray:
    """A host array passed off as a device array through __cuda_array_interface__ alone."""

    def __init__(self, a, typestr=None, shape=None, strides=None):
        self.a = a  # keeps the memory alive
        self.__cuda_array_interface__ = {"shape": shape or a.shape, "typestr": typestr or a.dtype.str,
                                         "strides": strides, "data": (a.ctypes.data, False), "version": 3}


class FakeCsr:
    """A CSR object (format 'csr') over FakeArrays, as device_csr reads a cupyx csr_matrix."""

    format = "csr"

    def __init__(self, A, **over):
        self.shape = A.shape
        self.indptr = over.get("indptr", FakeArray(A.indptr.astype(np.int32)))
        self.indices = over.get("indices", FakeArray(A.indices.astype(np.int32)))
        self.data = over.get("data", FakeArray(A.data))


A = random_csr(6, 5, 2, seed=3)


@pytest.mark.parametrize("over, error, message", [
    ({"indices": FakeArray(A.indices.astype(np.int64))}, TypeError, "indices has typestr '<i8': spx takes int32 here"),
    ({"data": FakeArray(A.data.astype(np.int32))}, TypeError, "data has typestr '<i4': spx takes float64 or float32"),
    ({"indptr": FakeArray(A.indptr.astype(np.float64))}, TypeError, "indptr has typestr '<f8': spx takes int32 or int64"),
    ({"indptr": FakeArray(A.indptr[:-1].astype(np.int32))}, ValueError, "indptr has 6 entries, expected m \\+ 1 = 7"),
    ({"data": FakeArray(A.data[:-1])}, ValueError, "data has .* entries, indices .*: they must match"),
    ({"data": FakeArray(A.data, shape=(1, A.nnz))}, ValueError, "data must be 1-D"),
    ({"data": FakeArray(A.data, strides=(16,))}, ValueError, "data is not contiguous"),
])
def test_wrap_refusals(cpu, over, error, message):
    with pytest.raises(error, match=message):
        spx.device_csr(FakeCsr(A, **over), context=cpu)
    with pytest.raises(error, match=message):
        spx._spx.wrap_device(cpu, 6, 5, *(getattr(FakeCsr(A, **over), f) for f in ("indptr", "indices", "data")))


def test_what_this_build_does_with_a_well_formed_one(cpu):
    """Host memory behind the interface: refused by the device check (a GPU), or before it."""
    M = FakeCsr(A)
    with pytest.raises(spx.Error) as e:
        spx.device_csr(M, context=cpu)
    want = "SPX_ERR_ARG" if GPU else "SPX_ERR_NO_DEVICE" if spx.cuda_compiled() else "SPX_ERR_NOT_COMPILED"
    assert e.value.status == want, str(e.value)
    if GPU:
        assert "is host memory" in str(e.value)
    for call in (lambda: spx.spgemm(M, M, context=cpu), lambda: spx.plan(M, context=cpu)):
        with pytest.raises(spx.Error):
            call()


def test_other_arguments(cpu):
    host = FakeCsr(A, indices=np.zeros(A.nnz, np.int32))
    with pytest.raises(TypeError, match="spx.device_csr takes a cupyx"):
        spx.device_csr(host, context=cpu)
    with pytest.raises(TypeError, match="indices must be a device array"):
        spx._spx.wrap_device(cpu, 6, 5, host.indptr, host.indices, host.data)
    with pytest.raises(TypeError, match="not COO"):
        M = FakeCsr(A)
        M.format = "coo"
        spx.device_csr(M, context=cpu)
    with pytest.raises(ValueError, match="shape \\(-1, 5\\)"):
        spx._spx.wrap_device(cpu, -1, 5, *(getattr(FakeCsr(A), f) for f in ("indptr", "indices", "data")))
    with pytest.raises(TypeError):
        spx._spx.wrap_device(cpu, 6, 5, *(getattr(FakeCsr(A), f) for f in ("indptr", "indices", "data")), "stream")
    with pytest.raises(TypeError):
        spx._spx.spgemm_device(1, 2)
    with pytest.raises(TypeError):
        spx._spx.plan_device(FakeCsr(A))


# ---- with CuPy and a GPU ----

def _cupy():
    try:
        import cupy
        import cupyx.scipy.sparse
        return cupy, cupyx.scipy.sparse
    except ImportError:
        return None, None


cupy, cpx = _cupy()
needs_gpu = pytest.mark.skipif(cupy is None or not GPU, reason="needs CuPy and a GPU spx can use")


@pytest.fixture(scope="module")
def cuda():
    return spx.Context("cuda")


@needs_gpu
@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["fp64", "fp32"])
@pytest.mark.parametrize("transpose_b", [False, True])
def test_spgemm_of_cupy_matrices(cuda, dtype, transpose_b):
    H = random_csr(300, 200, 6, seed=5).astype(dtype)
    G = random_csr(200 if not transpose_b else 150, 200 if transpose_b else 150, 5, seed=6).astype(dtype)
    Ad, Bd = cpx.csr_matrix(H), cpx.csr_matrix(G)
    D = spx.device_csr(Ad, context=cuda)
    assert D.addresses() == (Ad.indptr.data.ptr, Ad.indices.data.ptr, Ad.data.data.ptr)  # zero-copy
    assert D.wrapped and D.index_dtype == np.int32 and D.to_cupy() is Ad
    C = spx.spgemm(Ad, Bd, transpose_b=transpose_b, context=cuda)
    assert isinstance(C, cpx.csr_matrix) and C.dtype == dtype and C.indptr.dtype == np.int32
    R = H @ (G.T if transpose_b else G)
    tol = 1e-12 if dtype == np.float64 else 2e-5
    assert abs(sp.csr_array(C.get()) - R).max() <= tol * max(1.0, abs(R).max())


@needs_gpu
def test_device_matrix_results_and_memory(cuda):
    H = random_csr(400, 400, 5, seed=7)
    D = spx.device_csr(cpx.csr_matrix(H), context=cuda)
    before = cuda.mem_stats()["device_bytes"]
    C = spx.spgemm(D, D, context=cuda)
    assert isinstance(C, spx.DeviceMatrix) and not C.wrapped and C.nnz == (H @ H).nnz
    Cc = C.to_cupy()
    assert abs(sp.csr_array(Cc.get()) - H @ H).max() <= 1e-12 * abs(H @ H).max()
    del C
    gc.collect()
    assert cuda.mem_stats()["device_bytes"] > before  # Cc's arrays keep spx's memory
    del Cc
    gc.collect()
    assert cuda.mem_stats()["device_bytes"] == before


@needs_gpu
def test_plan_of_a_cupy_matrix(cuda):
    H = random_csr(500, 400, 6, seed=8)
    p = spx.plan(cpx.csr_matrix(H), format="csr", context=cuda)
    phases = [name for name, _ in p.info["phases"]]
    assert "copy" in phases and "download" not in phases, phases
    x = np.linspace(-1.0, 1.0, 400)
    y = cupy.asnumpy(p @ cupy.asarray(x))
    assert np.allclose(y, H @ x, rtol=0, atol=1e-12 * abs(H).sum(axis=1).max())
    with pytest.raises(ValueError, match="M='jacobi' needs the plan's matrix on the host"):
        spx.cg(spx.plan(cpx.csr_matrix(sp.eye(40, format="csr")), context=cuda), cupy.ones(40), M="jacobi")


@needs_gpu
def test_bad_device_matrices(cuda):
    H = random_csr(8, 8, 3, seed=9)
    bad = cpx.csr_matrix(H)
    indptr = cupy.asarray(H.indptr.astype(np.int32))
    indptr[2] = indptr[3] + 1  # row 2 ends before it starts
    with pytest.raises(spx.ArgumentError, match="CSR rowptr decreases at row 2"):
        spx._spx.wrap_device(cuda, 8, 8, indptr, bad.indices, bad.data)
    U = H.copy()
    row = next(i for i in range(8) if U.indptr[i + 1] - U.indptr[i] >= 2)
    U.indices[U.indptr[row]], U.indices[U.indptr[row] + 1] = U.indices[U.indptr[row] + 1], U.indices[U.indptr[row]]
    Ud = cpx.csr_matrix((cupy.asarray(U.data), cupy.asarray(U.indices), cupy.asarray(U.indptr)), shape=U.shape)
    assert spx.device_csr(Ud, context=cuda).unsorted_row == row
    with pytest.raises(ValueError, match=f"row {row} has unsorted or repeated column indices"):
        spx.spgemm(Ud, Ud, context=cuda)
