#!/usr/bin/env bash
# session 2026-11-28 (second), run 1: hbp/hot (columns renumbered hot first, then the bands): tests, memcheck, the owed
# test_hbp_wide_gpu and its memcheck, R-MAT 23 / powerlaw 4M bench, a one-hot-band variant
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build build-gpu -j16 --target spx_cli test_gpu test_hbp_wide_gpu test_hbp_gpu >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(( $(date +%s)-t0 )) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
V=-DSPX_HBP_HOT_SEGMENT_BYTES=1073741824
( cmake -S . -B build-1b -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_C_FLAGS=$V" "-DCMAKE_CUDA_FLAGS=$V" > $out/build1b.log 2>&1 \
  && cmake --build build-1b -j12 --target spx_cli >> $out/build1b.log 2>&1; echo "build-1b rc=$?" >> $out/build1b.log ) &
cs=/usr/local/cuda/bin/compute-sanitizer
timeout 240 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_hbp_gpu > $out/san-memcheck-hbpgpu.log 2>&1 &
timeout 240 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_hbp_wide_gpu > $out/san-memcheck-widegpu.log 2>&1 &
timeout 120 build-gpu/tests/test_hbp_gpu > $out/test_hbp_gpu.log 2>&1; echo "test_hbp_gpu rc=$? $(tail -1 $out/test_hbp_gpu.log)"
timeout 100 build-gpu/tests/test_hbp_wide_gpu > $out/test_hbp_wide_gpu.log 2>&1; echo "test_hbp_wide_gpu rc=$? $(tail -1 $out/test_hbp_wide_gpu.log)"
SPX_GPU_TEST_FORMATS=hbp/hot,hbp/auto,hbp/band timeout 200 build-gpu/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu hbp/hot,auto,band rc=$? $(tail -1 $out/test_gpu.log)"
echo "tests $(( $(date +%s)-t0 )) s"
S=build-gpu/spx
F=cusparse/alg1,csr/auto,hbp/band,hbp/hot,hbp/auto
R=gen:rmat:scale=23,ef=8,sym=1
P=gen:powerlaw:m=4000000,k=8
timeout 120 $S bench --backend cuda --plan-reps 1 --precision fp64 --formats $F $R $P --json $out/b-fp64.json > $out/b-fp64.txt 2>&1; echo "bench fp64 rc=$? $(( $(date +%s)-t0 )) s"
timeout 100 $S bench --backend cuda --plan-reps 1 --precision fp32 --formats $F $R --json $out/b-fp32.json > $out/b-fp32.txt 2>&1; echo "bench fp32 rc=$? $(( $(date +%s)-t0 )) s"
wait
for f in san-memcheck-hbpgpu san-memcheck-widegpu; do echo "$f: $(grep -E 'ERROR SUMMARY|passed,' $out/$f.log | tr '\n' ' ')"; done
tail -1 $out/build1b.log
[ -x build-1b/spx ] && { timeout 80 build-1b/spx bench --backend cuda --plan-reps 1 --precision fp64 --formats cusparse/alg1,hbp/hot $R --json $out/b1-fp64.json > $out/b1-fp64.txt 2>&1; echo "bench 1band rc=$? $(( $(date +%s)-t0 )) s"; }
timeout 60 $S info $R --backend cuda --format hbp --algo hot > $out/info-rmat-hot.txt 2>&1
echo "done $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
