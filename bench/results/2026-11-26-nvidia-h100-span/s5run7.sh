#!/usr/bin/env bash
# session 2026-11-26e run 7: + the plan's two device blocks: builds (new, old 06209f6), tests, sanitizers, SpGEMM suites (new with cuSPARSE, old spx alone)
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
old=/tmp/old
if [ ! -x $old/b/spx ]; then rm -rf $old; mkdir -p $old && tar -xf .device/base.tar -C $old && ln -sfn $PWD/.device $old/.device
  ( cmake -S $old -B $old/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $out/old-build.log 2>&1 && cmake --build $old/b -j5 --target spx_cli >> $out/old-build.log 2>&1; echo "old build rc=$?" ) & fi
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
wait; el builds
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_SKIP_CUSPARSE=1 timeout 400 $cs --tool $tool --error-exitcode 99 build-gpu/tests/test_spgemm_gpu > $out/san-$tool.log 2>&1 &
done
timeout 300 build-gpu/tests/test_spgemm_gpu > $out/test-spgemm-gpu.log 2>&1; el "test_spgemm_gpu rc=$? $(tail -1 $out/test-spgemm-gpu.log)"
grep -E "FAIL" $out/test-spgemm-gpu.log | head -20
timeout 200 build-gpu/tests/test_spgemm_ooc_gpu > $out/test-spgemm-ooc-gpu.log 2>&1; el "test_spgemm_ooc_gpu rc=$? $(tail -1 $out/test-spgemm-ooc-gpu.log)"
timeout 200 ctest --test-dir build-gpu -R "test_cli_spgemm|spgemm_scipy|test_spgemm$" --output-on-failure > $out/ctest-spgemm.log 2>&1; el "ctest spgemm rc=$? $(grep -E 'tests passed|tests failed' $out/ctest-spgemm.log)"
wait; for tool in memcheck racecheck; do el "$tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed|failed' $out/san-$tool.log | tail -2 | tr '\n' ' ')"; done
timeout 200 bash scripts/gpu-check.sh $out spgemm > $out/spgemm-stage.txt 2>&1; el "spgemm stage rc=$?"
for v in old; do
  timeout 100 $B bench --op spgemm --backend cuda --methods spx --reps 3 --suite bench/suites/spgemm-large.txt --json $out/large-$v.json > $out/large-$v.txt 2>&1; el "large $v rc=$?"
  timeout 60 $B bench --op spgemm --backend cuda --methods spx --reps 3 --transpose-b --suite bench/suites/spgemm.txt --json $out/aat-$v.json > $out/aat-$v.txt 2>&1; el "aat $v rc=$?"
done
{ python3 scripts/spgemm_tables.py $out/spgemm-large.json; python3 scripts/spgemm_tables.py $out/spgemm-aat.json; } > $out/tables.md 2>&1
grep -E "geomean" $out/tables.md
python3 .device/ab.py $out
el done
cd $OUT && tar czf r.tgz r && rm -rf r
