#!/usr/bin/env bash
# session 2026-11-26f run 8: the final code: the SpGEMM suites (spx and cuSPARSE, every C
# verified), then the whole ctest at -j4 as gpu-check's test stage runs it
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
timeout 120 bash scripts/gpu-check.sh $out spgemm > $out/spgemm-stage.txt 2>&1; el "spgemm stage rc=$?"
{ python3 scripts/spgemm_tables.py $out/spgemm-large.json; python3 scripts/spgemm_tables.py $out/spgemm-aat.json; } > $out/tables.md 2>&1
grep -E "geomean" $out/tables.md
timeout 440 ctest --test-dir build-gpu --output-on-failure -j4 > $out/ctest.log 2>&1; el "ctest rc=$?"
tail -12 $out/ctest.log
cd $OUT && tar czf r.tgz r && rm -rf r
