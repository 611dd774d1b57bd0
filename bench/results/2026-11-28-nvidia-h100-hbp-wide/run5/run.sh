#!/usr/bin/env bash
# session 2026-11-28, run 5: hbp/wide shapes with shared atomics (no row shares): H 2048/1024, segments 8/16 MB, pacing lag 2/4
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
variant() { # dir flags
  cmake -S . -B $1 -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS="$2" -DCMAKE_C_FLAGS="$2" > $out/build-$1.log 2>&1 \
    && cmake --build $1 -j4 --target spx_cli >> $out/build-$1.log 2>&1; echo "build $1 rc=$?"; }
variant build-a "-DSPX_HBP_WIDE_OWN_SKEW=0 -DSPX_HBP_WIDE_MAX_H=2048 -DSPX_HBP_WIDE_SEGMENT_MB=16" &
variant build-b "-DSPX_HBP_WIDE_OWN_SKEW=0 -DSPX_HBP_WIDE_MAX_H=2048 -DSPX_HBP_WIDE_SEGMENT_MB=16 -DSPX_HBP_WIDE_LAG=4" &
variant build-c "-DSPX_HBP_WIDE_OWN_SKEW=0 -DSPX_HBP_WIDE_MAX_H=2048 -DSPX_HBP_WIDE_SEGMENT_MB=8" &
variant build-d "-DSPX_HBP_WIDE_OWN_SKEW=0 -DSPX_HBP_WIDE_MAX_H=1024 -DSPX_HBP_WIDE_SEGMENT_MB=16" &
wait
echo "build $(( $(date +%s)-t0 )) s"
L="gen:uniform:m=16777216,k=8 gen:rmat:scale=23,ef=8,sym=1"
timeout 100 build-a/spx bench --backend cuda --plan-reps 1 --formats cusparse/alg1,hbp/auto,hbp/wide $L --json $out/fp64-a.json > $out/fp64-a.txt 2>&1; echo "fp64 a rc=$? $(( $(date +%s)-t0 )) s"
for b in b c d; do
  timeout 100 build-$b/spx bench --backend cuda --plan-reps 1 --formats cusparse/alg1,hbp/wide $L --json $out/fp64-$b.json > $out/fp64-$b.txt 2>&1; echo "fp64 $b rc=$? $(( $(date +%s)-t0 )) s"
done
for b in a b d; do
  timeout 100 build-$b/spx bench --backend cuda --plan-reps 1 --precision fp32 --formats cusparse/alg1,hbp/auto,hbp/wide gen:uniform:m=16777216,k=8 --json $out/fp32-$b.json > $out/fp32-$b.txt 2>&1; echo "fp32 $b rc=$? $(( $(date +%s)-t0 )) s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
