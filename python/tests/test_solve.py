# python/tests/test_solve.py: spx.cg and spx.bicgstab against scipy: the true residual (computed by scipy) within the tolerance, the solution against spsolve, iteration counts against scipy's cg, Jacobi, fp32, the residual history, and the ends that are not convergence (maxiter, breakdown, b = 0).
import inspect

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import spx
from conftest import BACKENDS, random_csr, shared, vector


def laplacian(n):
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    return sp.csr_array(sp.kronsum(T, T))


def scaled_laplacian(n, top):
    """D L D for the n x n grid's Laplacian L and D = diag(geomspace(1, top)): a diagonal that
    varies (Jacobi then matters)."""
    L = laplacian(n)
    D = sp.diags(np.geomspace(1.0, top, L.shape[0]))
    A = sp.csr_array(D @ L @ D)
    A.sum_duplicates()
    return A


def scipy_cg(A, b, rtol, M=None):
    """scipy's cg (rtol or, before scipy 1.12, tol) and its iteration count."""
    count = [0]
    key = "rtol" if "rtol" in inspect.signature(sla.cg).parameters else "tol"
    x, info = sla.cg(A, b, atol=0.0, M=M, callback=lambda xk: count.__setitem__(0, count[0] + 1), **{key: rtol})
    return x, info, count[0]


def check_solution(A, b, x, rtol, exact=True):
    """||b - A x|| <= 10 rtol ||b|| (scipy computes it) and x near spsolve's."""
    A64 = sp.csr_array(A, dtype=np.float64)
    b64, x64 = np.asarray(b, np.float64), np.asarray(x, np.float64)
    assert np.linalg.norm(b64 - A64 @ x64) <= 10 * rtol * np.linalg.norm(b64)
    if exact:
        ref = sla.spsolve(sp.csc_matrix(A64), b64)
        cond_bound = 1e4  # the matrices here are mildly conditioned
        assert np.linalg.norm(x64 - ref) <= cond_bound * rtol * np.linalg.norm(ref)


def spd_problems():
    yield "laplacian_30", laplacian(30)
    yield "gen_poisson2d", spx.gen("poisson2d:n=25,laplace=1").to_scipy()
    A = sp.csr_array(scipy.io.mmread(shared("494_bus")))
    yield "494_bus", A


@pytest.mark.parametrize("backend", BACKENDS)
def test_cg_matches_scipy(backend):
    ctx = spx.Context(backend)
    for name, A in spd_problems():
        b = vector(A.shape[0], seed=5)
        p = spx.plan(A, context=ctx)
        x, info, res = spx.cg(p, b, rtol=1e-8, full_output=True)
        assert info == 0, (name, res)
        check_solution(A, b, x, 1e-8, exact=name != "494_bus")
        if name != "494_bus":  # ill-conditioned: 1600 iterations, where rounding moves the count by a few %
            _, sinfo, siters = scipy_cg(A, b, 1e-8)
            assert sinfo == 0
            assert abs(res.iterations - siters) <= max(2, siters // 50), (name, res.iterations, siters)
        assert res.status == "converged" and res.rel_residual <= 1e-8
        assert len(res.history) == res.iterations + 1 and res.history[0] == pytest.approx(1.0)
        assert res.history[-1] == res.rel_residual and res.spmvs >= res.iterations


@pytest.mark.parametrize("backend", BACKENDS)
def test_jacobi_on_a_badly_scaled_matrix(backend):
    ctx = spx.Context(backend)
    A = scaled_laplacian(20, 1e3)
    b = vector(A.shape[0], seed=6)
    x, info, plain = spx.cg(A, b, rtol=1e-8, full_output=True, context=ctx)
    xj, infoj, jac = spx.cg(A, b, rtol=1e-8, M="jacobi", full_output=True, context=ctx)
    assert infoj == 0
    check_solution(A, b, xj, 1e-8, exact=False)
    assert jac.iterations < plain.iterations
    Minv = sp.diags(1.0 / A.diagonal())
    _, _, siters = scipy_cg(A, b, 1e-8, M=Minv)
    assert abs(jac.iterations - siters) <= max(2, siters // 50)


@pytest.mark.parametrize("backend", BACKENDS)
def test_plan_in_its_own_order(backend):
    """A plan made with order='plan' (ehyb renumbers) solves with b and x in the caller's order:
    spx.cg permutes them in and out, and Jacobi (a diagonal that varies) is in the plan's order:
    the same iterations and solution as the caller's order."""
    if "ehyb" not in [f["name"] for f in spx.formats() if f["available"] and f[backend]]:
        pytest.skip("no ehyb in this build")
    ctx = spx.Context(backend)
    A = scaled_laplacian(24, 1e2)
    b = vector(A.shape[0], seed=7)
    runs = []
    for order in ("caller", "plan"):
        p = spx.plan(A, format="ehyb", algo="grow", order=order, context=ctx)
        assert (p.permutation is not None) == (order == "plan")
        x, info, res = spx.cg(p, b, rtol=1e-8, M="jacobi", full_output=True)
        assert info == 0
        check_solution(A, b, x, 1e-8, exact=False)
        runs.append(res.iterations)
    assert abs(runs[0] - runs[1]) <= 1


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("M", [None, "jacobi"])
def test_bicgstab_nonsymmetric(backend, M):
    n = 600
    A = random_csr(n, n, 5, seed=51) + sp.diags(np.full(n, 12.0)) + sp.diags(np.full(n - 1, 3.0), 1)
    A = sp.csr_array(A)
    A.sum_duplicates()
    b = vector(n, seed=7)
    x, info = spx.bicgstab(A, b, rtol=1e-10, M=M, context=spx.Context(backend))
    assert info == 0
    check_solution(A, b, x, 1e-10)


@pytest.mark.parametrize("backend", BACKENDS)
def test_fp32(backend):
    A = laplacian(16).astype(np.float32)
    b = vector(A.shape[0], np.float32, seed=8)
    x, info, res = spx.cg(A, b, rtol=1e-4, full_output=True, context=spx.Context(backend))
    assert info == 0 and x.dtype == np.float32
    check_solution(A, b, x, 1e-4)
    x2, info2 = spx.bicgstab(A, b, rtol=1e-4, context=spx.Context(backend))
    assert info2 == 0 and x2.dtype == np.float32
    check_solution(A, b, x2, 1e-4)


def test_x0_is_used_and_left_alone(cpu):
    A = laplacian(10)
    b = vector(100)
    exact = sla.spsolve(sp.csc_matrix(A), b)
    x0 = exact.copy()
    x, info, res = spx.cg(A, b, x0=x0, rtol=1e-6, full_output=True, context=cpu)
    assert info == 0 and res.iterations == 0 and np.array_equal(x0, exact) and x is not x0


def test_ends_other_than_convergence(cpu):
    A = laplacian(20)
    b = vector(400)
    x, info, res = spx.cg(A, b, rtol=1e-12, maxiter=3, full_output=True, context=cpu)
    assert info == 3 and res.status == "max iterations reached"
    assert res.iterations == 3 and len(res.history) == 4
    # indefinite: p'Ap <= 0 breaks CG down; never reported as converged
    x, info, res = spx.cg(sp.csr_array(sp.diags([1.0, -1.0])), np.array([1.0, 1.0]), full_output=True, context=cpu)
    assert info == -4 and res.status == "breakdown: p'Ap <= 0" and "p'Ap" in res.reason
    # b = 0: x = 0 at once
    x, info = spx.cg(A, np.zeros(400), x0=np.ones(400), context=cpu)
    assert info == 0 and not x.any()


def test_bad_solver_arguments(cpu):
    A = laplacian(5)
    b = np.ones(25)
    with pytest.raises(TypeError, match="M must be None or 'jacobi'"):
        spx.cg(A, b, M=sp.eye(25), context=cpu)
    with pytest.raises(ValueError, match="rtol must be > 0"):
        spx.cg(A, b, rtol=0.0, context=cpu)
    with pytest.raises(ValueError, match="maxiter >= 1"):
        spx.cg(A, b, maxiter=0, context=cpu)
    with pytest.raises(ValueError, match="b has shape"):
        spx.cg(A, np.ones(24), context=cpu)
    with pytest.raises(ValueError, match="x0 has shape"):
        spx.bicgstab(A, b, x0=np.ones(3), context=cpu)
    with pytest.raises(ValueError, match="square matrix, not 25x24"):
        spx.cg(sp.csr_array(sp.random(25, 24, 0.2, format="csr")), b, context=cpu)
    no_diag = sp.csr_array(np.array([[0.0, 1.0], [1.0, 2.0]]))
    with pytest.raises(spx.ArgumentError, match="row 1"):
        spx.cg(no_diag, np.ones(2), M="jacobi", context=cpu)
