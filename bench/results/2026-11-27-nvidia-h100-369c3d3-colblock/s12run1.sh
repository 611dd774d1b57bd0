#!/usr/bin/env bash
# session 2026-11-27e run 1: csr colblock. Build; test_gpu csr (every algorithm, colblock
# included) with memcheck and racecheck (colblock) beside it; the wide matrix A/B: stream,
# colblock at W = 1024 (this build) and 512 / 2048 (builds in /tmp), cuSPARSE ALG1/ALG2, fp64
# and fp32; then the large suite with auto (issue 13's plan + N table), fp64 and fp32
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
for w in 512 2048; do
  ( cmake -S . -B /tmp/b$w -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS=-DSPX_CSR_CUDA_COLBLOCK_COLS=$w > /tmp/b$w.log 2>&1 && cmake --build /tmp/b$w -j6 --target spx_cli >> /tmp/b$w.log 2>&1; echo "build $w rc=$?" >> $out/alt-builds.txt ) &
done
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=csr timeout 250 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_gpu > $out/san-memcheck-gpu-csr.log 2>&1 &
mpid=$!
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=csr/colblock timeout 250 $cs --tool racecheck --error-exitcode 99 build-gpu/tests/test_gpu > $out/san-racecheck-gpu-colblock.log 2>&1 &
rpid=$!
SPX_GPU_TEST_FORMATS=csr timeout 250 build-gpu/tests/test_gpu > $out/test-gpu-csr.log 2>&1; el "test_gpu csr rc=$? $(tail -1 $out/test-gpu-csr.log)"
grep -E "FAIL" $out/test-gpu-csr.log | head -10
wait; el "memcheck: $(grep -E 'ERROR SUMMARY|passed' $out/san-memcheck-gpu-csr.log | tail -2 | tr '\n' ' ') racecheck: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|passed' $out/san-racecheck-gpu-colblock.log | tail -2 | tr '\n' ' ')"
cat $out/alt-builds.txt
W=gen:wide:m=64,n=2000000,k=200000
F=cusparse/alg1,cusparse/alg2,csr/stream,csr/colblock,csr/auto
for p in fp64 fp32; do for bin in build-gpu/spx /tmp/b512/spx /tmp/b2048/spx; do
  tag=$(basename $(dirname $bin))
  timeout 60 $bin bench --backend cuda --precision $p $W gen:wide --formats $F --json $out/wide-$p-$tag.json > $out/wide-$p-$tag.txt 2>&1; el "wide $p $tag rc=$?"
  grep -E "colblock|stream|alg2" $out/wide-$p-$tag.txt | cut -c1-150
done; done
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
F=cusparse/alg1,cusparse/alg2,csr/auto,hbp/auto,teb/auto
b(){ local name=$1 lim=$2; shift 2; [ $(( $(date +%s)-t0 )) -gt 540 ] && { el "skip $name"; return; }; timeout $lim build-gpu/spx bench --backend cuda "$@" --json $out/$name.json > $out/$name.txt 2>&1; el "$name rc=$?"; }
b large 70 --formats $F,auto --suite bench/suites/large.txt
b large32 70 --precision fp32 --formats $F,auto --suite bench/suites/large.txt
grep -E "wide" $out/large.txt $out/large32.txt | cut -c1-170
cd $OUT && tar czf r.tgz r && rm -rf r
