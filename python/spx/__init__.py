# python/spx/__init__.py: the spx package: sparse matrix products (SpMV, SpGEMM) and solvers from libspx, over scipy and CuPy matrices (docs/python.md).
"""spx: libspx from Python.

    import scipy.sparse as sp, numpy as np, spx
    A = sp.random(1000, 1000, density=0.01, format="csr")
    plan = spx.plan(A)                 # analyse and convert once
    y = plan @ np.ones(1000)           # SpMV, as often as you like
    x, info = spx.cg(spx.gen("poisson2d:n=30,laplace=1"), np.ones(900))

See docs/python.md for the accepted types, CuPy arrays and streams.
"""
from ._core import (Context, DeviceMatrix, Matrix, Plan, csr, cuda_compiled, current_stream, default_context,
                    device_csr, formats, gen, is_device_array, load, plan, set_default_context, spgemm)
from ._spx import ArgumentError, Error, IOError, OutOfMemory, version as __version__
from .linalg import SolveResult, aslinearoperator, bicgstab, cg

__all__ = ["Context", "Matrix", "DeviceMatrix", "Plan", "SolveResult", "Error", "ArgumentError", "OutOfMemory",
           "IOError", "csr", "device_csr", "load", "gen", "plan", "spgemm", "cg", "bicgstab", "aslinearoperator",
           "formats", "cuda_compiled", "default_context", "set_default_context", "current_stream", "is_device_array"]
