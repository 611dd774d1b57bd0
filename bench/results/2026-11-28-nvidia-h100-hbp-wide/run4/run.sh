#!/usr/bin/env bash
# session 2026-11-28, run 4: hbp/wide with each warp owning a share of the tile's rows (plain adds); A/B: atomics only, H 2048 + 16 MB segments, + ILP 4
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
variant() { # dir flags
  cmake -S . -B $1 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS="$2" -DCMAKE_C_FLAGS="$2" > $out/build-$1.log 2>&1 \
    && cmake --build $1 -j4 --target spx_cli >> $out/build-$1.log 2>&1; echo "build $1 rc=$?"; }
variant build-atom "-DSPX_HBP_WIDE_OWN_SKEW=0" &
variant build-h2k "-DSPX_HBP_WIDE_MAX_H=2048 -DSPX_HBP_WIDE_SEGMENT_MB=16" &
variant build-h2k4 "-DSPX_HBP_WIDE_MAX_H=2048 -DSPX_HBP_WIDE_SEGMENT_MB=16 -DSPX_HBP_WIDE_ILP=4" &
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build build-gpu -j6 --target spx_cli test_gpu test_hbp_wide_gpu >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
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
for b in atom h2k h2k4; do
  timeout 100 build-$b/spx bench --backend cuda --plan-reps 1 --formats cusparse/alg1,hbp/wide $L --json $out/large3-fp64-$b.json > $out/large3-fp64-$b.txt 2>&1; echo "large3 fp64 $b rc=$? $(( $(date +%s)-t0 )) s"
done
timeout 100 build-gpu/spx bench --backend cuda --plan-reps 1 --precision fp32 --formats cusparse/alg1,hbp/auto,hbp/wide $L --json $out/large3-fp32.json > $out/large3-fp32.txt 2>&1; echo "large3 fp32 rc=$? $(( $(date +%s)-t0 )) s"
timeout 100 build-h2k/spx bench --backend cuda --plan-reps 1 --precision fp32 --formats cusparse/alg1,hbp/wide $L --json $out/large3-fp32-h2k.json > $out/large3-fp32-h2k.txt 2>&1; echo "large3 fp32 h2k rc=$? $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
