/* python/src/binding.h: what the files of the extension spx._spx share: the module state, the
 * object layouts (Context, Csr, Plan), the context lock, errors and array access. */
#ifndef SPX_PY_BINDING_H
#define SPX_PY_BINDING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>
#include <stdio.h>

#include "spx/spx.h"

/* The module's state: its types and exception classes (no C globals). */
typedef struct spxpy_state {
    PyObject *context_type, *csr_type, *plan_type, *devcsr_type;
    PyObject *errors[4]; /* spx.Error (RuntimeError), ArgumentError, OutOfMemory, IOError */
    PyObject *by_status[SPX_ERR_DEVICE_ALLOC + 1]; /* the class each status raises (borrowed) */
} spxpy_state;

/* A context, and the lock every call that uses it (or anything made from it) holds: a context
 * is used by one thread at a time (include/spx/plan.h), and calls run with the GIL released. */
typedef struct spxpy_context {
    PyObject_HEAD
    spx_ctx *ctx;
    PyThread_type_lock lock;
    spx_backend asked; /* the backend the context was made for (AUTO, CPU, CUDA) */
    int device;
} spxpy_context;

/* A CSR matrix: wrapped caller arrays (held through their buffers, never copied unless a
 * conversion was needed: `copied` says which) or arrays spx owns (load, gen, spgemm). */
typedef struct spxpy_csr {
    PyObject_HEAD
    spxpy_context *context; /* strong reference */
    spx_csr *csr;
    Py_buffer views[3];     /* indptr, indices, data of a wrapped matrix (obj NULL: none) */
    void *owned[3];         /* the converted copies made instead (PyMem), or NULL */
    spx_precision precision; /* the values' type as given (fp32 values are held as fp64) */
} spxpy_csr;

/* A CSR matrix on the device (spx_csr_dev): the caller's arrays wrapped in place (their owners
 * held in `keep`), or a result spx made there (owned: freed with the object). */
typedef struct spxpy_devcsr {
    PyObject_HEAD
    spxpy_context *context; /* strong reference */
    spx_csr_dev *dev;
    PyObject *keep[3];      /* indptr, indices, data of a wrapped matrix (NULL: none) */
} spxpy_devcsr;

/* Counters the binding keeps for a plan (calls; host arrays copied to and from the device). */
typedef struct spxpy_plan_stats {
    long long spmv_calls, spmm_calls, host_copies, host_copy_bytes;
} spxpy_plan_stats;

typedef struct spxpy_plan {
    PyObject_HEAD
    spxpy_context *context; /* strong reference */
    spxpy_csr *matrix;      /* the host matrix the plan was made from (Jacobi reads it); NULL for
                               a plan made from a device matrix (spxpy_plan_device) */
    spx_plan *plan;
    spx_plan_info info;     /* as at creation (m, n, backend, precision) */
    spxpy_plan_stats stats;
} spxpy_plan;

/* A message copied out of the context while its lock is held. */
typedef struct spxpy_msg {
    char text[512];
} spxpy_msg;

/* Takes the context's lock; waits with the GIL released when another thread holds it. */
void spxpy_lock(spxpy_context *c);
void spxpy_unlock(spxpy_context *c);
/* Copies the context's last error into *m (call with the lock held). */
void spxpy_keep_error(spxpy_context *c, spxpy_msg *m);

/* Runs EXPR (an spx_status expression) with the GIL released and the context's lock held;
 * S receives the status and, on failure, MSG the context's message. */
#define SPXPY_RUN(C, S, MSG, EXPR)                                   \
    do {                                                             \
        Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock((C)->lock, WAIT_LOCK); \
        (S) = (EXPR);                                                \
        if ((S) != SPX_OK) spxpy_keep_error((C), (MSG));             \
        PyThread_release_lock((C)->lock);                            \
        Py_END_ALLOW_THREADS                                         \
    } while (0)

/* Raises the exception of status s with message m (the status's name when m is empty);
 * returns NULL. */
PyObject *spxpy_raise(spxpy_state *st, spx_status s, const spxpy_msg *m);

/* The module state of a binding type's instance. */
spxpy_state *spxpy_state_of(PyObject *self);

/* A 1-D, C-contiguous host array of n (n < 0: any length) floating values of precision p,
 * writable when asked; TypeError / ValueError naming `name` otherwise. Returns 0 or -1. */
int spxpy_host_vector(PyObject *obj, const char *name, spx_precision p, int64_t n, int writable,
                      Py_buffer *view);
/* A 1-D, C-contiguous host array of signed integers (int32 or int64); *wide is 1 for int64.
 * Returns 0 or -1 (exception set). */
int spxpy_host_index(PyObject *obj, const char *name, int64_t min_len, Py_buffer *view, int *wide);
/* The precision of a 1-D host float array (float64 or float32); -1 with TypeError otherwise. */
int spxpy_host_precision(PyObject *obj, const char *name);
/* The device pointer of an object with __cuda_array_interface__: 1-D, contiguous, n entries
 * of precision p, writable when asked. Returns 0 or -1 (exception set). */
int spxpy_device_vector(PyObject *obj, const char *name, spx_precision p, int64_t n, int writable,
                        void **ptr);
/* The kinds of device array spxpy_device_array takes: int32 only, int32 or int64, float64 or
 * float32. */
enum { SPXPY_INT32 = 0, SPXPY_INTS = 1, SPXPY_FLOATS = 2 };
/* The device pointer and length of obj (__cuda_array_interface__: 1-D, contiguous) holding one
 * of kind's types: *which 0 for int32 / float64, 1 for int64 / float32. 0, or -1 with
 * TypeError / ValueError naming `name`. */
int spxpy_device_array(PyObject *obj, const char *name, int kind, int *which, int64_t *len, void **ptr);
/* A 2-D operand of SpMM (X or Y) as spx_dense_wrap takes it: rows x cols entries at data, and
 * its leading dimension (entries) in each layout it reads as: ld[SPX_DENSE_COL_MAJOR] and
 * ld[SPX_DENSE_ROW_MAJOR], 0 for a layout it does not (an array with one entry a line, or
 * none, reads as both). */
typedef struct spxpy_block {
    void *data;
    int64_t rows, cols;
    int64_t ld[2];
} spxpy_block;
/* A 2-D host array (buffer protocol) of precision p, writable when asked, with a unit stride
 * along its rows or its columns and the other stride a whole number of entries, at least a
 * line (C or Fortran order, or a slice of one); *view holds it (released on failure).
 * TypeError / ValueError naming `name` and what to pass otherwise. Returns 0 or -1. */
int spxpy_host_block(PyObject *obj, const char *name, spx_precision p, int writable, Py_buffer *view, spxpy_block *b);
/* As spxpy_host_block for a device array (__cuda_array_interface__, 2-D). */
int spxpy_device_block(PyObject *obj, const char *name, spx_precision p, int writable, spxpy_block *b);
/* ValueError unless b has `rows` rows and `cols` columns (cols < 0: any); 0 or -1. */
int spxpy_check_block_shape(const char *name, const spxpy_block *b, int64_t rows, int64_t cols);
/* The layout X and Y both read as, row-major first, in *out; ValueError naming both layouts
 * when there is none. 0 or -1. */
int spxpy_block_layout(const spxpy_block *x, const spxpy_block *y, spx_dense_layout *out);
/* Bytes from b's first entry to the end of its last in layout l. */
size_t spxpy_block_span(const spxpy_block *b, spx_dense_layout l, size_t itemsize);
/* ValueError "NAME has LEN entries, expected N" unless len == n; returns 0 or -1. */
int spxpy_check_length(const char *name, long long len, int64_t n);
/* Whether [a, a+na) and [b, b+nb) (bytes) overlap. */
int spxpy_overlap(const void *a, size_t na, const void *b, size_t nb);

/* TypeError unless o is a CUDA plan; returns 0 or -1. */
int spxpy_need_cuda(const spxpy_plan *o);
/* Reads `stream` (None: the default stream; else a cudaStream_t as an int) into *s; 0 or -1. */
int spxpy_stream_arg(PyObject *so, void **s);
/* The Plan's SpMM methods (python/src/spmm.c). */
PyObject *spxpy_plan_spmm_host(PyObject *self, PyObject *args);
PyObject *spxpy_plan_spmm_device(PyObject *self, PyObject *args);
PyObject *spxpy_plan_spmm_layout(PyObject *self, PyObject *x);
PyObject *spxpy_plan_spmm_info(PyObject *self, PyObject *args);

/* Type specs, defined beside their methods. */
extern PyType_Spec spxpy_context_spec, spxpy_csr_spec, spxpy_plan_spec, spxpy_devcsr_spec;

/* Module functions defined outside module.c. */
PyObject *spxpy_wrap(PyObject *mod, PyObject *args, PyObject *kw);
PyObject *spxpy_load(PyObject *mod, PyObject *args, PyObject *kw);
PyObject *spxpy_make_plan(PyObject *mod, PyObject *args, PyObject *kw);
PyObject *spxpy_spgemm(PyObject *mod, PyObject *args, PyObject *kw);
PyObject *spxpy_solve(PyObject *mod, PyObject *args, PyObject *kw);
PyObject *spxpy_wrap_device(PyObject *mod, PyObject *args, PyObject *kw);
PyObject *spxpy_spgemm_device(PyObject *mod, PyObject *args, PyObject *kw);
PyObject *spxpy_plan_device(PyObject *mod, PyObject *args, PyObject *kw);


/* A new Csr object of context c owning A (taken over: destroyed on failure). */
PyObject *spxpy_csr_adopt(spxpy_state *st, spxpy_context *c, spx_csr *A, spx_precision p);
/* Checks that every row of A has strictly increasing columns (ValueError naming the row). */
int spxpy_csr_check_sorted(const spx_csr *A, int64_t *bad_row);

#endif
