#!/usr/bin/env bash
# session 2026-11-27d run 8: the default and shared suites three times each (fp64/fp32), every
# GPU format with its auto algorithm (ehyb/metis on the shared suite), the baselines and auto:
# selection data whose microsecond timings are taken as medians over the three
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build; build-gpu/spx formats | grep -i ehyb
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
F=cusparse/alg1,cusparse/alg2,csr/auto,hbp/auto,teb/auto
b(){ local name=$1 lim=$2; shift 2; [ $(( $(date +%s)-t0 )) -gt 540 ] && { el "skip $name"; return; }; timeout $lim build-gpu/spx bench --backend cuda "$@" --json $out/$name.json > $out/$name.txt 2>&1; el "$name rc=$?"; }
for k in 1 2 3; do
  b default-$k 40 --formats $F,auto
  b default32-$k 40 --precision fp32 --formats $F,auto
  b shared-$k 80 --formats $F,ehyb/metis,auto --suite bench/suites/shared.txt
  b shared32-$k 80 --precision fp32 --formats $F,ehyb/metis,auto --suite bench/suites/shared.txt
done
cd $OUT && tar czf r.tgz r && rm -rf r
