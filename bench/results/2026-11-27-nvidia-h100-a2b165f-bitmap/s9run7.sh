#!/usr/bin/env bash
# session 2026-11-27b run 7 (8f4204b, code of 7438aed): A*A^T on the large suite, one process a matrix, every method
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
n=0
for src in $(grep -vE '^\s*(#|$)' bench/suites/spgemm-large.txt | awk '{print $1}'); do
  n=$((n+1)); [ $(( $(date +%s)-t0 )) -gt 420 ] && { el "skip $src (time)"; continue; }
  timeout 100 build-gpu/spx bench --op spgemm --backend cuda --transpose-b --reps 3 "$src" --json $out/laat-$n.json > $out/laat-$n.txt 2>&1; el "laat $n $src rc=$?"
done
python3 - "$out" <<'PY'
import json,sys,glob
o=sys.argv[1]; files=sorted(glob.glob(o+'/laat-*.json'), key=lambda f:int(f.split('-')[-1].split('.')[0]))
d=json.load(open(files[0]))
for f in files[1:]: d['results']+=json.load(open(f))['results']
json.dump(d,open(o+'/spgemm-large-aat.json','w'))
PY
python3 scripts/spgemm_tables.py $out/spgemm-large-aat.json --method spx > $out/tables-large-aat.md 2>&1; cat $out/tables-large-aat.md
cd $OUT && tar czf r.tgz r && rm -rf r
