#!/usr/bin/env bash
# session 2026-11-27 ninth, run 8: ncu of hbp's band SpMV (csr kernels per band) on R-MAT 23 and powerlaw 4M (issue 7's open question)
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build build-gpu -j16 --target spx_cli >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(( $(date +%s)-t0 )) s"
S=build-gpu/spx
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu)
for m in gen:rmat:scale=23,ef=8,sym=1 gen:powerlaw:m=4000000,k=8; do
  tag=$(echo $m | tr -dc 'a-z0-9')
  timeout 120 $NCU --kernel-name regex:csr --launch-skip 8 --launch-count 4 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats \
    $S bench --backend cuda --plan-reps 1 --reps 3 --warmup 1 --formats hbp/auto $m > $out/ncu-$tag.txt 2>&1
  echo "ncu $m rc=$? $(( $(date +%s)-t0 )) s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
