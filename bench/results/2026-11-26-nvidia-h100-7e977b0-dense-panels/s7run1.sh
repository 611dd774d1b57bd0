#!/usr/bin/env bash
# session 2026-11-26g run 1: verify the tidy 9fa0093 (test_spgemm_gpu, memcheck + racecheck quick, ooc test)
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_SKIP_CUSPARSE=1 timeout 200 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_spgemm_gpu > $out/san-memcheck.log 2>&1 &
timeout 200 build-gpu/tests/test_spgemm_gpu > $out/test-spgemm-gpu.log 2>&1; el "test_spgemm_gpu rc=$? $(tail -1 $out/test-spgemm-gpu.log)"
grep FAIL $out/test-spgemm-gpu.log | head
wait; el "memcheck: $(grep -E 'ERROR SUMMARY|passed' $out/san-memcheck.log | tail -2 | tr '\n' ' ')"
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_SKIP_CUSPARSE=1 timeout 200 $cs --tool racecheck --error-exitcode 99 build-gpu/tests/test_spgemm_gpu > $out/san-racecheck.log 2>&1 &
timeout 150 build-gpu/tests/test_spgemm_ooc_gpu > $out/test-ooc.log 2>&1; el "test_spgemm_ooc_gpu rc=$? $(tail -1 $out/test-ooc.log)"
wait; el "racecheck: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed' $out/san-racecheck.log | tail -2 | tr '\n' ' ')"
cd $OUT && tar czf r.tgz r && rm -rf r
