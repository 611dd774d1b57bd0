#!/usr/bin/env bash
# session 2026-11-29, run 4: the prefetch only for layouts larger than the L2 (new) against
# no prefetch (pf0); "all" prefetches every layout (SPX_EHYB_CUDA_PREFETCH_ABOVE_L2=0) so the
# small test matrices take the prefetch paths: test_gpu (quick) over ehyb and memcheck on
# "all", test_gpu (quick) on new. FEM16 (METIS) new / pf0; stencil27 METIS and poisson3d grow fp64.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
pack() { (cd $OUT && tar czf r.tgz r); }
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
declare -A FL=( [new]="" [pf0]="-DSPX_EHYB_CUDA_L2_PREFETCH=0" [all]="-DSPX_EHYB_CUDA_PREFETCH_ABOVE_L2=0" )
for v in new pf0 all; do
  T="--target spx_cli"; [ $v != pf0 ] && T="--target spx_cli --target test_gpu"
  ( cmake -S . -B build-$v -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=${FL[$v]}" > $out/build-$v.log 2>&1 \
    && cmake --build build-$v -j5 $T >> $out/build-$v.log 2>&1 || tail -20 $out/build-$v.log ) &
done
wait
echo "builds $(el) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
cs=/usr/local/cuda/bin/compute-sanitizer
( SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=ehyb timeout 90 $cs --tool memcheck --error-exitcode 99 build-all/tests/test_gpu > $out/san-memcheck-all.log 2>&1; echo "memcheck quick ehyb all rc=$? $(grep -E 'ERROR SUMMARY|passed,' $out/san-memcheck-all.log | tr '\n' ' ')" ) &
for v in all new; do
  SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=ehyb timeout 60 build-$v/tests/test_gpu > $out/test_gpu-$v.log 2>&1; echo "test_gpu quick ehyb $v rc=$? $(tail -1 $out/test_gpu-$v.log)"
done
wait
echo "tests $(el) s"; pack
M=../shared/matrices
FEM="$M/finan512_pattern.mtx.gz $M/bcsstk29.mtx.gz $M/bcsstk33.mtx.gz $M/fe_body.mtx.gz $M/bcsstk16.mtx.gz $M/wing.mtx.gz $M/t60k.mtx.gz $M/wing_nodal.mtx.gz $M/bcsstk15.mtx.gz $M/fe_sphere.mtx.gz $M/fe_4elt2.mtx.gz $M/whitaker3.mtx.gz $M/airfoil1.mtx.gz $M/bcsstk09.mtx.gz $M/nnc1374.mtx.gz $M/jagmesh7.mtx.gz"
for v in new pf0; do
  timeout 40 build-$v/spx bench --backend cuda --formats cusparse/alg1,ehyb/metis $FEM --json $out/fem-$v.json > $out/fem-$v.txt 2>&1; echo "fem $v rc=$? $(el) s"
  pack
done
B="--backend cuda --plan-reps 1 --order plan --precision fp64"
[ $(el) -lt 250 ] && { timeout 60 build-new/spx bench $B --formats cusparse/alg1,csr/auto,ehyb/metis gen:stencil27:n=160 --json $out/s27-new-fp64.json > $out/s27-new-fp64.txt 2>&1; echo "s27 new fp64 rc=$? $(el) s"; }
[ $(el) -lt 270 ] && { timeout 60 build-new/spx bench $B --formats cusparse/alg1,csr/auto,ehyb/grow gen:poisson3d:n=300 --json $out/p300-new-fp64.json > $out/p300-new-fp64.txt 2>&1; echo "p300 new fp64 rc=$? $(el) s"; }
echo "done $(el) s"
pack; rm -rf $OUT/r
