#!/usr/bin/env bash
# session 2026-11-26d run 8: selection training data on bench/suites/select.txt (fp64, fp32)
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
[ -x build-gpu/spx ] || bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
F=cusparse/alg1,cusparse/alg2,csr/auto,hbp/auto,teb/auto
timeout 280 build-gpu/spx bench --backend cuda --formats $F --suite bench/suites/select.txt --json $out/select.json > $out/select.txt 2>&1; echo "select rc=$? $(( $(date +%s)-t0 )) s"
timeout 250 build-gpu/spx bench --backend cuda --precision fp32 --formats $F --suite bench/suites/select.txt --json $out/select32.json > $out/select32.txt 2>&1; echo "select32 rc=$? $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
