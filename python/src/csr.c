/* python/src/csr.c: the Csr type: a CSR matrix of a context, either wrapping the caller's
 * arrays (spx_csr_wrap: column indices and fp64 values are read in place; what spx's layout
 * cannot share, int32 row pointers, int64 column indices, fp32 values, is converted once and
 * reported by .copied) or owned by spx (load, gen, spgemm); its arrays copy out to NumPy. */
#include <string.h>

#include "binding.h"

enum { IX_PTR = 0, IX_IND = 1, IX_VAL = 2 };
static const char *const array_names[3] = {"indptr", "indices", "data"};

int spxpy_csr_check_sorted(const spx_csr *A, int64_t *bad_row)
{
    for (int32_t i = 0; i < A->m; i++)
        for (int64_t k = A->rowptr[i] + 1; k < A->rowptr[i + 1]; k++)
            if (A->colind[k] <= A->colind[k - 1]) {
                *bad_row = i;
                return -1;
            }
    return 0;
}

/* A new, empty Csr object of context c (NULL with an exception on failure). */
static spxpy_csr *csr_alloc(spxpy_state *st, spxpy_context *c)
{
    PyTypeObject *tp = (PyTypeObject *)st->csr_type;
    allocfunc alloc = (allocfunc)PyType_GetSlot(tp, Py_tp_alloc);
    spxpy_csr *o = (spxpy_csr *)alloc(tp, 0);
    if (!o) return NULL;
    Py_INCREF((PyObject *)c);
    o->context = c;
    return o;
}

PyObject *spxpy_csr_adopt(spxpy_state *st, spxpy_context *c, spx_csr *A, spx_precision p)
{
    spxpy_csr *o = csr_alloc(st, c);
    if (!o) {
        spxpy_lock(c);
        spx_csr_destroy(&A);
        spxpy_unlock(c);
        return NULL;
    }
    o->csr = A;
    o->precision = p;
    return (PyObject *)o;
}

static void csr_dealloc(PyObject *self)
{
    spxpy_csr *o = (spxpy_csr *)self;
    PyTypeObject *tp = Py_TYPE(self);
    if (o->csr) {
        spxpy_lock(o->context);
        spx_csr_destroy(&o->csr);
        spxpy_unlock(o->context);
    }
    for (int i = 0; i < 3; i++) {
        if (o->views[i].obj) PyBuffer_Release(&o->views[i]);
        PyMem_Free(o->owned[i]);
    }
    Py_XDECREF((PyObject *)o->context);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF((PyObject *)tp);
}

/* ---- wrapping the caller's arrays ---- */

/* Widens n int32 row pointers. */
static void widen_rowptr(const int32_t *src, int64_t *dst, int64_t n)
{
    for (int64_t i = 0; i < n; i++) dst[i] = src[i];
}

/* Narrows n int64 column indices, all in [0, ncols); returns the position of the first one
 * outside (then nothing is promised about dst), or -1. */
static int64_t narrow_colind(const int64_t *src, int32_t *dst, int64_t n, int32_t ncols)
{
    for (int64_t k = 0; k < n; k++) {
        if (src[k] < 0 || src[k] >= ncols) return k;
        dst[k] = (int32_t)src[k];
    }
    return -1;
}

/* Widens n fp32 values. */
static void widen_values(const float *src, double *dst, int64_t n)
{
    for (int64_t k = 0; k < n; k++) dst[k] = src[k];
}

/* The row pointers of o from the buffer in views[IX_PTR] (m + 1 entries): in place when int64,
 * else converted into owned[IX_PTR] (and the buffer released). 0 or -1. */
static int take_rowptr(spxpy_csr *o, int wide, int64_t m, int64_t **out)
{
    Py_buffer *v = &o->views[IX_PTR];
    if (wide) {
        *out = v->buf;
        return 0;
    }
    int64_t *w = PyMem_Malloc((size_t)(m + 1) * sizeof *w);
    if (!w) return PyErr_NoMemory(), -1;
    widen_rowptr(v->buf, w, m + 1);
    PyBuffer_Release(v);
    o->owned[IX_PTR] = *out = w;
    return 0;
}

/* The nnz column indices of o from views[IX_IND]: in place when int32, else narrowed into
 * owned[IX_IND] (ValueError for an index outside [0, n)). 0 or -1. */
static int take_colind(spxpy_csr *o, int wide, int64_t nnz, int32_t n, int32_t **out)
{
    Py_buffer *v = &o->views[IX_IND];
    if (!wide) {
        *out = v->buf;
        return 0;
    }
    int32_t *w = PyMem_Malloc((size_t)(nnz ? nnz : 1) * sizeof *w);
    if (!w) return PyErr_NoMemory(), -1;
    int64_t bad;
    Py_BEGIN_ALLOW_THREADS bad = narrow_colind(v->buf, w, nnz, n);
    Py_END_ALLOW_THREADS
    if (bad >= 0) {
        PyErr_Format(PyExc_ValueError, "indices[%lld] = %lld is outside the %d columns", (long long)bad,
                     (long long)((const int64_t *)v->buf)[bad], n);
        PyMem_Free(w);
        return -1;
    }
    PyBuffer_Release(v);
    o->owned[IX_IND] = *out = w;
    return 0;
}

/* The nnz values of o from views[IX_VAL] as fp64: in place when fp64, else widened into
 * owned[IX_VAL]. 0 or -1. */
static int take_values(spxpy_csr *o, int64_t nnz, double **out)
{
    Py_buffer *v = &o->views[IX_VAL];
    if (o->precision == SPX_FP64) {
        *out = v->buf;
        return 0;
    }
    double *w = PyMem_Malloc((size_t)(nnz ? nnz : 1) * sizeof *w);
    if (!w) return PyErr_NoMemory(), -1;
    Py_BEGIN_ALLOW_THREADS widen_values(v->buf, w, nnz);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(v);
    o->owned[IX_VAL] = *out = w;
    return 0;
}

/* Gets the three arrays of an m x n CSR into o (converted where spx's layout needs it). */
static int take_arrays(spxpy_csr *o, int64_t m, int32_t n, PyObject *ip, PyObject *ix, PyObject *dv,
                       int64_t **rowptr, int32_t **colind, double **val, int64_t *nnz)
{
    int wide = 0;
    if (spxpy_host_index(ip, "indptr", m + 1, &o->views[IX_PTR], &wide)) return -1;
    if (o->views[IX_PTR].shape[0] != m + 1)
        return PyErr_Format(PyExc_ValueError, "indptr has %zd entries, expected m + 1 = %lld",
                            o->views[IX_PTR].shape[0], (long long)(m + 1)), -1;
    if (take_rowptr(o, wide, m, rowptr)) return -1;
    *nnz = (*rowptr)[m];
    if ((*rowptr)[0] != 0 || *nnz < 0)
        return PyErr_Format(PyExc_ValueError, "indptr must start at 0 and end at nnz >= 0 (got %lld .. %lld)",
                            (long long)(*rowptr)[0], (long long)*nnz), -1;
    if (spxpy_host_index(ix, "indices", *nnz, &o->views[IX_IND], &wide)) return -1;
    if (take_colind(o, wide, *nnz, n, colind)) return -1;
    int p = spxpy_host_precision(dv, "data");
    if (p < 0) return -1;
    o->precision = (spx_precision)p;
    if (spxpy_host_vector(dv, "data", o->precision, -1, 0, &o->views[IX_VAL])) return -1;
    if (o->views[IX_VAL].shape[0] < *nnz)
        return PyErr_Format(PyExc_ValueError, "data has %zd entries, fewer than nnz = %lld",
                            o->views[IX_VAL].shape[0], (long long)*nnz), -1;
    return take_values(o, *nnz, val);
}

/* wrap(context, m, n, indptr, indices, data): a Csr over the arrays (see the file comment);
 * rows must have sorted, unique columns (ValueError naming the row otherwise). */
PyObject *spxpy_wrap(PyObject *mod, PyObject *args, PyObject *kw)
{
    static char *names[] = {"context", "m", "n", "indptr", "indices", "data", NULL};
    spxpy_state *st = PyModule_GetState(mod);
    PyObject *co, *ip, *ix, *dv;
    long long m, n;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!LLOOO", names, (PyTypeObject *)st->context_type, &co, &m, &n, &ip,
                                     &ix, &dv))
        return NULL;
    if (m < 0 || n < 0 || m > INT32_MAX || n > INT32_MAX)
        return PyErr_Format(PyExc_ValueError, "shape (%lld, %lld): spx takes 0 <= rows, columns <= 2^31 - 1", m, n);
    spxpy_context *c = (spxpy_context *)co;
    spxpy_csr *o = csr_alloc(st, c);
    int64_t *rowptr = NULL, nnz = 0;
    int32_t *colind = NULL;
    double *val = NULL;
    if (!o || take_arrays(o, m, (int32_t)n, ip, ix, dv, &rowptr, &colind, &val, &nnz)) {
        Py_XDECREF((PyObject *)o);
        return NULL;
    }
    spx_status s;
    spxpy_msg msg = {{0}};
    SPXPY_RUN(c, s, &msg, spx_csr_wrap(c->ctx, (int32_t)m, (int32_t)n, nnz, rowptr, colind, val, &o->csr));
    if (s) {
        Py_DECREF((PyObject *)o);
        return spxpy_raise(st, s, &msg);
    }
    int64_t bad = -1;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = spxpy_csr_check_sorted(o->csr, &bad);
    Py_END_ALLOW_THREADS
    if (rc) {
        Py_DECREF((PyObject *)o);
        return PyErr_Format(PyExc_ValueError, "row %lld has unsorted or repeated column indices: call "
                            "A.sum_duplicates() (it sorts and sums them, in place) first", (long long)bad);
    }
    return (PyObject *)o;
}

/* load(context, source): a Csr read from a Matrix Market file or made from a gen: spec. */
PyObject *spxpy_load(PyObject *mod, PyObject *args, PyObject *kw)
{
    static char *names[] = {"context", "source", NULL};
    spxpy_state *st = PyModule_GetState(mod);
    PyObject *co;
    const char *src;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!s", names, (PyTypeObject *)st->context_type, &co, &src))
        return NULL;
    spxpy_context *c = (spxpy_context *)co;
    spx_csr *A = NULL;
    spx_status s;
    spxpy_msg msg = {{0}};
    SPXPY_RUN(c, s, &msg, spx_load(c->ctx, src, NULL, &A));
    if (s) return spxpy_raise(st, s, &msg);
    return spxpy_csr_adopt(st, c, A, SPX_FP64);
}

/* ---- attributes and methods ---- */

static PyObject *csr_shape(PyObject *self, void *unused)
{
    const spx_csr *A = ((spxpy_csr *)self)->csr;
    return Py_BuildValue("(ii)", A->m, A->n);
}

static PyObject *csr_nnz(PyObject *self, void *unused) { return PyLong_FromLongLong(((spxpy_csr *)self)->csr->nnz); }

static PyObject *csr_precision(PyObject *self, void *unused)
{
    return PyUnicode_FromString(spx_precision_str(((spxpy_csr *)self)->precision));
}

static PyObject *csr_context(PyObject *self, void *unused)
{
    PyObject *c = (PyObject *)((spxpy_csr *)self)->context;
    Py_INCREF((PyObject *)c);
    return c;
}

/* Whether the arrays are the caller's (wrap) rather than spx's (load, gen, spgemm). */
static PyObject *csr_wrapped(PyObject *self, void *unused) { return PyBool_FromLong(!((spxpy_csr *)self)->csr->owns); }

/* The names of the caller's arrays that were converted (copied) rather than shared. */
static PyObject *csr_copied(PyObject *self, void *unused)
{
    spxpy_csr *o = (spxpy_csr *)self;
    PyObject *t = PyList_New(0);
    for (int i = 0; t && i < 3; i++) {
        if (!o->owned[i]) continue;
        PyObject *name = PyUnicode_FromString(array_names[i]);
        if (!name || PyList_Append(t, name)) Py_CLEAR(t);
        Py_XDECREF(name);
    }
    PyObject *r = t ? PyList_AsTuple(t) : NULL;
    Py_XDECREF(t);
    return r;
}

/* (rowptr, colind, val): the addresses spx reads the three arrays from. */
static PyObject *csr_addresses(PyObject *self, PyObject *unused)
{
    const spx_csr *A = ((spxpy_csr *)self)->csr;
    return Py_BuildValue("(NNN)", PyLong_FromVoidPtr(A->rowptr), PyLong_FromVoidPtr(A->colind),
                         PyLong_FromVoidPtr(A->val));
}

/* Copies the row pointers into dst (int32 or int64, m + 1 entries). */
static void export_rowptr(const spx_csr *A, void *dst, int wide)
{
    for (int64_t i = 0; i <= A->m; i++) {
        if (wide) ((int64_t *)dst)[i] = A->rowptr[i];
        else ((int32_t *)dst)[i] = (int32_t)A->rowptr[i];
    }
}

/* Copies the values into dst (fp64 or fp32, nnz entries). */
static void export_values(const spx_csr *A, void *dst, spx_precision p)
{
    if (p == SPX_FP64) {
        memcpy(dst, A->val, (size_t)A->nnz * sizeof *A->val);
        return;
    }
    for (int64_t k = 0; k < A->nnz; k++) ((float *)dst)[k] = (float)A->val[k];
}

/* Fills the three writable arrays given (indptr int32/int64 of m + 1, indices int32 of nnz,
 * data float64/float32 of nnz) from the matrix's arrays. */
static int export_into(const spx_csr *A, Py_buffer *vp, Py_buffer *vi, Py_buffer *vv)
{
    int wide = vp->itemsize == 8;
    spx_precision p = vv->itemsize == 4 ? SPX_FP32 : SPX_FP64;
    if (!wide && A->nnz > INT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "nnz exceeds int32: pass an int64 indptr");
        return -1;
    }
    Py_BEGIN_ALLOW_THREADS export_rowptr(A, vp->buf, wide);
    if (A->nnz) memcpy(vi->buf, A->colind, (size_t)A->nnz * sizeof *A->colind);
    export_values(A, vv->buf, p);
    Py_END_ALLOW_THREADS
    return 0;
}

/* export(indptr, indices, data): copies the matrix into the caller's writable arrays. */
static PyObject *csr_export(PyObject *self, PyObject *args)
{
    const spx_csr *A = ((spxpy_csr *)self)->csr;
    PyObject *ip, *ix, *dv;
    if (!PyArg_ParseTuple(args, "OOO", &ip, &ix, &dv)) return NULL;
    Py_buffer vp = {0}, vi = {0}, vv = {0};
    int wide = 0, rc = -1;
    int p = spxpy_host_precision(dv, "data");
    if (p >= 0 && !spxpy_host_index(ip, "indptr", (int64_t)A->m + 1, &vp, &wide) &&
        !spxpy_host_index(ix, "indices", A->nnz, &vi, &wide) &&
        !spxpy_host_vector(dv, "data", (spx_precision)p, A->nnz, 1, &vv)) {
        if (vp.readonly || vi.readonly || vi.itemsize != 4 || vp.shape[0] != (Py_ssize_t)A->m + 1 ||
            vi.shape[0] != A->nnz)
            PyErr_SetString(PyExc_ValueError, "export needs writable indptr (m + 1) and int32 indices (nnz)");
        else
            rc = export_into(A, &vp, &vi, &vv);
    }
    if (vp.obj) PyBuffer_Release(&vp);
    if (vi.obj) PyBuffer_Release(&vi);
    if (vv.obj) PyBuffer_Release(&vv);
    if (rc) return NULL;
    Py_RETURN_NONE;
}

static PyGetSetDef csr_getset[] = {
    {"shape", csr_shape, NULL, "(rows, columns)", NULL},
    {"nnz", csr_nnz, NULL, "stored entries", NULL},
    {"precision", csr_precision, NULL, "'fp64' or 'fp32': the values' type as given", NULL},
    {"context", csr_context, NULL, "the context the matrix belongs to", NULL},
    {"wrapped", csr_wrapped, NULL, "True when spx reads the caller's arrays", NULL},
    {"copied", csr_copied, NULL, "names of the caller's arrays converted rather than shared", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef csr_methods[] = {
    {"addresses", csr_addresses, METH_NOARGS, "(rowptr, colind, val) addresses spx reads"},
    {"export", csr_export, METH_VARARGS, "export(indptr, indices, data): copy into writable arrays"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot csr_slots[] = {
    {Py_tp_dealloc, csr_dealloc},
    {Py_tp_getset, csr_getset},
    {Py_tp_methods, csr_methods},
    {Py_tp_doc, "A CSR matrix of an spx context (made by wrap, load or spgemm)."},
    {0, NULL},
};

PyType_Spec spxpy_csr_spec = {"spx._spx.Csr", sizeof(spxpy_csr), 0,
                              Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, csr_slots};
