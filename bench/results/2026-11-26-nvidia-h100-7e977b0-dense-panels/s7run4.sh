#!/usr/bin/env bash
# session 2026-11-26g run 4: dense panels with 2D-grid gathers: bench A/B (sparse vs dense), ncu per kernel, tests + memcheck
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit)-dense2 bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
M="gen:powerlaw:m=1000000,k=8,alpha=1.5 gen:powerlaw:m=1000000,k=8 gen:powerlaw:m=50000,k=8,alpha=1.5 gen:rmat:scale=16,ef=16"
for rep in 1 2; do
  build-gpu/spx bench --op spgemm --backend cuda --reps 5 --methods spx,spx/sparse,spx/dense,cusparse/alg1 $M > $out/new$rep.txt 2>&1; el "new $rep rc=$?"
  grep -E "^gen" $out/new$rep.txt | cut -c1-31,32-58,90-130
done
build-gpu/spx bench --op spgemm --backend cuda --reps 5 --transpose-b --methods spx,spx/sparse,spx/dense,cusparse/alg1 $M > $out/newT.txt 2>&1; el "newT rc=$?"
grep -E "^gen" $out/newT.txt | cut -c1-31,32-58,90-130
ncu --metrics gpu__time_duration.sum --print-summary per-kernel build-gpu/spx bench --op spgemm --backend cuda --methods spx/dense --reps 1 gen:powerlaw:m=1000000,k=8,alpha=1.5 > $out/ncu-dense.txt 2>&1; el "ncu dense rc=$?"
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_SKIP_CUSPARSE=1 timeout 280 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_spgemm_gpu > $out/san-memcheck.log 2>&1 &
timeout 280 build-gpu/tests/test_spgemm_gpu > $out/test-spgemm-gpu.log 2>&1; el "test_spgemm_gpu rc=$? $(tail -1 $out/test-spgemm-gpu.log)"
grep -E "FAIL" $out/test-spgemm-gpu.log | head -20
wait; el "memcheck: $(grep -E 'ERROR SUMMARY|passed' $out/san-memcheck.log | tail -2 | tr '\n' ' ')"
cd $OUT && tar czf r.tgz r && rm -rf r
