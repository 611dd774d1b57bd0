#!/usr/bin/env bash
# session 2026-11-29 (second), run 7: the final tree (one wave for unequal parts). Tests:
# test_ehyb_gpu, test_gpu over ehyb (quick, and memcheck quick). Benches: the large stencils
# fp64 and fp32 in plan order (ALG1, csr auto, ehyb/auto), FEM16 fp64 (ALG1, ehyb/auto).
set -u
out=$OUT/r; mkdir -p $out
t0=$(date +%s)
el() { echo $(( $(date +%s)-t0 )); }
pack() { (cd $OUT && tar czf r.tgz r); }
mkdir -p ../shared && ln -sfn "$PWD/.device/matrices" ../shared/matrices
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSPX_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $out/build.log 2>&1 \
  && cmake --build build -j16 --target spx_cli --target test_gpu --target test_ehyb_gpu >> $out/build.log 2>&1 || { tail -30 $out/build.log; pack; exit 1; }
echo "build $(el) s"
cs=/usr/local/cuda/bin/compute-sanitizer
( SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=ehyb timeout 200 $cs --tool memcheck --error-exitcode 99 build/tests/test_gpu > $out/san-memcheck-gpu.log 2>&1; echo "memcheck test_gpu quick ehyb rc=$? $(grep -E 'ERROR SUMMARY|passed,' $out/san-memcheck-gpu.log | tr '\n' ' ')" ) &
timeout 120 build/tests/test_ehyb_gpu > $out/test_ehyb_gpu.log 2>&1; echo "test_ehyb_gpu rc=$? $(tail -1 $out/test_ehyb_gpu.log)"
SPX_GPU_TEST_QUICK=1 SPX_GPU_TEST_FORMATS=ehyb timeout 200 build/tests/test_gpu > $out/test_gpu.log 2>&1; echo "test_gpu quick ehyb rc=$? $(tail -1 $out/test_gpu.log)"
wait
echo "tests $(el) s"; pack
for pm in fp64:stencil27:n=160 fp32:stencil27:n=160 fp64:poisson3d:n=300 fp32:poisson3d:n=300; do
  p=${pm%%:*}; m=${pm#*:}
  timeout 60 build/spx bench --backend cuda --plan-reps 1 --order plan --precision $p --formats cusparse/alg1,csr/auto,ehyb/auto gen:$m --json $out/$m-$p.json > $out/$m-$p.txt 2>&1; echo "$m $p rc=$? $(el) s"
done
M=../shared/matrices
FEM="$M/finan512_pattern.mtx.gz $M/bcsstk29.mtx.gz $M/bcsstk33.mtx.gz $M/fe_body.mtx.gz $M/bcsstk16.mtx.gz $M/wing.mtx.gz $M/t60k.mtx.gz $M/wing_nodal.mtx.gz $M/bcsstk15.mtx.gz $M/fe_sphere.mtx.gz $M/fe_4elt2.mtx.gz $M/whitaker3.mtx.gz $M/airfoil1.mtx.gz $M/bcsstk09.mtx.gz $M/nnc1374.mtx.gz $M/jagmesh7.mtx.gz"
timeout 60 build/spx bench --backend cuda --formats cusparse/alg1,ehyb/auto $FEM --json $out/fem.json > $out/fem.txt 2>&1; echo "fem rc=$? $(el) s"
echo "done $(el) s"
pack; rm -rf $OUT/r
