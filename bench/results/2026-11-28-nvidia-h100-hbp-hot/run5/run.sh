#!/usr/bin/env bash
# session 2026-11-28 (second), run 5: 9a439b5's test_hbp_gpu alone, then under memcheck (run 4 ran them beside a racecheck
# of test_gpu and both timed out, with no output: stdout buffered)
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
cp .device/commit $out/commit.txt
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build build-gpu -j16 --target test_hbp_gpu >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(( $(date +%s)-t0 )) s"
timeout 150 stdbuf -oL -eL build-gpu/tests/test_hbp_gpu > $out/test_hbp_gpu.log 2>&1; echo "test_hbp_gpu rc=$? $(tail -1 $out/test_hbp_gpu.log) $(( $(date +%s)-t0 )) s"
timeout 330 stdbuf -oL -eL /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 99 build-gpu/tests/test_hbp_gpu > $out/san-memcheck-hbpgpu.log 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY|passed,' $out/san-memcheck-hbpgpu.log | tr '\n' ' ') $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
