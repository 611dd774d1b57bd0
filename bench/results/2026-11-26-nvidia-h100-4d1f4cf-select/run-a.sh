#!/usr/bin/env bash
# session 2026-11-26d run 6: selection training data with diag_distance (part A: build, default fp64/fp32, large fp64)
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
echo "build $(( $(date +%s)-t0 )) s"
F=cusparse/alg1,cusparse/alg2,csr/auto,hbp/auto,teb/auto
timeout 120 build-gpu/spx bench --backend cuda --formats $F --json $out/default.json > $out/default.txt 2>&1; echo "default rc=$? $(( $(date +%s)-t0 )) s"
timeout 120 build-gpu/spx bench --backend cuda --precision fp32 --formats $F --json $out/default32.json > $out/default32.txt 2>&1; echo "default32 rc=$? $(( $(date +%s)-t0 )) s"
timeout 330 build-gpu/spx bench --backend cuda --formats $F --suite bench/suites/large.txt --json $out/large.json > $out/large.txt 2>&1; echo "large rc=$? $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
