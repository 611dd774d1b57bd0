#!/usr/bin/env bash
# session 2026-11-28 (fourth), run 1: ehyb slice kernel variants and csr stream's carveout (H200).
# Builds of one tree: v0 the defaults; v1 ER loop unrolled 4 + csr stream carveout 0 (max L1);
# v2 ER unroll 4 + bounds of slice s + 16 prefetched into L1; v3 ER unroll 4 + 2 blocks an SM
# (C and CUDA flags: the segments are sized on the host). ehyb with grow (METIS's ER fraction on
# stencil27 is the same, its plan 5x longer), plan order, fp64 and fp32, two rounds interleaved;
# then csr stream / hbp on the gather-bound matrices, v0 against v1, two rounds.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
declare -A FL=( [v0]="" [v1]="-DSPX_EHYB_CUDA_ER_UNROLL=4 -DSPX_CSR_CUDA_STREAM_CARVEOUT=0" [v2]="-DSPX_EHYB_CUDA_ER_UNROLL=4 -DSPX_EHYB_CUDA_PREFETCH_NEXT=1" [v3]="-DSPX_EHYB_CUDA_ER_UNROLL=4 -DSPX_EHYB_BLOCKS_PER_SM=2" )
for v in v0 v1 v2 v3; do
  ( cmake -S . -B build-$v -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_C_FLAGS=${FL[$v]}" "-DCMAKE_CUDA_FLAGS=${FL[$v]}" > $out/build-$v.log 2>&1 \
    && cmake --build build-$v -j4 --target spx_cli >> $out/build-$v.log 2>&1 || tail -20 $out/build-$v.log ) &
done
wait
echo "builds $(el) s"; ls build-v*/spx
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
L="gen:stencil27:n=160 gen:poisson3d:n=300"
for rep in 1 2; do for p in fp64 fp32; do for v in v0 v1 v2 v3; do
  [ $(el) -lt 400 ] || break
  timeout 60 build-$v/spx bench --backend cuda --plan-reps 1 --precision $p --order plan --formats cusparse/alg1,ehyb/grow $L --json $out/e-$v-$p-$rep.json > $out/e-$v-$p-$rep.txt 2>&1; echo "ehyb $v $p $rep rc=$? $(el) s"
done; done; done
G="gen:rmat:scale=23,ef=8,sym=1 gen:powerlaw:m=4000000,k=8 gen:uniform:m=4000000,k=8"
for rep in 1 2; do for p in fp64 fp32; do for v in v0 v1; do
  [ $(el) -lt 540 ] || break
  timeout 60 build-$v/spx bench --backend cuda --plan-reps 1 --precision $p --formats cusparse/alg1,csr/auto,hbp/auto $G --json $out/g-$v-$p-$rep.json > $out/g-$v-$p-$rep.txt 2>&1; echo "graphs $v $p $rep rc=$? $(el) s"
done; done; done
echo "done $(el) s"
cd $OUT && tar czf r.tgz r && rm -rf r
