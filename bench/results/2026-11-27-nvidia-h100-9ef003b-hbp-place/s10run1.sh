#!/usr/bin/env bash
# session 2026-11-27c run 1: hbp hash placement (hbp_place_kernel): device build == host build,
# test_gpu hbp/hash, memcheck + racecheck; A/B tree (radix for the hash) built for run 2
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
( cmake -S . -B build-b0 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS=-DSPX_HBP_PLACE_MAX_WINDOWS=0 > $out/b0-build.log 2>&1 && cmake --build build-b0 -j6 --target spx_cli >> $out/b0-build.log 2>&1 || tail -20 $out/b0-build.log ) &
bpid=$!
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 400 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_hbp_gpu > $out/san-memcheck-hbp-gpu.log 2>&1 &
p1=$!
timeout 400 $cs --tool racecheck --error-exitcode 99 build-gpu/tests/test_hbp_gpu > $out/san-racecheck-hbp-gpu.log 2>&1 &
p2=$!
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=hbp/hash timeout 400 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_gpu > $out/san-memcheck-gpu-hash.log 2>&1 &
p3=$!
timeout 300 build-gpu/tests/test_hbp_gpu > $out/test-hbp-gpu.log 2>&1; el "test_hbp_gpu rc=$? $(tail -1 $out/test-hbp-gpu.log)"
grep -E "FAIL" $out/test-hbp-gpu.log | head -20
SPX_GPU_TEST_FORMATS=hbp/hash,hbp/sort timeout 300 build-gpu/tests/test_gpu > $out/test-gpu-hbp.log 2>&1; el "test_gpu hbp rc=$? $(tail -1 $out/test-gpu-hbp.log)"
grep -E "FAIL" $out/test-gpu-hbp.log | head -20
wait $bpid; el "b0 build"
for p in $p1 $p2 $p3; do wait $p; done
for f in $out/san-*.log; do el "$(basename $f): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed' $f | tail -2 | tr '\n' ' ')"; done
cd $OUT && tar czf r.tgz r && rm -rf r
