#!/usr/bin/env bash
# session 2026-11-29 (third), run 2: R-MAT 23 fp32's hot band built on the host measured
# 0.912 ms (run 1, two processes) against 0.939-0.948 built on the device (four processes,
# other runs) with the same arrays (test_hbp_gpu). Alternating processes, device and host
# builds, JSON for the full kernel names and layout; then spx info of both plans.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
B=build-gpu
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build $B -j16 --target spx_cli >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(el) s"
M=gen:rmat:scale=23,ef=8,sym=1
for p in fp32 fp32 fp64; do
  for b in device host; do
    i=$((${i:-0}+1))
    timeout 100 $B/spx bench --backend cuda --build $b --plan-reps 1 --precision $p --formats cusparse/alg1,hbp/auto $M \
      --json $out/ab-$i-$b-$p.json > $out/ab-$i-$b-$p.txt 2>&1
    echo "$i $b $p rc=$? $(grep -E 'hbp/auto' $out/ab-$i-$b-$p.txt | awk '{print $6, $12}') alg1 $(grep alg1 $out/ab-$i-$b-$p.txt | awk '{print $6}') $(el) s"
  done
done
for b in device host; do
  timeout 60 $B/spx info $M --backend cuda --build $b --precision fp32 --format hbp > $out/info-$b-fp32.txt 2>&1
  echo "info $b rc=$? $(el) s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
