#!/usr/bin/env bash
# session 2026-11-29 (second), run 6: unequal parts split over one wave of slots instead of two
# (w1: -DSPX_EHYB_CUDA_BALANCE_WAVES=1) against the default (d, 2), same run: stencil27 n=160
# fp64 and fp32, poisson3d n=300 fp32 in plan order (ALG1, csr auto, ehyb/auto), FEM16.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
pack() { (cd $OUT && tar czf r.tgz r); }
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
declare -A FL=( [d]="" [w1]="-DSPX_EHYB_CUDA_BALANCE_WAVES=1" )
for v in d w1; do
  ( cmake -S . -B build-$v -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=${FL[$v]}" > $out/build-$v.log 2>&1 \
    && cmake --build build-$v -j8 --target spx_cli >> $out/build-$v.log 2>&1 || tail -20 $out/build-$v.log ) &
done
wait
echo "builds $(el) s"
M=../shared/matrices
FEM="$M/finan512_pattern.mtx.gz $M/bcsstk29.mtx.gz $M/bcsstk33.mtx.gz $M/fe_body.mtx.gz $M/bcsstk16.mtx.gz $M/wing.mtx.gz $M/t60k.mtx.gz $M/wing_nodal.mtx.gz $M/bcsstk15.mtx.gz $M/fe_sphere.mtx.gz $M/fe_4elt2.mtx.gz $M/whitaker3.mtx.gz $M/airfoil1.mtx.gz $M/bcsstk09.mtx.gz $M/nnc1374.mtx.gz $M/jagmesh7.mtx.gz"
for rep in 1 2; do
for v in d w1; do
  for pm in fp64:stencil27:n=160 fp32:stencil27:n=160 fp32:poisson3d:n=300; do
    p=${pm%%:*}; m=${pm#*:}
    timeout 60 build-$v/spx bench --backend cuda --plan-reps 1 --order plan --precision $p --formats cusparse/alg1,csr/auto,ehyb/auto gen:$m --json $out/$v-$m-$p-r$rep.json > $out/$v-$m-$p-r$rep.txt 2>&1; echo "$v $m $p r$rep rc=$? $(el) s"
  done
  pack
done
done
for v in d w1; do
  timeout 60 build-$v/spx bench --backend cuda --formats cusparse/alg1,ehyb/auto $FEM --json $out/$v-fem.json > $out/$v-fem.txt 2>&1; echo "$v fem rc=$? $(el) s"
done
echo "done $(el) s"
pack; rm -rf $OUT/r
