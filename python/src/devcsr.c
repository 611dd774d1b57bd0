/* python/src/devcsr.c: the DevCsr type: a CSR matrix on the device (spx_csr_dev), either the
 * caller's device arrays wrapped in place (__cuda_array_interface__: int32 or int64 indptr, int32
 * indices, float64 or float32 data; checked on the device by spx_csr_dev_wrap, held while the
 * object lives) or a result spx made there (spgemm_device: owned, freed with the object), and
 * SpGEMM from two of them with C on the device. Calls run on the stream given (CuPy's current). */
#include <string.h>

#include "binding.h"

enum { IX_PTR = 0, IX_IND = 1, IX_VAL = 2 };

/* A new, empty DevCsr of context c (NULL with an exception on failure). */
static spxpy_devcsr *devcsr_alloc(spxpy_state *st, spxpy_context *c)
{
    PyTypeObject *tp = (PyTypeObject *)st->devcsr_type;
    spxpy_devcsr *o = (spxpy_devcsr *)((allocfunc)PyType_GetSlot(tp, Py_tp_alloc))(tp, 0);
    if (!o) return NULL;
    Py_INCREF((PyObject *)c);
    o->context = c;
    return o;
}

static void devcsr_dealloc(PyObject *self)
{
    spxpy_devcsr *o = (spxpy_devcsr *)self;
    PyTypeObject *tp = Py_TYPE(self);
    if (o->dev) {
        spxpy_lock(o->context);
        spx_csr_dev_destroy(&o->dev);
        spxpy_unlock(o->context);
    }
    for (int i = 0; i < 3; i++) Py_XDECREF(o->keep[i]);
    Py_XDECREF((PyObject *)o->context);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF((PyObject *)tp);
}

/* The stream of a call: None (the default stream) or an integer handle; 0 or -1. */
static int stream_of(PyObject *so, void **stream)
{
    *stream = so == Py_None ? NULL : PyLong_AsVoidPtr(so);
    return PyErr_Occurred() ? -1 : 0;
}

/* One device array of a CSR wrap (see wrap_device). */
typedef struct dev_array {
    void *ptr;
    int64_t len;
    int which; /* 0: int32 / float64; 1: int64 / float32 */
} dev_array;

/* The three arrays of an m-row CSR: indptr of m + 1 int32 or int64, indices int32 and data
 * float64 or float32 of one length (nnz). 0, or -1 with TypeError / ValueError. */
static int take_device_arrays(int64_t m, PyObject *ip, PyObject *ix, PyObject *dv, dev_array a[3])
{
    if (spxpy_device_array(ip, "indptr", SPXPY_INTS, &a[IX_PTR].which, &a[IX_PTR].len, &a[IX_PTR].ptr) ||
        spxpy_device_array(ix, "indices", SPXPY_INT32, &a[IX_IND].which, &a[IX_IND].len, &a[IX_IND].ptr) ||
        spxpy_device_array(dv, "data", SPXPY_FLOATS, &a[IX_VAL].which, &a[IX_VAL].len, &a[IX_VAL].ptr))
        return -1;
    if (a[IX_PTR].len != m + 1)
        return PyErr_Format(PyExc_ValueError, "indptr has %lld entries, expected m + 1 = %lld", (long long)a[IX_PTR].len,
                            (long long)(m + 1)), -1;
    if (a[IX_VAL].len != a[IX_IND].len)
        return PyErr_Format(PyExc_ValueError, "data has %lld entries, indices %lld: they must match (nnz)",
                            (long long)a[IX_VAL].len, (long long)a[IX_IND].len), -1;
    return 0;
}

/* spx_csr_dev_wrap of the arrays a on the context's stream set to stream. */
static spx_status wrap_on(spx_ctx *ctx, void *stream, int32_t m, int32_t n, const dev_array a[3], spx_csr_dev **out)
{
    spx_status s = spx_ctx_set_stream(ctx, stream);
    if (!s)
        s = spx_csr_dev_wrap(ctx, m, n, a[IX_IND].len, a[IX_PTR].which ? SPX_INDEX_INT64 : SPX_INDEX_INT32,
                             a[IX_PTR].ptr, a[IX_IND].ptr, a[IX_VAL].which ? SPX_FP32 : SPX_FP64, a[IX_VAL].ptr, out);
    spx_ctx_set_stream(ctx, NULL);
    return s;
}

/* wrap_device(context, m, n, indptr, indices, data, stream=None): a DevCsr over the device
 * arrays (zero-copy; nnz is indices' length), checked on the device on `stream`. */
PyObject *spxpy_wrap_device(PyObject *mod, PyObject *args, PyObject *kw)
{
    static char *names[] = {"context", "m", "n", "indptr", "indices", "data", "stream", NULL};
    spxpy_state *st = PyModule_GetState(mod);
    PyObject *co, *ip, *ix, *dv, *so = Py_None;
    long long m, n;
    void *stream = NULL;
    dev_array a[3];
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!LLOOO|O", names, (PyTypeObject *)st->context_type, &co, &m, &n, &ip,
                                     &ix, &dv, &so) ||
        stream_of(so, &stream))
        return NULL;
    if (m < 0 || n < 0 || m > INT32_MAX || n > INT32_MAX)
        return PyErr_Format(PyExc_ValueError, "shape (%lld, %lld): spx takes 0 <= rows, columns <= 2^31 - 1", m, n);
    if (take_device_arrays(m, ip, ix, dv, a)) return NULL;
    spxpy_context *c = (spxpy_context *)co;
    spxpy_devcsr *o = devcsr_alloc(st, c);
    if (!o) return NULL;
    spx_status s;
    spxpy_msg msg = {{0}};
    SPXPY_RUN(c, s, &msg, wrap_on(c->ctx, stream, (int32_t)m, (int32_t)n, a, &o->dev));
    if (s) {
        Py_DECREF((PyObject *)o);
        return spxpy_raise(st, s, &msg);
    }
    PyObject *owners[3] = {ip, ix, dv};
    for (int i = 0; i < 3; i++) o->keep[i] = Py_NewRef(owners[i]);
    return (PyObject *)o;
}

/* One SpGEMM from device matrices: its options and stream. */
typedef struct spgemm_job {
    const spx_csr_dev *A, *B;
    spx_spgemm_opts opts;
    void *stream;
} spgemm_job;

/* spx_spgemm_dev of j on the context's stream set to j's. */
static spx_status spgemm_on(spx_ctx *ctx, const spgemm_job *j, spx_csr_dev **C)
{
    spx_status s = spx_ctx_set_stream(ctx, j->stream);
    if (!s) s = spx_spgemm_dev(ctx, j->A, j->B, &j->opts, C, NULL);
    spx_ctx_set_stream(ctx, NULL);
    return s;
}

/* ValueError naming the first unsorted row of a (the scipy wrap's advice), or 0. */
static int check_sorted(const spxpy_devcsr *a, const char *name)
{
    if (a->dev->unsorted_row < 0) return 0;
    PyErr_Format(PyExc_ValueError, "%s: row %d has unsorted or repeated column indices: call %s.sum_duplicates() (it "
                 "sorts and sums them, in place) first", name, a->dev->unsorted_row, name);
    return -1;
}

/* spgemm_device(a, b, transpose_b=0, method=None, algo=None, backend=0, precision=0,
 * c_index=1, stream=None): a new DevCsr C = A*B (A*B^T) on the device (its row pointers int32
 * for c_index 1, int64 for 2), made on `stream`. */
PyObject *spxpy_spgemm_device(PyObject *mod, PyObject *args, PyObject *kw)
{
    static char *names[] = {"a", "b", "transpose_b", "method", "algo", "backend", "precision", "c_index", "stream", NULL};
    spxpy_state *st = PyModule_GetState(mod);
    PyObject *ao, *bo, *so = Py_None;
    const char *method = NULL, *algo = NULL;
    int tb = 0, backend = 0, precision = 0, c_index = SPX_INDEX_INT32;
    PyTypeObject *dt = (PyTypeObject *)st->devcsr_type;
    spgemm_job j;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O!|pzziiiO", names, dt, &ao, dt, &bo, &tb, &method, &algo, &backend,
                                     &precision, &c_index, &so) ||
        stream_of(so, &j.stream))
        return NULL;
    const spxpy_devcsr *a = (const spxpy_devcsr *)ao, *b = (const spxpy_devcsr *)bo;
    if (a->context != b->context) return PyErr_Format(PyExc_ValueError, "A and B belong to different contexts");
    if (backend < 0 || backend > 2 || precision < 0 || precision > 1 || c_index < 1 || c_index > 2)
        return PyErr_Format(PyExc_ValueError, "backend %d, precision %d or c_index %d is not a known code", backend,
                            precision, c_index);
    if (check_sorted(a, "A") || check_sorted(b, "B")) return NULL;
    j.A = a->dev, j.B = b->dev;
    j.opts = (spx_spgemm_opts){.method = method, .algo = algo, .backend = (spx_backend)backend,
                               .precision = (spx_precision)precision, .transpose_b = tb,
                               .c_rowptr_type = (spx_index_type)c_index};
    spxpy_devcsr *o = devcsr_alloc(st, a->context);
    if (!o) return NULL;
    spx_status s;
    spxpy_msg msg = {{0}};
    SPXPY_RUN(a->context, s, &msg, spgemm_on(a->context->ctx, &j, &o->dev));
    if (s) {
        Py_DECREF((PyObject *)o);
        return spxpy_raise(st, s, &msg);
    }
    return (PyObject *)o;
}

/* ---- attributes ---- */

static PyObject *devcsr_shape(PyObject *self, void *unused)
{
    const spx_csr_dev *A = ((spxpy_devcsr *)self)->dev;
    return Py_BuildValue("(ii)", A->m, A->n);
}

static PyObject *devcsr_nnz(PyObject *self, void *unused) { return PyLong_FromLongLong(((spxpy_devcsr *)self)->dev->nnz); }

static PyObject *devcsr_precision(PyObject *self, void *unused)
{
    return PyUnicode_FromString(spx_precision_str(((spxpy_devcsr *)self)->dev->precision));
}

/* 'int32' or 'int64': the row pointers' type. */
static PyObject *devcsr_index(PyObject *self, void *unused)
{
    return PyUnicode_FromString(((spxpy_devcsr *)self)->dev->rowptr_type == SPX_INDEX_INT64 ? "int64" : "int32");
}

static PyObject *devcsr_unsorted_row(PyObject *self, void *unused)
{
    return PyLong_FromLong(((spxpy_devcsr *)self)->dev->unsorted_row);
}

static PyObject *devcsr_wrapped(PyObject *self, void *unused) { return PyBool_FromLong(!((spxpy_devcsr *)self)->dev->owns); }

static PyObject *devcsr_context(PyObject *self, void *unused) { return Py_NewRef((PyObject *)((spxpy_devcsr *)self)->context); }

/* (rowptr, colind, val): the device addresses of the three arrays. */
static PyObject *devcsr_addresses(PyObject *self, PyObject *unused)
{
    const spx_csr_dev *A = ((spxpy_devcsr *)self)->dev;
    return Py_BuildValue("(NNN)", PyLong_FromVoidPtr(A->rowptr), PyLong_FromVoidPtr(A->colind),
                         PyLong_FromVoidPtr(A->val));
}

static PyGetSetDef devcsr_getset[] = {
    {"shape", devcsr_shape, NULL, "(rows, columns)", NULL},
    {"nnz", devcsr_nnz, NULL, "stored entries", NULL},
    {"precision", devcsr_precision, NULL, "'fp64' or 'fp32': the values' type", NULL},
    {"index", devcsr_index, NULL, "'int32' or 'int64': the row pointers' type", NULL},
    {"unsorted_row", devcsr_unsorted_row, NULL, "the first row whose columns do not strictly increase; -1: none", NULL},
    {"wrapped", devcsr_wrapped, NULL, "True when spx reads the caller's arrays, False for a result spx owns", NULL},
    {"context", devcsr_context, NULL, "the context the matrix belongs to", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef devcsr_methods[] = {
    {"addresses", devcsr_addresses, METH_NOARGS, "(rowptr, colind, val) device addresses"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot devcsr_slots[] = {
    {Py_tp_dealloc, devcsr_dealloc},
    {Py_tp_getset, devcsr_getset},
    {Py_tp_methods, devcsr_methods},
    {Py_tp_doc, "A CSR matrix on the device (spx_csr_dev): wrapped device arrays, or a result spx owns."},
    {0, NULL},
};

PyType_Spec spxpy_devcsr_spec = {"spx._spx.DevCsr", sizeof(spxpy_devcsr), 0,
                                 Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, devcsr_slots};
