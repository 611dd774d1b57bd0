# python/spx/_core.py: contexts, CSR matrices over scipy arrays (host) and CuPy arrays (device, zero-copy), SpMV and SpMM plans (with a fast path for CuPy vectors) and SpGEMM (C on the device for device operands): argument handling and type dispatch over the C layer spx._spx.
import operator
import sys
import threading

import numpy as np

from . import _spx

Context = _spx.Context

_BACKENDS = {None: 0, "auto": 0, "cpu": 1, "cuda": 2}
_BUILDS = {None: 0, "auto": 0, "host": 1, "device": 2}
_ORDERS = {None: 0, "caller": 0, "plan": 1}
_PRECISIONS = {"fp64": 0, "fp32": 1}
_LAYOUTS = {"col": 0, "row": 1}  # spx_dense_layout
_DTYPES = (np.dtype(np.float64), np.dtype(np.float32))

_default_lock = threading.Lock()
_default = [None]  # the default context, made on first use


def default_context():
    """The module's default Context (backend 'auto': the GPU when there is one), made on first use."""
    with _default_lock:
        if _default[0] is None:
            _default[0] = Context()
        return _default[0]


def set_default_context(context):
    """Makes `context` (a Context, or None for a fresh 'auto' one on next use) the default."""
    if context is not None and not isinstance(context, Context):
        raise TypeError(f"expected an spx.Context, not {type(context).__name__}")
    with _default_lock:
        _default[0] = context


def _code(table, value, what):
    """The C layer's code for value in table; ValueError listing the accepted names."""
    try:
        return table[value]
    except (KeyError, TypeError):
        names = ", ".join(repr(k) for k in table if k is not None)
        raise ValueError(f"{what} must be one of {names}, not {value!r}") from None


def _precision_code(precision, default):
    """0 (fp64) or 1 (fp32) from 'fp64'/'fp32' or a float64/float32 dtype; default for None."""
    if precision is None:
        return default
    if isinstance(precision, str) and precision in _PRECISIONS:
        return _PRECISIONS[precision]
    try:
        dt = np.dtype(precision)
    except TypeError:
        dt = None
    if dt is not None and dt in _DTYPES:  # (numpy compares a dtype equal to None)
        return _DTYPES.index(dt)
    raise ValueError(f"precision must be 'fp64', 'fp32', numpy.float64 or numpy.float32, not {precision!r}")


def is_device_array(a):
    """Whether a is a device array (it exports __cuda_array_interface__)."""
    return hasattr(a, "__cuda_array_interface__")


def _is_cupy_sparse(A):
    return type(A).__module__.startswith("cupyx.scipy.sparse")


def _is_scipy_sparse(A):
    return type(A).__module__.startswith("scipy.sparse")


def current_stream(a=None):
    """The stream device work is ordered on: CuPy's current stream when CuPy is loaded, else
    the `stream` a's __cuda_array_interface__ names, else None (the default stream)."""
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        return cupy.cuda.get_current_stream().ptr
    stream = getattr(a, "__cuda_array_interface__", {}).get("stream") if a is not None else None
    return stream if isinstance(stream, int) else None


# Plan.spmv's fast path for CuPy arrays: cupy.ndarray and cupy.cuda.get_current_stream, looked up
# the first time the general path meets a CuPy array (so CuPy is never imported here); None
# until then, or when this CuPy's arrays lack a field the fast path reads (_CUPY_FIELDS).
_cupy_ndarray = None
_cupy_stream = None
_CUPY_FIELDS = ("data.ptr", "data.device_id", "dtype", "ndim", "size", "_c_contiguous")


def _learn_cupy(a):
    """Enables the CuPy fast path when a is a cupy.ndarray with every field the fast path reads."""
    global _cupy_ndarray, _cupy_stream
    cupy = sys.modules.get("cupy")
    if _cupy_ndarray is not None or cupy is None or type(a) is not getattr(cupy, "ndarray", None):
        return
    try:
        operator.attrgetter(*_CUPY_FIELDS)(a)
        stream = cupy.cuda.get_current_stream
    except AttributeError:
        return
    _cupy_stream = stream  # (set first: a thread that sees the type finds the getter)
    _cupy_ndarray = cupy.ndarray


def _check_device(context, a, name):
    """ValueError when a (a CuPy array: .device.id) lives on another device than the context's."""
    dev = getattr(getattr(a, "device", None), "id", None)
    if isinstance(dev, int) and dev != context.device:
        raise ValueError(f"{name} is on device {dev}, the plan's context on device {context.device}")


class Matrix:
    """A CSR matrix spx can plan: spx.csr(A), spx.load(path) or spx.gen(spec) make one.

    Wrapping a scipy CSR matrix shares its column indices (int32) and values (float64)
    with spx: spx reads them in place, so values changed in the scipy matrix are seen by
    every plan or product made afterwards (a plan copies the matrix when it is made).
    Arrays spx's layout cannot share are converted once and named in .copied: indptr
    (spx keeps int64 row pointers), int64 indices, float32 values."""

    __slots__ = ("_csr", "_origin", "_kind")

    def __init__(self, csr, origin=None, kind="spx"):
        self._csr = csr        # spx._spx.Csr
        self._origin = origin  # the wrapped scipy / CuPy object
        self._kind = kind      # 'scipy', 'cupy' (copied to the host) or 'spx'

    shape = property(lambda self: self._csr.shape, doc="(rows, columns)")
    nnz = property(lambda self: self._csr.nnz, doc="stored entries")
    dtype = property(lambda self: _DTYPES[self._csr.precision == "fp32"], doc="float64 or float32")
    context = property(lambda self: self._csr.context, doc="the Context the matrix belongs to")
    wrapped = property(lambda self: self._csr.wrapped, doc="True when spx reads the caller's arrays")
    copied = property(lambda self: self._csr.copied, doc="names of the caller's arrays that were converted")

    def addresses(self):
        """(rowptr, colind, val): the addresses spx reads the matrix from."""
        return self._csr.addresses()

    def _arrays(self):
        """New NumPy arrays (indptr, indices, data) with the matrix's contents."""
        m, _ = self.shape
        index = np.int32 if self.nnz <= np.iinfo(np.int32).max else np.int64
        indptr = np.empty(m + 1, dtype=index)
        indices = np.empty(self.nnz, dtype=np.int32)
        data = np.empty(self.nnz, dtype=self.dtype)
        self._csr.export(indptr, indices, data)
        return indptr, indices, data

    def to_scipy(self, cls=None):
        """A scipy CSR matrix: the wrapped object itself, else a copy (scipy.sparse.csr_array,
        or cls)."""
        if self._kind == "scipy" and cls is None:
            return self._origin
        import scipy.sparse
        cls = cls or scipy.sparse.csr_array
        indptr, indices, data = self._arrays()
        return cls((data, indices, indptr), shape=self.shape)

    def to_cupy(self):
        """A cupyx.scipy.sparse.csr_matrix: the wrapped object itself, else a device copy."""
        if self._kind == "cupy":
            return self._origin
        import cupyx.scipy.sparse
        return cupyx.scipy.sparse.csr_matrix(self.to_scipy())

    def __repr__(self):
        m, n = self.shape
        return f"<spx.Matrix {m}x{n}, nnz {self.nnz}, {self.dtype}, {'wrapped' if self.wrapped else 'owned'}>"


def csr(A, context=None):
    """An spx.Matrix of A: a scipy.sparse CSR matrix (csr_array or csr_matrix; wrapped without
    copying its int32 indices and float64 values), a cupyx.scipy.sparse.csr_matrix (copied to
    the host: spx plans take host CSR), or an spx.Matrix (returned as it is)."""
    if isinstance(A, Matrix):
        if context is not None and A.context is not context:
            raise ValueError("the matrix belongs to another context: spx.csr(A.to_scipy(), context=...) rewraps it")
        return A
    context = context or default_context()
    kind, origin = "scipy", A
    if _is_cupy_sparse(A):
        if A.format != "csr":
            raise TypeError(f"spx takes CSR matrices, not {A.format.upper()}: convert with A.tocsr()")
        kind, A = "cupy", A.get()
    elif not _is_scipy_sparse(A) or not hasattr(A, "format"):
        raise TypeError(f"spx.csr takes a scipy.sparse or cupyx.scipy.sparse CSR matrix, not {type(A).__name__}")
    if A.format != "csr":
        raise TypeError(f"spx takes CSR matrices, not {A.format.upper()}: convert with A.tocsr()")
    m, n = A.shape
    return Matrix(_spx.wrap(context, m, n, A.indptr, A.indices, A.data), origin, kind)


class DeviceMatrix:
    """A CSR matrix on the device that spx reads in place: spx.device_csr(A) of a
    cupyx.scipy.sparse.csr_matrix (its int32 indptr and indices and float64 or float32 data
    wrapped without a copy, checked on the device), or a product spx made on the device
    (spx.spgemm of device matrices). .to_cupy() gives a cupyx csr_matrix over the same memory."""

    __slots__ = ("_dev", "_origin")

    def __init__(self, dev, origin=None):
        self._dev = dev        # spx._spx.DevCsr
        self._origin = origin  # the wrapped object (None for spx's results)

    shape = property(lambda self: self._dev.shape, doc="(rows, columns)")
    nnz = property(lambda self: self._dev.nnz, doc="stored entries")
    dtype = property(lambda self: _DTYPES[self._dev.precision == "fp32"], doc="float64 or float32")
    index_dtype = property(lambda self: np.dtype(self._dev.index), doc="the row pointers' type: int32 or int64")
    context = property(lambda self: self._dev.context, doc="the Context the matrix belongs to")
    wrapped = property(lambda self: self._dev.wrapped, doc="True when spx reads the caller's arrays")
    unsorted_row = property(lambda self: self._dev.unsorted_row,
                            doc="the first row whose columns do not strictly increase (-1: none)")

    def addresses(self):
        """(rowptr, colind, val): the device addresses spx reads the matrix from."""
        return self._dev.addresses()

    def to_cupy(self):
        """A cupyx.scipy.sparse.csr_matrix: the wrapped object itself, else one over spx's memory
        (no copy; the memory lives while any of its arrays does)."""
        if self._origin is not None:
            return self._origin
        import cupyx.scipy.sparse
        m, n = self.shape
        rowptr, colind, val = self.addresses()
        indptr = _cupy_view(rowptr, m + 1, self.index_dtype, self._dev)
        indices = _cupy_view(colind, self.nnz, np.dtype(np.int32), self._dev)
        data = _cupy_view(val, self.nnz, self.dtype, self._dev)
        return cupyx.scipy.sparse.csr_matrix((data, indices, indptr), shape=(m, n), copy=False)

    def __repr__(self):
        m, n = self.shape
        return (f"<spx.DeviceMatrix {m}x{n}, nnz {self.nnz}, {self.dtype}, {self.index_dtype} row pointers, "
                f"{'wrapped' if self.wrapped else 'owned'}>")


def _cupy_view(ptr, n, dtype, owner):
    """A CuPy array of n entries of dtype at the device address ptr, keeping owner alive."""
    import cupy
    if n == 0:
        return cupy.empty(0, dtype=dtype)
    mem = cupy.cuda.UnownedMemory(ptr, n * dtype.itemsize, owner, owner.context.device)
    return cupy.ndarray((n,), dtype=dtype, memptr=cupy.cuda.MemoryPointer(mem, 0))


def _is_device_csr(A):
    """Whether A is a device CSR spx can wrap: a DeviceMatrix, or a CSR object (format 'csr')
    whose indptr, indices and data export __cuda_array_interface__ (cupyx csr_matrix)."""
    if isinstance(A, DeviceMatrix):
        return True
    return getattr(A, "format", None) == "csr" and all(
        is_device_array(getattr(A, f, None)) for f in ("indptr", "indices", "data"))


def device_csr(A, context=None, stream=None):
    """A DeviceMatrix of A without copying it: a cupyx.scipy.sparse.csr_matrix (or any CSR object
    whose indptr, indices and data are device arrays: int32 or int64 indptr, int32 indices,
    float64 or float32 data), checked on the device (on `stream`, default CuPy's current; the
    first offending row named), or a DeviceMatrix (returned as it is)."""
    if isinstance(A, DeviceMatrix):
        if context is not None and A.context is not context:
            raise ValueError("the matrix belongs to another context")
        return A
    if getattr(A, "format", None) not in (None, "csr"):
        raise TypeError(f"spx takes CSR matrices, not {A.format.upper()}: convert with A.tocsr()")
    if not _is_device_csr(A):
        raise TypeError(f"spx.device_csr takes a cupyx.scipy.sparse.csr_matrix (device arrays), not {type(A).__name__}")
    context = context or default_context()
    m, n = A.shape
    s = current_stream(A.data) if stream is None else stream
    return DeviceMatrix(_spx.wrap_device(context, m, n, A.indptr, A.indices, A.data, s), A)


def load(path, context=None):
    """An spx.Matrix read from a Matrix Market file (.mtx or .mtx.gz), or a gen: spec."""
    return Matrix(_spx.load(context or default_context(), str(path)))


def gen(spec, context=None):
    """An spx.Matrix from a generator spec, e.g. 'poisson2d:n=30' (the 'gen:' prefix optional;
    `spx gen --help` lists the generators)."""
    spec = spec if spec.startswith("gen:") else "gen:" + spec
    return Matrix(_spx.load(context or default_context(), spec))


class Plan:
    """An SpMV plan: the matrix analysed, converted (and uploaded for CUDA) once; spmv (and spmm,
    many vectors at once) many times. Make one with spx.plan(A, ...)."""

    __slots__ = ("_plan", "matrix", "_dtype", "_device")

    def __init__(self, plan, matrix):
        self._plan = plan     # spx._spx.Plan
        self.matrix = matrix  # the spx.Matrix it was made from
        self._dtype = _DTYPES[plan.precision == "fp32"]  # read by spmv's fast path, as is:
        self._device = plan.context.device                # the context's CUDA device ordinal

    shape = property(lambda self: self._plan.shape, doc="(rows, columns)")
    backend = property(lambda self: self._plan.backend, doc="'cpu' or 'cuda'")
    dtype = property(lambda self: self._dtype, doc="float64 or float32")
    context = property(lambda self: self._plan.context, doc="the plan's Context")
    info = property(lambda self: self._plan.info(), doc="spx_plan_info as a dict")

    @property
    def permutation(self):
        """The plan's numbering of x and y (made with order='plan' by a format that renumbers,
        e.g. ehyb): an int32 array perm, the plan's x being x[perm] and its y giving
        y_caller[perm] = y; None when the plan takes them in the caller's order."""
        b = self._plan.permutation()
        return None if b is None else np.frombuffer(b, dtype=np.int32)
    stats = property(lambda self: self._plan.stats,
                     doc="spmv and spmm calls, host-array calls of a CUDA plan and the bytes they copied")

    def spmv(self, x, y=None, alpha=1.0, beta=0.0, stream=None):
        """y = alpha*A*x + beta*y; returns y (a new zero array when None; beta then must be 0).
        NumPy arrays on any plan (a CUDA plan copies them to the device and back, counted in
        .stats); device arrays (CuPy) on CUDA plans, in place, ordered on `stream` (default:
        CuPy's current stream). x and y have the plan's dtype, y is contiguous and writable."""
        if y is None:
            y = self._new_y(x, beta)
        # The fast path: two cupy.ndarray that pass every check (else the general path below
        # says what is wrong); their pointers go to C without any __cuda_array_interface__.
        if type(x) is _cupy_ndarray is type(y):
            xd, yd, dt, dev = x.data, y.data, self._dtype, self._device
            if (x.dtype is dt is y.dtype and x.ndim == 1 == y.ndim and x._c_contiguous and y._c_contiguous
                    and xd.device_id == dev == yd.device_id):
                self._plan.spmv_device_ptr(xd.ptr, x.size, yd.ptr, y.size, float(alpha), float(beta),
                                           _cupy_stream().ptr if stream is None else stream)
                return y
        self._spmv_checked(x, y, alpha, beta, stream)
        return y

    def _new_y(self, x, beta):
        """A zero y of m entries of the plan's dtype, on the device when x is a device array."""
        if beta != 0.0:
            raise ValueError("beta != 0 reads y: pass y")
        if is_device_array(x):
            import cupy
            return cupy.zeros(self.shape[0], dtype=self._dtype)
        return np.zeros(self.shape[0], dtype=self._dtype)

    def _spmv_checked(self, x, y, alpha, beta, stream):
        """The general path of spmv: x a device array (__cuda_array_interface__), checked in C,
        or a host array (or list)."""
        if is_device_array(x):
            _learn_cupy(x)
            _check_device(self.context, x, "x")
            _check_device(self.context, y, "y")
            self._plan.spmv_device(x, y, float(alpha), float(beta), current_stream(x) if stream is None else stream)
        else:
            if isinstance(x, (list, tuple)):
                x = np.asarray(x, dtype=self._dtype)
            self._plan.spmv_host(x, y, float(alpha), float(beta))

    def spmm(self, X, Y=None, alpha=1.0, beta=0.0, stream=None):
        """Y = alpha*A*X + beta*Y for a 2-D X (n x k) and Y (m x k); returns Y (a new zero array
        in X's layout when None; beta then must be 0). beta = 0 never reads Y. NumPy arrays (any
        buffer) on any plan: a CPU plan reads and writes them in place, a CUDA plan copies X in
        and Y out (and Y in when beta != 0), counted in .stats; device arrays (CuPy) on CUDA
        plans, in place, ordered on `stream` (default: CuPy's current stream). X and Y have the
        plan's dtype and one layout: C order (row-major), Fortran order (column-major), or a
        slice of either whose lines keep a unit stride (X[:, :k] of a wider array, X[:n] of a
        taller one), taken without a copy; Y is writable and does not overlap X. For a plan
        made with order='plan' whose format renumbers (Plan.permutation perm), X and Y are in
        the plan's numbering, as vectors are: plan @ X[perm] is (A @ X)[perm]."""
        if isinstance(X, (list, tuple)):
            X = np.asarray(X, dtype=self._dtype)
        if Y is None:
            Y = self._new_Y(X, beta)
        if is_device_array(X):
            _check_device(self.context, X, "X")
            _check_device(self.context, Y, "Y")
            self._plan.spmm_device(X, Y, float(alpha), float(beta), current_stream(X) if stream is None else stream)
        else:
            self._plan.spmm_host(X, Y, float(alpha), float(beta))
        return Y

    def _new_Y(self, X, beta):
        """A zero Y of m rows and X's columns, in X's layout (C order when X reads as both), of
        the plan's dtype, on the device when X is a device array."""
        if beta != 0.0:
            raise ValueError("beta != 0 reads Y: pass Y")
        layout, k = self._plan.spmm_layout(X)
        shape, order = (self.shape[0], k), "C" if layout == "row" else "F"
        if is_device_array(X):
            import cupy
            return cupy.zeros(shape, dtype=self._dtype, order=order)
        return np.zeros(shape, dtype=self._dtype, order=order)

    def spmm_info(self, k, layout="row"):
        """What plan.spmm runs for k columns in `layout` ('row': C order, 'col': Fortran order), as
        a dict of spx_plan_spmm_info: kernel (its name; '<SpMV kernel>_spmv_x<k>' for the
        fallback), fallback (True: the format has no SpMM kernel on this backend, so k SpMVs run,
        one a column) and bytes (the least the call moves with beta = 0)."""
        return self._plan.spmm_info(operator.index(k), _code(_LAYOUTS, layout, "layout"))

    def __matmul__(self, x):
        """plan @ x: spmv for a vector, spmm for a 2-D array."""
        nd = getattr(x, "ndim", None)
        if nd is None:
            shape = getattr(x, "__cuda_array_interface__", {}).get("shape") if is_device_array(x) else np.shape(x)
            nd = len(shape)
        return self.spmm(x) if nd >= 2 else self.spmv(x)

    def __repr__(self):
        info = self.info
        return (f"<spx.Plan {info['m']}x{info['n']} {info['format']}/{info['algo']} on {info['backend']}, "
                f"{info['precision']}>")


def plan(A, format="auto", algo=None, precision=None, backend=None, build=None, context=None, expected_spmvs=None,
         order=None):
    """An SpMV plan of A (anything spx.csr takes). format: a name from spx.formats() or 'auto'
    (chosen per matrix); algo: the format's algorithm (None: its default); precision: 'fp64' or
    'fp32' (None: the matrix's dtype); backend: 'cpu', 'cuda' or None (the context's); build:
    'host', 'device' or None (CUDA plans: where the layout is built); expected_spmvs: the SpMVs
    the plan will run, which format 'auto' weighs against the build time in the trained
    selection table (None or 0: not given, the table's default of 100); order: 'caller' (None) or
    'plan': x and y in the plan's own numbering when its format has one (Plan.permutation;
    ehyb, as its paper times it), so a solver permutes once instead of every SpMV. A device
    matrix (a cupyx csr_matrix, a DeviceMatrix) is planned from the device without a host copy
    where the format builds on the device (spx_plan_create_dev)."""
    if _is_device_csr(A):
        return _plan_device(device_csr(A, context), format, algo, precision, backend, build, expected_spmvs, order)
    M = csr(A, context)
    fmt = None if format in (None, "auto") else format
    expected = 0 if expected_spmvs is None else operator.index(expected_spmvs)
    p = _spx.plan(M._csr, fmt, algo, _code(_BACKENDS, backend, "backend"),
                  _precision_code(precision, int(M.dtype == np.float32)), _code(_BUILDS, build, "build"), expected,
                  _code(_ORDERS, order, "order"))
    return Plan(p, M)


def _plan_device(D, format, algo, precision, backend, build, expected_spmvs, order):
    """spx.plan of the DeviceMatrix D (spx._spx.plan_device)."""
    fmt = None if format in (None, "auto") else format
    expected = 0 if expected_spmvs is None else operator.index(expected_spmvs)
    p = _spx.plan_device(D._dev, fmt, algo, _code(_BACKENDS, backend, "backend"),
                         _precision_code(precision, int(D.dtype == np.float32)), _code(_BUILDS, build, "build"),
                         expected, _code(_ORDERS, order, "order"), current_stream(D._origin and D._origin.data))
    return Plan(p, D)


def _spgemm_device(A, B, transpose_b, method, algo, precision, backend, context):
    """spx.spgemm of two device matrices: C on the device (int32 row pointers, as CuPy's), a
    DeviceMatrix when A is one, else a cupyx csr_matrix over spx's memory."""
    DA = device_csr(A, context)
    DB = DA if B is A else device_csr(B, DA.context)
    both32 = DA.dtype == np.float32 and DB.dtype == np.float32
    C = DeviceMatrix(_spx.spgemm_device(DA._dev, DB._dev, bool(transpose_b), method, algo,
                                        _code(_BACKENDS, backend, "backend"), _precision_code(precision, int(both32)),
                                        1, current_stream(DA._origin and DA._origin.data)))
    return C if isinstance(A, DeviceMatrix) else C.to_cupy()


def spgemm(A, B, transpose_b=False, method=None, algo=None, precision=None, backend=None, context=None):
    """C = A*B (A*B^T with transpose_b): a matrix of A's kind (scipy csr_array / csr_matrix,
    cupyx csr_matrix, spx.Matrix, or spx.DeviceMatrix). Values in fp32 when both are float32
    (else fp64, or as precision says). spx keeps an entry whose products cancel to 0 (scipy drops
    it). Two device matrices (cupyx csr_matrix, DeviceMatrix) multiply on the device without a
    host copy, C left there (int32 row pointers)."""
    if _is_device_csr(A) and _is_device_csr(B):
        return _spgemm_device(A, B, transpose_b, method, algo, precision, backend, context)
    MA = csr(A, context)
    MB = csr(B, MA.context)
    both32 = MA.dtype == np.float32 and MB.dtype == np.float32
    C = Matrix(_spx.spgemm(MA._csr, MB._csr, bool(transpose_b), method, algo, _code(_BACKENDS, backend, "backend"),
                           _precision_code(precision, int(both32))))
    if isinstance(A, Matrix):
        return C
    if _is_cupy_sparse(A):
        return C.to_cupy()
    return C.to_scipy(type(A))


def formats():
    """The registered SpMV formats: dicts of name, summary, algos, cpu, cuda, baseline,
    available, why_unavailable, builds_on_device and device_algos (named as in `spx formats --json`).
    builds_on_device: whether the format's CUDA plans can build their layout on the GPU from
    the CSR (build="device"); device_algos: the algorithms that do, a list ([] when none; every
    algorithm where the JSON says null). `spx formats`' gpu_build column: "device" when
    device_algos lists every algorithm, "some" when only some, "host" when none."""
    return _spx.formats()


def cuda_compiled():
    """Whether libspx was built with its CUDA backend."""
    return _spx.cuda_compiled()
