#!/usr/bin/env bash
# session 2026-11-27 run 1: split rows' hot columns: A/B (SPX_GPU_HOT_COLS=0 vs 1024, same tree), ncu, test_spgemm_gpu + memcheck quick
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit)-hot bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
cmake -S . -B /tmp/cold -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS=-DSPX_GPU_HOT_COLS=0 > $out/cold-build.log 2>&1 && cmake --build /tmp/cold -j16 --target spx_cli >> $out/cold-build.log 2>&1 || { tail -20 $out/cold-build.log; }
el "cold build"
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
M="gen:powerlaw:m=1000000,k=8,alpha=1.5 gen:powerlaw:m=1000000,k=8 gen:rmat:scale=16,ef=16"
for rep in 1 2; do
  /tmp/cold/spx bench --op spgemm --backend cuda --reps 5 --transpose-b --methods spx $M > $out/coldT$rep.txt 2>&1; el "coldT $rep rc=$?"
  grep -E "^gen" $out/coldT$rep.txt | cut -c1-31,32-58,90-140
  build-gpu/spx bench --op spgemm --backend cuda --reps 5 --transpose-b --methods spx,cusparse/alg1 $M > $out/hotT$rep.txt 2>&1; el "hotT $rep rc=$?"
  grep -E "^gen" $out/hotT$rep.txt | cut -c1-31,32-58,90-140
done
/tmp/cold/spx bench --op spgemm --backend cuda --reps 5 --methods spx gen:powerlaw:m=1000000,k=8,alpha=1.5 gen:powerlaw:m=1000000,k=8 > $out/cold.txt 2>&1; el "cold AA rc=$?"
build-gpu/spx bench --op spgemm --backend cuda --reps 5 --methods spx gen:powerlaw:m=1000000,k=8,alpha=1.5 gen:powerlaw:m=1000000,k=8 > $out/hot.txt 2>&1; el "hot AA rc=$?"
grep -E "^gen" $out/cold.txt $out/hot.txt | cut -c1-60,90-140
ncu --metrics gpu__time_duration.sum --print-summary per-kernel build-gpu/spx bench --op spgemm --backend cuda --methods spx --transpose-b --reps 1 gen:powerlaw:m=1000000,k=8,alpha=1.5 > $out/ncu-aat.txt 2>&1; el "ncu aat rc=$?"
ncu --metrics gpu__time_duration.sum --print-summary per-kernel build-gpu/spx bench --op spgemm --backend cuda --methods spx/dense --reps 1 gen:powerlaw:m=1000000,k=8,alpha=1.5 > $out/ncu-aa.txt 2>&1; el "ncu aa rc=$?"
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_SKIP_CUSPARSE=1 timeout 300 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_spgemm_gpu > $out/san-memcheck.log 2>&1 &
timeout 300 build-gpu/tests/test_spgemm_gpu > $out/test-spgemm-gpu.log 2>&1; el "test_spgemm_gpu rc=$? $(tail -1 $out/test-spgemm-gpu.log)"
grep -E "FAIL" $out/test-spgemm-gpu.log | head -20
wait; el "memcheck: $(grep -E 'ERROR SUMMARY|passed' $out/san-memcheck.log | tail -2 | tr '\n' ' ')"
cd $OUT && tar czf r.tgz r && rm -rf r
