#!/usr/bin/env bash
# session 2026-11-27e run 3 (NVIDIA H100): the shuffled stencils (bench/suites/select-shuffled.txt)
# with every GPU format and auto, fp64 and fp32, for the selection's training (issue 13)
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
F=cusparse/alg1,cusparse/alg2,csr/auto,hbp/auto,teb/auto
b(){ local name=$1 lim=$2; shift 2; timeout $lim build-gpu/spx bench --backend cuda "$@" --json $out/$name.json > $out/$name.txt 2>&1; el "$name rc=$?"; }
b select-shuffled 150 --formats $F,auto --suite bench/suites/select-shuffled.txt
b select-shuffled32 150 --precision fp32 --formats $F,auto --suite bench/suites/select-shuffled.txt
cut -c1-160 $out/select-shuffled.txt | grep -v "^#"
cut -c1-160 $out/select-shuffled32.txt | grep -E "auto|hbp|csr"
cd $OUT && tar czf r.tgz r && rm -rf r
