# python/tests/test_errors.py: every bad argument of contexts, loading, plans and SpMV raises a Python exception that says what is wrong (spx's own message for what spx refuses); Plan.spmv's CuPy fast path is taken only when every check passes (a stand-in CuPy module, no GPU needed).
import os
import sys
import types

import numpy as np
import pytest
import scipy.sparse as sp

import spx
from conftest import GPU, TEST_DATA, Spy, random_csr


@pytest.fixture(scope="module")
def plan64(cpu):
    return spx.plan(random_csr(30, 20, 3), context=cpu)


def test_context_arguments():
    with pytest.raises(ValueError, match="backend 'gpu' is not 'auto', 'cpu' or 'cuda'"):
        spx.Context("gpu")
    with pytest.raises(ValueError, match="must be >= 0"):
        spx.Context("cpu", device=-1)
    with pytest.raises(TypeError):
        spx.Context(backend=3)
    c = spx.Context("cpu", threads=1)
    assert c.backend == "cpu" and c.threads == 1 and c.device == 0
    assert set(c.mem_stats()) == {"host_bytes", "host_peak", "host_budget", "device_bytes", "device_peak",
                                  "device_budget"}


@pytest.mark.skipif(GPU, reason="checks the refusal of 'cuda' where no GPU can be used")
def test_cuda_context_without_a_gpu_says_why():
    with pytest.raises(spx.Error) as e:
        spx.Context("cuda")
    assert e.value.status in ("SPX_ERR_NOT_COMPILED", "SPX_ERR_NO_DEVICE") and str(e.value)


def test_default_context():
    d = spx.default_context()
    assert spx.default_context() is d
    c = spx.Context("cpu")
    spx.set_default_context(c)
    try:
        assert spx.default_context() is c and spx.csr(random_csr(3, 3, 1)).context is c
    finally:
        spx.set_default_context(d)
    with pytest.raises(TypeError, match="expected an spx.Context"):
        spx.set_default_context("cpu")


def test_load_errors(cpu):
    with pytest.raises(spx.IOError) as e:
        spx.load("/nonexistent/m.mtx", context=cpu)
    assert isinstance(e.value, OSError) and "/nonexistent/m.mtx" in str(e.value) and e.value.status == "SPX_ERR_IO"
    bad = os.path.join(TEST_DATA, "bad", "column_index_out_of_range.mtx")
    with pytest.raises(spx.ArgumentError, match="column_index_out_of_range.mtx:[0-9]+"):
        spx.load(bad, context=cpu)
    with pytest.raises(spx.ArgumentError, match="nosuch"):
        spx.gen("nosuch:n=3", context=cpu)


def test_plan_arguments(cpu):
    A = random_csr(10, 10, 2)
    with pytest.raises(spx.ArgumentError, match="unknown format 'nope'") as e:
        spx.plan(A, format="nope", context=cpu)
    assert e.value.status == "SPX_ERR_ARG"
    with pytest.raises(spx.ArgumentError, match="format 'csr' has no algorithm 'zzz'"):
        spx.plan(A, format="csr", algo="zzz", context=cpu)
    with pytest.raises(spx.Error, match="cusparse.*(no CPU path|not built)"):
        spx.plan(A, format="cusparse", backend="cpu", context=cpu)
    with pytest.raises(ValueError, match="precision must be 'fp64', 'fp32'"):
        spx.plan(A, precision="fp16", context=cpu)
    with pytest.raises(ValueError, match="precision must be"):
        spx.plan(A, precision=np.int32, context=cpu)
    with pytest.raises(ValueError, match="backend must be one of 'auto', 'cpu', 'cuda'"):
        spx.plan(A, backend="gpu", context=cpu)
    with pytest.raises(ValueError, match="build must be one of"):
        spx.plan(A, build="anywhere", context=cpu)
    with pytest.raises(ValueError, match="another context"):
        spx.plan(spx.csr(A, context=spx.Context("cpu")), context=cpu)
    with pytest.raises(TypeError):
        spx.plan(A, format=3, context=cpu)
    with pytest.raises(ValueError, match="expected_spmvs must be >= 0"):
        spx.plan(A, expected_spmvs=-1, context=cpu)
    with pytest.raises(TypeError):
        spx.plan(A, expected_spmvs="many", context=cpu)


def test_spmv_arguments(plan64):
    x, y = np.ones(20), np.zeros(30)
    with pytest.raises(ValueError, match="x has 19 entries, expected 20"):
        plan64.spmv(np.ones(19))
    with pytest.raises(ValueError, match="y has 29 entries, expected 30"):
        plan64.spmv(x, np.zeros(29))
    with pytest.raises(TypeError, match="x must be float64 like the plan .*astype"):
        plan64.spmv(np.ones(20, np.float32))
    with pytest.raises(TypeError, match="y must be float64"):
        plan64.spmv(x, np.zeros(30, np.int64))
    with pytest.raises(ValueError, match="y is read-only"):
        ro = np.zeros(30)
        ro.flags.writeable = False
        plan64.spmv(x, ro)
    with pytest.raises(ValueError, match="y is not contiguous"):
        plan64.spmv(x, np.zeros(60)[::2])
    with pytest.raises(ValueError, match="x is not contiguous"):
        plan64.spmv(np.ones(40)[::2])
    with pytest.raises(ValueError, match="x must be 1-D"):
        plan64.spmv(np.ones((20, 1)))
    with pytest.raises(ValueError, match="beta != 0 reads y"):
        plan64.spmv(x, beta=1.0)
    with pytest.raises(TypeError, match="x must be a NumPy array of float64, not <class 'str'>"):
        plan64.spmv("abc")
    with pytest.raises(ValueError, match="could not convert"):
        plan64.spmv(x, y, alpha="two")
    buf = np.zeros(60)
    with pytest.raises(ValueError, match="x and y overlap"):
        plan64.spmv(buf[:20], buf[10:40])
    assert not y.any()  # nothing written by a refused call


def test_spmv_squares_x_and_y_alias(cpu):
    p = spx.plan(sp.csr_array(np.eye(4)), context=cpu)
    v = np.ones(4)
    with pytest.raises(ValueError, match="overlap"):
        p.spmv(v, v)


class FakeDeviceArray:
    """Claims to be a device array (for the checks that come before any device call)."""

    def __init__(self, n, typestr="<f8", strides=None, ptr=0):
        self.__cuda_array_interface__ = {"shape": (n,), "typestr": typestr, "data": (ptr, False),
                                         "strides": strides, "version": 3}


def test_device_arrays_on_a_cpu_plan(plan64):
    with pytest.raises(TypeError, match="this plan runs on the CPU: pass NumPy arrays"):
        plan64.spmv(FakeDeviceArray(20), FakeDeviceArray(30))
    with pytest.raises(TypeError, match="this plan runs on the CPU"):
        spx.cg(plan64.matrix.to_scipy()[:20, :20], FakeDeviceArray(20), context=plan64.context)


class StandInCupyArray(FakeDeviceArray):
    """A stand-in cupy.ndarray (1-D): the fields Plan.spmv's CuPy fast path reads, and the
    interface dict its general path reads."""

    def __init__(self, n, dtype=np.float64, contiguous=True, device=0, ptr=4096):
        dt = np.dtype(dtype)
        super().__init__(n, dt.str, None if contiguous else (2 * dt.itemsize,), ptr)
        self.data = types.SimpleNamespace(ptr=ptr, device_id=device)
        self.dtype, self.ndim, self.size, self._c_contiguous = dt, 1, n, contiguous


def test_cupy_fast_path_dispatch(plan64, monkeypatch):
    # a stand-in CuPy module: the fast path is learnt from the first array the general path sees,
    # then taken only when every check passes; the CPU plan refuses both entries (no device memory
    # is touched), which is all the dispatch needs
    cupy = types.ModuleType("cupy")
    cupy.ndarray, cupy.zeros = StandInCupyArray, lambda n, dtype: StandInCupyArray(n, dtype, ptr=8192)
    cupy.cuda = types.SimpleNamespace(get_current_stream=lambda: types.SimpleNamespace(ptr=77))
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setattr(spx._core, "_cupy_ndarray", None)
    monkeypatch.setattr(spx._core, "_cupy_stream", None)
    spy = Spy(plan64._plan)
    monkeypatch.setattr(plan64, "_plan", spy)
    x, y = StandInCupyArray(20, ptr=1024), StandInCupyArray(30, ptr=2048)

    def entry(*args, **kw):
        with pytest.raises(TypeError, match="this plan runs on the CPU"):
            plan64.spmv(*args, **kw)
        return spy.calls[-1]

    assert entry(x, y)[0] == "spmv_device" and spx._core._cupy_ndarray is StandInCupyArray
    assert entry(x, y) == ("spmv_device_ptr", (1024, 20, 2048, 30, 1.0, 0.0, 77))
    assert entry(x, y, 2, -1, stream=5) == ("spmv_device_ptr", (1024, 20, 2048, 30, 2.0, -1.0, 5))
    assert entry(x) == ("spmv_device_ptr", (1024, 20, 8192, 30, 1.0, 0.0, 77))  # y made by cupy.zeros
    assert entry(StandInCupyArray(19), y)[1][1] == 19  # sizes are checked in C
    for bad_x, bad_y in [(StandInCupyArray(20, np.float32), y), (x, StandInCupyArray(30, np.float32)),
                         (StandInCupyArray(20, contiguous=False), y), (x, StandInCupyArray(30, contiguous=False)),
                         (StandInCupyArray(20, device=1), y), (x, StandInCupyArray(30, device=1))]:
        assert entry(bad_x, bad_y)[0] == "spmv_device"  # the general path, which says what is wrong
    flat = StandInCupyArray(20)
    flat.ndim = 2
    assert entry(flat, y)[0] == "spmv_device"
    with pytest.raises(ValueError, match="could not convert"):
        plan64.spmv(x, y, alpha="two")
