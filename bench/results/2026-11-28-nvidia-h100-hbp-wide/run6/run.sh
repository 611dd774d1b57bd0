#!/usr/bin/env bash
# session 2026-11-28, run 6: final hbp/wide (H 2048, 16 MB segments, shared atomics, paced wave) and auto = wide from 6 bands: tests, sanitizers, large-suite bench
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build build-gpu -j16 --target spx_cli test_gpu test_hbp_wide_gpu test_hbp_gpu >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(( $(date +%s)-t0 )) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
cs=/usr/local/cuda/bin/compute-sanitizer
timeout 200 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_hbp_wide_gpu > $out/san-memcheck-widegpu.log 2>&1 &
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=hbp/wide,hbp/auto timeout 200 $cs --tool racecheck --error-exitcode 99 build-gpu/tests/test_gpu > $out/san-racecheck.log 2>&1 &
timeout 100 build-gpu/tests/test_hbp_wide_gpu > $out/test_hbp_wide_gpu.log 2>&1; echo "test_hbp_wide_gpu rc=$? $(tail -1 $out/test_hbp_wide_gpu.log)"
timeout 100 build-gpu/tests/test_hbp_gpu > $out/test_hbp_gpu.log 2>&1; echo "test_hbp_gpu rc=$? $(tail -1 $out/test_hbp_gpu.log)"
SPX_GPU_TEST_FORMATS=hbp timeout 200 build-gpu/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu hbp rc=$? $(tail -1 $out/test_gpu.log)"
wait
for f in san-memcheck-widegpu san-racecheck; do echo "$f: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed,' $out/$f.log | tr '\n' ' ')"; done
echo "tests $(( $(date +%s)-t0 )) s"
S=build-gpu/spx
L="gen:rmat:scale=23,ef=8,sym=1 gen:uniform:m=16777216,k=8 gen:powerlaw:m=4000000,k=8"
for p in fp64 fp32; do
  timeout 100 $S bench --backend cuda --plan-reps 1 --precision $p --formats cusparse/alg1,cusparse/alg2,csr/auto,hbp/band,hbp/wide,hbp/auto $L --json $out/large3-$p.json > $out/large3-$p.txt 2>&1; echo "large3 $p rc=$? $(( $(date +%s)-t0 )) s"
done
$S info gen:uniform:m=16777216,k=8 --backend cuda --format hbp > $out/info-uniform-auto.txt 2>&1
$S info gen:uniform:m=16777216,k=8 --backend cuda --format hbp --algo band > $out/info-uniform-band.txt 2>&1
echo "done $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
