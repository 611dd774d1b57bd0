/* python/src/module.c: the extension module spx._spx: its state and exceptions, the Context
 * type over spx_ctx (with the lock that serialises a context's calls), and the module's
 * small functions (formats, cuda_compiled, status names). */
#include <string.h>

#include "binding.h"

spxpy_state *spxpy_state_of(PyObject *self) { return PyType_GetModuleState(Py_TYPE(self)); }

void spxpy_lock(spxpy_context *c)
{
    if (PyThread_acquire_lock(c->lock, NOWAIT_LOCK)) return;
    Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(c->lock, WAIT_LOCK);
    Py_END_ALLOW_THREADS
}

void spxpy_unlock(spxpy_context *c) { PyThread_release_lock(c->lock); }

void spxpy_keep_error(spxpy_context *c, spxpy_msg *m)
{
    snprintf(m->text, sizeof m->text, "%s", spx_ctx_last_error(c->ctx));
}

PyObject *spxpy_raise(spxpy_state *st, spx_status s, const spxpy_msg *m)
{
    PyObject *cls = s > 0 && s <= SPX_ERR_DEVICE_ALLOC ? st->by_status[s] : st->errors[0];
    const char *text = m && m->text[0] ? m->text : spx_status_str(s);
    PyObject *exc = PyObject_CallFunction(cls, "s", text);
    if (!exc) return NULL;
    PyObject *name = PyUnicode_FromString(spx_status_str(s));
    if (name && PyObject_SetAttrString(exc, "status", name) == 0) PyErr_SetObject(cls, exc);
    Py_XDECREF(name);
    Py_DECREF(exc);
    return NULL;
}

/* ---- Context ---- */

/* The backend named by s ("auto", "cpu", "cuda"; NULL: auto), or -1. */
static int backend_of(const char *s)
{
    if (!s || !strcmp(s, "auto")) return SPX_BACKEND_AUTO;
    if (!strcmp(s, "cpu")) return SPX_BACKEND_CPU;
    return strcmp(s, "cuda") ? -1 : SPX_BACKEND_CUDA;
}

/* Context(backend="auto", device=0, threads=0): "cuda" is checked usable at once. */
static PyObject *context_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *names[] = {"backend", "device", "threads", NULL};
    const char *name = NULL;
    int device = 0, threads = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|zii", names, &name, &device, &threads)) return NULL;
    int backend = backend_of(name);
    if (backend < 0) return PyErr_Format(PyExc_ValueError, "backend '%s' is not 'auto', 'cpu' or 'cuda'", name);
    if (device < 0 || threads < 0) return PyErr_Format(PyExc_ValueError, "device and threads must be >= 0");
    allocfunc alloc = (allocfunc)PyType_GetSlot(type, Py_tp_alloc);
    spxpy_context *c = (spxpy_context *)alloc(type, 0);
    if (!c) return NULL;
    c->asked = (spx_backend)backend;
    c->device = device;
    c->lock = PyThread_allocate_lock();
    if (!c->lock) {
        Py_DECREF((PyObject *)c);
        return PyErr_NoMemory();
    }
    spx_ctx_opts o = {.backend = c->asked, .threads = threads, .device = device};
    spx_status s = spx_ctx_create(&c->ctx, &o);
    spxpy_msg m = {{0}};
    if (!s && c->asked == SPX_BACKEND_CUDA) {
        spx_backend got;
        SPXPY_RUN(c, s, &m, spx_ctx_resolve_backend(c->ctx, SPX_BACKEND_CUDA, &got));
    }
    if (s) {
        PyObject *mod = PyType_GetModule(type);
        spxpy_state *st = mod ? PyModule_GetState(mod) : NULL;
        Py_DECREF((PyObject *)c);
        return st ? spxpy_raise(st, s, &m) : NULL;
    }
    return (PyObject *)c;
}

static void context_dealloc(PyObject *self)
{
    spxpy_context *c = (spxpy_context *)self;
    PyTypeObject *tp = Py_TYPE(self);
    spx_ctx_destroy(&c->ctx);
    if (c->lock) PyThread_free_lock(c->lock);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF((PyObject *)tp);
}

/* The backend plans of this context run on: cpu or cuda (auto resolved). */
static PyObject *context_backend(PyObject *self, void *unused)
{
    spxpy_context *c = (spxpy_context *)self;
    spxpy_lock(c);
    spx_backend b = c->asked == SPX_BACKEND_AUTO ? spx_ctx_resolved_backend(c->ctx) : c->asked;
    spxpy_unlock(c);
    return PyUnicode_FromString(spx_backend_str(b));
}

static PyObject *context_device(PyObject *self, void *unused)
{
    return PyLong_FromLong(((spxpy_context *)self)->device);
}

static PyObject *context_threads(PyObject *self, void *unused)
{
    return PyLong_FromLong(spx_ctx_get_threads(((spxpy_context *)self)->ctx));
}

/* A dict of spx_mem_stats: what the context holds now and at most, and its budgets. */
static PyObject *context_mem_stats(PyObject *self, PyObject *unused)
{
    spxpy_context *c = (spxpy_context *)self;
    spx_mem_stats ms;
    spxpy_lock(c);
    spx_ctx_mem_stats(c->ctx, &ms);
    spxpy_unlock(c);
    return Py_BuildValue("{s:n,s:n,s:K,s:n,s:n,s:K}", "host_bytes", (Py_ssize_t)ms.host_bytes, "host_peak",
                         (Py_ssize_t)ms.host_peak, "host_budget", (unsigned long long)ms.host_budget,
                         "device_bytes", (Py_ssize_t)ms.device_bytes, "device_peak",
                         (Py_ssize_t)ms.device_peak, "device_budget", (unsigned long long)ms.device_budget);
}

static PyGetSetDef context_getset[] = {
    {"backend", context_backend, NULL, "the backend plans run on: 'cpu' or 'cuda' (auto resolved)", NULL},
    {"device", context_device, NULL, "the CUDA device ordinal", NULL},
    {"threads", context_threads, NULL, "OpenMP threads of the CPU work", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef context_methods[] = {
    {"mem_stats", context_mem_stats, METH_NOARGS, "dict of spx_mem_stats (bytes)"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot context_slots[] = {
    {Py_tp_new, context_new},
    {Py_tp_dealloc, context_dealloc},
    {Py_tp_getset, context_getset},
    {Py_tp_methods, context_methods},
    {Py_tp_doc, "Context(backend='auto', device=0, threads=0): an spx context ('auto', 'cpu' or 'cuda'; "
                 "threads 0: OpenMP's default)"},
    {0, NULL},
};

PyType_Spec spxpy_context_spec = {"spx._spx.Context", sizeof(spxpy_context), 0, Py_TPFLAGS_DEFAULT,
                                  context_slots};

/* ---- module functions ---- */

static PyObject *mod_cuda_compiled(PyObject *mod, PyObject *unused) { return PyBool_FromLong(spx_cuda_compiled()); }

/* A list of the strings of a NULL-terminated array (NULL: an empty list); NULL on error. */
static PyObject *str_list(const char *const *s)
{
    PyObject *list = PyList_New(0);
    for (; list && s && *s; s++) {
        PyObject *name = PyUnicode_FromString(*s);
        if (!name || PyList_Append(list, name)) Py_CLEAR(list);
        Py_XDECREF(name);
    }
    return list;
}

/* The algorithms whose CUDA plans build the layout on the device: the desc's device_algos,
 * every algorithm where that is NULL (`spx formats --json`'s null), none when the format
 * builds on the host only. */
static const char *const *device_algos(const spx_format_desc *d)
{
    if (!d->builds_on_device) return NULL;
    return d->device_algos ? d->device_algos : d->algos;
}

/* One format's dict (spx_format_desc; keys named as in `spx formats --json`); NULL on error. */
static PyObject *format_dict(const spx_format_desc *d)
{
    PyObject *algos = str_list(d->algos), *dev = str_list(device_algos(d));
    if (!algos || !dev) {
        Py_XDECREF(algos);
        Py_XDECREF(dev);
        return NULL;
    }
    return Py_BuildValue("{s:s,s:s,s:N,s:O,s:O,s:O,s:O,s:z,s:O,s:N}", "name", d->name, "summary", d->summary,
                         "algos", algos, "cpu", d->has_cpu ? Py_True : Py_False, "cuda",
                         d->has_cuda ? Py_True : Py_False, "baseline", d->is_baseline ? Py_True : Py_False,
                         "available", d->available ? Py_True : Py_False, "why_unavailable", d->why_unavailable,
                         "builds_on_device", d->builds_on_device ? Py_True : Py_False, "device_algos", dev);
}

/* One dict per registered format (spx_format_desc). */
static PyObject *mod_formats(PyObject *mod, PyObject *unused)
{
    int n = spx_format_count();
    PyObject *list = PyList_New(0);
    for (int i = 0; list && i < n; i++) {
        spx_format_desc d;
        if (spx_format_describe(i, &d)) continue;
        PyObject *item = format_dict(&d);
        if (!item || PyList_Append(list, item)) Py_CLEAR(list);
        Py_XDECREF(item);
    }
    return list;
}

/* The name of a solver status (spx_solve_status_str). */
static PyObject *mod_solve_status_str(PyObject *mod, PyObject *arg)
{
    long s = PyLong_AsLong(arg);
    if (s == -1 && PyErr_Occurred()) return NULL;
    return PyUnicode_FromString(spx_solve_status_str((spx_solve_status)s));
}

static PyMethodDef module_methods[] = {
    {"cuda_compiled", mod_cuda_compiled, METH_NOARGS, "whether libspx was built with its CUDA backend"},
    {"formats", mod_formats, METH_NOARGS, "the registered SpMV formats (list of dicts)"},
    {"solve_status_str", mod_solve_status_str, METH_O, "the name of a solver status code"},
    {"wrap", (PyCFunction)(void (*)(void))spxpy_wrap, METH_VARARGS | METH_KEYWORDS,
     "wrap(context, m, n, indptr, indices, data) -> Csr over the arrays"},
    {"load", (PyCFunction)(void (*)(void))spxpy_load, METH_VARARGS | METH_KEYWORDS,
     "load(context, source) -> Csr from a Matrix Market file or a gen: spec"},
    {"plan", (PyCFunction)(void (*)(void))spxpy_make_plan, METH_VARARGS | METH_KEYWORDS,
     "plan(csr, format, algo, backend, precision, build) -> Plan"},
    {"spgemm", (PyCFunction)(void (*)(void))spxpy_spgemm, METH_VARARGS | METH_KEYWORDS,
     "spgemm(a, b, transpose_b, method, algo, backend, precision) -> Csr"},
    {"solve", (PyCFunction)(void (*)(void))spxpy_solve, METH_VARARGS | METH_KEYWORDS,
     "solve(method, plan, b, x, tol, maxiter, jacobi, stream) -> result tuple"},
    {"wrap_device", (PyCFunction)(void (*)(void))spxpy_wrap_device, METH_VARARGS | METH_KEYWORDS,
     "wrap_device(context, m, n, indptr, indices, data, stream) -> DevCsr over device arrays"},
    {"spgemm_device", (PyCFunction)(void (*)(void))spxpy_spgemm_device, METH_VARARGS | METH_KEYWORDS,
     "spgemm_device(a, b, transpose_b, method, algo, backend, precision, c_index, stream) -> DevCsr"},
    {"plan_device", (PyCFunction)(void (*)(void))spxpy_plan_device, METH_VARARGS | METH_KEYWORDS,
     "plan_device(matrix, format, algo, backend, precision, build, expected_spmvs, order, stream) -> Plan"},
    {NULL, NULL, 0, NULL},
};

/* Makes spx.<name> with the given bases (a class or a tuple of them) and adds it to the
 * module; returns a new reference. */
static PyObject *add_exception(PyObject *mod, const char *name, PyObject *bases, const char *doc)
{
    char full[64];
    snprintf(full, sizeof full, "spx.%s", name);
    PyObject *cls = bases ? PyErr_NewExceptionWithDoc(full, doc, bases, NULL) : NULL;
    if (cls && PyModule_AddObjectRef(mod, name, cls) < 0) Py_CLEAR(cls);
    return cls;
}

/* spx.Error and a subclass of it and of base; returns a new reference. */
static PyObject *add_sub_exception(PyObject *mod, spxpy_state *st, const char *name, PyObject *base, const char *doc)
{
    PyObject *bases = PyTuple_Pack(2, st->errors[0], base);
    PyObject *cls = add_exception(mod, name, bases, doc);
    Py_XDECREF(bases);
    return cls;
}

/* spx.Error and its subclasses: argument-like failures are also ValueError, memory ones
 * MemoryError, I/O ones OSError. */
static int add_exceptions(PyObject *mod, spxpy_state *st)
{
    st->errors[0] = add_exception(mod, "Error", PyExc_RuntimeError, "an spx call failed; .status names the status");
    if (!st->errors[0]) return -1;
    st->errors[1] = add_sub_exception(mod, st, "ArgumentError", PyExc_ValueError,
                                      "spx refused an argument or an input (SPX_ERR_ARG, _PARSE, _OVERFLOW)");
    st->errors[2] = add_sub_exception(mod, st, "OutOfMemory", PyExc_MemoryError,
                                      "a host or device allocation or budget failed (SPX_ERR_NOMEM, _DEVICE_ALLOC)");
    st->errors[3] = add_sub_exception(mod, st, "IOError", PyExc_OSError,
                                      "a file could not be read or written (SPX_ERR_IO)");
    if (!st->errors[1] || !st->errors[2] || !st->errors[3]) return -1;
    for (int s = 0; s <= SPX_ERR_DEVICE_ALLOC; s++) st->by_status[s] = st->errors[0];
    st->by_status[SPX_ERR_ARG] = st->by_status[SPX_ERR_PARSE] = st->by_status[SPX_ERR_OVERFLOW] = st->errors[1];
    st->by_status[SPX_ERR_NOMEM] = st->by_status[SPX_ERR_DEVICE_ALLOC] = st->errors[2];
    st->by_status[SPX_ERR_IO] = st->errors[3];
    return 0;
}

/* Creates a type from spec bound to the module and adds it under its short name. */
static PyObject *add_type(PyObject *mod, PyType_Spec *spec)
{
    PyObject *t = PyType_FromModuleAndSpec(mod, spec, NULL);
    if (!t) return NULL;
    if (PyModule_AddType(mod, (PyTypeObject *)t) < 0) {
        Py_DECREF(t);
        return NULL;
    }
    return t;
}

static int module_exec(PyObject *mod)
{
    spxpy_state *st = PyModule_GetState(mod);
    if (!(st->context_type = add_type(mod, &spxpy_context_spec))) return -1;
    if (!(st->csr_type = add_type(mod, &spxpy_csr_spec))) return -1;
    if (!(st->plan_type = add_type(mod, &spxpy_plan_spec))) return -1;
    if (!(st->devcsr_type = add_type(mod, &spxpy_devcsr_spec))) return -1;
    if (add_exceptions(mod, st)) return -1;
    if (PyModule_AddStringConstant(mod, "version", SPX_VERSION)) return -1;
    return 0;
}

static int module_traverse(PyObject *mod, visitproc visit, void *arg)
{
    spxpy_state *st = PyModule_GetState(mod);
    Py_VISIT(st->context_type);
    Py_VISIT(st->csr_type);
    Py_VISIT(st->plan_type);
    Py_VISIT(st->devcsr_type);
    for (int i = 0; i < 4; i++) Py_VISIT(st->errors[i]);
    return 0;
}

static int module_clear(PyObject *mod)
{
    spxpy_state *st = PyModule_GetState(mod);
    Py_CLEAR(st->context_type);
    Py_CLEAR(st->csr_type);
    Py_CLEAR(st->plan_type);
    Py_CLEAR(st->devcsr_type);
    for (int i = 0; i < 4; i++) Py_CLEAR(st->errors[i]);
    return 0;
}

static void module_free(void *mod) { module_clear((PyObject *)mod); }

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
    {0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "spx._spx", "The C layer of spx: libspx through the CPython C API.",
    sizeof(spxpy_state), module_methods, module_slots, module_traverse, module_clear, module_free,
};

PyMODINIT_FUNC PyInit__spx(void) { return PyModuleDef_Init(&module_def); }
