# python/tests/test_spgemm.py: spx.spgemm against scipy: C's pattern equals the structural product's (which cannot cancel), its values agree with scipy's A @ B within a bound of |A| @ |B|, on random, edge-case and shared matrices, fp64 and fp32, with and without transpose_b; the result's type follows A's.
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import spx
from conftest import BACKENDS, edge_cases, random_csr, shared

TOL = {np.float64: 1e-12, np.float32: 2e-5}


def ones_like(M):
    """M's pattern with every stored value 1."""
    P = sp.csr_array(M, dtype=np.float64, copy=True)
    P.data[:] = 1.0
    return P


def assert_product(C, A, B, dtype):
    """C = A @ B: pattern exact against the structural product, values within TOL of |A||B|."""
    A64, B64 = sp.csr_array(A, dtype=np.float64), sp.csr_array(B, dtype=np.float64)
    C = sp.csr_array(C)
    assert C.dtype == dtype and C.shape == (A.shape[0], B.shape[1])
    structural = ones_like(A64) @ ones_like(B64)
    assert C.nnz == structural.nnz
    assert (abs(ones_like(C) - ones_like(structural)) > 0).nnz == 0
    scale = (abs(A64) @ abs(B64)).toarray()
    err = np.abs(C.toarray().astype(np.float64) - (A64 @ B64).toarray())
    assert np.all(err <= TOL[dtype] * scale)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["fp64", "fp32"])
@pytest.mark.parametrize("transpose_b", [False, True])
def test_random(backend, dtype, transpose_b):
    ctx = spx.Context(backend)
    A = random_csr(300, 200, 6, seed=41, dtype=dtype)
    B = random_csr(300 if transpose_b else 200, 200 if transpose_b else 250, 5, seed=42, dtype=dtype)
    C = spx.spgemm(A, B, transpose_b=transpose_b, context=ctx)
    assert isinstance(C, sp.csr_array)
    assert_product(C, A, B.T if transpose_b else B, dtype)


@pytest.mark.parametrize("case", sorted(edge_cases()))
def test_edge_cases(cpu, case):
    A = edge_cases()[case]
    assert_product(spx.spgemm(A, A, transpose_b=True, context=cpu), A, A.T, np.float64)
    if A.shape[0] == A.shape[1]:
        assert_product(spx.spgemm(A, A, context=cpu), A, A, np.float64)


@pytest.mark.parametrize("name", ["can_96", "dwt_419", "cage8", "west0497", "lp_ship04l"])
def test_shared(cpu, name):
    A = sp.csr_array(scipy.io.mmread(shared(name)))
    A.sum_duplicates()
    assert_product(spx.spgemm(A, A, transpose_b=True, context=cpu), A, A.T, np.float64)


def test_cancelling_entry_is_kept(cpu):
    # A A = [[2, 0], [0, 2]]: both off-diagonal entries cancel (1*1 + 1*(-1)); spx keeps
    # the structural entries, scipy drops them
    A = sp.csr_array(np.array([[1.0, 1.0], [1.0, -1.0]]))
    C = spx.spgemm(A, A, context=cpu)
    assert C.nnz == 4 and (A @ A).nnz == 2
    assert C.toarray().tolist() == [[2.0, 0.0], [0.0, 2.0]]


def test_result_type_follows_a(cpu):
    A = random_csr(20, 20, 3)
    assert isinstance(spx.spgemm(sp.csr_matrix(A), A, context=cpu), sp.csr_matrix)
    M = spx.csr(A, context=cpu)
    C = spx.spgemm(M, M)
    assert isinstance(C, spx.Matrix) and not C.wrapped
    assert spx.spgemm(A.astype(np.float32), A, context=cpu).dtype == np.float64  # mixed: fp64
    assert spx.spgemm(A, A, precision="fp32", context=cpu).dtype == np.float32


def test_bad_shapes_and_contexts(cpu):
    A = random_csr(20, 30, 3)
    with pytest.raises(spx.ArgumentError, match="20 x 30.*20 x 30|inner"):
        spx.spgemm(A, A, context=cpu)
    other = spx.csr(A, context=spx.Context("cpu"))
    with pytest.raises(ValueError, match="another context"):
        spx.spgemm(spx.csr(A, context=cpu), other)
    with pytest.raises(spx.ArgumentError, match="nope"):
        spx.spgemm(A, A, transpose_b=True, method="nope", context=cpu)
