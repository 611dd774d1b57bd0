#!/usr/bin/env bash
# session 2026-11-26e run 10: SpGEMM suites: new (long rows, eager loading) with cuSPARSE; old 3e5c98f spx alone with CUDA_MODULE_LOADING=EAGER and with lazy loading
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
old=/tmp/old
[ -x build-gpu/spx ] && [ -x $old/b/spx ] || { echo "builds gone"; exit 1; }
timeout 200 bash scripts/gpu-check.sh $out spgemm > $out/spgemm-stage.txt 2>&1; el "spgemm stage rc=$?"
for load in EAGER LAZY; do
  CUDA_MODULE_LOADING=$load timeout 100 $old/b/spx bench --op spgemm --backend cuda --methods spx --reps 3 --suite bench/suites/spgemm-large.txt --json $out/large-old$load.json > $out/large-old$load.txt 2>&1; el "large old $load rc=$?"
  CUDA_MODULE_LOADING=$load timeout 60 $old/b/spx bench --op spgemm --backend cuda --methods spx --reps 3 --transpose-b --suite bench/suites/spgemm.txt --json $out/aat-old$load.json > $out/aat-old$load.txt 2>&1; el "aat old $load rc=$?"
done
{ python3 scripts/spgemm_tables.py $out/spgemm-large.json; python3 scripts/spgemm_tables.py $out/spgemm-aat.json; } > $out/tables.md 2>&1
grep -E "geomean" $out/tables.md
python3 .device/ab.py $out
el done
cd $OUT && tar czf r.tgz r && rm -rf r
