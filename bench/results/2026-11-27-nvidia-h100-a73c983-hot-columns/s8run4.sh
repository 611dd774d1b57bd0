#!/usr/bin/env bash
# session 2026-11-27 run 4: warp rows of 4 products a lane (256-slot bins): A/B against SPX_GPU_WARP_MAX_SLOTS=128 (same tree), tests + memcheck, the quick A*A^T suite
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
cmake -S . -B /tmp/w2 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS=-DSPX_GPU_WARP_MAX_SLOTS=128 > $out/w2-build.log 2>&1 && cmake --build /tmp/w2 -j16 --target spx_cli >> $out/w2-build.log 2>&1 || tail -20 $out/w2-build.log
el "w2 build"
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_SKIP_CUSPARSE=1 timeout 300 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_spgemm_gpu > $out/san-memcheck.log 2>&1 &
M="gen:uniform:m=2000000,k=8 gen:uniform:m=100000,k=8 gen:poisson3d:n=60 ../shared/matrices/finan512_pattern.mtx.gz"
for rep in 1 2; do
  /tmp/w2/spx bench --op spgemm --backend cuda --reps 5 --transpose-b --methods spx $M > $out/w2T$rep.txt 2>&1; el "w2T $rep rc=$?"
  build-gpu/spx bench --op spgemm --backend cuda --reps 5 --transpose-b --methods spx $M > $out/w4T$rep.txt 2>&1; el "w4T $rep rc=$?"
done
grep -hE "^gen|^finan" $out/w2T1.txt $out/w4T1.txt $out/w2T2.txt $out/w4T2.txt | cut -c1-31,32-40,90-112,170-180
timeout 250 build-gpu/tests/test_spgemm_gpu > $out/test-spgemm-gpu.log 2>&1; el "test_spgemm_gpu rc=$? $(tail -1 $out/test-spgemm-gpu.log)"
grep -E "FAIL" $out/test-spgemm-gpu.log | head -20
wait; el "memcheck: $(grep -E 'ERROR SUMMARY|passed' $out/san-memcheck.log | tail -2 | tr '\n' ' ')"
build-gpu/spx bench --op spgemm --backend cuda --transpose-b --suite bench/suites/spgemm.txt --json $out/spgemm-aat.json > $out/spgemm-aat.txt 2>&1; el "aat suite rc=$?"
python3 scripts/spgemm_tables.py $out/spgemm-aat.json --method spx > $out/tables-aat.md 2>&1; grep geomean $out/tables-aat.md
cd $OUT && tar czf r.tgz r && rm -rf r
