#!/usr/bin/env bash
# session 2026-11-28 (third), hbp one band run 1: `auto`'s plain bands are one band where the
# band rule cuts two or fewer (SPX_HBP_AUTO_ONE_BAND_MAX). Tests (test_hbp_gpu: device build ==
# host build, auto included; test_gpu over every hbp algorithm), then hbp/auto against csr
# auto and ALG1 on the large suite, fp64 and fp32, and on the shared suite (fp64).
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
timeout 120 $B/tests/test_hbp_gpu > $out/test_hbp_gpu.log 2>&1; echo "test_hbp_gpu rc=$? $(tail -1 $out/test_hbp_gpu.log) $(el) s"
SPX_GPU_TEST_FORMATS=hbp timeout 200 $B/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu hbp rc=$? $(tail -1 $out/test_gpu.log) $(el) s"
F=cusparse/alg1,csr/auto,hbp/auto
L="gen:poisson3d:n=300 gen:stencil27:n=160 gen:rmat:scale=23,ef=8,sym=1 gen:uniform:m=16777216,k=8 gen:powerlaw:m=4000000,k=8 gen:uniform:m=4000000,k=8"
for p in fp64 fp32; do
  timeout 150 $B/spx bench --backend cuda --plan-reps 1 --precision $p --formats $F $L --json $out/large-$p.json > $out/large-$p.txt 2>&1; echo "large $p rc=$? $(el) s"
done
timeout 60 $B/spx bench --backend cuda --formats $F --suite bench/suites/shared.txt --json $out/shared-fp64.json > $out/shared-fp64.txt 2>&1; echo "shared rc=$? $(el) s"
for p in fp64 fp32; do timeout 60 $B/spx info gen:powerlaw:m=4000000,k=8 --backend cuda --precision $p --format hbp > $out/info-powerlaw-$p.txt 2>&1; done
echo "done $(el) s"
cd $OUT && tar czf r.tgz r && rm -rf r
