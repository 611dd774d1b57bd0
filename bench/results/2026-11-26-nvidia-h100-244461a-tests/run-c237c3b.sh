#!/usr/bin/env bash
# session 2026-11-26d run 14: c237c3b (auto follows the table by default): the tests that make auto plans on the GPU
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
echo "build $(( $(date +%s)-t0 )) s"
timeout 400 ctest --test-dir build-gpu -j3 --output-on-failure -R "python_spx|select|test_cli|test_solve|test_core|test_vec" > $out/ctest.log 2>&1; echo "ctest rc=$? $(grep -E 'tests passed|tests failed' $out/ctest.log)"; grep -E "\*\*\*|Failed" $out/ctest.log | head
timeout 60 build-gpu/spx spmv gen:uniform:m=4194304,k=8 --backend cuda > $out/spmv-default.txt 2>&1; echo "spmv default rc=$?"; grep -iE "format|plan|kernel" $out/spmv-default.txt | head -5
echo "done $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
