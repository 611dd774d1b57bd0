#!/usr/bin/env bash
# session 2026-11-26e run 9: the pre-analysis's long rows + eager kernel loading in spx bench: builds (new, old 3e5c98f), the whole ctest, sanitizers on test_spgemm_gpu, then the SpGEMM suites (new with cuSPARSE; old spx alone, eager and lazy loading)
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
old=/tmp/old; rm -rf $old; mkdir -p $old && tar -xf .device/base.tar -C $old && ln -sfn $PWD/.device $old/.device
( cmake -S $old -B $old/b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $out/old-build.log 2>&1 && cmake --build $old/b -j5 --target spx_cli >> $out/old-build.log 2>&1; echo "old build rc=$?" ) &
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
wait; el builds
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_SKIP_CUSPARSE=1 timeout 400 $cs --tool $tool --error-exitcode 99 build-gpu/tests/test_spgemm_gpu > $out/san-$tool.log 2>&1 &
done
timeout 420 ctest --test-dir build-gpu --output-on-failure -j4 > $out/ctest.log 2>&1; el "ctest rc=$? $(grep -E 'tests passed|tests failed' $out/ctest.log)"
grep -E "\*\*\*Failed|Timeout|Not Run" $out/ctest.log | head
grep -E "test_spgemm_gpu|test_spgemm_ooc_gpu" $out/ctest.log | head -3
wait; for tool in memcheck racecheck; do el "$tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed|failed' $out/san-$tool.log | tail -2 | tr '\n' ' ')"; done
el done
cd $OUT && tar czf r.tgz r && rm -rf r
