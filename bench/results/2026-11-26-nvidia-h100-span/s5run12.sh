#!/usr/bin/env bash
# session 2026-11-26e run 12: final code: test_spgemm_gpu (timed) and test_gpu_memory alone, then the SpGEMM suites (with cuSPARSE) and 3e5c98f's spx alone, nothing else running
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
old=/tmp/old
if [ ! -x $old/b/spx ]; then rm -rf $old; mkdir -p $old && tar -xf .device/base.tar -C $old && ln -sfn $PWD/.device $old/.device
  ( cmake -S $old -B $old/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $out/old-build.log 2>&1 && cmake --build $old/b -j5 --target spx_cli >> $out/old-build.log 2>&1; echo "old build rc=$?" ) & fi
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
wait; el builds
timeout 250 build-gpu/tests/test_spgemm_gpu > $out/test-spgemm-gpu.log 2>&1; el "test_spgemm_gpu rc=$? $(tail -1 $out/test-spgemm-gpu.log)"
grep FAIL $out/test-spgemm-gpu.log | head
timeout 150 build-gpu/tests/test_gpu_memory > $out/test-gpu-memory.log 2>&1; el "test_gpu_memory rc=$? $(tail -1 $out/test-gpu-memory.log)"
timeout 150 bash scripts/gpu-check.sh $out spgemm > $out/spgemm-stage.txt 2>&1; el "spgemm stage rc=$?"
timeout 100 $old/b/spx bench --op spgemm --backend cuda --methods spx --reps 3 --suite bench/suites/spgemm-large.txt --json $out/large-old.json > $out/large-old.txt 2>&1; el "large old rc=$?"
timeout 60 $old/b/spx bench --op spgemm --backend cuda --methods spx --reps 3 --transpose-b --suite bench/suites/spgemm.txt --json $out/aat-old.json > $out/aat-old.txt 2>&1; el "aat old rc=$?"
{ python3 scripts/spgemm_tables.py $out/spgemm-large.json; python3 scripts/spgemm_tables.py $out/spgemm-aat.json; } > $out/tables.md 2>&1
grep -E "geomean" $out/tables.md
python3 .device/ab.py $out
el done
cd $OUT && tar czf r.tgz r && rm -rf r
