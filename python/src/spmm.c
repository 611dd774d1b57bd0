/* python/src/spmm.c: the Plan's SpMM, Y = alpha*A*X + beta*Y on 2-D arrays: host arrays (CPU plans
 * in place through spx_dense_wrap; CUDA plans through device blocks, copied in and out and
 * counted in .stats), device arrays (CUDA plans, zero-copy, on the caller's stream), the layout
 * a new Y takes, and spx_plan_spmm_info as a dict. */
#include <string.h>

#include "binding.h"

/* An fp32 host block goes to and from a CUDA plan's device block through fp64 host lines
 * (spx_dense_set / spx_dense_get take fp64), at most this many entries at a time, or one line
 * when a line is longer. The library's own staging bound (SPX_BLOCK_STAGE_ENTRIES,
 * src/vec/block.c): it bounds the extra host memory, not a speed choice. */
#define SPXPY_SPMM_STAGE_ENTRIES ((int64_t)1 << 16)

/* An SpMM call's operands as checked: X and Y in one layout, alpha, beta and the stream. */
typedef struct spmm_call {
    spxpy_block x, y;
    spx_dense_layout layout;
    double a, b;
    void *stream;
} spmm_call;

/* The lines of b in layout l, and the entries of each. */
static void block_lines(const spxpy_block *b, spx_dense_layout l, int64_t *lines, int64_t *len)
{
    *lines = l == SPX_DENSE_ROW_MAJOR ? b->rows : b->cols;
    *len = l == SPX_DENSE_ROW_MAJOR ? b->cols : b->rows;
}

/* Checks c's blocks against plan o (X of n rows, Y of m rows and X's columns), picks their
 * layout and refuses overlapping blocks; 0, or -1 with ValueError. */
static int check_call(const spxpy_plan *o, spmm_call *c)
{
    const size_t eb = spx_precision_bytes(o->info.precision);
    if (spxpy_check_block_shape("X", &c->x, o->info.n, -1) || spxpy_check_block_shape("Y", &c->y, o->info.m, c->x.cols) ||
        spxpy_block_layout(&c->x, &c->y, &c->layout))
        return -1;
    if (!spxpy_overlap(c->x.data, spxpy_block_span(&c->x, c->layout, eb), c->y.data,
                       spxpy_block_span(&c->y, c->layout, eb)))
        return 0;
    PyErr_SetString(PyExc_ValueError, "X and Y overlap: Y must be a separate array");
    return -1;
}

/* b as a block of o's context on backend be in layout l, over b's memory, in *out. */
static spx_status wrap_block(const spxpy_plan *o, spx_backend be, const spxpy_block *b, spx_dense_layout l,
                             spx_dense **out)
{
    return spx_dense_wrap(o->context->ctx, be, o->info.precision, b->rows, b->cols, l, b->ld[l], b->data, out);
}

/* Y = a*A*X + b*Y on c's blocks in place: host memory on a CPU plan (be CPU), device memory on
 * a CUDA plan (be CUDA: queued on c->stream, set on the context for the call). */
static spx_status run_in_place(spxpy_plan *o, spx_backend be, const spmm_call *c)
{
    spx_ctx *ctx = o->context->ctx;
    spx_dense *X = NULL, *Y = NULL;
    spx_status s = wrap_block(o, be, &c->x, c->layout, &X);
    if (!s) s = wrap_block(o, be, &c->y, c->layout, &Y);
    if (!s) s = spx_ctx_set_stream(ctx, c->stream);
    if (!s) s = spx_plan_spmm(o->plan, c->a, X, c->b, Y);
    spx_ctx_set_stream(ctx, NULL);
    spx_dense_destroy(&X);
    spx_dense_destroy(&Y);
    return s;
}

/* ---- host arrays on a CUDA plan: copies through new blocks ---- */

/* Lines of len entries that one staging round of an fp32 block moves (at least one). */
static int64_t stage_lines(int64_t len)
{
    return len > 0 && len < SPXPY_SPMM_STAGE_ENTRIES ? SPXPY_SPMM_STAGE_ENTRIES / len : 1;
}

/* The fp64 entries that staging b in layout l takes at a time. */
static int64_t stage_entries(const spxpy_block *b, spx_dense_layout l)
{
    int64_t lines, len;
    block_lines(b, l, &lines, &len);
    const int64_t per = stage_lines(len);
    return (lines < per ? lines : per) * len;
}

/* Lines [l, l + q) of the block D as a block of their own over D's memory, in *out. */
static spx_status part_lines(spx_ctx *ctx, spx_dense *D, int64_t l, int64_t q, spx_dense **out)
{
    const spx_dense_layout lay = spx_dense_get_layout(D);
    const spx_precision p = spx_dense_precision(D);
    const int row = lay == SPX_DENSE_ROW_MAJOR;
    const int64_t ld = spx_dense_ld(D);
    char *at = (char *)spx_dense_data(D) + (size_t)(l * ld) * spx_precision_bytes(p);
    return spx_dense_wrap(ctx, spx_dense_backend(D), p, row ? q : spx_dense_rows(D), row ? spx_dense_cols(D) : q, lay,
                          ld, at, out);
}

/* q lines of len entries between fp32 host lines (hld apart) and fp64 staged lines (len apart):
 * into the stage when in, else out of it (exact both ways: the stage holds fp32 values). */
static void convert_lines(float *host, int64_t hld, double *stage, int64_t q, int64_t len, int in)
{
    for (int64_t i = 0; i < q; i++)
        for (int64_t j = 0; j < len; j++) {
            if (in) stage[i * len + j] = host[i * hld + j];
            else host[i * hld + j] = (float)stage[i * len + j];
        }
}

/* The host block h (the plan's precision, in D's layout) into the block D when in, else D into
 * h: fp64 in one copy each way, fp32 a stage of lines at a time (stage: room for
 * stage_entries). Copies to and from a device block synchronise the context's stream. */
static spx_status transfer(spx_ctx *ctx, spx_dense *D, const spxpy_block *h, int in, double *stage)
{
    const spx_dense_layout lay = spx_dense_get_layout(D);
    const int64_t hld = h->ld[lay];
    if (spx_dense_precision(D) == SPX_FP64)
        return in ? spx_dense_set(D, h->data, hld) : spx_dense_get(D, h->data, hld);
    int64_t lines, len;
    block_lines(h, lay, &lines, &len);
    const int64_t per = stage_lines(len);
    spx_status s = SPX_OK;
    for (int64_t l = 0; len > 0 && l < lines && !s; l += per) {
        const int64_t q = lines - l < per ? lines - l : per;
        float *hl = (float *)h->data + l * hld;
        spx_dense *part = NULL;
        s = part_lines(ctx, D, l, q, &part);
        if (!s && in) convert_lines(hl, hld, stage, q, len, 1);
        if (!s) s = in ? spx_dense_set(part, stage, len) : spx_dense_get(part, stage, len);
        if (!s && !in) convert_lines(hl, hld, stage, q, len, 0);
        spx_dense_destroy(&part);
    }
    return s;
}

/* Y = a*A*X + b*Y for c's host blocks through new blocks of o's backend (device blocks for a
 * CUDA plan; host blocks when a test forces this path on a CPU plan): X (and Y when b != 0)
 * copied in, the product, Y copied back; Y is written only by that last copy (which, for fp32,
 * a device error midway could leave partly done). */
static spx_status run_staged(spxpy_plan *o, const spmm_call *c, double *stage)
{
    spx_ctx *ctx = o->context->ctx;
    const spx_precision p = o->info.precision;
    const int64_t k = c->x.cols;
    spx_dense *X = NULL, *Y = NULL;
    spx_status s = spx_dense_create(ctx, o->info.backend, p, o->info.n, k, c->layout, &X);
    if (!s) s = spx_dense_create(ctx, o->info.backend, p, o->info.m, k, c->layout, &Y);
    if (!s) s = transfer(ctx, X, &c->x, 1, stage);
    if (!s && c->b != 0.0) s = transfer(ctx, Y, &c->y, 1, stage);
    if (!s) s = spx_plan_spmm(o->plan, c->a, X, c->b, Y);
    if (!s) s = transfer(ctx, Y, &c->y, 0, stage);
    spx_dense_destroy(&X);
    spx_dense_destroy(&Y);
    return s;
}

/* Counts a done call of o (copied: through copies of the host arrays). */
static void count_call(spxpy_plan *o, const spmm_call *c, int copied)
{
    o->stats.spmm_calls++;
    if (!copied) return;
    const long long eb = (long long)spx_precision_bytes(o->info.precision), k = c->x.cols;
    o->stats.host_copies++;
    o->stats.host_copy_bytes += eb * k * ((long long)o->info.n + (long long)o->info.m * (c->b != 0.0 ? 2 : 1));
}

/* The stage an fp32 plan's copied call needs (PyMem; NULL with MemoryError), or *stage NULL
 * when it needs none. 0 or -1. */
static int alloc_stage(const spxpy_plan *o, const spmm_call *c, double **stage)
{
    *stage = NULL;
    if (o->info.precision != SPX_FP32) return 0;
    const int64_t nx = stage_entries(&c->x, c->layout), ny = stage_entries(&c->y, c->layout);
    *stage = PyMem_Malloc(((size_t)(nx > ny ? nx : ny) + 1) * sizeof **stage);
    if (*stage) return 0;
    PyErr_NoMemory();
    return -1;
}

/* spmm_host(X, Y, alpha, beta, copied=False): Y = alpha*A*X + beta*Y on 2-D host arrays of the
 * plan's dtype, in place on a CPU plan, through device copies on a CUDA plan; `copied` forces
 * the copies on a CPU plan too (through host blocks: the tests' way to run that path without a
 * GPU). */
PyObject *spxpy_plan_spmm_host(PyObject *self, PyObject *args)
{
    spxpy_plan *o = (spxpy_plan *)self;
    PyObject *xo, *yo, *r = NULL;
    spmm_call c = {.stream = NULL};
    int copied = 0;
    if (!PyArg_ParseTuple(args, "OOdd|p", &xo, &yo, &c.a, &c.b, &copied)) return NULL;
    const spx_precision p = o->info.precision;
    Py_buffer xv, yv;
    if (spxpy_host_block(xo, "X", p, 0, &xv, &c.x)) return NULL;
    if (spxpy_host_block(yo, "Y", p, 1, &yv, &c.y)) {
        PyBuffer_Release(&xv);
        return NULL;
    }
    double *stage = NULL;
    spx_status s = SPX_OK;
    spxpy_msg msg = {{0}};
    copied = copied || o->info.backend == SPX_BACKEND_CUDA;
    if (check_call(o, &c) || (copied && alloc_stage(o, &c, &stage))) goto done;
    SPXPY_RUN(o->context, s, &msg, copied ? run_staged(o, &c, stage) : run_in_place(o, SPX_BACKEND_CPU, &c));
    if (s) {
        spxpy_raise(spxpy_state_of(self), s, &msg);
        goto done;
    }
    count_call(o, &c, copied);
    r = Py_NewRef(Py_None);
done:
    PyMem_Free(stage);
    PyBuffer_Release(&xv);
    PyBuffer_Release(&yv);
    return r;
}

/* spmm_device(X, Y, alpha, beta, stream): Y = alpha*A*X + beta*Y on 2-D device arrays
 * (__cuda_array_interface__) of the plan's dtype, in place, asynchronously on `stream` (a
 * cudaStream_t as an int; None or 0 the default stream). CUDA plans only. */
PyObject *spxpy_plan_spmm_device(PyObject *self, PyObject *args)
{
    spxpy_plan *o = (spxpy_plan *)self;
    PyObject *xo, *yo, *so;
    spmm_call c;
    if (!PyArg_ParseTuple(args, "OOddO", &xo, &yo, &c.a, &c.b, &so)) return NULL;
    if (spxpy_need_cuda(o) || spxpy_stream_arg(so, &c.stream)) return NULL;
    const spx_precision p = o->info.precision;
    if (spxpy_device_block(xo, "X", p, 0, &c.x) || spxpy_device_block(yo, "Y", p, 1, &c.y) || check_call(o, &c))
        return NULL;
    spx_status s;
    spxpy_msg msg = {{0}};
    SPXPY_RUN(o->context, s, &msg, run_in_place(o, SPX_BACKEND_CUDA, &c));
    if (s) return spxpy_raise(spxpy_state_of(self), s, &msg);
    count_call(o, &c, 0);
    Py_RETURN_NONE;
}

/* spmm_layout(X): ('row' or 'col', k) for X (a host or device array, checked as the plan's X):
 * the layout a new Y takes so that X and Y share one, row-major when X reads as both. */
PyObject *spxpy_plan_spmm_layout(PyObject *self, PyObject *xo)
{
    const spxpy_plan *o = (const spxpy_plan *)self;
    const spx_precision p = o->info.precision;
    spxpy_block b;
    Py_buffer v;
    if (PyObject_HasAttrString(xo, "__cuda_array_interface__")) {
        if (spxpy_device_block(xo, "X", p, 0, &b)) return NULL;
    } else {
        if (spxpy_host_block(xo, "X", p, 0, &v, &b)) return NULL;
        PyBuffer_Release(&v);
    }
    if (spxpy_check_block_shape("X", &b, o->info.n, -1)) return NULL;
    const spx_dense_layout l = b.ld[SPX_DENSE_ROW_MAJOR] ? SPX_DENSE_ROW_MAJOR : SPX_DENSE_COL_MAJOR;
    return Py_BuildValue("(sL)", spx_dense_layout_str(l), (long long)b.cols);
}

/* spmm_info(k, layout): spx_plan_spmm_info for k columns in layout (a spx_dense_layout code)
 * as a dict: kernel, fallback (bool), bytes. */
PyObject *spxpy_plan_spmm_info(PyObject *self, PyObject *args)
{
    spxpy_plan *o = (spxpy_plan *)self;
    long long k;
    int layout;
    if (!PyArg_ParseTuple(args, "Li", &k, &layout)) return NULL;
    spx_spmm_info in;
    spx_status s;
    spxpy_msg msg = {{0}};
    SPXPY_RUN(o->context, s, &msg, spx_plan_spmm_info(o->plan, (int64_t)k, (spx_dense_layout)layout, &in));
    if (s) return spxpy_raise(spxpy_state_of(self), s, &msg);
    return Py_BuildValue("{s:s,s:O,s:d}", "kernel", in.kernel, "fallback", in.fallback ? Py_True : Py_False, "bytes",
                         in.bytes);
}
