#!/usr/bin/env bash
# session 2026-11-26d run 13: python_spx RUN_SERIAL: the whole ctest -j4 on the GPU as gpu-check's test stage runs it
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
echo "build $(( $(date +%s)-t0 )) s"
timeout 540 ctest --test-dir build-gpu -j4 --output-on-failure > $out/ctest.log 2>&1; echo "ctest rc=$? $(grep -E 'tests passed|tests failed' $out/ctest.log)"; grep -E "\*\*\*|Failed|Not Run|python_spx" $out/ctest.log | head
echo "done $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
