#!/usr/bin/env bash
# session 2026-11-28 (third), run 2 (run 1 did not build its variants): cache hints on csr's matrix loads (values, column indices),
# SPX_CUDA_STREAM_LOAD 0 (__ldg), 1 (L1 no_allocate), 2 (ld.cs), 3 (L1 no_allocate + L2
# evict_first policy). One full build per variant (CMAKE_CUDA_FLAGS). Bench: R-MAT 23 and powerlaw 4M, fp64 and fp32, variants interleaved.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
for v in 0 1 2 3; do
  B=build-v$v
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS=-DSPX_CUDA_STREAM_LOAD=$v > $out/build-v$v.log 2>&1 \
    && cmake --build $B -j16 --target spx_cli >> $out/build-v$v.log 2>&1 && cp $B/spx spx_v$v || tail -30 $out/build-v$v.log
  echo "build v$v $(( $(date +%s)-t0 )) s"
done
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
B=.
F=cusparse/alg1,csr/auto,hbp/band,hbp/hot
R=gen:rmat:scale=23,ef=8,sym=1
P=gen:powerlaw:m=4000000,k=8
for k in 1 2; do
for p in fp64 fp32; do
  for v in 0 3 1 2; do
    [ -x $B/spx_v$v ] || { echo "no spx_v$v"; continue; }
    timeout 100 $B/spx_v$v bench --backend cuda --plan-reps 1 --precision $p --formats $F $R $P --json $out/v$v-$p-$k.json > $out/v$v-$p-$k.txt 2>&1; echo "bench v$v $p $k rc=$? $(( $(date +%s)-t0 )) s"
  done
done
done
for v in 0 3 1 2; do
  timeout 100 $B/spx_v$v bench --backend cuda --plan-reps 1 --precision fp64 --formats cusparse/alg1,csr/auto gen:poisson3d:n=300 gen:uniform:m=4000000,k=8 gen:uniform:m=16777216,k=8 > $out/s$v-fp64.txt 2>&1; echo "bench s$v rc=$? $(( $(date +%s)-t0 )) s"
done
echo "done $(( $(date +%s)-t0 )) s"
cd $OUT && tar czf r.tgz r && rm -rf r
