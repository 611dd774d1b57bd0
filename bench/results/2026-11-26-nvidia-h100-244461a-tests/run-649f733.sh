#!/usr/bin/env bash
# session 2026-11-26d run 12: final commit 649f733: the whole ctest on the GPU, sanitizers on ehyb and hbp/auto, test_gpu_memory alone
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
echo "build $(( $(date +%s)-t0 )) s"
timeout 200 build-gpu/tests/test_gpu_memory > $out/test_gpu_memory.log 2>&1; echo "test_gpu_memory rc=$? $(tail -1 $out/test_gpu_memory.log)"
timeout 420 ctest --test-dir build-gpu -j4 --output-on-failure > $out/ctest.log 2>&1; echo "ctest rc=$? $(grep -E 'tests passed|tests failed' $out/ctest.log)"; grep -E "\*\*\*|Failed|Not Run" $out/ctest.log | head
echo "ctest $(( $(date +%s)-t0 )) s"
cs=/usr/local/cuda/bin/compute-sanitizer
for f in ehyb hbp/auto; do for tool in memcheck racecheck; do
  SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=$f timeout 200 $cs --tool $tool --error-exitcode 99 build-gpu/tests/test_gpu > $out/san-$tool-${f/\//-}.log 2>&1 &
done; done
wait
for l in $out/san-*.log; do echo "$(basename $l): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed,' $l | tr '\n' ' ')"; done
echo "done $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
