# python/tests/test_leaks.py: 10,000 calls of each entry point (and of refused calls) leave the reference counts of every argument, the Python heap (tracemalloc) and the context's own accounting (mem_stats) where they were.
import gc
import sys
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

import spx
from conftest import block, random_csr, refused, vector

CALLS = 10_000


def operations(cpu):
    A = random_csr(60, 50, 4)
    S = sp.csr_array(sp.kronsum(sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(4, 4)),
                                sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(4, 4))))
    x, y, b = vector(50), np.zeros(60), vector(16)
    X, Y, X32, Y32 = block(50, 3), np.zeros((60, 3)), block(50, 3, np.float32), np.zeros((60, 3), np.float32)
    p = spx.plan(A, context=cpu)
    p32 = spx.plan(A, precision="fp32", context=cpu)
    ps = spx.plan(S, context=cpu)
    keep = (A, S, A.data, A.indices, A.indptr, x, y, b, X, Y, X32, Y32, p, p32, ps, cpu)
    ops = {
        "spmv": lambda: p.spmv(x, y, 2.0, 0.5),
        "matmul": lambda: p @ x,
        "spmm": lambda: p.spmm(X, Y, 2.0, 0.5),
        "spmm_new_Y": lambda: p @ X,
        "spmm_copied_fp32": lambda: p32._plan.spmm_host(X32, Y32, 2.0, 0.5, True),
        "spmm_info": lambda: p.spmm_info(3),
        "bad_spmm": refused(lambda: p.spmm(X[:49], Y), ValueError),
        "bad_spmm_layout": refused(lambda: p.spmm(X, np.zeros((60, 3), order="F")), ValueError),
        "wrap": lambda: spx.csr(A, context=cpu),
        "wrap_converting": lambda: spx.csr(A.astype(np.float32), context=cpu),
        "plan": lambda: spx.plan(A, context=cpu),
        "info": lambda: p.info,
        "to_scipy": lambda: spx.csr(A, context=cpu).to_scipy(sp.csr_matrix),
        "gen": lambda: spx.gen("poisson2d:n=4", context=cpu),
        "spgemm": lambda: spx.spgemm(S, S, context=cpu),
        "cg_jacobi": lambda: spx.cg(ps, b, M="jacobi", full_output=True),
        "bicgstab": lambda: spx.bicgstab(ps, b),
        "bad_x": refused(lambda: p.spmv(np.ones(49)), ValueError),
        "bad_dtype": refused(lambda: p.spmv(x.astype(np.float32)), TypeError),
        "bad_format": refused(lambda: spx.plan(A, format="nope", context=cpu), spx.ArgumentError),
        "bad_csr": refused(lambda: spx._spx.wrap(cpu, 2, 2, np.array([0, 2, 1], np.int32), np.zeros(2, np.int32),
                                                np.ones(2)), spx.ArgumentError),
        "bad_device_ptr": refused(lambda: p._plan.spmv_device_ptr(0, 50, 0, 60, 1.0, 0.0, None), TypeError),
        "bad_load": refused(lambda: spx.load("/nonexistent.mtx", context=cpu), spx.IOError),
    }
    return ops, keep


@pytest.fixture(scope="module")
def ops_and_refs(cpu):
    return operations(cpu)


@pytest.mark.parametrize("name", sorted(operations(spx.Context("cpu"))[0]))
def test_no_leaks(cpu, ops_and_refs, name):
    ops, keep = ops_and_refs
    op = ops[name]
    for _ in range(100):  # warm-up: caches, interned strings, first-use allocations
        op()
    gc.collect()
    refs = [sys.getrefcount(o) for o in keep]
    host = cpu.mem_stats()["host_bytes"]
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for _ in range(CALLS):
        op()
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert [sys.getrefcount(o) for o in keep] == refs
    assert grown < 16 * 1024, f"{name}: the Python heap grew by {grown} bytes over {CALLS} calls"
    assert cpu.mem_stats()["host_bytes"] == host
