#!/usr/bin/env bash
# session 2026-11-29, run 3: the committed rule (whole-slice L2 prefetch where one slice a
# resident warp fits the L2, else 128 entries ahead) against no prefetch (pf0), one run.
# test_gpu over ehyb, test_gpu_memory, memcheck (quick) on the new build; stencil27 n=160 METIS
# and poisson3d n=300 grow in plan order with ALG1 and csr auto, fp64 and fp32; FEM16 (METIS);
# poisson3d METIS fp64 last.
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
pack() { (cd $OUT && tar czf r.tgz r); }
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
declare -A FL=( [new]="" [pf0]="-DSPX_EHYB_CUDA_L2_PREFETCH=0" )
for v in new pf0; do
  T="--target spx_cli"; [ $v = new ] && T="--target spx_cli --target test_gpu --target test_gpu_memory"
  ( cmake -S . -B build-$v -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=${FL[$v]}" > $out/build-$v.log 2>&1 \
    && cmake --build build-$v -j8 $T >> $out/build-$v.log 2>&1 || tail -20 $out/build-$v.log ) &
done
wait
echo "builds $(el) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
cs=/usr/local/cuda/bin/compute-sanitizer
( SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=ehyb timeout 90 $cs --tool memcheck --error-exitcode 99 build-new/tests/test_gpu > $out/san-memcheck.log 2>&1; echo "memcheck quick ehyb rc=$? $(grep -E 'ERROR SUMMARY|passed,' $out/san-memcheck.log | tr '\n' ' ')" ) &
SPX_GPU_TEST_FORMATS=ehyb timeout 120 build-new/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu ehyb rc=$? $(tail -1 $out/test_gpu.log)"
timeout 60 build-new/tests/test_gpu_memory > $out/test_gpu_memory.log 2>&1; echo "test_gpu_memory rc=$? $(tail -1 $out/test_gpu_memory.log)"
wait
echo "tests $(el) s"; pack
B="--backend cuda --plan-reps 1 --order plan"
for p in fp64 fp32; do for v in new pf0; do
  [ $(el) -lt 420 ] || break
  timeout 60 build-$v/spx bench $B --precision $p --formats cusparse/alg1,csr/auto,ehyb/metis gen:stencil27:n=160 --json $out/s27-$v-$p.json > $out/s27-$v-$p.txt 2>&1; echo "s27 $v $p rc=$? $(el) s"
  timeout 60 build-$v/spx bench $B --precision $p --formats cusparse/alg1,csr/auto,ehyb/grow gen:poisson3d:n=300 --json $out/p300-$v-$p.json > $out/p300-$v-$p.txt 2>&1; echo "p300 $v $p rc=$? $(el) s"
  pack
done; done
M=../shared/matrices
FEM="$M/finan512_pattern.mtx.gz $M/bcsstk29.mtx.gz $M/bcsstk33.mtx.gz $M/fe_body.mtx.gz $M/bcsstk16.mtx.gz $M/wing.mtx.gz $M/t60k.mtx.gz $M/wing_nodal.mtx.gz $M/bcsstk15.mtx.gz $M/fe_sphere.mtx.gz $M/fe_4elt2.mtx.gz $M/whitaker3.mtx.gz $M/airfoil1.mtx.gz $M/bcsstk09.mtx.gz $M/nnc1374.mtx.gz $M/jagmesh7.mtx.gz"
for v in new pf0; do
  [ $(el) -lt 450 ] || break
  timeout 40 build-$v/spx bench --backend cuda --formats cusparse/alg1,ehyb/metis $FEM --json $out/fem-$v.json > $out/fem-$v.txt 2>&1; echo "fem $v rc=$? $(el) s"
  pack
done
if [ $(el) -lt 440 ]; then
  timeout 100 build-new/spx bench $B --precision fp64 --formats cusparse/alg1,ehyb/metis gen:poisson3d:n=300 --json $out/p300m-new-fp64.json > $out/p300m-new-fp64.txt 2>&1; echo "p300 metis new fp64 rc=$? $(el) s"
fi
echo "done $(el) s"
pack; rm -rf $OUT/r
