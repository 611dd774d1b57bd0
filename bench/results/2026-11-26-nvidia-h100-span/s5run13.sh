#!/usr/bin/env bash
# session 2026-11-26e run 13: after the review's fixes: test_spgemm_gpu, memcheck / racecheck / synccheck on its quick subset, test_spgemm_ooc_gpu, the SpGEMM suites
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck synccheck; do
  SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_SKIP_CUSPARSE=1 timeout 300 $cs --tool $tool --error-exitcode 99 build-gpu/tests/test_spgemm_gpu > $out/san-$tool.log 2>&1 &
done
timeout 250 build-gpu/tests/test_spgemm_gpu > $out/test-spgemm-gpu.log 2>&1; el "test_spgemm_gpu rc=$? $(tail -1 $out/test-spgemm-gpu.log)"
grep FAIL $out/test-spgemm-gpu.log | head
wait; for tool in memcheck racecheck synccheck; do el "$tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed|failed' $out/san-$tool.log | tail -2 | tr '\n' ' ')"; done
timeout 150 build-gpu/tests/test_spgemm_ooc_gpu > $out/test-spgemm-ooc-gpu.log 2>&1; el "test_spgemm_ooc_gpu rc=$? $(tail -1 $out/test-spgemm-ooc-gpu.log)"
timeout 120 bash scripts/gpu-check.sh $out spgemm > $out/spgemm-stage.txt 2>&1; el "spgemm stage rc=$?"
{ python3 scripts/spgemm_tables.py $out/spgemm-large.json; python3 scripts/spgemm_tables.py $out/spgemm-aat.json; } > $out/tables.md 2>&1
grep -E "geomean" $out/tables.md
el done
cd $OUT && tar czf r.tgz r && rm -rf r
