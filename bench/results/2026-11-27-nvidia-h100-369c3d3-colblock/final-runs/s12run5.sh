#!/usr/bin/env bash
# session 2026-11-27e run 5 (NVIDIA H100): colblock's unsorted-row check moved to plan time
# (the per-entry check of bfccc45 cost 17-27 % on the wide matrix): test_gpu on csr/colblock and
# csr/stream, test_hbp_gpu (its unsorted bands now use the shared check), the wide matrix,
# memcheck on colblock (quick)
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
for p in fp64 fp32; do timeout 40 build-gpu/spx bench --backend cuda --precision $p gen:wide:m=64,n=2000000,k=200000 --formats cusparse/alg2,csr/stream,csr/colblock,auto --json $out/wide-$p.json > $out/wide-$p.txt 2>&1; el "wide $p rc=$?"; grep -E "colblock|stream|alg2" $out/wide-$p.txt | cut -c1-150; done
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=csr/colblock timeout 100 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_gpu > $out/san-memcheck-colblock.log 2>&1 &
SPX_GPU_TEST_FORMATS=csr/colblock,csr/stream timeout 150 build-gpu/tests/test_gpu > $out/test-gpu.log 2>&1; el "test_gpu rc=$? $(tail -1 $out/test-gpu.log)"
grep -E "FAIL|unsorted|rows descending" $out/test-gpu.log | head
timeout 100 build-gpu/tests/test_hbp_gpu > $out/test-hbp-gpu.log 2>&1; el "test_hbp_gpu rc=$? $(tail -1 $out/test-hbp-gpu.log)"
wait; el "memcheck: $(grep -E 'ERROR SUMMARY|passed' $out/san-memcheck-colblock.log | tail -2 | tr '\n' ' ')"
cd $OUT && tar czf r.tgz r && rm -rf r
