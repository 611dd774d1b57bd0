#!/usr/bin/env bash
# session 2026-11-26f run 10: the dense fallback's rows of more than 32768 entries of A split
# over blocks: test_spgemm_gpu (with test_split_rows) + memcheck/racecheck quick, the ooc GPU
# test, A/B against -DSPX_GPU_SPLIT_A_ENTRIES=0 (same tree), then the SpGEMM suites
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
( cmake -S . -B /tmp/nosplit -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS="-DSPX_GPU_SPLIT_A_ENTRIES=0" > $out/nosplit-build.log 2>&1 && cmake --build /tmp/nosplit -j6 --target spx_cli >> $out/nosplit-build.log 2>&1; echo "nosplit build rc=$?" ) &
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
wait; el builds
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_SKIP_CUSPARSE=1 timeout 240 $cs --tool $tool --error-exitcode 99 build-gpu/tests/test_spgemm_gpu > $out/san-$tool.log 2>&1 &
done
timeout 240 build-gpu/tests/test_spgemm_gpu > $out/test-spgemm-gpu.log 2>&1; el "test_spgemm_gpu rc=$? $(tail -1 $out/test-spgemm-gpu.log)"
grep -E "FAIL|split" $out/test-spgemm-gpu.log | head
wait; for tool in memcheck racecheck; do el "$tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed|failed' $out/san-$tool.log | tail -2 | tr '\n' ' ')"; done
grep -E "FAIL" $out/san-*.log | head -5
timeout 100 build-gpu/tests/test_spgemm_ooc_gpu > $out/test-spgemm-ooc-gpu.log 2>&1; el "test_spgemm_ooc_gpu rc=$? $(tail -1 $out/test-spgemm-ooc-gpu.log)"
for v in nosplit:/tmp/nosplit/spx new:build-gpu/spx; do
  ${v#*:} bench --op spgemm --backend cuda --methods spx --reps 3 gen:powerlaw:m=1000000,k=8 gen:rmat:scale=16,ef=16 --json $out/ab-${v%%:*}.json > $out/ab-${v%%:*}.txt 2>&1
  ${v#*:} bench --op spgemm --backend cuda --methods spx --reps 3 --transpose-b gen:powerlaw:m=50000,k=8 ../shared/matrices/landmark.mtx.gz --json $out/abt-${v%%:*}.json > $out/abt-${v%%:*}.txt 2>&1
done
el ab
grep -E "powerlaw|rmat|landmark" $out/ab*-*.txt | cut -c1-160
timeout 120 bash scripts/gpu-check.sh $out spgemm > $out/spgemm-stage.txt 2>&1; el "spgemm stage rc=$?"
{ python3 scripts/spgemm_tables.py $out/spgemm-large.json; python3 scripts/spgemm_tables.py $out/spgemm-aat.json; } > $out/tables.md 2>&1
grep -E "geomean|powerlaw" $out/tables.md
cd $OUT && tar czf r.tgz r && rm -rf r
