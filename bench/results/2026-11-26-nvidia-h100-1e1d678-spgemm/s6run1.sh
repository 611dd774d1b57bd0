#!/usr/bin/env bash
# session 2026-11-26f run 1: the final code of session e on the GPU (test_spgemm_gpu, sanitizers on its quick subset), then the CPU SpGEMM on 16 cores against 1 thread and scipy
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build; lscpu | grep -E "Model name|^CPU\(s\)|Thread|NUMA node\(s\)" > $out/lscpu.txt; cat $out/lscpu.txt
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck synccheck; do
  SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_SKIP_CUSPARSE=1 timeout 200 $cs --tool $tool --error-exitcode 99 build-gpu/tests/test_spgemm_gpu > $out/san-$tool.log 2>&1 &
done
timeout 200 build-gpu/tests/test_spgemm_gpu > $out/test-spgemm-gpu.log 2>&1; el "test_spgemm_gpu rc=$? $(tail -1 $out/test-spgemm-gpu.log)"
grep FAIL $out/test-spgemm-gpu.log | head
wait; for tool in memcheck racecheck synccheck; do el "$tool: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed|failed' $out/san-$tool.log | tail -2 | tr '\n' ' ')"; done
timeout 330 bash scripts/gpu-check.sh $out spgemm-cpu > $out/spgemm-cpu-stage.txt 2>&1; el "spgemm-cpu stage rc=$?"
cat $out/spgemm-scipy.txt | grep "^|"
el done
cd $OUT && tar czf r.tgz r && rm -rf r
