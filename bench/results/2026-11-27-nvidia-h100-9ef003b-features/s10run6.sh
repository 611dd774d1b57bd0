#!/usr/bin/env bash
# session 2026-11-27c run 6: the sampled features under the formats that read them: test_gpu
# on every hbp algorithm (tile shape and bands from diag_distance), the tests that make auto
# plans (select, core, CLI, solve, python)
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s); el(){ echo "[$(( $(date +%s)-t0 )) s] $*"; }
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
el build
[ -d ../shared/matrices ] || { mkdir -p ../shared && ln -sfn $PWD/.device/matrices ../shared/matrices; }
( ctest --test-dir build-gpu --output-on-failure -j3 -R "^(test_select|test_core|test_cli_select|test_cli|test_solve|test_cli_solve|python_spx)$" > $out/ctest-auto.log 2>&1; echo "ctest rc=$?" >> $out/ctest-auto.log ) &
cpid=$!
SPX_GPU_TEST_FORMATS=hbp timeout 240 build-gpu/tests/test_gpu > $out/test-gpu-hbp.log 2>&1; el "test_gpu hbp rc=$? $(tail -1 $out/test-gpu-hbp.log)"
grep -E "FAIL" $out/test-gpu-hbp.log | head -10
wait $cpid; el "$(grep -E 'tests passed|tests failed|ctest rc' $out/ctest-auto.log | tr '\n' ' ')"
grep -E "Failed|\*\*\*" $out/ctest-auto.log | head
cd $OUT && tar czf r.tgz r && rm -rf r
