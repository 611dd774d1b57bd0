# python/spx/linalg.py: the solvers (spx.cg, spx.bicgstab over spx_solve_cg / _bicgstab, scipy's calling convention) and spx.aslinearoperator for scipy.sparse.linalg and CuPy.
import numpy as np

from . import _spx
from ._core import Plan, current_stream, is_device_array, plan as make_plan

# spx_solve_status codes (include/spx/solve.h)
_CONVERGED, _MAX_ITER, _STOPPED = 0, 1, 2


class SolveResult:
    """How a solve ended: status (spx_solve_status_str), iterations, rel_residual (the
    recurrence's ||r|| / ||b||), spmvs, seconds, iter_seconds, reason, history (||r_k|| / ||b||
    from k = 0, a NumPy array of at most 2^22 entries) and host_copy_bytes (a CUDA plan given
    NumPy arrays copies b and x0 in and x out)."""

    __slots__ = ("status", "iterations", "rel_residual", "spmvs", "seconds", "iter_seconds", "reason", "history",
                 "host_copy_bytes", "code")

    def __init__(self, raw):
        (self.code, self.iterations, self.rel_residual, self.spmvs, self.seconds, self.iter_seconds, self.reason,
         history, self.host_copy_bytes) = raw
        self.status = _spx.solve_status_str(self.code)
        self.history = np.asarray(history, dtype=np.float64)

    @property
    def info(self):
        """scipy's info: 0 converged, the iterations done when the cap (or a stop) came first,
        -code for a breakdown."""
        if self.code == _CONVERGED:
            return 0
        if self.code in (_MAX_ITER, _STOPPED):
            return max(self.iterations, 1)
        return -self.code

    def __repr__(self):
        return f"<spx.SolveResult {self.status}: {self.iterations} iterations, ||r||/||b|| {self.rel_residual:.3e}>"


def _as_plan(A, b, context):
    """A itself when it is a Plan, else a plan of A (fp32 only when A and b are both float32)."""
    if isinstance(A, Plan):
        return A
    both32 = getattr(A, "dtype", None) == np.float32 and getattr(b, "dtype", None) == np.float32
    return make_plan(A, precision="fp32" if both32 else "fp64", context=context)


def _vectors(p, b, x0):
    """b in the plan's dtype (converted if it is not) and x: a new array, x0's values or zeros."""
    m, n = p.shape
    if m != n:
        raise ValueError(f"the solvers need a square matrix, not {m}x{n}")
    if is_device_array(b):
        if p.backend != "cuda":
            raise TypeError("this plan runs on the CPU: pass NumPy arrays, or make the plan with a cuda context "
                            "or backend='cuda' for device arrays")
        import cupy as xp  # the solvers make x with CuPy
    else:
        xp = np
    b = xp.ascontiguousarray(xp.asarray(b, dtype=p.dtype))
    if b.shape != (n,):
        raise ValueError(f"b has shape {b.shape}, expected ({n},)")
    if x0 is None:
        return b, xp.zeros(n, dtype=p.dtype)
    if is_device_array(x0) != (xp is not np):
        raise TypeError("b and x0 must both be NumPy arrays or both device arrays")
    x = xp.array(x0, dtype=p.dtype, copy=True).reshape(-1)
    if x.shape != (n,):
        raise ValueError(f"x0 has shape {x0.shape}, expected ({n},)")
    return b, x


def _solve(method, A, b, x0, rtol, maxiter, M, full_output, context, stream):
    """The shared body of cg and bicgstab."""
    jacobi = isinstance(M, str) and M == "jacobi"
    if M is not None and not jacobi:
        raise TypeError("M must be None or 'jacobi' (spx's preconditioner: 1/diag(A)); "
                        "other preconditioners are not supported")
    p = _as_plan(A, b, context)
    b, x = _vectors(p, b, x0)
    n = p.shape[0]
    if maxiter is None:
        maxiter = max(1, min(10 * n, 2**31 - 1))
    if stream is None and is_device_array(b):
        stream = current_stream(b)
    perm = p.permutation
    if perm is not None:  # a plan in its own numbering: b and x0 permuted in once, x out once
        if is_device_array(b):
            import cupy
            perm = cupy.asarray(perm)
        b, x = b[perm], x[perm]
    raw = _spx.solve(method, p._plan, b, x, float(rtol), int(maxiter), jacobi, stream)
    if perm is not None:
        x_plan, x = x, x.copy()
        x[perm] = x_plan
    res = SolveResult(raw)
    return (x, res.info, res) if full_output else (x, res.info)


def cg(A, b, x0=None, rtol=1e-5, maxiter=None, M=None, *, full_output=False, context=None, stream=None):
    """Solves A x = b by conjugate gradients (A symmetric positive definite), like
    scipy.sparse.linalg.cg: returns (x, info), info 0 when ||b - Ax|| <= rtol ||b|| (the
    recurrence's residual), the iterations done when maxiter (default 10 n) came first, < 0 on
    a breakdown. A: an spx.Plan or anything spx.csr takes; b, x0: NumPy arrays (CuPy arrays for
    a CUDA plan, then x is a CuPy array); M: None or 'jacobi'. full_output=True returns
    (x, info, SolveResult), whose .history holds the residual of every iteration."""
    return _solve("cg", A, b, x0, rtol, maxiter, M, full_output, context, stream)


def bicgstab(A, b, x0=None, rtol=1e-5, maxiter=None, M=None, *, full_output=False, context=None, stream=None):
    """Solves A x = b by BiCGSTAB (any nonsingular A); arguments and results as spx.cg."""
    return _solve("bicgstab", A, b, x0, rtol, maxiter, M, full_output, context, stream)


def aslinearoperator(plan, device=False):
    """A LinearOperator whose matvec is plan.spmv and matmat plan.spmm: scipy.sparse.linalg's
    (NumPy arrays), or with device=True cupyx.scipy.sparse.linalg's (CuPy arrays, CUDA plans).
    A plan is made with spx.plan's defaults when `plan` is a matrix."""
    if not isinstance(plan, Plan):
        plan = make_plan(plan)
    if device:
        import cupy as xp
        from cupyx.scipy.sparse.linalg import LinearOperator
        if plan.backend != "cuda":
            raise ValueError("device=True needs a CUDA plan (spx.plan(A, backend='cuda'))")
    else:
        xp = np
        from scipy.sparse.linalg import LinearOperator

    def matvec(x):
        return plan.spmv(xp.ascontiguousarray(x.reshape(-1), dtype=plan.dtype))

    def matmat(X):
        X = xp.asarray(X, dtype=plan.dtype)
        return plan.spmm(X if X.flags.c_contiguous or X.flags.f_contiguous else xp.ascontiguousarray(X))

    return LinearOperator(plan.shape, matvec=matvec, matmat=matmat, dtype=plan.dtype)
