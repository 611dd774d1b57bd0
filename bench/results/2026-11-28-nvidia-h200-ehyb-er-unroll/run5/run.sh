#!/usr/bin/env bash
# session 2026-11-28 (fourth), run 5: ehyb blocks of 1024 threads, 2 an SM (segments twice as
# long, so fewer parts and a lower ER fraction, at the same 64 warps an SM) against b417498's
# 512 x 4 (base). C and CUDA flags (the host sizes the segments). test_gpu over ehyb and memcheck
# (quick) on the new shape; stencil27 METIS and poisson3d grow in plan order, fp64 and fp32,
# interleaved; FEM16 (METIS) each.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
declare -A FL=( [base]="" [b1024]="-DSPX_EHYB_CUDA_ELL_BLOCK=1024 -DSPX_EHYB_BLOCKS_PER_SM=2" )
for v in base b1024; do
  T="--target spx_cli"; [ $v = b1024 ] && T="--target spx_cli --target test_gpu"
  ( cmake -S . -B build-$v -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_C_FLAGS=${FL[$v]}" "-DCMAKE_CUDA_FLAGS=${FL[$v]}" > $out/build-$v.log 2>&1 \
    && cmake --build build-$v -j8 $T >> $out/build-$v.log 2>&1 || tail -20 $out/build-$v.log ) &
done
wait
echo "builds $(el) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
cs=/usr/local/cuda/bin/compute-sanitizer
( SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=ehyb timeout 100 $cs --tool memcheck --error-exitcode 99 build-b1024/tests/test_gpu > $out/san-memcheck.log 2>&1; echo "memcheck quick ehyb rc=$? $(grep -E 'ERROR SUMMARY|passed,' $out/san-memcheck.log | tr '\n' ' ')" ) &
SPX_GPU_TEST_FORMATS=ehyb timeout 100 build-b1024/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu ehyb rc=$? $(tail -1 $out/test_gpu.log)"
wait
echo "tests $(el) s"
for p in fp64 fp32; do for v in base b1024; do
  [ $(el) -lt 330 ] || break
  timeout 50 build-$v/spx bench --backend cuda --plan-reps 1 --precision $p --order plan --formats cusparse/alg1,ehyb/metis gen:stencil27:n=160 --json $out/s27-$v-$p.json > $out/s27-$v-$p.txt 2>&1; echo "s27 $v $p rc=$? $(el) s"
  timeout 50 build-$v/spx bench --backend cuda --plan-reps 1 --precision $p --order plan --formats cusparse/alg1,ehyb/grow gen:poisson3d:n=300 --json $out/p300-$v-$p.json > $out/p300-$v-$p.txt 2>&1; echo "p300 $v $p rc=$? $(el) s"
done; done
M=../shared/matrices
FEM="$M/finan512_pattern.mtx.gz $M/bcsstk29.mtx.gz $M/bcsstk33.mtx.gz $M/fe_body.mtx.gz $M/bcsstk16.mtx.gz $M/wing.mtx.gz $M/t60k.mtx.gz $M/wing_nodal.mtx.gz $M/bcsstk15.mtx.gz $M/fe_sphere.mtx.gz $M/fe_4elt2.mtx.gz $M/whitaker3.mtx.gz $M/airfoil1.mtx.gz $M/bcsstk09.mtx.gz $M/nnc1374.mtx.gz $M/jagmesh7.mtx.gz"
for v in base b1024; do
  [ $(el) -lt 380 ] || break
  timeout 40 build-$v/spx bench --backend cuda --formats cusparse/alg1,ehyb/metis $FEM --json $out/fem-$v.json > $out/fem-$v.txt 2>&1; echo "fem $v rc=$? $(el) s"
done
echo "done $(el) s"
cd $OUT && tar czf r.tgz r && rm -rf r
