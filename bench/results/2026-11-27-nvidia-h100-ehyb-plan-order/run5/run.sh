#!/usr/bin/env bash
# session 2026-11-27 ninth, run 5: ehyb plan-order kernel shapes on the large stencils (fp64, grow): -D builds side by side
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
declare -A FL=( [base]="" [unroll8]="-DSPX_EHYB_CUDA_UNROLL=8" [bpsm2]="-DSPX_EHYB_BLOCKS_PER_SM=2" [b256x8]="-DSPX_EHYB_CUDA_ELL_BLOCK=256 -DSPX_EHYB_BLOCKS_PER_SM=8" )
for v in base unroll8 bpsm2 b256x8; do
  ( cmake -S . -B /tmp/b-$v -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_C_FLAGS=${FL[$v]}" "-DCMAKE_CUDA_FLAGS=${FL[$v]}" > $out/build-$v.log 2>&1 \
    && cmake --build /tmp/b-$v -j4 --target spx_cli >> $out/build-$v.log 2>&1; echo "build $v rc=$?" ) &
done
wait
echo "builds $(( $(date +%s)-t0 )) s"
L="gen:poisson3d:n=300 gen:stencil27:n=160"
/tmp/b-base/spx bench --backend cuda --plan-reps 1 --formats cusparse/alg1,csr/auto $L --json $out/ref.json > $out/ref.txt 2>&1; echo "ref rc=$?"
for rep in 1 2; do for v in base unroll8 bpsm2 b256x8; do
  timeout 100 /tmp/b-$v/spx bench --backend cuda --plan-reps 1 --formats ehyb/grow --order plan $L --json $out/$v-$rep.json > $out/$v-$rep.txt 2>&1; echo "$v $rep rc=$? $(( $(date +%s)-t0 )) s"
done; done
cd $OUT && tar czf r.tgz r && rm -rf r
