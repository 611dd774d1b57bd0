#!/usr/bin/env bash
# session 2026-11-29 (second), run 5: the committed tree (2684cb7). Tests: test_ehyb_gpu (and
# memcheck), test_gpu over ehyb (host- and device-built; memcheck and racecheck quick),
# test_gpu_memory. Benches: the large stencils fp64 and fp32 in plan order (ALG1, ALG2, csr
# auto, ehyb/auto = voronoi built on the device, ehyb/grow; ehyb/metis on stencil27), ehyb/auto
# in the caller's order; FEM16 (caller's order: ALG1, ehyb/auto, ehyb/metis).
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
pack() { (cd $OUT && tar czf r.tgz r); }
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
git log --oneline -1 > $out/commit.txt 2>/dev/null
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build build -j16 --target spx_cli --target test_gpu --target test_ehyb_gpu --target test_gpu_memory >> $out/build.log 2>&1 || { tail -30 $out/build.log; pack; exit 1; }
echo "build $(el) s"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $out/gpu.txt
cs=/usr/local/cuda/bin/compute-sanitizer
( timeout 300 $cs --tool memcheck --error-exitcode 99 build/tests/test_ehyb_gpu > $out/san-memcheck-ehyb_gpu.log 2>&1; echo "memcheck test_ehyb_gpu rc=$? $(grep -E 'ERROR SUMMARY|passed,' $out/san-memcheck-ehyb_gpu.log | tr '\n' ' ')" ) &
for tool in memcheck racecheck; do
  ( SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=ehyb timeout 300 $cs --tool $tool --error-exitcode 99 build/tests/test_gpu > $out/san-$tool-gpu.log 2>&1; echo "$tool test_gpu quick ehyb rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed,' $out/san-$tool-gpu.log | tr '\n' ' ')" ) &
done
timeout 120 build/tests/test_ehyb_gpu > $out/test_ehyb_gpu.log 2>&1; echo "test_ehyb_gpu rc=$? $(tail -1 $out/test_ehyb_gpu.log)"
SPX_GPU_TEST_FORMATS=ehyb timeout 200 build/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu ehyb rc=$? $(tail -1 $out/test_gpu.log)"
grep -m5 FAIL $out/test_ehyb_gpu.log $out/test_gpu.log
wait
timeout 200 build/tests/test_gpu_memory > $out/test_gpu_memory.log 2>&1; echo "test_gpu_memory rc=$? $(tail -1 $out/test_gpu_memory.log)"
echo "tests $(el) s"; pack
for pm in fp64:stencil27:n=160 fp32:stencil27:n=160 fp64:poisson3d:n=300 fp32:poisson3d:n=300; do
  p=${pm%%:*}; m=${pm#*:}
  F=cusparse/alg1,cusparse/alg2,csr/auto,ehyb/auto,ehyb/grow; [ ${m%%:*} = stencil27 ] && F=$F,ehyb/metis
  timeout 100 build/spx bench --backend cuda --plan-reps 1 --order plan --precision $p --formats $F gen:$m --json $out/$m-$p.json > $out/$m-$p.txt 2>&1; echo "$m $p rc=$? $(el) s"
  timeout 40 build/spx bench --backend cuda --plan-reps 3 --precision $p --formats cusparse/alg1,csr/auto,ehyb/auto gen:$m --json $out/$m-$p-caller.json > $out/$m-$p-caller.txt 2>&1; echo "$m $p caller rc=$? $(el) s"
  pack
done
M=../shared/matrices
FEM="$M/finan512_pattern.mtx.gz $M/bcsstk29.mtx.gz $M/bcsstk33.mtx.gz $M/fe_body.mtx.gz $M/bcsstk16.mtx.gz $M/wing.mtx.gz $M/t60k.mtx.gz $M/wing_nodal.mtx.gz $M/bcsstk15.mtx.gz $M/fe_sphere.mtx.gz $M/fe_4elt2.mtx.gz $M/whitaker3.mtx.gz $M/airfoil1.mtx.gz $M/bcsstk09.mtx.gz $M/nnc1374.mtx.gz $M/jagmesh7.mtx.gz"
timeout 60 build/spx bench --backend cuda --formats cusparse/alg1,ehyb/auto,ehyb/metis $FEM --json $out/fem.json > $out/fem.txt 2>&1; echo "fem rc=$? $(el) s"
timeout 60 build/spx bench --backend cuda --precision fp32 --formats cusparse/alg1,ehyb/auto,ehyb/metis $FEM --json $out/fem-fp32.json > $out/fem-fp32.txt 2>&1; echo "fem fp32 rc=$? $(el) s"
echo "done $(el) s"
pack; rm -rf $OUT/r
