#!/usr/bin/env bash
# session 2026-11-28 (third): the README's large-suite table at 744d0d1 (evict-first matrix
# loads, hbp auto's one band): gpu-check's build and large stages with the baseline, csr and
# hbp defaults, then the same formats in fp32.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
F=cusparse/alg1,cusparse/alg2,csr/auto,hbp/auto
SPX_COMMIT=744d0d1 SPX_LARGE_FORMATS=$F bash scripts/gpu-check.sh $out build large > $out/gpu-check.log 2>&1; echo "gpu-check rc=$? $(( $(date +%s)-t0 )) s"
build-gpu/spx bench --backend cuda --precision fp32 --suite bench/suites/large.txt --formats $F \
  --json $out/bench-large-fp32.json --csv $out/bench-large-fp32.csv > $out/bench-large-fp32.txt 2>$out/bench-large-fp32.err; echo "fp32 rc=$? $(( $(date +%s)-t0 )) s"
rm -f $out/build.log
cd $OUT && tar czf r.tgz r && rm -rf r
