/* python/src/ops.c: the operations beyond SpMV: SpGEMM (spx_spgemm plan, run, destroy) and
 * the solvers (spx_solve_cg / _bicgstab, Jacobi through spx_solve_inv_diag) on host arrays
 * (wrapped in place for CPU plans, copied to the device and back for CUDA plans) or device
 * arrays (wrapped in place, on the caller's stream). */
#include <stdio.h>
#include <string.h>

#include "binding.h"

/* The most residuals a solve records (the first ones; 32 MiB). */
#define SPXPY_HISTORY_CAP (1 << 22)

/* ---- SpGEMM ---- */

/* C = A*B (A*B^T) with a plan made, run once and destroyed. */
static spx_status spgemm_run(spx_ctx *ctx, const spx_csr *A, const spx_csr *B, const spx_spgemm_opts *o, spx_csr **C)
{
    spx_spgemm_plan *p = NULL;
    spx_status s = spx_spgemm_plan_create(ctx, A, B, o, &p);
    if (!s) s = spx_spgemm_run(p, C);
    spx_spgemm_plan_destroy(&p);
    return s;
}

/* spgemm(a, b, transpose_b=0, method=None, algo=None, backend=0, precision=0): a new Csr
 * C = A*B (A*B^T), both of one context, values of the given precision. */
PyObject *spxpy_spgemm(PyObject *mod, PyObject *args, PyObject *kw)
{
    static char *names[] = {"a", "b", "transpose_b", "method", "algo", "backend", "precision", NULL};
    spxpy_state *st = PyModule_GetState(mod);
    PyObject *ao, *bo;
    const char *method = NULL, *algo = NULL;
    int tb = 0, backend = 0, precision = 0;
    PyTypeObject *ct = (PyTypeObject *)st->csr_type;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O!|pzzii", names, ct, &ao, ct, &bo, &tb, &method, &algo, &backend,
                                     &precision))
        return NULL;
    spxpy_csr *a = (spxpy_csr *)ao, *b = (spxpy_csr *)bo;
    if (a->context != b->context) return PyErr_Format(PyExc_ValueError, "A and B belong to different contexts");
    if (backend < 0 || backend > 2 || precision < 0 || precision > 1)
        return PyErr_Format(PyExc_ValueError, "backend %d or precision %d is not a known code", backend, precision);
    spx_spgemm_opts o = {.method = method, .algo = algo, .backend = (spx_backend)backend,
                         .precision = (spx_precision)precision, .transpose_b = tb};
    spx_csr *C = NULL;
    spx_status s;
    spxpy_msg msg = {{0}};
    SPXPY_RUN(a->context, s, &msg, spgemm_run(a->context->ctx, a->csr, b->csr, &o, &C));
    if (s) return spxpy_raise(st, s, &msg);
    return spxpy_csr_adopt(st, a->context, C, o.precision);
}

/* ---- solvers ---- */

/* One solve: its inputs, and what it reports back. */
typedef struct solve_job {
    spxpy_plan *plan;
    int bicgstab, jacobi, device_arrays;
    void *b, *x;   /* host or device data of n entries of the plan's precision */
    void *stream;
    spx_solve_opts opts;
    spx_solve_result res;
    long long copy_bytes; /* host <-> device copies of a CUDA plan given host arrays */
} solve_job;

/* The vectors of a solve: b and x where the plan runs, and the host arrays behind them when
 * they are copies. */
typedef struct solve_vecs {
    spx_vec *b, *x, *hb, *hx, *inv;
} solve_vecs;

/* Makes j's vectors: wrapped in place where the arrays live where the plan runs, else device
 * copies of the host arrays. */
static spx_status solve_vectors(solve_job *j, solve_vecs *v)
{
    spx_ctx *ctx = j->plan->context->ctx;
    spx_backend pb = j->plan->info.backend;
    spx_precision p = j->plan->info.precision;
    int64_t n = j->plan->info.n;
    spx_backend where = j->device_arrays ? SPX_BACKEND_CUDA : SPX_BACKEND_CPU;
    if (pb == where) {
        spx_status s = spx_vec_wrap(ctx, where, p, n, j->b, &v->b);
        return s ? s : spx_vec_wrap(ctx, where, p, n, j->x, &v->x);
    }
    spx_status s = spx_vec_wrap(ctx, SPX_BACKEND_CPU, p, n, j->b, &v->hb);
    if (!s) s = spx_vec_wrap(ctx, SPX_BACKEND_CPU, p, n, j->x, &v->hx);
    if (!s) s = spx_vec_create(ctx, pb, p, n, &v->b);
    if (!s) s = spx_vec_create(ctx, pb, p, n, &v->x);
    if (!s) s = spx_vec_copy(v->b, v->hb);
    if (!s) s = spx_vec_copy(v->x, v->hx);
    if (!s) j->copy_bytes += 2 * n * (long long)spx_precision_bytes(p);
    return s;
}

/* Runs the solve of j on the context's stream set to j's; x holds the result afterwards. */
static spx_status solve_run(solve_job *j)
{
    spx_ctx *ctx = j->plan->context->ctx;
    solve_vecs v = {0};
    spx_status s = spx_ctx_set_stream(ctx, j->stream);
    if (!s) s = solve_vectors(j, &v);
    if (!s && j->jacobi) s = spx_solve_inv_diag(ctx, j->plan->matrix->csr, j->plan->plan, &v.inv);
    if (!s && j->jacobi) {
        j->opts.precond = SPX_PRECOND_JACOBI;
        j->opts.inv_diag = v.inv;
    }
    if (!s) s = (j->bicgstab ? spx_solve_bicgstab : spx_solve_cg)(j->plan->plan, v.b, v.x, &j->opts, &j->res);
    if (!s && v.hx) {
        s = spx_vec_copy(v.hx, v.x);
        j->copy_bytes += spx_vec_length(v.x) * (long long)spx_precision_bytes(j->plan->info.precision);
    }
    spx_vec_destroy(&v.inv);
    spx_vec_destroy(&v.b);
    spx_vec_destroy(&v.x);
    spx_vec_destroy(&v.hb);
    spx_vec_destroy(&v.hx);
    spx_ctx_set_stream(ctx, NULL);
    return s;
}

/* Finds the data of b and x (host or device arrays, both of one kind) for j. 0 or -1. */
static int solve_arrays(solve_job *j, PyObject *bo, PyObject *xo, Py_buffer *bv, Py_buffer *xv)
{
    spx_precision p = j->plan->info.precision;
    int64_t n = j->plan->info.n;
    j->device_arrays = PyObject_HasAttrString(bo, "__cuda_array_interface__");
    if (j->device_arrays) {
        if (j->plan->info.backend != SPX_BACKEND_CUDA)
            return PyErr_Format(PyExc_TypeError, "this plan runs on the CPU: pass NumPy arrays, or make the plan "
                                "with a cuda context or backend='cuda' for device arrays"), -1;
        if (spxpy_device_vector(bo, "b", p, n, 0, &j->b) || spxpy_device_vector(xo, "x", p, n, 1, &j->x)) return -1;
    } else {
        if (spxpy_host_vector(bo, "b", p, n, 0, bv)) return -1;
        if (spxpy_host_vector(xo, "x", p, n, 1, xv)) return -1;
        j->b = bv->buf;
        j->x = xv->buf;
    }
    size_t bytes = (size_t)n * spx_precision_bytes(p);
    if (spxpy_overlap(j->b, bytes, j->x, bytes))
        return PyErr_Format(PyExc_ValueError, "b and x overlap: x must be a separate array"), -1;
    return 0;
}

/* The solve's outcome: (status code, iterations, rel_residual, spmvs, seconds, iter_seconds,
 * reason, history list, copy bytes). */
static PyObject *solve_result(const solve_job *j)
{
    const spx_solve_result *r = &j->res;
    PyObject *h = PyList_New(r->history_len);
    for (int k = 0; h && k < r->history_len; k++) {
        PyObject *f = PyFloat_FromDouble(j->opts.history[k]);
        if (!f) Py_CLEAR(h);
        else PyList_SetItem(h, k, f);
    }
    if (!h) return NULL;
    return Py_BuildValue("(iididdsNL)", (int)r->status, r->iterations, r->rel_residual, r->spmvs, r->seconds,
                         r->iter_seconds, r->reason, h, j->copy_bytes);
}

/* solve(method, plan, b, x, tol, maxiter, jacobi=False, stream=None): x (the initial guess
 * on entry) receives the solution of A x = b; method 'cg' or 'bicgstab'. */
PyObject *spxpy_solve(PyObject *mod, PyObject *args, PyObject *kw)
{
    static char *names[] = {"method", "plan", "b", "x", "tol", "maxiter", "jacobi", "stream", NULL};
    spxpy_state *st = PyModule_GetState(mod);
    const char *method;
    PyObject *po, *bo, *xo, *so = Py_None;
    solve_job j;
    memset(&j, 0, sizeof j);
    if (!PyArg_ParseTupleAndKeywords(args, kw, "sO!OOdi|pO", names, &method, (PyTypeObject *)st->plan_type, &po, &bo,
                                     &xo, &j.opts.tol, &j.opts.max_iter, &j.jacobi, &so))
        return NULL;
    if (strcmp(method, "cg") && strcmp(method, "bicgstab"))
        return PyErr_Format(PyExc_ValueError, "method '%s' is not 'cg' or 'bicgstab'", method);
    if (!(j.opts.tol > 0.0) || j.opts.max_iter < 1) { /* PyErr_Format has no %g (Python 3.12 refuses it) */
        char msg[128];
        snprintf(msg, sizeof msg, "rtol must be > 0 and maxiter >= 1 (got %g, %d)", j.opts.tol, j.opts.max_iter);
        PyErr_SetString(PyExc_ValueError, msg);
        return NULL;
    }
    j.bicgstab = method[0] == 'b';
    j.plan = (spxpy_plan *)po;
    if (j.jacobi && !j.plan->matrix) /* Jacobi reads the diagonal from the host matrix */
        return PyErr_Format(PyExc_ValueError, "M='jacobi' needs the plan's matrix on the host: this plan was made from "
                            "a device matrix (make it from spx.csr(A), or solve without M)");
    j.stream = so == Py_None ? NULL : PyLong_AsVoidPtr(so);
    if (PyErr_Occurred()) return NULL;
    Py_buffer bv = {0}, xv = {0};
    PyObject *r = NULL;
    j.opts.history_cap = j.opts.max_iter < SPXPY_HISTORY_CAP ? j.opts.max_iter + 1 : SPXPY_HISTORY_CAP;
    j.opts.history = PyMem_Malloc((size_t)j.opts.history_cap * sizeof(double));
    if (!j.opts.history) {
        PyErr_NoMemory();
    } else if (!solve_arrays(&j, bo, xo, &bv, &xv)) {
        spx_status s;
        spxpy_msg msg = {{0}};
        SPXPY_RUN(j.plan->context, s, &msg, solve_run(&j));
        r = s ? spxpy_raise(st, s, &msg) : solve_result(&j);
        if (!s && !j.device_arrays && j.plan->info.backend == SPX_BACKEND_CUDA) {
            j.plan->stats.host_copies++;
            j.plan->stats.host_copy_bytes += j.copy_bytes;
        }
    }
    if (bv.obj) PyBuffer_Release(&bv);
    if (xv.obj) PyBuffer_Release(&xv);
    PyMem_Free(j.opts.history);
    return r;
}
