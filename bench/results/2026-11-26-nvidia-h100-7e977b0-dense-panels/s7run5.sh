#!/usr/bin/env bash
# session 2026-11-26g run 5: ncu of A*A^T on the power-law matrix of exponent 1.5; the spgemm stage (both suites, all methods)
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
ncu --metrics gpu__time_duration.sum --print-summary per-kernel build-gpu/spx bench --op spgemm --backend cuda --methods spx --transpose-b --reps 1 gen:powerlaw:m=1000000,k=8,alpha=1.5 > $out/ncu-aat.txt 2>&1; el "ncu aat rc=$?"
timeout 400 bash scripts/gpu-check.sh $out spgemm > $out/spgemm-stage.txt 2>&1; el "spgemm stage rc=$?"
for m in spx spx/sparse spx/dense; do for f in large aat; do python3 scripts/spgemm_tables.py $out/spgemm-$f.json --method $m; done; done > $out/tables.md 2>&1
grep -E "geomean" $out/tables.md
cd $OUT && tar czf r.tgz r && rm -rf r
