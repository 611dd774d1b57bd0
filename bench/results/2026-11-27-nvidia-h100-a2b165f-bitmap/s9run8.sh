#!/usr/bin/env bash
# session 2026-11-27b run 8: the final tidy: test_spgemm_gpu
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
timeout 280 build-gpu/tests/test_spgemm_gpu > $out/test-spgemm-gpu.log 2>&1; el "test_spgemm_gpu rc=$? $(tail -1 $out/test-spgemm-gpu.log)"
grep -E "FAIL" $out/test-spgemm-gpu.log | head -20
cd $OUT && tar czf r.tgz r && rm -rf r
