#!/usr/bin/env bash
# session 2026-11-28 (second), run 4: after the review's fixes (9a439b5): test_hbp_gpu and its memcheck, test_gpu over
# every hbp algorithm, racecheck (quick) on hbp/hot and auto; then, alone on the GPU, R-MAT 23 fp64 once more
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
cp .device/commit $out/commit.txt
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build build-gpu -j16 --target spx_cli test_gpu test_hbp_gpu >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(( $(date +%s)-t0 )) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
cs=/usr/local/cuda/bin/compute-sanitizer
timeout 240 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_hbp_gpu > $out/san-memcheck-hbpgpu.log 2>&1 &
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=hbp/hot,hbp/auto timeout 200 $cs --tool racecheck --error-exitcode 99 build-gpu/tests/test_gpu > $out/san-racecheck.log 2>&1 &
timeout 120 build-gpu/tests/test_hbp_gpu > $out/test_hbp_gpu.log 2>&1; echo "test_hbp_gpu rc=$? $(tail -1 $out/test_hbp_gpu.log)"
SPX_GPU_TEST_FORMATS=hbp timeout 240 build-gpu/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu hbp rc=$? $(tail -1 $out/test_gpu.log)"
wait
for f in san-memcheck-hbpgpu san-racecheck; do echo "$f: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed,' $out/$f.log | tr '\n' ' ')"; done
echo "tests $(( $(date +%s)-t0 )) s"
timeout 80 build-gpu/spx bench --backend cuda --plan-reps 1 --precision fp64 --formats cusparse/alg1,hbp/band,hbp/auto gen:rmat:scale=23,ef=8,sym=1 --json $out/b-fp64.json > $out/b-fp64.txt 2>&1; echo "bench rc=$? $(( $(date +%s)-t0 )) s"
echo "done $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
