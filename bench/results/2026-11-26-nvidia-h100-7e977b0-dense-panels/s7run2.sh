#!/usr/bin/env bash
# session 2026-11-26g run 2: dense x dense panels (uncommitted on 9fa0093): test_spgemm_gpu, memcheck quick, A/B bench
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit)-dense bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_SKIP_CUSPARSE=1 timeout 280 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_spgemm_gpu > $out/san-memcheck.log 2>&1 &
timeout 280 build-gpu/tests/test_spgemm_gpu > $out/test-spgemm-gpu.log 2>&1; el "test_spgemm_gpu rc=$? $(tail -1 $out/test-spgemm-gpu.log)"
grep -E "FAIL|fail" $out/test-spgemm-gpu.log | head -20
wait; el "memcheck: $(grep -E 'ERROR SUMMARY|passed' $out/san-memcheck.log | tail -2 | tr '\n' ' ')"
grep -B2 -A12 "Invalid\|ERROR" $out/san-memcheck.log | head -40
for tr in "" "--transpose-b"; do
timeout 200 build-gpu/spx bench --op spgemm --backend cuda --reps 3 $tr --methods spx,spx/sparse,spx/dense,cusparse/alg1,cusparse/alg2,cusparse/alg3 \
  gen:powerlaw:m=1000000,k=8,alpha=1.5 gen:powerlaw:m=1000000,k=8 gen:powerlaw:m=50000,k=8,alpha=1.5 gen:rmat:scale=16,ef=16 gen:poisson3d:n=60 \
  --json $out/ab$tr.json > $out/ab$tr.txt 2>&1; el "bench $tr rc=$?"
cut -c1-170 $out/ab$tr.txt | grep -v "^$" | head -45
done
for m in spx spx/sparse spx/dense; do python3 scripts/spgemm_tables.py $out/ab.json --method $m; done > $out/tables.md 2>&1
grep geomean $out/tables.md
cd $OUT && tar czf r.tgz r && rm -rf r
