#!/usr/bin/env bash
# session 2026-11-29 (third), hbp final run 1 (code of 0f1dd69, no hbp change since): the large
# suite warm, fp64 and fp32, hbp/auto against csr auto and cuSPARSE ALG1 and ALG2 in one process;
# then hash against sort2D preprocessing (plan phases, median of 3 plans) on the generated large
# matrices, one process each.
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
git log -1 --format=%H > $out/commit.txt 2>/dev/null
F=cusparse/alg1,cusparse/alg2,csr/auto,hbp/auto
for p in fp64 fp32; do
  timeout 220 $B/spx bench --backend cuda --plan-reps 1 --precision $p --formats $F --suite bench/suites/large.txt \
    --json $out/large-$p.json > $out/large-$p.txt 2>&1; echo "large $p rc=$? $(el) s"
done
i=0
for M in gen:poisson3d:n=300 gen:stencil27:n=160 gen:rmat:scale=23,ef=8,sym=1 gen:uniform:m=16777216,k=8 \
         gen:powerlaw:m=4000000,k=8 gen:wide:m=64,n=2000000,k=200000; do
  i=$((i+1))
  [ $(( $(date +%s)-t0 )) -gt 520 ] && { echo "skip $M"; continue; }
  timeout 90 $B/spx bench --backend cuda --reps 3 --plan-reps 3 --formats hbp/hash,hbp/sort $M --json $out/prep-$i.json \
    > $out/prep-$i.txt 2>&1; echo "prep $i rc=$? $(el) s"
done
cd $OUT && tar czf r.tgz r && rm -rf r
