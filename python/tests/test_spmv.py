# python/tests/test_spmv.py: SpMV through spx.plan against scipy's A @ x: every format of each backend on the DESIGN.md section 8 edge cases, random and shared matrices, fp64 and fp32, alpha/beta, plan info, and spx.load against scipy.io.mmread.
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import spx
from conftest import BACKENDS, DTYPES, assert_spmv, edge_cases, random_csr, shared, vector

CASES = edge_cases()


def formats_of(backend):
    """The formats with an SpMV on this backend in this build."""
    return [f["name"] for f in spx.formats() if f["available"] and f[backend]]


PLANS = [(b, f) for b in BACKENDS for f in formats_of(b)]


@pytest.mark.parametrize("backend,fmt", PLANS)
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("dtype", DTYPES, ids=["fp64", "fp32"])
def test_edge_cases_every_format(backend, fmt, case, dtype):
    ctx = spx.Context(backend)
    A = CASES[case].astype(dtype)
    p = spx.plan(A, format=fmt, context=ctx)
    assert p.info["format"] == fmt and p.backend == backend
    x = vector(A.shape[1], dtype)
    assert_spmv(p.spmv(x), A, x, dtype)
    y0 = vector(A.shape[0], dtype, seed=12)
    y = y0.copy()
    assert p.spmv(x, y, alpha=2.0, beta=-0.5) is y
    assert_spmv(y, A, x, dtype, 2.0, -0.5, y0)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES, ids=["fp64", "fp32"])
def test_random_auto_format(backend, dtype):
    A = random_csr(3000, 2500, 12, seed=21, dtype=dtype)
    p = spx.plan(A, context=spx.Context(backend))
    x = vector(2500, dtype)
    assert_spmv(p @ x, A, x, dtype)
    assert p.dtype == dtype and p.shape == (3000, 2500)


@pytest.mark.parametrize("backend", BACKENDS)
def test_auto_with_expected_spmvs(backend):
    """format 'auto' follows the selection table, at its default of 100 SpMVs without
    expected_spmvs (csr for this small matrix on either backend): any format, the same product."""
    A = random_csr(4000, 4000, 10, seed=5)
    ctx = spx.Context(backend)
    assert spx.plan(A, context=ctx).info["format"] == "csr"
    for n in (1, 100, 10**6):
        p = spx.plan(A, expected_spmvs=n, context=ctx)
        x = vector(4000, np.float64)
        assert_spmv(p @ x, A, x, np.float64)
        assert p.info["format"] in formats_of(backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_plan_order(backend):
    """order='plan': ehyb takes x and y in its numbering (Plan.permutation), every other format
    stays in the caller's order (permutation None); the product is A @ x either way."""
    A = spx.gen("poisson3d:n=14").to_scipy()
    ctx = spx.Context(backend)
    x = vector(A.shape[1], np.float64)
    for fmt in formats_of(backend):
        algo = "grow" if fmt == "ehyb" else None
        p = spx.plan(A, format=fmt, algo=algo, order="plan", context=ctx)
        perm = p.permutation
        assert p.info["plan_order"] == (perm is not None) and (perm is not None) == (fmt == "ehyb")
        if perm is None:
            assert_spmv(p @ x, A, x, np.float64)
            continue
        assert sorted(perm.tolist()) == list(range(A.shape[0]))
        y = np.empty_like(x)
        y[perm] = p @ x[perm]
        assert_spmv(y, A, x, np.float64)
    with pytest.raises(ValueError):
        spx.plan(A, order="sideways", context=ctx)


@pytest.mark.parametrize("name", ["can_96", "dwt_419", "cage8", "west0497", "mahindas", "lp_ship04l", "bcsstk09"])
def test_shared_matrices_load_and_spmv(cpu, name):
    path = shared(name)
    ref = sp.csr_array(scipy.io.mmread(path))
    ref.sum_duplicates()
    M = spx.load(path, context=cpu)
    assert M.shape == ref.shape and not M.wrapped
    got = M.to_scipy()
    assert got.nnz == ref.nnz
    assert (abs(got - ref) > 0).nnz == 0  # pattern and values equal (pattern files read as 1)
    for backend in BACKENDS:
        p = spx.plan(M, context=cpu) if backend == "cpu" else spx.plan(got, context=spx.Context("cuda"))
        for dtype in DTYPES:
            q = p if dtype == np.float64 else spx.plan(got.astype(np.float32), context=p.context)
            x = vector(ref.shape[1], dtype)
            assert_spmv(q @ x, ref, x, dtype)


def test_gen_matches_its_scipy_twin(cpu):
    # the 5-point Laplacian spx gen makes with laplace=1, built independently here
    n = 12
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    L = sp.csr_array(sp.kronsum(T, T))
    G = spx.gen("poisson2d:n=12,laplace=1", context=cpu).to_scipy()
    assert G.shape == L.shape and abs(G - L).max() == 0


def test_plan_info_fields(cpu):
    A = random_csr(500, 400, 6)
    info = spx.plan(A, format="csr", algo="scalar", context=cpu).info
    assert (info["format"], info["algo"], info["backend"], info["precision"]) == ("csr", "scalar", "cpu", "fp64")
    assert (info["m"], info["n"]) == (500, 400)
    assert info["bytes_per_spmv"] > 8 * A.nnz and info["plan_seconds"] > 0
    names = [name for name, _ in info["phases"]]
    assert names[:2] == ["check", "features"] and names[-1] == "finish"
    assert sum(t for _, t in info["phases"]) <= info["plan_seconds"]  # disjoint spans of the plan
    assert isinstance(info["stats"], dict) and info["device_bytes"] == 0
    assert spx.plan(A, precision="fp32", context=cpu).info["precision"] == "fp32"


def test_lists_are_accepted_as_x(cpu):
    p = spx.plan(sp.csr_array(np.array([[1.0, 2.0], [0.0, 3.0]])), context=cpu)
    assert list(p @ [1.0, 1.0]) == [3.0, 3.0]


def test_linear_operator_with_scipy_solvers(cpu):
    import scipy.sparse.linalg as sla
    A = random_csr(200, 200, 5, seed=31) + sp.eye(200, format="csr") * 20
    op = spx.aslinearoperator(spx.plan(sp.csr_array(A), context=cpu))
    assert op.shape == (200, 200) and op.dtype == np.float64
    x = vector(200)
    assert_spmv(op.matvec(x), A, x, np.float64)
    assert_spmv(op.matvec(x.reshape(-1, 1)).ravel(), A, x, np.float64)
    b = vector(200, seed=3)
    sol, info = sla.gmres(op, b, atol=0.0)  # scipy's default relative tolerance, 1e-5
    assert info == 0
    assert np.linalg.norm(A @ sol - b) <= 1e-5 * np.linalg.norm(b)
    exact = sla.spsolve(sp.csc_matrix(A), b)
    assert np.linalg.norm(sol - exact) <= 1e-4 * np.linalg.norm(exact)
