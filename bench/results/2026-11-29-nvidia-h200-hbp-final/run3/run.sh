#!/usr/bin/env bash
# session 2026-11-29 (third), hbp final run 3: `auto` takes the wide tiles from 4 bands where
# rows are even (SPX_HBP_WIDE_MIN_BANDS_EVEN). Tests (test_hbp_gpu and test_hbp_wide_gpu:
# device build == host build; test_gpu over hbp/auto, memcheck of test_hbp_wide_gpu), then the
# large suite fp32 (the one matrix the rule moves: uniform 16.8M) and uniform 16.8M again.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
B=build-gpu
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build $B -j16 --target spx_cli test_hbp_gpu test_hbp_wide_gpu test_gpu test_hbp >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(el) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
timeout 60 $B/tests/test_hbp > $out/test_hbp.log 2>&1; echo "test_hbp rc=$? $(tail -1 $out/test_hbp.log) $(el) s"
timeout 120 $B/tests/test_hbp_gpu > $out/test_hbp_gpu.log 2>&1; echo "test_hbp_gpu rc=$? $(tail -1 $out/test_hbp_gpu.log) $(el) s"
timeout 120 $B/tests/test_hbp_wide_gpu > $out/test_hbp_wide_gpu.log 2>&1; echo "test_hbp_wide_gpu rc=$? $(tail -1 $out/test_hbp_wide_gpu.log) $(el) s"
SPX_GPU_TEST_FORMATS=hbp/auto timeout 150 $B/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu hbp/auto rc=$? $(tail -1 $out/test_gpu.log) $(el) s"
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 150 $cs --tool memcheck --error-exitcode 99 $B/tests/test_hbp_wide_gpu > $out/memcheck-wide.log 2>&1; echo "memcheck wide rc=$? $(grep -E 'ERROR SUMMARY' $out/memcheck-wide.log) $(el) s"
timeout 150 $B/spx bench --backend cuda --plan-reps 1 --precision fp32 --formats cusparse/alg1,csr/auto,hbp/auto --suite bench/suites/large.txt \
  --json $out/large-fp32.json > $out/large-fp32.txt 2>&1; echo "large fp32 rc=$? $(el) s"
timeout 60 $B/spx bench --backend cuda --plan-reps 1 --precision fp32 --formats cusparse/alg1,hbp/auto,hbp/band \
  gen:uniform:m=16777216,k=8 > $out/uniform-fp32.txt 2>&1; echo "uniform fp32 rc=$? $(el) s"
cd $OUT && tar czf r.tgz r && rm -rf r
