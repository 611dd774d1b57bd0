#!/usr/bin/env bash
# session 2026-11-28, run 2: hbp/wide as one resident wave walking the column blocks in snake order; tests, bench, ncu on R-MAT 23
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build build-gpu -j16 --target spx_cli test_gpu test_hbp_wide_gpu >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
(cmake -S . -B build-seg16 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS="-DSPX_HBP_WIDE_SEGMENT_BYTES='(16LL<<20)' -DSPX_HBP_WIDE_MAX_H=2048" -DCMAKE_C_FLAGS="-DSPX_HBP_WIDE_SEGMENT_BYTES='(16LL<<20)' -DSPX_HBP_WIDE_MAX_H=2048" > $out/build-seg16.log 2>&1 && cmake --build build-seg16 -j8 --target spx_cli >> $out/build-seg16.log 2>&1; echo "seg16 build rc=$?") &
echo "build $(( $(date +%s)-t0 )) s"
timeout 120 build-gpu/tests/test_hbp_wide_gpu > $out/test_hbp_wide_gpu.log 2>&1; echo "test_hbp_wide_gpu rc=$? $(tail -1 $out/test_hbp_wide_gpu.log)"
SPX_GPU_TEST_FORMATS=hbp/wide timeout 200 build-gpu/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu hbp/wide rc=$? $(tail -1 $out/test_gpu.log)"
wait
echo "tests $(( $(date +%s)-t0 )) s"
S=build-gpu/spx
L="gen:rmat:scale=23,ef=8,sym=1 gen:uniform:m=16777216,k=8 gen:powerlaw:m=4000000,k=8"
timeout 150 $S bench --backend cuda --plan-reps 1 --formats cusparse/alg1,csr/auto,hbp/auto,hbp/wide $L --json $out/large3-fp64.json > $out/large3-fp64.txt 2>&1; echo "large3 fp64 rc=$? $(( $(date +%s)-t0 )) s"
timeout 120 build-seg16/spx bench --backend cuda --plan-reps 1 --formats cusparse/alg1,hbp/wide $L --json $out/large3-fp64-seg16h2k.json > $out/large3-fp64-seg16h2k.txt 2>&1; echo "large3 fp64 seg16 rc=$? $(( $(date +%s)-t0 )) s"
timeout 120 $S bench --backend cuda --plan-reps 1 --precision fp32 --formats cusparse/alg1,csr/auto,hbp/auto,hbp/wide $L --json $out/large3-fp32.json > $out/large3-fp32.txt 2>&1; echo "large3 fp32 rc=$? $(( $(date +%s)-t0 )) s"
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu)
for m in gen:rmat:scale=23,ef=8,sym=1 gen:uniform:m=16777216,k=8; do
  tag=$(echo $m | tr -dc 'a-z0-9')
  timeout 100 $NCU --kernel-name regex:hbp_wide_kernel --launch-skip 3 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats \
    $S bench --backend cuda --plan-reps 1 --reps 3 --warmup 1 --formats hbp/wide $m > $out/ncu-$tag.txt 2>&1
  echo "ncu $m rc=$? $(( $(date +%s)-t0 )) s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
