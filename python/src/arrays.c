/* python/src/arrays.c: access to the caller's arrays: host arrays through the buffer protocol
 * (NumPy, memoryview, array.array) and device arrays through __cuda_array_interface__
 * (CuPy and others), each checked for type, shape, contiguity and writability with a message
 * that says what to pass instead. */
#include <string.h>

#include "binding.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define SPXPY_NATIVE_PREFIX '>'
#else
#define SPXPY_NATIVE_PREFIX '<'
#endif

/* The struct-module type code of a buffer's format ('d', 'f', 'i', 'l', ...), or 0 when the
 * format is not one native scalar. */
static char format_code(const Py_buffer *v)
{
    const char *f = v->format ? v->format : "B";
    if (*f == '@' || *f == '=' || *f == SPXPY_NATIVE_PREFIX) f++;
    return f[0] && !f[1] ? f[0] : 0;
}

/* Gets obj's buffer (format, strides) as a 1-D, C-contiguous array, writable when asked;
 * returns 0, or -1 with TypeError / ValueError naming `name` and saying what to pass. */
static int get_1d(PyObject *obj, const char *name, const char *want, int writable, Py_buffer *v)
{
    if (!PyObject_CheckBuffer(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be a NumPy array of %s, not %R", name, want, (PyObject *)Py_TYPE(obj));
        return -1;
    }
    if (PyObject_GetBuffer(obj, v, PyBUF_FULL_RO) < 0) return -1;
    const char *why = NULL;
    if (writable && v->readonly) why = "is read-only: pass a writable array";
    else if (v->ndim != 1) why = "must be 1-D";
    else if (!PyBuffer_IsContiguous(v, 'C')) why = "is not contiguous: pass a contiguous copy (numpy.ascontiguousarray)";
    if (!why) return 0;
    PyErr_Format(PyExc_ValueError, "%s %s (got %d-D)", name, why, v->ndim);
    PyBuffer_Release(v);
    return -1;
}

int spxpy_host_precision(PyObject *obj, const char *name)
{
    Py_buffer v;
    if (get_1d(obj, name, "float64 or float32", 0, &v)) return -1;
    char c = format_code(&v);
    int p = c == 'd' && v.itemsize == 8 ? SPX_FP64 : c == 'f' && v.itemsize == 4 ? SPX_FP32 : -1;
    if (p < 0)
        PyErr_Format(PyExc_TypeError, "%s must hold float64 or float32 values (buffer format '%s'): convert "
                     "it with .astype(numpy.float64)", name, v.format ? v.format : "B");
    PyBuffer_Release(&v);
    return p;
}

int spxpy_host_vector(PyObject *obj, const char *name, spx_precision p, int64_t n, int writable, Py_buffer *view)
{
    const char *want = p == SPX_FP32 ? "float32" : "float64";
    if (get_1d(obj, name, want, writable, view)) return -1;
    char c = format_code(view);
    int ok = p == SPX_FP32 ? c == 'f' && view->itemsize == 4 : c == 'd' && view->itemsize == 8;
    const char *fmt = view->format ? view->format : "B";
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "%s must be %s like the plan (buffer format '%s'): pass %s.astype(numpy.%s)",
                     name, want, fmt, name, want);
    } else if (n >= 0 && view->shape[0] != n) {
        PyErr_Format(PyExc_ValueError, "%s has %zd entries, expected %lld", name, view->shape[0], (long long)n);
    } else {
        return 0;
    }
    PyBuffer_Release(view);
    return -1;
}

int spxpy_host_index(PyObject *obj, const char *name, int64_t min_len, Py_buffer *view, int *wide)
{
    if (get_1d(obj, name, "int32 or int64", 0, view)) return -1;
    char c = format_code(view);
    int is_signed = c == 'i' || c == 'l' || c == 'q';
    if (!is_signed || (view->itemsize != 4 && view->itemsize != 8)) {
        PyErr_Format(PyExc_TypeError, "%s must hold int32 or int64 indices (buffer format '%s'): convert it "
                     "with .astype(numpy.int32)", name, view->format ? view->format : "B");
    } else if (view->shape[0] < min_len) {
        PyErr_Format(PyExc_ValueError, "%s has %zd entries, expected at least %lld", name, view->shape[0],
                     (long long)min_len);
    } else {
        *wide = view->itemsize == 8;
        return 0;
    }
    PyBuffer_Release(view);
    return -1;
}

/* Reads the integer item i of tuple t into *out; 0 or -1. */
static int tuple_int(PyObject *t, Py_ssize_t i, long long *out)
{
    PyObject *o = PyTuple_GetItem(t, i);
    if (!o) return -1;
    *out = PyLong_AsLongLong(o);
    return *out == -1 && PyErr_Occurred() ? -1 : 0;
}

/* The fields of a __cuda_array_interface__: the data pointer, whether it is read-only, the
 * shape and the strides in bytes (those of a C-contiguous array when the interface has none). */
typedef struct cai_fields {
    void *ptr;
    int readonly;
    long long shape[2], strides[2];
} cai_fields;

/* Reads the interface dict d of a device array of ndim (1 or 2) dimensions of `typestr`
 * (itemsize bytes), not masked, into *f; 0, or -1 with ValueError / TypeError naming `name`. */
static int read_cai(PyObject *d, const char *name, const char *typestr, int itemsize, int ndim, cai_fields *f)
{
    PyObject *shape = PyDict_GetItemString(d, "shape");
    PyObject *type = PyDict_GetItemString(d, "typestr");
    PyObject *data = PyDict_GetItemString(d, "data");
    PyObject *strides = PyDict_GetItemString(d, "strides");
    PyObject *mask = PyDict_GetItemString(d, "mask");
    long long addr = 0;
    if (!shape || !PyTuple_Check(shape) || !type || !PyUnicode_Check(type) || !data || !PyTuple_Check(data) ||
        PyTuple_Size(data) != 2 || tuple_int(data, 0, &addr)) {
        if (!PyErr_Occurred()) PyErr_Format(PyExc_TypeError, "%s has a malformed __cuda_array_interface__", name);
        return -1;
    }
    if (PyTuple_Size(shape) != ndim) {
        if (ndim == 1) PyErr_Format(PyExc_ValueError, "%s must be 1-D", name);
        else PyErr_Format(PyExc_ValueError, "%s must be %d-D (got %zd-D)", name, ndim, PyTuple_Size(shape));
        return -1;
    }
    for (int i = 0; i < ndim; i++)
        if (tuple_int(shape, i, &f->shape[i])) return -1;
    if (PyUnicode_CompareWithASCIIString(type, typestr) != 0) {
        PyErr_Format(PyExc_TypeError, "%s has typestr %R, expected '%s' like the plan: pass %s.astype(...)", name,
                     type, typestr, name);
        return -1;
    }
    f->strides[ndim - 1] = itemsize; /* no strides: C-contiguous */
    if (ndim == 2) f->strides[0] = f->shape[1] * itemsize;
    if (strides && strides != Py_None) {
        int bad = !PyTuple_Check(strides) || PyTuple_Size(strides) != ndim;
        for (int i = 0; !bad && i < ndim; i++) bad = tuple_int(strides, i, &f->strides[i]);
        if (bad) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "%s has malformed strides", name);
            return -1;
        }
    }
    if (mask && mask != Py_None) {
        PyErr_Format(PyExc_ValueError, "%s is masked: spx takes plain arrays", name);
        return -1;
    }
    f->ptr = (void *)(uintptr_t)addr;
    f->readonly = PyObject_IsTrue(PyTuple_GetItem(data, 1));
    return f->readonly < 0 ? -1 : 0;
}

/* Checks the interface dict d of a 1-D, contiguous device array of n entries (n < 0: any
 * number, into *len_out when it is not NULL) of `typestr` (itemsize bytes) and sets *ptr and
 * *readonly; 0, or -1 with ValueError / TypeError. */
static int check_cai(PyObject *d, const char *name, const char *typestr, int itemsize, int64_t n, void **ptr,
                     int *readonly, long long *len_out)
{
    cai_fields f;
    if (read_cai(d, name, typestr, itemsize, 1, &f)) return -1;
    if (f.shape[0] > 1 && f.strides[0] != itemsize) {
        PyErr_Format(PyExc_ValueError, "%s is not contiguous: pass cupy.ascontiguousarray(%s)", name, name);
        return -1;
    }
    if (n >= 0 && spxpy_check_length(name, f.shape[0], n)) return -1;
    if (len_out) *len_out = f.shape[0];
    *ptr = f.ptr;
    *readonly = f.readonly;
    return 0;
}

int spxpy_check_length(const char *name, long long len, int64_t n)
{
    if (len == n) return 0;
    PyErr_Format(PyExc_ValueError, "%s has %lld entries, expected %lld", name, len, (long long)n);
    return -1;
}

/* obj's __cuda_array_interface__ dict (a new reference), or NULL with TypeError naming `name`. */
static PyObject *cai_dict(PyObject *obj, const char *name)
{
    PyObject *d = PyObject_GetAttrString(obj, "__cuda_array_interface__");
    if (d && PyDict_Check(d)) return d;
    Py_XDECREF(d);
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s must be a device array (__cuda_array_interface__, e.g. CuPy), not %R", name,
                 (PyObject *)Py_TYPE(obj));
    return NULL;
}

/* A type of the native byte order: "<f8" on little-endian hosts. */
#define SPXPY_NATIVE(code) (SPXPY_NATIVE_PREFIX == '<' ? "<" code : ">" code)

int spxpy_device_vector(PyObject *obj, const char *name, spx_precision p, int64_t n, int writable, void **ptr)
{
    PyObject *d = cai_dict(obj, name);
    if (!d) return -1;
    int readonly = 0;
    const char *typestr = p == SPX_FP32 ? SPXPY_NATIVE("f4") : SPXPY_NATIVE("f8");
    int rc = check_cai(d, name, typestr, p == SPX_FP32 ? 4 : 8, n, ptr, &readonly, NULL);
    Py_DECREF(d);
    if (!rc && writable && readonly) {
        PyErr_Format(PyExc_ValueError, "%s is read-only: pass a writable array", name);
        return -1;
    }
    return rc;
}

int spxpy_overlap(const void *a, size_t na, const void *b, size_t nb)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return na && nb && x < y + nb && y < x + na;
}

int spxpy_device_array(PyObject *obj, const char *name, int kind, int *which, int64_t *len, void **ptr)
{
    const char *const ints[] = {SPXPY_NATIVE("i4"), SPXPY_NATIVE("i8")};
    const char *const floats[] = {SPXPY_NATIVE("f8"), SPXPY_NATIVE("f4")};
    static const int int_sizes[] = {4, 8}, float_sizes[] = {8, 4};
    const char *const *types = kind == SPXPY_FLOATS ? floats : ints;
    const int *sizes = kind == SPXPY_FLOATS ? float_sizes : int_sizes;
    const int choices = kind == SPXPY_INT32 ? 1 : 2;
    PyObject *d = cai_dict(obj, name);
    if (!d) return -1;
    PyObject *type = PyDict_GetItemString(d, "typestr");
    *which = -1;
    for (int i = 0; type && PyUnicode_Check(type) && i < choices; i++)
        if (!PyUnicode_CompareWithASCIIString(type, types[i])) *which = i;
    int rc = -1, readonly = 0;
    long long l = 0;
    if (*which < 0)
        PyErr_Format(PyExc_TypeError, "%s has typestr %R: spx takes %s here (convert it with .astype)", name,
                     type ? type : Py_None,
                     kind == SPXPY_FLOATS ? "float64 or float32" : kind == SPXPY_INT32 ? "int32" : "int32 or int64");
    else
        rc = check_cai(d, name, types[*which], sizes[*which], -1, ptr, &readonly, &l);
    Py_DECREF(d);
    *len = l;
    return rc;
}

/* ---- 2-D blocks (SpMM's X and Y) ---- */

/* The leading dimension, in entries, of n lines `s` bytes apart of len entries each (itemsize
 * bytes): s / itemsize when that is whole and at least len; a single line's len (at least 1);
 * 0 when the lines cannot be read so. */
static int64_t lead_of(int64_t n, long long s, long long itemsize, int64_t len)
{
    if (n <= 1) return len > 1 ? len : 1;
    return s > 0 && s % itemsize == 0 && s / itemsize >= len ? s / itemsize : 0;
}

/* Sets b->ld from strides s0, s1 (bytes) of entries of itemsize bytes: row-major needs a unit
 * stride along a row, column-major along a column (a stride across a dimension of one entry
 * never matters; an empty block reads either way). */
static void block_lds(spxpy_block *b, long long s0, long long s1, long long itemsize)
{
    const int64_t r = b->rows, c = b->cols;
    int64_t *ld = b->ld;
    ld[SPX_DENSE_COL_MAJOR] = ld[SPX_DENSE_ROW_MAJOR] = 0;
    if (r == 0 || c == 0) {
        ld[SPX_DENSE_COL_MAJOR] = r > 1 ? r : 1;
        ld[SPX_DENSE_ROW_MAJOR] = c > 1 ? c : 1;
        return;
    }
    if (c == 1 || s1 == itemsize) ld[SPX_DENSE_ROW_MAJOR] = lead_of(r, s0, itemsize, c);
    if (r == 1 || s0 == itemsize) ld[SPX_DENSE_COL_MAJOR] = lead_of(c, s1, itemsize, r);
}

/* ValueError unless b reads as a row- or column-major block (strides s0, s1 in bytes), saying
 * to pass module.ascontiguousarray(name); 0 or -1. */
static int need_layout(const spxpy_block *b, const char *name, long long s0, long long s1, const char *module)
{
    if (b->ld[SPX_DENSE_COL_MAJOR] || b->ld[SPX_DENSE_ROW_MAJOR]) return 0;
    PyErr_Format(PyExc_ValueError, "%s (shape (%lld, %lld), strides (%lld, %lld) bytes) is neither row- nor "
                 "column-major with a unit stride along its lines: pass %s.ascontiguousarray(%s)", name,
                 (long long)b->rows, (long long)b->cols, s0, s1, module, name);
    return -1;
}

int spxpy_host_block(PyObject *obj, const char *name, spx_precision p, int writable, Py_buffer *view, spxpy_block *b)
{
    const char *want = p == SPX_FP32 ? "float32" : "float64";
    if (!PyObject_CheckBuffer(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be a 2-D NumPy array of %s, not %R", name, want, (PyObject *)Py_TYPE(obj));
        return -1;
    }
    if (PyObject_GetBuffer(obj, view, PyBUF_FULL_RO) < 0) return -1;
    char c = format_code(view);
    const int ok = p == SPX_FP32 ? c == 'f' && view->itemsize == 4 : c == 'd' && view->itemsize == 8;
    const long long s0 = view->ndim == 2 ? view->strides[0] : 0, s1 = view->ndim == 2 ? view->strides[1] : 0;
    if (view->ndim != 2) {
        PyErr_Format(PyExc_ValueError, "%s must be 2-D (got %d-D)%s", name, view->ndim,
                     view->ndim == 1 ? ": plan.spmv takes vectors" : "");
    } else if (!ok) {
        PyErr_Format(PyExc_TypeError, "%s must be %s like the plan (buffer format '%s'): pass %s.astype(numpy.%s)", name,
                     want, view->format ? view->format : "B", name, want);
    } else if (writable && view->readonly) {
        PyErr_Format(PyExc_ValueError, "%s is read-only: pass a writable array", name);
    } else {
        *b = (spxpy_block){.data = view->buf, .rows = view->shape[0], .cols = view->shape[1]};
        if (!view->suboffsets) block_lds(b, s0, s1, view->itemsize);
        if (!need_layout(b, name, s0, s1, "numpy")) return 0;
    }
    PyBuffer_Release(view);
    return -1;
}

int spxpy_device_block(PyObject *obj, const char *name, spx_precision p, int writable, spxpy_block *b)
{
    PyObject *d = cai_dict(obj, name);
    if (!d) return -1;
    cai_fields f;
    const int itemsize = p == SPX_FP32 ? 4 : 8;
    int rc = read_cai(d, name, p == SPX_FP32 ? SPXPY_NATIVE("f4") : SPXPY_NATIVE("f8"), itemsize, 2, &f);
    Py_DECREF(d);
    if (rc) return -1;
    if (writable && f.readonly) {
        PyErr_Format(PyExc_ValueError, "%s is read-only: pass a writable array", name);
        return -1;
    }
    *b = (spxpy_block){.data = f.ptr, .rows = f.shape[0], .cols = f.shape[1]};
    block_lds(b, f.strides[0], f.strides[1], itemsize);
    return need_layout(b, name, f.strides[0], f.strides[1], "cupy");
}

int spxpy_check_block_shape(const char *name, const spxpy_block *b, int64_t rows, int64_t cols)
{
    if (b->rows == rows && (cols < 0 || b->cols == cols)) return 0;
    if (cols < 0)
        PyErr_Format(PyExc_ValueError, "%s has %lld rows, expected %lld", name, (long long)b->rows, (long long)rows);
    else
        PyErr_Format(PyExc_ValueError, "%s has shape (%lld, %lld), expected (%lld, %lld)", name, (long long)b->rows,
                     (long long)b->cols, (long long)rows, (long long)cols);
    return -1;
}

/* The name of layout l as numpy says it. */
static const char *order_name(spx_dense_layout l)
{
    return l == SPX_DENSE_ROW_MAJOR ? "row-major (C order)" : "column-major (Fortran order)";
}

int spxpy_block_layout(const spxpy_block *x, const spxpy_block *y, spx_dense_layout *out)
{
    const spx_dense_layout row = SPX_DENSE_ROW_MAJOR, col = SPX_DENSE_COL_MAJOR;
    if (x->ld[row] && y->ld[row]) *out = row;
    else if (x->ld[col] && y->ld[col]) *out = col;
    else {
        PyErr_Format(PyExc_ValueError, "X is %s and Y %s: pass Y in X's layout", order_name(x->ld[row] ? row : col),
                     order_name(y->ld[row] ? row : col));
        return -1;
    }
    return 0;
}

size_t spxpy_block_span(const spxpy_block *b, spx_dense_layout l, size_t itemsize)
{
    const int64_t lines = l == SPX_DENSE_ROW_MAJOR ? b->rows : b->cols, len = l == SPX_DENSE_ROW_MAJOR ? b->cols : b->rows;
    return lines && len ? (size_t)((lines - 1) * b->ld[l] + len) * itemsize : 0;
}
