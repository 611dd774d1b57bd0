#!/usr/bin/env bash
# session 2026-11-26e run 8: run 7's suites again (its archive was not made): SpGEMM suites, new with cuSPARSE, old (06209f6) spx alone
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
old=/tmp/old
[ -x build-gpu/spx ] && [ -x $old/b/spx ] || { echo "builds gone"; exit 1; }
timeout 200 bash scripts/gpu-check.sh $out spgemm > $out/spgemm-stage.txt 2>&1; el "spgemm stage rc=$?"
B=$old/b/spx
timeout 100 $B bench --op spgemm --backend cuda --methods spx --reps 3 --suite bench/suites/spgemm-large.txt --json $out/large-old.json > $out/large-old.txt 2>&1; el "large old rc=$?"
timeout 60 $B bench --op spgemm --backend cuda --methods spx --reps 3 --transpose-b --suite bench/suites/spgemm.txt --json $out/aat-old.json > $out/aat-old.txt 2>&1; el "aat old rc=$?"
{ python3 scripts/spgemm_tables.py $out/spgemm-large.json; python3 scripts/spgemm_tables.py $out/spgemm-aat.json; } > $out/tables.md 2>&1
grep -E "geomean" $out/tables.md
python3 .device/ab.py $out
el done
cd $OUT && tar czf r.tgz r && rm -rf r
