#!/usr/bin/env bash
# session 2026-11-27e run 2 (369c3d3): the large suite twice more, fp64 and fp32 (with run 1:
# medians of three for the selection's plan + N table), then the spgemm-cpu stage (issue 10:
# the CPU Gustavson on 16 threads against 1 and against scipy, after the huge pages of a058ec8)
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
F=cusparse/alg1,cusparse/alg2,csr/auto,hbp/auto,teb/auto
b(){ local name=$1 lim=$2; shift 2; timeout $lim build-gpu/spx bench --backend cuda "$@" --json $out/$name.json > $out/$name.txt 2>&1; el "$name rc=$?"; }
for k in 2 3; do
  b large-$k 70 --formats $F,auto --suite bench/suites/large.txt
  b large32-$k 70 --precision fp32 --formats $F,auto --suite bench/suites/large.txt
done
timeout 330 bash scripts/gpu-check.sh $out spgemm-cpu > $out/spgemm-cpu-stage.txt 2>&1; el "spgemm-cpu stage rc=$?"
grep "^|" $out/spgemm-scipy.txt | head -20
tail -25 $out/spgemm-cpu.txt
cd $OUT && tar czf r.tgz r && rm -rf r
