#!/usr/bin/env bash
# session 2026-11-26f run 11: the review's fixes: test_spgemm_gpu + memcheck on its quick subset, then the SpGEMM suites once more
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_SKIP_CUSPARSE=1 timeout 220 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_spgemm_gpu > $out/san-memcheck.log 2>&1 &
timeout 220 build-gpu/tests/test_spgemm_gpu > $out/test-spgemm-gpu.log 2>&1; el "test_spgemm_gpu rc=$? $(tail -1 $out/test-spgemm-gpu.log)"
grep FAIL $out/test-spgemm-gpu.log | head
wait; el "memcheck: $(grep -E 'ERROR SUMMARY|passed' $out/san-memcheck.log | tail -2 | tr '\n' ' ')"
timeout 100 bash scripts/gpu-check.sh $out spgemm > $out/spgemm-stage.txt 2>&1; el "spgemm stage rc=$?"
{ python3 scripts/spgemm_tables.py $out/spgemm-large.json; python3 scripts/spgemm_tables.py $out/spgemm-aat.json; } > $out/tables.md 2>&1
grep -E "geomean" $out/tables.md
cd $OUT && tar czf r.tgz r && rm -rf r
