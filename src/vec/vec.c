/* src/vec/vec.c: the vector object (create, wrap, set/get, accessors), the vector operations
 * on the CPU (OpenMP, contiguous shares, deterministic partial sums) with their dispatch to the
 * GPU half (vec_cuda.h). (spx_plan_apply, a plan's SpMV on vectors: src/spmv/apply.c.) */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/ctx.h"
#include "cuda/gateway.h"
#include "vec/block.h"
#include "vec/vec_blue.h"
#include "vec/vec_cuda.h"
#include "vec/vec_internal.h"

/* A plain fp64 sum of squares S that is finite and at least this large is accurate: squares
 * that underflow lose less than 2^-1074 each, n * 2^-1074 <= 2^-1011 for any n < 2^63, which
 * is below S * 2^-111, far under the unit roundoff. Smaller sums are redone with Blue's. */
#define SPX_VEC_PLAIN_SUMSQ_MIN 0x1p-900

struct spx_vec {
    spx_ctx *ctx;
    spx_backend backend; /* CPU or CUDA */
    spx_precision precision;
    int64_t n;
    void *data;      /* n floats or doubles (host or device); NULL when n == 0 */
    double *scratch; /* CUDA: the device scratch of reductions (SPX_VEC_SCRATCH_DOUBLES) */
    int owns;        /* data belongs to the vector (0: wrapped) */
};

/* ---- CPU kernels: each runs over [lo, hi) and writes its sums to acc once, at the end ---- */

/* One operation's operands, as the range functions see them. */
typedef struct vec_job {
    spx_precision p;
    double a, b; /* axpby; fill: a is the value */
    const void *x;
    void *y;
} vec_job;


/* y[lo, hi) = a. */
static void range_fill(const void *job, int64_t lo, int64_t hi, double acc[SPX_N_SUMS])
{
    const vec_job *j = job;
    if (j->p == SPX_FP32) {
        float *y = j->y;
        const float v = (float)j->a;
        for (int64_t i = lo; i < hi; i++) y[i] = v;
    } else {
        double *y = j->y;
        for (int64_t i = lo; i < hi; i++) y[i] = j->a;
    }
}

/* y[lo, hi) = x[lo, hi), bytes of the job's precision. */
static void range_copy(const void *job, int64_t lo, int64_t hi, double acc[SPX_N_SUMS])
{
    const vec_job *j = job;
    const size_t eb = spx_precision_bytes(j->p);
    if (hi > lo) memcpy((char *)j->y + (size_t)lo * eb, (const char *)j->x + (size_t)lo * eb, (size_t)(hi - lo) * eb);
}

/* y = a*x + b*y in fp64 on [lo, hi); b == 0 never reads y, a == 0 never reads x (x may be y). */
static void range_axpby(const void *job, int64_t lo, int64_t hi, double acc[SPX_N_SUMS])
{
    const vec_job *j = job;
    const double a = j->a, b = j->b;
    const int rx = a != 0.0, ry = b != 0.0;
    if (j->p == SPX_FP32) {
        const float *x = j->x;
        float *y = j->y;
        if (rx && ry)
            for (int64_t i = lo; i < hi; i++) y[i] = (float)(a * (double)x[i] + b * (double)y[i]);
        else if (rx)
            for (int64_t i = lo; i < hi; i++) y[i] = (float)(a * (double)x[i]);
        else if (ry)
            for (int64_t i = lo; i < hi; i++) y[i] = (float)(b * (double)y[i]);
        else
            for (int64_t i = lo; i < hi; i++) y[i] = 0.0f;
    } else {
        const double *x = j->x;
        double *y = j->y;
        if (rx && ry)
            for (int64_t i = lo; i < hi; i++) y[i] = a * x[i] + b * y[i];
        else if (rx)
            for (int64_t i = lo; i < hi; i++) y[i] = a * x[i];
        else if (ry)
            for (int64_t i = lo; i < hi; i++) y[i] = b * y[i];
        else
            for (int64_t i = lo; i < hi; i++) y[i] = 0.0;
    }
}

/* mul's operands: the job's x and y are the first factor and the product; w the second factor. */
typedef struct vec_mul_job {
    vec_job base; /* first, so a vec_job pointer to it is a pointer to the whole */
    const void *w;
} vec_mul_job;

/* y[lo, hi) = x * w (fp64 product, rounded once for fp32); y may be x or w. */
static void range_mul(const void *job, int64_t lo, int64_t hi, double acc[SPX_N_SUMS])
{
    const vec_job *j = job;
    const vec_mul_job *m = job;
    if (j->p == SPX_FP32) {
        const float *x = j->x, *w = m->w;
        float *y = j->y;
        for (int64_t i = lo; i < hi; i++) y[i] = (float)((double)x[i] * (double)w[i]);
    } else {
        const double *x = j->x, *w = m->w;
        double *y = j->y;
        for (int64_t i = lo; i < hi; i++) y[i] = x[i] * w[i];
    }
}

/* acc[MED] = sum over [lo, hi) of x*y in fp64: four accumulators in a fixed pattern (entry
 * lo + i goes to i % 4; they are added pairwise at the end), so the result depends only on
 * lo and hi, never on the compiler's or the data's alignment. */
static void range_dot(const void *job, int64_t lo, int64_t hi, double acc[SPX_N_SUMS])
{
    const vec_job *j = job;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int64_t i = lo;
    if (j->p == SPX_FP32) {
        const float *x = j->x, *y = j->y;
        for (; i + 4 <= hi; i += 4) {
            s0 += (double)x[i] * (double)y[i];
            s1 += (double)x[i + 1] * (double)y[i + 1];
            s2 += (double)x[i + 2] * (double)y[i + 2];
            s3 += (double)x[i + 3] * (double)y[i + 3];
        }
        if (i < hi) s0 += (double)x[i] * (double)y[i];
        if (i + 1 < hi) s1 += (double)x[i + 1] * (double)y[i + 1];
        if (i + 2 < hi) s2 += (double)x[i + 2] * (double)y[i + 2];
    } else {
        const double *x = j->x, *y = j->y;
        for (; i + 4 <= hi; i += 4) {
            s0 += x[i] * y[i];
            s1 += x[i + 1] * y[i + 1];
            s2 += x[i + 2] * y[i + 2];
            s3 += x[i + 3] * y[i + 3];
        }
        if (i < hi) s0 += x[i] * y[i];
        if (i + 1 < hi) s1 += x[i + 1] * y[i + 1];
        if (i + 2 < hi) s2 += x[i + 2] * y[i + 2];
    }
    acc[SPX_SUM_MED] = (s0 + s1) + (s2 + s3);
}

/* acc = Blue's three sums of squares of fp64 x over [lo, hi) (the CPU's fallback: branchy,
 * several times slower than range_dot's plain sum). */
static void range_blue(const void *job, int64_t lo, int64_t hi, double acc[SPX_N_SUMS])
{
    const vec_job *j = job;
    const double *x = j->x;
    double s[SPX_N_SUMS] = {0.0, 0.0, 0.0};
    for (int64_t i = lo; i < hi; i++) spx_blue_add(s, x[i]);
    for (int k = 0; k < SPX_N_SUMS; k++) acc[k] = s[k];
}

/* Runs an element-wise fn (no sums) over [0, n). */
static void run_elementwise(spx_ctx *ctx, int64_t n, spx_vec_pass_fn fn, const vec_job *j)
{
    double unused[SPX_N_SUMS];
    spx_vec_pass(ctx, n, fn, j, unused);
}

/* ---- argument checks ---- */

/* The context of the first non-NULL vector, for messages (NULL when both are NULL). */
static spx_ctx *ctx_of(const spx_vec *x, const spx_vec *y) { return x ? x->ctx : y ? y->ctx : NULL; }

/* SPX_ERR_ARG, with "<fn>: NULL argument" in ctx when there is one. */
static spx_status null_arg(spx_ctx *ctx, const char *fn)
{
    return ctx ? spx_fail(ctx, SPX_ERR_ARG, "%s: NULL argument", fn) : SPX_ERR_ARG;
}

/* SPX_OK when x and y can be the operands of one call of fn: same context, precision, and
 * (when asked) backend and length; else SPX_ERR_ARG with a message in y's context. */
static spx_status check_pair(const char *fn, const spx_vec *x, const spx_vec *y, int same_backend, int same_length)
{
    if (x->ctx != y->ctx) return spx_fail(y->ctx, SPX_ERR_ARG, "%s: the vectors belong to different contexts", fn);
    if (x->precision != y->precision)
        return spx_fail(y->ctx, SPX_ERR_ARG, "%s: precision mismatch: %s and %s vectors", fn, spx_precision_str(x->precision),
                        spx_precision_str(y->precision));
    if (same_backend && x->backend != y->backend)
        return spx_fail(y->ctx, SPX_ERR_ARG, "%s: backend mismatch: a %s and a %s vector", fn,
                        spx_backend_str(x->backend), spx_backend_str(y->backend));
    if (same_length && x->n != y->n)
        return spx_fail(y->ctx, SPX_ERR_ARG, "%s: length mismatch: %lld and %lld entries", fn, (long long)x->n,
                        (long long)y->n);
    return SPX_OK;
}

/* ---- the object ---- */

/* The vector's storage as the dense operands' storage: one line of n entries. */
static spx_block storage_of(const spx_vec *v)
{
    return (spx_block){v->ctx, v->backend, v->precision, 1, v->n, v->n > 0 ? v->n : 1, v->data, v->owns};
}

/* Allocates the reduction scratch of a CUDA vector. */
static spx_status alloc_scratch(spx_vec *v)
{
    return spx_cuda_malloc(v->ctx, (void **)&v->scratch, SPX_VEC_SCRATCH_DOUBLES * sizeof(double));
}

/* Allocates and zero-fills the data (a device vector's ready for any stream) and, for CUDA, the
 * scratch. */
static spx_status alloc_data(spx_vec *v)
{
    char what[96];
    snprintf(what, sizeof what, "vector of %lld %s entries", (long long)v->n, spx_precision_str(v->precision));
    spx_block b = storage_of(v);
    spx_status s = spx_block_alloc(&b, what);
    v->data = b.data;
    v->owns = b.owns;
    return s || v->backend != SPX_BACKEND_CUDA ? s : alloc_scratch(v);
}

/* A new vector object with no data (host memory of the context), or NULL. */
static spx_vec *new_vec(spx_ctx *ctx, spx_backend b, spx_precision p, int64_t n)
{
    spx_vec *v = spx_malloc(ctx, sizeof *v);
    if (!v) return NULL;
    memset(v, 0, sizeof *v);
    v->ctx = ctx;
    v->backend = b;
    v->precision = p;
    v->n = n;
    return v;
}

/* SPX_OK when b, p and n describe a vector, else SPX_ERR_ARG with a message. */
static spx_status check_shape(spx_ctx *ctx, const char *fn, spx_backend b, spx_precision p, int64_t n)
{
    if (b != SPX_BACKEND_AUTO && b != SPX_BACKEND_CPU && b != SPX_BACKEND_CUDA)
        return spx_fail(ctx, SPX_ERR_ARG, "%s: unknown backend %d", fn, (int)b);
    if (p != SPX_FP64 && p != SPX_FP32) return spx_fail(ctx, SPX_ERR_ARG, "%s: unknown precision %d", fn, (int)p);
    if (n < 0) return spx_fail(ctx, SPX_ERR_ARG, "%s: negative length %lld", fn, (long long)n);
    return SPX_OK;
}

spx_status spx_vec_create(spx_ctx *ctx, spx_backend b, spx_precision p, int64_t n, spx_vec **out)
{
    if (!ctx || !out) return null_arg(ctx, "spx_vec_create");
    spx_status s = check_shape(ctx, "spx_vec_create", b, p, n);
    if (s || (s = spx_ctx_resolve_backend(ctx, b, &b))) return s;
    spx_vec *v = new_vec(ctx, b, p, n);
    if (!v) return spx_fail_nomem(ctx, "vector");
    s = alloc_data(v);
    if (s) {
        spx_vec_destroy(&v);
        return s;
    }
    *out = v;
    return SPX_OK;
}

spx_status spx_vec_wrap(spx_ctx *ctx, spx_backend b, spx_precision p, int64_t n, void *data, spx_vec **out)
{
    if (!ctx || !out) return null_arg(ctx, "spx_vec_wrap");
    spx_status s = check_shape(ctx, "spx_vec_wrap", b, p, n);
    if (s) return s;
    if (n > 0 && !data) return spx_fail(ctx, SPX_ERR_ARG, "spx_vec_wrap: NULL data for %lld entries", (long long)n);
    if ((uintptr_t)data % spx_precision_bytes(p))
        return spx_fail(ctx, SPX_ERR_ARG, "spx_vec_wrap: %p is not aligned to a %s entry", data, spx_precision_str(p));
    if ((s = spx_block_wrap_backend(ctx, "spx_vec_wrap", b, data, &b))) return s;
    spx_vec *v = new_vec(ctx, b, p, n);
    if (!v) return spx_fail_nomem(ctx, "vector");
    v->data = n > 0 ? data : NULL;
    if (b == SPX_BACKEND_CUDA && (s = alloc_scratch(v))) {
        spx_vec_destroy(&v);
        return s;
    }
    *out = v;
    return SPX_OK;
}

void spx_vec_destroy(spx_vec **pv)
{
    if (!pv || !*pv) return;
    spx_vec *v = *pv;
    spx_block b = storage_of(v);
    spx_block_free(&b);
    if (v->backend == SPX_BACKEND_CUDA) spx_cuda_free(v->ctx, v->scratch);
    spx_free(v->ctx, v);
    *pv = NULL;
}

spx_ctx *spx_vec_ctx(const spx_vec *v) { return v ? v->ctx : NULL; }
void *spx_vec_data(spx_vec *v) { return v ? v->data : NULL; }
int64_t spx_vec_length(const spx_vec *v) { return v ? v->n : 0; }
spx_backend spx_vec_backend(const spx_vec *v) { return v ? v->backend : SPX_BACKEND_AUTO; }
spx_precision spx_vec_precision(const spx_vec *v) { return v ? v->precision : SPX_FP64; }

/* ---- host data in and out ---- */

spx_status spx_vec_set(spx_vec *v, const double *host)
{
    if (!v || (!host && v->n > 0)) return null_arg(ctx_of(v, NULL), "spx_vec_set");
    spx_block b = storage_of(v);
    return spx_block_set(&b, host, b.ld);
}

spx_status spx_vec_get(const spx_vec *v, double *host)
{
    if (!v || (!host && v->n > 0)) return null_arg(ctx_of(v, NULL), "spx_vec_get");
    spx_block b = storage_of(v);
    return spx_block_get(&b, host, b.ld);
}

/* ---- operations ---- */

spx_status spx_vec_fill(spx_vec *v, double value)
{
    if (!v) return SPX_ERR_ARG;
    if (v->backend == SPX_BACKEND_CUDA) return spx_vec_cuda_fill(v->ctx, v->precision, v->n, v->data, value);
    vec_job j = {v->precision, value, 0.0, NULL, v->data};
    run_elementwise(v->ctx, v->n, range_fill, &j);
    return SPX_OK;
}

spx_status spx_vec_copy(spx_vec *dst, const spx_vec *src)
{
    if (!dst || !src) return null_arg(ctx_of(src, dst), "spx_vec_copy");
    spx_status s = check_pair("spx_vec_copy", src, dst, 0, 1);
    if (s || dst == src || dst->n == 0) return s;
    const size_t bytes = (size_t)dst->n * spx_precision_bytes(dst->precision);
    const int from_dev = src->backend == SPX_BACKEND_CUDA, to_dev = dst->backend == SPX_BACKEND_CUDA;
    if (from_dev && to_dev) return spx_cuda_d2d_async(dst->ctx, dst->data, src->data, bytes);
    if (to_dev) return spx_cuda_h2d(dst->ctx, dst->data, src->data, bytes);
    if (from_dev) return spx_cuda_d2h(dst->ctx, dst->data, src->data, bytes);
    vec_job j = {dst->precision, 0.0, 0.0, src->data, dst->data};
    run_elementwise(dst->ctx, dst->n, range_copy, &j);
    return SPX_OK;
}

spx_status spx_vec_axpby(double a, const spx_vec *x, double b, spx_vec *y)
{
    if (!x || !y) return null_arg(ctx_of(x, y), "spx_vec_axpby");
    spx_status s = check_pair("spx_vec_axpby", x, y, 1, 1);
    if (s) return s;
    if (y->backend == SPX_BACKEND_CUDA) return spx_vec_cuda_axpby(y->ctx, y->precision, y->n, a, x->data, b, y->data);
    vec_job j = {y->precision, a, b, x->data, y->data};
    run_elementwise(y->ctx, y->n, range_axpby, &j);
    return SPX_OK;
}

spx_status spx_vec_mul(const spx_vec *x, const spx_vec *y, spx_vec *z)
{
    if (!x || !y || !z) return null_arg(ctx_of(x, z), "spx_vec_mul");
    spx_status s = check_pair("spx_vec_mul", x, z, 1, 1);
    if (s || (s = check_pair("spx_vec_mul", y, z, 1, 1))) return s;
    if (z->backend == SPX_BACKEND_CUDA) return spx_vec_cuda_mul(z->ctx, z->precision, z->n, x->data, y->data, z->data);
    vec_mul_job j = {{z->precision, 0.0, 0.0, x->data, z->data}, y->data};
    run_elementwise(z->ctx, z->n, range_mul, &j.base);
    return SPX_OK;
}

spx_status spx_vec_dot(const spx_vec *x, const spx_vec *y, double *out)
{
    if (!x || !y || !out) return null_arg(ctx_of(x, y), "spx_vec_dot");
    spx_status s = check_pair("spx_vec_dot", x, y, 1, 1);
    if (s) return s;
    double sums[SPX_N_SUMS];
    if (x->backend == SPX_BACKEND_CUDA) {
        if ((s = spx_vec_cuda_dot(x->ctx, x->precision, x->n, x->data, y->data, x->scratch, sums))) return s;
    } else {
        vec_job j = {x->precision, 0.0, 0.0, x->data, y->data}; /* y is only read */
        spx_vec_pass(x->ctx, x->n, range_dot, &j, sums);
    }
    *out = sums[SPX_SUM_MED];
    return SPX_OK;
}

spx_status spx_vec_nrm2(const spx_vec *x, double *out)
{
    if (!x || !out) return null_arg(ctx_of(x, NULL), "spx_vec_nrm2");
    double sums[SPX_N_SUMS];
    if (x->backend == SPX_BACKEND_CUDA) {
        spx_status s = spx_vec_cuda_sumsq(x->ctx, x->precision, x->n, x->data, x->scratch, sums);
        if (s) return s;
        *out = spx_blue_finish(sums);
        return SPX_OK;
    }
    /* CPU: the plain fp64 sum of squares (range_dot's speed), then spx_vec_nrm2_cpu_finish */
    vec_job j = {x->precision, 0.0, 0.0, x->data, x->data};
    spx_vec_pass(x->ctx, x->n, range_dot, &j, sums);
    *out = spx_vec_nrm2_cpu_finish(x, sums[SPX_SUM_MED]);
    return SPX_OK;
}

double spx_vec_nrm2_cpu_finish(const spx_vec *x, double plain)
{
    /* fp64 vectors whose plain sum overflowed, is NaN or is small enough for underflow to
       matter go again through Blue's */
    if (x->precision == SPX_FP32 || (plain >= SPX_VEC_PLAIN_SUMSQ_MIN && plain <= DBL_MAX)) return sqrt(plain);
    double sums[SPX_N_SUMS];
    vec_job j = {x->precision, 0.0, 0.0, x->data, x->data};
    spx_vec_pass(x->ctx, x->n, range_blue, &j, sums);
    return spx_blue_finish(sums);
}
