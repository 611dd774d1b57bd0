#!/usr/bin/env bash
# session 2026-11-26d run 7: selection training data with diag_distance (part B: large fp32, shared fp64/fp32)
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
[ -x build-gpu/spx ] || bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
F=cusparse/alg1,cusparse/alg2,csr/auto,hbp/auto,teb/auto
timeout 300 build-gpu/spx bench --backend cuda --precision fp32 --formats $F --suite bench/suites/large.txt --json $out/large32.json > $out/large32.txt 2>&1; echo "large32 rc=$? $(( $(date +%s)-t0 )) s"
timeout 120 build-gpu/spx bench --backend cuda --formats $F,ehyb/metis --suite bench/suites/shared.txt --json $out/shared.json > $out/shared.txt 2>&1; echo "shared rc=$? $(( $(date +%s)-t0 )) s"
timeout 120 build-gpu/spx bench --backend cuda --precision fp32 --formats $F,ehyb/metis --suite bench/suites/shared.txt --json $out/shared32.json > $out/shared32.txt 2>&1; echo "shared32 rc=$? $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
