#!/usr/bin/env bash
# session 2026-11-27b run 5: the suites against cuSPARSE (same build as run 4 when the machine is warm)
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; };
el build
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
timeout 330 build-gpu/spx bench --op spgemm --backend cuda --suite bench/suites/spgemm-large.txt --json $out/spgemm-large.json > $out/spgemm-large.txt 2>&1; el "large suite rc=$?"
python3 scripts/spgemm_tables.py $out/spgemm-large.json --method spx > $out/tables-large.md 2>&1; grep geomean $out/tables-large.md
timeout 200 build-gpu/spx bench --op spgemm --backend cuda --transpose-b --suite bench/suites/spgemm.txt --json $out/spgemm-aat.json > $out/spgemm-aat.txt 2>&1; el "aat suite rc=$?"
python3 scripts/spgemm_tables.py $out/spgemm-aat.json --method spx > $out/tables-aat.md 2>&1; grep geomean $out/tables-aat.md
cd $OUT && tar czf r.tgz r && rm -rf r
