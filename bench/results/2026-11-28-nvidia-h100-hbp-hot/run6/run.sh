#!/usr/bin/env bash
# session 2026-11-28 (second), run 6: 99ece9a, racecheck of test_gpu (quick) on hbp/hot alone on the GPU
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
cp .device/commit $out/commit.txt
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build build-gpu -j16 --target test_gpu >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(( $(date +%s)-t0 )) s"
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=hbp/hot timeout 400 stdbuf -oL -eL /usr/local/cuda/bin/compute-sanitizer --tool racecheck --error-exitcode 99 build-gpu/tests/test_gpu > $out/san-racecheck-hot.log 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|passed,' $out/san-racecheck-hot.log | tr '\n' ' ') $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
