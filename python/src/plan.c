/* python/src/plan.c: the Plan type over spx_plan: creation from a Csr or a DevCsr, SpMV on host arrays
 * (CPU plans in place; CUDA plans through the plan's staging copies, counted in .stats) and
 * on device arrays (CUDA plans, zero-copy, on the caller's stream; spmv_device_ptr, the lean
 * entry of the CuPy fast path, on raw pointers), and spx_plan_info as a dict (SpMM's methods:
 * spmm.c). */
#include <string.h>

#include "binding.h"

static void plan_dealloc(PyObject *self)
{
    spxpy_plan *o = (spxpy_plan *)self;
    PyTypeObject *tp = Py_TYPE(self);
    if (o->plan) {
        spxpy_lock(o->context);
        spx_plan_destroy(&o->plan);
        spxpy_unlock(o->context);
    }
    Py_XDECREF((PyObject *)o->matrix);
    Py_XDECREF((PyObject *)o->context);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF((PyObject *)tp);
}

/* Creates the plan of o from its matrix with opts; checks the matrix's rows are still sorted
 * (the caller may have changed its arrays since wrap). */
static spx_status plan_create_checked(spxpy_plan *o, const spx_plan_opts *opts, int64_t *bad_row)
{
    if (spxpy_csr_check_sorted(o->matrix->csr, bad_row)) return SPX_ERR_ARG;
    spx_status s = spx_plan_create(o->context->ctx, o->matrix->csr, opts, &o->plan);
    if (!s) spx_plan_get_info(o->plan, &o->info);
    return s;
}

/* The spx_plan_opts of plan()'s arguments (codes as in include/spx/plan.h); -1 with ValueError
 * for a code out of range. */
static int plan_opts_of(const char *format, const char *algo, int backend, int precision, int build,
                        long long expected, int order, spx_plan_opts *o)
{
    if (backend < 0 || backend > 2 || precision < 0 || precision > 1 || build < 0 || build > 2 || order < 0 || order > 1)
        return PyErr_Format(PyExc_ValueError, "backend %d, precision %d, build %d or order %d is not a known code",
                            backend, precision, build, order), -1;
    if (expected < 0)
        return PyErr_Format(PyExc_ValueError, "expected_spmvs must be >= 0 (0: not given), not %lld", expected), -1;
    *o = (spx_plan_opts){.format = format, .algo = algo, .backend = (spx_backend)backend,
                         .precision = (spx_precision)precision, .build = (spx_build_site)build,
                         .expected_spmvs = (int64_t)expected, .order = (spx_vector_order)order};
    return 0;
}

/* A new, empty Plan object of context c made from matrix (NULL: a device matrix); NULL with an
 * exception when it cannot be allocated. */
static spxpy_plan *plan_alloc(spxpy_state *st, spxpy_context *c, spxpy_csr *matrix)
{
    PyTypeObject *tp = (PyTypeObject *)st->plan_type;
    spxpy_plan *o = (spxpy_plan *)((allocfunc)PyType_GetSlot(tp, Py_tp_alloc))(tp, 0);
    if (!o) return NULL;
    Py_XINCREF((PyObject *)matrix);
    Py_INCREF((PyObject *)c);
    o->matrix = matrix;
    o->context = c;
    return o;
}

/* plan(csr, format=None, algo=None, backend=0, precision=0, build=0, expected_spmvs=0, order=0):
 * a Plan of the matrix in its context (the spx_plan_opts fields; codes as in
 * include/spx/plan.h). */
PyObject *spxpy_make_plan(PyObject *mod, PyObject *args, PyObject *kw)
{
    static char *names[] = {"csr", "format", "algo", "backend", "precision", "build", "expected_spmvs", "order", NULL};
    spxpy_state *st = PyModule_GetState(mod);
    PyObject *mo;
    const char *format = NULL, *algo = NULL;
    int backend = 0, precision = 0, build = 0, order = 0;
    long long expected = 0;
    spx_plan_opts opts;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!|zziiiLi", names, (PyTypeObject *)st->csr_type, &mo, &format, &algo,
                                     &backend, &precision, &build, &expected, &order) ||
        plan_opts_of(format, algo, backend, precision, build, expected, order, &opts))
        return NULL;
    spxpy_csr *m = (spxpy_csr *)mo;
    spxpy_plan *o = plan_alloc(st, m->context, m);
    if (!o) return NULL;
    spx_status s;
    int64_t bad = -1;
    spxpy_msg msg = {{0}};
    SPXPY_RUN(o->context, s, &msg, plan_create_checked(o, &opts, &bad));
    if (s) {
        Py_DECREF((PyObject *)o);
        if (bad >= 0)
            return PyErr_Format(PyExc_ValueError, "row %lld of the matrix has unsorted or repeated column indices "
                                "(changed since it was wrapped?)", (long long)bad);
        return spxpy_raise(st, s, &msg);
    }
    return (PyObject *)o;
}

/* Creates o's plan from the device matrix d with opts on the context's stream set to stream. */
static spx_status plan_create_dev_on(spxpy_plan *o, const spxpy_devcsr *d, const spx_plan_opts *opts, void *stream)
{
    spx_ctx *ctx = o->context->ctx;
    spx_status s = spx_ctx_set_stream(ctx, stream);
    if (!s) s = spx_plan_create_dev(ctx, d->dev, opts, &o->plan);
    if (!s) spx_plan_get_info(o->plan, &o->info);
    spx_ctx_set_stream(ctx, NULL);
    return s;
}

/* plan_device(matrix, format=None, algo=None, backend=0, precision=0, build=0,
 * expected_spmvs=0, order=0, stream=None): a Plan of the DevCsr (spx_plan_create_dev: no host
 * copy where the format builds on the device), made on `stream`. */
PyObject *spxpy_plan_device(PyObject *mod, PyObject *args, PyObject *kw)
{
    static char *names[] = {"matrix", "format", "algo", "backend", "precision", "build", "expected_spmvs", "order",
                            "stream", NULL};
    spxpy_state *st = PyModule_GetState(mod);
    PyObject *mo, *so = Py_None;
    const char *format = NULL, *algo = NULL;
    int backend = 0, precision = 0, build = 0, order = 0;
    long long expected = 0;
    spx_plan_opts opts;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!|zziiiLiO", names, (PyTypeObject *)st->devcsr_type, &mo, &format,
                                     &algo, &backend, &precision, &build, &expected, &order, &so) ||
        plan_opts_of(format, algo, backend, precision, build, expected, order, &opts))
        return NULL;
    void *stream = so == Py_None ? NULL : PyLong_AsVoidPtr(so);
    if (PyErr_Occurred()) return NULL;
    const spxpy_devcsr *d = (const spxpy_devcsr *)mo;
    spxpy_plan *o = plan_alloc(st, d->context, NULL);
    if (!o) return NULL;
    spx_status s;
    spxpy_msg msg = {{0}};
    SPXPY_RUN(o->context, s, &msg, plan_create_dev_on(o, d, &opts, stream));
    if (s) {
        Py_DECREF((PyObject *)o);
        return spxpy_raise(st, s, &msg);
    }
    return (PyObject *)o;
}

/* Runs y = a*A*x + b*y on host arrays: the plan's own entry point for its precision. */
static spx_status spmv_host_run(spx_plan *p, spx_precision prec, double a, const void *x, double b, void *y)
{
    if (prec == SPX_FP32) return spx_plan_spmv_f32(p, (float)a, x, (float)b, y);
    return spx_plan_spmv(p, a, x, b, y);
}

/* spmv_host(x, y, alpha, beta): y = alpha*A*x + beta*y on host arrays of the plan's dtype. */
static PyObject *plan_spmv_host(PyObject *self, PyObject *args)
{
    spxpy_plan *o = (spxpy_plan *)self;
    PyObject *xo, *yo;
    double a, b;
    if (!PyArg_ParseTuple(args, "OOdd", &xo, &yo, &a, &b)) return NULL;
    spx_precision prec = o->info.precision;
    Py_buffer xv, yv;
    if (spxpy_host_vector(xo, "x", prec, o->info.n, 0, &xv)) return NULL;
    if (spxpy_host_vector(yo, "y", prec, o->info.m, 1, &yv)) {
        PyBuffer_Release(&xv);
        return NULL;
    }
    PyObject *r = NULL;
    size_t vb = spx_precision_bytes(prec);
    if (spxpy_overlap(xv.buf, xv.len, yv.buf, yv.len)) {
        PyErr_SetString(PyExc_ValueError, "x and y overlap: y must be a separate array");
    } else {
        spx_status s;
        spxpy_msg msg = {{0}};
        SPXPY_RUN(o->context, s, &msg, spmv_host_run(o->plan, prec, a, xv.buf, b, yv.buf));
        if (s) {
            spxpy_raise(spxpy_state_of(self), s, &msg);
        } else {
            o->stats.spmv_calls++;
            if (o->info.backend == SPX_BACKEND_CUDA) {
                o->stats.host_copies++;
                o->stats.host_copy_bytes += (long long)(vb * ((size_t)o->info.n + (size_t)o->info.m * (b != 0.0 ? 2 : 1)));
            }
            r = Py_NewRef(Py_None);
        }
    }
    PyBuffer_Release(&xv);
    PyBuffer_Release(&yv);
    return r;
}

/* y = a*A*x + b*y on device arrays, on the context's stream set to `stream` for the call.
 * spx_plan_spmv_device allocates nothing (spx_vec_wrap would allocate, and free, a reduction
 * scratch per call, and cudaFree synchronises): the arrays are taken to be device memory of
 * the context's device, as __cuda_array_interface__ promises (the Python layer checks a
 * CuPy array's device). */
static spx_status spmv_device_run(spxpy_plan *o, void *stream, double a, const void *x, double b, void *y)
{
    spx_ctx *ctx = o->context->ctx;
    spx_status s = spx_ctx_set_stream(ctx, stream);
    if (!s) s = spx_plan_spmv_device(o->plan, a, x, b, y);
    spx_ctx_set_stream(ctx, NULL);
    return s;
}

/* The operands of a device SpMV: x and y already checked (n and m entries of the plan's dtype). */
typedef struct device_args {
    void *x, *y, *stream;
    double a, b;
} device_args;

int spxpy_need_cuda(const spxpy_plan *o)
{
    if (o->info.backend == SPX_BACKEND_CUDA) return 0;
    PyErr_Format(PyExc_TypeError, "this plan runs on the CPU: pass NumPy arrays, or make the plan with a cuda "
                 "context or backend='cuda' for device arrays");
    return -1;
}

int spxpy_stream_arg(PyObject *so, void **s)
{
    *s = so == Py_None ? NULL : PyLong_AsVoidPtr(so);
    return PyErr_Occurred() ? -1 : 0;
}

/* Runs d on o's plan with the GIL released (overlapping x and y refused) and counts the call;
 * None, or NULL with the exception set. */
static PyObject *device_spmv(PyObject *self, const device_args *d)
{
    spxpy_plan *o = (spxpy_plan *)self;
    size_t vb = spx_precision_bytes(o->info.precision);
    if (spxpy_overlap(d->x, vb * (size_t)o->info.n, d->y, vb * (size_t)o->info.m))
        return PyErr_Format(PyExc_ValueError, "x and y overlap: y must be a separate array");
    spx_status s;
    spxpy_msg msg = {{0}};
    SPXPY_RUN(o->context, s, &msg, spmv_device_run(o, d->stream, d->a, d->x, d->b, d->y));
    if (s) return spxpy_raise(spxpy_state_of(self), s, &msg);
    o->stats.spmv_calls++;
    Py_RETURN_NONE;
}

/* spmv_device(x, y, alpha, beta, stream): y = alpha*A*x + beta*y on device arrays
 * (__cuda_array_interface__) of the plan's dtype, asynchronously on `stream` (a cudaStream_t
 * as an int; None or 0 the default stream). CUDA plans only. */
static PyObject *plan_spmv_device(PyObject *self, PyObject *args)
{
    spxpy_plan *o = (spxpy_plan *)self;
    PyObject *xo, *yo, *so;
    device_args d;
    if (!PyArg_ParseTuple(args, "OOddO", &xo, &yo, &d.a, &d.b, &so)) return NULL;
    if (spxpy_need_cuda(o) || spxpy_stream_arg(so, &d.stream)) return NULL;
    spx_precision prec = o->info.precision;
    if (spxpy_device_vector(xo, "x", prec, o->info.n, 0, &d.x) || spxpy_device_vector(yo, "y", prec, o->info.m, 1, &d.y))
        return NULL;
    return device_spmv(self, &d);
}

/* Reads spmv_device_ptr's x_ptr, x_size, y_ptr, y_size, alpha, beta (ints, then floats) into
 * d, *nx and *ny; 0, or -1 with the conversion's exception. */
static int ptr_args(PyObject *const *args, device_args *d, Py_ssize_t *nx, Py_ssize_t *ny)
{
    d->x = PyLong_AsVoidPtr(args[0]);
    if (!PyErr_Occurred()) *nx = PyLong_AsSsize_t(args[1]);
    if (!PyErr_Occurred()) d->y = PyLong_AsVoidPtr(args[2]);
    if (!PyErr_Occurred()) *ny = PyLong_AsSsize_t(args[3]);
    if (!PyErr_Occurred()) d->a = PyFloat_AsDouble(args[4]);
    if (!PyErr_Occurred()) d->b = PyFloat_AsDouble(args[5]);
    return PyErr_Occurred() ? -1 : 0;
}

/* spmv_device_ptr(x_ptr, x_size, y_ptr, y_size, alpha, beta, stream): spmv_device on raw
 * device pointers (ints) of arrays whose dtype, 1-D contiguity, device and writability the
 * caller has checked (Plan.spmv's CuPy fast path); the sizes are checked here. No
 * __cuda_array_interface__ is read: the caller must keep the arrays alive for the call. */
static PyObject *plan_spmv_device_ptr(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    spxpy_plan *o = (spxpy_plan *)self;
    device_args d;
    Py_ssize_t nx = 0, ny = 0;
    if (nargs != 7) return PyErr_Format(PyExc_TypeError, "spmv_device_ptr takes 7 arguments (%zd given)", nargs);
    if (spxpy_need_cuda(o) || spxpy_stream_arg(args[6], &d.stream) || ptr_args(args, &d, &nx, &ny)) return NULL;
    if (spxpy_check_length("x", nx, o->info.n) || spxpy_check_length("y", ny, o->info.m)) return NULL;
    return device_spmv(self, &d);
}

/* The phases of an info as a list of (name, seconds). */
static PyObject *phases_list(const spx_plan_info *in)
{
    PyObject *l = PyList_New(0);
    for (int i = 0; l && i < in->n_phases; i++) {
        PyObject *t = Py_BuildValue("(sd)", in->phases[i].name ? in->phases[i].name : "?", in->phases[i].seconds);
        if (!t || PyList_Append(l, t)) Py_CLEAR(l);
        Py_XDECREF(t);
    }
    return l;
}

/* The format's layout figures as a dict key -> number or text. */
static PyObject *stats_dict(const spx_plan_info *in)
{
    PyObject *d = PyDict_New();
    for (int i = 0; d && i < in->n_stats; i++) {
        const spx_layout_stat *ls = &in->stats[i];
        PyObject *v = ls->text[0] ? PyUnicode_FromString(ls->text) : PyFloat_FromDouble(ls->value);
        if (!v || PyDict_SetItemString(d, ls->key, v)) Py_CLEAR(d);
        Py_XDECREF(v);
    }
    return d;
}

/* info(): spx_plan_info as a dict (phases a list of (name, seconds), stats a dict). */
static PyObject *plan_info(PyObject *self, PyObject *unused)
{
    spxpy_plan *o = (spxpy_plan *)self;
    spx_plan_info in;
    spxpy_lock(o->context);
    spx_status s = spx_plan_get_info(o->plan, &in);
    spxpy_unlock(o->context);
    if (s) return spxpy_raise(spxpy_state_of(self), s, NULL);
    PyObject *phases = phases_list(&in), *stats = stats_dict(&in);
    if (!phases || !stats) {
        Py_XDECREF(phases);
        Py_XDECREF(stats);
        return NULL;
    }
    return Py_BuildValue("{s:s,s:s,s:s,s:i,s:i,s:s,s:s,s:d,s:d,s:O,s:O,s:n,s:N,s:N}", "format", in.format, "algo",
                         in.algo, "kernel", in.kernel, "m", in.m, "n", in.n, "backend", spx_backend_str(in.backend),
                         "precision", spx_precision_str(in.precision), "bytes_per_spmv", in.bytes_per_spmv,
                         "plan_seconds", in.plan_seconds, "built_on_device", in.built_on_device ? Py_True : Py_False,
                         "plan_order", in.plan_order ? Py_True : Py_False, "device_bytes", (Py_ssize_t)in.device_bytes,
                         "phases", phases, "stats", stats);
}

/* permutation(): the plan's numbering of x and y (spx_plan_permutation) as m int32 values in a
 * bytes object, or None when the plan takes them in the caller's order. */
static PyObject *plan_permutation(PyObject *self, PyObject *unused)
{
    spxpy_plan *o = (spxpy_plan *)self;
    const int32_t *perm = NULL;
    spxpy_lock(o->context);
    spx_status s = spx_plan_permutation(o->plan, &perm);
    spxpy_unlock(o->context);
    if (s) return spxpy_raise(spxpy_state_of(self), s, NULL);
    if (!perm) Py_RETURN_NONE;
    return PyBytes_FromStringAndSize((const char *)perm, (Py_ssize_t)o->info.m * (Py_ssize_t)sizeof *perm);
}

/* stats: the binding's counters: spmv and spmm calls, host-array calls of a CUDA plan (each
 * copies x or X in, y or Y out, and y or Y in when beta != 0) and the bytes those copies moved. */
static PyObject *plan_stats(PyObject *self, void *unused)
{
    const spxpy_plan_stats *s = &((spxpy_plan *)self)->stats;
    return Py_BuildValue("{s:L,s:L,s:L,s:L}", "spmv_calls", s->spmv_calls, "spmm_calls", s->spmm_calls, "host_copies",
                         s->host_copies, "host_copy_bytes", s->host_copy_bytes);
}

static PyObject *plan_shape(PyObject *self, void *unused)
{
    const spx_plan_info *in = &((spxpy_plan *)self)->info;
    return Py_BuildValue("(ii)", in->m, in->n);
}

static PyObject *plan_backend(PyObject *self, void *unused)
{
    return PyUnicode_FromString(spx_backend_str(((spxpy_plan *)self)->info.backend));
}

static PyObject *plan_precision(PyObject *self, void *unused)
{
    return PyUnicode_FromString(spx_precision_str(((spxpy_plan *)self)->info.precision));
}

/* The host Csr the plan was made from; None for a plan made from a device matrix. */
static PyObject *plan_matrix(PyObject *self, void *unused)
{
    PyObject *m = (PyObject *)((spxpy_plan *)self)->matrix;
    return Py_NewRef(m ? m : Py_None);
}

static PyObject *plan_context(PyObject *self, void *unused) { return Py_NewRef((PyObject *)((spxpy_plan *)self)->context); }

static PyGetSetDef plan_getset[] = {
    {"shape", plan_shape, NULL, "(rows, columns)", NULL},
    {"backend", plan_backend, NULL, "'cpu' or 'cuda'", NULL},
    {"precision", plan_precision, NULL, "'fp64' or 'fp32'", NULL},
    {"matrix", plan_matrix, NULL, "the host Csr the plan was made from (None: made from a DevCsr)", NULL},
    {"context", plan_context, NULL, "the plan's context", NULL},
    {"stats", plan_stats, NULL, "the binding's call and copy counters", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef plan_methods[] = {
    {"spmv_host", plan_spmv_host, METH_VARARGS, "spmv_host(x, y, alpha, beta) on host arrays"},
    {"spmv_device", plan_spmv_device, METH_VARARGS, "spmv_device(x, y, alpha, beta, stream) on device arrays"},
    {"spmv_device_ptr", (PyCFunction)(void (*)(void))plan_spmv_device_ptr, METH_FASTCALL,
     "spmv_device_ptr(x_ptr, x_size, y_ptr, y_size, alpha, beta, stream) on checked device pointers"},
    {"spmm_host", spxpy_plan_spmm_host, METH_VARARGS, "spmm_host(X, Y, alpha, beta, copied=False) on 2-D host arrays"},
    {"spmm_device", spxpy_plan_spmm_device, METH_VARARGS,
     "spmm_device(X, Y, alpha, beta, stream) on 2-D device arrays"},
    {"spmm_layout", spxpy_plan_spmm_layout, METH_O, "spmm_layout(X) -> ('row' or 'col', k): the layout of a new Y"},
    {"spmm_info", spxpy_plan_spmm_info, METH_VARARGS, "spmm_info(k, layout) -> spx_plan_spmm_info as a dict"},
    {"info", plan_info, METH_NOARGS, "spx_plan_info as a dict"},
    {"permutation", plan_permutation, METH_NOARGS, "the plan's numbering of x and y as int32 bytes, or None"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot plan_slots[] = {
    {Py_tp_dealloc, plan_dealloc},
    {Py_tp_getset, plan_getset},
    {Py_tp_methods, plan_methods},
    {Py_tp_doc, "An SpMV plan (spx_plan) of a Csr."},
    {0, NULL},
};

PyType_Spec spxpy_plan_spec = {"spx._spx.Plan", sizeof(spxpy_plan), 0,
                               Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, plan_slots};
