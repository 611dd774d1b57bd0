#!/usr/bin/env bash
# session 2026-11-26d run 9: cab6c83 (spread_cols selection): GPU tests, then the auto row on default, large, select suites
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
SPX_COMMIT=$(cat .device/commit) bash scripts/gpu-check.sh $out build > $out/build-stage.txt 2>&1 || { tail -30 $out/build-stage.txt; exit 1; }
echo "build $(( $(date +%s)-t0 )) s"
ctest --test-dir build-gpu -R "select|hbp" > $out/ctest.log 2>&1; echo "ctest select|hbp rc=$? $(grep 'tests passed' $out/ctest.log)"
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=hbp/auto,hbp/hash timeout 200 build-gpu/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu hbp quick rc=$? $(tail -1 $out/test_gpu.log)"
F=cusparse/alg1,csr/auto,hbp/auto,auto
timeout 60 build-gpu/spx bench --backend cuda --formats $F --json $out/auto-default.json > $out/auto-default.txt 2>&1; echo "default rc=$? $(( $(date +%s)-t0 )) s"
timeout 200 build-gpu/spx bench --backend cuda --formats $F --suite bench/suites/large.txt --json $out/auto-large.json > $out/auto-large.txt 2>&1; echo "large rc=$? $(( $(date +%s)-t0 )) s"
timeout 200 build-gpu/spx bench --backend cuda --formats $F --suite bench/suites/select.txt --json $out/auto-select.json > $out/auto-select.txt 2>&1; echo "select rc=$? $(( $(date +%s)-t0 )) s"
timeout 150 build-gpu/spx bench --backend cuda --precision fp32 --formats $F --suite bench/suites/large.txt --json $out/auto-large32.json > $out/auto-large32.txt 2>&1; echo "large32 rc=$? $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
