#!/usr/bin/env bash
# session 2026-11-28 (fourth), run 2: the ER loop unrolled 4 as the default (v4) against 1 (v1,
# the layout's first version) and 8 (v8). test_gpu over ehyb (with the shared matrices) and
# memcheck (quick) on v4; grow stencils v1/v4/v8 in plan order; then v4 with METIS on both large
# stencils in plan order beside ALG1 and csr auto, fp64 and fp32; FEM16 v1 against v4.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
declare -A FL=( [v4]="" [v1]="-DSPX_EHYB_CUDA_ER_UNROLL=1" [v8]="-DSPX_EHYB_CUDA_ER_UNROLL=8" )
for v in v4 v1 v8; do
  T="--target spx_cli"; [ $v = v4 ] && T="--target spx_cli --target test_gpu"
  ( cmake -S . -B build-$v -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=${FL[$v]}" > $out/build-$v.log 2>&1 \
    && cmake --build build-$v -j5 $T >> $out/build-$v.log 2>&1 || tail -20 $out/build-$v.log ) &
done
wait
echo "builds $(el) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
cs=/usr/local/cuda/bin/compute-sanitizer
( SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=ehyb timeout 170 $cs --tool memcheck --error-exitcode 99 build-v4/tests/test_gpu > $out/san-memcheck.log 2>&1; echo "memcheck quick ehyb rc=$? $(grep -E 'ERROR SUMMARY|passed,' $out/san-memcheck.log | tr '\n' ' ')" ) &
SPX_GPU_TEST_FORMATS=ehyb timeout 170 build-v4/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu ehyb rc=$? $(tail -1 $out/test_gpu.log)"
wait
echo "tests $(el) s"
L="gen:stencil27:n=160 gen:poisson3d:n=300"
for p in fp64 fp32; do
  [ $(el) -lt 330 ] || break
  timeout 120 build-v4/spx bench --backend cuda --plan-reps 1 --precision $p --order plan --formats cusparse/alg1,csr/auto,ehyb/metis $L --json $out/metis-$p.json > $out/metis-$p.txt 2>&1; echo "metis $p rc=$? $(el) s"
done
M=../shared/matrices
FEM="$M/finan512_pattern.mtx.gz $M/bcsstk29.mtx.gz $M/bcsstk33.mtx.gz $M/fe_body.mtx.gz $M/bcsstk16.mtx.gz $M/wing.mtx.gz $M/t60k.mtx.gz $M/wing_nodal.mtx.gz $M/bcsstk15.mtx.gz $M/fe_sphere.mtx.gz $M/fe_4elt2.mtx.gz $M/whitaker3.mtx.gz $M/airfoil1.mtx.gz $M/bcsstk09.mtx.gz $M/nnc1374.mtx.gz $M/jagmesh7.mtx.gz"
for v in v1 v4; do
  timeout 60 build-$v/spx bench --backend cuda --formats cusparse/alg1,csr/auto,ehyb/metis $FEM --json $out/fem-$v.json > $out/fem-$v.txt 2>&1; echo "fem $v rc=$? $(el) s"
done
for p in fp64 fp32; do for v in v1 v4 v8; do
  [ $(el) -lt 530 ] || break
  timeout 45 build-$v/spx bench --backend cuda --plan-reps 1 --precision $p --order plan --formats cusparse/alg1,ehyb/grow $L --json $out/e-$v-$p.json > $out/e-$v-$p.txt 2>&1; echo "grow $v $p rc=$? $(el) s"
done; done
echo "done $(el) s"
cd $OUT && tar czf r.tgz r && rm -rf r
