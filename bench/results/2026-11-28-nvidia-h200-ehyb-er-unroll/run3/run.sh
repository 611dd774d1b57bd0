#!/usr/bin/env bash
# session 2026-11-28 (fourth), run 3: ehyb's parts launched heaviest first (spx_ehyb_launch_order;
# von) against part order (voff, -DSPX_EHYB_CUDA_LAUNCH_ORDER=0), both with the ER loop
# unrolled 4. test_gpu over ehyb (shared matrices included), test_gpu_memory, memcheck quick on
# von; METIS stencil27 on/off fp64/fp32 interleaved, FEM16 on/off, poisson3d n=300 METIS on.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
declare -A FL=( [von]="" [voff]="-DSPX_EHYB_CUDA_LAUNCH_ORDER=0" )
for v in von voff; do
  T="--target spx_cli"; [ $v = von ] && T="--target spx_cli --target test_gpu --target test_gpu_memory"
  ( cmake -S . -B build-$v -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=${FL[$v]}" > $out/build-$v.log 2>&1 \
    && cmake --build build-$v -j8 $T >> $out/build-$v.log 2>&1 || tail -20 $out/build-$v.log ) &
done
wait
echo "builds $(el) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
cs=/usr/local/cuda/bin/compute-sanitizer
( SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=ehyb timeout 120 $cs --tool memcheck --error-exitcode 99 build-von/tests/test_gpu > $out/san-memcheck.log 2>&1; echo "memcheck quick ehyb rc=$? $(grep -E 'ERROR SUMMARY|passed,' $out/san-memcheck.log | tr '\n' ' ')" ) &
SPX_GPU_TEST_FORMATS=ehyb timeout 120 build-von/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu ehyb rc=$? $(tail -1 $out/test_gpu.log)"
timeout 100 build-von/tests/test_gpu_memory > $out/test_gpu_memory.log 2>&1; echo "test_gpu_memory rc=$? $(tail -1 $out/test_gpu_memory.log)"
wait
echo "tests $(el) s"
for p in fp64 fp32; do for v in voff von; do
  [ $(el) -lt 300 ] || break
  timeout 60 build-$v/spx bench --backend cuda --plan-reps 1 --precision $p --order plan --formats cusparse/alg1,csr/auto,ehyb/metis gen:stencil27:n=160 --json $out/s27-$v-$p.json > $out/s27-$v-$p.txt 2>&1; echo "s27 $v $p rc=$? $(el) s"
done; done
M=../shared/matrices
FEM="$M/finan512_pattern.mtx.gz $M/bcsstk29.mtx.gz $M/bcsstk33.mtx.gz $M/fe_body.mtx.gz $M/bcsstk16.mtx.gz $M/wing.mtx.gz $M/t60k.mtx.gz $M/wing_nodal.mtx.gz $M/bcsstk15.mtx.gz $M/fe_sphere.mtx.gz $M/fe_4elt2.mtx.gz $M/whitaker3.mtx.gz $M/airfoil1.mtx.gz $M/bcsstk09.mtx.gz $M/nnc1374.mtx.gz $M/jagmesh7.mtx.gz"
for v in voff von; do
  timeout 60 build-$v/spx bench --backend cuda --formats cusparse/alg1,csr/auto,ehyb/metis $FEM --json $out/fem-$v.json > $out/fem-$v.txt 2>&1; echo "fem $v rc=$? $(el) s"
done
for p in fp64 fp32; do
  [ $(el) -lt 430 ] || break
  timeout 100 build-von/spx bench --backend cuda --plan-reps 1 --precision $p --order plan --formats cusparse/alg1,csr/auto,ehyb/metis gen:poisson3d:n=300 --json $out/p300-von-$p.json > $out/p300-von-$p.txt 2>&1; echo "p300 von $p rc=$? $(el) s"
done
echo "done $(el) s"
cd $OUT && tar czf r.tgz r && rm -rf r
