#!/usr/bin/env bash
# session 2026-11-27e run 4 (NVIDIA H100): the whole ctest on the GPU at the session's last code
# (gpu-check's test stage: ctest -j4), the wide matrix with fp32 blocks of 2048 columns, and
# memcheck / racecheck on csr/colblock (quick)
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
timeout 450 ctest --test-dir build-gpu -j4 --output-on-failure > $out/ctest.log 2>&1; el "ctest rc=$? $(grep -E 'tests passed|tests failed' $out/ctest.log)"
grep -E "\*\*\*|Failed|Not Run" $out/ctest.log | head
for p in fp64 fp32; do timeout 40 build-gpu/spx bench --backend cuda --precision $p gen:wide:m=64,n=2000000,k=200000 --formats cusparse/alg2,csr/stream,csr/colblock,auto --json $out/wide-$p.json > $out/wide-$p.txt 2>&1; el "wide $p rc=$?"; grep -E "colblock|stream|alg2" $out/wide-$p.txt | cut -c1-150; done
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=csr/colblock timeout 120 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_gpu > $out/san-memcheck-colblock.log 2>&1; el "memcheck rc=$? $(grep -E 'ERROR SUMMARY|passed' $out/san-memcheck-colblock.log | tail -2 | tr '\n' ' ')"
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=csr/colblock timeout 120 $cs --tool racecheck --error-exitcode 99 build-gpu/tests/test_gpu > $out/san-racecheck-colblock.log 2>&1; el "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|passed' $out/san-racecheck-colblock.log | tail -2 | tr '\n' ' ')"
cd $OUT && tar czf r.tgz r && rm -rf r
