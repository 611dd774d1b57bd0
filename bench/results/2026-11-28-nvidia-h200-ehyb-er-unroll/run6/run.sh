#!/usr/bin/env bash
# session 2026-11-28 (fourth), run 6: the committed tree with two kernel shapes (512 x 4 where
# K = 1, 1024 x 2 where the narrow segments need K >= 2). test_gpu over ehyb (shared matrices
# included), test_gpu_memory, memcheck quick; then METIS in plan order beside ALG1 and csr auto:
# stencil27 fp64/fp32, FEM16, poisson3d fp64 (and fp32 if time is left). r.tgz is remade after
# every step, so a cut run still returns what it finished.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
pack() { (cd $OUT && tar czf r.tgz r); }
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build build-gpu -j16 --target spx_cli test_gpu test_gpu_memory >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(el) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
cs=/usr/local/cuda/bin/compute-sanitizer
( SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=ehyb timeout 60 $cs --tool memcheck --error-exitcode 99 build-gpu/tests/test_gpu > $out/san-memcheck.log 2>&1; echo "memcheck quick ehyb rc=$? $(grep -E 'ERROR SUMMARY|passed,' $out/san-memcheck.log | tr '\n' ' ')" ) &
SPX_GPU_TEST_FORMATS=ehyb timeout 60 build-gpu/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu ehyb rc=$? $(tail -1 $out/test_gpu.log)"
wait
timeout 40 build-gpu/tests/test_gpu_memory > $out/test_gpu_memory.log 2>&1; echo "test_gpu_memory rc=$? $(tail -1 $out/test_gpu_memory.log) $(el) s"
pack
for p in fp64 fp32; do
  timeout 40 build-gpu/spx bench --backend cuda --plan-reps 1 --precision $p --order plan --formats cusparse/alg1,csr/auto,ehyb/metis gen:stencil27:n=160 --json $out/s27-$p.json > $out/s27-$p.txt 2>&1; echo "s27 $p rc=$? $(el) s"
done
M=../shared/matrices
FEM="$M/finan512_pattern.mtx.gz $M/bcsstk29.mtx.gz $M/bcsstk33.mtx.gz $M/fe_body.mtx.gz $M/bcsstk16.mtx.gz $M/wing.mtx.gz $M/t60k.mtx.gz $M/wing_nodal.mtx.gz $M/bcsstk15.mtx.gz $M/fe_sphere.mtx.gz $M/fe_4elt2.mtx.gz $M/whitaker3.mtx.gz $M/airfoil1.mtx.gz $M/bcsstk09.mtx.gz $M/nnc1374.mtx.gz $M/jagmesh7.mtx.gz"
timeout 30 build-gpu/spx bench --backend cuda --formats cusparse/alg1,csr/auto,ehyb/metis $FEM --json $out/fem.json > $out/fem.txt 2>&1; echo "fem rc=$? $(el) s"
pack
for p in fp64 fp32; do
  [ $(el) -lt 110 ] || break
  timeout 75 build-gpu/spx bench --backend cuda --plan-reps 1 --precision $p --order plan --formats cusparse/alg1,csr/auto,ehyb/metis gen:poisson3d:n=300 --json $out/p300-$p.json > $out/p300-$p.txt 2>&1; echo "p300 $p rc=$? $(el) s"
  pack
done
echo "done $(el) s"
pack; rm -rf $out
