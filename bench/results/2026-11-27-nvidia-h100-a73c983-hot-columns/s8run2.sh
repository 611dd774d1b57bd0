#!/usr/bin/env bash
# session 2026-11-27 run 2 (a73c983): the spgemm stage (large A*A, quick A*A^T, every method), then A*A^T on the large suite, one process a matrix
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
timeout 330 bash scripts/gpu-check.sh $out spgemm > $out/spgemm-stage.txt 2>&1; el "spgemm stage rc=$?"
for f in large aat; do python3 scripts/spgemm_tables.py $out/spgemm-$f.json --method spx; done > $out/tables.md 2>&1
grep -E "geomean" $out/tables.md
n=0
grep -vE '^\s*(#|$)' bench/suites/spgemm-large.txt | awk '{print $1}' | while read -r src; do
  n=$((n+1)); [ $(( $(date +%s)-t0 )) -gt 470 ] && { el "skip $src (time)"; continue; }
  timeout 100 build-gpu/spx bench --op spgemm --backend cuda --transpose-b --reps 3 "$src" --json $out/laat-$n.json > $out/laat-$n.txt 2>&1; el "laat $n $src rc=$?"
  grep -E "^gen|^\.\./" $out/laat-$n.txt | cut -c1-31,32-58,112-160
done
cd $OUT && tar czf r.tgz r && rm -rf r
