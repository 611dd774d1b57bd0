#!/usr/bin/env bash
# session 2026-11-28 (second), run 2: hbp/hot with one band up to the L2's size, test_hbp_gpu's download freed with
# spx_free (run 1 crashed there, in the test): tests, memcheck, the large bench twice
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build build-gpu -j16 --target spx_cli test_gpu test_hbp_gpu >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(( $(date +%s)-t0 )) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
cs=/usr/local/cuda/bin/compute-sanitizer
timeout 240 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_hbp_gpu > $out/san-memcheck-hbpgpu.log 2>&1 &
timeout 120 build-gpu/tests/test_hbp_gpu > $out/test_hbp_gpu.log 2>&1; echo "test_hbp_gpu rc=$? $(tail -1 $out/test_hbp_gpu.log)"
SPX_GPU_TEST_FORMATS=hbp/hot,hbp/auto timeout 200 build-gpu/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu hbp/hot,auto rc=$? $(tail -1 $out/test_gpu.log)"
echo "tests $(( $(date +%s)-t0 )) s"
S=build-gpu/spx
F=cusparse/alg1,cusparse/alg2,csr/auto,hbp/band,hbp/hot,hbp/auto
R=gen:rmat:scale=23,ef=8,sym=1
P=gen:powerlaw:m=4000000,k=8
U=gen:uniform:m=16777216,k=8
for k in 1 2; do
  timeout 120 $S bench --backend cuda --plan-reps 1 --precision fp64 --formats $F $R $P --json $out/b$k-fp64.json > $out/b$k-fp64.txt 2>&1; echo "bench fp64 $k rc=$? $(( $(date +%s)-t0 )) s"
  timeout 100 $S bench --backend cuda --plan-reps 1 --precision fp32 --formats $F $R $P --json $out/b$k-fp32.json > $out/b$k-fp32.txt 2>&1; echo "bench fp32 $k rc=$? $(( $(date +%s)-t0 )) s"
done
timeout 100 $S bench --backend cuda --plan-reps 1 --precision fp64 --formats cusparse/alg1,hbp/auto $U --json $out/bu-fp64.json > $out/bu-fp64.txt 2>&1; echo "bench uniform rc=$? $(( $(date +%s)-t0 )) s"
wait
echo "san-memcheck-hbpgpu: $(grep -E 'ERROR SUMMARY|passed,' $out/san-memcheck-hbpgpu.log | tr '\n' ' ')"
timeout 60 $S info $R --backend cuda --format hbp > $out/info-rmat-auto.txt 2>&1
echo "done $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
