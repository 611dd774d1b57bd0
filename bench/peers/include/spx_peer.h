/* bench/peers/include/spx_peer.h: what every patched peer shares (header-only, CUDA C++ host
 * code): reading the matrix file spx_export writes, the x (and r) every side uses, the two
 * timing protocols (spx bench's batch protocol for SpMV, whole calls for SpGEMM), C's
 * fingerprint for SpGEMM, and the "SPXPEER key=value" lines bench/peers/run.py parses.
 *
 * The file (.spxcsr, little-endian): "SPXCSR1\0", int64 m, n, nnz, then int32 rowptr[m + 1],
 * int32 colind[nnz], double val[nnz]. 32-bit offsets because every peer uses them;
 * spx_export refuses a matrix of 2^31 or more nonzeros. */
#ifndef SPX_PEER_H
#define SPX_PEER_H

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

/* Calls timed per batch: enough for a batch of at least this long (spx: SPX_BENCH_BATCH_TARGET_S
 * in src/bench/protocol.h, with its bounds and batch count below), so that both sides time the
 * same kind of batch. */
#define SPX_PEER_BATCH_TARGET_S 1e-3
#define SPX_PEER_BATCH_MIN_CALLS 4
#define SPX_PEER_BATCH_MAX_CALLS 10000
#define SPX_PEER_BATCHES 5
/* Single calls timed each between two events (the latency figure, spx's t_median_s). */
#define SPX_PEER_SINGLES 20
/* Untimed calls first (DASP itself makes 100; 10 cost far less on a large matrix, and the
 * batches' own first calls follow 20 timed singles). SPX_PEER_WARMUP in the environment
 * overrides it. */
#define SPX_PEER_WARMUP 10
/* SpGEMM: timed whole calls, fewer once their sum passes the budget (a 1.7 s call once). */
#define SPX_PEER_SPGEMM_REPS 5
#define SPX_PEER_SPGEMM_BUDGET_S 2.0

/* One result line. */
#define SPX_PEER_OUT(...) (std::printf("SPXPEER " __VA_ARGS__), std::printf("\n"), std::fflush(stdout))

/* Ends the process on a CUDA error, naming it ("out of memory" included, as the runner reads it). */
static inline void spx_peer_check(cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return;
    SPX_PEER_OUT("error=%s: %s", what, cudaGetErrorString(e));
    std::exit(3);
}

/* Any error a kernel left behind (peers that launch unchecked), then a synchronisation. */
static inline void spx_peer_sync(const char *what)
{
    spx_peer_check(cudaGetLastError(), what);
    spx_peer_check(cudaDeviceSynchronize(), what);
}

/* Ends the process with a message. */
static inline void spx_peer_die(const char *msg, const char *path)
{
    SPX_PEER_OUT("error=%s: %s", path, msg);
    std::exit(2);
}

/* The value every side uses for entry j of x (SpMV) and r (SpGEMM's C*r): in [0.5, 1.5),
 * spread by a multiplicative hash, exact in double (a 32-bit integer over 2^32); the runner
 * computes the same (bench/peers/peers_lib.py: x_value). */
static inline double spx_peer_x(int64_t j)
{
    return 0.5 + (double)(((uint64_t)j * 2654435761ull) % 4294967296ull) / 4294967296.0;
}

/* A matrix read from a .spxcsr file. */
struct spx_peer_csr {
    int m = 0, n = 0, nnz = 0;
    std::vector<int> rowptr, col;
    std::vector<double> val;
};

/* Reads n items of size sz into p; dies on a short read. */
static inline void spx_peer_read_items(FILE *f, void *p, size_t sz, size_t n, const char *path)
{
    if (n && std::fread(p, sz, n, f) != n) spx_peer_die("file ends early", path);
}

/* Reads path (.spxcsr) into A; dies with a message on a bad file. */
static inline void spx_peer_read(const char *path, spx_peer_csr &A)
{
    FILE *f = std::fopen(path, "rb");
    if (!f) spx_peer_die("cannot open", path);
    char magic[8];
    int64_t dims[3];
    spx_peer_read_items(f, magic, 1, 8, path);
    if (std::memcmp(magic, "SPXCSR1", 8)) spx_peer_die("not a .spxcsr file", path);
    spx_peer_read_items(f, dims, sizeof dims[0], 3, path);
    if (dims[0] < 0 || dims[1] < 0 || dims[2] < 0 || dims[0] > INT32_MAX || dims[1] > INT32_MAX || dims[2] > INT32_MAX)
        spx_peer_die("sizes out of range", path);
    A.m = (int)dims[0], A.n = (int)dims[1], A.nnz = (int)dims[2];
    A.rowptr.resize((size_t)A.m + 1);
    A.col.resize((size_t)A.nnz);
    A.val.resize((size_t)A.nnz);
    spx_peer_read_items(f, A.rowptr.data(), sizeof(int), A.rowptr.size(), path);
    spx_peer_read_items(f, A.col.data(), sizeof(int), A.col.size(), path);
    spx_peer_read_items(f, A.val.data(), sizeof(double), A.val.size(), path);
    std::fclose(f);
    if (A.rowptr[0] != 0 || A.rowptr[(size_t)A.m] != A.nnz) spx_peer_die("row pointers do not span the nonzeros", path);
    SPX_PEER_OUT("matrix m=%d n=%d nnz=%d", A.m, A.n, A.nnz);
}

/* Writes n doubles to path (the runner reads them back with the same layout). */
static inline void spx_peer_write(const char *path, const void *p, size_t sz, size_t n)
{
    FILE *f = std::fopen(path, "wb");
    if (!f || (n && std::fwrite(p, sz, n, f) != n) || std::fclose(f)) spx_peer_die("cannot write", path);
}

/* The median of t (reordered). */
static inline double spx_peer_median(std::vector<double> &t)
{
    std::sort(t.begin(), t.end());
    size_t n = t.size();
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* Seconds between two recorded events (waits for the second). */
static inline double spx_peer_elapsed(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0;
    spx_peer_check(cudaEventSynchronize(b), "event");
    spx_peer_check(cudaEventElapsedTime(&ms, a, b), "event");
    return ms * 1e-3;
}

/* Calls per batch for a call of t seconds (spx_bench_batch_calls). */
static inline int spx_peer_batch_calls(double t)
{
    if (!(t > 0)) return SPX_PEER_BATCH_MAX_CALLS;
    double n = std::ceil(SPX_PEER_BATCH_TARGET_S / t);
    return n < SPX_PEER_BATCH_MIN_CALLS ? SPX_PEER_BATCH_MIN_CALLS
                                        : n > SPX_PEER_BATCH_MAX_CALLS ? SPX_PEER_BATCH_MAX_CALLS : (int)n;
}

/* spx bench's protocol on the default stream with CUDA events, for a call that launches its
 * kernels without synchronising: warm-up, single calls each between two events (median:
 * t_median_s), then SPX_PEER_BATCHES batches of back-to-back calls (median of batch time over
 * calls: t_batch_s). Prints both, tagged with prefix ("" for the peer, "cusparse_" for the
 * vendor call a peer makes beside it). */
template <class F> static inline void spx_peer_time_spmv(const char *prefix, F call)
{
    cudaEvent_t a, b;
    spx_peer_check(cudaEventCreate(&a), "event");
    spx_peer_check(cudaEventCreate(&b), "event");
    const char *w = std::getenv("SPX_PEER_WARMUP");
    int warmup = w ? std::atoi(w) : SPX_PEER_WARMUP;
    for (int i = 0; i < warmup; i++) call();
    spx_peer_sync("warm-up");
    std::vector<double> single(SPX_PEER_SINGLES), batch(SPX_PEER_BATCHES);
    for (double &t : single) {
        cudaEventRecord(a);
        call();
        cudaEventRecord(b);
        t = spx_peer_elapsed(a, b);
    }
    double median = spx_peer_median(single);
    int n = spx_peer_batch_calls(median);
    for (double &t : batch) {
        cudaEventRecord(a);
        for (int i = 0; i < n; i++) call();
        cudaEventRecord(b);
        t = spx_peer_elapsed(a, b) / n;
    }
    spx_peer_sync("timed calls");
    SPX_PEER_OUT("%st_median_s=%.9g %st_batch_s=%.9g %sbatch_calls=%d %sbatches=%d", prefix, median, prefix,
                 spx_peer_median(batch), prefix, n, prefix, SPX_PEER_BATCHES);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
}

/* Seconds on the host's steady clock. */
static inline double spx_peer_now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/* SpGEMM's whole calls from device-resident A and B: release() frees the last C (untimed),
 * call() makes a new one; each call timed alone on the host clock between two device
 * synchronisations (C's allocation and every host round trip inside the peer included).
 * One untimed call first (kernels load on their first launch), then SPX_PEER_SPGEMM_REPS
 * timed ones, fewer once their sum passes SPX_PEER_SPGEMM_BUDGET_S. The last C is kept. */
template <class R, class F> static inline void spx_peer_time_spgemm(R release, F call)
{
    call();
    spx_peer_sync("first call");
    std::vector<double> t;
    double sum = 0;
    while ((int)t.size() < SPX_PEER_SPGEMM_REPS && (t.empty() || sum < SPX_PEER_SPGEMM_BUDGET_S)) {
        release();
        spx_peer_sync("release");
        double t0 = spx_peer_now();
        call();
        spx_peer_sync("timed call");
        t.push_back(spx_peer_now() - t0);
        sum += t.back();
    }
    double lo = *std::min_element(t.begin(), t.end()), hi = *std::max_element(t.begin(), t.end());
    int reps = (int)t.size();
    SPX_PEER_OUT("t_median_s=%.9g t_min_s=%.9g t_max_s=%.9g reps=%d", spx_peer_median(t), lo, hi, reps);
}

/* C's fingerprint, from C on the host (rowptr of m + 1, 32-bit or 64-bit offsets; columns
 * and values of nnz_c): nnz(C), the rows whose columns are not strictly increasing, and the
 * files the runner checks: prefix.rowptr (int64, m + 1) and prefix.y (C * r, m doubles). */
template <class P, class I, class V>
static inline void spx_peer_report_c(const char *prefix, int m, const P *rowptr, const I *col, const V *val)
{
    std::vector<int64_t> rp((size_t)m + 1);
    std::vector<double> y((size_t)m);
    int64_t unsorted = 0;
    for (int i = 0; i <= m; i++) rp[(size_t)i] = (int64_t)rowptr[i];
    for (int i = 0; i < m; i++) {
        double s = 0;
        for (int64_t k = rp[(size_t)i]; k < rp[(size_t)i + 1]; k++) {
            s += (double)val[k] * spx_peer_x((int64_t)col[k]);
            if (k > rp[(size_t)i] && col[k] <= col[k - 1]) unsorted++;
        }
        y[(size_t)i] = s;
    }
    SPX_PEER_OUT("nnz_c=%lld unsorted=%lld", (long long)rp[(size_t)m], (long long)unsorted);
    std::string base(prefix);
    spx_peer_write((base + ".rowptr").c_str(), rp.data(), sizeof(int64_t), rp.size());
    spx_peer_write((base + ".y").c_str(), y.data(), sizeof(double), y.size());
}

#endif
