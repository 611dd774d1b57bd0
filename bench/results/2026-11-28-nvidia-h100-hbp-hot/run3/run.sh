#!/usr/bin/env bash
# session 2026-11-28 (second), run 3: the committed hbp/hot, bench only, nothing else on the GPU: R-MAT 23 and powerlaw 4M
# fp64 and fp32, two processes each; uniform 16.8M (auto stays wide)
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build build-gpu -j16 --target spx_cli >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(( $(date +%s)-t0 )) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
git rev-parse HEAD > $out/commit.txt 2>/dev/null || cp .device/commit $out/commit.txt
S=build-gpu/spx
F=cusparse/alg1,cusparse/alg2,csr/auto,hbp/band,hbp/hot,hbp/auto
R=gen:rmat:scale=23,ef=8,sym=1
P=gen:powerlaw:m=4000000,k=8
for k in 1 2; do
  for p in fp64 fp32; do
    timeout 100 $S bench --backend cuda --plan-reps 1 --precision $p --formats $F $R $P --json $out/b$k-$p.json > $out/b$k-$p.txt 2>&1; echo "bench $p $k rc=$? $(( $(date +%s)-t0 )) s"
  done
done
timeout 100 $S bench --backend cuda --plan-reps 1 --precision fp64 --formats cusparse/alg1,hbp/auto gen:uniform:m=16777216,k=8 --json $out/bu-fp64.json > $out/bu-fp64.txt 2>&1; echo "bench uniform rc=$? $(( $(date +%s)-t0 )) s"
for p in fp64 fp32; do timeout 60 $S info $R --backend cuda --precision $p --format hbp > $out/info-rmat-auto-$p.txt 2>&1; done
echo "done $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
