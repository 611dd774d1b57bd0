#!/usr/bin/env bash
# session 2026-11-28, run 1: hbp/wide (row panels over L2-sized column blocks, sums in shared memory): tests, sanitizers, first bench
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build build-gpu -j16 --target spx_cli test_gpu test_hbp_wide_gpu test_hbp_wide test_hbp_gpu >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(( $(date +%s)-t0 )) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
git rev-parse HEAD > $out/commit.txt 2>/dev/null
timeout 120 build-gpu/tests/test_hbp_wide_gpu > $out/test_hbp_wide_gpu.log 2>&1; echo "test_hbp_wide_gpu rc=$? $(tail -1 $out/test_hbp_wide_gpu.log)"
cs=/usr/local/cuda/bin/compute-sanitizer
timeout 200 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_hbp_wide_gpu > $out/san-memcheck-widegpu.log 2>&1 &
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=hbp/wide timeout 200 $cs --tool racecheck --error-exitcode 99 build-gpu/tests/test_gpu > $out/san-racecheck.log 2>&1 &
SPX_GPU_TEST_FORMATS=hbp/wide timeout 200 build-gpu/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu hbp/wide rc=$? $(tail -1 $out/test_gpu.log)"
wait
for f in san-memcheck-widegpu san-racecheck; do echo "$f: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed,' $out/$f.log | tr '\n' ' ')"; done
echo "tests $(( $(date +%s)-t0 )) s"
S=build-gpu/spx
L="gen:rmat:scale=23,ef=8,sym=1 gen:uniform:m=16777216,k=8 gen:powerlaw:m=4000000,k=8"
timeout 200 $S bench --backend cuda --plan-reps 1 --formats cusparse/alg1,cusparse/alg2,csr/auto,hbp/auto,hbp/wide $L --json $out/large3-fp64.json > $out/large3-fp64.txt 2>&1; echo "large3 fp64 rc=$? $(( $(date +%s)-t0 )) s"
timeout 120 $S bench --backend cuda --plan-reps 1 --precision fp32 --formats cusparse/alg1,csr/auto,hbp/auto,hbp/wide $L --json $out/large3-fp32.json > $out/large3-fp32.txt 2>&1; echo "large3 fp32 rc=$? $(( $(date +%s)-t0 )) s"
for m in gen:uniform:m=16777216,k=8 gen:rmat:scale=23,ef=8,sym=1; do $S info $m --backend cuda --format hbp --algo wide > $out/info-$(echo $m | tr -dc 'a-z0-9').txt 2>&1; done
echo "done $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
