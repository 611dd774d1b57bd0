#!/usr/bin/env bash
# session 2026-11-26g run 7: the tidy 483109d: test_spgemm_gpu, memcheck quick, ooc test, a short A/B (panels still taken)
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
build-gpu/spx bench --op spgemm --backend cuda --reps 5 --methods spx,spx/sparse,cusparse/alg1 gen:powerlaw:m=1000000,k=8,alpha=1.5 gen:poisson3d:n=60 > $out/ab.txt 2>&1; el "ab rc=$?"
grep -E "^gen" $out/ab.txt | cut -c1-31,32-58,90-130
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_SKIP_CUSPARSE=1 timeout 300 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_spgemm_gpu > $out/san-memcheck.log 2>&1 &
timeout 300 build-gpu/tests/test_spgemm_gpu > $out/test-spgemm-gpu.log 2>&1; el "test_spgemm_gpu rc=$? $(tail -1 $out/test-spgemm-gpu.log)"
grep -E "FAIL" $out/test-spgemm-gpu.log | head -20
wait; el "memcheck: $(grep -E 'ERROR SUMMARY|passed' $out/san-memcheck.log | tail -2 | tr '\n' ' ')"
timeout 150 build-gpu/tests/test_spgemm_ooc_gpu > $out/test-ooc.log 2>&1; el "test_spgemm_ooc_gpu rc=$? $(tail -1 $out/test-ooc.log)"
cd $OUT && tar czf r.tgz r && rm -rf r
