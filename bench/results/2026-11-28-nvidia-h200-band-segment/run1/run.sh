#!/usr/bin/env bash
# session 2026-11-28 (third), band segment run 1: with the matrix loads evict-first (1e35f76),
# does hbp's band segment (SPX_HBP_BAND_SEGMENT_BYTES, L2/3 = 16.7 MB) want to be larger?
# Builds: 16.7 MB (the default), 25 MB, 40 MB (C and CUDA flags: host and device cut alike).
# Benches interleaved; then ncu of csr stream on powerlaw 4M fp64 (what bounds it now).
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
for v in 0 25 40; do
  B=build-s$v
  fl=""; [ $v != 0 ] && fl="-DSPX_HBP_BAND_SEGMENT_BYTES=$((v*1048576))LL"
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_C_FLAGS=$fl" "-DCMAKE_CUDA_FLAGS=$fl" > $out/build-s$v.log 2>&1 \
    && cmake --build $B -j16 --target spx_cli >> $out/build-s$v.log 2>&1 || tail -30 $out/build-s$v.log
  echo "build s$v $(el) s"
done
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
F=cusparse/alg1,csr/auto,hbp/band,hbp/auto
for p in fp64 fp32; do
  M="gen:powerlaw:m=4000000,k=8 gen:uniform:m=4000000,k=8"
  [ $p = fp64 ] && M="$M gen:uniform:m=16777216,k=8"
  for v in 0 25 40; do
    [ $(el) -lt 420 ] || break
    timeout 90 build-s$v/spx bench --backend cuda --plan-reps 1 --precision $p --formats $F $M --json $out/s$v-$p.json > $out/s$v-$p.txt 2>&1; echo "bench s$v $p rc=$? $(el) s"
  done
done
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu)
timeout 120 $NCU --kernel-name regex:csr_stream --launch-skip 8 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
  --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats \
  build-s0/spx bench --backend cuda --plan-reps 1 --reps 3 --warmup 1 --formats csr/auto gen:powerlaw:m=4000000,k=8 > $out/ncu-powerlaw-fp64.txt 2>&1
echo "ncu rc=$? $(el) s"
echo "done $(el) s"
cd $OUT && tar czf r.tgz r && rm -rf r
