// Prototype (not part of spx): SpMV on column bands sized to L2. Uniform random m x m, k per
// row. y = A x as one CSR pass against K passes over column bands (each band's CSR, x segment
// of n/K columns, y read-modify-written by later bands). Scalar (thread per row) kernel.
// nvcc -O3 -arch=sm_90 band_proto.cu -lcusparse -o band_proto ; ./band_proto m k
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <thrust/device_ptr.h>
#include <thrust/scan.h>
#define CK(x) do { cudaError_t e = (x); if (e) { printf("cuda %s line %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)

__device__ unsigned long long mix(unsigned long long z) {
    z += 0x9e3779b97f4a7c15ull; z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull; return z ^ (z >> 31);
}
template <int K> __global__ void gen(int m, int n, int *rp, int *col, double *val) {
    long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (r >= m) return;
    int c[K];
    for (int j = 0; j < K; j++) c[j] = (int)(mix(r * K + j) % n);
    for (int i = 1; i < K; i++) for (int j = i; j > 0 && c[j - 1] > c[j]; j--) { int t = c[j]; c[j] = c[j - 1]; c[j - 1] = t; }
    for (int j = 0; j < K; j++) { col[r * K + j] = c[j]; val[r * K + j] = 1.0 + (double)((r + j) % 7) * 0.125; }
    rp[r] = (int)(r * K);
    if (r == m - 1) rp[m] = (int)(m * (long long)K);
}
__global__ void count_band(int m, const int *rp, const int *col, int lo, int hi, int *cnt) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= m) return;
    int c = 0;
    for (int i = rp[r]; i < rp[r + 1]; i++) c += col[i] >= lo && col[i] < hi;
    cnt[r] = c;
}
__global__ void scatter_band(int m, const int *rp, const int *col, const double *val, int lo, int hi, const int *brp,
                             int *bcol, double *bval) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= m) return;
    int o = brp[r];
    for (int i = rp[r]; i < rp[r + 1]; i++)
        if (col[i] >= lo && col[i] < hi) { bcol[o] = col[i] - lo; bval[o] = val[i]; o++; }
}
__global__ void spmv_scalar(int m, const int *__restrict__ rp, const int *__restrict__ col, const double *__restrict__ val,
                            const double *__restrict__ x, double *__restrict__ y, int accumulate) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= m) return;
    double s = 0;
    for (int i = rp[r]; i < rp[r + 1]; i++) s += val[i] * __ldg(x + col[i]);
    y[r] = accumulate ? y[r] + s : s;
}
struct Band { int *rp, *col; double *val; int lo; };

int main(int argc, char **argv) {
    int m = argc > 1 ? atoi(argv[1]) : 16777216;
    const int K = 8;
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
    printf("device %s L2 %d MB, m %d k %d, x %.0f MB\n", p.name, p.l2CacheSize >> 20, m, K, m * 8.0 / 1e6);
    long long nnz = (long long)m * K;
    int *rp, *col; double *val, *x, *y, *y1;
    CK(cudaMalloc(&rp, (m + 1) * 4)); CK(cudaMalloc(&col, nnz * 4)); CK(cudaMalloc(&val, nnz * 8));
    CK(cudaMalloc(&x, m * 8ll)); CK(cudaMalloc(&y, m * 8ll)); CK(cudaMalloc(&y1, m * 8ll));
    int T = 256, G = (m + T - 1) / T;
    gen<K><<<G, T>>>(m, m, rp, col, val);
    std::vector<double> hx(m); for (int i = 0; i < m; i++) hx[i] = 1.0 + (i % 13) * 0.25;
    CK(cudaMemcpy(x, hx.data(), m * 8ll, cudaMemcpyHostToDevice));
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    auto med = [&](auto fn) { std::vector<float> t; for (int i = 0; i < 25; i++) { cudaEventRecord(a); fn(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms);} std::sort(t.begin(), t.end()); return t[t.size()/2]; };
    // cuSPARSE ALG1
    cusparseHandle_t h; cusparseCreate(&h);
    cusparseSpMatDescr_t A; cusparseDnVecDescr_t vx, vy;
    cusparseCreateCsr(&A, m, m, nnz, rp, col, val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
    cusparseCreateDnVec(&vx, m, x, CUDA_R_64F); cusparseCreateDnVec(&vy, m, y1, CUDA_R_64F);
    double one = 1, zero = 0; size_t bs; void *buf;
    cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, &bs);
    CK(cudaMalloc(&buf, bs + 16));
    float tc = med([&] { cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, buf); });
    float t1 = med([&] { spmv_scalar<<<G, T>>>(m, rp, col, val, x, y1, 0); });
    CK(cudaDeviceSynchronize());
    printf("cusparse alg1 %.3f ms, one pass %.3f ms (%.2fx alg1)\n", tc, t1, tc / t1);
    std::vector<double> ref(m), got(m);
    CK(cudaMemcpy(ref.data(), y1, m * 8ll, cudaMemcpyDeviceToHost));
    for (int nb : {2, 3, 4, 6, 8, 12, 16}) {
        std::vector<Band> bands;
        int w = (m + nb - 1) / nb;
        int *cnt; CK(cudaMalloc(&cnt, (m + 1) * 4ll));
        for (int bi = 0; bi < nb; bi++) {
            Band B; B.lo = bi * w; int hi = std::min(m, B.lo + w);
            CK(cudaMalloc(&B.rp, (m + 1) * 4ll));
            count_band<<<G, T>>>(m, rp, col, B.lo, hi, cnt);
            CK(cudaMemset(cnt + m, 0, 4));
            thrust::exclusive_scan(thrust::device_ptr<int>(cnt), thrust::device_ptr<int>(cnt + m + 1), thrust::device_ptr<int>(B.rp));
            int bn; CK(cudaMemcpy(&bn, B.rp + m, 4, cudaMemcpyDeviceToHost));
            CK(cudaMalloc(&B.col, bn * 4ll + 4)); CK(cudaMalloc(&B.val, bn * 8ll + 8));
            scatter_band<<<G, T>>>(m, rp, col, val, B.lo, hi, B.rp, B.col, B.val);
            bands.push_back(B);
        }
        CK(cudaDeviceSynchronize());
        float tb = med([&] { for (int bi = 0; bi < nb; bi++) spmv_scalar<<<G, T>>>(m, bands[bi].rp, bands[bi].col, bands[bi].val, x + bands[bi].lo, y, bi > 0); });
        CK(cudaMemcpy(got.data(), y, m * 8ll, cudaMemcpyDeviceToHost));
        double md = 0; for (int i = 0; i < m; i++) md = std::max(md, fabs(got[i] - ref[i]) / (fabs(ref[i]) + 1e-300));
        printf("bands %2d (x segment %.1f MB): %.3f ms, %.2fx one pass, %.2fx alg1, max rel diff %.1e\n", nb, w * 8.0 / 1e6, tb, t1 / tb, tc / tb, md);
        for (auto &B : bands) { cudaFree(B.rp); cudaFree(B.col); cudaFree(B.val); }
        cudaFree(cnt);
    }
    return 0;
}
