#!/usr/bin/env python3
# bench/overhead/overhead.py: the median time of one plan.spmv(x, y) from Python on the matrix and settings of bench/overhead/overhead.c (gen:poisson2d:n=32, csr, 10,000 calls after 1,000 warm-ups): --backend cpu (default) a CPU plan, 1 thread, NumPy arrays; --backend cuda a CUDA plan on CuPy arrays, each call followed by a synchronize of CuPy's current stream (the default stream), as overhead.c built with -DOVERHEAD_CUDA does in C, with the sub-costs beside it (the CuPy fast path's C entry alone; the general __cuda_array_interface__ path in full (what plan.spmv did before the fast path) and its C entry alone; reading the interface dicts); exits 77 ("skipped") without CuPy or a usable GPU. Usage: overhead.py BUILD_PYTHON_DIR [--backend cpu|cuda]
import sys
import time

import numpy as np

sys.path.insert(0, sys.argv[1])
import spx  # noqa: E402

SPEC, WARMUP, CALLS = "gen:poisson2d:n=32", 1000, 10000


def median_us(fn):
    """The median of CALLS timings of fn() on the host clock, in microseconds."""
    times = []
    for _ in range(CALLS):
        t0 = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - t0)
    times.sort()
    return times[CALLS // 2] / 1e3


def host():
    ctx = spx.Context("cpu", threads=1)
    plan = spx.plan(spx.gen(SPEC, context=ctx), format="csr", context=ctx)
    x, y = np.ones(plan.shape[1]), np.empty(plan.shape[0])
    for _ in range(WARMUP):
        plan.spmv(x, y)
    t = median_us(lambda: plan.spmv(x, y))
    print("Python  median %.2f us per plan.spmv(x, y) (%d rows, %d calls)" % (t, plan.shape[0], CALLS))


def skip(why):
    print("Python CUDA skipped: " + why)
    sys.exit(77)


def device():
    try:
        import cupy
    except ImportError as e:
        skip(f"CuPy not available ({e})")
    if not spx.cuda_compiled():
        skip("the module was built without the CUDA backend")
    try:
        ctx = spx.Context("cuda", threads=1)
    except spx.Error as e:
        skip(f"no usable GPU ({e})")
    M = spx.gen(SPEC, context=ctx)
    plan = spx.plan(M, format="csr", backend="cuda", context=ctx)
    x, y = cupy.ones(plan.shape[1]), cupy.empty(plan.shape[0])
    stream = cupy.cuda.get_current_stream()

    def call():
        plan.spmv(x, y)
        stream.synchronize()

    def c_layer():  # the general path's C entry alone, past the Python wrapper's dispatch
        plan._plan.spmv_device(x, y, 1.0, 0.0, stream.ptr)
        stream.synchronize()

    xp, yp, nx, ny = x.data.ptr, y.data.ptr, x.size, y.size

    def c_fast():  # the CuPy fast path's C entry alone (pointers read once, outside the timing)
        plan._plan.spmv_device_ptr(xp, nx, yp, ny, 1.0, 0.0, stream.ptr)
        stream.synchronize()

    def general():  # the general path in full (Plan.spmv before the fast path: interface dicts, checks)
        plan._spmv_checked(x, y, 1.0, 0.0, None)
        stream.synchronize()

    for _ in range(WARMUP):
        call()
    fast = spx._core._cupy_ndarray is cupy.ndarray  # learnt by the first call: the timed calls take it
    t = median_us(call)
    t_sync = median_us(stream.synchronize)
    t_c = median_us(c_layer)
    t_fast = median_us(c_fast)
    t_general = median_us(general)
    t_cai = median_us(lambda: (x.__cuda_array_interface__, y.__cuda_array_interface__))
    ref = M.to_scipy() @ np.ones(plan.shape[1])
    err = float(np.max(np.abs(cupy.asnumpy(y) - ref)))
    if err > 1e-12:
        sys.exit(f"error: y differs from scipy's A @ 1 by {err:g}")
    print("Python CUDA median %.2f us per plan.spmv(x, y) + stream.synchronize() (%d rows, %d calls; CuPy fast "
          "path %s); bare sync %.2f us (CuPy Stream.synchronize); of the call: the fast path's C entry alone "
          "(plan._plan.spmv_device_ptr + sync) %.2f us; the general __cuda_array_interface__ path, for "
          "comparison: in full (plan._spmv_checked + sync) %.2f us, its C entry alone (plan._plan.spmv_device + "
          "sync) %.2f us, reading x's and y's __cuda_array_interface__ %.2f us"
          % (t, plan.shape[0], CALLS, "taken" if fast else "NOT taken", t_sync, t_fast, t_general, t_c, t_cai))


def main():
    backend = sys.argv[3] if len(sys.argv) == 4 and sys.argv[2] == "--backend" else "cpu" if len(sys.argv) == 2 else None
    if backend not in ("cpu", "cuda"):
        sys.exit("usage: overhead.py BUILD_PYTHON_DIR [--backend cpu|cuda]")
    host() if backend == "cpu" else device()


if __name__ == "__main__":
    main()
