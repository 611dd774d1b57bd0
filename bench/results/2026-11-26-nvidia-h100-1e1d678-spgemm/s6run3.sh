#!/usr/bin/env bash
# session 2026-11-26f run 3: spx GPU SpGEMM plans without per-plan streams, cursor uploads and two
# syncs, and the bench's warm-up: test_spgemm_gpu + sanitizers, test_spgemm_ooc_gpu, the SpGEMM
# suites (new, with cuSPARSE), then the base build (531898c) with the same warm-up products first
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
old=/tmp/old
rm -rf $old; mkdir -p $old && tar -xf .device/base.tar -C $old && ln -sfn $PWD/.device $old/.device
( cmake -S $old -B $old/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $out/old-build.log 2>&1 && cmake --build $old/b -j6 --target spx_cli >> $out/old-build.log 2>&1; echo "old build rc=$?" ) &
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
wait; el builds
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck synccheck; do
  SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_SKIP_CUSPARSE=1 timeout 200 $cs --tool $tool --error-exitcode 99 build-gpu/tests/test_spgemm_gpu > $out/san-$tool.log 2>&1 &
done
timeout 200 build-gpu/tests/test_spgemm_gpu > $out/test-spgemm-gpu.log 2>&1; el "test_spgemm_gpu rc=$? $(tail -1 $out/test-spgemm-gpu.log)"
grep FAIL $out/test-spgemm-gpu.log | head
wait; for tool in memcheck racecheck synccheck; do el "$tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed|failed' $out/san-$tool.log | tail -2 | tr '\n' ' ')"; done
timeout 150 build-gpu/tests/test_spgemm_ooc_gpu > $out/test-spgemm-ooc-gpu.log 2>&1; el "test_spgemm_ooc_gpu rc=$? $(tail -1 $out/test-spgemm-ooc-gpu.log)"
timeout 150 bash scripts/gpu-check.sh $out spgemm > $out/spgemm-stage.txt 2>&1; el "spgemm stage rc=$?"
w="gen:poisson3d:n=12
gen:powerlaw:m=4000,k=8"
{ echo "$w"; grep -v '^#' bench/suites/spgemm-large.txt; } > /tmp/large-warm.txt
{ echo "$w"; grep -v '^#' bench/suites/spgemm.txt; } > /tmp/aat-warm.txt
timeout 100 $old/b/spx bench --op spgemm --backend cuda --methods spx --reps 3 --suite /tmp/large-warm.txt --json $out/large-old.json > $out/large-old.txt 2>&1; el "large old rc=$?"
timeout 60 $old/b/spx bench --op spgemm --backend cuda --methods spx --reps 3 --transpose-b --suite /tmp/aat-warm.txt --json $out/aat-old.json > $out/aat-old.txt 2>&1; el "aat old rc=$?"
{ python3 scripts/spgemm_tables.py $out/spgemm-large.json; python3 scripts/spgemm_tables.py $out/spgemm-aat.json; } > $out/tables.md 2>&1
grep -E "geomean" $out/tables.md
python3 .device/ab.py $out
el done
cd $OUT && tar czf r.tgz r && rm -rf r
