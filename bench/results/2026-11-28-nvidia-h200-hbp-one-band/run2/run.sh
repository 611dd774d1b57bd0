#!/usr/bin/env bash
# session 2026-11-28 (third), hbp one band run 2: the only band takes csr's auto algorithm over
# the whole matrix (colblock on the wide matrix). test_hbp_gpu (device build == host build,
# band algorithms included), test_gpu over hbp, then the wide matrix and powerlaw 4M.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
B=build-gpu
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build $B -j16 --target spx_cli test_hbp_gpu test_gpu >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(el) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
timeout 70 $B/tests/test_hbp_gpu > $out/test_hbp_gpu.log 2>&1; echo "test_hbp_gpu rc=$? $(tail -1 $out/test_hbp_gpu.log) $(el) s"
SPX_GPU_TEST_FORMATS=hbp timeout 40 $B/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu hbp rc=$? $(tail -1 $out/test_gpu.log) $(el) s"
for p in fp64 fp32; do
  timeout 25 $B/spx bench --backend cuda --plan-reps 1 --precision $p --formats cusparse/alg1,csr/auto,hbp/auto gen:wide:m=64,n=2000000,k=200000 gen:powerlaw:m=4000000,k=8 > $out/bench-$p.txt 2>&1; echo "bench $p rc=$? $(el) s"
done
rm -f $out/build.log
cd $OUT && tar czf r.tgz r && rm -rf r
