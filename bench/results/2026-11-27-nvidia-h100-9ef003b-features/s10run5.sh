#!/usr/bin/env bash
# session 2026-11-27c run 5: device features with the column measures from a 2^18-entry
# stratified sample: test_gpu csr (features vs host on every matrix, 3 sampled big ones),
# memcheck; auto plans on the select and large suites, fp64/fp32 (features phase, SpMV-eq)
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=csr timeout 300 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_gpu > $out/san-memcheck-gpu-csr.log 2>&1 &
mpid=$!
SPX_GPU_TEST_FORMATS=csr timeout 300 build-gpu/tests/test_gpu > $out/test-gpu-csr.log 2>&1; el "test_gpu csr rc=$? $(tail -1 $out/test-gpu-csr.log)"
grep -E "FAIL" $out/test-gpu-csr.log | head -10
wait $mpid; el "memcheck: $(grep -E 'ERROR SUMMARY|passed' $out/san-memcheck-gpu-csr.log | tail -2 | tr '\n' ' ')"
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
for suite in select large; do for prec in fp64 fp32; do
  [ $(( $(date +%s)-t0 )) -gt 450 ] && { el "skip $suite $prec"; continue; }
  timeout 150 build-gpu/spx bench --backend cuda --reps 5 --formats cusparse/alg1,auto --precision $prec --suite bench/suites/$suite.txt --json $out/new-$suite-$prec.json > $out/new-$suite-$prec.txt 2>&1; el "new $suite $prec rc=$?"
done; done
cd $OUT && tar czf r.tgz r && rm -rf r
