#!/usr/bin/env bash
# session 2026-11-27d run 7: csr stream budget 1024 for even rows in < 8 blocks a SM; test_gpu
# csr (device walk == host walk on every budget), memcheck; then the selection data at this
# code: default, large, shared, select suites, fp64/fp32, every GPU format with its auto
# algorithm, the baselines and auto's own row (plans: median of 3)
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=csr timeout 200 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_gpu > $out/san-memcheck-gpu-csr.log 2>&1 &
mpid=$!
SPX_GPU_TEST_FORMATS=csr timeout 200 build-gpu/tests/test_gpu > $out/test-gpu-csr.log 2>&1; el "test_gpu csr rc=$? $(tail -1 $out/test-gpu-csr.log)"
grep -E "FAIL|stream blocks" $out/test-gpu-csr.log | head -10
wait $mpid; el "memcheck: $(grep -E 'ERROR SUMMARY|passed' $out/san-memcheck-gpu-csr.log | tail -2 | tr '\n' ' ')"
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
F=cusparse/alg1,cusparse/alg2,csr/auto,hbp/auto,teb/auto
b(){ local name=$1 lim=$2; shift 2; [ $(( $(date +%s)-t0 )) -gt 560 ] && { el "skip $name"; return; }; timeout $lim build-gpu/spx bench --backend cuda "$@" --json $out/$name.json > $out/$name.txt 2>&1; el "$name rc=$?"; }
b large 60 --formats $F,auto --suite bench/suites/large.txt
b large32 60 --precision fp32 --formats $F,auto --suite bench/suites/large.txt
b default 30 --formats $F,auto
b default32 30 --precision fp32 --formats $F,auto
b shared 40 --formats $F,ehyb/metis,auto --suite bench/suites/shared.txt
b shared32 40 --precision fp32 --formats $F,ehyb/metis,auto --suite bench/suites/shared.txt
b select 80 --formats $F,auto --suite bench/suites/select.txt
b select32 80 --precision fp32 --formats $F,auto --suite bench/suites/select.txt
cd $OUT && tar czf r.tgz r && rm -rf r
