# python/tests/test_wrap.py: spx.csr over scipy matrices: the arrays shared (asserted by address and by mutation), the conversions reported in .copied, the round trips to scipy, and every malformed CSR refused with a message.
import numpy as np
import pytest
import scipy.sparse as sp

import spx
from spx import _spx
from conftest import assert_spmv, random_csr, vector


def test_int32_float64_arrays_are_shared(cpu):
    A = random_csr(300, 200, 5)
    M = spx.csr(A, context=cpu)
    rowptr, colind, val = M.addresses()
    assert colind == A.indices.ctypes.data
    assert val == A.data.ctypes.data
    assert rowptr != A.indptr.ctypes.data  # spx keeps int64 row pointers: indptr is converted
    assert M.copied == ("indptr",) and M.wrapped
    assert M.to_scipy() is A


@pytest.mark.parametrize("cls", [sp.csr_array, sp.csr_matrix])
def test_values_changed_in_scipy_are_seen_by_later_plans(cpu, cls):
    A = cls(random_csr(100, 80, 4))
    M = spx.csr(A, context=cpu)
    x = vector(80)
    before = spx.plan(M, context=cpu) @ x
    A.data *= 3.0  # in place: the wrapped matrix sees it
    after = spx.plan(M, context=cpu) @ x
    assert_spmv(after, A, x, np.float64)
    assert np.allclose(after, 3.0 * before, rtol=1e-12, atol=1e-12) and not np.allclose(after, before)
    C = spx.spgemm(M, M.to_scipy().T.tocsr())  # a product made now uses the new values too
    assert abs(C.to_scipy() - A @ A.T).max() <= 1e-12 * abs(A).max() ** 2 * 10


def test_plan_keeps_its_own_copy(cpu):
    A = random_csr(50, 50, 3)
    p = spx.plan(A, context=cpu)
    x = vector(50)
    y1 = p @ x
    A.data[:] = 0.0
    assert np.array_equal(p @ x, y1)  # a plan converted the matrix when it was made


def test_int64_indices_and_float32_values_are_converted(cpu):
    A = random_csr(40, 30, 4)
    B = sp.csr_array(A, dtype=np.float32)
    B.indices, B.indptr = A.indices.astype(np.int64), A.indptr.astype(np.int64)  # scipy would narrow them
    assert B.indices.dtype == np.int64 and B.indptr.dtype == np.int64
    M = spx.csr(B, context=cpu)
    assert M.copied == ("indices", "data") and M.dtype == np.float32
    assert M.addresses()[0] == B.indptr.ctypes.data  # int64 row pointers are shared
    p = spx.plan(M, context=cpu)
    assert p.dtype == np.float32
    x = vector(30, np.float32)
    assert_spmv(p @ x, B, x, np.float32)


def test_round_trips(cpu):
    A = random_csr(70, 90, 6, dtype=np.float32)
    G = spx.gen("uniform:m=70,n=90,k=6", context=cpu)
    S = G.to_scipy()
    assert isinstance(S, sp.csr_array) and S.shape == (70, 90) and S.nnz == G.nnz
    assert S.indices.dtype == np.int32 and S.indptr.dtype == np.int32 and S.has_sorted_indices
    again = spx.csr(S, context=cpu).to_scipy(sp.csr_matrix)
    assert isinstance(again, sp.csr_matrix) and abs(again - S).max() == 0
    assert spx.csr(A, context=cpu).to_scipy(sp.csr_array).dtype == np.float32
    assert spx.csr(spx.csr(A, context=cpu)) is not None


def test_empty_and_extra_capacity(cpu):
    E = spx.csr(sp.csr_array((0, 0)), context=cpu)
    assert E.shape == (0, 0) and E.nnz == 0
    # scipy allows indices and data longer than nnz: spx reads the first nnz
    indptr = np.array([0, 1, 2], np.int32)
    M = _spx.wrap(cpu, 2, 2, indptr, np.array([1, 0, 7], np.int32), np.array([5.0, 6.0, 9.0]))
    y = spx.Plan(_spx.plan(M), spx.Matrix(M)) @ np.array([1.0, 10.0])
    assert list(y) == [50.0, 6.0]


def unsorted():
    return sp.csr_array((np.array([1.0, 2.0]), np.array([1, 0], np.int32), np.array([0, 2], np.int32)), shape=(1, 2))


def test_unsorted_or_duplicate_columns_are_refused(cpu):
    with pytest.raises(ValueError, match="row 0 has unsorted or repeated column indices: call A.sum_duplicates"):
        spx.csr(unsorted(), context=cpu)
    dup = sp.csr_array((np.array([1.0, 2.0]), np.array([1, 1], np.int32), np.array([0, 2], np.int32)), shape=(1, 2))
    with pytest.raises(ValueError, match="unsorted or repeated"):
        spx.plan(dup, context=cpu)
    fixed = unsorted()
    fixed.sum_duplicates()
    assert list(spx.plan(fixed, context=cpu) @ np.array([1.0, 1.0])) == [3.0]


def test_columns_made_unsorted_after_wrap_are_caught_by_plan(cpu):
    A = random_csr(10, 10, 3, seed=5)
    M = spx.csr(A, context=cpu)
    r = int(np.argmax(np.diff(A.indptr) >= 2))
    k = A.indptr[r]
    A.indices[k], A.indices[k + 1] = A.indices[k + 1], A.indices[k]
    with pytest.raises(ValueError, match=f"row {r} of the matrix has unsorted"):
        spx.plan(M, context=cpu)


def test_not_csr_is_refused(cpu):
    with pytest.raises(TypeError, match="not COO: convert with A.tocsr"):
        spx.csr(sp.coo_array(np.eye(3)), context=cpu)
    with pytest.raises(TypeError, match="not CSC"):
        spx.plan(sp.csc_matrix(np.eye(3)), context=cpu)
    with pytest.raises(TypeError, match="takes a scipy.sparse or cupyx.scipy.sparse CSR matrix, not ndarray"):
        spx.csr(np.eye(3), context=cpu)


BAD_WRAPS = [
    # (m, n, indptr, indices, data), the exception and its message
    ((2, 2, [0, 1, 2], [0, 1], np.array([1, 2], np.int64)), TypeError, "data must hold float64 or float32"),
    ((2, 2, [0, 1, 2], [0, 1], np.array([1, 2], np.complex128)), TypeError, "float64 or float32"),
    ((2, 2, [0, 1, 2], [0, 1], np.array([1, 2], np.float16)), TypeError, "float64 or float32"),
    ((2, 2, [0, 1, 2], np.array([0, 1], np.int16), [1.0, 2.0]), TypeError, "indices must hold int32 or int64"),
    ((2, 2, [0, 1, 2], np.array([0, 1], np.uint32), [1.0, 2.0]), TypeError, "int32 or int64"),
    ((2, 2, [0, 1, 2], [0, 1], np.array([1.0, 0, 2, 0])[::2]), ValueError, "data is not contiguous"),
    ((2, 2, [0, 1, 2], [0, 1], np.ones((2, 1))), ValueError, "data must be 1-D"),
    ((2, 2, [0, 1], [0, 1], [1.0, 2.0]), ValueError, "indptr has 2 entries, expected at least 3"),
    ((2, 2, [0, 1, 2, 2], [0, 1], [1.0, 2.0]), ValueError, "indptr has 4 entries, expected m \\+ 1 = 3"),
    ((2, 2, [1, 1, 2], [0, 1], [1.0, 2.0]), ValueError, "indptr must start at 0"),
    ((2, 2, [0, 2, 1], [0, 1], [1.0, 2.0]), spx.ArgumentError, "CSR rowptr decreases at row 1"),
    ((2, 2, [0, 1, 2], [0, 2], [1.0, 2.0]), spx.ArgumentError, "CSR column index 2 out of range 0..1"),
    ((2, 2, [0, 1, 2], [0, -1], [1.0, 2.0]), spx.ArgumentError, "column index -1 out of range"),
    ((2, 2, [0, 1, 2], np.array([0, 5], np.int64), [1.0, 2.0]), ValueError, "indices\\[1\\] = 5 is outside"),
    ((2, 2, [0, 1, 3], [0, 1], [1.0, 2.0]), ValueError, "indices has 2 entries, expected at least 3"),
    ((2, 2, [0, 1, 2], [0, 1], [1.0]), ValueError, "data has 1 entries, fewer than nnz = 2"),
    ((2, 2, [0, 1, 2], [0, 1], "ab"), TypeError, "data must be a NumPy array"),
    ((-1, 2, [0], [], []), ValueError, "spx takes 0 <= rows"),
    ((2**31, 2, [0], [], []), ValueError, "spx takes 0 <= rows"),
]


@pytest.mark.parametrize("args,exc,msg", BAD_WRAPS)
def test_malformed_csr_is_refused(cpu, args, exc, msg):
    m, n, indptr, indices, data = args
    as_arr = (lambda a, t: np.asarray(a, dtype=t) if isinstance(a, list) else a)
    with pytest.raises(exc, match=msg):
        _spx.wrap(cpu, m, n, as_arr(indptr, np.int32), as_arr(indices, np.int32), as_arr(data, np.float64))


def test_spx_errors_carry_the_status(cpu):
    with pytest.raises(spx.ArgumentError) as e:
        _spx.wrap(cpu, 2, 2, np.array([0, 2, 1], np.int32), np.array([0, 1], np.int32), np.ones(2))
    assert e.value.status == "SPX_ERR_ARG" and isinstance(e.value, ValueError) and isinstance(e.value, spx.Error)
