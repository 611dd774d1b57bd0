#!/usr/bin/env bash
# session 2026-11-29 (third), hbp final run 2 (code of 0f1dd69): the large suite cold (L2 flushed
# before each call), fp64; uniform 16.8M fp32 in two more processes, hbp/auto (4 bands) against
# hbp/wide (run 1 gave 1.46x ALG1, 2026-11-28 1.58x: ALG1 moved, hbp did not); ncu of cuSPARSE
# ALG1 and of hbp/auto's csr stream on R-MAT 23 and powerlaw 4M (what bounds both).
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
B=build-gpu
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build $B -j16 --target spx_cli >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(el) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
timeout 240 $B/spx bench --backend cuda --plan-reps 1 --cold --formats cusparse/alg1,csr/auto,hbp/auto --suite bench/suites/large.txt \
  --json $out/large-fp64-cold.json > $out/large-fp64-cold.txt 2>&1; echo "cold rc=$? $(el) s"
for i in 1 2; do
  timeout 60 $B/spx bench --backend cuda --plan-reps 1 --precision fp32 --formats cusparse/alg1,hbp/auto,hbp/wide \
    gen:uniform:m=16777216,k=8 > $out/uniform-fp32-$i.txt 2>&1; echo "uniform fp32 $i rc=$? $(el) s"
done
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu)
for M in gen:rmat:scale=23,ef=8,sym=1 gen:powerlaw:m=4000000,k=8; do
  tag=$(echo $M | tr -dc 'a-z0-9' | cut -c1-16)
  for f in cusparse/alg1 hbp/auto; do
    ftag=$(echo $f | tr '/' '-')
    timeout 90 $NCU --launch-skip 6 --launch-count 3 --section SpeedOfLight --section MemoryWorkloadAnalysis \
      $B/spx bench --backend cuda --plan-reps 1 --reps 3 --warmup 1 --formats $f $M > $out/ncu-$tag-$ftag.txt 2>&1
    echo "ncu $M $f rc=$? $(el) s"
  done
done
cd $OUT && tar czf r.tgz r && rm -rf r
