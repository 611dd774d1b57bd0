#!/usr/bin/env bash
# session 2026-11-28, run 7: after the review: 64-bit pacing counters that count on across calls, cooperative-launch check, syncs before scratch frees, row_of shared; a test with two rounds x two blocks x a split panel
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build build-gpu -j16 --target spx_cli test_gpu test_hbp_wide_gpu test_hbp_gpu >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(( $(date +%s)-t0 )) s"
git rev-parse HEAD > $out/commit.txt 2>/dev/null
cs=/usr/local/cuda/bin/compute-sanitizer
timeout 200 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_hbp_wide_gpu > $out/san-memcheck-widegpu.log 2>&1 &
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=hbp/wide,hbp/band timeout 200 $cs --tool racecheck --error-exitcode 99 build-gpu/tests/test_gpu > $out/san-racecheck.log 2>&1 &
timeout 100 build-gpu/tests/test_hbp_wide_gpu > $out/test_hbp_wide_gpu.log 2>&1; echo "test_hbp_wide_gpu rc=$? $(tail -1 $out/test_hbp_wide_gpu.log)"
timeout 100 build-gpu/tests/test_hbp_gpu > $out/test_hbp_gpu.log 2>&1; echo "test_hbp_gpu rc=$? $(tail -1 $out/test_hbp_gpu.log)"
SPX_GPU_TEST_FORMATS=hbp timeout 200 build-gpu/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu hbp rc=$? $(tail -1 $out/test_gpu.log)"
wait
for f in san-memcheck-widegpu san-racecheck; do echo "$f: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed,' $out/$f.log | tr '\n' ' ')"; done
echo "tests $(( $(date +%s)-t0 )) s"
timeout 60 build-gpu/spx bench --backend cuda --plan-reps 1 --formats cusparse/alg1,hbp/band,hbp/wide,hbp/auto gen:uniform:m=16777216,k=8 --json $out/uniform-fp64.json > $out/uniform-fp64.txt 2>&1; echo "uniform rc=$? $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
