#!/usr/bin/env bash
# session 2026-11-28, run 3: hbp/wide with the wave paced block by block (cooperative launch); A/B: no pacing, H 2048 + 16 MB segments
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
variant() { # dir flags
  cmake -S . -B $1 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS="$2" -DCMAKE_C_FLAGS="$2" > $out/build-$1.log 2>&1 \
    && cmake --build $1 -j6 --target spx_cli >> $out/build-$1.log 2>&1; echo "build $1 rc=$?"; }
variant build-lag0 "-DSPX_HBP_WIDE_LAG=0" &
variant build-h2k "-DSPX_HBP_WIDE_MAX_H=2048 -DSPX_HBP_WIDE_SEGMENT_BYTES=(16LL<<20)" &
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build build-gpu -j8 --target spx_cli test_gpu test_hbp_wide_gpu >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(( $(date +%s)-t0 )) s"
timeout 120 build-gpu/tests/test_hbp_wide_gpu > $out/test_hbp_wide_gpu.log 2>&1; echo "test_hbp_wide_gpu rc=$? $(tail -1 $out/test_hbp_wide_gpu.log)"
cs=/usr/local/cuda/bin/compute-sanitizer
timeout 200 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_hbp_wide_gpu > $out/san-memcheck-widegpu.log 2>&1 &
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=hbp/wide timeout 200 $cs --tool racecheck --error-exitcode 99 build-gpu/tests/test_gpu > $out/san-racecheck.log 2>&1 &
SPX_GPU_TEST_FORMATS=hbp/wide timeout 200 build-gpu/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu hbp/wide rc=$? $(tail -1 $out/test_gpu.log)"
wait
for f in san-memcheck-widegpu san-racecheck; do echo "$f: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed,' $out/$f.log | tr '\n' ' ')"; done
echo "tests $(( $(date +%s)-t0 )) s"
L="gen:rmat:scale=23,ef=8,sym=1 gen:uniform:m=16777216,k=8 gen:powerlaw:m=4000000,k=8"
timeout 150 build-gpu/spx bench --backend cuda --plan-reps 1 --formats cusparse/alg1,hbp/auto,hbp/wide $L --json $out/large3-fp64.json > $out/large3-fp64.txt 2>&1; echo "large3 fp64 rc=$? $(( $(date +%s)-t0 )) s"
for b in lag0 h2k; do
  timeout 100 build-$b/spx bench --backend cuda --plan-reps 1 --formats cusparse/alg1,hbp/wide $L --json $out/large3-fp64-$b.json > $out/large3-fp64-$b.txt 2>&1; echo "large3 fp64 $b rc=$? $(( $(date +%s)-t0 )) s"
done
timeout 100 build-gpu/spx bench --backend cuda --plan-reps 1 --precision fp32 --formats cusparse/alg1,hbp/auto,hbp/wide $L --json $out/large3-fp32.json > $out/large3-fp32.txt 2>&1; echo "large3 fp32 rc=$? $(( $(date +%s)-t0 )) s"
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu)
m=gen:uniform:m=16777216,k=8
timeout 90 $NCU --kernel-name regex:hbp_wide_kernel --launch-skip 3 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section Occupancy --section WarpStateStats build-gpu/spx bench --backend cuda --plan-reps 1 --reps 3 --warmup 1 --formats hbp/wide $m > $out/ncu-uniform.txt 2>&1
echo "ncu rc=$? $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
